//! Just enough HTTP/1.1 for the scripted model server: requests read one after another on a
//! keep-alive connection (`Content-Length` or chunked bodies, `Expect: 100-continue`), whole
//! responses written with a `Content-Length`.
//!
//! Server-sent events are written as one body: clients read them as they would a stream, and a
//! scripted reply is known in full before its first byte is sent.

use std::fmt;
use std::io;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The most bytes a request head (request line and headers) may take.
pub const MAX_HEAD: usize = 64 * 1024;
/// The most bytes a request body may take.
pub const MAX_BODY: usize = 64 * 1024 * 1024;

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
pub async fn read_request<R, W>(
    reader: &mut R,
    writer: &mut W,
) -> io::Result<Option<Result<Request, BadRequest>>>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut head = Vec::new();
    loop {
        let before = head.len();
        let read = (&mut *reader)
            .take((MAX_HEAD + 1 - before) as u64)
            .read_until(b'\n', &mut head)
            .await?;
        if read == 0 {
            return if head.is_empty() {
                Ok(None)
            } else {
                Err(io::ErrorKind::UnexpectedEof.into())
            };
        }
        if head.len() > MAX_HEAD {
            return Ok(Some(Err(BadRequest::new(
                431,
                "the request head is too large",
            ))));
        }
        let line = &head[before..];
        if line == b"\r\n" || line == b"\n" {
            if before == 0 {
                // Stray empty lines between requests are allowed (RFC 9112, 2.2).
                head.clear();
                continue;
            }
            break;
        }
    }
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
    if request
        .header("expect")
        .is_some_and(|value| value.eq_ignore_ascii_case("100-continue"))
    {
        writer.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").await?;
        writer.flush().await?;
    }
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|value| value.to_ascii_lowercase().contains("chunked"));
    let body = if chunked {
        read_chunked(reader).await?
    } else {
        match request.header("content-length").map(str::parse::<usize>) {
            None => Ok(Vec::new()),
            Some(Err(_)) => Err(BadRequest::new(400, "malformed Content-Length")),
            Some(Ok(length)) if length > MAX_BODY => {
                Err(BadRequest::new(413, "the request body is too large"))
            }
            Some(Ok(length)) => {
                let mut body = vec![0; length];
                reader.read_exact(&mut body).await?;
                Ok(body)
            }
        }
    };
    Ok(Some(body.map(|body| {
        request.body = body;
        request
    })))
}

/// Reads a chunked body and its trailers.
async fn read_chunked<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> io::Result<Result<Vec<u8>, BadRequest>> {
    let mut body = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        (&mut *reader)
            .take(1024)
            .read_until(b'\n', &mut line)
            .await?;
        let text = String::from_utf8_lossy(&line);
        let size = text.trim().split(';').next().unwrap_or_default();
        let Ok(size) = usize::from_str_radix(size, 16) else {
            return Ok(Err(BadRequest::new(400, "malformed chunk size")));
        };
        if size == 0 {
            // Trailers, up to the empty line.
            loop {
                line.clear();
                let read = (&mut *reader)
                    .take(8192)
                    .read_until(b'\n', &mut line)
                    .await?;
                if read == 0 || line == b"\r\n" || line == b"\n" {
                    return Ok(Ok(body));
                }
            }
        }
        if body.len() + size > MAX_BODY {
            return Ok(Err(BadRequest::new(413, "the request body is too large")));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..]).await?;
        line.clear();
        (&mut *reader).take(2).read_until(b'\n', &mut line).await?;
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
/// closes it, asks to, or sends something unreadable.
pub async fn serve_connection<S, F>(stream: S, mut handle: F) -> io::Result<()>
where
    S: tokio::io::AsyncRead + AsyncWrite + Unpin,
    F: FnMut(&Request) -> Response,
{
    let (read, mut write) = tokio::io::split(stream);
    let mut reader = tokio::io::BufReader::new(read);
    while let Some(request) = read_request(&mut reader, &mut write).await? {
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

    #[test]
    fn a_truncated_request_is_an_io_error_and_a_clean_close_is_none() {
        let result = block_on(async {
            let mut reader =
                tokio::io::BufReader::new(&b"POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nab"[..]);
            read_request(&mut reader, &mut Vec::new()).await
        });
        assert!(result.is_err());
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
