//! Just enough HTTP/1.1 for the scripted model server: requests read one after another on a
//! keep-alive connection (`Content-Length` or chunked bodies, `Expect: 100-continue`), whole
//! responses written with a `Content-Length`.
//!
//! Server-sent events are written as one body: clients read them as they would a stream, and a
//! scripted reply is known in full before its first byte is sent.
//!
//! What a client cannot make the server do:
//!
//! | limit | default | beyond it |
//! |---|---|---|
//! | request head, with the empty lines before it ([`MAX_HEAD`]) | 64 KiB | `431`, closed |
//! | trailers of a chunked body | 64 KiB | `431`, closed |
//! | body ([`MAX_BODY`]), announced or decoded; memory grows with the bytes received, never with the size announced | 64 MiB | `413`, closed |
//! | chunk-size line | 1 KiB | `400`, closed |
//! | silence while a request is read or a response written ([`Limits::idle`]) | 30 s | `408` (reading), closed |
//! | silence between requests of a kept-alive connection ([`Limits::keep_alive`]) | 60 s | closed |
//! | connections at once ([`Limits::max_connections`]) | 64 | the next waits in the listen backlog |
//!
//! Framing is read strictly: a `Content-Length` is digits, a chunk size hex digits (then any
//! extensions), chunk data ends with CRLF, a trailer line has a colon, and `chunked` must be
//! the last transfer coding; anything else is `400`.

use std::fmt;
use std::io;
use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::idle::Idle;

/// The most bytes a request head (request line and headers) may take.
pub const MAX_HEAD: usize = 64 * 1024;
/// The most bytes a request body may take.
pub const MAX_BODY: usize = 64 * 1024 * 1024;

/// At most this many connections are served at once, by default.
pub const MAX_CONNECTIONS: usize = 64;
/// The longest silence while a request is read or a response written, by default.
pub const IDLE: Duration = Duration::from_secs(30);
/// The longest a kept-alive connection waits for its next request, by default.
pub const KEEP_ALIVE: Duration = Duration::from_secs(60);

/// How many connections the server holds and how long each may stay silent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most connections served at once (at least 1); more wait in the listen backlog until
    /// one closes.
    pub max_connections: usize,
    /// The longest silence between bytes of a request being read (then `408` and the
    /// connection is closed) or of a response being written (then it is closed).
    pub idle: Duration,
    /// The longest a kept-alive connection may wait for its next request; then it is closed.
    pub keep_alive: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: MAX_CONNECTIONS,
            idle: IDLE,
            keep_alive: KEEP_ALIVE,
        }
    }
}

/// One HTTP request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `POST`, `HEAD`, …
    pub method: String,
    /// The request target as sent: path and query.
    pub target: String,
    /// Header names (as sent) and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body, decoded from its transfer encoding.
    pub body: Vec<u8>,
}

impl Request {
    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The path part of the target (before `?`).
    pub fn path(&self) -> &str {
        self.target
            .split_once('?')
            .map_or(self.target.as_str(), |(path, _)| path)
    }

    /// The value of a query parameter, undecoded.
    pub fn query(&self, name: &str) -> Option<&str> {
        let (_, query) = self.target.split_once('?')?;
        query.split('&').find_map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (key == name).then_some(value)
        })
    }

    /// Whether the client asked to close the connection after this request.
    fn wants_close(&self) -> bool {
        self.header("connection")
            .is_some_and(|value| value.eq_ignore_ascii_case("close"))
    }
}

/// One HTTP response, written whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// A JSON response.
    pub fn json(status: u16, value: &serde_json::Value) -> Response {
        Response {
            status,
            content_type: "application/json",
            body: value.to_string().into_bytes(),
        }
    }

    /// A `text/event-stream` response holding `events`, already framed.
    pub fn event_stream(body: String) -> Response {
        Response {
            status: 200,
            content_type: "text/event-stream",
            body: body.into_bytes(),
        }
    }

    /// An empty `200 OK`.
    pub fn empty() -> Response {
        Response {
            status: 200,
            content_type: "text/plain",
            body: Vec::new(),
        }
    }
}

