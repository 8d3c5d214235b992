//! The report: medians, per-round ratios, the Markdown tables and the targets.
//!
//! | part | holds |
//! |---|---|
//! | header | date, cores, node and rustc versions, rounds |
//! | main table | per scenario: wall times, floor, ratios, peak RSS |
//! | floor with artifacts | the floor beside the floor that writes the least a harness keeps |
//! | extra figures | `results.json` size, bytes on disk, RSS vs transcript, S5 and S6 details |
//! | targets | the targets, ✓ or ✗ |

use std::fmt::Write;

use crate::scenarios::{Cell, Outcome, Round, Row};

/// What the header says about the machine and the run.
#[derive(Debug)]
pub(crate) struct Header {
    pub(crate) date: String,
    pub(crate) cores: usize,
    pub(crate) node: String,
    pub(crate) rustc: String,
    pub(crate) runs: usize,
    /// Why the TypeScript column is empty, if it is.
    pub(crate) ts_missing: Option<String>,
    /// `/proc/loadavg` (1, 5, 15 minutes) before and after the scenarios.
    pub(crate) load: [String; 2],
    /// The directory the runs' output directories were in.
    pub(crate) scratch: String,
}

/// One side of a round.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Side {
    Release,
    Debug,
    Ts,
    Floor,
    FloorArtifacts,
    FloorLayout,
    FloorDebug,
    DebugDynamic,
}

impl Side {
    fn of(self, round: &Round) -> Option<&Cell> {
        match self {
            Side::Release => round.release.as_ref(),
            Side::Debug => round.debug.as_ref(),
            Side::Ts => round.ts.as_ref(),
            Side::Floor => round.floor.as_ref(),
            Side::FloorArtifacts => round.floor_artifacts.as_ref(),
            Side::FloorLayout => round.floor_layout.as_ref(),
            Side::FloorDebug => round.floor_debug.as_ref(),
            Side::DebugDynamic => round.debug_dynamic.as_ref(),
        }
    }
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(values[n / 2]),
        _ => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
    }
}

/// The passing cells of one side.
fn passed(row: &Row, side: Side) -> impl Iterator<Item = &Cell> {
    row.rounds
        .iter()
        .filter_map(move |round| side.of(round))
        .filter(|cell| cell.failed.is_none())
}

/// Median wall time of one side's passing runs.
fn seconds(row: &Row, side: Side) -> Option<f64> {
    median(passed(row, side).map(|cell| cell.seconds).collect())
}

/// Median of one side's figure over its passing runs.
fn figure(row: &Row, side: Side, of: fn(&Cell) -> Option<f64>) -> Option<f64> {
    median(passed(row, side).filter_map(of).collect())
}

/// Median of the per-round ratios `top / bottom` (S4's floor is its ideal).
fn ratio(row: &Row, top: Side, bottom: Side) -> Option<f64> {
    let ratios = row.rounds.iter().filter_map(|round| {
        let ok = |cell: Option<&Cell>| cell.filter(|c| c.failed.is_none()).map(|c| c.seconds);
        let top = ok(top.of(round))?;
        let bottom = match row.ideal {
            Some(ideal) if bottom == Side::Floor => ideal,
            _ => ok(bottom.of(round))?,
        };
        Some(top / bottom)
    });
    median(ratios.collect())
}

fn time(seconds: f64) -> String {
    if seconds < 0.01 {
        format!("{:.1} ms", seconds * 1e3)
    } else if seconds < 1.0 {
        format!("{:.0} ms", seconds * 1e3)
    } else {
        format!("{seconds:.2} s")
    }
}

fn times(value: Option<f64>) -> String {
    value.map_or("–".to_owned(), |v| format!("{v:.2}x"))
}

fn megabytes(bytes: f64) -> String {
    format!("{:.1} MB", bytes / 1e6)
}

/// A side's median wall time, or why it has none.
fn shown(row: &Row, side: Side) -> String {
    let all: Vec<&Cell> = row
        .rounds
        .iter()
        .filter_map(|round| side.of(round))
        .collect();
    let failed = all.iter().filter(|cell| cell.failed.is_some()).count();
    match (seconds(row, side), all.first()) {
        (_, None) => "–".to_owned(),
        (None, Some(first)) => first.failed.clone().unwrap_or_default(),
        (Some(s), _) if failed > 0 => format!("{} ({failed} failed)", time(s)),
        (Some(s), _) => time(s),
    }
}

