//! The agents' versions of a run: each runner's agent is asked once per run directory, and
//! every process of the run (nextest runs each trial in its own) reads the answer.
//!
//! | when | what |
//! |---|---|
//! | while the first trials start ([`RunVersions::resolve_in_background`], waited for where a version is first needed) | under an exclusive lock on `<run>/.versions/`, the answers already there (`<runner>.json`) are read; the runners without one are asked, as many at once as there are cores, each with its adapter's command ([`Agent::version_command`]) and within [`TIMEOUT`]; the answers are written there, and handed to the work that waits for them (`run.json`, on the same thread) |
//! | a session ends ([`RunVersions::settle`]) | its report takes the version its stream reported (Claude Code, Qwen Code), else the run's answer |
//! | `result.json`, `results.json`, `run.json`, the reporters ([`RunVersions::agent`]) | the run's answer |
//!
//! | runner | its version |
//! |---|---|
//! | a built-in agent type | what its CLI answers to `--version` (after `agent.args`, for launchers such as `npx`) |
//! | `command` | what `agent.version_args` make its program print; unknown without them |
//! | replaying a recording | the recorded one (of each replayed session, in its report) |
//! | one `--mock` leaves out (it cannot take part) | not asked: unknown |
//!
//! Asking never fails a session, nor holds the run up past the timeout: a CLI that cannot be
//! started, fails, prints no version or does not answer in time leaves the version unknown,
//! and a warning says why (on stderr, by the process that asked; the answer file keeps it).
//! Reports hold the version only, never a warning about it: a replay reproduces them as they
//! were recorded.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use skillgym::{AgentInfo, SessionReport};

use crate::agent::{Agent, Launch, parse_version};
use crate::artifacts::sanitize;
use crate::private_dir::PrivateDir;
use crate::process::{self, LineVerdict, ProcessSpec, Termination};
use crate::runner::Runner;
use crate::terminal_text::eprintln_escaped;

/// How long a version command may take (as long as `skillgym doctor` waits for one): Gemini CLI
/// 0.61.0 answers in about 3 seconds alone, and took over 10 with five other CLIs starting on
/// a busy two-core machine; Codex, OpenCode and Copilot took over 20 there while other sessions
/// ran.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(45);

/// The directory of the answers, in the run directory.
pub(crate) const DIR: &str = ".versions";

/// The most stdout of a version command that is read.
const MAX_OUTPUT: u64 = 64 * 1024;

/// One runner's answer, as `<run>/.versions/<runner>.json` keeps it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Answer {
    /// The version, when the agent told it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Why it is unknown, when the agent was asked and did not tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// The answers of a run's runners, by runner id: asked on a thread of their own while the first
/// sessions start, and waited for where a version is first needed (a session's end).
#[derive(Debug, Default)]
pub(crate) struct RunVersions {
    answers: OnceLock<BTreeMap<String, Answer>>,
    /// The thread asking, until its answers are taken.
    asking: Mutex<Option<JoinHandle<BTreeMap<String, Answer>>>>,
    /// The runners whose sessions reported another version than the answer, once said.
    told: Mutex<std::collections::BTreeSet<String>>,
}

impl RunVersions {
    /// [`RunVersions::resolve`] on a thread of its own: the trials start at once, and the
    /// first that needs a version waits for the answers ([`RunVersions::wait`]). `then` runs
    /// with the answers on that thread, before they are handed over (at once when no runner is
    /// asked).
    pub(crate) fn resolve_in_background(
        run_dir: &Path,
        runners: &[&Runner],
        then: impl FnOnce(&BTreeMap<String, Answer>) + Send + 'static,
    ) -> RunVersions {
        if runners.is_empty() {
            then(&BTreeMap::new());
            return RunVersions::default();
        }
        let dir = run_dir.to_path_buf();
        let owned: Vec<Runner> = runners.iter().map(|runner| (*runner).clone()).collect();
        // Shared, so that it still runs here when no thread can be had.
        let then = std::sync::Arc::new(Mutex::new(Some(then)));
        let asking = std::thread::Builder::new()
            .name("skillgym-versions".to_owned())
            .spawn({
                let then = then.clone();
                move || {
                    let runners: Vec<&Runner> = owned.iter().collect();
                    let answers = RunVersions::resolve(&dir, &runners).wait().clone();
                    if let Some(then) = take(&then) {
                        then(&answers);
                    }
                    answers
                }
            });
        match asking {
            Ok(handle) => RunVersions {
                asking: Mutex::new(Some(handle)),
                ..RunVersions::default()
            },
            // No thread to be had: asked here and now.
            Err(_) => {
                let versions = RunVersions::resolve(run_dir, runners);
                if let Some(then) = take(&then) {
                    then(versions.wait());
                }
                versions
            }
        }
    }

