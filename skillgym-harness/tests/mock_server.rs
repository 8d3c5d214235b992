//! The scripted model server, through its socket, independent of any agent: each wire's
//! framing (SSE and whole JSON), tool calls shaped by the tool schemas real agents sent
//! (`fixtures/mock-requests/<agent>.jsonl`, captured from the real CLIs), scripted errors,
//! usage figures, side requests, session routing, the request log, and `if_listed` steps decided
//! by the skills a captured request lists (`<agent>-<version>.if-listed.jsonl`: the first
//! request of the real-agent tier's `if_listed` scenario, paths rewritten as in the other
//! captures).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use skillgym_harness::config::WireApi;
use skillgym_harness::mock::{MockServer, Script, ServerOptions, SessionSetup, Step};

/// A reply decoded the way a client of its wire would.
#[derive(Debug, Default, PartialEq)]
struct Decoded {
    text: String,
    call: Option<(String, Value)>,
    input_tokens: u64,
    output_tokens: u64,
}

struct HttpReply {
    status: u16,
    content_type: String,
    body: String,
}

fn send(url: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> HttpReply {
    let address = url.trim_start_matches("http://");
    let (host, prefix) = address.split_at(address.find('/').unwrap_or(address.len()));
    let mut stream = TcpStream::connect(host).expect("connect to the mock");
    let mut head = format!(
        "{method} {prefix}{path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("Connection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status = status_line.split(' ').nth(1).unwrap().parse().unwrap();
    let mut length = 0;
    let mut content_type = String::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(": ").unwrap();
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.parse().unwrap(),
            "content-type" => content_type = value.to_owned(),
            _ => {}
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    HttpReply {
        status,
        content_type,
        body: String::from_utf8(body).unwrap(),
    }
}

fn post(url: &str, path: &str, body: &Value) -> HttpReply {
    send(
        url,
        "POST",
        path,
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    )
}

/// `(event name, data)` of an SSE body; checks the framing on the way.
fn events(body: &str) -> Vec<(Option<String>, String)> {
    assert!(
        body.ends_with("\n\n"),
        "SSE ends with a blank line: {body:?}"
    );
    body.split("\n\n")
        .filter(|block| !block.is_empty())
        .map(|block| {
            let mut name = None;
            let mut data = None;
            for line in block.lines() {
                if let Some(value) = line.strip_prefix("event: ") {
                    name = Some(value.to_owned());
                } else if let Some(value) = line.strip_prefix("data: ") {
                    assert!(data.is_none(), "one data line per event: {block:?}");
                    data = Some(value.to_owned());
                } else {
                    panic!("unexpected SSE line {line:?}");
                }
            }
            (name, data.expect("every event has data"))
        })
        .collect()
}

fn json(data: &str) -> Value {
    serde_json::from_str(data).unwrap_or_else(|e| panic!("not JSON ({e}): {data}"))
}

fn decode(api: WireApi, reply: &HttpReply) -> Decoded {
    assert_eq!(reply.status, 200, "{}", reply.body);
    let sse = reply.content_type == "text/event-stream";
    let mut out = Decoded::default();
    match (api, sse) {
        (WireApi::Anthropic, true) => {
            let mut arguments = String::new();
            for (name, data) in events(&reply.body) {
                let event = json(&data);
                assert_eq!(Some(event["type"].as_str().unwrap()), name.as_deref());
                match event["type"].as_str().unwrap() {
                    "message_start" => {
                        out.input_tokens =
                            event["message"]["usage"]["input_tokens"].as_u64().unwrap()
                    }
                    "content_block_start" if event["content_block"]["type"] == "tool_use" => {
                        out.call = Some((
                            event["content_block"]["name"].as_str().unwrap().into(),
                            Value::Null,
                        ))
                    }
                    "content_block_delta" => match event["delta"]["type"].as_str().unwrap() {
                        "text_delta" => out.text.push_str(event["delta"]["text"].as_str().unwrap()),
                        "input_json_delta" => {
                            arguments.push_str(event["delta"]["partial_json"].as_str().unwrap())
                        }
                        other => panic!("delta {other}"),
                    },
                    "message_delta" => {
                        out.output_tokens = event["usage"]["output_tokens"].as_u64().unwrap()
                    }
                    _ => {}
                }
            }
            if let Some((_, args)) = &mut out.call {
                *args = json(&arguments);
            }
        }
        (WireApi::Anthropic, false) => {
            let message = json(&reply.body);
            for block in message["content"].as_array().unwrap() {
                match block["type"].as_str().unwrap() {
                    "text" => out.text.push_str(block["text"].as_str().unwrap()),
                    _ => {
                        out.call = Some((
                            block["name"].as_str().unwrap().into(),
                            block["input"].clone(),
                        ))
                    }
                }
            }
            out.input_tokens = message["usage"]["input_tokens"].as_u64().unwrap();
            out.output_tokens = message["usage"]["output_tokens"].as_u64().unwrap();
        }
        (WireApi::OpenaiResponses, _) => {
            let response = if sse {
                let all = events(&reply.body);
                for (sequence, (name, data)) in all.iter().enumerate() {
                    let event = json(data);
                    assert_eq!(Some(event["type"].as_str().unwrap()), name.as_deref());
                    assert_eq!(event["sequence_number"], sequence);
                    if event["type"] == "response.output_text.delta" {
                        out.text.push_str(event["delta"].as_str().unwrap());
                    }
                }
                let (name, data) = all.last().unwrap();
                assert_eq!(name.as_deref(), Some("response.completed"));
                json(data)["response"].clone()
            } else {
                json(&reply.body)
            };
            for item in response["output"].as_array().unwrap() {
                match item["type"].as_str().unwrap() {
                    "message" if !sse => out
                        .text
                        .push_str(item["content"][0]["text"].as_str().unwrap()),
                    "function_call" => {
                        out.call = Some((
                            item["name"].as_str().unwrap().into(),
                            json(item["arguments"].as_str().unwrap()),
                        ))
                    }
                    _ => {}
                }
            }
            out.input_tokens = response["usage"]["input_tokens"].as_u64().unwrap();
            out.output_tokens = response["usage"]["output_tokens"].as_u64().unwrap();
        }
        (WireApi::OpenaiChat, true) => {
            let all = events(&reply.body);
            assert_eq!(all.last().unwrap().1, "[DONE]");
            let mut arguments = String::new();
            for (name, data) in &all[..all.len() - 1] {
                assert!(name.is_none(), "chat chunks are unnamed");
                let chunk = json(data);
                assert_eq!(chunk["object"], "chat.completion.chunk");
                if let Some(usage) = chunk.get("usage") {
                    out.input_tokens = usage["prompt_tokens"].as_u64().unwrap();
                    out.output_tokens = usage["completion_tokens"].as_u64().unwrap();
                }
                let Some(choice) = chunk["choices"].get(0) else {
                    continue;
                };
                if let Some(text) = choice["delta"]["content"].as_str() {
                    out.text.push_str(text);
                }
                if let Some(calls) = choice["delta"]["tool_calls"].as_array() {
                    let function = &calls[0]["function"];
                    out.call = Some((function["name"].as_str().unwrap().into(), Value::Null));
                    arguments.push_str(function["arguments"].as_str().unwrap());
                }
            }
            if let Some((_, args)) = &mut out.call {
                *args = json(&arguments);
            }
        }
        (WireApi::OpenaiChat, false) => {
            let completion = json(&reply.body);
            let message = &completion["choices"][0]["message"];
            out.text = message["content"].as_str().unwrap_or_default().to_owned();
            if let Some(call) = message["tool_calls"].get(0) {
                out.call = Some((
                    call["function"]["name"].as_str().unwrap().into(),
                    json(call["function"]["arguments"].as_str().unwrap()),
                ));
            }
            out.input_tokens = completion["usage"]["prompt_tokens"].as_u64().unwrap();
            out.output_tokens = completion["usage"]["completion_tokens"].as_u64().unwrap();
        }
        (WireApi::Gemini, _) => {
            let chunks: Vec<Value> = if sse {
                events(&reply.body)
                    .iter()
                    .map(|(_, data)| json(data))
                    .collect()
            } else {
                match json(&reply.body) {
                    Value::Array(chunks) => chunks,
                    single => vec![single],
                }
            };
            for chunk in chunks {
                for part in chunk["candidates"][0]["content"]["parts"]
                    .as_array()
                    .unwrap()
                {
                    if let Some(text) = part["text"].as_str() {
                        out.text.push_str(text);
                    }
                    if let Some(call) = part.get("functionCall") {
                        out.call =
                            Some((call["name"].as_str().unwrap().into(), call["args"].clone()));
                    }
                }
                out.input_tokens = chunk["usageMetadata"]["promptTokenCount"].as_u64().unwrap();
                out.output_tokens = chunk["usageMetadata"]["candidatesTokenCount"]
                    .as_u64()
                    .unwrap();
            }
        }
        (api, _) => panic!("no decoder for {api:?}"),
    }
    out
}

fn fixture_requests(agent: &str) -> Vec<(String, Value)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mock-requests")
        .join(format!("{agent}.jsonl"));
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|line| {
            let row: Value = serde_json::from_str(line).unwrap();
            (
                row["path"].as_str().unwrap().to_owned(),
                row["body"].clone(),
            )
        })
        .filter(|(_, body)| body.get("tools").is_some())
        .collect()
}

