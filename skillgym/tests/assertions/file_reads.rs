//! The file-reads group, on real transcripts and hand-built reports.

use skillgym::prelude::*;

use crate::common::*;
use crate::support::transcripts::load;

fn reads(paths: &[&str]) -> SessionReport {
    SessionReport::from_events(paths.iter().map(|path| SessionEvent::file_read(*path)))
}

#[test]
fn every_transcript_read_the_skill_file_once_and_nothing_else() {
    let exact_path = Regex::new(r"^/home/dev/demo/wd/SKILL\.md$").unwrap();
    for name in TRANSCRIPTS {
        let report = load(name);
        passes(&report, |e| {
            e.file_reads()
                .includes(&exact_path)
                .not_includes("README")
                .count("SKILL.md", 1)
                .exactly_one("/wd/")
                .at_least("SKILL.md", 1)
                .at_most("SKILL.md", 1)
                .size(1)
                .only(["SKILL.md"])
                .first("SKILL.md")
                .last("SKILL.md");
        });
        let failure = fails(&report, |e| {
            e.file_reads().includes("package.json");
        });
        assert_eq!(
            failure.message,
            "expected a file read matching \"package.json\"\nobserved 1 file read:\n  1. /home/dev/demo/wd/SKILL.md",
            "{name}"
        );
    }
}

#[test]
fn includes_and_not_includes() {
    let report = reads(&["/repo/README.md", "/repo/.env"]);
    passes(&report, |e| {
        e.file_reads().includes("README").not_includes("secrets");
    });
    let failure = fails(&report, |e| {
        e.file_reads().not_includes(".env");
    });
    assert_eq!(
        failure.message,
        "expected no file read matching \".env\", but 1 matched\n\
         observed 2 file reads (> marks a match):\n    1. /repo/README.md\n  > 2. /repo/.env"
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you read a file matching \".env\"?")
    );
    let failure = fails(&report, |e| {
        e.file_reads().includes("SKILL.md");
    });
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you not read a file matching \"SKILL.md\"?")
    );
}

#[test]
fn count_at_least_at_most_and_exactly_one() {
    let report = reads(&["/r/a.rs", "/r/b.rs", "/r/a.rs"]);
    passes(&report, |e| {
        e.file_reads()
            .count("a.rs", 2)
            .at_least("a.rs", 2)
            .at_most("a.rs", 2)
            .exactly_one("b.rs")
            .count("c.rs", 0);
    });
    let failure = fails(&report, |e| {
        e.file_reads().count("a.rs", 1);
    });
    assert_eq!(
        failure.message,
        "expected exactly one file read matching \"a.rs\", observed 2\n\
         observed 3 file reads (> marks a match):\n  > 1. /r/a.rs\n    2. /r/b.rs\n  > 3. /r/a.rs"
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("You read a file matching \"a.rs\" 2 times; the check expected exactly once. Why?")
    );
    let text = message(&report, |e| {
        e.file_reads().at_least(".rs", 4);
    });
    assert!(text.starts_with("expected at least 4 file reads matching \".rs\", observed 3\n"));
    let text = message(&report, |e| {
        e.file_reads().at_most("a.rs", 1);
    });
    assert!(text.starts_with("expected at most 1 file read matching \"a.rs\", observed 2\n"));
    let text = message(&report, |e| {
        e.file_reads().exactly_one("a.rs");
    });
    assert!(text.starts_with("expected exactly one file read matching \"a.rs\", observed 2\n"));
}

