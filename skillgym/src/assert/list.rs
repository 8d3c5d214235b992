//! The checks commands, file reads and tool calls share: an ordered list and patterns over it.

use super::check::Mismatch;
use super::render::{self, Entry, Noun};

/// A pattern over one list item (a command line, a path, a tool call).
pub(crate) trait ItemPattern<T> {
    /// Whether the item matches.
    fn is_match(&self, item: &T) -> bool;
    /// The pattern as shown in messages.
    fn describe(&self) -> String;
    /// Extra lines shown under an observed item, e.g. how a command matcher parsed it.
    fn details(&self, _item: &T) -> Vec<String> {
        Vec::new()
    }
}

/// The words a list's messages and questions use.
pub(crate) struct ListKind {
    /// What the list holds, as shown in messages: `command`, `file read`.
    pub noun: Noun,
    /// What the agent did to one item: `run`, `read`.
    pub verb: &'static str,
    /// The same in the past tense: `ran`, `read`.
    pub verb_past: &'static str,
    /// The thing acted on: `command`, `file`.
    pub object: Noun,
}

pub(crate) const COMMANDS: ListKind = ListKind {
    noun: Noun::COMMAND,
    verb: "run",
    verb_past: "ran",
    object: Noun::COMMAND,
};

pub(crate) const FILE_READS: ListKind = ListKind {
    noun: Noun::FILE_READ,
    verb: "read",
    verb_past: "read",
    object: Noun {
        one: "file",
        many: "files",
    },
};

pub(crate) const TOOL_CALLS: ListKind = ListKind {
    noun: Noun::TOOL_CALL,
    verb: "call",
    verb_past: "called",
    object: Noun {
        one: "tool",
        many: "tools",
    },
};

/// An ordered list of observed items and the checks over it.
pub(crate) struct ItemList<T> {
    pub kind: &'static ListKind,
    pub items: Vec<T>,
    /// How an item is shown in messages.
    pub show: fn(&T) -> String,
}

impl<T> ItemList<T> {
    fn matching(&self, pattern: &dyn ItemPattern<T>) -> Vec<usize> {
        (0..self.items.len())
            .filter(|&index| pattern.is_match(&self.items[index]))
            .collect()
    }

    fn first_match(&self, pattern: &dyn ItemPattern<T>) -> Option<usize> {
        self.items.iter().position(|item| pattern.is_match(item))
    }

    /// The observed list; `marked` items get a `>` meaning `mark`.
    fn observed(
        &self,
        detail: &mut String,
        details_of: &[&dyn ItemPattern<T>],
        marked: &[usize],
        mark: Option<&str>,
    ) {
        let entries: Vec<Entry> = self
            .items
            .iter()
            .enumerate()
            .map(|(index, item)| Entry {
                text: (self.show)(item),
                details: details(details_of, item),
                marked: marked.contains(&index),
            })
            .collect();
        render::observed(detail, self.kind.noun, &entries, mark);
    }

    fn fail(
        &self,
        mut detail: String,
        patterns: &[&dyn ItemPattern<T>],
        marked: &[usize],
        mark: Option<&str>,
        question: String,
    ) -> Result<(), Mismatch> {
        self.observed(&mut detail, patterns, marked, mark);
        Err(Mismatch::new(detail, question))
    }

    pub(crate) fn includes(&self, pattern: &dyn ItemPattern<T>) -> Result<(), Mismatch> {
        if self.first_match(pattern).is_some() {
            return Ok(());
        }
        let (noun, kind) = (self.kind.noun, self.kind);
        let pattern_text = pattern.describe();
        self.fail(
            format!("expected a {} matching {pattern_text}", noun.one),
            &[pattern],
            &[],
            None,
            format!(
                "Why did you not {} a {} matching {pattern_text}?",
                kind.verb, kind.object.one
            ),
        )
    }

    pub(crate) fn not_includes(&self, pattern: &dyn ItemPattern<T>) -> Result<(), Mismatch> {
        let matching = self.matching(pattern);
        if matching.is_empty() {
            return Ok(());
        }
        let pattern_text = pattern.describe();
        self.fail(
            format!(
                "expected no {} matching {pattern_text}, but {} matched",
                self.kind.noun.one,
                matching.len()
            ),
            &[pattern],
            &matching,
            Some("a match"),
            format!(
                "Why did you {} a {} matching {pattern_text}?",
                self.kind.verb, self.kind.object.one
            ),
        )
    }

    /// `count`, `at_least`, `at_most` and `exactly_one`: the number of matches against a bound.
    pub(crate) fn count(
        &self,
        pattern: &dyn ItemPattern<T>,
        bound: Bound,
        expected: usize,
    ) -> Result<(), Mismatch> {
        let matching = self.matching(pattern);
        let observed = matching.len();
        if bound.holds(observed, expected) {
            return Ok(());
        }
        let (kind, pattern_text) = (self.kind, pattern.describe());
        let wanted = match (bound, expected) {
            (Bound::Exactly, 1) => format!("exactly one {}", kind.noun.one),
            _ => format!("{} {}", bound.word(), kind.noun.count(expected)),
        };
        let question = format!(
            "You {} a {} matching {pattern_text} {}; the check expected {} {}. Why?",
            kind.verb_past,
            kind.object.one,
            times(observed),
            bound.word(),
            times(expected)
        );
        self.fail(
            format!("expected {wanted} matching {pattern_text}, observed {observed}"),
            &[pattern],
            &matching,
            Some("a match"),
            question,
        )
    }

