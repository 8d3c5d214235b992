//! The scripted model server: a stand-in for a model provider on 127.0.0.1 that plays a
//! [`Script`], so real agent CLIs run offline, deterministically and without spending a token.
//!
//! | piece | what |
//! |---|---|
//! | [`MockServer`] | binds `127.0.0.1` (an ephemeral port by default), serves HTTP/1.1 on a thread of its own until dropped |
//! | [`MockSession`] | one agent session's route: its script, cwd and request log, reached through a base URL of its own (`/s/<token>` prefix) or its API key |
//! | [`script`] | the YAML script format and which reply a request is at |
//! | [`listing`] | which skills a request lists as available to the model, per CLI (what `if_listed` steps test) |
//! | [`wire`](mod@wire) | Anthropic Messages, OpenAI Responses, OpenAI Chat Completions, Gemini |
//! | [`tools`] | a script step onto the tool names and argument names the agent offered |
//! | [`schema`] | values that fit a JSON schema (structured side replies, tool arguments) |
//! | [`http`] | the HTTP/1.1 framing and what a client cannot make the server do: size limits, idle limits, the connection cap ([`ServerOptions::limits`]) |
//!
//! What a request gets:
//!
//! | request | reply |
//! |---|---|
//! | `HEAD` anything | `200` |
//! | `GET …/models` | the session's model (Anthropic, OpenAI or Gemini list shape) |
//! | count-tokens endpoints | a quarter of the request's bytes |
//! | a model request that offers tools | the script's turn for the number of tool results in its history (less those of the session's first such request: a resumed conversation's earlier turns), in the branches the request's skill listing chooses: text and one tool call, the final answer, or a scripted HTTP error |
//! | a model request without tools (titles, summaries, structured side questions) | plain text: JSON fitting the requested schema when it asks for JSON; `Mock session` when it mentions a title; else the script's final answer (for that request's listing). The script does not advance. |
//!
//! The accept loop takes a connection only while fewer than [`Limits::max_connections`] are
//! open, and after an `accept` that fails for want of descriptors or memory (`EMFILE`,
//! `ENFILE`, `ENOBUFS`, `ENOMEM`: any error but a connection gone before it was taken) it
//! sleeps 50 ms rather than retry at once.
//!
//! Every reply carries usage figures (a quarter of the bytes each way). Each request and a
//! summary of its reply are appended to the session's log (`mock-requests.jsonl` in an
//! attempt's artifacts) and, when echoing, printed; both with credentials masked:
//!
//! | what | masked as |
//! |---|---|
//! | headers named like a credential: `authorization`, `proxy-authorization`, `cookie`, and names that read as a secret variable with `-` as `_` (`x-api-key`, `x-goog-api-key`, `api-key`, `x-auth-token`) | `[masked]` |
//! | query parameters named so (`?key=`, `access_token=`) | `[masked]` |
//! | string fields of the body named so (`api_key`, `"token"`) | `[masked]` |
//! | anywhere in the entry (the conversation included): every secret the process remembers — the values of its secret-looking variables (remembered when the server starts) and, in a run, those of the agents' environments | `[masked:NAME]` |

pub mod http;
mod idle;
pub mod listing;
pub mod schema;
pub mod script;
pub mod tools;
pub mod wire;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{self, Write as _};
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use serde_json::{Map, Value, json};
use tokio::sync::Semaphore;

pub use script::{Script, Step};

use self::http::{Limits, Request, Response};
use self::schema::example_json;
use self::script::Turn;
use self::tools::{Planned, plan_call};
use self::wire::{Conversation, Reply, Stream, Usage, Wire, wire};
use crate::config::WireApi;
use crate::time::Timestamp;

/// The API key prefix that names a session.
const KEY_PREFIX: &str = "skillgym-mock-";
/// The path prefix that names a session.
const PATH_PREFIX: &str = "/s/";
/// The title of every session, for agents that ask for one.
const TITLE: &str = "Mock session";
/// What a credential's value is logged as.
const MASKED: &str = "[masked]";