    /// The answers, once the thread asking has them (at once when none is asking).
    pub(crate) fn wait(&self) -> &BTreeMap<String, Answer> {
        self.answers.get_or_init(|| {
            let asking = self
                .asking
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take();
            asking
                .and_then(|handle| handle.join().ok())
                .unwrap_or_default()
        })
    }

    /// The answers of `runners` in the run directory `run_dir`: read when another process of
    /// the run (or an earlier call) asked already, else asked now and written for the others.
    pub(crate) fn resolve(run_dir: &Path, runners: &[&Runner]) -> RunVersions {
        let mut answers = BTreeMap::new();
        if runners.is_empty() {
            return RunVersions::default();
        }
        let dir = run_dir.join(DIR);
        let lock = fs::create_dir_all(&dir).and_then(|()| crate::schedule::lock_directory(&dir));
        if let Err(error) = &lock {
            eprintln_escaped!(
                "skillgym: warning: cannot keep the agents' versions in {}: {error}; this process asks them itself",
                dir.display()
            );
        }
        let mut missing = Vec::new();
        for runner in runners {
            match lock.as_ref().ok().and_then(|_| read(&dir, &runner.id)) {
                Some(answer) => {
                    answers.insert(runner.id.clone(), answer);
                }
                None => missing.push(*runner),
            }
        }
        // As many at once as the machine has cores: CLIs that start a Node.js runtime take
        // seconds each, and more at once only slows them all down. A batch of one is asked
        // here, without a thread of its own.
        let at_once = match missing.len() {
            0 | 1 => 1,
            _ => std::thread::available_parallelism().map_or(1, usize::from),
        };
        let mut asked: Vec<(String, Answer)> = Vec::new();
        for batch in missing.chunks(at_once) {
            if let [runner] = batch {
                asked.push((runner.id.clone(), ask(runner.agent.as_ref())));
                continue;
            }
            std::thread::scope(|scope| {
                let asking: Vec<_> = batch
                    .iter()
                    .map(|runner| {
                        scope.spawn(move || (runner.id.clone(), ask(runner.agent.as_ref())))
                    })
                    .collect();
                asked.extend(asking.into_iter().filter_map(|thread| thread.join().ok()));
            });
        }
        for (id, answer) in asked {
            if let Some(warning) = &answer.warning {
                eprintln_escaped!("skillgym: warning: runner `{id}`: {warning}");
            }
            if lock.is_ok() {
                let path = dir.join(format!("{}.json", sanitize(&id)));
                if let Err(error) = crate::artifacts::write_json(&path, &answer) {
                    eprintln_escaped!(
                        "skillgym: warning: cannot write {}: {error}; other processes of the run ask runner `{id}` again",
                        path.display()
                    );
                }
            }
            answers.insert(id, answer);
        }
        RunVersions {
            answers: OnceLock::from(answers),
            ..RunVersions::default()
        }
    }

    /// `runner`'s agent as the run knows it: type, model and version (a replaying runner's:
    /// the recorded ones).
    pub(crate) fn agent(&self, runner: &Runner) -> AgentInfo {
        agent_of(runner, || self.wait())
    }

