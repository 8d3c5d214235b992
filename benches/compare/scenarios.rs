//! The scenarios, each run in rounds of release, debug, TypeScript, floor, floor with
//! artifacts in turn.
//!
//! | id | what | agent script | rounds |
//! |---|---|---|---|
//! | S1 | 50 cases, serial | replay `claude-code.jsonl` | `SKILLGYM_COMPARE_RUNS` |
//! | S2 | 200 cases, parallel 2 | the same | the same |
//! | S3 | 1 case, 20 MiB transcript | replay the big transcript | the same |
//! | S4 | 50 cases, parallel 8 | sleep 200 ms, then replay | the same |
//! | S5 | one case of 1,000 (`--exact`; TS `--case`), and `--list` | replay `claude-code.jsonl` | the same |
//! | S6 | rebuild after editing one of 100 cases (the harness linked statically, and in debug also dynamically), vs 100 plain tests | – | at most 3 |
//! | FLOOD | 1 case, a 1 GiB transcript (release only; TS capped at 5 minutes) | replay the flood | 1 |

use std::collections::HashMap;
use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use crate::generate::{self, Schedule};
use crate::measure::{self, Invocation, Writes};
use crate::tsside::{self, Ts};

/// What the scenarios run on.
#[derive(Debug)]
pub(crate) struct Context {
    /// `target/skillgym-compare`.
    pub(crate) root: PathBuf,
    /// Where each run's output directory goes: a fresh one per run, left until the whole
    /// benchmark is done (deleting while measuring would make the next runs pay for it: the
    /// machine's file system is slow to create files soon after many were removed) unless it
    /// holds more than [`KEEP_LIMIT`] bytes.
    pub(crate) scratch: PathBuf,
    /// Numbers the runs' output directories.
    pub(crate) run_count: std::cell::Cell<usize>,
    /// The generated workspace.
    pub(crate) work: PathBuf,
    pub(crate) agent: PathBuf,
    pub(crate) cargo: PathBuf,
    /// Test binaries by target name.
    pub(crate) release: HashMap<String, PathBuf>,
    pub(crate) debug: HashMap<String, PathBuf>,
    pub(crate) ts: Option<Ts>,
    /// Why `ts` is `None`.
    pub(crate) ts_missing: Option<String>,
    /// The captured transcript, the 20 MiB one and the flood.
    pub(crate) small: PathBuf,
    pub(crate) big: PathBuf,
    pub(crate) flood: PathBuf,
    pub(crate) runs: usize,
}

/// One measured figure.
#[derive(Clone, Debug, Default)]
pub(crate) struct Cell {
    pub(crate) seconds: f64,
    pub(crate) rss_kb: Option<u64>,
    /// Why the run did not pass (`seconds` is its wall time anyway).
    pub(crate) failed: Option<String>,
    /// The size of `results.json`, and of every file the run left in its output directory.
    pub(crate) results_json: Option<u64>,
    pub(crate) disk: u64,
}

/// One round of a scenario; `None` where a side does not apply or cannot run.
#[derive(Clone, Debug, Default)]
pub(crate) struct Round {
    pub(crate) release: Option<Cell>,
    pub(crate) debug: Option<Cell>,
    pub(crate) ts: Option<Cell>,
    pub(crate) floor: Option<Cell>,
    /// The floor plus the least a harness writes per session ([`measure::Writes::Least`]).
    pub(crate) floor_artifacts: Option<Cell>,
    /// The floor plus the file operations of this harness's layout
    /// ([`measure::Writes::Layout`]).
    pub(crate) floor_layout: Option<Cell>,
    /// S6 only: the plain crate's debug rebuild (`floor` holds its release rebuild).
    pub(crate) floor_debug: Option<Cell>,
    /// S6 only: the debug rebuild of the same cases on `skillgym-dylib`.
    pub(crate) debug_dynamic: Option<Cell>,
}