/// What a session plays and where it logs.
#[derive(Debug, Clone)]
pub struct SessionSetup {
    /// The script.
    pub script: Arc<Script>,
    /// The session's working directory: relative paths of the script resolve against it.
    pub cwd: Option<PathBuf>,
    /// The request log (JSON lines, appended).
    pub log: Option<PathBuf>,
    /// The model the session is configured with, for model lists.
    pub model: Option<String>,
}

impl SessionSetup {
    /// A session playing `script`.
    pub fn new(script: Arc<Script>) -> SessionSetup {
        SessionSetup {
            script,
            cwd: None,
            log: None,
            model: None,
        }
    }
}

/// How the server starts.
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    /// The port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// The session of requests that name none (no `/s/<token>` prefix, no session key); such
    /// requests get `404` without one.
    pub default_session: Option<SessionSetup>,
    /// Print a one-line summary of each request to stderr.
    pub echo: bool,
    /// The connection cap and idle limits ([`http`] lists their defaults).
    pub limits: Limits,
}

/// A running scripted model server; dropping it stops it.
pub struct MockServer {
    shared: Arc<Shared>,
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for MockServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockServer")
            .field("addr", &self.addr)
            .finish()
    }
}

struct Shared {
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    default_session: Option<Arc<Session>>,
    seq: AtomicU64,
    tokens: AtomicU64,
    echo: bool,
}

struct Session {
    setup: SessionSetup,
    fired: Mutex<HashSet<usize>>,
    log: Mutex<Option<File>>,
    /// The tool results in the history of the session's first request that offered tools: a
    /// resumed conversation's earlier turns, which the script does not count.
    baseline: Mutex<Option<usize>>,
}

impl Session {
    fn new(setup: SessionSetup) -> Arc<Session> {
        Arc::new(Session {
            setup,
            fired: Mutex::new(HashSet::new()),
            log: Mutex::new(None),
            baseline: Mutex::new(None),
        })
    }

    /// The tool results of a request's history since the session's first request (0 there):
    /// where the script is.
    fn tool_results_since_start(&self, tool_results: usize) -> usize {
        let mut baseline = self.baseline.lock().unwrap_or_else(PoisonError::into_inner);
        tool_results.saturating_sub(*baseline.get_or_insert(tool_results))
    }
}

