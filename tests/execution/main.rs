//! Execution semantics through the whole harness, with the scriptable fake agent: repetitions
//! and retries, statuses and expected failures, failure origins and classes, schedules,
//! `max_steps` and timeout kills, and workspaces.
//!
//! This target is its own harness (`harness = false`). Run as a child (`EXECUTION_CHILD=1`) it
//! is a skillgym benchmark binary: the cases in `cases.rs` on three fake-agent runners `a`, `b`
//! and `c`, each case's prompt being its agent's script. Run by cargo it is the driver: each
//! check runs the child with flags, a config file and a fresh state directory, then reads what
//! the child printed and wrote. One libtest trial per behaviour.

mod cases;
mod checks;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output};

use libtest_mimic::{Arguments, Trial};
use serde_json::Value;
use skillgym_e2e::{TempDir, temp_dir};
use skillgym_harness::{CommandAgent, Harness};

const CHILD: &str = "EXECUTION_CHILD";

fn main() -> ExitCode {
    if std::env::var_os(CHILD).is_some() {
        let runner = |name: &str| {
            CommandAgent::new(env!("CARGO_BIN_EXE_fake-agent"))
                .env("FAKE_AGENT_SCRIPT", "-")
                .env("FAKE_AGENT_NAME", name)
        };
        return Harness::new()
            .runner("a", runner("a"))
            .runner("b", runner("b"))
            .runner("c", runner("c"))
            .run();
    }
    let trials = checks::all()
        .into_iter()
        .map(|(name, check)| {
            Trial::test(name, move || {
                check();
                Ok(())
            })
        })
        .collect();
    let conclusion = libtest_mimic::run(&Arguments::from_args(), trials);
    // What the runs kept in their temporary directories, those of runs never dropped included.
    let _ = std::fs::remove_dir_all(child_tmp_base());
    conclusion.exit_code()
}

/// One run of the child harness (or, for [`Run::per_process`], several at once).
pub struct Run {
    outputs: Vec<Output>,
    dir: TempDir,
}

/// How to run the child.
#[derive(Default, Clone, Copy)]
pub struct Spec<'a> {
    /// Flags and filters.
    pub args: &'a [&'a str],
    /// `skillgym.yaml` content (`{dir}` is replaced by the run's temporary directory).
    pub config: &'a str,
    /// Extra environment.
    pub env: &'a [(&'a str, &'a str)],
}

impl Run {
    /// Runs the child once, in a fresh temporary directory holding the config, the output
    /// directory (`out`, run id `run`) and the fake agents' state (`state`).
    pub fn new(label: &str, spec: Spec<'_>) -> Run {
        let dir = temp_dir(label);
        let output = run_child(dir.path(), spec, &[("SKILLGYM_RUN_ID", "run")]);
        Run {
            outputs: vec![output],
            dir,
        }
    }

    /// One child process per trial, all at once, as cargo-nextest runs them
    /// (`NEXTEST_EXECUTION_MODE=process-per-test`, one shared run id). `trials` are full trial
    /// names (`[a] cases::sched::s1`).
    pub fn per_process(label: &str, trials: &[String], spec: Spec<'_>) -> Run {
        let dir = temp_dir(label);
        let outputs = std::thread::scope(|scope| {
            let children: Vec<_> = trials
                .iter()
                .map(|trial| {
                    let dir = dir.path();
                    scope.spawn(move || {
                        let mut args = spec.args.to_vec();
                        args.extend(["--exact", trial.as_str()]);
                        let env = [
                            ("NEXTEST_EXECUTION_MODE", "process-per-test"),
                            ("NEXTEST_RUN_ID", "run"),
                        ];
                        run_child(
                            dir,
                            Spec {
                                args: &args,
                                ..spec
                            },
                            &env,
                        )
                    })
                })
                .collect();
            children.into_iter().map(|c| c.join().unwrap()).collect()
        });
        Run { outputs, dir }
    }

    /// The temporary directory (config, `out`, `state`).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The default base of the run's workspace roots: `<TMPDIR>/skillgym-<uid>`, `TMPDIR`
    /// being the child's ([`child_tmpdir`]).
    pub fn workspace_base(&self) -> PathBuf {
        // SAFETY: geteuid cannot fail and touches no memory.
        let uid = unsafe { libc::geteuid() };
        child_tmpdir(self.dir.path()).join(format!("skillgym-{uid}"))
    }

    /// `<out>/run`.
    pub fn run_dir(&self) -> PathBuf {
        self.dir.path().join("out/run")
    }

    /// A file of the fake agents' state directory.
    pub fn state(&self, name: &str) -> PathBuf {
        self.dir.path().join("state").join(name)
    }