    /// Settles the version in the report of a session of `runner`: the one its stream
    /// reported (already in the report), else the run's answer. When the two differ (the CLI
    /// changed during the run), a warning on stderr says so, once per runner and process.
    pub(crate) fn settle(&self, report: &mut SessionReport, runner: &Runner) {
        let asked = self
            .wait()
            .get(&runner.id)
            .and_then(|answer| answer.version.clone());
        let streamed = report.runner.agent.version.take();
        if let (Some(streamed), Some(asked)) = (&streamed, &asked)
            && streamed != asked
            && self
                .told
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(runner.id.clone())
        {
            eprintln_escaped!(
                "skillgym: warning: runner `{}`: a session reported version {streamed} at start-up, but the agent answered {asked} when the run asked it: the CLI changed during the run",
                runner.id
            );
        }
        report.runner.agent.version = streamed.or(asked);
    }
}

/// No answers: [`agent_of`] without a version.
pub(crate) static NONE: BTreeMap<String, Answer> = BTreeMap::new();

/// `runner`'s agent, the version from `answers` (only asked for a runner that does not replay).
pub(crate) fn agent_of<'a>(
    runner: &Runner,
    answers: impl FnOnce() -> &'a BTreeMap<String, Answer>,
) -> AgentInfo {
    if let Some(replay) = &runner.replay {
        return AgentInfo {
            kind: replay.agent.kind.clone(),
            model: replay.agent.model.clone(),
            version: replay.agent.version.clone(),
        };
    }
    AgentInfo {
        kind: runner.agent.kind().to_owned(),
        model: runner.agent.model().map(str::to_owned),
        version: answers()
            .get(&runner.id)
            .and_then(|answer| answer.version.clone()),
    }
}

/// What `slot` holds, taken out (a poisoned lock still gives it).
fn take<T>(slot: &Mutex<Option<T>>) -> Option<T> {
    slot.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
}

/// The answer kept for runner `id`, if a readable one is there.
fn read(dir: &Path, id: &str) -> Option<Answer> {
    let text = fs::read_to_string(dir.join(format!("{}.json", sanitize(id)))).ok()?;
    serde_json::from_str(&text).ok()
}

/// Asks `agent` its version, within [`TIMEOUT`].
fn ask(agent: &dyn Agent) -> Answer {
    ask_within(agent, TIMEOUT)
}

/// Asks `agent` its version, within `timeout`.
fn ask_within(agent: &dyn Agent, timeout: Duration) -> Answer {
    match asked(agent, timeout) {
        Ok(version) => Answer {
            version,
            warning: None,
        },
        Err(why) => Answer {
            version: None,
            warning: Some(format!("the agent's version is unknown: {why}")),
        },
    }
}

/// The version `agent` tells within `timeout`; `Ok(None)` when it has no command to tell it.
fn asked(agent: &dyn Agent, timeout: Duration) -> Result<Option<String>, VersionError> {
    let mut scratch = PrivateDir::create().map_err(VersionError::NoDirectory)?;
    let Some(launch) = agent.version_command(scratch.path()) else {
        return Ok(None);
    };
    let shown = command_line(&launch);
    let spec = ProcessSpec {
        program: launch.program,
        args: launch.args,
        env: launch.env,
        env_remove: launch.env_remove,
        cwd: scratch.path().to_path_buf(),
        // Reserved: a second signal can come while the first sessions run, and takes them too.
        stdout_log: scratch.reserve("stdout.log"),
        stderr_log: scratch.reserve("stderr.log"),
        timeout,
        max_output: Some(MAX_OUTPUT),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| VersionError::NoRuntime {
            shown: shown.clone(),
            source,
        })?;
    let mut stdout = String::new();
    let mut sink = |line: &str| {
        stdout.push_str(line);
        stdout.push('\n');
        LineVerdict::Continue
    };
    let outcome = runtime
        .block_on(process::run(&spec, &mut sink))
        .map_err(|source| VersionError::NotRun {
            shown: shown.clone(),
            source,
        })?;
    if let Some(what) = no_answer(&outcome, timeout, &spec.stderr_log, &stdout) {
        return Err(VersionError::Said { shown, what });
    }
    match parse_version(&stdout) {
        Some(version) => Ok(Some(version)),
        None => Err(VersionError::Said {
            shown,
            what: match first_line(&stdout) {
                Some(line) => format!("printed no version: {line}"),
                None => "printed nothing".to_owned(),
            },
        }),
    }
}