/// A scenario's rounds.
#[derive(Debug, Default)]
pub(crate) struct Row {
    pub(crate) id: &'static str,
    pub(crate) label: String,
    pub(crate) rounds: Vec<Round>,
    /// S4: the ideal wall time, which stands for the floor in ratios.
    pub(crate) ideal: Option<f64>,
}

/// Everything measured.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    pub(crate) rows: Vec<Row>,
    /// S5's `--list` (this project only).
    pub(crate) list: Option<Row>,
    /// Size of the S3 transcript.
    pub(crate) transcript: u64,
    /// Runs that should have passed and did not.
    pub(crate) failures: usize,
}

/// A scenario of cases run by both tools.
struct Spec {
    id: &'static str,
    label: String,
    /// The `bench` test target (and TS suite) holding the cases, and how many.
    target: &'static str,
    cases: usize,
    schedule: Schedule,
    script: String,
    /// Extra arguments for this project's binary and for TypeScript (`None`: not run).
    ours: Vec<String>,
    ts: Option<Vec<String>>,
    /// Agent sessions of the floor (0: no floor).
    sessions: usize,
    /// Whether this project's debug build runs too; whether this is FLOOD.
    debug: bool,
    flood: bool,
    /// Whether the floor with the layout runs: its JSON files have the sizes written for the
    /// 8 KB session, so it stands for the scenarios that replay that session.
    layout_floor: bool,
}

impl Spec {
    fn new(
        id: &'static str,
        label: &str,
        target: &'static str,
        schedule: Schedule,
        script: String,
    ) -> Self {
        let cases = generate::TARGETS
            .iter()
            .find(|(name, _)| *name == target)
            .map_or(0, |t| t.1);
        Spec {
            id,
            label: label.to_owned(),
            target,
            schedule,
            script,
            ours: Vec::new(),
            ts: Some(Vec::new()),
            cases,
            sessions: cases,
            debug: true,
            flood: false,
            layout_floor: true,
        }
    }
}

/// The arguments the `claude-code` adapters give the agent, for the floor.
const CLAUDE_ARGS: [&str; 8] = [
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--dangerously-skip-permissions",
    "--model",
    "fake-model",
    "case 1: replay the captured Claude Code session and answer",
];

/// How long a measured run may take; FLOOD caps the TypeScript side at 5 minutes.
const CAP: Duration = Duration::from_secs(30 * 60);
const TS_FLOOD_CAP: Duration = Duration::from_secs(5 * 60);
/// Output directories larger than this (the flood's) are removed right after their run.
const KEEP_LIMIT: u64 = 512 << 20;

