//! The reporters' output checked for well-formedness, whatever the report holds: what the
//! fuzz entry points that make a [`RunReport`] (loaded from files, or built from arbitrary
//! text) run on it.
//!
//! | output | checked |
//! |---|---|
//! | console summary | no line a GitHub workflow command (`::` after leading blanks); no control character but line feed and tab |
//! | `report.html` | every tag one the page is made of, with only its attributes, quoted; `href` only to the page's own anchors; every `&` an entity |
//! | `junit.xml` | XML 1.0 characters only; tags balanced; attributes quoted without `<`; every `&` an entity |
//! | github-actions annotations | one `::error`/`::warning` line per execution that did not pass (no message breaks its line) |
//! | `json` summary | serializes, and reads back as JSON |

use crate::report::{RunReport, console, github_actions, html, json, junit, summary_text};

/// The tags `report.html` is made of.
const HTML_TAGS: &[&str] = &[
    "a", "body", "br", "button", "code", "dd", "details", "div", "dl", "dt", "h1", "h2", "h3",
    "h4", "head", "header", "html", "i", "input", "label", "li", "main", "meta", "noscript", "ol",
    "option", "p", "pre", "script", "section", "select", "span", "strong", "style", "summary",
    "table", "tbody", "td", "th", "thead", "title", "tr", "ul",
];

/// The attributes its tags carry.
const HTML_ATTRIBUTES: &[&str] = &[
    "aria-label",
    "charset",
    "class",
    "content",
    "data-into",
    "data-more",
    "data-page",
    "href",
    "http-equiv",
    "id",
    "lang",
    "name",
    "open",
    "placeholder",
    "role",
    "scope",
    "type",
    "value",
];

/// Renders `report` with every reporter and checks each output (see the module).
pub(super) fn check(report: &RunReport) {
    let summary = summary_text(report);
    let _ = console::summary(report);
    check_console(&summary);
    check_html(&html::render(report));
    check_junit(&junit::xml(report));
    let annotations = github_actions::annotations(report);
    let failing = report.executions.iter().filter(|e| !e.passed).count();
    assert_eq!(
        annotations.lines().count(),
        failing,
        "one annotation line per execution that did not pass:\n{annotations}"
    );
    for line in annotations.lines() {
        assert!(
            line.starts_with("::error ") || line.starts_with("::warning "),
            "not an annotation: {line:?}"
        );
    }
    let summary = serde_json::to_string(&json::summary(report)).expect("the summary serializes");
    serde_json::from_str::<serde_json::Value>(&summary).expect("the summary reads back");
}

/// Console text: nothing a terminal or a CI runner would act on.
pub(super) fn check_console(text: &str) {
    for line in text.lines() {
        assert!(
            !line.trim_start().starts_with("::"),
            "a console line reads as a workflow command: {line:?}"
        );
        assert!(
            !line.chars().any(|c| c.is_control() && c != '\t'),
            "a console line holds a control character: {line:?}"
        );
    }
}

/// `report.html`: only the page's own tags and attributes, and entities.
pub(super) fn check_html(page: &str) {
    let mut rest = page
        .strip_prefix("<!DOCTYPE html>")
        .or_else(|| page.strip_prefix("<!doctype html>"))
        .unwrap_or(page);
    while let Some(start) = rest.find(['<', '&']) {
        let (text, tail) = rest.split_at(start);
        assert!(!text.contains('>'), "a stray `>` in the page: {text:?}");
        if tail.starts_with('&') {
            rest = &tail[entity(tail)..];
            continue;
        }
        let end = tail.find('>').expect("a tag is closed");
        let tag = &tail[1..end];
        let (name, attributes) = tag.split_once(' ').unwrap_or((tag, ""));
        let name = name.strip_prefix('/').unwrap_or(name);
        assert!(
            HTML_TAGS.contains(&name),
            "a `<{name}>` in the page: {tag:?}"
        );
        for (attribute, value) in attributes_of(attributes) {
            assert!(
                HTML_ATTRIBUTES.contains(&attribute),
                "an attribute `{attribute}` in the page: {tag:?}"
            );
            if attribute == "href" {
                assert!(value.starts_with('#'), "a link out of the page: {tag:?}");
            }
            let mut value = value;
            while let Some(at) = value.find('&') {
                value = &value[at + entity(&value[at..])..];
            }
        }
        rest = &tail[end + 1..];
        if name == "style" && !tag.starts_with('/') {
            let close = rest.find("</style>").expect("the style element ends");
            rest = &rest[close..];
        }
        // A script's text (the list's data, an execution's details kept as inert text, the
        // list's code) ends at the first `</script`: nothing in it may close it early or open a
        // comment that would hide the close.
        if name == "script" && !tag.starts_with('/') {
            let close = rest.find("</script>").expect("the script element ends");
            let body = &rest[..close];
            assert!(
                !body.to_ascii_lowercase().contains("</script") && !body.contains("<!--"),
                "a script element that can end early: {body:?}"
            );
            rest = &rest[close..];
        }
    }
    assert!(!rest.contains('>'), "a stray `>` in the page");
}