fn script(steps: Vec<Step>) -> Arc<Script> {
    Arc::new(Script::new(steps))
}

fn server() -> MockServer {
    MockServer::start(ServerOptions::default()).expect("the mock starts")
}

/// A fresh directory under cargo's test tmp dir, kept when the test fails before
/// [`tempfile::TempDir::close`] removes it.
fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("mock-server-{name}-"))
        .disable_cleanup(true)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

#[test]
fn each_agent_gets_its_own_tool_shapes_turn_by_turn() {
    // (agent, wire, shell tool + command argument, read tool + path argument)
    let agents = [
        (
            "claude-code",
            WireApi::Anthropic,
            ("Bash", "command"),
            ("Read", "file_path", "/ws/SKILL.md"),
        ),
        (
            "codex",
            WireApi::OpenaiResponses,
            ("exec_command", "cmd"),
            ("exec_command", "cmd", "cat SKILL.md"),
        ),
        (
            "opencode",
            WireApi::OpenaiChat,
            ("bash", "command"),
            ("read", "filePath", "/ws/SKILL.md"),
        ),
        (
            "copilot",
            WireApi::OpenaiChat,
            ("bash", "command"),
            ("view", "path", "/ws/SKILL.md"),
        ),
        (
            "gemini-cli",
            WireApi::Gemini,
            ("run_shell_command", "command"),
            ("read_file", "file_path", "/ws/SKILL.md"),
        ),
        (
            "qwen-code",
            WireApi::OpenaiChat,
            ("run_shell_command", "command"),
            ("read_file", "file_path", "/ws/SKILL.md"),
        ),
        // The pinned versions that changed since, captured by the real-agent tier.
        (
            "claude-code-2.1.332",
            WireApi::Anthropic,
            ("Bash", "command"),
            ("Read", "file_path", "/ws/SKILL.md"),
        ),
        (
            "codex-0.171.0",
            WireApi::OpenaiResponses,
            ("exec_command", "cmd"),
            ("exec_command", "cmd", "cat SKILL.md"),
        ),
        (
            "qwen-code-0.24.4",
            WireApi::OpenaiChat,
            ("run_shell_command", "command"),
            ("read_file", "file_path", "/ws/SKILL.md"),
        ),
    ];
    let server = server();
    for (agent, api, (shell, command_arg), (read, path_arg, path)) in agents {
        let mut setup = SessionSetup::new(script(vec![
            Step::Run("echo hello".into()),
            Step::Read("SKILL.md".into()),
            Step::Say("all done".into()),
        ]));
        setup.cwd = Some(PathBuf::from("/ws"));
        let session = server.open_session(setup);
        let requests = fixture_requests(agent);
        assert_eq!(
            requests.len(),
            3,
            "{agent}: three model requests with tools"
        );
        let replies: Vec<Decoded> = requests
            .iter()
            .map(|(path, body)| {
                let path = path
                    .strip_prefix("/v1")
                    .filter(|_| api != WireApi::Anthropic && api != WireApi::Gemini)
                    .unwrap_or(path);
                decode(api, &post(&session.base_url(api), path, body))
            })
            .collect();
        let (name, args) = replies[0]
            .call
            .clone()
            .unwrap_or_else(|| panic!("{agent}: {:?}", replies[0]));
        assert_eq!(name, shell, "{agent}");
        assert_eq!(args[command_arg], "echo hello", "{agent}: {args}");
        let (name, args) = replies[1]
            .call
            .clone()
            .unwrap_or_else(|| panic!("{agent}: {:?}", replies[1]));
        assert_eq!(
            (name.as_str(), &args[path_arg]),
            (read, &json!(path)),
            "{agent}: {args}"
        );
        assert_eq!(replies[2].call, None, "{agent}");
        assert_eq!(replies[2].text, "all done", "{agent}");
        for reply in &replies {
            assert!(
                reply.input_tokens > 1000,
                "{agent}: input tokens from the request size: {reply:?}"
            );
            assert!(reply.output_tokens >= 1, "{agent}: {reply:?}");
        }
    }
}