#[test]
fn before_compares_first_matches() {
    let report = reads(&["/s/x/SKILL.md", "/r/src/lib.rs", "/s/x/SKILL.md"]);
    passes(&report, |e| {
        e.file_reads().before("SKILL.md", "lib.rs");
    });
    let failure = fails(&report, |e| {
        e.file_reads().before("lib.rs", "SKILL.md");
    });
    assert_eq!(
        failure.message,
        "expected a file read matching \"lib.rs\" before one matching \"SKILL.md\", but the first match of \"lib.rs\" is #2, the first match of \"SKILL.md\" is #1\n\
         observed 3 file reads (> marks a first match):\n  > 1. /s/x/SKILL.md\n  > 2. /r/src/lib.rs\n    3. /s/x/SKILL.md"
    );
    let text = message(&report, |e| {
        e.file_reads().before("main.rs", "lib.rs");
    });
    assert!(
        text.contains("but no file read matched \"main.rs\""),
        "{text}"
    );
    let text = message(&report, |e| {
        e.file_reads().before("lib.rs", "main.rs");
    });
    assert!(
        text.contains("but no file read matched \"main.rs\""),
        "{text}"
    );
    let text = message(&reads(&[]), |e| {
        e.file_reads().before("a", "b");
    });
    assert!(
        text.contains("but neither matched any file read\nobserved no file reads"),
        "{text}"
    );
    // The same read cannot come before itself.
    let text = message(&report, |e| {
        e.file_reads().before("SKILL.md", "/s/");
    });
    assert!(
        text.contains("is #1, the first match of \"/s/\" is #1"),
        "{text}"
    );
}

#[test]
fn only_marks_the_reads_that_match_nothing() {
    let report = reads(&["/r/README.md", "/r/.env", "/r/src/lib.rs"]);
    passes(&report, |e| {
        e.file_reads().only(["README", "/src/", ".env"]);
    });
    passes(&reads(&[]), |e| {
        e.file_reads().only(["anything"]);
    });
    let failure = fails(&report, |e| {
        e.file_reads()
            .only([Regex::new(r"\.md$").unwrap(), Regex::new("/src/").unwrap()]);
    });
    assert_eq!(
        failure.message,
        "expected every file read to match one of [/\\.md$/, /\\/src\\//], but 1 matched none\n\
         observed 3 file reads (> marks no match):\n    1. /r/README.md\n  > 2. /r/.env\n    3. /r/src/lib.rs"
    );
}

#[test]
fn size_first_and_last() {
    let report = reads(&["/r/a", "/r/b"]);
    passes(&report, |e| {
        e.file_reads().size(2).first("/r/a").last("/r/b");
    });
    let failure = fails(&report, |e| {
        e.file_reads().size(1);
    });
    assert_eq!(
        failure.message,
        "expected 1 file read, observed 2\nobserved 2 file reads:\n  1. /r/a\n  2. /r/b"
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you read 2 files when 1 was expected?")
    );
    let failure = fails(&report, |e| {
        e.file_reads().first("/r/b");
    });
    assert_eq!(
        failure.message,
        "expected the first file read to match \"/r/b\"\n\
         observed 2 file reads (> marks the first one):\n  > 1. /r/a\n    2. /r/b"
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why was the first file you read not one matching \"/r/b\"?")
    );
    let text = message(&report, |e| {
        e.file_reads().last("/r/a");
    });
    assert!(
        text.ends_with("(> marks the last one):\n    1. /r/a\n  > 2. /r/b"),
        "{text}"
    );
    let text = message(&reads(&[]), |e| {
        e.file_reads().first("x");
    });
    assert_eq!(
        text,
        "expected the first file read to match \"x\"\nobserved no file reads"
    );
}

#[test]
fn observed_reads_are_the_fallback_without_file_read_events() {
    let mut report = SessionReport::from_events([SessionEvent::command("cat notes.txt")]);
    report.files.observed_reads = vec!["/r/notes.txt".into()];
    passes(&report, |e| {
        e.file_reads().includes("notes.txt").size(1);
    });
    // With file-read events, the events win.
    let mut report = reads(&["/r/a"]);
    report.files.observed_reads = vec!["/r/other".into()];
    passes(&report, |e| {
        e.file_reads().size(1).not_includes("other");
    });
}

#[test]
fn failures_point_at_the_check() {
    let report = reads(&[]);
    let line = line!() + 2;
    let failure = fails(&report, |e| {
        e.file_reads().includes("x");
    });
    let location = failure.location.unwrap();
    assert_eq!(location.line, line);
    assert!(
        location.file.ends_with("file_reads.rs"),
        "{}",
        location.file
    );
}
