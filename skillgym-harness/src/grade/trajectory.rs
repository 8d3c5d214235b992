//! `tool-trajectory` (in progress).

use skillgym::SessionReport;

use super::spec::TrajectorySpec;
use super::{GradeError, GraderOutcome};

/// Grades `tool-trajectory`.
pub(crate) fn grade(
    _spec: &TrajectorySpec,
    _report: &SessionReport,
) -> Result<GraderOutcome, GradeError> {
    Err("tool-trajectory is not implemented yet".into())
}