/// Median peak RSS in bytes, failed runs included (how far they got).
fn rss(row: &Row, side: Side) -> Option<f64> {
    let cells = row.rounds.iter().filter_map(|round| side.of(round));
    median(
        cells
            .filter_map(|cell| cell.rss_kb)
            .map(|kb| kb as f64 * 1024.0)
            .collect(),
    )
}

/// The whole report in Markdown.
pub(crate) fn render(header: &Header, outcome: &Outcome) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# skillgym (this project) vs skillgym 0.8.1 (TypeScript)\n"
    );
    let _ = writeln!(
        out,
        "{} · {} cores · node {} · {} · load average {} before the scenarios, {} after · \
         `cargo bench -p skillgym-e2e --bench compare`\n",
        header.date, header.cores, header.node, header.rustc, header.load[0], header.load[1]
    );
    let _ = writeln!(
        out,
        "Wall time from spawn to exit, median of {runs} rounds (S6: {s6}, FLOOD: 1); each round runs \
         release, debug, TypeScript and the floor in turn, and a ratio is the median of the per-round \
         ratios. Floor: the fake agent alone, the same sessions with the same parallelism, its stdout \
         drained through a pipe; for S4 the ideal, ceil(50/8) x 200 ms. Debug: the dev profile with \
         dependencies at `opt-level = 3` with line tables only (the setting `cargo skillgym init` writes). S6's floor is the plain crate (release / debug). Each run \
         writes into a fresh output directory under `{scratch}`, removed when the benchmark \
         is done (the flood's at once).\n",
        runs = header.runs,
        s6 = header.runs.min(3),
        scratch = header.scratch,
    );
    if let Some(why) = &header.ts_missing {
        let _ = writeln!(out, "TypeScript column empty: {why}\n");
    }
    let _ = writeln!(
        out,
        "| scenario | this, release | this, debug | TypeScript 0.8.1 | floor | release/floor | TypeScript/release | TypeScript/debug | peak RSS (release / debug / TypeScript) |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|");
    for row in &outcome.rows {
        let s6 = row.rounds.iter().any(|round| round.floor_debug.is_some());
        let (floor, floor_ratio) = if s6 {
            (
                format!(
                    "{} / {}",
                    shown(row, Side::Floor),
                    shown(row, Side::FloorDebug)
                ),
                format!(
                    "{} / {}",
                    times(ratio(row, Side::Release, Side::Floor)),
                    times(ratio(row, Side::Debug, Side::FloorDebug))
                ),
            )
        } else if let Some(ideal) = row.ideal {
            (
                format!("{} ideal ({} alone)", time(ideal), shown(row, Side::Floor)),
                times(ratio(row, Side::Release, Side::Floor)),
            )
        } else {
            (
                shown(row, Side::Floor),
                times(ratio(row, Side::Release, Side::Floor)),
            )
        };
        let memory = if s6 {
            "–".to_owned()
        } else {
            [Side::Release, Side::Debug, Side::Ts]
                .map(|pick| {
                    rss(row, pick).map_or("–".to_owned(), |bytes| format!("{:.0}", bytes / 1e6))
                })
                .join(" / ")
                + " MB"
        };
        let _ = writeln!(
            out,
            "| {} {} | {} | {} | {} | {floor} | {floor_ratio} | {} | {} | {memory} |",
            row.id,
            row.label,
            shown(row, Side::Release),
            shown(row, Side::Debug),
            shown(row, Side::Ts),
            times(ratio(row, Side::Ts, Side::Release)),
            times(ratio(row, Side::Ts, Side::Debug)),
        );
    }
    with_artifacts(&mut out, outcome);
    extras(&mut out, outcome);
    targets(&mut out, outcome);
    out
}

fn find<'a>(outcome: &'a Outcome, id: &str) -> Option<&'a Row> {
    outcome.rows.iter().find(|row| row.id == id)
}

