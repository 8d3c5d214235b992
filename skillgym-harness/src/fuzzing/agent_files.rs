//! The files agents leave behind a session, on arbitrary content: each adapter's `collect`
//! (session files found and copied, Copilot's usage output file and persisted events summed,
//! Cursor's and OpenCode's `stderr.log` read) after its stream parser read arbitrary stdout.
//!
//! | input (NUL-separated) | what it is |
//! |---|---|
//! | first byte | the agent type |
//! | 1st file | the agent's stdout (it names the session) |
//! | 2nd | the session file, where the adapter looks for the session the stdout named |
//! | 3rd | `copilot-usage.json` and `stderr.log` in the attempt's directory |
//!
//! Copilot finds its session by joining the session id the stdout gave to its
//! `session-state` directory: an `events.jsonl` holding `decoy` sits in every directory above
//! the session's, up to the attempt's, and must never be copied.

use std::path::{Component, Path, PathBuf};

use super::scratch;
use crate::agent::{self, AgentOptions, SessionSpec};
use crate::config::AgentKind;
use crate::normalize::{ReportBuilder, feed_stream};

/// What the decoys hold.
const DECOY: &[u8] = b"decoy";

/// The session id used for file names when the stdout names none usable.
const FALLBACK_ID: &str = "fuzz-session";

/// Feeds the stdout `bytes` make to the parser of the agent type they pick, places the session
/// file where that agent keeps the session, and collects; checks that a copied session file
/// is the session's (never a decoy from outside the session directory) and that the report
/// survives a JSON round trip. For fuzz targets; not a stable API.
pub fn agent_files(bytes: &[u8]) {
    let Some((&pick, rest)) = bytes.split_first() else {
        return;
    };
    let kinds: Vec<AgentKind> = AgentKind::CLIS
        .into_iter()
        .chain([AgentKind::Command])
        .collect();
    let kind = kinds[usize::from(pick) % kinds.len()];
    let [stdout, session, attempt_file] = scratch::files(rest, 3)[..] else {
        unreachable!("three files")
    };
    let dir = scratch::fresh("agent-files");
    let artifact_dir = dir.join("attempt");
    let state_dir = artifact_dir.join("agent-state");
    let prompt_file = artifact_dir.join("prompt.md");
    std::fs::create_dir_all(&state_dir).expect("the state directory");
    let agent = agent::build(kind, AgentOptions::default().command("fuzz-agent"))
        .expect("every agent builds with a command");
    let mut builder = ReportBuilder::new(dir.join("work"));
    let mut parser = agent.parser();
    feed_stream(parser.as_mut(), stdout.unwrap_or_default(), &mut builder)
        .expect("reading a byte slice cannot fail");
    parser.finish(&mut builder);
    let id = builder
        .current_session_id()
        .filter(|id| plain(id))
        .unwrap_or(FALLBACK_ID)
        .to_owned();
    if let Some(session_file) = session_file(kind, &state_dir, &id) {
        let content = session.unwrap_or_default();
        scratch::write(&session_file, content);
        if kind == AgentKind::Copilot {
            for above in session_file.ancestors().skip(2) {
                scratch::write(&above.join("events.jsonl"), DECOY);
                if above == artifact_dir {
                    break;
                }
            }
        }
    }
    if let Some(file) = attempt_file {
        scratch::write(&artifact_dir.join("copilot-usage.json"), file);
        scratch::write(&artifact_dir.join("stderr.log"), file);
    }
    let spec = SessionSpec {
        runner_id: "fuzz",
        prompt: "fuzz prompt",
        prompt_file: &prompt_file,
        cwd: &dir.join("work"),
        artifact_dir: &artifact_dir,
        state_dir: &state_dir,
        provider: None,
        skills: &[],
        env: &[],
    };
    agent.collect(&spec, &mut builder);
    if let Some(copied) = builder.current_session_file() {
        assert!(copied.starts_with(&artifact_dir), "{}", copied.display());
        let copy = std::fs::read(copied).expect("the copied session file reads");
        assert_ne!(
            copy, DECOY,
            "{kind:?} copied a file from outside its session directory"
        );
    }
    let (report, _) = builder.finish_with_error("fuzz prompt");
    let json = serde_json::to_string(&report).expect("the report serializes");
    if let Err(error) = serde_json::from_str::<skillgym::SessionReport>(&json) {
        panic!("the report does not read back: {error}\n{json}");
    }
}

/// Whether `id` can name a file: one plain path component of a sane length.
fn plain(id: &str) -> bool {
    id.len() <= 100
        && !id.contains('\0')
        && matches!(
            Path::new(id).components().collect::<Vec<_>>()[..],
            [Component::Normal(_)]
        )
        && !id.contains('/')
}

/// Where agent `kind` keeps the session `id` in the state directory `state`, if it keeps one.
fn session_file(kind: AgentKind, state: &Path, id: &str) -> Option<PathBuf> {
    let short: String = id.chars().take(8).collect();
    Some(match kind {
        AgentKind::ClaudeCode => state.join(format!("claude/projects/-fuzz-work/{id}.jsonl")),
        AgentKind::QwenCode => state.join(format!("qwen/projects/-fuzz-work/chats/{id}.jsonl")),
        AgentKind::Codex => state.join(format!(
            "codex-home/sessions/2026/01/01/rollout-2026-01-01T00-00-00-{id}.jsonl"
        )),
        AgentKind::Copilot => state.join(format!("copilot-home/session-state/{id}/events.jsonl")),
        AgentKind::GeminiCli => state.join(format!(
            "gemini-home/.gemini/tmp/work/chats/session-2026-01-01T00-00-{short}.jsonl"
        )),
        _ => return None,
    })
}
