//! What graders read back, on arbitrary text: a code grader's stdout and stderr with any exit
//! status, and a judge's answer to a rubric, through the graders (negated or not) and the
//! case's score.
//!
//! | input | what it is |
//! |---|---|
//! | first byte | the code grader's exit: a code below 128, else a signal; bit 0 negates the graders, bits 1–3 pick the case's threshold |
//! | 1st file (NUL-separated) | the code grader's stdout, also the agent's final output |
//! | 2nd | its stderr |
//! | 3rd | the judge's answer |

use std::os::unix::process::ExitStatusExt as _;
use std::path::Path;
use std::process::ExitStatus;
use std::time::Duration;

use skillgym::SessionReport;

use super::scratch;
use crate::grade::code::interpret;
use crate::grade::judge::AskError;
use crate::grade::score::score_case;
use crate::grade::spec::{GraderKind, GraderSpec, RubricItem};
use crate::grade::{GradeInput, GraderOutcome, Judge, Verdict, grade, judge};
use crate::oneshot::Ran;

/// A judge that answers every prompt with the same text.
#[derive(Debug)]
struct Answering<'a>(&'a str);

impl Judge for Answering<'_> {
    fn ask(&self, _grader: &str, prompt: &str) -> Result<String, AskError> {
        assert!(!prompt.is_empty(), "an empty judge prompt");
        Ok(self.0.to_owned())
    }
}

/// Reads the code grader's output and the judge's answer `bytes` make (see the module), grades
/// with them and scores the case; checks that every score is in 0..=1, that verdicts follow
/// the scores, and that the case passes exactly when its score reaches the threshold. For fuzz
/// targets; not a stable API.
pub fn grader_output(bytes: &[u8]) {
    let Some((&pick, rest)) = bytes.split_first() else {
        return;
    };
    let [stdout, stderr, answer] = scratch::files(rest, 3)[..] else {
        unreachable!("three files")
    };
    let status = if pick < 128 {
        ExitStatus::from_raw(i32::from(pick) << 8)
    } else {
        ExitStatus::from_raw(i32::from(pick & 0x1f) + 1)
    };
    let ran = Ran {
        status,
        stdout: stdout.unwrap_or_default().to_vec(),
        stderr: stderr.unwrap_or_default().to_vec(),
        timed_out: false,
    };
    let code = match interpret(&ran) {
        Ok(outcome) => {
            check_outcome(&outcome);
            outcome
        }
        Err(error) => {
            assert!(!error.to_string().is_empty(), "an empty code grader error");
            GraderOutcome::error("code", &error.into())
        }
    };
    let items = rubric();
    let answer = String::from_utf8_lossy(answer.unwrap_or_default());
    match judge::read_answer(&answer, &items) {
        Ok(outcome) => {
            check_outcome(&outcome);
            assert_eq!(outcome.checks.len(), items.len(), "a check per rubric item");
        }
        Err(error) => assert!(!error.to_string().is_empty(), "an empty judge error"),
    }
    let output = String::from_utf8_lossy(stdout.unwrap_or_default());
    let report = SessionReport::default();
    let judge = Answering(&answer);
    let input = GradeInput {
        output: &output,
        judge: Some(&judge),
        ..GradeInput::new(&report, Path::new("/fuzz/case"), Duration::from_secs(1))
    };
    let negate = pick & 1 == 1;
    let specs = [
        spec("rubric", 2.0, negate, GraderKind::Rubrics { items }),
        spec("json", 1.0, negate, GraderKind::IsJson),
        spec(
            "contains",
            0.5,
            !negate,
            GraderKind::Contains {
                value: "ok".to_owned(),
                ignore_case: true,
            },
        ),
    ];
    let mut graded = vec![(spec("code", 1.0, false, GraderKind::IsJson), code)];
    for spec in specs {
        let outcome = grade(&spec, &input);
        check_outcome(&outcome);
        graded.push((spec, outcome));
    }
    let threshold = f64::from((pick >> 1) & 7) / 7.0;
    let score = score_case(graded.iter().map(|(s, o)| (s, o)), Some(threshold));
    assert!(
        (0.0..=1.0).contains(&score.score),
        "case score {}",
        score.score
    );
    assert_eq!(
        score.passed,
        score.score >= threshold,
        "the verdict follows the score"
    );
    assert!(!score.message().is_empty());
}

/// A grader named `name`.
fn spec(name: &str, weight: f64, negate: bool, kind: GraderKind) -> GraderSpec {
    GraderSpec {
        name: name.to_owned(),
        weight,
        required: name == "rubric",
        min_score: None,
        negate,
        kind,
    }
}

/// The checklist the judge answers.
fn rubric() -> Vec<RubricItem> {
    let item = |id: &str, weight: f64, required: bool| RubricItem {
        weight,
        required,
        ..RubricItem::checklist(id, format!("the answer is {id}"))
    };
    vec![
        item("correct", 2.0, true),
        item("brief", 1.0, false),
        item("kind", 0.0, false),
    ]
}

/// A grader's outcome: its score in 0..=1, a verdict that follows it.
fn check_outcome(outcome: &GraderOutcome) {
    assert!(
        (0.0..=1.0).contains(&outcome.score),
        "a score of {}",
        outcome.score
    );
    if outcome.verdict == Verdict::Pass {
        assert!(outcome.score > 0.0, "a pass scored 0");
    }
}