    /// `<run>/<case>/<runner>` of `cases::<case>`.
    pub fn execution_dir(&self, case: &str, runner: &str) -> PathBuf {
        self.run_dir()
            .join(skillgym_harness::results::sanitize(&format!(
                "cases::{case}"
            )))
            .join(skillgym_harness::results::sanitize(runner))
    }

    /// The execution's `result.json`.
    pub fn execution(&self, case: &str, runner: &str) -> Value {
        read_json(&self.execution_dir(case, runner).join("result.json"))
    }

    /// `<run>/results.json`.
    pub fn results(&self) -> Value {
        read_json(&self.run_dir().join("results.json"))
    }

    /// The children's stdout.
    pub fn stdout(&self) -> String {
        self.outputs
            .iter()
            .map(|o| String::from_utf8_lossy(&o.stdout))
            .collect()
    }

    /// The children's stderr.
    pub fn stderr(&self) -> String {
        self.outputs
            .iter()
            .map(|o| String::from_utf8_lossy(&o.stderr))
            .collect()
    }

    /// The (first) child's exit code.
    pub fn code(&self) -> Option<i32> {
        self.outputs[0].status.code()
    }

    /// The trial lines of the children's reports, `[a] cases::repeat::all_pass ok`, sorted.
    pub fn trials(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .outputs
            .iter()
            .flat_map(skillgym_e2e::trial_lines)
            .collect();
        lines.sort();
        lines
    }

    /// Context for assertion messages.
    pub fn context(&self) -> String {
        self.outputs
            .iter()
            .map(|o| {
                format!(
                    "--- child stdout ---\n{}\n--- child stderr ---\n{}",
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                )
            })
            .collect()
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        drop(ChildTmp::of(self.dir.path()));
    }
}

/// Removes, when dropped, the [`child_tmpdir`] of the children run in a directory (and the
/// workspaces they kept there).
pub struct ChildTmp(PathBuf);

impl ChildTmp {
    /// The guard of the children's temporary directory for `dir`.
    pub fn of(dir: &Path) -> ChildTmp {
        ChildTmp(child_tmpdir(dir))
    }
}

impl Drop for ChildTmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The temporary directory (`TMPDIR`) of the children run in `dir`: one of their own, in this
/// process's temporary directory (outside the repository, as a user's would be), so that the
/// workspaces they keep are found and removed with the [`Run`].
pub fn child_tmpdir(dir: &Path) -> PathBuf {
    let name = dir.file_name().expect("a named directory");
    child_tmp_base().join(name)
}

/// Where this process's children get their temporary directories, removed at its end.
fn child_tmp_base() -> PathBuf {
    std::env::temp_dir().join(format!("skillgym-execution-{}", std::process::id()))
}

/// Runs the child harness once more in the directory of an earlier [`Run`] (same config,
/// output directory and agent state).
pub fn run_child_in(dir: &Path, args: &[&str], config: &str, env: &[(&str, &str)]) -> Output {
    run_child(
        dir,
        Spec {
            args,
            config,
            env: &[],
        },
        env,
    )
}

/// Runs the child harness in `dir`: config `dir/skillgym.yaml`, output `dir/out`, agent state
/// `dir/state`. `SKILLGYM_*` and `NEXTEST*` variables of this process are not passed on.
fn run_child(dir: &Path, spec: Spec<'_>, env: &[(&str, &str)]) -> Output {
    child_command(dir, spec, env)
        .output()
        .expect("the child harness runs")
}

/// The command [`run_child`] runs, to start it and control it while it runs.
pub fn child_command(dir: &Path, spec: Spec<'_>, env: &[(&str, &str)]) -> Command {
    std::fs::create_dir_all(dir.join("state")).unwrap();
    let tmpdir = child_tmpdir(dir);
    std::fs::create_dir_all(&tmpdir).unwrap();
    let config = dir.join("skillgym.yaml");
    let dir_text = dir.display().to_string();
    std::fs::write(&config, spec.config.replace("{dir}", &dir_text)).unwrap();
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--config".as_ref(), config.as_os_str()])
        .args(["--output-dir".as_ref(), dir.join("out").as_os_str()])
        .args(spec.args);
    skillgym_e2e::without_outer_runner_env(&mut command);
    command
        .env(CHILD, "1")
        .env("FAKE_AGENT_STATE_DIR", dir.join("state"))
        .env("FAKE_AGENT_PIDFILE", dir.join("state/pids"))
        .env("TMPDIR", &tmpdir)
        .envs(env.iter().copied())
        .envs(spec.env.iter().copied());
    command
}

/// Parses a JSON file, panicking with its path.
pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}
