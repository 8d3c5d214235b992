//! The tool-calls group and `ToolMatcher`: every check passing and failing, on transcript
//! reports (tool names differ per agent) and hand-built reports.

use serde_json::{Value, json};
use skillgym::assert::{Expect, ToolMatcher};
use skillgym::{Regex, SessionEvent, SessionReport};

use crate::common::*;
use crate::support::transcripts::load;

/// Every transcript with its shell tool and the tool it read `SKILL.md` with.
const TRANSCRIPTS: [(&str, &str, &str); 7] = [
    ("claude-code", "Bash", "Read"),
    ("claude-code-2.1.197", "Bash", "Read"),
    ("codex", "command_execution", "command_execution"),
    ("opencode", "bash", "read"),
    ("copilot", "bash", "view"),
    ("gemini-cli", "run_shell_command", "read_file"),
    ("qwen-code", "run_shell_command", "read_file"),
];

/// A check run against a report, for tables of checks.
type CheckFn = Box<dyn for<'a> Fn(Expect<'a>)>;

/// The shell tool of every agent.
const SHELL: &str = "(?i)^(bash|run_shell_command|command_execution)$";

/// The Claude Code transcript's calls as failure messages list them.
const CLAUDE_CALLS: &str = r#"  1. Bash {"command":"echo hello","description":"Print hello"}
  2. Read {"file_path":"/home/dev/demo/wd/SKILL.md"}"#;

fn transcripts() -> impl Iterator<Item = (&'static str, &'static str, &'static str, SessionReport)>
{
    TRANSCRIPTS
        .into_iter()
        .map(|(name, shell, read)| (name, shell, read, load(name)))
}

/// The `echo hello` call, whatever the agent calls its shell tool.
fn echo() -> ToolMatcher<'static> {
    ToolMatcher::new(Regex::new(SHELL).unwrap()).arg("command", "echo hello")
}

/// The call that read `SKILL.md`, whatever the tool.
fn skill_read() -> ToolMatcher<'static> {
    ToolMatcher::any()
        .args(|args| args.to_string().contains("SKILL.md"))
        .label("the SKILL.md read")
}

/// Six tool calls (and a command event, which is not a tool call).
fn session() -> SessionReport {
    SessionReport::from_events([
        SessionEvent::tool_call("Skill", json!({"skill": "find-skills"})),
        SessionEvent::command("npx skills find expo"),
        SessionEvent::tool_call(
            "Bash",
            json!({"command": "npx skills find expo", "run_in_background": false, "timeout": 120000}),
        ),
        SessionEvent::tool_call("Read", json!({"file_path": "/repo/README.md", "limit": 10})),
        SessionEvent::tool_call(
            "Edit",
            json!({"edits": [{"line": 3, "path": "src/lib.rs"}], "file_path": "/repo/src/lib.rs"}),
        ),
        SessionEvent::tool_call("TodoWrite", Value::Null),
        SessionEvent::tool_call("Bash", json!({"command": "npm test"})),
    ])
}

/// `session()`'s calls as failure messages list them, without marks.
const SESSION_CALLS: [&str; 6] = [
    r#"Skill {"skill":"find-skills"}"#,
    r#"Bash {"command":"npx skills find expo","run_in_background":false,"timeout":120000}"#,
    r#"Read {"file_path":"/repo/README.md","limit":10}"#,
    r#"Edit {"edits":[{"line":3,"path":"src/lib.rs"}],"file_path":"/repo/src/lib.rs"}"#,
    "TodoWrite",
    r#"Bash {"command":"npm test"}"#,
];

/// `session()`'s calls listed with the 1-based numbers in `marked` marked.
/// The observed list of `session()`, with the 1-based `marked` calls marked (no marker
/// column when none is).
fn session_listing(marked: &[usize]) -> String {
    SESSION_CALLS
        .iter()
        .enumerate()
        .map(
            |(index, call)| match (marked.is_empty(), marked.contains(&(index + 1))) {
                (true, _) => format!("  {}. {call}", index + 1),
                (false, true) => format!("  > {}. {call}", index + 1),
                (false, false) => format!("    {}. {call}", index + 1),
            },
        )
        .collect::<Vec<_>>()
        .join("\n")
}

// ---------------------------------------------------------------------------------------------
// has, tool names

