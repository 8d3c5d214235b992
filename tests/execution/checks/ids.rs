//! Ids that clean to one path segment (`a::b` and `a.b`, `r/x` and `r x`) still get one
//! directory each, and an id longer than a file name may be still runs.

use std::collections::BTreeSet;

use super::Check;
use crate::{Run, Spec, read_json};

pub const CHECKS: &[(&str, Check)] = &[("ids::distinct_ids_never_share_a_directory", distinct)];

fn distinct() {
    let fake = env!("CARGO_BIN_EXE_fake-agent");
    let config = format!(
        "runners:\n  \"r/x\": {{ agent: {{ type: command, command: {fake}, env: {{ FAKE_AGENT_SCRIPT: \"-\" }} }} }}\n  \"r x\": {{ agent: {{ type: command, command: {fake}, env: {{ FAKE_AGENT_SCRIPT: \"-\" }} }} }}\n"
    );
    let run = Run::new(
        "ids",
        Spec {
            args: &[
                "--schedule",
                "parallel",
                "--max-parallel",
                "6",
                "--runner",
                "r/x,r x",
                "cases::ids::",
            ],
            config: &config,
            ..Spec::default()
        },
    );
    assert_eq!(run.code(), Some(0), "{}", run.context());
    let results = run.results();
    let executions = results["executions"].as_array().unwrap();
    assert_eq!(executions.len(), 6, "{results:#}");
    let mut dirs = BTreeSet::new();
    for execution in executions {
        let dir = std::path::PathBuf::from(execution["artifact_dir"].as_str().unwrap());
        assert!(dirs.insert(dir.clone()), "{} shared", dir.display());
        // Each directory holds its own execution, not another's.
        let own = read_json(&dir.join("result.json"));
        assert_eq!(own["case_id"], execution["case_id"]);
        assert_eq!(own["runner_id"], execution["runner_id"]);
        for component in dir.strip_prefix(run.run_dir()).unwrap().components() {
            assert!(component.as_os_str().len() <= 255, "{}", dir.display());
        }
        let report = read_json(&dir.join("repeat-1/attempt-1/report.json"));
        assert_eq!(report["runner"]["id"], execution["runner_id"]);
    }
    // A Rust path keeps its readable name; the literal dot takes the hash.
    let names: BTreeSet<String> = std::fs::read_dir(run.run_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.starts_with("cases.ids.a.b"))
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.contains("cases.ids.a.b"), "{names:?}");
}