#[test]
fn required_arguments_are_filled_from_the_schema() {
    let server = server();
    let session = server.open_session(SessionSetup::new(script(vec![Step::Run("ls".into())])));
    let (path, body) = fixture_requests("copilot").remove(0);
    let reply = decode(
        WireApi::OpenaiChat,
        &post(
            &session.base_url(WireApi::OpenaiChat),
            path.trim_start_matches("/v1"),
            &body,
        ),
    );
    let (_, args) = reply.call.unwrap();
    assert_eq!(
        args,
        json!({"command": "ls", "description": "skillgym mock step: run: ls"})
    );
}

#[test]
fn skills_load_through_the_skill_tool_or_a_read_of_their_skill_md() {
    let server = server();
    let skill = || {
        let mut setup = SessionSetup::new(script(vec![Step::Skill("demo".into())]));
        setup.cwd = Some(PathBuf::from("/ws"));
        server.open_session(setup)
    };
    for (agent, api, tool, argument) in [
        ("claude-code", WireApi::Anthropic, "Skill", "skill"),
        ("opencode", WireApi::OpenaiChat, "skill", "name"),
        ("copilot", WireApi::OpenaiChat, "skill", "skill"),
        ("gemini-cli", WireApi::Gemini, "activate_skill", "name"),
        ("qwen-code", WireApi::OpenaiChat, "skill", "skill"),
    ] {
        let session = skill();
        let (path, body) = fixture_requests(agent).remove(0);
        let path = if api == WireApi::OpenaiChat {
            path.trim_start_matches("/v1").to_owned()
        } else {
            path
        };
        let reply = decode(api, &post(&session.base_url(api), &path, &body));
        assert_eq!(
            reply.call,
            Some((tool.to_owned(), json!({argument: "demo"}))),
            "{agent}"
        );
    }
    // Codex has no skill tool: the skill's SKILL.md is read through its shell.
    let session = skill();
    let (_, mut body) = fixture_requests("codex").remove(0);
    body["instructions"] =
        json!("Skills:\n- demo: Demo skill. (file: /ws/.agents/skills/demo/SKILL.md)");
    let reply = decode(
        WireApi::OpenaiResponses,
        &post(
            &session.base_url(WireApi::OpenaiResponses),
            "/responses",
            &body,
        ),
    );
    assert_eq!(
        reply.call,
        Some((
            "exec_command".into(),
            json!({"cmd": "cat /ws/.agents/skills/demo/SKILL.md"})
        ))
    );
}

