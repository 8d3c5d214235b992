//! A scriptable stand-in for an agent CLI, for skillgym's own tests.
//!
//! The script is the value of `FAKE_AGENT_SCRIPT` (or, when that value starts with `@`, the
//! content of the file it names; when it is `-`, the prompt itself). One action per line; blank
//! lines and `#` comments are ignored. The prompt is the last command-line argument. Without a
//! script: `echo-prompt`, then exit 0.
//!
//! Run with the single argument `--version` (as skillgym asks an agent CLI, or a `command`
//! runner with `agent.version_args: [--version]`), it runs `FAKE_AGENT_VERSION_SCRIPT` instead,
//! else prints `fake-agent 0.1.0`.
//!
//! State shared between sessions lives in the directory named by `FAKE_AGENT_STATE_DIR`;
//! `FAKE_AGENT_NAME` names this agent in `log` lines.
//!
//! | action | effect |
//! |---|---|
//! | `emit <json>` | prints the JSON line as-is |
//! | `print <text>` / `print-no-newline <text>` | prints the text, with / without a newline |
//! | `bytes <hex>` | writes raw bytes (e.g. `ff00` for invalid UTF-8) |
//! | `stderr <text>` | prints the text and a newline on stderr |
//! | `echo-prompt` | prints `{"type":"message","role":"assistant","phase":"final","text":<prompt>}` |
//! | `sleep <ms>` / `hang` | sleeps that long / forever |
//! | `exit <code>` / `crash` | exits with that code / dies of SIGABRT |
//! | `fork <n>` | starts n copies of itself running `hang` (same process group, same stdout) and appends their pids, one per line, to the file named by `FAKE_AGENT_PIDFILE` |
//! | `alive-pids` | prints a final assistant message `alive: <n>`: how many pids of `FAKE_AGENT_PIDFILE` are still running (zombies do not count) |
//! | `fork-escaped <n>` | the same, but each copy calls `setsid` and so leaves the process group |
//! | `echo-env <NAME>` | prints the variable's value in a final assistant message (`NAME is <value>`) and as `NAME=<value>` on stderr |
//! | `record <path>` | writes `{"argv","cwd","env","stdin_is_devnull"}` as JSON to the path |
//! | `big-line <bytes>` | prints one assistant message line of exactly that many bytes (at least 47) |
//! | `count <name>` | increments the counter in the state file `<name>` (under a lock) and makes its new value this session's call number |
//! | `on <n>[,<n>...] <action>` | performs the action only when the call number is one of those |
//! | `not <n>[,<n>...] <action>` | performs the action only when the call number is none of those |
//! | `chance <VAR> <action>` | performs the action with the probability in the variable `VAR` (e.g. set by a variant's `env`): a draw seeded by the counter's name, `FAKE_AGENT_SEED` and the call number, so a run is reproducible (needs an earlier `count`) |
//! | `when-prompt <word> <action>` | performs the action only when the prompt contains the word (any case) |
//! | `log <file> <text>` | appends the line `<text> <FAKE_AGENT_NAME>` to the state file `<file>` |
//! | `write <path> <text>` | writes the text and a newline to the file (relative to the cwd) |
//! | `read <path>` | prints a `file_read` event for the path (relative to the cwd), with `"error":"File not found"` when it is not a file |
//! | `replay <path>` | copies the file's bytes to stdout (a captured transcript) |
//! | `chat [DIR]` | asks the model endpoint skillgym hands a `command` agent (`SKILLGYM_PROVIDER_BASE_URL`, `SKILLGYM_PROVIDER_API_KEY`; Chat Completions, not streamed) once, with the prompt and a `bash` tool (and, with DIR, a system message listing the skills in DIR as `<available_skills>`, `'` escaped as `&apos;`), and prints its answer as events: the text (final when no tool is called), the tool call with a `command`, the usage |
//!
//! An unknown or malformed action prints a message on stderr and exits with code 3; a failed
//! write exits with code 4. Stdout is flushed after each action.