    pub(crate) fn before(
        &self,
        earlier: &dyn ItemPattern<T>,
        later: &dyn ItemPattern<T>,
    ) -> Result<(), Mismatch> {
        let (first_earlier, first_later) = (self.first_match(earlier), self.first_match(later));
        if let (Some(a), Some(b)) = (first_earlier, first_later)
            && a < b
        {
            return Ok(());
        }
        let (kind, a_text, b_text) = (self.kind, earlier.describe(), later.describe());
        let why = match (first_earlier, first_later) {
            (None, None) => format!("neither matched any {}", kind.noun.one),
            (None, Some(_)) => format!("no {} matched {a_text}", kind.noun.one),
            (Some(_), None) => format!("no {} matched {b_text}", kind.noun.one),
            (Some(a), Some(b)) => format!(
                "the first match of {a_text} is #{}, the first match of {b_text} is #{}",
                a + 1,
                b + 1
            ),
        };
        let marked: Vec<usize> = first_earlier.into_iter().chain(first_later).collect();
        self.fail(
            format!(
                "expected a {} matching {a_text} before one matching {b_text}, but {why}",
                kind.noun.one
            ),
            &[earlier, later],
            &marked,
            Some("a first match"),
            format!(
                "Why did you not {} a {} matching {a_text} before one matching {b_text}?",
                kind.verb, kind.object.one
            ),
        )
    }

    pub(crate) fn only<P: ItemPattern<T>>(&self, patterns: &[P]) -> Result<(), Mismatch> {
        let patterns: Vec<&dyn ItemPattern<T>> = patterns
            .iter()
            .map(|pattern| pattern as &dyn ItemPattern<T>)
            .collect();
        let unmatched: Vec<usize> = (0..self.items.len())
            .filter(|&index| !patterns.iter().any(|p| p.is_match(&self.items[index])))
            .collect();
        if unmatched.is_empty() {
            return Ok(());
        }
        let allowed = render::join(patterns.iter().map(|p| p.describe()));
        let kind = self.kind;
        self.fail(
            format!(
                "expected every {} to match one of [{allowed}], but {} matched none",
                kind.noun.one,
                unmatched.len()
            ),
            &patterns,
            &unmatched,
            Some("no match"),
            format!(
                "Why did you {} a {} that matches none of [{allowed}]?",
                kind.verb, kind.object.one
            ),
        )
    }

    pub(crate) fn size(&self, expected: usize) -> Result<(), Mismatch> {
        let observed = self.items.len();
        if observed == expected {
            return Ok(());
        }
        let kind = self.kind;
        self.fail(
            format!(
                "expected {}, observed {observed}",
                kind.noun.count(expected)
            ),
            &[],
            &[],
            None,
            format!(
                "Why did you {} {} when {} {} expected?",
                kind.verb,
                kind.object.count(observed),
                expected,
                if expected == 1 { "was" } else { "were" }
            ),
        )
    }

    /// `first` (`at_end == false`) and `last`.
    pub(crate) fn edge(&self, pattern: &dyn ItemPattern<T>, at_end: bool) -> Result<(), Mismatch> {
        let item = if at_end {
            self.items.last()
        } else {
            self.items.first()
        };
        if item.is_some_and(|item| pattern.is_match(item)) {
            return Ok(());
        }
        let (kind, pattern_text) = (self.kind, pattern.describe());
        let which = if at_end { "last" } else { "first" };
        let marked: Vec<usize> = match item {
            Some(_) if at_end => vec![self.items.len() - 1],
            Some(_) => vec![0],
            None => vec![],
        };
        self.fail(
            format!(
                "expected the {which} {} to match {pattern_text}",
                kind.noun.one
            ),
            &[pattern],
            &marked,
            Some(&format!("the {which} one")),
            format!(
                "Why was the {which} {} you {} not one matching {pattern_text}?",
                kind.object.one, kind.verb_past
            ),
        )
    }
}

/// The detail lines the patterns give for one item, each once: two command matchers (`before`,
/// `only`) parse a line the same way.
fn details<T>(patterns: &[&dyn ItemPattern<T>], item: &T) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for line in patterns.iter().flat_map(|pattern| pattern.details(item)) {
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines
}

/// `once`, `3 times`.
pub(crate) fn times(n: usize) -> String {
    if n == 1 {
        "once".to_owned()
    } else {
        format!("{n} times")
    }
}

/// How a number of matches is compared with the expected number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    Exactly,
    AtLeast,
    AtMost,
}

impl Bound {
    fn holds(self, observed: usize, expected: usize) -> bool {
        match self {
            Bound::Exactly => observed == expected,
            Bound::AtLeast => observed >= expected,
            Bound::AtMost => observed <= expected,
        }
    }

    pub(crate) fn word(self) -> &'static str {
        match self {
            Bound::Exactly => "exactly",
            Bound::AtLeast => "at least",
            Bound::AtMost => "at most",
        }
    }
}