/// The floor beside the floor with the least a harness writes, where both were measured.
fn with_artifacts(out: &mut String, outcome: &Outcome) {
    let rows: Vec<&Row> = outcome
        .rows
        .iter()
        .filter(|row| passed(row, Side::FloorArtifacts).next().is_some())
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nThe floor with artifacts: each session in a directory of its own with an empty \
         workspace directory as its cwd, its stdout streamed into a file, a small result file \
         written after it, the workspace removed. It is the least a harness that keeps a \
         session's output writes, and what this file system charges for it. The floor with \
         the layout: the file operations of this harness's artifact layout and nothing else \
         (`<case>/<runner>/repeat-1/attempt-1/` with `prompt.md`, `stdout.log`, `report.json`, \
         `workspace.json` and the attempt's and the execution's `result.json`, each JSON file \
         through a temporary file and a rename, of the sizes written for the 8 KB session; a \
         workspace directory in a root of its own, removed after the session).\n\n\
         | scenario | floor | floor with artifacts | with artifacts/floor | floor with the layout | layout/floor with artifacts | this, release | release/floor with artifacts | release/floor with the layout |\n\
         |---|---|---|---|---|---|---|---|---|"
    );
    for row in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.id,
            shown(row, Side::Floor),
            shown(row, Side::FloorArtifacts),
            times(ratio(row, Side::FloorArtifacts, Side::Floor)),
            shown(row, Side::FloorLayout),
            times(ratio(row, Side::FloorLayout, Side::FloorArtifacts)),
            shown(row, Side::Release),
            times(ratio(row, Side::Release, Side::FloorArtifacts)),
            times(ratio(row, Side::Release, Side::FloorLayout)),
        );
    }
}

/// The second table: figures besides wall time.
fn extras(out: &mut String, outcome: &Outcome) {
    let _ = writeln!(
        out,
        "\n| figure | this, release | this, debug | TypeScript 0.8.1 |\n|---|---|---|---|"
    );
    let mut line = |name: &str, cells: [String; 3]| {
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} |",
            cells[0], cells[1], cells[2]
        );
    };
    let sides = [Side::Release, Side::Debug, Side::Ts];
    if let Some(row) = find(outcome, "S1") {
        line(
            "S1 `results.json`",
            sides.map(|pick| {
                figure(row, pick, |cell| cell.results_json.map(|b| b as f64))
                    .map_or("–".to_owned(), |bytes| format!("{:.0} KB", bytes / 1e3))
            }),
        );
    }
    if let Some(row) = find(outcome, "S3") {
        let transcript = outcome.transcript as f64;
        line(
            &format!(
                "S3 bytes left on disk (transcript {})",
                megabytes(transcript)
            ),
            sides.map(|pick| {
                figure(row, pick, |cell| Some(cell.disk as f64)).map_or("–".to_owned(), |bytes| {
                    format!("{} ({:.2}x)", megabytes(bytes), bytes / transcript)
                })
            }),
        );
        line(
            "S3 peak RSS / transcript",
            sides.map(|pick| {
                rss(row, pick).map_or("–".to_owned(), |bytes| {
                    format!("{:.2}x", bytes / transcript)
                })
            }),
        );
    }
    if let Some(row) = &outcome.list {
        line(
            "S5 `--list` (1,000 trials)",
            [
                shown(row, Side::Release),
                shown(row, Side::Debug),
                "–".to_owned(),
            ],
        );
    }
    if let Some(row) = find(outcome, "S5") {
        line(
            "S5 one exact trial (TypeScript: `run --case`)",
            [
                shown(row, Side::Release),
                shown(row, Side::Debug),
                shown(row, Side::Ts),
            ],
        );
    }
    if let Some(row) = find(outcome, "S6") {
        line(
            "S6 rebuild, skillgym / plain",
            [
                format!(
                    "{} / {}",
                    shown(row, Side::Release),
                    shown(row, Side::Floor)
                ),
                format!(
                    "{} / {}",
                    shown(row, Side::Debug),
                    shown(row, Side::FloorDebug)
                ),
                "–".to_owned(),
            ],
        );
        line(
            "S6 rebuild on `skillgym-dylib` / plain",
            [
                "–".to_owned(),
                format!(
                    "{} / {} ({})",
                    shown(row, Side::DebugDynamic),
                    shown(row, Side::FloorDebug),
                    times(ratio(row, Side::DebugDynamic, Side::FloorDebug))
                ),
                "–".to_owned(),
            ],
        );
    }
}