use std::io::{self, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

const BAD_SCRIPT: u8 = 3;
const IO_FAILURE: u8 = 4;

fn main() -> ExitCode {
    let script = match load_script() {
        Ok(script) => script,
        Err(message) => return fail(BAD_SCRIPT, &message),
    };
    let prompt = std::env::args_os()
        .skip(1)
        .last()
        .map(|prompt| prompt.to_string_lossy().into_owned())
        .unwrap_or_default();
    let script = if script == "-" {
        prompt.clone()
    } else {
        script
    };
    let mut session = Session {
        prompt,
        call: None,
        counter: String::new(),
    };
    for (number, line) in script.lines().enumerate() {
        let line = line.trim_start();
        if line.trim_end().is_empty() || line.starts_with('#') {
            continue;
        }
        let (action, argument) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let result = perform(action, argument, &mut session).and_then(|()| {
            io::stdout()
                .flush()
                .map_err(|e| Failure::Io(format!("flush: {e}")))
        });
        match result {
            Ok(()) => {}
            Err(Failure::Exit(code)) => return ExitCode::from(code),
            Err(Failure::Script(message)) => {
                return fail(
                    BAD_SCRIPT,
                    &format!("script line {}: {message}", number + 1),
                );
            }
            Err(Failure::Io(message)) => return fail(IO_FAILURE, &message),
        }
    }
    ExitCode::SUCCESS
}

/// Why the script stops early.
enum Failure {
    /// `exit <code>`.
    Exit(u8),
    /// Unknown or malformed action.
    Script(String),
    /// A write or spawn failed.
    Io(String),
}

fn load_script() -> Result<String, String> {
    let asked_version = std::env::args_os().skip(1).eq(["--version"]);
    let variable = match std::env::var_os("FAKE_AGENT_VERSION_SCRIPT") {
        Some(_) if asked_version => "FAKE_AGENT_VERSION_SCRIPT",
        None if asked_version => return Ok("print fake-agent 0.1.0".to_owned()),
        _ => "FAKE_AGENT_SCRIPT",
    };
    match std::env::var(variable) {
        Err(std::env::VarError::NotPresent) => Ok("echo-prompt\nexit 0".to_owned()),
        Err(e) => Err(format!("{variable}: {e}")),
        Ok(script) => match script.strip_prefix('@') {
            Some(path) => std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}")),
            None => Ok(script),
        },
    }
}

fn fail(code: u8, message: &str) -> ExitCode {
    let _ = writeln!(io::stderr(), "fake-agent: {message}");
    ExitCode::from(code)
}

/// What one run of the script knows.
struct Session {
    prompt: String,
    /// Set by `count`.
    call: Option<u64>,
    /// The name `count` counted under.
    counter: String,
}