/// `junit.xml`: XML 1.0 characters, balanced tags, quoted attributes, entities.
pub(super) fn check_junit(document: &str) {
    if let Some(bad) = document.chars().find(|&c| !xml_char(c)) {
        panic!("junit.xml holds {bad:?}, which XML 1.0 forbids");
    }
    let body = document
        .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .expect("the XML declaration");
    let mut open: Vec<&str> = Vec::new();
    let mut rest = body;
    while let Some(start) = rest.find(['<', '&']) {
        let (text, tail) = rest.split_at(start);
        assert!(!text.contains('>'), "a stray `>` in junit.xml: {text:?}");
        if tail.starts_with('&') {
            rest = &tail[entity(tail)..];
            continue;
        }
        let end = tail.find('>').expect("a tag is closed");
        let tag = &tail[1..end];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                open.pop(),
                Some(name),
                "an unbalanced `</{name}>` in junit.xml"
            );
        } else {
            let (inner, empty) = match tag.strip_suffix('/') {
                Some(inner) => (inner, true),
                None => (tag, false),
            };
            let (name, attributes) = inner.split_once(' ').unwrap_or((inner, ""));
            assert!(
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
                "a bad element name in junit.xml: {tag:?}"
            );
            for (_, value) in attributes_of(attributes.trim_end()) {
                assert!(!value.contains('<'), "a `<` in an attribute: {tag:?}");
                let mut value = value;
                while let Some(at) = value.find('&') {
                    value = &value[at + entity(&value[at..])..];
                }
            }
            if !empty {
                open.push(name);
            }
        }
        rest = &tail[end + 1..];
    }
    assert!(open.is_empty(), "unclosed elements in junit.xml: {open:?}");
    assert!(!rest.contains('>'), "a stray `>` in junit.xml");
}

/// The length of the entity `text` starts with (`&amp;`, `&#10;`, `&#x9B;`, ...); panics if it
/// is none.
fn entity(text: &str) -> usize {
    let end = text.find(';').filter(|&end| end <= 10);
    let name = end.map(|end| &text[1..end]);
    let known = match name {
        Some("amp" | "lt" | "gt" | "quot" | "apos" | "#39") => true,
        Some(name) => match name.strip_prefix("#x") {
            Some(hex) => !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()),
            None => name.strip_prefix('#').is_some_and(|digits| {
                !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
            }),
        },
        None => false,
    };
    assert!(known, "a bare `&`: {:?}", &text[..text.len().min(12)]);
    end.map_or(1, |end| end + 1)
}

/// `name="value"` pairs (and bare `name`s, valued `""`) of a tag, in order; panics on anything
/// else.
fn attributes_of(mut text: &str) -> Vec<(&str, &str)> {
    let mut found = Vec::new();
    loop {
        text = text.trim_start();
        if text.is_empty() {
            return found;
        }
        let bare = text
            .find([' ', '='])
            .is_none_or(|at| text.as_bytes()[at] == b' ');
        if bare {
            // A boolean attribute (`<details open>`).
            let (name, rest) = text.split_once(' ').unwrap_or((text, ""));
            assert!(
                name.chars().all(|c| c.is_ascii_alphanumeric()),
                "an attribute {name:?}"
            );
            found.push((name, ""));
            text = rest;
            continue;
        }
        let (name, rest) = text.split_once("=\"").unwrap_or_else(|| {
            panic!("an attribute that is not name=\"value\": {text:?}");
        });
        assert!(
            name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
            "an attribute name {name:?}"
        );
        let (value, rest) = rest
            .split_once('"')
            .unwrap_or_else(|| panic!("an unquoted attribute value: {text:?}"));
        assert!(
            !value.contains('<'),
            "a `<` in an attribute value: {value:?}"
        );
        found.push((name, value));
        text = rest;
    }
}

/// Whether XML 1.0 allows `c` in a document.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}')
        || c >= '\u{10000}'
}