/// A request that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRequest {
    /// The status to answer with.
    pub status: u16,
    /// What is wrong.
    pub message: String,
}

impl BadRequest {
    fn new(status: u16, message: impl Into<String>) -> BadRequest {
        BadRequest {
            status,
            message: message.into(),
        }
    }
}

impl fmt::Display for BadRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.status, self.message)
    }
}

/// The request line and headers of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// The method.
    pub method: String,
    /// The request target.
    pub target: String,
    /// The headers, in order.
    pub headers: Vec<(String, String)>,
}

/// Parses a request head: the bytes up to, not including, the empty line that ends it.
pub fn parse_head(bytes: &[u8]) -> Result<Head, BadRequest> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| BadRequest::new(400, "the request head is not valid UTF-8"))?;
    let mut lines = text
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line));
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(BadRequest::new(
            400,
            format!("malformed request line `{request_line}`"),
        ));
    };
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(BadRequest::new(400, format!("malformed method `{method}`")));
    }
    if !target.starts_with('/') && target != "*" {
        return Err(BadRequest::new(
            400,
            format!("unsupported target `{target}`"),
        ));
    }
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return Err(BadRequest::new(
            505,
            format!("unsupported version `{version}`"),
        ));
    }
    let mut headers = Vec::new();
    for line in lines.filter(|line| !line.is_empty()) {
        let Some((name, value)) = line.split_once(':') else {
            return Err(BadRequest::new(400, format!("malformed header `{line}`")));
        };
        if name.is_empty() || name.bytes().any(|b| b.is_ascii_whitespace()) {
            return Err(BadRequest::new(
                400,
                format!("malformed header name `{name}`"),
            ));
        }
        headers.push((name.to_owned(), value.trim().to_owned()));
    }
    Ok(Head {
        method: method.to_owned(),
        target: target.to_owned(),
        headers,
    })
}

/// Reads the next request of a connection; `Ok(None)` when the client closed it cleanly.
/// `writer` receives the `100 Continue` a client may wait for before sending its body.
///
/// Buffers grow as bytes arrive: a request announcing a large body costs only what it sent.
pub async fn read_request<R, W>(
    reader: &mut R,
    writer: &mut W,
) -> io::Result<Option<Result<Request, BadRequest>>>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let head = match read_head(reader).await? {
        None => return Ok(None),
        Some(Err(bad)) => return Ok(Some(Err(bad))),
        Some(Ok(head)) => head,
    };
    let head = match parse_head(&head) {
        Ok(head) => head,
        Err(bad) => return Ok(Some(Err(bad))),
    };
    let mut request = Request {
        method: head.method,
        target: head.target,
        headers: head.headers,
        body: Vec::new(),
    };
    let framing = match framing(&request) {
        Ok(framing) => framing,
        Err(bad) => return Ok(Some(Err(bad))),
    };
    if request
        .header("expect")
        .is_some_and(|value| value.eq_ignore_ascii_case("100-continue"))
    {
        writer.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").await?;
        writer.flush().await?;
    }
    let body = match framing {
        Framing::Length(length) => {
            let mut body = Vec::new();
            append_exact(reader, &mut body, length, length).await?;
            Ok(body)
        }
        Framing::Chunked => read_chunked(reader).await?,
    };
    Ok(Some(body.map(|body| {
        request.body = body;
        request
    })))
}