/// What went wrong when the version command did not end with its answer: it timed out,
/// printed too much, was stopped, or failed (with the first line it printed, stderr first);
/// `None` when it exited with 0.
fn no_answer(
    outcome: &process::ProcessOutcome,
    timeout: Duration,
    stderr_log: &Path,
    stdout: &str,
) -> Option<String> {
    match outcome.termination {
        Termination::Exited => {}
        Termination::TimedOut => {
            return Some(format!(
                "did not answer within {}",
                crate::duration::compact(timeout)
            ));
        }
        Termination::OutputLimit { .. } => {
            return Some(format!("printed more than {MAX_OUTPUT} bytes"));
        }
        _ => return Some("was stopped".to_owned()),
    }
    if outcome.exit_code == Some(0) {
        return None;
    }
    let status = match (outcome.exit_code, outcome.signal) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => "ended without an exit status".to_owned(),
    };
    let stderr = fs::read_to_string(stderr_log).unwrap_or_default();
    let detail = first_line(&stderr)
        .or_else(|| first_line(stdout))
        .map_or_else(String::new, |line| format!(": {line}"));
    Some(format!("{status}{detail}"))
}

/// The first non-blank line of `text`, trimmed and escaped.
fn first_line(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .map(crate::terminal_text::escape_one_line)
}