impl Context {
    /// Runs the scenarios `wanted` names (every one when it is empty).
    pub(crate) fn run_all(&self, wanted: &[String]) -> Outcome {
        let wants =
            |id: &str| wanted.is_empty() || wanted.iter().any(|w| w.eq_ignore_ascii_case(id));
        let replay = |path: &PathBuf| format!("replay {}", path.display());
        let (small, big) = (replay(&self.small), replay(&self.big));
        let mut outcome = Outcome {
            transcript: fs::metadata(&self.big).map_or(0, |m| m.len()),
            ..Outcome::default()
        };
        let (serial, sleepy) = (Schedule::Serial, format!("sleep 200\n{small}"));
        let mut specs = vec![
            Spec::new("S1", "50 cases, serial", "s1", serial, small.clone()),
            Spec::new(
                "S2",
                "200 cases, parallel 2",
                "s2",
                Schedule::Parallel(2),
                small.clone(),
            ),
            Spec {
                layout_floor: false,
                ..Spec::new("S3", "1 case, 20 MiB transcript", "s3", serial, big)
            },
            Spec::new(
                "S4",
                "50 cases x (sleep 200 ms, replay), parallel 8",
                "s4",
                Schedule::Parallel(8),
                sleepy,
            ),
        ];
        let trial = format!("[fake] {}", generate::case_id(1));
        let mut exact = Spec::new(
            "S5",
            "one case of 1,000 (TS: `--case`)",
            "s5",
            serial,
            small.clone(),
        );
        exact.ours = vec!["--exact".to_owned(), trial.clone()];
        exact.ts = Some(vec!["--case".to_owned(), generate::case_id(1)]);
        exact.sessions = 1;
        let mut list = Spec::new("S5 list", "`--list`, 1,000 cases", "s5", serial, small);
        (list.ours, list.ts, list.sessions) = (vec!["--list".to_owned()], None, 0);
        let mut flood = Spec::new("FLOOD", "", "s3", serial, replay(&self.flood));
        let flood_mb = fs::metadata(&self.flood).map_or(0, |m| m.len()) >> 20;
        flood.label = format!("1 case, {flood_mb} MiB transcript (release only)");
        (flood.debug, flood.flood, flood.layout_floor) = (false, true, false);
        specs.extend([exact, list]);
        for spec in specs
            .iter()
            .filter(|spec| wants(spec.id.split(' ').next().unwrap_or(spec.id)))
        {
            let mut row = self.cases(spec, &mut outcome.failures);
            if spec.id == "S5" && !self.lists(&trial) {
                outcome.failures += 1;
            }
            if spec.id == "S4" {
                row.ideal = Some(spec.sessions.div_ceil(8) as f64 * 0.2);
            }
            if spec.id == "S5 list" {
                outcome.list = Some(row);
            } else {
                outcome.rows.push(row);
            }
        }
        if wants("S6") {
            outcome.rows.push(self.s6(&mut outcome.failures));
        }
        if wants("FLOOD") {
            outcome.rows.push(self.cases(&flood, &mut outcome.failures));
        }
        outcome
    }