/// Reads a request head up to, not including, its empty line; `None` when the connection
/// closed before a request began. Empty lines before it are skipped (RFC 9112, 2.2) and count
/// towards [`MAX_HEAD`].
async fn read_head<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> io::Result<Option<Result<Vec<u8>, BadRequest>>> {
    let mut head = Vec::new();
    let mut budget = MAX_HEAD;
    loop {
        let before = head.len();
        let read = (&mut *reader)
            .take(budget as u64 + 1)
            .read_until(b'\n', &mut head)
            .await?;
        if read == 0 {
            return if head.is_empty() {
                Ok(None)
            } else {
                Err(io::ErrorKind::UnexpectedEof.into())
            };
        }
        if read > budget {
            return Ok(Some(Err(BadRequest::new(
                431,
                "the request head is too large",
            ))));
        }
        budget -= read;
        let line = &head[before..];
        if line == b"\r\n" || line == b"\n" {
            if before == 0 {
                head.clear();
                continue;
            }
            head.truncate(before);
            return Ok(Some(Ok(head)));
        }
        if !line.ends_with(b"\n") {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
    }
}

/// How a request's body is delimited.
enum Framing {
    /// `Content-Length` bytes (0 without the header).
    Length(usize),
    /// `Transfer-Encoding: chunked`.
    Chunked,
}

/// The framing of a request's body, checked against [`MAX_BODY`].
fn framing(request: &Request) -> Result<Framing, BadRequest> {
    if let Some(codings) = request.header("transfer-encoding") {
        // Chunked must be the last coding (RFC 9112, 6.1); what comes before it is the
        // handler's to refuse (`Content-Encoding`-like codings are not decoded).
        let last = codings.rsplit(',').next().unwrap_or_default().trim();
        return if last.eq_ignore_ascii_case("chunked") {
            Ok(Framing::Chunked)
        } else {
            Err(BadRequest::new(
                400,
                format!("unsupported Transfer-Encoding `{codings}` (chunked must come last)"),
            ))
        };
    }
    let Some(length) = request.header("content-length") else {
        return Ok(Framing::Length(0));
    };
    if length.is_empty() || !length.bytes().all(|b| b.is_ascii_digit()) {
        return Err(BadRequest::new(
            400,
            format!("malformed Content-Length `{length}`"),
        ));
    }
    match length.parse::<usize>() {
        Ok(length) if length <= MAX_BODY => Ok(Framing::Length(length)),
        _ => Err(BadRequest::new(413, "the request body is too large")),
    }
}

/// Appends exactly `count` bytes of `reader` to `body` as they arrive. Its capacity at most
/// doubles at a time and never passes `ceiling` (nor the length reached, if that is larger).
async fn append_exact<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    body: &mut Vec<u8>,
    count: usize,
    ceiling: usize,
) -> io::Result<()> {
    let mut remaining = count;
    while remaining > 0 {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let taken = available.len().min(remaining);
        let needed = body.len().saturating_add(taken);
        if needed > body.capacity() {
            let grown = body.capacity().saturating_mul(2).min(ceiling).max(needed);
            body.reserve_exact(grown - body.len());
        }
        body.extend_from_slice(&available[..taken]);
        reader.consume(taken);
        remaining -= taken;
    }
    Ok(())
}

/// The longest chunk-size line (size and extensions) read.
const MAX_CHUNK_LINE: usize = 1024;

/// Reads a chunked body and its trailers (at most [`MAX_HEAD`] bytes of them, discarded).
async fn read_chunked<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> io::Result<Result<Vec<u8>, BadRequest>> {
    let mut body = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut *reader)
            .take(MAX_CHUNK_LINE as u64)
            .read_until(b'\n', &mut line)
            .await?;
        if read == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        if !line.ends_with(b"\n") {
            if read < MAX_CHUNK_LINE {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            return Ok(Err(BadRequest::new(400, "a chunk-size line is too long")));
        }
        let size = match chunk_size(&line) {
            Ok(size) => size,
            Err(bad) => return Ok(Err(bad)),
        };
        if size == 0 {
            return Ok(read_trailers(reader).await?.map(|()| body));
        }
        if body
            .len()
            .checked_add(size)
            .is_none_or(|total| total > MAX_BODY)
        {
            return Ok(Err(BadRequest::new(413, "the request body is too large")));
        }
        append_exact(reader, &mut body, size, MAX_BODY).await?;
        line.clear();
        let read = (&mut *reader).take(2).read_until(b'\n', &mut line).await?;
        if read == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        if line != b"\r\n" && line != b"\n" {
            return Ok(Err(BadRequest::new(
                400,
                "a chunk's data does not end with CRLF where its size says",
            )));
        }
    }
}