fn perform(action: &str, argument: &str, session: &mut Session) -> Result<(), Failure> {
    match action {
        "on" | "not" => {
            let (list, rest) = argument
                .trim_start()
                .split_once(char::is_whitespace)
                .ok_or_else(|| Failure::Script(format!("`{action}` needs a list and an action")))?;
            let call = session
                .call
                .ok_or_else(|| Failure::Script(format!("`{action}` needs an earlier `count`")))?;
            let listed = list
                .split(',')
                .map(parse_number::<u64>)
                .collect::<Result<Vec<_>, _>>()?
                .contains(&call);
            if listed != (action == "on") {
                return Ok(());
            }
            let rest = rest.trim_start();
            let (action, argument) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            return perform(action, argument, session);
        }
        "when-prompt" => {
            let (word, rest) = argument
                .trim_start()
                .split_once(char::is_whitespace)
                .ok_or_else(|| {
                    Failure::Script("`when-prompt` needs a word and an action".into())
                })?;
            if !session.prompt.to_lowercase().contains(&word.to_lowercase()) {
                return Ok(());
            }
            let rest = rest.trim_start();
            let (action, argument) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            return perform(action, argument, session);
        }
        "count" => {
            session.call = Some(count(&state_file(argument)?)?);
            session.counter = argument.trim().to_owned();
            return Ok(());
        }
        "chance" => {
            let (variable, rest) = argument
                .trim_start()
                .split_once(char::is_whitespace)
                .ok_or_else(|| Failure::Script("`chance` needs a variable and an action".into()))?;
            let call = session
                .call
                .ok_or_else(|| Failure::Script("`chance` needs an earlier `count`".into()))?;
            let probability: f64 = std::env::var(variable)
                .ok()
                .and_then(|value| value.trim().parse().ok())
                .ok_or_else(|| {
                    Failure::Script(format!("`chance`: `{variable}` holds no number"))
                })?;
            if draw(&session.counter, call) >= probability {
                return Ok(());
            }
            let rest = rest.trim_start();
            let (action, argument) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            return perform(action, argument, session);
        }
        "log" => {
            let (file, text) = argument
                .trim()
                .split_once(char::is_whitespace)
                .unwrap_or((argument.trim(), ""));
            let name = std::env::var("FAKE_AGENT_NAME").unwrap_or_default();
            return append(&state_file(file)?, &format!("{text} {name}\n"));
        }
        "write" => {
            let (path, text) = argument
                .trim()
                .split_once(char::is_whitespace)
                .unwrap_or((argument.trim(), ""));
            return std::fs::write(path, format!("{text}\n"))
                .map_err(|e| Failure::Io(format!("{path}: {e}")));
        }
        _ => {}
    }
    let prompt = session.prompt.as_str();
    let mut out = io::stdout().lock();
    let write = |result: io::Result<()>| result.map_err(|e| Failure::Io(format!("write: {e}")));
    match action {
        "emit" | "print" => write(writeln!(out, "{argument}")),
        "print-no-newline" => write(write!(out, "{argument}")),
        "bytes" => write(out.write_all(&parse_hex(argument)?)),
        "stderr" => write(writeln!(io::stderr(), "{argument}")),
        "read" => {
            // A read of a file (relative to the cwd) as an agent's read tool reports it.
            let path = serde_json::Value::from(argument.trim());
            let event = match std::fs::metadata(argument.trim()) {
                Ok(meta) if meta.is_file() => format!(r#"{{"type":"file_read","path":{path}}}"#),
                _ => format!(r#"{{"type":"file_read","path":{path},"error":"File not found"}}"#),
            };
            write(writeln!(out, "{event}"))
        }
        "echo-prompt" => {
            let text = serde_json::Value::from(prompt);
            write(writeln!(
                out,
                r#"{{"type":"message","role":"assistant","phase":"final","text":{text}}}"#
            ))
        }
        "sleep" => {
            std::thread::sleep(Duration::from_millis(parse_number(argument)?));
            Ok(())
        }
        "hang" => loop {
            std::thread::sleep(Duration::from_secs(3600));
        },
        "exit" => Err(Failure::Exit(parse_number(argument)?)),
        "crash" => std::process::abort(),
        "fork" => fork(parse_number(argument)?, false),
        "fork-escaped" => fork(parse_number(argument)?, true),
        "alive-pids" => {
            let alive = recorded_pids()
                .into_iter()
                .filter(|&pid| is_alive(pid))
                .count();
            write(writeln!(
                out,
                r#"{{"type":"message","role":"assistant","phase":"final","text":"alive: {alive}"}}"#
            ))
        }
        "echo-env" => {
            let name = argument.trim();
            let value = std::env::var(name).unwrap_or_default();
            let text = serde_json::Value::from(format!("{name} is {value}"));
            writeln!(io::stderr(), "{name}={value}").map_err(|e| Failure::Io(e.to_string()))?;
            write(writeln!(
                out,
                r#"{{"type":"message","role":"assistant","phase":"final","text":{text}}}"#
            ))
        }
        "record" => record(argument.trim()),
        "big-line" => write(big_line(&mut out, parse_number(argument)?)),
        "replay" => {
            // Streamed: a replayed flood must not cost this process its size in memory.
            let path = argument.trim();
            let mut file =
                std::fs::File::open(path).map_err(|e| Failure::Io(format!("{path}: {e}")))?;
            write(io::copy(&mut file, &mut out).map(drop))
        }
        "chat" => {
            let events = chat(prompt, argument.trim())?;
            write(out.write_all(events.as_bytes()))
        }
        other => Err(Failure::Script(format!("unknown action `{other}`"))),
    }
}

/// The skills of `dir` (each `<dir>/<skill>/SKILL.md`, by name) as OpenCode and Copilot list
/// them: `<available_skills>` with each skill's frontmatter `name` and `description`, `'`
/// written `&apos;` as Copilot does.
fn skill_listing(dir: &Path) -> Result<String, Failure> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| Failure::Io(format!("{}: {e}", dir.display())))?;
    let mut manifests: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path().join("SKILL.md"))
        .filter(|path| path.is_file())
        .collect();
    manifests.sort();
    let mut listing = String::from("<available_skills>\n");
    for path in manifests {
        let text = std::fs::read_to_string(&path).map_err(|e| Failure::Io(e.to_string()))?;
        let field = |key: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix(key))
                .unwrap_or_default()
                .trim()
                .replace('\'', "&apos;")
        };
        listing.push_str(&format!(
            "<skill>\n  <name>{}</name>\n  <description>{}</description>\n  <location>{}</location>\n</skill>\n",
            field("name:"),
            field("description:"),
            path.display()
        ));
    }
    listing.push_str("</available_skills>");
    Ok(listing)
}