/// Posts a captured request to `session` on its wire, its path made relative to the base URL.
fn post_captured(
    session: &skillgym_harness::mock::MockSession,
    api: WireApi,
    path: &str,
    body: &Value,
) -> Decoded {
    let path = if matches!(api, WireApi::OpenaiResponses | WireApi::OpenaiChat) {
        path.trim_start_matches("/v1")
    } else {
        path
    };
    decode(api, &post(&session.base_url(api), path, body))
}

/// One script, two branches of different lengths: the tier's skill listed (the pinned
/// versions' captures, made with it installed) or not (the earlier captures, made without).
const IF_LISTED: &str = "\
- say: Checking.
- if_listed:
    skill: tier-skill
    then:
      - run: echo with
      - read: SKILL.md
      - say: Done with tier-skill.
    else:
      - say: Done without tier-skill.
";

#[test]
fn if_listed_answers_each_cli_by_the_skills_its_request_lists() {
    let server = server();
    let script = Arc::new(Script::parse(Path::new("if-listed.yaml"), IF_LISTED).unwrap());
    let open = || {
        let mut setup = SessionSetup::new(Arc::clone(&script));
        setup.cwd = Some(PathBuf::from("/ws"));
        server.open_session(setup)
    };
    // (with the skill listed, without, wire, shell tool)
    let agents = [
        (
            "claude-code-2.1.332",
            "claude-code",
            WireApi::Anthropic,
            "Bash",
        ),
        (
            "codex-0.171.0",
            "codex",
            WireApi::OpenaiResponses,
            "exec_command",
        ),
        (
            "qwen-code-0.24.4",
            "qwen-code",
            WireApi::OpenaiChat,
            "run_shell_command",
        ),
        (
            "copilot-1.0.102.if-listed",
            "copilot",
            WireApi::OpenaiChat,
            "bash",
        ),
        (
            "gemini-cli-0.61.0.if-listed",
            "gemini-cli",
            WireApi::Gemini,
            "run_shell_command",
        ),
        (
            "opencode-1.18.33.if-listed",
            "opencode",
            WireApi::OpenaiChat,
            "bash",
        ),
    ];
    for (with, without, api, shell) in agents {
        // Listed: the `then` branch, turn by turn as far as the capture goes (three requests
        // with 0, 1 and 2 tool results, or the first one).
        let session = open();
        let replies: Vec<Decoded> = fixture_requests(with)
            .iter()
            .map(|(path, body)| post_captured(&session, api, path, body))
            .collect();
        let (name, args) = replies[0]
            .call
            .clone()
            .unwrap_or_else(|| panic!("{with}: {:?}", replies[0]));
        assert_eq!(replies[0].text, "Checking.", "{with}");
        assert_eq!(name, shell, "{with}");
        assert!(args.to_string().contains("echo with"), "{with}: {args}");
        if replies.len() == 3 {
            let (_, args) = replies[1]
                .call
                .clone()
                .unwrap_or_else(|| panic!("{with}: {:?}", replies[1]));
            assert!(args.to_string().contains("SKILL.md"), "{with}: {args}");
            assert_eq!(replies[2].call, None, "{with}");
            assert_eq!(replies[2].text, "Done with tier-skill.", "{with}");
        }
        // Not listed: the `else` branch is the final answer at once, and stays it for every
        // later request of the session.
        let session = open();
        for (path, body) in fixture_requests(without) {
            let reply = post_captured(&session, api, &path, &body);
            assert_eq!(reply.call, None, "{without}");
            assert_eq!(
                reply.text, "Checking.\n\nDone without tier-skill.",
                "{without}"
            );
        }
    }
}

