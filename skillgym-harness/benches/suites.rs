//! Loading a declarative suite of 1,000 discovered `case.yaml` cases; prints the median.
//!
//! `cargo bench -p skillgym-harness --bench suites` (target: < 100 ms in release).

use std::time::{Duration, Instant};

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    std::fs::write(
        root.join("EVAL.yaml"),
        "name: bench\nassertions:\n  - Response is polite\n  - {type: is-json}\ntests: ./cases/\n",
    )
    .expect("write suite");
    for i in 0..1000 {
        let case = root.join(format!("cases/case-{i:04}"));
        std::fs::create_dir_all(&case).expect("case dir");
        std::fs::write(
            case.join("case.yaml"),
            format!(
                "input: Fix the null pointer in parser{i}.ts\ncriteria: Root cause fixed.\nassertions:\n  - type: code-grader\n    command: [bun, test, tests/parser.test.ts]\n  - Agent should not break existing tests\n  - {{type: execution-metrics, max_tool_calls: 20}}\n  - {{type: regex, value: 'fixed|done', flags: i}}\nmetadata: {{difficulty: medium, n: {i}}}\n"
            ),
        )
        .expect("write case");
    }
    let mut times: Vec<Duration> = Vec::new();
    for _ in 0..11 {
        let start = Instant::now();
        let cases = skillgym_harness::suite::bench_load(root);
        times.push(start.elapsed());
        assert_eq!(cases, 1000);
    }
    times.sort();
    println!(
        "load 1,000 discovered cases: median {:.1} ms (min {:.1} ms, max {:.1} ms)",
        times[times.len() / 2].as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3,
    );
}
