//! The commands group, on real transcripts and hand-built reports.

use skillgym::assert::CommandPattern;
use skillgym::prelude::*;

use crate::common::*;
use crate::support::transcripts::load;

fn commands(lines: &[&str]) -> SessionReport {
    SessionReport::from_events(lines.iter().map(|line| SessionEvent::command(*line)))
}

#[test]
fn every_transcript_ran_echo_hello() {
    for name in TRANSCRIPTS {
        let report = load(name);
        passes(&report, |e| {
            e.commands()
                .includes("echo hello")
                .includes(CommandMatcher::new("echo").arg("hello"))
                .includes(CommandMatcher::new("echo").arg("hello").strict())
                .not_includes(CommandMatcher::new("rm"))
                .first(CommandMatcher::new("echo"))
                .at_least("echo", 1)
                .exactly_one(CommandMatcher::new("echo"));
        });
    }
}

#[test]
fn codex_commands_arrive_unwrapped_from_its_bash_wrapper() {
    let report = load("codex");
    assert_eq!(
        report.commands().collect::<Vec<_>>(),
        ["echo hello", "cat SKILL.md"]
    );
}

#[test]
fn the_matcher_unwraps_bash_wrapped_commands() {
    let report = commands(&["/bin/bash -lc 'echo hello'", "/bin/bash -lc 'cat SKILL.md'"]);
    passes(&report, |e| {
        e.commands()
            .size(2)
            .includes("/bin/bash -lc")
            .includes(CommandMatcher::new("cat").arg("SKILL.md"))
            .before(CommandMatcher::new("echo"), CommandMatcher::new("cat"))
            .last(CommandMatcher::new("cat"))
            .only([CommandMatcher::new("echo"), CommandMatcher::new("cat")]);
    });
    let failure = fails(&report, |e| {
        e.commands()
            .includes(CommandMatcher::new("sed").args(["-n", "1,20p"]));
    });
    assert_eq!(
        failure.message,
        "expected a command matching command matcher (executable=\"sed\", positionals=[\"-n\", \"1,20p\"])\n\
         observed 2 commands:\n\
         \x20 1. /bin/bash -lc 'echo hello'\n\
         \x20    parsed: from shell wrapper: executable=\"echo\", positionals=[\"hello\"]\n\
         \x20 2. /bin/bash -lc 'cat SKILL.md'\n\
         \x20    parsed: from shell wrapper: executable=\"cat\", positionals=[\"SKILL.md\"]"
    );
}

#[test]
fn includes_and_not_includes_with_text_and_regex() {
    let report = commands(&["ls -la", "npx skills find expo"]);
    passes(&report, |e| {
        e.commands()
            .includes("skills find")
            .includes(Regex::new(r"^npx\s+skills").unwrap())
            .not_includes("rm -rf")
            .not_includes(Regex::new("^skills").unwrap());
    });
    let failure = fails(&report, |e| {
        e.commands().includes("npm test");
    });
    assert_eq!(
        failure.message,
        "expected a command matching \"npm test\"\nobserved 2 commands:\n  1. ls -la\n  2. npx skills find expo"
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you not run a command matching \"npm test\"?")
    );
    let failure = fails(&report, |e| {
        e.commands().not_includes(CommandMatcher::new("ls"));
    });
    assert_eq!(
        failure.message,
        "expected no command matching command matcher (executable=\"ls\"), but 1 matched\n\
         observed 2 commands (> marks a match):\n\
         \x20 > 1. ls -la\n\
         \x20      parsed: executable=\"ls\", options={-l: [<flag>], -a: [<flag>]}\n\
         \x20   2. npx skills find expo\n\
         \x20      parsed: executable=\"npx\", positionals=[\"skills\", \"find\", \"expo\"]"
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you run a command matching command matcher (executable=\"ls\")?")
    );
}

#[test]
fn empty_reports_say_so() {
    let failure = fails(&commands(&[]), |e| {
        e.commands().includes("ls");
    });
    assert_eq!(
        failure.message,
        "expected a command matching \"ls\"\nobserved no commands"
    );
}