#[test]
fn the_log_shows_the_skills_a_request_listed() {
    let tmp = scratch("log-listed");
    let server = server();
    let mut setup = SessionSetup::new(Arc::new(
        Script::parse(Path::new("if-listed.yaml"), IF_LISTED).unwrap(),
    ));
    setup.log = Some(tmp.path().join("mock-requests.jsonl"));
    let session = server.open_session(setup);
    let (path, body) = fixture_requests("opencode-1.18.33.if-listed").remove(0);
    post_captured(&session, WireApi::OpenaiChat, &path, &body);
    let text = std::fs::read_to_string(tmp.path().join("mock-requests.jsonl")).unwrap();
    let entry = json(text.lines().next().unwrap());
    assert_eq!(
        entry["skills_listed"],
        json!(["customize-opencode", "demo", "tier-skill"])
    );
    tmp.close().unwrap();
}

#[test]
fn whole_json_replies_for_non_streaming_requests() {
    let server = server();
    let session = server.open_session(SessionSetup::new(script(vec![Step::Run("ls".into())])));
    let tools_anthropic =
        json!([{"name": "Bash", "input_schema": {"properties": {"command": {"type": "string"}}}}]);
    let reply = post(
        &session.base_url(WireApi::Anthropic),
        "/v1/messages",
        &json!({"model": "m", "messages": [], "tools": tools_anthropic}),
    );
    assert_eq!(reply.content_type, "application/json");
    let decoded = decode(WireApi::Anthropic, &reply);
    assert_eq!(
        decoded.call,
        Some(("Bash".into(), json!({"command": "ls"})))
    );
    assert_eq!(json(&reply.body)["stop_reason"], "tool_use");

    let tools_chat = json!([{"type": "function", "function": {"name": "bash", "parameters": {"properties": {"command": {}}}}}]);
    let reply = post(
        &session.base_url(WireApi::OpenaiChat),
        "/chat/completions",
        &json!({"messages": [{"role": "tool", "content": "x"}], "tools": tools_chat}),
    );
    let decoded = decode(WireApi::OpenaiChat, &reply);
    assert_eq!((decoded.text.as_str(), decoded.call), ("done", None));
    assert_eq!(json(&reply.body)["choices"][0]["finish_reason"], "stop");

    let tools_responses = json!([{"type": "function", "name": "exec_command", "parameters": {"properties": {"cmd": {}}}}]);
    let reply = post(
        &session.base_url(WireApi::OpenaiResponses),
        "/responses",
        &json!({"input": "hi", "tools": tools_responses}),
    );
    assert_eq!(
        decode(WireApi::OpenaiResponses, &reply).call,
        Some(("exec_command".into(), json!({"cmd": "ls"})))
    );

    let tools_gemini = json!([{"functionDeclarations": [{"name": "run_shell_command", "parameters": {"properties": {"command": {}}}}]}]);
    let base = session.base_url(WireApi::Gemini);
    let body = json!({"contents": [], "tools": tools_gemini});
    let whole = post(&base, "/v1beta/models/g:generateContent", &body);
    assert!(json(&whole.body).is_object());
    let array = post(&base, "/v1beta/models/g:streamGenerateContent", &body);
    assert!(json(&array.body).is_array());
    let sse = post(
        &base,
        "/v1beta/models/g:streamGenerateContent?alt=sse",
        &body,
    );
    assert_eq!(sse.content_type, "text/event-stream");
    for reply in [whole, array, sse] {
        assert_eq!(
            decode(WireApi::Gemini, &reply).call,
            Some(("run_shell_command".into(), json!({"command": "ls"})))
        );
    }
}

#[test]
fn chat_usage_comes_in_its_own_chunk_when_asked() {
    let server = server();
    let session = server.open_session(SessionSetup::new(script(vec![Step::Say("hi".into())])));
    let tools = json!([{"type": "function", "function": {"name": "bash", "parameters": {}}}]);
    let base = session.base_url(WireApi::OpenaiChat);
    let asked = post(
        &base,
        "/chat/completions",
        &json!({"stream": true, "stream_options": {"include_usage": true}, "messages": [], "tools": tools}),
    );
    let all = events(&asked.body);
    let usage_chunk = json(&all[all.len() - 2].1);
    assert_eq!(usage_chunk["choices"], json!([]));
    assert!(usage_chunk["usage"]["total_tokens"].as_u64().unwrap() >= 2);
    let finish = json(&all[all.len() - 3].1);
    assert_eq!(finish["choices"][0]["finish_reason"], "stop");
    let not_asked = post(
        &base,
        "/chat/completions",
        &json!({"stream": true, "messages": [], "tools": tools}),
    );
    let all = events(&not_asked.body);
    let last = json(&all[all.len() - 2].1);
    assert_eq!(last["choices"][0]["finish_reason"], "stop");
    assert!(last["usage"]["prompt_tokens"].as_u64().is_some());
}