impl MockServer {
    /// Binds 127.0.0.1 and starts serving on a thread of its own.
    pub fn start(options: ServerOptions) -> io::Result<MockServer> {
        // Secrets of this environment that a request may carry are masked in its log.
        crate::secrets::remember_process_env();
        let listener = TcpListener::bind(("127.0.0.1", options.port))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let limits = options.limits;
        let shared = Arc::new(Shared {
            sessions: Mutex::new(HashMap::new()),
            default_session: options.default_session.map(Session::new),
            seq: AtomicU64::new(1),
            tokens: AtomicU64::new(1),
            echo: options.echo,
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("skillgym-mock".to_owned())
            .spawn(move || runtime.block_on(serve(listener, serving, limits, stopped)))?;
        Ok(MockServer {
            shared,
            addr,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// The address served.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Opens a session: requests through its base URL (or with its key) play `setup`.
    pub fn open_session(&self, setup: SessionSetup) -> MockSession {
        let token = format!(
            "{:x}{:04x}",
            self.shared.tokens.fetch_add(1, Ordering::Relaxed),
            std::process::id() & 0xffff
        );
        self.shared
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(token.clone(), Session::new(setup));
        MockSession {
            url: format!("{}{PATH_PREFIX}{token}", self.url()),
            key: format!("{KEY_PREFIX}{token}"),
            token,
            shared: Arc::clone(&self.shared),
        }
    }

    /// Blocks until the server stops (it stops only when the process ends).
    pub fn wait(mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One session's route on a [`MockServer`]; dropping it closes the route.
pub struct MockSession {
    token: String,
    url: String,
    key: String,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for MockSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockSession")
            .field("url", &self.url)
            .finish()
    }
}

impl MockSession {
    /// The base URL an agent is given for `api`, in that API's convention: with `/v1` for the
    /// OpenAI wires, without for Anthropic and Gemini.
    pub fn base_url(&self, api: WireApi) -> String {
        base_url(&self.url, api)
    }

    /// The API key that names this session.
    pub fn api_key(&self) -> &str {
        &self.key
    }
}

impl Drop for MockSession {
    fn drop(&mut self) {
        self.shared
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.token);
    }
}

/// The base URL for `api` below `root`, in that API's convention.
pub fn base_url(root: &str, api: WireApi) -> String {
    match api {
        WireApi::OpenaiResponses | WireApi::OpenaiChat => format!("{root}/v1"),
        WireApi::Anthropic | WireApi::Gemini => root.to_owned(),
    }
}

/// How long the accept loop waits after `accept` failed for want of descriptors or memory.
const ACCEPT_BACK_OFF: Duration = Duration::from_millis(50);

/// The accept loop: at most `limits.max_connections` connections at once (more wait in the
/// listen backlog), each served on a task of its own, until `stopped`.
async fn serve(
    listener: TcpListener,
    shared: Arc<Shared>,
    limits: Limits,
    mut stopped: tokio::sync::oneshot::Receiver<()>,
) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    let slots = Arc::new(Semaphore::new(
        limits.max_connections.clamp(1, Semaphore::MAX_PERMITS),
    ));
    loop {
        let slot = tokio::select! {
            _ = &mut stopped => return,
            slot = Arc::clone(&slots).acquire_owned() => slot,
        };
        let Ok(slot) = slot else { return };
        let accepted = tokio::select! {
            _ = &mut stopped => return,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, _)) => {
                let shared = Arc::clone(&shared);
                tokio::spawn(async move {
                    let _ =
                        http::serve_connection(stream, &limits, |request| handle(&shared, request))
                            .await;
                    drop(slot);
                });
            }
            Err(error) if gone_before_accepted(&error) => {}
            // Out of descriptors (`EMFILE`, `ENFILE`) or memory (`ENOBUFS`, `ENOMEM`), or
            // anything else: the listener stays readable, so retrying at once would spin.
            Err(_) => tokio::select! {
                _ = &mut stopped => return,
                () = tokio::time::sleep(ACCEPT_BACK_OFF) => {}
            },
        }
    }
}

/// Whether `accept` failed for the one connection it took (the next may succeed at once).
fn gone_before_accepted(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
            | io::ErrorKind::WouldBlock
    )
}

/// What an endpoint is for.
enum Endpoint {
    Generate(&'static dyn Wire, Stream),
    CountTokens(&'static dyn Wire),
    Models(&'static dyn Wire),
}

/// Answers one request.
fn handle(shared: &Shared, request: &Request) -> Response {
    if request.method == "HEAD" {
        return Response::empty();
    }
    let (session, path) = match route(shared, request) {
        Ok(found) => found,
        Err(response) => return response,
    };
    let (endpoint, path_model) = match endpoint(request, path) {
        Some(found) => found,
        None => {
            let response = Response::json(
                404,
                &json!({"error": {"message": format!("skillgym mock: no such endpoint: {} {path}", request.method), "type": "not_found_error"}}),
            );
            log(shared, &session, request, None, &json!({"status": 404}));
            return response;
        }
    };
    let models = vec![
        session
            .setup
            .model
            .clone()
            .unwrap_or_else(|| "mock-model".to_owned()),
    ];
    match endpoint {
        Endpoint::Models(wire) => wire.models(&models),
        Endpoint::CountTokens(wire) => wire.count_tokens((request.body.len() as u64 / 4).max(1)),
        Endpoint::Generate(wire, stream) => {
            if let Some(encoding) = request
                .header("content-encoding")
                .filter(|e| !e.eq_ignore_ascii_case("identity"))
            {
                let message = format!(
                    "skillgym mock: compressed request bodies ({encoding}) are not supported"
                );
                log(
                    shared,
                    &session,
                    request,
                    None,
                    &json!({"status": 415, "error": message}),
                );
                return wire.error(415, &message);
            }
            let body: Value = match serde_json::from_slice(&request.body) {
                Ok(body) => body,
                Err(error) => {
                    let message = format!("skillgym mock: the request body is not JSON: {error}");
                    log(
                        shared,
                        &session,
                        request,
                        None,
                        &json!({"status": 400, "error": message}),
                    );
                    return wire.error(400, &message);
                }
            };
            let mut conversation = wire.conversation(&body, stream);
            if conversation.model.is_none() {
                conversation.model = path_model;
            }
            conversation.skills = listing::listed_skills(wire.api(), &body);
            generate(shared, &session, request, wire, &conversation, &body)
        }
    }
}

/// The session a request belongs to, and its path without the session prefix.
fn route<'a>(shared: &Shared, request: &'a Request) -> Result<(Arc<Session>, &'a str), Response> {
    let path = request.path();
    let (token, path) = match path.strip_prefix(PATH_PREFIX) {
        Some(rest) => {
            let (token, rest) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            (Some(token.to_owned()), rest)
        }
        None => (key_token(request), path),
    };
    let found = match &token {
        Some(token) => shared
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(token)
            .cloned(),
        None => shared.default_session.clone(),
    };
    found.map(|session| (session, path)).ok_or_else(|| {
        let message = match token {
            Some(token) => format!("skillgym mock: no open session `{token}` (it ended, or belongs to another run)"),
            None => "skillgym mock: the request names no session (base URL `/s/<token>` or a session API key)".to_owned(),
        };
        Response::json(404, &json!({"error": {"message": message, "type": "not_found_error"}}))
    })
}

/// The session token carried by the request's API key, if it is a session key.
fn key_token(request: &Request) -> Option<String> {
    let key = request
        .header("x-api-key")
        .or_else(|| request.header("x-goog-api-key"))
        .or_else(|| request.header("api-key"))
        .or_else(|| {
            request
                .header("authorization")
                .and_then(|value| value.strip_prefix("Bearer "))
        })
        .or_else(|| request.query("key"))?;
    key.trim()
        .strip_prefix(KEY_PREFIX)
        .filter(|token| !token.is_empty())
        .map(str::to_owned)
}

/// The endpoint of `path`, with the model a Gemini path names.
fn endpoint(request: &Request, path: &str) -> Option<(Endpoint, Option<String>)> {
    let path = path.trim_end_matches('/');
    if request.method == "GET" {
        if !(path.ends_with("/models") || path.contains("/models/")) {
            return None;
        }
        let api = if path.contains("/v1beta") || path.contains("/v1alpha") {
            WireApi::Gemini
        } else if request.header("anthropic-version").is_some()
            || request.header("x-api-key").is_some()
        {
            WireApi::Anthropic
        } else {
            WireApi::OpenaiChat
        };
        return Some((Endpoint::Models(wire(api)), None));
    }
    if request.method != "POST" {
        return None;
    }
    if let Some((before, action)) = path.rsplit_once(':')
        && let Some((_, model)) = before.rsplit_once("/models/")
    {
        let gemini = wire(WireApi::Gemini);
        let endpoint = match action {
            "generateContent" => Endpoint::Generate(gemini, Stream::Whole),
            "streamGenerateContent" if request.query("alt") == Some("sse") => {
                Endpoint::Generate(gemini, Stream::Sse)
            }
            "streamGenerateContent" => Endpoint::Generate(gemini, Stream::JsonArray),
            "countTokens" => Endpoint::CountTokens(gemini),
            _ => return None,
        };
        return Some((endpoint, Some(model.to_owned())));
    }
    let endpoint = if path.ends_with("/messages/count_tokens") {
        Endpoint::CountTokens(wire(WireApi::Anthropic))
    } else if path.ends_with("/messages") {
        Endpoint::Generate(wire(WireApi::Anthropic), Stream::Whole)
    } else if path.ends_with("/responses/input_tokens") {
        Endpoint::CountTokens(wire(WireApi::OpenaiResponses))
    } else if path.ends_with("/responses") {
        Endpoint::Generate(wire(WireApi::OpenaiResponses), Stream::Whole)
    } else if path.ends_with("/chat/completions") {
        Endpoint::Generate(wire(WireApi::OpenaiChat), Stream::Whole)
    } else {
        return None;
    };
    Some((endpoint, None))
}

/// Plays the session's script for one model request.
fn generate(
    shared: &Shared,
    session: &Session,
    request: &Request,
    wire: &dyn Wire,
    conversation: &Conversation,
    body: &Value,
) -> Response {
    let seq = shared.seq.fetch_add(1, Ordering::Relaxed);
    let plan = session.setup.script.plan(&conversation.skills);
    let (turn, text, call) = if conversation.tools.is_empty() {
        (
            None,
            side_answer(conversation).unwrap_or_else(|| plan.final_answer()),
            None,
        )
    } else {
        let (index, turn) = {
            let mut fired = session.fired.lock().unwrap_or_else(PoisonError::into_inner);
            let tool_results = session.tool_results_since_start(conversation.tool_results);
            let position = plan.position(tool_results, &mut fired);
            (position.index, position.turn.clone())
        };
        match turn {
            Turn::Fail(fail) => {
                let message = fail.message.clone().unwrap_or_else(|| {
                    format!(
                        "skillgym mock: scripted {} {}",
                        fail.status,
                        http::reason(fail.status)
                    )
                });
                log(
                    shared,
                    session,
                    request,
                    Some((wire, conversation, body)),
                    &json!({"turn": index, "status": fail.status, "error": message}),
                );
                return wire.error(fail.status, &message);
            }
            Turn::Reply { texts, action } => {
                let (text, call) = scripted_reply(&texts, action.as_ref(), session, conversation);
                (Some(index), text, call)
            }
        }
    };
    let reply = Reply {
        usage: Usage::estimate(request.body.len(), &text, call.as_ref()),
        text,
        call,
        seq,
    };
    let mut summary = json!({
        "turn": turn,
        "status": 200,
        "text": reply.text,
        "usage": {"input_tokens": reply.usage.input, "output_tokens": reply.usage.output},
    });
    if let Some(call) = &reply.call {
        summary["tool_call"] = json!({"name": call.name, "arguments": call.arguments});
    }
    log(
        shared,
        session,
        request,
        Some((wire, conversation, body)),
        &summary,
    );
    wire.reply(&reply, conversation)
}

/// A scripted reply's text and tool call: the action planned with the agent's tools, or, when
/// none can do it, the reason appended to the text.
fn scripted_reply(
    texts: &[String],
    action: Option<&script::Action>,
    session: &Session,
    conversation: &Conversation,
) -> (String, Option<wire::ToolCall>) {
    let mut text = texts.join("\n\n");
    let planned = action.map(|action| {
        plan_call(
            action,
            &conversation.tools,
            session.setup.cwd.as_deref(),
            &conversation.text,
        )
    });
    let call = match planned {
        Some(Planned::Call(call)) => Some(call),
        Some(Planned::Unavailable(why)) => {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&why);
            None
        }
        None => None,
    };
    (text, call)
}

/// The answer to a request without tools, when it is a structured or title request.
fn side_answer(conversation: &Conversation) -> Option<String> {
    if conversation.wants_json {
        let value = conversation
            .json_schema
            .as_ref()
            .map(example_json)
            .filter(|value| !value.is_null())
            .unwrap_or_else(|| json!({"title": TITLE}));
        return Some(value.to_string());
    }
    conversation
        .text
        .to_ascii_lowercase()
        .contains("title")
        .then(|| TITLE.to_owned())
}

/// Appends a request and its reply summary to the session's log (and stderr when echoing).
fn log(
    shared: &Shared,
    session: &Session,
    request: &Request,
    model_request: Option<(&dyn Wire, &Conversation, &Value)>,
    reply: &Value,
) {
    if !shared.echo && session.setup.log.is_none() {
        return;
    }
    let mut entry = json!({
        "at": Timestamp::from(SystemTime::now()).rfc3339(),
        "method": request.method,
        "path": masked_target(&request.target),
    });
    if let Some((wire, conversation, body)) = model_request {
        entry["api"] = json!(wire.api().as_str());
        entry["model"] = json!(conversation.model);
        entry["stream"] = json!(conversation.stream != Stream::Whole);
        entry["tools"] = json!(
            conversation
                .tools
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
        );
        entry["tool_results"] = json!(conversation.tool_results);
        entry["skills_listed"] = json!(conversation.skills);
        entry["reply"] = reply.clone();
        let headers: Map<String, Value> = request
            .headers
            .iter()
            .map(|(name, value)| {
                let value = if secret_name(name) {
                    MASKED
                } else {
                    value.as_str()
                };
                (name.clone(), json!(value))
            })
            .collect();
        entry["headers"] = Value::Object(headers);
        let mut body = body.clone();
        mask_fields(&mut body);
        entry["body"] = body;
    } else {
        entry["reply"] = reply.clone();
    }
    if shared.echo {
        eprintln!("{}", crate::terminal_text::masked(&summary_line(&entry)));
    }
    let Some(path) = &session.setup.log else {
        return;
    };
    let mut file = session.log.lock().unwrap_or_else(PoisonError::into_inner);
    if file.is_none() {
        *file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .ok();
    }
    if let Some(file) = file.as_mut() {
        let mut line = crate::secrets::mask(&entry.to_string()).into_owned();
        line.push('\n');
        let _ = file.write_all(line.as_bytes());
    }
}

/// Whether a header, query parameter or JSON field of this name carries a credential: the
/// authorization and cookie headers, and names that read as a secret variable with `-` read
/// as `_` (`x-api-key`, `key`, `access_token`).
fn secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    matches!(
        name.as_str(),
        "authorization" | "proxy-authorization" | "cookie" | "set-cookie"
    ) || crate::secrets::looks_secret(&name.replace('-', "_"))
}

/// The request target with the values of credential query parameters masked
/// (`?key=[masked]`).
fn masked_target(target: &str) -> Cow<'_, str> {
    let Some((path, query)) = target.split_once('?') else {
        return Cow::Borrowed(target);
    };
    let secret_pair = |pair: &str| secret_name(pair.split_once('=').map_or(pair, |(name, _)| name));
    if !query.split('&').any(secret_pair) {
        return Cow::Borrowed(target);
    }
    let query: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if secret_name(name) => format!("{name}={MASKED}"),
            _ => pair.to_owned(),
        })
        .collect();
    Cow::Owned(format!("{path}?{}", query.join("&")))
}