    /// A scenario of cases: rounds of release, debug, TypeScript, floor.
    fn cases(&self, spec: &Spec, failures: &mut usize) -> Row {
        let name = spec.id.to_ascii_lowercase().replace(' ', "-");
        let config = self.root.join(format!("ours/{name}.yaml"));
        let ours = generate::ours_config(spec.schedule, &self.agent, &spec.script, spec.flood);
        generate::write_if_changed(&config, &ours);
        let ts_config = self.root.join(format!("ts/{name}.config.mjs"));
        let ts_suite = self.root.join(format!("ts/{}.suite.mjs", spec.target));
        if spec.ts.is_some() {
            let ts = tsside::config(spec.schedule, &self.agent, &spec.script);
            generate::write_if_changed(&ts_config, &ts);
            generate::write_if_changed(&ts_suite, &tsside::suite(spec.cases));
        }
        let rounds = if spec.flood { 1 } else { self.runs };
        let mut row = Row {
            id: spec.id,
            label: spec.label.clone(),
            ..Row::default()
        };
        for round in 1..=rounds {
            eprintln!("compare: {} round {round}/{rounds}", spec.id);
            let mut ours = |profile: &str, binaries: &HashMap<String, PathBuf>| {
                let package = self.work.join("bench");
                let mut run = Invocation::new(
                    &binaries[spec.target],
                    &package,
                    self.stderr(&name, profile),
                )
                .env("CARGO_MANIFEST_DIR", &package)
                .arg("--config")
                .arg(&config)
                .arg("--output-dir")
                .arg(self.out(&name, profile));
                run.args.extend(spec.ours.iter().map(Into::into));
                self.measure(run, failures, true)
            };
            let release = ours("release", &self.release);
            let debug = spec.debug.then(|| ours("debug", &self.debug));
            let ts = self.ts.as_ref().zip(spec.ts.as_ref()).map(|(ts, args)| {
                let mut run = ts.run(
                    &ts_suite,
                    &ts_config,
                    &self.out(&name, "ts"),
                    self.stderr(&name, "ts"),
                );
                run.args.extend(args.iter().map(Into::into));
                run.cap = Some(if spec.flood { TS_FLOOD_CAP } else { CAP });
                self.measure(run, failures, !spec.flood)
            });
            let width = spec.schedule.width();
            let mut floor = |writes: Writes<'_>| {
                (spec.sessions > 0).then(|| {
                    let (script, sessions) = (&spec.script, spec.sessions);
                    self.floor(script, sessions, width, writes, failures)
                })
            };
            let bare = floor(Writes::Nothing);
            // The flood's artifacts would be a second gigabyte on disk.
            let artifacts = (!spec.flood)
                .then(|| floor(Writes::Least(&self.out(&name, "floor-artifacts"))))
                .flatten();
            let layout = spec
                .layout_floor
                .then(|| floor(Writes::Layout(&self.out(&name, "floor-layout"))))
                .flatten();
            row.rounds.push(Round {
                release: Some(release),
                debug,
                ts,
                floor: bare,
                floor_artifacts: artifacts,
                floor_layout: layout,
                ..Round::default()
            });
        }
        row
    }

    /// Whether `--list` lists the 1,000 trials, `trial` among them (checked once).
    fn lists(&self, trial: &str) -> bool {
        let output = std::process::Command::new(&self.release["s5"])
            .arg("--list")
            .arg("--config")
            .arg(self.root.join("ours/s5.yaml"))
            .output();
        let (status, listed) = match output {
            Ok(output) => (
                output.status.to_string(),
                String::from_utf8_lossy(&output.stdout).into_owned(),
            ),
            Err(e) => (e.to_string(), String::new()),
        };
        let trials = listed
            .lines()
            .filter(|line| line.ends_with(": test"))
            .count();
        let ok = trials == 1000 && listed.contains(&format!("{trial}: test"));
        if !ok {
            eprintln!(
                "compare: FAILED: `s5 --list` should list 1,000 trials, `{trial}` among them; it listed {trials} ({status})"
            );
        }
        ok
    }

    /// S6: rebuild after editing one case of 100, skillgym (`bench`; `dynamic`, on
    /// `skillgym-dylib`, in debug) against libtest (`plain`).
    fn s6(&self, failures: &mut usize) -> Row {
        let mut build = |package: &str, release: bool| {
            let profile = if release { "release" } else { "debug" };
            let stderr = self.stderr("s6", &format!("{package}-{profile}"));
            let mut run = Invocation::new(&self.cargo, &self.work, stderr)
                .args([
                    "build",
                    "--tests",
                    "-p",
                    package,
                    "--test",
                    "s6",
                    "--target-dir",
                ])
                .arg(self.work.join("target"));
            if release {
                run = run.arg("--release");
            }
            run.cap = Some(CAP);
            self.measure(run, failures, true)
        };
        eprintln!("compare: S6 warm-up builds");
        for (package, release) in [
            ("bench", false),
            ("bench", true),
            ("dynamic", false),
            ("plain", false),
            ("plain", true),
        ] {
            if build(package, release).failed.is_some() {
                return Row::default();
            }
        }
        let mut row = Row {
            id: "S6",
            label: "rebuild after editing 1 of 100 cases (floor: plain `#[test]`)".to_owned(),
            ..Row::default()
        };
        let rounds = self.runs.min(3);
        for round in 0..rounds {
            eprintln!("compare: S6 round {}/{rounds}", round + 1);
            // Round 0 moves away from what the warm-up built; every later round switches back.
            let edited = round % 2 == 0;
            let bench = generate::skillgym_target(100, edited);
            generate::write_if_changed(&self.work.join("bench/tests/s6.rs"), &bench);
            let (release, debug) = (build("bench", true), build("bench", false));
            generate::write_if_changed(&self.work.join("dynamic/tests/s6.rs"), &bench);
            let debug_dynamic = build("dynamic", false);
            let plain = generate::plain_target(100, edited);
            generate::write_if_changed(&self.work.join("plain/tests/s6.rs"), &plain);
            let (plain_release, plain_debug) = (build("plain", true), build("plain", false));
            row.rounds.push(Round {
                release: Some(release),
                debug: Some(debug),
                floor: Some(plain_release),
                floor_debug: Some(plain_debug),
                debug_dynamic: Some(debug_dynamic),
                ..Round::default()
            });
        }
        row
    }

    fn out(&self, scenario: &str, side: &str) -> PathBuf {
        let run = self.run_count.get() + 1;
        self.run_count.set(run);
        self.scratch.join(format!("{scenario}-{side}-{run}"))
    }

    fn stderr(&self, scenario: &str, side: &str) -> PathBuf {
        self.root.join(format!("logs/{scenario}-{side}.stderr"))
    }

    /// Runs one invocation in a fresh output directory (its `--output-dir`, if any) and notes
    /// what it left there (removed now only when larger than [`KEEP_LIMIT`]). A failure where a
    /// pass is `expected` is reported loudly and counted.
    fn measure(&self, run: Invocation, failures: &mut usize, expected: bool) -> Cell {
        let out = run
            .args
            .iter()
            .position(|arg| arg == "--output-dir")
            .map(|i| PathBuf::from(&run.args[i + 1]));
        if let Some(out) = &out {
            let _ = fs::remove_dir_all(out);
        }
        fs::create_dir_all(self.root.join("logs")).expect("create target/skillgym-compare/logs");
        let sample = match measure::run(&run) {
            Ok(sample) => sample,
            Err(e) => {
                *failures += 1;
                eprintln!("compare: FAILED to start: {}\n  {e}", run.display());
                return Cell {
                    failed: Some(format!("failed to start: {e}")),
                    ..Cell::default()
                };
            }
        };
        let mut cell = Cell {
            seconds: sample.wall.as_secs_f64(),
            rss_kb: Some(sample.rss_kb),
            ..Cell::default()
        };
        let failed = !sample.status.success() || sample.capped;
        let mut status = sample.status_text();
        if let Some(out) = &out {
            let results = measure::find_file(out, "results.json");
            cell.results_json = results
                .and_then(|path| fs::metadata(path).ok())
                .map(|m| m.len());
            cell.disk = measure::dir_bytes(out);
            // The TypeScript skillgym keeps a failed session's error in `error.json`.
            if let Some(error) = measure::find_file(out, "error.json").filter(|_| failed) {
                let text = fs::read_to_string(error).unwrap_or_default();
                let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
                if let (Some(name), Some(message)) =
                    (json["name"].as_str(), json["message"].as_str())
                {
                    status = format!("{status}, {name}: {message}");
                }
            }
            if cell.disk > KEEP_LIMIT {
                let _ = fs::remove_dir_all(out);
            }
        }
        if failed {
            cell.failed = Some(format!("failed ({status}) after {:.1} s", cell.seconds));
            if expected {
                *failures += 1;
                eprintln!(
                    "\ncompare: FAILED ({status}) where a pass was expected:\n  {}\n  stderr ({}):\n{}\n",
                    run.display(),
                    run.stderr.display(),
                    measure::head(&run.stderr, 20)
                );
            } else {
                eprintln!(
                    "compare: {} ended ({status}) after {:.1} s",
                    run.display(),
                    cell.seconds
                );
            }
        }
        cell
    }

    /// The fake agent alone, `sessions` times, `parallel` at once, doing what `writes` says.
    fn floor(
        &self,
        script: &str,
        sessions: usize,
        parallel: usize,
        writes: Writes<'_>,
        failures: &mut usize,
    ) -> Cell {
        let agent = &self.agent;
        match measure::floor(agent, &CLAUDE_ARGS, script, sessions, parallel, writes) {
            Ok(wall) => Cell {
                seconds: wall.as_secs_f64(),
                ..Cell::default()
            },
            Err(e) => {
                *failures += 1;
                eprintln!("compare: FAILED: the fake agent alone ({script:?}): {e}");
                Cell {
                    failed: Some(format!("failed: {e}")),
                    ..Cell::default()
                }
            }
        }
    }
}