#[test]
fn scripted_errors_have_each_providers_shape_and_once_lets_a_retry_through() {
    let server = server();
    let fail = |status, times| {
        Step::Fail(skillgym_harness::mock::script::FailStep {
            status,
            message: None,
            times,
        })
    };
    use skillgym_harness::mock::script::Times;
    let session = server.open_session(SessionSetup::new(script(vec![
        fail(400, Times::Always),
        Step::Say("never".into()),
    ])));
    let cases = [
        (
            WireApi::Anthropic,
            "/v1/messages",
            json!({"name": "Bash"}),
            "/error/type",
            "invalid_request_error",
        ),
        (
            WireApi::OpenaiChat,
            "/chat/completions",
            json!({"type": "function", "function": {"name": "bash"}}),
            "/error/type",
            "invalid_request_error",
        ),
        (
            WireApi::OpenaiResponses,
            "/responses",
            json!({"type": "function", "name": "exec_command"}),
            "/error/type",
            "invalid_request_error",
        ),
        (
            WireApi::Gemini,
            "/v1beta/models/g:streamGenerateContent?alt=sse",
            json!({"functionDeclarations": [{"name": "read_file"}]}),
            "/error/status",
            "INVALID_ARGUMENT",
        ),
    ];
    for (api, path, tool, pointer, word) in cases {
        let reply = post(
            &session.base_url(api),
            path,
            &json!({"stream": true, "tools": [tool], "messages": [], "contents": []}),
        );
        assert_eq!(reply.status, 400, "{api}");
        assert_eq!(reply.content_type, "application/json");
        let body = json(&reply.body);
        assert_eq!(body.pointer(pointer), Some(&json!(word)), "{api}: {body}");
        assert!(
            reply
                .body
                .contains("skillgym mock: scripted 400 Bad Request"),
            "{api}: {body}"
        );
        let again = post(
            &session.base_url(api),
            path,
            &json!({"tools": [tool], "messages": [], "contents": []}),
        );
        assert_eq!(again.status, 400, "{api}: `always` fails every time");
    }
    assert_eq!(
        json(
            &post(
                &session.base_url(WireApi::Anthropic),
                "/v1/messages",
                &json!({"tools": [{"name": "x"}]})
            )
            .body
        )["type"],
        "error"
    );

    let once = server.open_session(SessionSetup::new(script(vec![
        Step::Fail(skillgym_harness::mock::script::FailStep {
            status: 529,
            message: Some("busy".into()),
            times: Times::Once,
        }),
        Step::Say("recovered".into()),
    ])));
    let body = json!({"tools": [{"name": "Bash"}], "messages": []});
    let first = post(&once.base_url(WireApi::Anthropic), "/v1/messages", &body);
    assert_eq!(first.status, 529);
    assert_eq!(
        json(&first.body)["error"],
        json!({"type": "overloaded_error", "message": "busy"})
    );
    let retry = post(&once.base_url(WireApi::Anthropic), "/v1/messages", &body);
    assert_eq!(decode(WireApi::Anthropic, &retry).text, "recovered");
}

#[test]
fn side_requests_without_tools_do_not_advance_the_script() {
    let server = server();
    let session = server.open_session(SessionSetup::new(script(vec![
        Step::Run("ls".into()),
        Step::Say("end".into()),
    ])));
    let base = session.base_url(WireApi::OpenaiChat);
    let title = post(
        &base,
        "/chat/completions",
        &json!({"messages": [{"role": "system", "content": "You are a title generator."}]}),
    );
    assert_eq!(decode(WireApi::OpenaiChat, &title).text, "Mock session");
    let structured = post(
        &session.base_url(WireApi::Gemini),
        "/v1beta/models/flash:generateContent",
        &json!({"contents": [{"parts": [{"text": "who speaks next?"}]}], "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": {"type": "object", "properties": {"next_speaker": {"type": "string", "enum": ["user", "model"]}}, "required": ["next_speaker"]}}}),
    );
    assert_eq!(
        json(&decode(WireApi::Gemini, &structured).text),
        json!({"next_speaker": "user"})
    );
    let plain = post(
        &base,
        "/chat/completions",
        &json!({"messages": [{"role": "user", "content": "summarize"}]}),
    );
    assert_eq!(decode(WireApi::OpenaiChat, &plain).text, "end");
    let tools = json!([{"type": "function", "function": {"name": "bash", "parameters": {}}}]);
    let main = post(
        &base,
        "/chat/completions",
        &json!({"messages": [], "tools": tools}),
    );
    assert_eq!(
        decode(WireApi::OpenaiChat, &main).call.unwrap().0,
        "bash",
        "still at the first turn"
    );
}

#[test]
fn a_resumed_conversation_plays_its_script_from_the_start() {
    let server = server();
    let session = server.open_session(SessionSetup::new(script(vec![
        Step::Run("ls".into()),
        Step::Say("end".into()),
    ])));
    let base = session.base_url(WireApi::OpenaiChat);
    let tools = json!([{"type": "function", "function": {"name": "bash", "parameters": {}}}]);
    // The session's first request holds an earlier turn's two tool results.
    let mut messages = vec![
        json!({"role": "tool", "content": "a"}),
        json!({"role": "tool", "content": "b"}),
        json!({"role": "user", "content": "and now?"}),
    ];
    let first = post(
        &base,
        "/chat/completions",
        &json!({"messages": messages, "tools": tools}),
    );
    assert_eq!(
        decode(WireApi::OpenaiChat, &first).call.unwrap().0,
        "bash",
        "the script's first turn"
    );
    messages.push(json!({"role": "tool", "content": "c"}));
    let second = post(
        &base,
        "/chat/completions",
        &json!({"messages": messages, "tools": tools}),
    );
    assert_eq!(decode(WireApi::OpenaiChat, &second).text, "end");
}

