//! The declarative suite loader on arbitrary files: `EVAL.yaml`, a discovered `case.yaml`, a
//! `.jsonl` and a `.yaml` cases file, then the trials made of the loaded cases.
//!
//! | input file (NUL-separated) | written at |
//! |---|---|
//! | 1st | `EVAL.yaml` |
//! | 2nd | `cases/one/case.yaml` |
//! | 3rd | `cases.jsonl` |
//! | 4th | `cases.yaml` |
//!
//! Beside them, files a suite may name: `prompt.md`, `workspace/`, `skills/demo/SKILL.md`,
//! `script.yaml` (a mock script), `grader.sh`. `${{ FUZZ_VALUE }}` is set, other variables not.

use std::collections::HashSet;
use std::path::Path;

use super::scratch;
use crate::suite::declared::case_specs;
use crate::suite::yaml::{CaseDef, SuiteDef, SuiteErrors, load_suite};

/// Loads the suite `bytes` make (see the module) and turns its cases into trials; checks that
/// every error is located in a file and says something, and that loaded cases have unique,
/// printable ids, thresholds and weights in range, and files that exist. For fuzz targets;
/// not a stable API.
pub fn suite_files(bytes: &[u8]) {
    let dir = scratch::fresh("suite");
    write_suite(&dir, bytes);
    let env = |name: &str| (name == "FUZZ_VALUE").then(|| "from the environment".to_owned());
    let loaded = match load_suite(&dir, &env) {
        Ok(loaded) => loaded,
        Err(errors) => {
            check_errors(&errors, &dir);
            return;
        }
    };
    let suite = &loaded.suite;
    let mut ids = HashSet::new();
    for case in &suite.cases {
        check_case(case);
        assert!(ids.insert(case.id.as_str()), "two cases `{}`", case.id);
    }
    check_trials(suite);
}

/// Writes the four files `bytes` make into `dir`, and the files a suite may name beside them.
fn write_suite(dir: &Path, bytes: &[u8]) {
    let files = scratch::files(bytes, 4);
    let names = [
        "EVAL.yaml",
        "cases/one/case.yaml",
        "cases.jsonl",
        "cases.yaml",
    ];
    for (name, file) in names.iter().zip(&files) {
        scratch::write_some(&dir.join(name), *file);
    }
    scratch::write(&dir.join("prompt.md"), b"Say hello.\n");
    scratch::write(&dir.join("workspace/README.md"), b"# demo\n");
    scratch::write(
        &dir.join("skills/demo/SKILL.md"),
        b"---\nname: demo\ndescription: A demo skill.\n---\nDo it.\n",
    );
    scratch::write(&dir.join("script.yaml"), b"- say: hello\n");
    scratch::write(&dir.join("grader.sh"), b"echo '{\"score\": 1}'\n");
}

/// A refused suite: at least one error, each saying something about a file inside `dir`.
fn check_errors(errors: &SuiteErrors, dir: &Path) {
    assert!(!errors.errors().is_empty(), "an error list without errors");
    for error in errors.errors() {
        assert!(!error.message().is_empty(), "an empty suite error");
        let path = error.path().expect("a suite error names its file");
        assert!(path.starts_with(dir), "an error about {}", path.display());
    }
    assert!(!errors.to_string().is_empty());
}

/// A loaded case: a printable id, threshold and weights in range, files that exist.
fn check_case(case: &CaseDef) {
    assert!(!case.id.is_empty(), "a case without an id");
    assert!(
        !case.id.chars().any(char::is_control),
        "case id {:?} holds a control character (it breaks trial names)",
        case.id
    );
    assert!(
        (0.0..=1.0).contains(&case.threshold),
        "case `{}`: threshold {}",
        case.id,
        case.threshold
    );
    for grader in &case.assertions {
        assert!(
            grader.weight.is_finite() && grader.weight >= 0.0,
            "grader `{}`: weight {}",
            grader.name,
            grader.weight
        );
    }
    for path in case
        .skills
        .iter()
        .chain(&case.mock)
        .chain(&case.input_files)
    {
        assert!(
            path.exists(),
            "case `{}`: {} is missing",
            case.id,
            path.display()
        );
    }
}

/// The trials made of `suite`'s cases: one a case, unique ids, no repeated tag.
fn check_trials(suite: &SuiteDef) {
    let specs = case_specs(suite);
    assert_eq!(specs.len(), suite.cases.len(), "a trial per case");
    let mut trial_ids = HashSet::new();
    for spec in &specs {
        assert!(
            trial_ids.insert(spec.id.as_str()),
            "two trials `{}`",
            spec.id
        );
        let tags: HashSet<&String> = spec.tags.iter().collect();
        assert_eq!(
            tags.len(),
            spec.tags.len(),
            "repeated tags in `{}`",
            spec.id
        );
    }
}