/// A target's bound on a figure.
#[derive(Debug, Clone, Copy)]
enum Bound {
    AtMost(f64),
    AtLeast(f64),
    Below(f64),
}

impl Bound {
    fn holds(self, value: f64) -> bool {
        match self {
            Bound::AtMost(bound) => value <= bound,
            Bound::AtLeast(bound) => value >= bound,
            Bound::Below(bound) => value < bound,
        }
    }
}

/// The targets (release unless stated).
fn targets(out: &mut String, outcome: &Outcome) {
    let _ = writeln!(out, "\nTargets (release unless stated):\n");
    let mut check = |name: &str, value: Option<f64>, bound: Bound, show: fn(f64) -> String| {
        let _ = match value {
            Some(v) => writeln!(
                out,
                "- {} {name}: {}",
                if bound.holds(v) { "✓" } else { "✗" },
                show(v)
            ),
            None => writeln!(out, "- – {name}: not measured"),
        };
    };
    let row = |id| find(outcome, id);
    let ratio_of = |id, top, bottom| row(id).and_then(|r| ratio(r, top, bottom));
    let transcript = outcome.transcript as f64;
    let (release, debug, ts, floor) = (Side::Release, Side::Debug, Side::Ts, Side::Floor);
    let artifacts = Side::FloorArtifacts;
    // Ratios of two sides of one scenario: (target, scenario, numerator, denominator, bound).
    let ratios = [
        (
            "S1 ≤ 1.25x the floor with artifacts",
            "S1",
            release,
            artifacts,
            Bound::AtMost(1.25),
        ),
        (
            "S2 ≤ 1.25x the floor with artifacts",
            "S2",
            release,
            artifacts,
            Bound::AtMost(1.25),
        ),
        (
            "S3 ≤ 2.5x the floor with artifacts",
            "S3",
            release,
            artifacts,
            Bound::AtMost(2.5),
        ),
        (
            "S1 TypeScript/release ≥ 4x",
            "S1",
            ts,
            release,
            Bound::AtLeast(4.0),
        ),
        (
            "S2 TypeScript/release ≥ 5x",
            "S2",
            ts,
            release,
            Bound::AtLeast(5.0),
        ),
        (
            "S3 TypeScript/release ≥ 8x",
            "S3",
            ts,
            release,
            Bound::AtLeast(8.0),
        ),
        (
            "S3 TypeScript/debug ≥ 4x",
            "S3",
            ts,
            debug,
            Bound::AtLeast(4.0),
        ),
    ];
    for (name, id, top, bottom, bound) in ratios {
        check(name, ratio_of(id, top, bottom), bound, x);
    }
    let rss_ratio = row("S3")
        .and_then(|r| rss(r, release))
        .map(|bytes| bytes / transcript);
    check(
        "S3 peak RSS ≤ 1.5x the transcript",
        rss_ratio,
        Bound::AtMost(1.5),
        x,
    );
    check(
        "S4 ≤ 1.05x the ideal",
        ratio_of("S4", release, floor),
        Bound::AtMost(1.05),
        x,
    );
    let exact = row("S5").and_then(|r| seconds(r, release));
    check(
        "S5 one exact trial < 10 ms",
        exact,
        Bound::Below(0.01),
        time,
    );
    let rebuilds = [
        ("S6 debug rebuild ≤ 1.5x plain", debug),
        (
            "S6 debug rebuild ≤ 1.5x plain, the harness linked dynamically (`skillgym-dylib`)",
            Side::DebugDynamic,
        ),
    ];
    for (name, side) in rebuilds {
        check(
            name,
            ratio_of("S6", side, Side::FloorDebug),
            Bound::AtMost(1.5),
            x,
        );
    }
    let results = row("S1").and_then(|r| figure(r, release, |c| c.results_json.map(|b| b as f64)));
    check(
        "S1 `results.json` < 100 KB",
        results,
        Bound::Below(100e3),
        |v| format!("{:.0} KB", v / 1e3),
    );
    let disk = row("S3").and_then(|r| figure(r, release, |c| Some(c.disk as f64)));
    check(
        "S3 bytes on disk < 1.3x the transcript",
        disk.map(|bytes| bytes / transcript),
        Bound::Below(1.3),
        x,
    );
}

fn x(value: f64) -> String {
    format!("{value:.2}x")
}