#[test]
fn counts_tokens_lists_models_and_answers_head() {
    let server = server();
    let mut setup = SessionSetup::new(script(vec![Step::Say("x".into())]));
    setup.model = Some("claude-sonnet-4-6".into());
    let session = server.open_session(setup);
    let base = session.base_url(WireApi::Anthropic);
    let count = post(
        &base,
        "/v1/messages/count_tokens",
        &json!({"messages": [{"role": "user", "content": "x".repeat(400)}]}),
    );
    assert!(json(&count.body)["input_tokens"].as_u64().unwrap() > 100);
    let gemini = post(
        &base,
        "/v1beta/models/g:countTokens",
        &json!({"contents": []}),
    );
    assert!(json(&gemini.body)["totalTokens"].as_u64().unwrap() >= 1);
    let models = send(
        &base,
        "GET",
        "/v1/models",
        &[("anthropic-version", "2023-06-01")],
        b"",
    );
    assert_eq!(json(&models.body)["data"][0]["id"], "claude-sonnet-4-6");
    let models = send(
        &session.base_url(WireApi::OpenaiChat),
        "GET",
        "/models",
        &[],
        b"",
    );
    assert_eq!(
        json(&models.body)["data"][0],
        json!({"id": "claude-sonnet-4-6", "object": "model", "created": 0, "owned_by": "skillgym-mock"})
    );
    let models = send(&base, "GET", "/v1beta/models", &[], b"");
    assert_eq!(
        json(&models.body)["models"][0]["name"],
        "models/claude-sonnet-4-6"
    );
    assert_eq!(send(&server.url(), "HEAD", "/", &[], b"").status, 200);
    let unknown = post(&base, "/v1/embeddings", &json!({}));
    assert_eq!(unknown.status, 404);
    assert!(
        unknown
            .body
            .contains("no such endpoint: POST /v1/embeddings"),
        "{}",
        unknown.body
    );
}

#[test]
fn sessions_are_told_apart_by_base_url_or_api_key() {
    let server = server();
    let first = server.open_session(SessionSetup::new(script(vec![Step::Say("first".into())])));
    let second = server.open_session(SessionSetup::new(script(vec![Step::Say("second".into())])));
    let tools = json!([{"type": "function", "function": {"name": "bash", "parameters": {}}}]);
    let body = json!({"messages": [], "tools": tools}).to_string();
    let text = |reply: HttpReply| decode(WireApi::OpenaiChat, &reply).text;
    assert_eq!(
        text(send(
            &first.base_url(WireApi::OpenaiChat),
            "POST",
            "/chat/completions",
            &[],
            body.as_bytes()
        )),
        "first"
    );
    let bearer = format!("Bearer {}", second.api_key());
    assert_eq!(
        text(send(
            &server.url(),
            "POST",
            "/v1/chat/completions",
            &[("Authorization", &bearer)],
            body.as_bytes()
        )),
        "second"
    );
    let gemini_key = first.api_key().to_owned();
    let reply = send(
        &server.url(),
        "POST",
        "/v1beta/models/g:generateContent",
        &[("x-goog-api-key", &gemini_key)],
        br#"{"contents": [], "tools": [{"functionDeclarations": [{"name": "x"}]}]}"#,
    );
    assert_eq!(decode(WireApi::Gemini, &reply).text, "first");

    let nameless = send(
        &server.url(),
        "POST",
        "/v1/chat/completions",
        &[],
        body.as_bytes(),
    );
    assert_eq!(nameless.status, 404);
    assert!(
        nameless.body.contains("names no session"),
        "{}",
        nameless.body
    );
    let base = first.base_url(WireApi::OpenaiChat);
    drop(first);
    let closed = send(&base, "POST", "/chat/completions", &[], body.as_bytes());
    assert_eq!(closed.status, 404);
    assert!(closed.body.contains("no open session"), "{}", closed.body);
}

#[test]
fn a_default_session_serves_requests_that_name_none() {
    let server = MockServer::start(ServerOptions {
        default_session: Some(SessionSetup::new(script(vec![Step::Say(
            "standalone".into(),
        )]))),
        ..ServerOptions::default()
    })
    .unwrap();
    let reply = post(
        &server.url(),
        "/v1/messages",
        &json!({"tools": [{"name": "Bash"}], "messages": []}),
    );
    assert_eq!(decode(WireApi::Anthropic, &reply).text, "standalone");
    assert!(server.addr().ip().is_loopback());
}

