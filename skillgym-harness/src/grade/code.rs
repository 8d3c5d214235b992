//! `code-grader` (in progress).

use super::spec::CodeGraderSpec;
use super::{GradeError, GradeInput, GraderOutcome};

/// Grades `code-grader`.
pub(crate) fn grade(
    _name: &str,
    _spec: &CodeGraderSpec,
    _input: &GradeInput<'_>,
) -> Result<GraderOutcome, GradeError> {
    Err("code-grader is not implemented yet".into())
}