/// The size of a chunk-size line (`1a;name=value\r\n`): hex digits, then optional
/// extensions, which are ignored. A size past any body's limit is `413`.
fn chunk_size(line: &[u8]) -> Result<usize, BadRequest> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let digits = line
        .split(|&b| b == b';')
        .next()
        .unwrap_or_default()
        .trim_ascii();
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_hexdigit) {
        return Err(BadRequest::new(
            400,
            format!(
                "malformed chunk size `{}`",
                String::from_utf8_lossy(digits).escape_debug()
            ),
        ));
    }
    // Hex digits are ASCII; a size past what a usize holds is past any limit.
    std::str::from_utf8(digits)
        .ok()
        .and_then(|digits| usize::from_str_radix(digits, 16).ok())
        .ok_or_else(|| BadRequest::new(413, "the request body is too large"))
}

/// Reads the trailer lines after the last chunk, up to the empty line, and discards them.
async fn read_trailers<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> io::Result<Result<(), BadRequest>> {
    let mut budget = MAX_HEAD;
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut *reader)
            .take(budget as u64 + 1)
            .read_until(b'\n', &mut line)
            .await?;
        if read == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        if read > budget {
            return Ok(Err(BadRequest::new(
                431,
                "the request trailers are too large",
            )));
        }
        budget -= read;
        if line == b"\r\n" || line == b"\n" {
            return Ok(Ok(()));
        }
        if !line.ends_with(b"\n") {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        if !line.contains(&b':') {
            return Ok(Err(BadRequest::new(400, "a malformed trailer line")));
        }
    }
}

/// Writes a response; `head_only` leaves the body out (for `HEAD`).
pub async fn write_response<W: AsyncWrite + Unpin>(
    writer: &mut W,
    response: &Response,
    head_only: bool,
    close: bool,
) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n",
        response.status,
        reason(response.status),
        response.content_type,
        response.body.len()
    );
    if response.content_type == "text/event-stream" {
        head.push_str("Cache-Control: no-cache\r\n");
    }
    head.push_str(if close {
        "Connection: close\r\n\r\n"
    } else {
        "Connection: keep-alive\r\n\r\n"
    });
    writer.write_all(head.as_bytes()).await?;
    if !head_only {
        writer.write_all(&response.body).await?;
    }
    writer.flush().await
}

/// Serves one connection: reads requests and answers each with `handle` until the client
/// closes it, asks to, sends something unreadable, or stays silent past `limits` (`408` when
/// a request was under way).
pub async fn serve_connection<S, F>(stream: S, limits: &Limits, mut handle: F) -> io::Result<()>
where
    S: tokio::io::AsyncRead + AsyncWrite + Unpin,
    F: FnMut(&Request) -> Response,
{
    let (read, write) = tokio::io::split(stream);
    let mut reader = tokio::io::BufReader::new(Idle::new(read, limits.keep_alive));
    let mut write = Idle::new(write, limits.idle);
    loop {
        reader.get_mut().set_limit(limits.keep_alive);
        match reader.fill_buf().await {
            Ok([]) => break,
            Ok(_) => {}
            Err(error) if error.kind() == io::ErrorKind::TimedOut => break,
            Err(error) => return Err(error),
        }
        reader.get_mut().set_limit(limits.idle);
        let request = match read_request(&mut reader, &mut write).await {
            Ok(Some(request)) => request,
            Ok(None) => break,
            Err(error) if error.kind() == io::ErrorKind::TimedOut => Err(BadRequest::new(
                408,
                format!(
                    "the request stopped arriving: nothing came for {} ms",
                    limits.idle.as_millis()
                ),
            )),
            Err(error) => return Err(error),
        };
        match request {
            Ok(request) => {
                let response = handle(&request);
                let close = request.wants_close();
                write_response(&mut write, &response, request.method == "HEAD", close).await?;
                if close {
                    break;
                }
            }
            Err(bad) => {
                let body = serde_json::json!({"error": {"message": bad.message, "type": "invalid_request_error"}});
                write_response(&mut write, &Response::json(bad.status, &body), false, true).await?;
                break;
            }
        }
    }
    Ok(())
}