#[test]
fn compound_commands_match_by_part() {
    let report = commands(&["cd app && npm test -- --watch=false | tee log.txt"]);
    passes(&report, |e| {
        e.commands()
            .includes(CommandMatcher::new("npm").arg("test"))
            .includes(CommandMatcher::new("tee").arg("log.txt"))
            .includes(CommandMatcher::new("cd").arg("app").strict())
            .not_includes(CommandMatcher::new("app"));
    });
}

#[test]
fn count_at_least_at_most_exactly_one() {
    let report = commands(&["npm test", "npm run build", "npm test -- --watch"]);
    passes(&report, |e| {
        e.commands()
            .count("npm test", 2)
            .count(CommandMatcher::new("npm").arg("test"), 2)
            .count("yarn", 0)
            .at_least("npm", 3)
            .at_most("npm run", 1)
            .exactly_one("build");
    });
    let failure = fails(&report, |e| {
        e.commands().count("npm test", 3);
    });
    assert_eq!(
        failure.message,
        "expected exactly 3 commands matching \"npm test\", observed 2\n\
         observed 3 commands (> marks a match):\n  > 1. npm test\n    2. npm run build\n  > 3. npm test -- --watch"
    );
    assert_eq!(
        failure.question.as_deref(),
        Some(
            "You ran a command matching \"npm test\" 2 times; the check expected exactly 3 times. Why?"
        )
    );
    let text = message(&report, |e| {
        e.commands().at_least("npm run", 2);
    });
    assert!(
        text.starts_with("expected at least 2 commands matching \"npm run\", observed 1\n"),
        "{text}"
    );
    let failure = fails(&report, |e| {
        e.commands().at_most("npm", 1);
    });
    assert!(
        failure
            .message
            .starts_with("expected at most 1 command matching \"npm\", observed 3\n")
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("You ran a command matching \"npm\" 3 times; the check expected at most once. Why?")
    );
    let text = message(&report, |e| {
        e.commands().exactly_one("npm test");
    });
    assert!(
        text.starts_with("expected exactly one command matching \"npm test\", observed 2\n"),
        "{text}"
    );
}

#[test]
fn before_needs_both_and_in_order() {
    let report = commands(&["npm ci", "npm test", "npm ci"]);
    passes(&report, |e| {
        e.commands()
            .before("npm ci", "npm test")
            .before(CommandMatcher::new("npm").arg("ci"), "test");
    });
    let failure = fails(&report, |e| {
        e.commands().before("npm test", "npm ci");
    });
    assert_eq!(
        failure.message,
        "expected a command matching \"npm test\" before one matching \"npm ci\", but the first match of \"npm test\" is #2, the first match of \"npm ci\" is #1\n\
         observed 3 commands (> marks a first match):\n  > 1. npm ci\n  > 2. npm test\n    3. npm ci"
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you not run a command matching \"npm test\" before one matching \"npm ci\"?")
    );
    let text = message(&report, |e| {
        e.commands().before("npm install", "npm test");
    });
    assert!(
        text.contains(", but no command matched \"npm install\"\n"),
        "{text}"
    );
}

#[test]
fn only_accepts_mixed_patterns() {
    let report = commands(&["ls", "cat README.md", "rm -rf build"]);
    passes(&report, |e| {
        e.commands().only([
            CommandPattern::from("ls"),
            CommandMatcher::new("cat").into(),
            Regex::new("^rm ").unwrap().into(),
        ]);
    });
    let failure = fails(&report, |e| {
        e.commands().only(["ls", "cat"]);
    });
    assert_eq!(
        failure.message,
        "expected every command to match one of [\"ls\", \"cat\"], but 1 matched none\n\
         observed 3 commands (> marks no match):\n    1. ls\n    2. cat README.md\n  > 3. rm -rf build"
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you run a command that matches none of [\"ls\", \"cat\"]?")
    );
}