/// One Chat Completions request to the endpoint in `SKILLGYM_PROVIDER_*`, its answer as
/// skillgym event lines; with `skills_dir` (not empty), a system message lists the skills in
/// it first.
fn chat(prompt: &str, skills_dir: &str) -> Result<String, Failure> {
    use serde_json::{Value, json};
    use std::io::Read;
    let variable = |name: &str| {
        std::env::var(name).map_err(|_| Failure::Script(format!("`chat` needs {name}")))
    };
    let base_url = variable("SKILLGYM_PROVIDER_BASE_URL")?;
    let key = variable("SKILLGYM_PROVIDER_API_KEY")?;
    let rest = base_url
        .strip_prefix("http://")
        .ok_or_else(|| Failure::Script(format!("`chat` speaks plain http only: {base_url}")))?;
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut messages = vec![json!({"role": "user", "content": prompt})];
    if !skills_dir.is_empty() {
        let listing = skill_listing(Path::new(skills_dir))?;
        messages.insert(0, json!({"role": "system", "content": listing}));
    }
    let body = json!({
        "model": std::env::var("SKILLGYM_MODEL").unwrap_or_else(|_| "fake".to_owned()),
        "messages": messages,
        "tools": [{"type": "function", "function": {"name": "bash", "parameters": {
            "type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}],
    })
    .to_string();
    let io = |e: io::Error| Failure::Io(format!("chat with {base_url}: {e}"));
    let mut stream = std::net::TcpStream::connect(host).map_err(io)?;
    write!(
        stream,
        "POST {path}/chat/completions HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .map_err(io)?;
    let mut reply = String::new();
    stream.read_to_string(&mut reply).map_err(io)?;
    let (head, body) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
    if !head.starts_with("HTTP/1.1 200") {
        return Err(Failure::Io(format!("chat: {head}\n{body}")));
    }
    let completion: Value =
        serde_json::from_str(body).map_err(|e| Failure::Io(format!("chat reply: {e}")))?;
    let message = &completion["choices"][0]["message"];
    let call = &message["tool_calls"][0]["function"];
    let mut events = String::new();
    if let Some(text) = message["content"].as_str() {
        let phase = if call.is_null() {
            "final"
        } else {
            "commentary"
        };
        let event = json!({"type": "message", "role": "assistant", "phase": phase, "text": text});
        events.push_str(&format!("{event}\n"));
    }
    if let Some(name) = call["name"].as_str() {
        let args: Value =
            serde_json::from_str(call["arguments"].as_str().unwrap_or("{}")).unwrap_or(Value::Null);
        events.push_str(&format!(
            "{}\n",
            json!({"type": "tool_call", "tool": name, "args": args})
        ));
        if let Some(command) = args["command"].as_str() {
            events.push_str(&format!(
                "{}\n",
                json!({"type": "command", "command": command})
            ));
        }
    }
    let usage = &completion["usage"];
    let event = json!({"type": "usage", "input_tokens": usage["prompt_tokens"], "output_tokens": usage["completion_tokens"]});
    events.push_str(&format!("{event}\n"));
    Ok(events)
}

/// A file in `FAKE_AGENT_STATE_DIR`.
fn state_file(name: &str) -> Result<std::path::PathBuf, Failure> {
    let dir = std::env::var_os("FAKE_AGENT_STATE_DIR")
        .ok_or_else(|| Failure::Script("FAKE_AGENT_STATE_DIR is not set".to_owned()))?;
    let name = name.trim();
    if name.is_empty() || name.contains('/') {
        return Err(Failure::Script(format!("bad state file name `{name}`")));
    }
    Ok(std::path::Path::new(&dir).join(name))
}

/// Increments the number in `path` under an exclusive lock and returns the new value.
/// A uniform draw in [0, 1) fixed by the counter's name, `FAKE_AGENT_SEED` and the call
/// number (std's SipHash with its fixed keys: the same draw on every run of one toolchain).
fn draw(counter: &str, call: u64) -> f64 {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut hasher = DefaultHasher::new();
    (
        counter,
        std::env::var("FAKE_AGENT_SEED").unwrap_or_default(),
        call,
    )
        .hash(&mut hasher);
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

fn count(path: &std::path::Path) -> Result<u64, Failure> {
    use std::io::{Read, Seek};
    use std::os::fd::AsRawFd;
    let io_error = |e: io::Error| Failure::Io(format!("{}: {e}", path.display()));
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io_error)?;
    // SAFETY: flock on a descriptor we own; released when `file` is closed.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(io_error(io::Error::last_os_error()));
    }
    let mut text = String::new();
    file.read_to_string(&mut text).map_err(io_error)?;
    let next = text.trim().parse::<u64>().unwrap_or(0) + 1;
    file.rewind().map_err(io_error)?;
    file.set_len(0).map_err(io_error)?;
    file.write_all(next.to_string().as_bytes())
        .map_err(io_error)?;
    Ok(next)
}

/// Appends `text` to `path` in one write.
fn append(path: &std::path::Path, text: &str) -> Result<(), Failure> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| Failure::Io(format!("{}: {e}", path.display())))?;
    file.write_all(text.as_bytes())
        .map_err(|e| Failure::Io(format!("{}: {e}", path.display())))
}

fn parse_number<T: std::str::FromStr>(argument: &str) -> Result<T, Failure> {
    argument
        .trim()
        .parse()
        .map_err(|_| Failure::Script(format!("`{}` is not a valid number here", argument.trim())))
}

fn parse_hex(argument: &str) -> Result<Vec<u8>, Failure> {
    let digits: Vec<u8> = argument
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    if !digits.len().is_multiple_of(2) {
        return Err(Failure::Script("odd number of hex digits".to_owned()));
    }
    digits
        .chunks(2)
        .map(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                .ok_or_else(|| {
                    Failure::Script(format!("bad hex `{}`", String::from_utf8_lossy(pair)))
                })
        })
        .collect()
}

/// Starts `count` hanging copies of this program, in our process group, sharing our stdout.
fn fork(count: u32, escaped: bool) -> Result<(), Failure> {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe().map_err(|e| Failure::Io(format!("current_exe: {e}")))?;
    let mut pids = String::new();
    for _ in 0..count {
        let mut command = Command::new(&exe);
        command
            .env("FAKE_AGENT_SCRIPT", "hang")
            .stdin(Stdio::null());
        if escaped {
            // SAFETY: setsid(2) is async-signal-safe; nothing else runs between fork and exec.
            unsafe {
                command.pre_exec(|| {
                    if libc::setsid() < 0 {
                        return Err(io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let child = command
            .spawn()
            .map_err(|e| Failure::Io(format!("fork: {e}")))?;
        pids.push_str(&format!("{}\n", child.id()));
    }
    if let Some(path) = std::env::var_os("FAKE_AGENT_PIDFILE") {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| Failure::Io(format!("{}: {e}", path.to_string_lossy())))?;
        file.write_all(pids.as_bytes())
            .map_err(|e| Failure::Io(format!("{}: {e}", path.to_string_lossy())))?;
    }
    Ok(())
}

/// The pids `fork` appended to `FAKE_AGENT_PIDFILE`.
fn recorded_pids() -> Vec<i32> {
    std::env::var_os("FAKE_AGENT_PIDFILE")
        .and_then(|path| std::fs::read_to_string(path).ok())
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.parse().ok())
        .collect()
}

/// Whether the process runs (exists and is not a zombie).
fn is_alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(") ")
            .next()
            .is_some_and(|rest| !rest.starts_with('Z'))
    })
}

/// Writes what this process received: argv, cwd, environment, whether stdin is /dev/null.
fn record(path: &str) -> Result<(), Failure> {
    if path.is_empty() {
        return Err(Failure::Script("record needs a path".to_owned()));
    }
    let argv: Vec<String> = std::env::args_os()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    let cwd = std::env::current_dir()
        .map(|cwd| cwd.to_string_lossy().into_owned())
        .unwrap_or_default();
    let env: serde_json::Map<String, serde_json::Value> = std::env::vars_os()
        .map(|(name, value)| {
            let value = value.to_string_lossy().into_owned();
            (name.to_string_lossy().into_owned(), value.into())
        })
        .collect();
    let record = serde_json::json!({
        "argv": argv, "cwd": cwd, "env": env, "stdin_is_devnull": stdin_is_devnull(),
    });
    std::fs::write(path, format!("{record}\n")).map_err(|e| Failure::Io(format!("{path}: {e}")))
}

/// Whether fd 0 is the `/dev/null` character device.
fn stdin_is_devnull() -> bool {
    let (Ok(stdin), Ok(null)) = (
        std::fs::metadata("/proc/self/fd/0"),
        std::fs::metadata("/dev/null"),
    ) else {
        return false;
    };
    stdin.file_type().is_char_device()
        && null.file_type().is_char_device()
        && stdin.rdev() == null.rdev()
}

/// One assistant message line of exactly `size` bytes (longer when `size` is below the framing).
fn big_line(out: &mut impl Write, size: usize) -> io::Result<()> {
    const HEAD: &str = r#"{"type":"message","role":"assistant","text":""#;
    const TAIL: &str = "\"}";
    let filler = [b'x'; 64 * 1024];
    let mut left = size.saturating_sub(HEAD.len() + TAIL.len());
    out.write_all(HEAD.as_bytes())?;
    while left > 0 {
        let n = left.min(filler.len());
        out.write_all(&filler[..n])?;
        left -= n;
    }
    out.write_all(TAIL.as_bytes())?;
    out.write_all(b"\n")
}