/// The reason phrase of a status code.
pub fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Content",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        529 => "Overloaded",
        _ => "Status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn read_all(input: &[u8]) -> (Vec<Result<Request, BadRequest>>, Vec<u8>) {
        let mut reader = tokio::io::BufReader::new(input);
        let mut written = Vec::new();
        let mut requests = Vec::new();
        while let Some(request) = read_request(&mut reader, &mut written).await.unwrap() {
            let stop = request.is_err();
            requests.push(request);
            if stop {
                break;
            }
        }
        (requests, written)
    }

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn reads_keep_alive_requests_with_both_body_framings() {
        let input = b"POST /v1/messages?beta=true HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}\
GET /v1/models HTTP/1.1\r\n\r\n\
POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\n{\"a\r\n4\r\n\":1}\r\n0\r\nX-Trailer: y\r\n\r\n";
        let (requests, written) = block_on(read_all(input));
        let requests: Vec<Request> = requests.into_iter().map(Result::unwrap).collect();
        assert_eq!(requests.len(), 3);
        assert_eq!(requests[0].method, "POST");
        assert_eq!(requests[0].path(), "/v1/messages");
        assert_eq!(requests[0].query("beta"), Some("true"));
        assert_eq!(requests[0].header("HOST"), Some("x"));
        assert_eq!(requests[0].body, b"{}");
        assert_eq!(requests[1].target, "/v1/models");
        assert!(requests[1].body.is_empty());
        assert_eq!(requests[2].body, br#"{"a":1}"#);
        assert!(written.is_empty());
    }

    #[test]
    fn answers_expect_continue_before_the_body() {
        let input = b"POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nz";
        let (requests, written) = block_on(read_all(input));
        assert_eq!(requests[0].as_ref().unwrap().body, b"z");
        assert_eq!(written, b"HTTP/1.1 100 Continue\r\n\r\n");
    }

    #[test]
    fn rejects_malformed_heads_with_a_status() {
        for (input, status) in [
            (&b"NOT A REQUEST LINE\r\n\r\n"[..], 400),
            (b"POST /x HTTP/2.0\r\n\r\n", 505),
            (b"POST x HTTP/1.1\r\n\r\n", 400),
            (b"POST /x HTTP/1.1\r\nno colon\r\n\r\n", 400),
            (b"POST /x HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
            (
                b"POST /x HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n",
                413,
            ),
            (
                b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                400,
            ),
        ] {
            let (requests, _) = block_on(read_all(input));
            let error = requests[0].as_ref().unwrap_err();
            assert_eq!(error.status, status, "{}", String::from_utf8_lossy(input));
        }
        let huge = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(MAX_HEAD));
        let (requests, _) = block_on(read_all(huge.as_bytes()));
        assert_eq!(requests[0].as_ref().unwrap_err().status, 431);
    }

    fn chunked(body: &str) -> Vec<u8> {
        format!("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n{body}").into_bytes()
    }

    #[test]
    fn a_chunk_size_past_the_limit_is_413_even_after_a_first_chunk() {
        for body in [
            "1\r\na\r\nffffffffffffffff\r\n",
            "ffffffffffffffff\r\n",
            "1\r\na\r\n10000000000000000\r\n",
            "4000001\r\n",
            "2\r\nab\r\n3ffffff\r\n",
        ] {
            let (requests, _) = block_on(read_all(&chunked(body)));
            let error = requests[0].as_ref().unwrap_err();
            assert_eq!(error.status, 413, "{body:?}");
        }
    }

    #[test]
    fn chunk_framing_is_read_strictly_but_extensions_and_trailers_are_skipped() {
        let input =
            chunked("2 ; name=\"v;x\" \r\n{}\r\n0001\r\n \r\n0;end\r\nA: b\r\nC: d\r\n\r\n");
        let (requests, _) = block_on(read_all(&input));
        assert_eq!(requests[0].as_ref().unwrap().body, b"{} ");
        for body in [
            "+2\r\n{}\r\n0\r\n\r\n",
            "0x2\r\n{}\r\n0\r\n\r\n",
            " \r\n",
            "2\r\n{}XY0\r\n\r\n",
            "2\r\n{}\r\n0\r\nno colon\r\n\r\n",
        ] {
            let (requests, _) = block_on(read_all(&chunked(body)));
            let error = requests[0].as_ref().unwrap_err();
            assert_eq!(error.status, 400, "{body:?}");
        }
        let long = chunked(&format!("1;{}\r\n", "x".repeat(2000)));
        let (requests, _) = block_on(read_all(&long));
        assert_eq!(requests[0].as_ref().unwrap_err().status, 400);
        let trailers = chunked(&format!("0\r\n{}\r\n", "T: v\r\n".repeat(MAX_HEAD / 4)));
        let (requests, _) = block_on(read_all(&trailers));
        assert_eq!(requests[0].as_ref().unwrap_err().status, 431);
    }

    #[test]
    fn framing_headers_are_read_strictly() {
        for (header, status) in [
            ("Content-Length: +2", 400),
            ("Content-Length: 2, 2", 400),
            ("Content-Length: 99999999999999999999999", 413),
            ("Transfer-Encoding: chunked, gzip", 400),
            ("Transfer-Encoding: gzip", 400),
        ] {
            let input = format!("POST /x HTTP/1.1\r\n{header}\r\n\r\n{{}}");
            let (requests, _) = block_on(read_all(input.as_bytes()));
            let error = requests[0].as_ref().unwrap_err();
            assert_eq!(error.status, status, "{header}");
        }
        let input =
            b"POST /x HTTP/1.1\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n";
        let (requests, _) = block_on(read_all(input));
        assert_eq!(requests[0].as_ref().unwrap().body, b"{}");
    }

    #[test]
    fn empty_lines_before_a_request_count_towards_the_head_limit() {
        let (requests, _) = block_on(read_all(b"\r\n\n\r\nHEAD / HTTP/1.1\r\n\r\n"));
        assert_eq!(requests[0].as_ref().unwrap().method, "HEAD");
        let flood = "\r\n".repeat(MAX_HEAD / 2 + 1);
        let (requests, _) = block_on(read_all(flood.as_bytes()));
        assert_eq!(requests[0].as_ref().unwrap_err().status, 431);
    }

    #[test]
    fn a_body_grows_with_its_bytes_within_twice_their_size() {
        let pieces: String = (0..100).map(|_| "3\r\nabc\r\n").collect();
        let (requests, _) = block_on(read_all(&chunked(&format!("{pieces}0\r\n\r\n"))));
        let body = &requests[0].as_ref().unwrap().body;
        assert_eq!(body.len(), 300);
        assert!(body.capacity() <= 600, "{}", body.capacity());
        let input = b"POST /x HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc";
        let (requests, _) = block_on(read_all(input));
        assert_eq!(requests[0].as_ref().unwrap().body.capacity(), 3);
    }

    #[test]
    fn a_truncated_request_is_an_io_error_and_a_clean_close_is_none() {
        for input in [
            &b"POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nab"[..],
            b"POST /x HTTP/1.1\r\nHost",
            b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
            b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5",
            b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: b\r\n",
        ] {
            let result = block_on(async {
                let mut reader = tokio::io::BufReader::new(input);
                read_request(&mut reader, &mut Vec::new()).await
            });
            let error = result.expect_err(&String::from_utf8_lossy(input));
            assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
        }
        let result = block_on(async {
            let mut reader = tokio::io::BufReader::new(&b""[..]);
            read_request(&mut reader, &mut Vec::new()).await
        });
        assert!(result.unwrap().is_none());
    }

    #[test]
    fn writes_a_whole_response() {
        let mut out = Vec::new();
        let response = Response::event_stream("data: {}\n\n".to_owned());
        block_on(write_response(&mut out, &response, false, false)).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
        assert!(text.contains("Content-Type: text/event-stream\r\n"));
        assert!(text.contains("Content-Length: 10\r\n"));
        assert!(text.contains("Connection: keep-alive\r\n"));
        assert!(text.ends_with("\r\n\r\ndata: {}\n\n"));
        let mut out = Vec::new();
        block_on(write_response(&mut out, &response, true, true)).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.ends_with("Connection: close\r\n\r\n"), "{text}");
    }
}
