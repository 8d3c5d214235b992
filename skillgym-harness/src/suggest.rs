//! "Did you mean" suggestions for misspelled flags, keys and values.

/// Returns the candidate closest to `input`, if it is close enough to be a plausible typo.
///
/// Comparison is case-insensitive and uses the optimal-string-alignment distance (Levenshtein
/// plus transposition of two adjacent characters). The accepted distance grows with the length
/// of `input`: 1 edit up to 2 characters, 2 up to 8, then a third of the length (3 up to 11,
/// and so on). Ties go to the candidate seen first.
pub(crate) fn did_you_mean<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let needle: Vec<char> = input.chars().flat_map(char::to_lowercase).collect();
    if needle.is_empty() {
        return None;
    }
    let threshold = match needle.len() {
        0..=2 => 1,
        3..=8 => 2,
        len => len / 3,
    };
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        let hay: Vec<char> = candidate.chars().flat_map(char::to_lowercase).collect();
        if hay.is_empty() || hay.len().abs_diff(needle.len()) > threshold {
            continue;
        }
        let distance = osa_distance(&needle, &hay);
        if distance <= threshold && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// Optimal string alignment distance (restricted Damerau-Levenshtein).
fn osa_distance(a: &[char], b: &[char]) -> usize {
    let width = b.len() + 1;
    // Three rolling rows, row i at index i % 3.
    let mut rows = vec![vec![0usize; width]; 3];
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        let (cur, prev, prev2) = (i % 3, (i + 2) % 3, (i + 1) % 3);
        rows[cur][0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut value = (rows[prev][j] + 1)
                .min(rows[cur][j - 1] + 1)
                .min(rows[prev][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                value = value.min(rows[prev2][j - 2] + 1);
            }
            rows[cur][j] = value;
        }
    }
    rows[a.len() % 3][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dist(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        osa_distance(&a, &b)
    }

    #[test]
    fn distance_basics() {
        assert_eq!(dist("", ""), 0);
        assert_eq!(dist("abc", ""), 3);
        assert_eq!(dist("", "abc"), 3);
        assert_eq!(dist("kitten", "sitting"), 3);
        assert_eq!(
            dist("tag", "tga"),
            1,
            "adjacent transposition costs one edit"
        );
        assert_eq!(dist("ca", "abc"), 3, "OSA, not unrestricted Damerau");
    }

    #[test]
    fn suggests_close_candidates() {
        let flags = ["tag", "runner", "repeat", "repeat-failure", "max-parallel"];
        assert_eq!(did_you_mean("tgs", flags), Some("tag"));
        assert_eq!(did_you_mean("tga", flags), Some("tag"));
        assert_eq!(did_you_mean("runer", flags), Some("runner"));
        assert_eq!(did_you_mean("repeat-failur", flags), Some("repeat-failure"));
        assert_eq!(did_you_mean("max_parallel", flags), Some("max-parallel"));
    }

    #[test]
    fn is_case_insensitive() {
        assert_eq!(
            did_you_mean("PARALLEL", ["serial", "parallel"]),
            Some("parallel")
        );
        assert_eq!(
            did_you_mean("MaxParalel", ["max_parallel", "maxParallel"]),
            Some("maxParallel")
        );
    }

    #[test]
    fn rejects_distant_candidates() {
        assert_eq!(did_you_mean("xyz", ["tag", "runner"]), None);
        assert_eq!(did_you_mean("verbose", ["tag", "runner", "repeat"]), None);
        assert_eq!(did_you_mean("", ["tag"]), None);
        assert_eq!(did_you_mean("tag", []), None);
    }

    #[test]
    fn threshold_scales_with_length() {
        // Very short words allow one edit only, short ones two.
        assert_eq!(did_you_mean("tg", ["tag"]), Some("tag"));
        assert_eq!(did_you_mean("t", ["tag"]), None);
        assert_eq!(did_you_mean("tgs", ["tag"]), Some("tag"));
        assert_eq!(did_you_mean("xyz", ["tag"]), None);
        // Long words allow more.
        assert_eq!(
            did_you_mean("isolatd-by-runer", ["isolated-by-runner"]),
            Some("isolated-by-runner")
        );
    }

    #[test]
    fn prefers_the_closest_then_the_first() {
        assert_eq!(
            did_you_mean("repeat", ["repeats", "repeat"]),
            Some("repeat")
        );
        assert_eq!(did_you_mean("cat", ["bat", "hat"]), Some("bat"));
    }
}
