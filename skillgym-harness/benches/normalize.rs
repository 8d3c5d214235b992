//! Normalization throughput and memory: a 100 MB Claude Code stream and a 100 MB Codex stream,
//! built from the captured transcripts (unique ids per round, 2 KiB command outputs), are
//! normalized by their adapters on one thread, read from a file as the harness reads a pipe.
//!
//! Prints MB/s (best and median of 5 runs) and the peak heap during normalization against the
//! heap the finished report holds. Targets: at least 150 MB/s; peak under 2x what the report
//! keeps. `SKILLGYM_BENCH_MB` changes the stream size; `SKILLGYM_BENCH_CLAUDE_FILE` names a
//! Claude Code stream to normalize instead of the built one (the compare benchmark's S3
//! transcript, `target/skillgym-compare/claude-20MiB.jsonl`, say). Exits 1 when a target is missed.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use skillgym_harness::agent::{self, AgentOptions};
use skillgym_harness::config::AgentKind;
use skillgym_harness::normalize::normalize_stream;

/// Counts live and peak heap bytes.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            if new_size > layout.size() {
                let grown = new_size - layout.size();
                let live = LIVE.fetch_add(grown, Ordering::Relaxed) + grown;
                PEAK.fetch_max(live, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const CWD: &str = "/home/dev/demo/wd";

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/transcripts")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// A command output of about 2 KiB, JSON-escaped.
fn output_text(round: usize) -> String {
    let line =
        format!("line of output from round {round}: the quick brown fox jumps over the lazy dog");
    let mut text = String::new();
    while text.len() < 2048 {
        text.push_str(&line);
        text.push_str("\\n");
    }
    text
}

/// A Claude Code stream: the captured init, then rounds of (Bash call, its result, Read call,
/// its result) with fresh ids, then the captured final text and result.
fn claude_stream(target: usize, path: &Path) -> u64 {
    let lines: Vec<String> = fixture("claude-code.jsonl")
        .lines()
        .map(str::to_owned)
        .collect();
    let mut out = BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(out, "{}", lines[0]).unwrap();
    let mut written = lines[0].len() + 1;
    let mut round = 0;
    while written < target {
        let output = output_text(round);
        for (index, template) in lines[1..5].iter().enumerate() {
            let mut line = template
                .replace("msg_mock_", &format!("msg_{round}_"))
                .replace("toolu_mock_", &format!("toolu_{round}_"));
            if index == 1 {
                line = line
                    .replace(
                        "\"content\":\"hello\"",
                        &format!("\"content\":\"{output}\""),
                    )
                    .replace("\"stdout\":\"hello\"", &format!("\"stdout\":\"{output}\""));
            }
            writeln!(out, "{line}").unwrap();
            written += line.len() + 1;
        }
        round += 1;
    }
    for line in &lines[5..] {
        writeln!(out, "{line}").unwrap();
        written += line.len() + 1;
    }
    out.flush().unwrap();
    written as u64
}

/// A Codex stream: thread and turn start, rounds of two command executions (started and
/// completed) and an agent message with fresh item ids, then the turn's usage.
fn codex_stream(target: usize, path: &Path) -> u64 {
    let lines: Vec<String> = fixture("codex.jsonl").lines().map(str::to_owned).collect();
    let mut out = BufWriter::new(std::fs::File::create(path).unwrap());
    let mut written = 0;
    for line in &lines[..2] {
        writeln!(out, "{line}").unwrap();
        written += line.len() + 1;
    }
    let mut round = 0;
    while written < target {
        let output = output_text(round);
        for template in &lines[2..7] {
            let line = template
                .replace("\"item_0\"", &format!("\"item_{}\"", round * 3))
                .replace("\"item_1\"", &format!("\"item_{}\"", round * 3 + 1))
                .replace("\"item_2\"", &format!("\"item_{}\"", round * 3 + 2))
                .replace(
                    "\"aggregated_output\":\"hello\\n\"",
                    &format!("\"aggregated_output\":\"{output}\""),
                );
            writeln!(out, "{line}").unwrap();
            written += line.len() + 1;
        }
        round += 1;
    }
    writeln!(out, "{}", lines[7]).unwrap();
    written += lines[7].len() + 1;
    out.flush().unwrap();
    written as u64
}

struct Run {
    seconds: f64,
    peak: usize,
    kept: usize,
    events: usize,
}

fn run_once(kind: AgentKind, path: &Path) -> Run {
    let agent = agent::build(kind, AgentOptions::new("model")).unwrap();
    let mut parser = agent.parser();
    let file = std::fs::File::open(path).unwrap();
    let baseline = LIVE.load(Ordering::Relaxed);
    PEAK.store(baseline, Ordering::Relaxed);
    let started = Instant::now();
    let normalized = normalize_stream(
        &mut *parser,
        BufReader::with_capacity(64 * 1024, file),
        Path::new(CWD),
        "bench",
    )
    .unwrap();
    let seconds = started.elapsed().as_secs_f64();
    let peak = PEAK.load(Ordering::Relaxed) - baseline;
    let kept = LIVE.load(Ordering::Relaxed).saturating_sub(baseline);
    let events = normalized.report.events.len();
    // The only warning allowed is the report's event cap (`normalize::caps`): parsing still
    // reads every line.
    let unexpected: Vec<&String> = normalized
        .report
        .warnings
        .iter()
        .filter(|warning| !warning.contains("were not kept in the report"))
        .collect();
    assert!(unexpected.is_empty(), "{:?}", &unexpected[..1]);
    drop(normalized);
    Run {
        seconds,
        peak,
        kept,
        events,
    }
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    let megabytes: usize = std::env::var("SKILLGYM_BENCH_MB")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(100);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("normalize-bench");
    std::fs::create_dir_all(&dir).unwrap();
    let mut ok = true;
    for (kind, name, build) in [
        (
            AgentKind::ClaudeCode,
            "claude-code",
            claude_stream as fn(usize, &Path) -> u64,
        ),
        (AgentKind::Codex, "codex", codex_stream),
    ] {
        let given = match kind {
            AgentKind::ClaudeCode => std::env::var_os("SKILLGYM_BENCH_CLAUDE_FILE"),
            _ => None,
        };
        let (path, bytes, built) = match given {
            Some(path) => {
                let path = PathBuf::from(path);
                let bytes = std::fs::metadata(&path)
                    .unwrap_or_else(|error| panic!("{}: {error}", path.display()))
                    .len();
                (path, bytes, false)
            }
            None => {
                let path = dir.join(format!("{name}.jsonl"));
                let bytes = build(megabytes * 1_000_000, &path);
                (path, bytes, true)
            }
        };
        let mut runs: Vec<Run> = (0..5).map(|_| run_once(kind, &path)).collect();
        runs.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
        let mb = bytes as f64 / 1e6;
        let best = mb / runs[0].seconds;
        let median = mb / runs[2].seconds;
        let run = &runs[2];
        let ratio = run.peak as f64 / run.kept as f64;
        println!(
            "{name}: {mb:.1} MB stream, {} events kept: best {best:.0} MB/s, median {median:.0} MB/s; \
             peak heap {:.1} MB vs {:.1} MB kept by the report (ratio {ratio:.2}; raw stream {mb:.1} MB)",
            run.events,
            run.peak as f64 / 1e6,
            run.kept as f64 / 1e6,
        );
        if median < 150.0 || ratio >= 2.0 {
            println!("{name}: target missed (>= 150 MB/s, peak < 2x kept)");
            ok = false;
        }
        if built {
            std::fs::remove_file(&path).unwrap();
        }
    }
    if !ok {
        std::process::exit(1);
    }
}
