//! "Did you mean ...?" suggestions for misspelled argument names.

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
    if let Some(&exact) = candidates.iter().find(|c| **c == lower) {
        return Some(exact);
    }
    if let Some(&(_, target)) = ALIASES.iter().find(|(alias, _)| *alias == lower)
        && let Some(&found) = candidates.iter().find(|c| **c == target)
    {
        return Some(found);
    }
    // Same threshold as rustc's own suggestions: a third of the length, at least one edit.
    let limit = (lower.chars().count().max(3)) / 3;
    candidates
        .iter()
        .map(|c| (distance(&lower, c), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Optimal string alignment distance: insertions, deletions, substitutions and transpositions
/// of adjacent characters each cost one.
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // rows[i][j] = distance between a[..i] and b[..j]
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
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
    fn distances() {
        assert_eq!(distance("tags", "tags"), 0);
        assert_eq!(distance("tagz", "tags"), 1);
        assert_eq!(distance("tgas", "tags"), 1);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

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
}