#[test]
fn size_first_last() {
    let report = commands(&["git status", "cargo test"]);
    passes(&report, |e| {
        e.commands()
            .size(2)
            .first("git")
            .last(CommandMatcher::new("cargo").arg("test"));
    });
    let failure = fails(&report, |e| {
        e.commands().size(0);
    });
    assert_eq!(
        failure.message,
        "expected 0 commands, observed 2\nobserved 2 commands:\n  1. git status\n  2. cargo test"
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you run 2 commands when 0 were expected?")
    );
    let failure = fails(&report, |e| {
        e.commands().last("git");
    });
    assert_eq!(
        failure.message,
        "expected the last command to match \"git\"\n\
         observed 2 commands (> marks the last one):\n    1. git status\n  > 2. cargo test"
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why was the last command you ran not one matching \"git\"?")
    );
    let text = message(&report, |e| {
        e.commands().first("cargo");
    });
    assert!(
        text.starts_with("expected the first command to match \"cargo\"\n"),
        "{text}"
    );
}

#[test]
fn long_command_lists_are_abbreviated_around_the_matches() {
    let lines: Vec<String> = (1..=60).map(|i| format!("step {i}")).collect();
    let report = commands(&lines.iter().map(String::as_str).collect::<Vec<_>>());
    let text = message(&report, |e| {
        e.commands()
            .count(Regex::new(r"^step (30|31)$").unwrap(), 1);
    });
    assert!(
        text.contains("\n    … 19 more …\n  > 30. step 30\n  > 31. step 31\n    … 24 more …\n"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1 + 1 + 10 + 1 + 2 + 1 + 5);
}

#[test]
fn because_and_explain_apply_to_the_rest_of_the_chain() {
    let report = commands(&["ls"]);
    let failures = failures(&report, |e| {
        e.commands()
            .includes("npm ci")
            .because("dependencies must be installed first")
            .explain("Why did you skip npm ci?")
            .includes("npm ci")
            .before("npm ci", "ls");
    });
    assert_eq!(failures.len(), 3);
    assert!(!failures[0].message.starts_with("dependencies"));
    assert_eq!(
        failures[0].question.as_deref(),
        Some("Why did you not run a command matching \"npm ci\"?")
    );
    for failure in &failures[1..] {
        assert!(failure.message.starts_with(
            "dependencies must be installed first\nexpected a command matching \"npm ci\""
        ));
        assert_eq!(
            failure.question.as_deref(),
            Some("Why did you skip npm ci?")
        );
    }
    let failure = fails(&report, |e| {
        e.commands()
            .explain_with(|report| {
                format!(
                    "You ran {:?}. Why not npm ci?",
                    report.commands().collect::<Vec<_>>()
                )
            })
            .includes("npm ci");
    });
    assert_eq!(
        failure.question.as_deref(),
        Some("You ran [\"ls\"]. Why not npm ci?")
    );
}

#[test]
fn failures_point_at_the_check() {
    let report = commands(&[]);
    let line = line!() + 2;
    let failure = fails(&report, |e| {
        e.commands().includes("x");
    });
    let location = failure.location.unwrap();
    assert_eq!(location.line, line);
    assert!(location.file.ends_with("commands.rs"), "{}", location.file);
}

fn ran(lines: &[(&str, Option<i32>)]) -> SessionReport {
    SessionReport::from_events(lines.iter().map(|&(line, exit_code)| {
        let event = SessionEvent::command(line);
        match exit_code {
            Some(code) => event.with_exit_code(code),
            None => event,
        }
    }))
}

#[test]
fn succeeded_needs_exit_code_zero() {
    let report = ran(&[("cargo fmt", Some(1)), ("git commit -m wip", Some(0))]);
    let fmt = CommandMatcher::new("cargo").arg("fmt");
    let commit = CommandMatcher::new("git").arg("commit");
    passes(&report, |e| {
        e.commands()
            .before(fmt.clone(), commit.clone())
            .includes(fmt.clone().failed())
            .includes(fmt.clone().exit_code(1))
            .includes(commit.clone().succeeded())
            .not_includes(fmt.clone().succeeded());
    });
    let failure = fails(&report, |e| {
        e.commands().before(fmt.clone().succeeded(), commit.clone());
    });
    assert_eq!(
        failure.message,
        "expected a command matching command matcher (executable=\"cargo\", positionals=[\"fmt\"], succeeded) \
         before one matching command matcher (executable=\"git\", positionals=[\"commit\"]), \
         but no command matched command matcher (executable=\"cargo\", positionals=[\"fmt\"], succeeded)\n\
         observed 2 commands (> marks a first match):\n\
         \x20   1. cargo fmt\n\
         \x20      parsed: executable=\"cargo\", positionals=[\"fmt\"]\n\
         \x20      exit code: 1\n\
         \x20 > 2. git commit -m wip\n\
         \x20      parsed: executable=\"git\", positionals=[\"commit\"], options={-m: [\"wip\"]}\n\
         \x20      exit code: 0"
    );
}

#[test]
fn an_unknown_exit_code_matches_no_exit_expectation_and_says_so() {
    let report = ran(&[("cargo fmt", None)]);
    let fmt = CommandMatcher::new("cargo").arg("fmt");
    passes(&report, |e| {
        e.commands()
            .includes(fmt.clone())
            .not_includes(fmt.clone().succeeded())
            .not_includes(fmt.clone().failed())
            .not_includes(fmt.clone().exit_code(0));
    });
    let failure = fails(&report, |e| {
        e.commands().includes(fmt.clone().succeeded());
    });
    assert_eq!(
        failure.message,
        "expected a command matching command matcher (executable=\"cargo\", positionals=[\"fmt\"], succeeded)\n\
         observed 1 command:\n\
         \x20 1. cargo fmt\n\
         \x20    parsed: executable=\"cargo\", positionals=[\"fmt\"]\n\
         \x20    exit code: unknown (the agent did not report it; an expected exit code never matches an unknown one)"
    );
}

#[test]
fn failed_finds_each_agents_failing_ls_where_the_agent_reports_exit_codes() {
    let ls = CommandMatcher::new("ls").arg("/nonexistent-skillgym");
    for name in SKILL_TRANSCRIPTS {
        let report = load(name);
        // Gemini CLI and Qwen Code 0.15 report no exit codes (the book's agent pages).
        let reports_exit_codes = !name.starts_with("gemini-cli") && !name.starts_with("qwen-code");
        passes(&report, |e| {
            e.commands()
                .includes(ls.clone())
                .not_includes(ls.clone().succeeded());
        });
        if reports_exit_codes {
            passes(&report, |e| {
                e.commands()
                    .includes(ls.clone().failed())
                    .includes(ls.clone().exit_code(2));
            });
        } else {
            let text = message(&report, |e| {
                e.commands().includes(ls.clone().failed());
            });
            assert!(
                text.contains("exit code: unknown (the agent did not report it"),
                "{name}: {text}"
            );
        }
    }
}

#[test]
fn before_shows_each_parsed_line_once() {
    let report = commands(&["npm test", "npm ci"]);
    let failure = fails(&report, |e| {
        e.commands().before(
            CommandMatcher::new("npm").arg("ci"),
            CommandMatcher::new("npm").arg("test"),
        );
    });
    assert_eq!(
        failure.message,
        "expected a command matching command matcher (executable=\"npm\", positionals=[\"ci\"]) \
         before one matching command matcher (executable=\"npm\", positionals=[\"test\"]), \
         but the first match of command matcher (executable=\"npm\", positionals=[\"ci\"]) is #2, \
         the first match of command matcher (executable=\"npm\", positionals=[\"test\"]) is #1\n\
         observed 2 commands (> marks a first match):\n\
         \x20 > 1. npm test\n\
         \x20      parsed: executable=\"npm\", positionals=[\"test\"]\n\
         \x20 > 2. npm ci\n\
         \x20      parsed: executable=\"npm\", positionals=[\"ci\"]"
    );
    let failure = fails(&commands(&["ls", "rm -rf build"]), |e| {
        e.commands()
            .only([CommandMatcher::new("ls"), CommandMatcher::new("cat")]);
    });
    assert_eq!(
        failure.message.matches("parsed: executable=\"rm\"").count(),
        1,
        "{}",
        failure.message
    );
}