#[test]
fn every_request_is_logged_with_its_reply_and_keys_masked() {
    let tmp = scratch("log");
    let dir = tmp.path();
    let server = server();
    let mut setup = SessionSetup::new(script(vec![Step::Run("echo hi".into())]));
    setup.log = Some(dir.join("mock-requests.jsonl"));
    let session = server.open_session(setup);
    let tools = json!([{"name": "Bash", "input_schema": {"properties": {"command": {}}}}]);
    for results in 0..2 {
        let messages: Vec<Value> = (0..results)
            .map(|_| json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "hi"}]}))
            .collect();
        let body =
            json!({"model": "claude-x", "stream": true, "tools": tools, "messages": messages});
        let reply = send(
            &session.base_url(WireApi::Anthropic),
            "POST",
            "/v1/messages",
            &[("x-api-key", "sk-secret-value")],
            body.to_string().as_bytes(),
        );
        assert_eq!(reply.status, 200);
    }
    let text = std::fs::read_to_string(dir.join("mock-requests.jsonl")).unwrap();
    assert!(!text.contains("sk-secret-value"), "keys are masked");
    let lines: Vec<Value> = text.lines().map(json).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["api"], "anthropic");
    assert_eq!(lines[0]["model"], "claude-x");
    assert_eq!(lines[0]["stream"], true);
    assert_eq!(lines[0]["tools"], json!(["Bash"]));
    assert_eq!(lines[0]["headers"]["x-api-key"], "[masked]");
    assert_eq!(lines[0]["reply"]["turn"], 0);
    assert_eq!(
        lines[0]["reply"]["tool_call"],
        json!({"name": "Bash", "arguments": {"command": "echo hi"}})
    );
    assert_eq!(lines[1]["tool_results"], 1);
    assert_eq!(lines[1]["reply"]["turn"], 1);
    assert_eq!(lines[1]["reply"]["text"], "done");
    assert!(lines[1]["reply"]["usage"]["input_tokens"].as_u64().unwrap() >= 1);
    assert_eq!(
        lines[1]["body"]["messages"][0]["content"][0]["content"],
        "hi"
    );
    tmp.close().unwrap();
}

#[test]
fn credentials_in_query_strings_headers_and_bodies_are_masked_in_the_log() {
    let tmp = scratch("log-credentials");
    let dir = tmp.path();
    let server = server();
    let mut setup = SessionSetup::new(script(vec![Step::Say("ok".into())]));
    setup.log = Some(dir.join("mock-requests.jsonl"));
    let session = server.open_session(setup);
    let body = json!({
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "tools": [{"functionDeclarations": [{"name": "run_shell_command"}]}],
        "api_key": "body-field-secret-1",
        "auth": {"access_token": "body-nested-secret-2", "max_tokens": 3},
    });
    let reply = send(
        &session.base_url(WireApi::Gemini),
        "POST",
        "/v1beta/models/g:generateContent?alt=json&key=query-secret-3&access_token=query-secret-4",
        &[
            ("Authorization", "Bearer header-secret-5"),
            ("X-Auth-Token", "header-secret-6"),
            ("Proxy-Authorization", "Basic header-secret-7"),
            ("Cookie", "session=header-secret-8"),
            ("Anthropic-Version", "2023-06-01"),
        ],
        body.to_string().as_bytes(),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let text = std::fs::read_to_string(dir.join("mock-requests.jsonl")).unwrap();
    for n in 1..=8 {
        assert!(
            !text.contains(&format!("secret-{n}")),
            "secret {n} logged: {text}"
        );
    }
    let entry = json(text.lines().next().unwrap());
    assert_eq!(
        entry["path"].as_str().unwrap(),
        format!(
            "{}/v1beta/models/g:generateContent?alt=json&key=[masked]&access_token=[masked]",
            session
                .base_url(WireApi::Gemini)
                .split_once("/s/")
                .map(|(_, token)| format!("/s/{token}"))
                .unwrap()
        )
    );
    assert_eq!(entry["headers"]["Authorization"], "[masked]");
    assert_eq!(entry["headers"]["Cookie"], "[masked]");
    assert_eq!(
        entry["headers"]["Anthropic-Version"], "2023-06-01",
        "not a credential"
    );
    assert_eq!(entry["body"]["api_key"], "[masked]");
    assert_eq!(entry["body"]["auth"]["access_token"], "[masked]");
    assert_eq!(entry["body"]["auth"]["max_tokens"], 3);
    assert_eq!(entry["body"]["contents"][0]["parts"][0]["text"], "hi");
    tmp.close().unwrap();
}

#[test]
fn bad_requests_get_clear_errors() {
    let server = server();
    let session = server.open_session(SessionSetup::new(script(vec![Step::Say("x".into())])));
    let base = session.base_url(WireApi::OpenaiChat);
    let reply = send(&base, "POST", "/chat/completions", &[], b"{not json");
    assert_eq!(reply.status, 400);
    assert!(
        reply.body.contains("the request body is not JSON"),
        "{}",
        reply.body
    );
    let reply = send(
        &base,
        "POST",
        "/chat/completions",
        &[("Content-Encoding", "zstd")],
        b"xx",
    );
    assert_eq!(reply.status, 415);
    assert!(
        reply.body.contains("compressed request bodies (zstd)"),
        "{}",
        reply.body
    );
}