/// Masks, at any depth, the string values of fields named like a credential.
fn mask_fields(value: &mut Value) {
    match value {
        Value::Object(fields) => {
            for (name, field) in fields.iter_mut() {
                if field.is_string() && secret_name(name) {
                    *field = json!(MASKED);
                } else {
                    mask_fields(field);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mask_fields),
        _ => {}
    }
}

/// `POST /v1/messages anthropic turn 0: tool Bash {"command":"ls"}`.
fn summary_line(entry: &Value) -> String {
    let reply = &entry["reply"];
    let what = if let Some(call) = reply.get("tool_call") {
        format!(
            "tool {} {}",
            call["name"].as_str().unwrap_or("?"),
            call["arguments"]
        )
    } else if let Some(error) = reply.get("error") {
        format!(
            "error {} {}",
            reply["status"],
            error.as_str().unwrap_or_default()
        )
    } else if let Some(text) = reply.get("text") {
        format!("text {text}")
    } else {
        format!("status {}", reply["status"])
    };
    let turn = match reply.get("turn").and_then(Value::as_u64) {
        Some(turn) => format!(" turn {turn}"),
        None if entry.get("api").is_some() => " side request".to_owned(),
        None => String::new(),
    };
    format!(
        "mock: {} {} {}{turn}: {what}",
        entry["method"].as_str().unwrap_or_default(),
        entry["path"].as_str().unwrap_or_default(),
        entry["api"].as_str().unwrap_or_default(),
    )
}