/// Why an agent's version is unknown (the rest of "the agent's version is unknown: …").
#[derive(Debug, thiserror::Error)]
enum VersionError {
    /// No private scratch directory for the version command.
    #[error("no directory to ask it in: {0}")]
    NoDirectory(#[source] std::io::Error),
    /// No runtime to run the command on.
    #[error("cannot run `{shown}`: {source}")]
    NoRuntime {
        shown: String,
        source: std::io::Error,
    },
    /// The command could not be started or waited for.
    #[error("`{shown}` could not be run: {source}")]
    NotRun {
        shown: String,
        source: std::io::Error,
    },
    /// The command ran but told no version: `what` it did instead (timed out, failed, printed
    /// something else).
    #[error("`{shown}` {what}")]
    Said { shown: String, what: String },
}

/// `program args…`, as the warnings quote it.
fn command_line(launch: &Launch) -> String {
    std::iter::once(&launch.program)
        .chain(&launch.args)
        .map(|part| part.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Instant;

    use super::*;
    use crate::CommandAgent;

    /// An agent whose version command is the shell script `script`.
    fn sh(script: &str) -> CommandAgent {
        CommandAgent::new("/bin/sh").version_args(["-c", script])
    }

    fn runner(id: &str, agent: impl Agent + 'static) -> Runner {
        Runner {
            id: id.to_owned(),
            agent: Arc::new(agent),
            replay: None,
        }
    }

    #[test]
    fn a_command_that_prints_a_version_tells_it() {
        assert_eq!(
            ask(&sh("echo 'tool 1.2.3 (build 7)'")),
            Answer {
                version: Some("1.2.3".to_owned()),
                warning: None
            }
        );
        assert_eq!(
            ask(&CommandAgent::new("/bin/false")),
            Answer::default(),
            "without version_args the agent is not asked, and nothing is wrong"
        );
    }

    #[test]
    fn a_command_that_fails_hangs_or_tells_no_version_leaves_it_unknown_with_a_warning() {
        let warning = |agent: &CommandAgent, timeout| {
            let answer = ask_within(agent, timeout);
            assert_eq!(answer.version, None);
            answer.warning.expect("a warning")
        };
        assert_eq!(
            warning(&sh("echo usage >&2; exit 3"), TIMEOUT),
            "the agent's version is unknown: `/bin/sh -c echo usage >&2; exit 3` exited with code 3: usage"
        );
        assert_eq!(
            warning(&sh("echo 'usage: agent [--json]'"), TIMEOUT),
            "the agent's version is unknown: `/bin/sh -c echo 'usage: agent [--json]'` printed no version: usage: agent [--json]"
        );
        assert_eq!(
            warning(&sh("true"), TIMEOUT),
            "the agent's version is unknown: `/bin/sh -c true` printed nothing"
        );
        let started = Instant::now();
        assert_eq!(
            warning(&sh("sleep 30"), Duration::from_millis(300)),
            "the agent's version is unknown: `/bin/sh -c sleep 30` did not answer within 300ms"
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the hanging command was killed at the timeout"
        );
        let missing = warning(
            &CommandAgent::new("/nonexistent/agent").version_args(["--version"]),
            TIMEOUT,
        );
        assert!(
            missing.starts_with(
                "the agent's version is unknown: `/nonexistent/agent --version` could not be run: "
            ),
            "{missing}"
        );
    }

    #[test]
    fn a_run_directory_asks_each_runner_once_whoever_resolves_it() {
        let tmp = tempfile::tempdir().unwrap();
        let calls = tmp.path().join("calls");
        let counted = runner(
            "counted",
            sh(&format!("echo call >> '{}'; echo 2.0.1", calls.display())),
        );
        let failing = runner("failing", sh("exit 1"));
        let run = tmp.path().join("run");
        // Eight resolvers at once, as the processes of a nextest run start.
        let resolved: Vec<RunVersions> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..8)
                .map(|_| scope.spawn(|| RunVersions::resolve(&run, &[&counted, &failing])))
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        for versions in &resolved {
            assert_eq!(versions.agent(&counted).version.as_deref(), Some("2.0.1"));
            assert_eq!(versions.agent(&failing).version, None);
        }
        assert_eq!(
            std::fs::read_to_string(&calls).unwrap(),
            "call\n",
            "asked once"
        );
        let kept: Answer = serde_json::from_str(
            &std::fs::read_to_string(run.join(".versions/failing.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            kept.warning.as_deref(),
            Some("the agent's version is unknown: `/bin/sh -c exit 1` exited with code 1"),
            "a failure is kept too: it is not asked again"
        );
        let info = RunVersions::resolve(&run, &[&counted]).agent(&counted);
        assert_eq!(
            (info.kind.as_str(), info.version.as_deref()),
            ("command", Some("2.0.1"))
        );
        RunVersions::resolve(&tmp.path().join("another-run"), &[&counted]);
        assert_eq!(
            std::fs::read_to_string(&calls).unwrap(),
            "call\ncall\n",
            "another run asks again"
        );
    }

    #[test]
    fn a_report_takes_its_streams_version_else_the_runs() {
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path().join("run");
        let asked = runner("asked", sh("echo 2.1.330"));
        let broken = runner("broken", sh("exit 2"));
        let versions = RunVersions::resolve(&run, &[&asked, &broken]);

        let mut report = SessionReport::default();
        versions.settle(&mut report, &asked);
        assert_eq!(report.runner.agent.version.as_deref(), Some("2.1.330"));

        let mut streamed = SessionReport::default();
        streamed.runner.agent.version = Some("2.1.332".to_owned());
        versions.settle(&mut streamed, &asked);
        assert_eq!(streamed.runner.agent.version.as_deref(), Some("2.1.332"));
        assert!(
            versions.told.lock().unwrap().contains("asked"),
            "the difference was said"
        );

        let mut unknown = SessionReport::default();
        versions.settle(&mut unknown, &broken);
        assert_eq!(unknown.runner.agent.version, None);
        assert!(unknown.warnings.is_empty(), "the warning went to stderr");
        let mut streamed = SessionReport::default();
        streamed.runner.agent.version = Some("9.9".to_owned());
        versions.settle(&mut streamed, &broken);
        assert_eq!(streamed.runner.agent.version.as_deref(), Some("9.9"));
        assert!(!versions.told.lock().unwrap().contains("broken"));
    }
}