#[test]
fn has_passes_for_the_calls_of_every_transcript() {
    for (name, shell, read, report) in transcripts() {
        let failures = failures(&report, |e| {
            e.tool_calls()
                .has(shell)
                .has(read)
                .has(echo())
                .has(skill_read())
                .has(ToolMatcher::any());
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
}

#[test]
fn a_regex_name_matches_the_shell_call_of_every_transcript() {
    let shell = Regex::new(SHELL).unwrap();
    for (name, _, _, report) in transcripts() {
        let failures = failures(&report, |e| {
            e.tool_calls().has(shell.clone()).count(echo(), 1);
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
}

#[test]
fn a_name_is_compared_exactly_not_as_a_substring() {
    let report = load("claude-code");
    for name in ["Bas", "ash", "bash", "BASH", "Bash ", " Bash", ""] {
        let failures = failures(&report, |e| {
            e.tool_calls().has(name);
        });
        assert_eq!(failures.len(), 1, "{name:?} must not match Bash");
    }
    passes(&report, |e| {
        e.tool_calls().has("Bash").has(String::from("Read"));
    });
    // A regex searches the name unless anchored.
    passes(&report, |e| {
        e.tool_calls()
            .has(Regex::new("Bas").unwrap())
            .not_has(Regex::new("^Bas$").unwrap());
    });
}

#[test]
fn has_fails_listing_every_call() {
    let failure = fails(&load("claude-code"), |e| {
        e.tool_calls().has("Write");
    });
    assert_eq!(
        failure.message,
        format!("expected a tool call matching \"Write\"\nobserved 2 tool calls:\n{CLAUDE_CALLS}")
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you not call a tool matching \"Write\"?")
    );
}

#[test]
fn has_fails_for_another_agents_tool_name_on_every_transcript() {
    for (name, shell, _, report) in transcripts() {
        let other = if shell == "Bash" { "bash" } else { "Bash" };
        let msg = message(&report, |e| {
            e.tool_calls().has(other);
        });
        assert!(
            msg.starts_with(&format!(
                "expected a tool call matching {other:?}\nobserved 2 tool calls:\n  1. {shell} {{"
            )),
            "{name}: {msg}"
        );
    }
}

#[test]
fn has_fails_on_a_report_without_tool_calls() {
    let report = SessionReport::from_events([
        SessionEvent::command("ls"),
        SessionEvent::file_read("/repo/README.md"),
        SessionEvent::assistant("done"),
    ]);
    let msg = message(&report, |e| {
        e.tool_calls().has(ToolMatcher::any());
    });
    assert_eq!(
        msg,
        "expected a tool call matching any tool\nobserved no tool calls"
    );
}

// ---------------------------------------------------------------------------------------------
// not_has

#[test]
fn not_has_passes_for_tools_not_called() {
    let shell = Regex::new(SHELL).unwrap();
    for (name, _, _, report) in transcripts() {
        let failures = failures(&report, |e| {
            e.tool_calls()
                .not_has("Write")
                .not_has("Skill")
                .not_has(ToolMatcher::new(shell.clone()).arg("command", "rm -rf"));
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
}

#[test]
fn not_has_fails_marking_the_matches() {
    let failure = fails(&load("claude-code"), |e| {
        e.tool_calls().not_has("Bash");
    });
    assert_eq!(
        failure.message,
        r#"expected no tool call matching "Bash", but 1 matched
observed 2 tool calls (> marks a match):
  > 1. Bash {"command":"echo hello","description":"Print hello"}
    2. Read {"file_path":"/home/dev/demo/wd/SKILL.md"}"#
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you call a tool matching \"Bash\"?")
    );
}

#[test]
fn not_has_fails_for_the_shell_call_of_every_transcript() {
    for (name, _, _, report) in transcripts() {
        let msg = message(&report, |e| {
            e.tool_calls().not_has(echo());
        });
        assert!(
            msg.starts_with(
                "expected no tool call matching \
                 /(?i)^(bash|run_shell_command|command_execution)$/ with command matching \
                 \"echo hello\", but 1 matched\nobserved 2 tool calls (> marks a match):\n  > 1. "
            ),
            "{name}: {msg}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// count, at_least, at_most

#[test]
fn counts_pass_on_every_transcript() {
    for (name, shell, _, report) in transcripts() {
        let shell_calls = if name == "codex" { 2 } else { 1 };
        let failures = failures(&report, |e| {
            e.tool_calls()
                .count(ToolMatcher::any(), 2)
                .count(shell, shell_calls)
                .count(echo(), 1)
                .count(skill_read(), 1)
                .count("Write", 0)
                .at_least(ToolMatcher::any(), 2)
                .at_least(echo(), 0)
                .at_most(ToolMatcher::any(), 2)
                .at_most("Write", 0);
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
}

#[test]
fn count_fails_with_another_number() {
    let failure = fails(&load("claude-code"), |e| {
        e.tool_calls().count("Bash", 2);
    });
    assert_eq!(
        failure.message,
        r#"expected exactly 2 tool calls matching "Bash", observed 1
observed 2 tool calls (> marks a match):
  > 1. Bash {"command":"echo hello","description":"Print hello"}
    2. Read {"file_path":"/home/dev/demo/wd/SKILL.md"}"#
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("You called a tool matching \"Bash\" once; the check expected exactly 2 times. Why?")
    );
    let msg = message(&load("codex"), |e| {
        e.tool_calls().count("command_execution", 1);
    });
    assert_eq!(
        msg,
        r#"expected exactly one tool call matching "command_execution", observed 2
observed 2 tool calls (> marks a match):
  > 1. command_execution {"command":"/bin/bash -lc 'echo hello'"}
  > 2. command_execution {"command":"/bin/bash -lc 'cat SKILL.md'"}"#
    );
}

#[test]
fn at_least_fails_below_the_minimum() {
    let failure = fails(&session(), |e| {
        e.tool_calls().at_least("Bash", 3);
    });
    assert_eq!(
        failure.message,
        format!(
            "expected at least 3 tool calls matching \"Bash\", observed 2\n\
             observed 6 tool calls (> marks a match):\n{}",
            session_listing(&[2, 6])
        )
    );
    assert_eq!(
        failure.question.as_deref(),
        Some(
            "You called a tool matching \"Bash\" 2 times; the check expected at least 3 times. Why?"
        )
    );
    passes(&session(), |e| {
        e.tool_calls().at_least("Bash", 2).at_least("Bash", 1);
    });
}

#[test]
fn at_most_fails_above_the_maximum() {
    let failure = fails(&session(), |e| {
        e.tool_calls().at_most(ToolMatcher::any(), 5);
    });
    assert_eq!(
        failure.message,
        format!(
            "expected at most 5 tool calls matching any tool, observed 6\n\
             observed 6 tool calls (> marks a match):\n{}",
            session_listing(&[1, 2, 3, 4, 5, 6])
        )
    );
    assert_eq!(
        failure.question.as_deref(),
        Some(
            "You called a tool matching any tool 6 times; the check expected at most 5 times. Why?"
        )
    );
    let msg = message(&load("opencode"), |e| {
        e.tool_calls().at_most("bash", 0);
    });
    assert!(
        msg.starts_with("expected at most 0 tool calls matching \"bash\", observed 1\n"),
        "{msg}"
    );
}

// ---------------------------------------------------------------------------------------------
// before

#[test]
fn before_passes_in_the_order_of_every_transcript() {
    for (name, _, _, report) in transcripts() {
        let failures = failures(&report, |e| {
            e.tool_calls().before(echo(), skill_read());
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
}

#[test]
fn before_fails_in_the_reversed_order() {
    let failure = fails(&load("claude-code"), |e| {
        e.tool_calls().before("Read", "Bash");
    });
    assert_eq!(
        failure.message,
        r#"expected a tool call matching "Read" before one matching "Bash", but the first match of "Read" is #2, the first match of "Bash" is #1
observed 2 tool calls (> marks a first match):
  > 1. Bash {"command":"echo hello","description":"Print hello"}
  > 2. Read {"file_path":"/home/dev/demo/wd/SKILL.md"}"#
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you not call a tool matching \"Read\" before one matching \"Bash\"?")
    );
    for (name, _, _, report) in transcripts() {
        let failures = failures(&report, |e| {
            e.tool_calls().before(skill_read(), echo());
        });
        assert_eq!(failures.len(), 1, "{name}");
    }
}

#[test]
fn before_compares_first_matches() {
    // Bash #2 comes before Read #3, although another Bash (#6) comes after it.
    passes(&session(), |e| {
        e.tool_calls()
            .before("Bash", "Read")
            .before("Skill", "Bash");
    });
    // The first Read (#3) is after the first Bash (#2), although it is before the second.
    let msg = message(&session(), |e| {
        e.tool_calls()
            .before("Read", ToolMatcher::new("Bash").arg("command", "npx"));
    });
    assert!(
        msg.starts_with(
            "expected a tool call matching \"Read\" before one matching \"Bash\" with command \
             matching \"npx\", but the first match of \"Read\" is #3, the first match of \"Bash\" \
             with command matching \"npx\" is #2\n"
        ),
        "{msg}"
    );
    // One call cannot come before itself.
    let msg = message(&session(), |e| {
        e.tool_calls().before("Skill", "Skill");
    });
    assert!(
        msg.starts_with(
            "expected a tool call matching \"Skill\" before one matching \"Skill\", but the first \
             match of \"Skill\" is #1, the first match of \"Skill\" is #1\n"
        ),
        "{msg}"
    );
}

#[test]
fn before_fails_when_a_matcher_never_matches() {
    let report = load("claude-code");
    let msg = message(&report, |e| {
        e.tool_calls().before("Skill", "Read");
    });
    assert_eq!(
        msg,
        r#"expected a tool call matching "Skill" before one matching "Read", but no tool call matched "Skill"
observed 2 tool calls (> marks a first match):
    1. Bash {"command":"echo hello","description":"Print hello"}
  > 2. Read {"file_path":"/home/dev/demo/wd/SKILL.md"}"#
    );
    let msg = message(&report, |e| {
        e.tool_calls().before("Bash", "Write");
    });
    assert_eq!(
        msg,
        r#"expected a tool call matching "Bash" before one matching "Write", but no tool call matched "Write"
observed 2 tool calls (> marks a first match):
  > 1. Bash {"command":"echo hello","description":"Print hello"}
    2. Read {"file_path":"/home/dev/demo/wd/SKILL.md"}"#
    );
    let msg = message(&report, |e| {
        e.tool_calls().before("Skill", "Write");
    });
    assert_eq!(
        msg.lines().next(),
        Some(
            "expected a tool call matching \"Skill\" before one matching \"Write\", but neither \
             matched any tool call"
        )
    );
}

// ---------------------------------------------------------------------------------------------
// sequence

#[test]
fn sequence_passes_in_the_order_of_every_transcript() {
    for (name, shell, read, report) in transcripts() {
        let failures = failures(&report, |e| {
            e.tool_calls()
                .sequence([echo(), skill_read()])
                .sequence([shell, read])
                .sequence([echo()])
                .sequence(Vec::<ToolMatcher>::new());
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
}

#[test]
fn sequence_fails_in_the_reversed_order_on_every_transcript() {
    for (name, _, _, report) in transcripts() {
        let failure = fails(&report, |e| {
            e.tool_calls().sequence([skill_read(), echo()]);
        });
        let expected_start = "expected tool calls in this order: the SKILL.md read -> \
             /(?i)^(bash|run_shell_command|command_execution)$/ with command matching \"echo hello\"\n\
             but no tool call after #2 (the SKILL.md read) matched \
             /(?i)^(bash|run_shell_command|command_execution)$/ with command matching \"echo hello\"\n\
             observed 2 tool calls (> marks a matched step):\n    1. ";
        assert!(
            failure.message.starts_with(expected_start),
            "{name}: {}",
            failure.message
        );
        assert!(failure.message.contains("\n  > 2. "), "{name}");
    }
}

#[test]
fn sequence_allows_gaps() {
    passes(&session(), |e| {
        e.tool_calls()
            .sequence(["Skill", "Edit", "Bash"])
            .sequence(["Skill", "TodoWrite"])
            .sequence(["Bash", "Bash"])
            .sequence([
                ToolMatcher::new("Bash").arg("command", "npx"),
                ToolMatcher::new("Bash").arg("command", "npm test"),
            ]);
    });
}

#[test]
fn sequence_enforces_the_order() {
    let failure = fails(&session(), |e| {
        e.tool_calls().sequence(["Skill", "Edit", "Read"]);
    });
    assert_eq!(
        failure.message,
        format!(
            "expected tool calls in this order: \"Skill\" -> \"Edit\" -> \"Read\"\n\
             but no tool call after #4 (\"Edit\") matched \"Read\"\n\
             observed 6 tool calls (> marks a matched step):\n{}",
            session_listing(&[1, 4])
        )
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you not follow this tool call sequence: \"Skill\" -> \"Edit\" -> \"Read\"?")
    );
}

#[test]
fn sequence_cannot_match_one_call_twice() {
    let report = load("claude-code");
    let msg = message(&report, |e| {
        e.tool_calls().sequence(["Bash", "Bash"]);
    });
    assert_eq!(
        msg,
        r#"expected tool calls in this order: "Bash" -> "Bash"
but no tool call after #1 ("Bash") matched "Bash"
observed 2 tool calls (> marks a matched step):
  > 1. Bash {"command":"echo hello","description":"Print hello"}
    2. Read {"file_path":"/home/dev/demo/wd/SKILL.md"}"#
    );
    let msg = message(&report, |e| {
        e.tool_calls()
            .sequence([ToolMatcher::any(), ToolMatcher::any(), ToolMatcher::any()]);
    });
    assert!(
        msg.contains("\nbut no tool call after #2 (any tool) matched any tool\n"),
        "{msg}"
    );
}

#[test]
fn sequence_fails_when_the_first_step_never_matches() {
    let failure = fails(&session(), |e| {
        e.tool_calls()
            .sequence([ToolMatcher::new("Write").label("a write"), "Bash".into()]);
    });
    assert_eq!(
        failure.message,
        format!(
            "expected tool calls in this order: a write -> \"Bash\"\n\
             but no tool call matched a write\n\
             observed 6 tool calls:\n{}",
            session_listing(&[])
        )
    );
    let msg = message(&SessionReport::default(), |e| {
        e.tool_calls().sequence(["Bash"]);
    });
    assert_eq!(
        msg,
        "expected tool calls in this order: \"Bash\"\nbut no tool call matched \"Bash\"\n\
         observed no tool calls"
    );
}

// ---------------------------------------------------------------------------------------------
// only

#[test]
fn only_passes_when_every_call_is_allowed() {
    for (name, shell, read, report) in transcripts() {
        let failures = failures(&report, |e| {
            e.tool_calls()
                .only([shell, read])
                .only([echo(), skill_read()])
                .only([ToolMatcher::any()]);
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
    passes(&SessionReport::default(), |e| {
        e.tool_calls().only(["Read"]).only(Vec::<&str>::new());
    });
}

#[test]
fn only_fails_marking_the_offenders() {
    let failure = fails(&load("claude-code"), |e| {
        e.tool_calls().only(["Read", "Grep"]);
    });
    assert_eq!(
        failure.message,
        r#"expected every tool call to match one of ["Read", "Grep"], but 1 matched none
observed 2 tool calls (> marks no match):
  > 1. Bash {"command":"echo hello","description":"Print hello"}
    2. Read {"file_path":"/home/dev/demo/wd/SKILL.md"}"#
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you call a tool that matches none of [\"Read\", \"Grep\"]?")
    );
    let msg = message(&session(), |e| {
        e.tool_calls().only([
            ToolMatcher::new("Bash").arg("command", "npm test"),
            ToolMatcher::new(Regex::new("^(Read|Edit)$").unwrap()),
        ]);
    });
    assert_eq!(
        msg,
        format!(
            "expected every tool call to match one of [\"Bash\" with command matching \
             \"npm test\", /^(Read|Edit)$/], but 3 matched none\n\
             observed 6 tool calls (> marks no match):\n{}",
            session_listing(&[1, 2, 5])
        )
    );
}

#[test]
fn only_with_no_matchers_rejects_every_call() {
    let msg = message(&load("gemini-cli"), |e| {
        e.tool_calls().only(Vec::<&str>::new());
    });
    assert!(
        msg.starts_with("expected every tool call to match one of [], but 2 matched none\n"),
        "{msg}"
    );
}

// ---------------------------------------------------------------------------------------------
// ToolMatcher: arguments and predicates

#[test]
fn arg_matches_a_substring_of_a_string_argument() {
    let report = session();
    passes(&report, |e| {
        e.tool_calls()
            .has(ToolMatcher::new("Read").arg("file_path", "README"))
            .has(ToolMatcher::new("Read").arg("file_path", "/repo/README.md"))
            .count(ToolMatcher::new("Bash").arg("command", "n"), 2)
            .not_has(ToolMatcher::new("Read").arg("file_path", "readme"))
            .not_has(ToolMatcher::new("Read").arg("path", "README"))
            .not_has(ToolMatcher::new("Skill").arg("file_path", "find"));
    });
}

#[test]
fn arg_matches_a_regex() {
    // `echo hello`, or Codex's `/bin/bash -lc 'echo hello'`.
    let echo_hello = Regex::new(r"^(.*'\s*)?echo hello'?$").unwrap();
    let starts_with_hello = Regex::new("^hello").unwrap();
    for (name, _, _, report) in transcripts() {
        let failures = failures(&report, |e| {
            e.tool_calls()
                .has(ToolMatcher::any().arg("command", &echo_hello))
                .not_has(ToolMatcher::any().arg("command", &starts_with_hello));
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
    passes(&load("claude-code"), |e| {
        e.tool_calls().has(ToolMatcher::new("Read").arg(
            "file_path",
            Regex::new(r"^/home/dev/.*/SKILL\.md$").unwrap(),
        ));
    });
}

#[test]
fn arg_follows_a_json_pointer() {
    passes(&session(), |e| {
        e.tool_calls()
            .has(ToolMatcher::new("Edit").arg("/edits/0/path", "src/lib.rs"))
            .has(ToolMatcher::new("Edit").arg("/edits/0/line", "3"))
            .has(ToolMatcher::any().arg("/skill", "find-skills"))
            .not_has(ToolMatcher::any().arg("/edits/1/path", "src"))
            .not_has(ToolMatcher::any().arg("/edits/0/path", "main.rs"))
            // Without the leading slash, the key is a top-level key.
            .not_has(ToolMatcher::any().arg("edits/0/path", "src"));
    });
}

#[test]
fn arg_compares_numbers_and_booleans_as_text() {
    passes(&session(), |e| {
        e.tool_calls()
            .has(ToolMatcher::new("Read").arg("limit", "10"))
            .has(ToolMatcher::new("Read").arg("limit", Regex::new("^10$").unwrap()))
            .not_has(ToolMatcher::new("Read").arg("limit", Regex::new("^1$").unwrap()))
            .has(ToolMatcher::new("Bash").arg("timeout", "120000"))
            .has(ToolMatcher::new("Bash").arg("run_in_background", "false"))
            .not_has(ToolMatcher::new("Bash").arg("run_in_background", "true"));
    });
}

#[test]
fn arg_never_matches_an_object_an_array_or_null() {
    let report = SessionReport::from_events([SessionEvent::tool_call(
        "X",
        json!({"list": ["a"], "map": {"a": "a"}, "none": null}),
    )]);
    passes(&report, |e| {
        e.tool_calls()
            .not_has(ToolMatcher::any().arg("list", ""))
            .not_has(ToolMatcher::any().arg("map", ""))
            .not_has(ToolMatcher::any().arg("none", ""))
            .not_has(ToolMatcher::any().arg("none", "null"))
            .has(ToolMatcher::any().arg("/list/0", "a"))
            .has(ToolMatcher::any().arg("/map/a", "a"));
    });
}

#[test]
fn every_condition_must_hold() {
    let report = session();
    passes(&report, |e| {
        e.tool_calls()
            .count(
                ToolMatcher::new("Bash")
                    .arg("command", "npx")
                    .arg("timeout", "120000"),
                1,
            )
            .not_has(
                ToolMatcher::new("Bash")
                    .arg("command", "npm")
                    .arg("timeout", "120000"),
            )
            .not_has(ToolMatcher::new("Read").arg("command", "npx"))
            .not_has(ToolMatcher::new("Read").args(|_| true).event(|_| false));
    });
}

#[test]
fn args_takes_a_predicate_over_the_arguments() {
    let report = session();
    passes(&report, |e| {
        e.tool_calls()
            .count(ToolMatcher::any().args(|args| args.is_null()), 1)
            .count(
                ToolMatcher::any().args(|args| args.get("command").is_some()),
                2,
            )
            .has(ToolMatcher::new("Read").args(|args| args["limit"].as_u64() == Some(10)))
            .not_has(ToolMatcher::new("Read").args(|args| args.get("offset").is_some()));
    });
    // Every predicate given must hold.
    passes(&report, |e| {
        e.tool_calls().not_has(
            ToolMatcher::new("Read")
                .args(|args| args.get("limit").is_some())
                .args(|args| args.get("offset").is_some()),
        );
    });
}

#[test]
fn event_takes_a_predicate_over_the_whole_event() {
    let call = |id: &str, tool: &str| SessionEvent::ToolCall {
        id: Some(id.to_owned()),
        tool: tool.to_owned(),
        args: Value::Null,
        at: (id == "call-2").then(|| "2025-01-01T00:00:00Z".to_owned()),
    };
    let report = SessionReport::from_events([call("call-1", "Read"), call("call-2", "Read")]);
    let timed = |event: &SessionEvent| matches!(event, SessionEvent::ToolCall { at: Some(_), .. });
    passes(&report, |e| {
        e.tool_calls()
            .count(ToolMatcher::new("Read").event(timed), 1)
            .sequence([
                ToolMatcher::any().event(|event| {
                    matches!(event, SessionEvent::ToolCall { id: Some(id), .. } if id == "call-1")
                }),
                ToolMatcher::any().event(timed),
            ]);
    });
    let msg = message(&report, |e| {
        e.tool_calls()
            .before(ToolMatcher::any().event(timed), "Read");
    });
    assert!(
        msg.starts_with(
            "expected a tool call matching any tool with a custom event predicate before one \
             matching \"Read\", but the first match of any tool with a custom event predicate is \
             #2, the first match of \"Read\" is #1\n"
        ),
        "{msg}"
    );
}

#[test]
fn a_label_names_the_matcher_in_messages() {
    let edit_rust = ToolMatcher::new("Edit")
        .args(|args| {
            args["file_path"]
                .as_str()
                .is_some_and(|p| p.ends_with(".rs"))
        })
        .label("an edit of a Rust file");
    let failure = fails(&session(), |e| {
        e.tool_calls().not_has(edit_rust);
    });
    assert_eq!(
        failure.message,
        format!(
            "expected no tool call matching an edit of a Rust file, but 1 matched\n\
             observed 6 tool calls (> marks a match):\n{}",
            session_listing(&[4])
        )
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you call a tool matching an edit of a Rust file?")
    );
}

#[test]
fn is_match_accepts_only_tool_call_events() {
    let matcher = ToolMatcher::any();
    assert!(matcher.is_match(&SessionEvent::tool_call("Bash", Value::Null)));
    assert!(!matcher.is_match(&SessionEvent::command("Bash")));
    assert!(!matcher.is_match(&SessionEvent::file_read("/Bash")));
    assert!(!matcher.is_match(&SessionEvent::assistant("Bash")));
    assert!(!matcher.is_match(&SessionEvent::skill_signal("Bash")));
    let call = SessionEvent::tool_call("Read", json!({"file_path": "/repo/SKILL.md"}));
    assert!(
        ToolMatcher::new("Read")
            .arg("file_path", "SKILL")
            .is_match(&call)
    );
    assert!(
        !ToolMatcher::new("Read")
            .arg("file_path", "README")
            .is_match(&call)
    );
    assert!(!ToolMatcher::new("Rea").is_match(&call));
}

#[test]
fn command_events_are_not_tool_calls() {
    // `session()` has a command event for `npx skills find expo` besides the Bash call.
    passes(&session(), |e| {
        e.tool_calls()
            .count(ToolMatcher::any(), 6)
            .count(ToolMatcher::any().arg("command", "npx skills find expo"), 1);
    });
}

#[test]
fn matchers_display_their_parts() {
    let cases: [(ToolMatcher, &str); 10] = [
        (ToolMatcher::new("Bash"), r#""Bash""#),
        (ToolMatcher::from("Bash"), r#""Bash""#),
        (
            ToolMatcher::new(Regex::new("(?i)^bash$").unwrap()),
            "/(?i)^bash$/",
        ),
        (ToolMatcher::any(), "any tool"),
        (
            ToolMatcher::new("Bash").arg("command", "ls"),
            r#""Bash" with command matching "ls""#,
        ),
        (
            ToolMatcher::new("Read").arg("file_path", Regex::new(r"SKILL\.md$").unwrap()),
            r#""Read" with file_path matching /SKILL\.md$/"#,
        ),
        (
            ToolMatcher::new("Edit")
                .arg("/edits/0/path", "src")
                .arg("replace_all", "true"),
            r#""Edit" with /edits/0/path matching "src" and replace_all matching "true""#,
        ),
        (
            ToolMatcher::any().args(|_| true).event(|_| true),
            "any tool with a custom args predicate and a custom event predicate",
        ),
        (
            ToolMatcher::new("Edit")
                .arg("file_path", "x")
                .args(|_| true),
            r#""Edit" with file_path matching "x" and a custom args predicate"#,
        ),
        (
            ToolMatcher::new("Edit")
                .arg("file_path", "x")
                .label("my edit"),
            "my edit",
        ),
    ];
    for (matcher, text) in cases {
        assert_eq!(matcher.to_string(), text);
        assert_eq!(format!("{matcher:?}"), format!("ToolMatcher({text})"));
    }
}

#[test]
fn long_lists_keep_the_marked_call() {
    let mut events: Vec<SessionEvent> = (1..=30)
        .map(|i| SessionEvent::tool_call("Read", json!({"file_path": format!("/f{i}")})))
        .collect();
    events[16] = SessionEvent::tool_call("Write", json!({"file_path": "/f17"}));
    let report = SessionReport::from_events(events);
    let msg = message(&report, |e| {
        e.tool_calls().not_has("Write");
    });
    assert!(
        msg.contains(
            "\n    10. Read {\"file_path\":\"/f10\"}\n    … 6 more …\n  > 17. Write {\"file_path\":\"/f17\"}\n    … 8 more …\n    26. Read"
        ),
        "{msg}"
    );
    assert!(msg.ends_with("30. Read {\"file_path\":\"/f30\"}"), "{msg}");
}

// ---------------------------------------------------------------------------------------------
// because, explain, explain_with, questions

#[test]
fn every_check_has_a_default_question() {
    let report = load("claude-code");
    let cases: Vec<(&str, CheckFn)> = vec![
        (
            "Why did you not call a tool matching \"Skill\"?",
            Box::new(|e| {
                e.tool_calls().has("Skill");
            }),
        ),
        (
            "Why did you call a tool matching \"Read\"?",
            Box::new(|e| {
                e.tool_calls().not_has("Read");
            }),
        ),
        (
            "You called a tool matching \"Read\" once; the check expected exactly 0 times. Why?",
            Box::new(|e| {
                e.tool_calls().count("Read", 0);
            }),
        ),
        (
            "You called a tool matching \"Read\" once; the check expected at least 2 times. Why?",
            Box::new(|e| {
                e.tool_calls().at_least("Read", 2);
            }),
        ),
        (
            "You called a tool matching any tool 2 times; the check expected at most once. Why?",
            Box::new(|e| {
                e.tool_calls().at_most(ToolMatcher::any(), 1);
            }),
        ),
        (
            "Why did you not call a tool matching \"Read\" before one matching \"Bash\"?",
            Box::new(|e| {
                e.tool_calls().before("Read", "Bash");
            }),
        ),
        (
            "Why did you not follow this tool call sequence: \"Read\" -> \"Bash\"?",
            Box::new(|e| {
                e.tool_calls().sequence(["Read", "Bash"]);
            }),
        ),
        (
            "Why did you call a tool that matches none of [\"Bash\"]?",
            Box::new(|e| {
                e.tool_calls().only(["Bash"]);
            }),
        ),
    ];
    for (question, check) in cases {
        let failure = fails(&report, check);
        assert_eq!(failure.question.as_deref(), Some(question));
    }
}

#[test]
fn because_and_explain_apply_to_the_following_checks() {
    let report = load("copilot");
    let failures = failures(&report, |e| {
        e.tool_calls()
            .has("bash")
            .because("the skill says to load it with the skill tool")
            .explain("Why did you read SKILL.md with view?")
            .has("skill")
            .not_has("view");
    });
    assert_eq!(failures.len(), 2, "{failures:#?}");
    assert_eq!(
        failures[0].message,
        r#"the skill says to load it with the skill tool
expected a tool call matching "skill"
observed 2 tool calls:
  1. bash {"command":"echo hello","description":"Print hello"}
  2. view {"path":"/home/dev/demo/wd/SKILL.md"}"#
    );
    for failure in &failures {
        assert_eq!(
            failure.message.lines().next(),
            Some("the skill says to load it with the skill tool")
        );
        assert_eq!(
            failure.question.as_deref(),
            Some("Why did you read SKILL.md with view?")
        );
    }
}

#[test]
fn explain_with_computes_the_question_from_the_report() {
    for (name, _, _, report) in transcripts() {
        let failure = fails(&report, |e| {
            e.tool_calls()
                .explain_with(|report| {
                    format!(
                        "You made {} tool calls. Why none with the Skill tool?",
                        report.tool_calls(None).count()
                    )
                })
                .has("Skill");
        });
        assert_eq!(
            failure.question.as_deref(),
            Some("You made 2 tool calls. Why none with the Skill tool?"),
            "{name}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// location

#[test]
fn the_failure_points_at_the_check() {
    let failure = fails(&load("qwen-code"), |e| {
        e.tool_calls().sequence([skill_read(), echo()]);
    });
    let location = failure.location.expect("a location");
    assert_eq!(location.line, line!() - 3);
    assert!(
        location.file.ends_with("tests/assertions/tool_calls.rs"),
        "{}",
        location.file
    );
}
