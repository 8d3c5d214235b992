//! "Did you mean ...?" suggestions for misspelled argument names: common aliases first, then
//! the typo rule the harness uses too ([`skillgym_grammar::suggest`], a table of edits allowed
//! per length).

/// Common names people reach for, mapped to the real argument.
const ALIASES: &[(&str, &str)] = &[
    ("tag", "tags"),
    ("name", "id"),
    ("case_id", "id"),
    ("file", "prompt_file"),
    ("prompt_path", "prompt_file"),
    ("repeats", "repeat"),
    ("repetitions", "repeat"),
    ("runs", "repeat"),
    ("retry", "retry_failed"),
    ("retries", "retry_failed"),
    ("xfail", "expected_fail"),
    ("should_fail", "expected_fail"),
    ("expect_fail", "expected_fail"),
    ("timeout_ms", "timeout"),
    ("timeout_secs", "timeout"),
    ("runner", "runners"),
    ("agent", "runners"),
    ("agents", "runners"),
    ("steps", "max_steps"),
    ("dir", "workspace"),
    ("script", "mock"),
    ("mock_script", "mock"),
    ("skill", "skills"),
    ("skill_dirs", "skills"),
    ("classify", "classify_failure"),
    ("classifier", "classify_failure"),
];

/// The candidate closest to `typed`, if it is close enough to be a plausible typo.
pub(crate) fn closest<'a>(typed: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = typed.to_ascii_lowercase();
    if let Some(&(_, target)) = ALIASES.iter().find(|(alias, _)| *alias == lower)
        && let Some(&found) = candidates.iter().find(|c| **c == target)
    {
        return Some(found);
    }
    skillgym_grammar::suggest::did_you_mean(&lower, candidates.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[&str] = &[
        "prompt",
        "prompt_file",
        "tags",
        "repeat",
        "timeout",
        "runners",
    ];

    #[test]
    fn suggestions() {
        assert_eq!(closest("tagz", NAMES), Some("tags"));
        assert_eq!(closest("Tags", NAMES), Some("tags"));
        assert_eq!(closest("promt", NAMES), Some("prompt"));
        assert_eq!(closest("timout", NAMES), Some("timeout"));
        assert_eq!(closest("runner", NAMES), Some("runners"));
        assert_eq!(closest("file", NAMES), Some("prompt_file"));
        assert_eq!(closest("flavor", NAMES), None);
    }

    #[test]
    fn typos_follow_the_shared_threshold() {
        // Three letters allow two edits, as for the harness's flags and keys.
        assert_eq!(closest("tgz", NAMES), Some("tags"));
        assert_eq!(closest("tg", NAMES), None);
        assert_eq!(
            closest("tgz", NAMES),
            skillgym_grammar::suggest::did_you_mean("tgz", NAMES.iter().copied())
        );
    }
}
