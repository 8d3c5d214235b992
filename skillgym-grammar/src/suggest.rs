//! "Did you mean ...?" for a misspelled flag, key, value or macro argument.
//!
//! | typed length (chars) | edits allowed |
//! |---|---|
//! | 1-2 | 1 |
//! | 3-8 | 2 |
//! | 9 and more | a third of the length (3 up to 11, 4 up to 14, ...) |
//!
//! An edit is an insertion, deletion, substitution or swap of two adjacent characters (optimal
//! string alignment distance), compared case-insensitively. The closest candidate wins; ties go
//! to the candidate listed first. Empty input suggests nothing.

/// The most edits a typed word of `len` characters may be from a suggestion.
pub fn threshold(len: usize) -> usize {
    match len {
        0..=2 => 1,
        3..=8 => 2,
        len => len / 3,
    }
}

/// Returns the candidate closest to `input`, if it is close enough to be a plausible typo
/// (see the [module docs](self)).
pub fn did_you_mean<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let needle = lowercase(input);
    if needle.is_empty() {
        return None;
    }
    let limit = threshold(needle.len());
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        let hay = lowercase(candidate);
        if hay.is_empty() || hay.len().abs_diff(needle.len()) > limit {
            continue;
        }
        let distance = osa_distance(&needle, &hay);
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// The optimal string alignment distance between `a` and `b` (case-sensitive).
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    osa_distance(&a, &b)
}

fn lowercase(text: &str) -> Vec<char> {
    text.chars().flat_map(char::to_lowercase).collect()
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

    #[test]
    fn distance_basics() {
        assert_eq!(distance("", ""), 0);
        assert_eq!(distance("abc", ""), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("tags", "tags"), 0);
        assert_eq!(distance("tagz", "tags"), 1);
        assert_eq!(distance("tgas", "tags"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(
            distance("tag", "tga"),
            1,
            "adjacent transposition costs one edit"
        );
        assert_eq!(distance("ca", "abc"), 3, "OSA, not unrestricted Damerau");
    }

    #[test]
    fn the_threshold_table() {
        let table = [
            (1, 1),
            (2, 1),
            (3, 2),
            (8, 2),
            (9, 3),
            (11, 3),
            (12, 4),
            (15, 5),
        ];
        for (len, edits) in table {
            assert_eq!(threshold(len), edits, "length {len}");
        }
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
        assert_eq!(did_you_mean("isoltd-by-rnr", ["isolated-by-runner"]), None);
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
