use proptest::prelude::*;
use regex::Regex;

use super::*;

fn words(command: &str) -> Vec<String> {
    tokenize(command)
}

/// The words of each simple command, as `lex` separates them.
fn segments(command: &str) -> Vec<Vec<String>> {
    let mut segments = vec![Vec::new()];
    for token in lex(command) {
        match token {
            Token::Word(word) => segments.last_mut().unwrap().push(word),
            Token::Separator(_) => segments.push(Vec::new()),
        }
    }
    segments.retain(|segment| !segment.is_empty());
    segments
}

fn parse_one(command: &str) -> ParsedCommand {
    let mut parsed = parse_command(command);
    assert_eq!(parsed.len(), 1, "{command:?} gave {parsed:?}");
    parsed.remove(0)
}

fn executables(command: &str) -> Vec<String> {
    parse_command(command)
        .iter()
        .map(|parsed| parsed.executable().to_owned())
        .collect()
}

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap()
}

fn flag(name: &str) -> CommandOption {
    CommandOption {
        name: name.into(),
        arg: OptionArg::Flag,
    }
}

fn value(name: &str, value: &str, separate: bool) -> CommandOption {
    CommandOption {
        name: name.into(),
        arg: OptionArg::Value {
            value: value.into(),
            separate,
        },
    }
}

// ---- tokenizing -------------------------------------------------------------------------

#[test]
fn whitespace_splits_words() {
    assert_eq!(
        words("  npx \t skills   find\r expo "),
        ["npx", "skills", "find", "expo"]
    );
    assert!(words("").is_empty());
    assert!(words(" \t ").is_empty());
}

#[test]
fn single_quotes_are_literal() {
    assert_eq!(
        words(r#"echo 'a b' '$HOME \n "x"'"#),
        ["echo", "a b", r#"$HOME \n "x""#]
    );
}

#[test]
fn double_quotes_escape_only_posix_characters() {
    assert_eq!(words(r#""a \"b\" \\ \$x \`""#), [r#"a "b" \ $x `"#]);
    assert_eq!(words(r#""\a\n\'""#), [r"\a\n\'"]);
    assert_eq!(words("\"one\\\ntwo\""), ["onetwo"]);
    assert_eq!(words(r#""it's""#), ["it's"]);
}

#[test]
fn backslash_outside_quotes_escapes_next_character() {
    assert_eq!(words(r"a\ b \' \\ \x"), ["a b", "'", "\\", "x"]);
    assert_eq!(words("ec\\\nho hi"), ["echo", "hi"]);
    assert_eq!(words("npm \\\n  test"), ["npm", "test"]);
    assert_eq!(words(r"a\;b a\&\&b"), ["a;b", "a&&b"]);
}

#[test]
fn adjacent_parts_concatenate() {
    assert_eq!(words(r#"foo"bar"'baz'\!"#), ["foobarbaz!"]);
    assert_eq!(words(r#"--name="my app""#), ["--name=my app"]);
}

#[test]
fn empty_quotes_give_empty_words() {
    assert_eq!(words(r#"a "" b ''"#), ["a", "", "b", ""]);
    assert_eq!(words("''''"), [""]);
}

#[test]
fn operators_separate_commands_with_or_without_spaces() {
    use Separator::*;
    for (input, separator) in [
        ("a&&b", And),
        ("a || b", Or),
        ("a;b", Semicolon),
        ("a | b", Pipe),
        ("a|&b", Pipe),
        ("a&b", Background),
        ("a\nb", Newline),
    ] {
        assert_eq!(
            lex(input),
            [
                Token::Word("a".into()),
                Token::Separator(separator),
                Token::Word("b".into()),
            ],
            "{input:?}"
        );
    }
    assert_eq!(
        segments("cd app&&npm test||echo fail;ls|wc -l&\ndate"),
        [
            vec!["cd", "app"],
            vec!["npm", "test"],
            vec!["echo", "fail"],
            vec!["ls"],
            vec!["wc", "-l"],
            vec!["date"],
        ]
    );
}

#[test]
fn subshell_parentheses_separate_commands() {
    assert_eq!(
        segments("(cd app && npm test)"),
        [vec!["cd", "app"], vec!["npm", "test"]]
    );
}

#[test]
fn operators_inside_quotes_do_not_split() {
    assert_eq!(
        segments(r#"echo 'a && b' "c | d; e" f\|g"#),
        [vec!["echo", "a && b", "c | d; e", "f|g"]]
    );
    assert_eq!(
        segments("echo 'line1\nline2'"),
        [vec!["echo", "line1\nline2"]]
    );
}

#[test]
fn redirections_and_their_targets_are_dropped() {
    for input in [
        "echo hi > out.txt",
        "echo hi >out.txt",
        "echo hi>out.txt",
        "echo hi >> out.txt",
        "echo hi < in.txt",
        "echo hi 2> err.txt",
        "echo hi 2>> err.txt",
        "echo hi &> all.txt",
        "echo hi &>> all.txt",
        "echo hi 2>&1",
        "echo hi >&2",
        "echo hi 3>file",
        "echo hi >| forced",
        "echo hi <<< 'here string'",
        "echo hi {fd}>file",
        "> out.txt echo hi",
        "echo 2>/dev/null hi",
    ] {
        assert_eq!(words(input), ["echo", "hi"], "{input:?}");
    }
    assert_eq!(
        segments("npm test 2>&1 | tail -5"),
        [vec!["npm", "test"], vec!["tail", "-5"]]
    );
}

#[test]
fn digits_are_a_file_descriptor_only_when_alone_and_unquoted() {
    assert_eq!(words("echo a2>f"), ["echo", "a2"]);
    assert_eq!(words(r#"echo "2">f"#), ["echo", "2"]);
    assert_eq!(words("echo 2 > f"), ["echo", "2"]);
}

#[test]
fn here_document_bodies_are_skipped() {
    let command = "cat > notes.md <<EOF\nnpm test\nEOF\nls";
    assert_eq!(segments(command), [vec!["cat"], vec!["ls"]]);
    let command = "cat <<-'END'\n\tnpm test\n\tEND\nls";
    assert_eq!(segments(command), [vec!["cat"], vec!["ls"]]);
    assert_eq!(segments("cat <<EOF\nnever closed"), [vec!["cat"]]);
}

#[test]
fn expansions_stay_verbatim_in_their_word() {
    assert_eq!(
        words("echo $(git rev-parse HEAD) `date` ${VAR:-a b} $HOME"),
        [
            "echo",
            "$(git rev-parse HEAD)",
            "`date`",
            "${VAR:-a b}",
            "$HOME"
        ]
    );
    assert_eq!(
        words(r#"echo "$(echo "a b")""#),
        ["echo", r#"$(echo "a b")"#]
    );
    assert_eq!(
        words("diff <(ls a) <(ls b)"),
        ["diff", "<(ls a)", "<(ls b)"]
    );
    assert_eq!(words("echo $((1 + (2 * 3)))"), ["echo", "$((1 + (2 * 3)))"]);
}

#[test]
fn command_substitution_with_here_document_is_one_word() {
    let command =
        "git commit -m \"$(cat <<'EOF'\nFix the user's bug (really)\nEOF\n)\" && git push";
    assert_eq!(
        segments(command),
        [
            vec![
                "git",
                "commit",
                "-m",
                "$(cat <<'EOF'\nFix the user's bug (really)\nEOF\n)"
            ],
            vec!["git", "push"],
        ]
    );
}

#[test]
fn ansi_c_quotes_decode_escapes() {
    assert_eq!(
        words(r"printf $'a\tb\n' $'it\'s'"),
        ["printf", "a\tb\n", "it's"]
    );
}

#[test]
fn comments_are_skipped() {
    assert_eq!(
        segments("echo hi # npm test && rm -rf /\nls"),
        [vec!["echo", "hi"], vec!["ls"]]
    );
    assert_eq!(words("echo a#b"), ["echo", "a#b"]);
}

#[test]
fn unclosed_quotes_run_to_the_end() {
    assert_eq!(words("echo 'abc && def"), ["echo", "abc && def"]);
    assert_eq!(words(r#"echo "abc \" def"#), ["echo", r#"abc " def"#]);
    assert_eq!(words(r"echo a\"), ["echo", r"a\"]);
    assert_eq!(words("echo $(ls"), ["echo", "$(ls"]);
    assert_eq!(words("echo `ls"), ["echo", "`ls"]);
}

#[test]
fn quote_keeps_safe_words_and_quotes_the_rest() {
    assert_eq!(quote("abc-1.2/x=y"), "abc-1.2/x=y");
    assert_eq!(quote("a b"), "'a b'");
    assert_eq!(quote("it's"), r"'it'\''s'");
    assert_eq!(quote(""), "''");
    assert_eq!(quote("$HOME"), "'$HOME'");
    assert_eq!(quote("~"), "'~'");
}

// ---- shell wrappers and prefixes -------------------------------------------------------

#[test]
fn shell_wrappers_are_unwrapped() {
    for shell in [
        "bash",
        "sh",
        "zsh",
        "fish",
        "dash",
        "/bin/bash",
        "/usr/bin/env",
    ] {
        for flag in ["-c", "-lc", "-ic", "-ec"] {
            let command = if shell == "/usr/bin/env" {
                format!("{shell} bash {flag} 'npm test'")
            } else {
                format!("{shell} {flag} 'npm test'")
            };
            let parsed = parse_one(&command);
            assert_eq!(parsed.executable(), "npm", "{command}");
            assert_eq!(parsed.positionals(), ["test"], "{command}");
            assert!(parsed.from_shell_wrapper(), "{command}");
        }
    }
}

#[test]
fn codex_style_wrapper() {
    let parsed = parse_one("/bin/bash -lc 'cat SKILL.md'");
    assert_eq!(parsed.executable(), "cat");
    assert_eq!(parsed.positionals(), ["SKILL.md"]);
    assert!(parsed.from_shell_wrapper());
    assert!(
        CommandMatcher::new("cat")
            .arg("SKILL.md")
            .matches("/bin/bash -lc 'cat SKILL.md'")
    );
}

#[test]
fn wrapper_scripts_may_hold_compound_and_nested_commands() {
    assert_eq!(
        executables("bash -lc \"cd app && sh -c 'npm ci; npm test'\" && git status"),
        ["cd", "npm", "npm", "git"]
    );
    let parsed = parse_command("bash -lc \"sh -c 'npm test'\"");
    assert!(parsed.iter().all(ParsedCommand::from_shell_wrapper));
    assert!(!parse_command("bash -lc 'ls' && git status")[1].from_shell_wrapper());
}

#[test]
fn wrapper_options_before_the_script() {
    assert_eq!(
        executables("bash -o pipefail -c 'npm test | tee log'"),
        ["npm", "tee"]
    );
    assert_eq!(executables("bash --noprofile --norc -c 'ls'"), ["ls"]);
    assert_eq!(executables("bash -c -- 'ls'"), ["ls"]);
    assert_eq!(executables("fish --command='ls'"), ["ls"]);
    assert_eq!(executables("fish --command 'ls'"), ["ls"]);
}

#[test]
fn shells_without_a_script_flag_are_ordinary_commands() {
    let parsed = parse_one("bash script.sh --verbose");
    assert_eq!(parsed.executable(), "bash");
    assert_eq!(parsed.positionals(), ["script.sh"]);
    assert!(!parsed.from_shell_wrapper());
    assert_eq!(executables("bash -x script.sh -c 'ls'"), ["bash"]);
    assert_eq!(executables("sh -c"), ["sh"]);
    assert_eq!(executables("bash --rcfile custom.rc script.sh"), ["bash"]);
    assert_eq!(executables("bashful -c 'ls'"), ["bashful"]);
}

#[test]
fn empty_wrapper_script_gives_no_command() {
    assert!(parse_command("bash -c ''").is_empty());
}

#[test]
fn leading_assignments_are_skipped() {
    let parsed = parse_one("CI=1 NODE_ENV=test PATH+=:/x npm test");
    assert_eq!(parsed.executable(), "npm");
    assert_eq!(parsed.positionals(), ["test"]);
    assert!(parse_command("FOO=bar").is_empty());
    assert_eq!(
        parse_one("npm test FOO=bar").positionals(),
        ["test", "FOO=bar"]
    );
    assert_eq!(parse_one("1A=b").executable(), "1A=b");
}

#[test]
fn env_prefix_is_skipped() {
    for command in [
        "env npm test",
        "env FOO=1 npm test",
        "FOO=1 env BAR=2 npm test",
        "env -i PATH=/bin npm test",
        "env -u HOME -uTMP --unset=X --unset Y -0 npm test",
        "env -iu HOME npm test",
        "env -C /tmp npm test",
        "env -- FOO=1 npm test",
        "/usr/bin/env npm test",
        "env -S 'npm test'",
        "env --split-string='npm test'",
    ] {
        let parsed = parse_one(command);
        assert_eq!(parsed.executable(), "npm", "{command}");
        assert_eq!(parsed.positionals(), ["test"], "{command}");
    }
    assert_eq!(parse_one("env FOO=1").executable(), "env");
    assert_eq!(parse_one("env").executable(), "env");
}

#[test]
fn leading_reserved_words_are_skipped() {
    assert_eq!(
        executables("if npm test; then echo ok; else echo fail; fi"),
        ["npm", "echo", "echo"]
    );
    assert_eq!(
        executables("while true; do npm test; done"),
        ["true", "npm"]
    );
    assert_eq!(executables("! grep -q x f"), ["grep"]);
    assert_eq!(executables("{ ls; }"), ["ls"]);
}

// ---- options ----------------------------------------------------------------------------

#[test]
fn long_option_with_equals() {
    let parsed = parse_one("npm --tag=next publish --empty=");
    assert_eq!(
        parsed.options(),
        [value("--tag", "next", false), value("--empty", "", false)]
    );
    assert_eq!(parsed.positionals(), ["publish"]);
}

#[test]
fn long_option_with_separate_value() {
    let parsed = parse_one("npm publish --tag next");
    assert_eq!(parsed.options(), [value("--tag", "next", true)]);
    assert_eq!(parsed.positionals(), ["publish"]);
}

#[test]
fn bare_long_option_is_a_flag() {
    let parsed = parse_one("npm publish --dry-run --tag --access=public");
    assert_eq!(
        parsed.options(),
        [
            flag("--dry-run"),
            flag("--tag"),
            value("--access", "public", false)
        ]
    );
    assert_eq!(
        parse_one("npm publish --dry-run").options(),
        [flag("--dry-run")]
    );
}

#[test]
fn grouped_short_flags() {
    let parsed = parse_one("ls -la src");
    assert_eq!(parsed.options(), [flag("-l"), flag("-a")]);
    assert_eq!(parsed.positionals(), ["src"]);
}

#[test]
fn short_option_with_attached_value() {
    assert_eq!(
        parse_one("docker run -p80").options(),
        [value("-p", "80", false)]
    );
    assert_eq!(
        parse_one("java -Xmx512m").options(),
        [value("-X", "mx512m", false)]
    );
}

#[test]
fn short_option_with_separate_value_or_alone() {
    assert_eq!(
        parse_one("docker run -p 80").options(),
        [value("-p", "80", true)]
    );
    assert_eq!(parse_one("docker run -p").options(), [flag("-p")]);
    assert_eq!(
        parse_one("docker run -p -d").options(),
        [flag("-p"), flag("-d")]
    );
}

#[test]
fn non_letter_short_option_is_a_flag() {
    let parsed = parse_one("head -20 file");
    assert_eq!(parsed.options(), [flag("-20")]);
    assert_eq!(parsed.positionals(), ["file"]);
}

#[test]
fn double_dash_ends_options() {
    let parsed = parse_one("git checkout -b x -- -file --y=z --");
    assert_eq!(parsed.options(), [value("-b", "x", true)]);
    assert_eq!(parsed.positionals(), ["checkout", "-file", "--y=z", "--"]);
    assert!(parsed.end_of_options());
    assert_eq!(parse_one("npm --tag -- x").options(), [flag("--tag")]);
}

#[test]
fn lone_dash_is_positional() {
    let parsed = parse_one("cat - file");
    assert!(parsed.options().is_empty());
    assert_eq!(parsed.positionals(), ["-", "file"]);
}

#[test]
fn separate_value_never_starts_with_a_dash() {
    let parsed = parse_one("tar -f - x");
    assert_eq!(parsed.options(), [flag("-f")]);
    assert_eq!(parsed.positionals(), ["-", "x"]);
}

// ---- matching -----------------------------------------------------------------------------

#[test]
fn exact_executable() {
    assert!(CommandMatcher::new("npx").matches("npx skills"));
    assert!(!CommandMatcher::new("npx").matches("npxx skills"));
    assert!(!CommandMatcher::new("np").matches("npx skills"));
}

#[test]
fn executable_basename() {
    assert!(CommandMatcher::new("npx").matches("/usr/local/bin/npx skills"));
    assert!(CommandMatcher::new("npx").matches("./node_modules/.bin/npx skills"));
    assert!(CommandMatcher::new("/usr/bin/npx").matches("/usr/bin/npx skills"));
    assert!(!CommandMatcher::new("/usr/bin/npx").matches("npx skills"));
    assert!(!CommandMatcher::new("bin/npx").matches("/usr/bin/npx skills"));
}

#[test]
fn regex_executable_sees_the_full_path() {
    assert!(CommandMatcher::new(regex("^p?npm$")).matches("pnpm i"));
    assert!(!CommandMatcher::new(regex("^npm$")).matches("/usr/bin/npm i"));
    assert!(CommandMatcher::new(regex("/npm$")).matches("/usr/bin/npm i"));
}

#[test]
fn regex_positional_and_option_value() {
    assert!(
        CommandMatcher::new("npx")
            .arg(regex("^skills?$"))
            .matches("npx skill find")
    );
    assert!(
        CommandMatcher::new("npm")
            .option("tag", regex(r"^v\d+$"))
            .matches("npm publish --tag v2")
    );
    assert!(
        !CommandMatcher::new("npm")
            .option("tag", regex(r"^v\d+$"))
            .matches("npm publish --tag next")
    );
}

#[test]
fn exact_tokens_are_not_substrings() {
    assert!(
        !CommandMatcher::new("npx")
            .arg("skill")
            .matches("npx skills")
    );
    assert!(
        !CommandMatcher::new("npm")
            .option("tag", "v")
            .matches("npm --tag=v2")
    );
}

#[test]
fn positionals_form_an_ordered_subsequence() {
    let matcher = CommandMatcher::new("npx").args(["skills", "expo"]);
    assert!(matcher.matches("npx skills find expo"));
    assert!(matcher.matches("npx -y skills --verbose find expo"));
    assert!(!matcher.matches("npx expo skills"));
    assert!(!matcher.matches("npx skills"));
    assert!(CommandMatcher::new("a").args(["x", "x"]).matches("a x y x"));
    assert!(!CommandMatcher::new("a").args(["x", "x"]).matches("a x y"));
}

#[test]
fn options_match_in_any_order() {
    let matcher = CommandMatcher::new("docker")
        .option("name", "web")
        .flag("d")
        .option("p", "80");
    assert!(matcher.matches("docker run -p 80 -d --name web nginx"));
    assert!(matcher.matches("docker run --name=web nginx -d -p80"));
    assert!(!matcher.matches("docker run --name=web nginx -p80"));
}

#[test]
fn repeated_values_are_matched_as_a_multiset() {
    let twice = CommandMatcher::new("grep")
        .option("e", "a")
        .option("e", "a");
    assert!(!twice.matches("grep -e a file"));
    assert!(twice.matches("grep -e a -e b -e a file"));
    assert!(
        CommandMatcher::new("grep")
            .option("e", "b")
            .option("e", "a")
            .matches("grep -e a -e b file")
    );
}

#[test]
fn value_assignment_is_not_greedy() {
    // Greedy would give `a` to the regex and leave nothing for the exact `a`.
    let matcher = CommandMatcher::new("grep")
        .option("e", regex("^(a|b)$"))
        .option("e", "a");
    assert!(matcher.matches("grep -e a -e b file"));
    assert!(!matcher.matches("grep -e a -e c file"));
    let matcher = CommandMatcher::new("x")
        .option("o", regex("."))
        .option("o", regex("^1$"))
        .option("o", "2");
    assert!(matcher.matches("x -o1 -o2 -o3"));
    assert!(!matcher.matches("x -o1 -o2"));
}

#[test]
fn flag_and_value_are_distinct() {
    assert!(
        !CommandMatcher::new("git")
            .flag("force")
            .matches("git push --force=yes")
    );
    assert!(
        !CommandMatcher::new("npm")
            .option("tag", "x")
            .matches("npm --tag")
    );
    assert!(
        CommandMatcher::new("git")
            .flag("force")
            .matches("git push --force")
    );
    assert!(
        CommandMatcher::new("x")
            .flag("v")
            .option("v", "1")
            .matches("x -v -v1")
    );
}

#[test]
fn option_names_with_or_without_dashes() {
    let line = "cmd --tag=x -p 1";
    assert!(
        CommandMatcher::new("cmd")
            .option("tag", "x")
            .option("p", "1")
            .matches(line)
    );
    assert!(
        CommandMatcher::new("cmd")
            .option("--tag", "x")
            .option("-p", "1")
            .matches(line)
    );
    assert!(!CommandMatcher::new("cmd").option("-tag", "x").matches(line));
    assert!(!CommandMatcher::new("cmd").option("--p", "1").matches(line));
}

#[test]
fn strict_forbids_extras() {
    let matcher = CommandMatcher::new("npm")
        .arg("publish")
        .option("tag", "next")
        .strict();
    assert!(matcher.matches("npm publish --tag next"));
    assert!(matcher.matches("npm --tag=next publish"));
    assert!(
        !matcher.matches("npm publish --tag next --dry-run"),
        "extra option"
    );
    assert!(
        !matcher.matches("npm publish ./pkg --tag=next"),
        "extra positional"
    );
    assert!(
        !matcher.matches("npm publish --tag next --tag beta"),
        "extra value"
    );
    assert!(!matcher.matches("npm --tag=next"), "missing positional");
    assert!(
        !CommandMatcher::new("a")
            .args(["x", "y"])
            .exact()
            .matches("a y x"),
        "strict positionals are position by position"
    );
    assert!(CommandMatcher::new("ls").strict().matches("ls"));
    assert!(!CommandMatcher::new("ls").strict().matches("ls -l"));
}

#[test]
fn end_of_options_is_compared_only_when_set() {
    let without = CommandMatcher::new("git").args(["checkout", "f"]);
    assert!(without.matches("git checkout -- f"));
    assert!(without.matches("git checkout f"));
    let with = without.clone().end_of_options();
    assert!(with.matches("git checkout -- f"));
    assert!(!with.matches("git checkout f"));
}

#[test]
fn separate_values_are_ambiguous_both_ways() {
    let line = "grep -v foo notes.txt";
    assert!(CommandMatcher::new("grep").option("v", "foo").matches(line));
    assert!(
        CommandMatcher::new("grep")
            .flag("v")
            .arg("foo")
            .matches(line)
    );
    assert!(
        CommandMatcher::new("grep")
            .flag("v")
            .args(["foo", "notes.txt"])
            .strict()
            .matches(line)
    );
    assert!(
        CommandMatcher::new("grep")
            .option("v", "foo")
            .arg("notes.txt")
            .strict()
            .matches(line)
    );
    assert!(
        !CommandMatcher::new("grep")
            .flag("v")
            .arg("notes.txt")
            .strict()
            .matches(line)
    );

    let line = "tsc --watch src --pretty";
    assert!(
        CommandMatcher::new("tsc")
            .flag("watch")
            .arg("src")
            .matches(line)
    );
    assert!(
        CommandMatcher::new("tsc")
            .option("watch", "src")
            .matches(line)
    );
    // Attached values are not ambiguous.
    assert!(
        !CommandMatcher::new("tsc")
            .flag("watch")
            .matches("tsc --watch=src")
    );
    assert!(
        !CommandMatcher::new("tsc")
            .arg("src")
            .matches("tsc --watch=src")
    );
}

#[test]
fn ambiguous_readings_combine() {
    let line = "x -a 1 -b 2 -c 3";
    assert!(
        CommandMatcher::new("x")
            .option("a", "1")
            .flag("b")
            .option("c", "3")
            .arg("2")
            .strict()
            .matches(line)
    );
    assert!(
        CommandMatcher::new("x")
            .flag("a")
            .flag("b")
            .flag("c")
            .args(["1", "2", "3"])
            .matches(line)
    );
}

#[test]
fn single_dash_long_options() {
    let line = "find . -name '*.md' -type f";
    assert!(
        CommandMatcher::new("find")
            .option("-name", "*.md")
            .option("-type", "f")
            .matches(line)
    );
    assert!(
        CommandMatcher::new("find")
            .flag("-name")
            .arg("*.md")
            .matches(line)
    );
    assert!(
        CommandMatcher::new("find")
            .flag("n")
            .flag("e")
            .arg("*.md")
            .matches(line)
    );
    assert!(
        !CommandMatcher::new("find")
            .option("-name", "f")
            .matches(line)
    );
    assert!(
        CommandMatcher::new("ls")
            .flag("-la")
            .strict()
            .matches("ls -la")
    );
    assert!(
        CommandMatcher::new("ls")
            .flag("l")
            .flag("a")
            .strict()
            .matches("ls -la")
    );
}

#[test]
fn readings_are_capped() {
    let options = |count: usize| " -e x".repeat(count);
    let matcher = CommandMatcher::new("grep").flag("e");
    assert!(matcher.matches(&format!("grep{} file", options(10))));
    // Beyond 2^10 readings only the default (all values) is tried.
    assert!(!matcher.matches(&format!("grep{} file", options(11))));
    let default = CommandMatcher::new("grep").option("e", "x");
    assert!(default.matches(&format!("grep{} file", options(200))));
}

#[test]
fn unrelated_ambiguous_options_do_not_count_against_the_cap() {
    let line = format!("grep{} -v foo file", " -i x".repeat(40));
    assert!(
        CommandMatcher::new("grep")
            .flag("v")
            .args(["x", "foo"])
            .matches(&line)
    );
    assert!(
        CommandMatcher::new("grep")
            .option("v", "foo")
            .matches(&line)
    );
}

#[test]
fn compound_commands_match_any_segment() {
    let test = CommandMatcher::new("npm").arg("test");
    assert!(test.matches("cd app && npm test"));
    let parsed = parse_command("cd app && npm test");
    assert!(!test.matches_parsed(&parsed[0]));
    assert!(test.matches_parsed(&parsed[1]));
    assert!(test.matches("npm ci | cat; npm test || true"));
    assert!(!test.matches("echo npm test"));
    assert!(!test.matches("cat <<EOF\nnpm test\nEOF"));
}

#[test]
fn any_matches_every_executable() {
    assert!(CommandMatcher::any().matches("whatever"));
    assert!(
        CommandMatcher::any()
            .arg("SKILL.md")
            .matches("cat docs/x SKILL.md")
    );
    assert!(!CommandMatcher::any().matches(""));
    assert!(!CommandMatcher::any().matches("FOO=1"));
}

#[test]
fn executable_can_be_replaced() {
    let matcher = CommandMatcher::new("npm").executable("pnpm");
    assert!(matcher.matches("pnpm i"));
    assert!(!matcher.matches("npm i"));
}

#[test]
fn token_matcher_conversions() {
    let owned = String::from("x");
    for matcher in [
        TokenMatcher::from("x"),
        TokenMatcher::from(owned.clone()),
        TokenMatcher::from(&owned),
        TokenMatcher::from(regex("^x$")),
        TokenMatcher::from(&regex("^x$")),
    ] {
        assert!(matcher.is_match("x"));
        assert!(!matcher.is_match("xx"));
    }
    assert_eq!(TokenMatcher::from("a\"b").to_string(), r#""a\"b""#);
    assert_eq!(TokenMatcher::from(regex("^a/b$")).to_string(), r"/^a\/b$/");
}

#[test]
fn exit_expectations_need_a_known_exit_code() {
    let line = "cd app && cargo fmt";
    let cases: [(CommandMatcher, [bool; 4]); 4] = [
        // exit code: Some(0), Some(1), Some(-1), None
        (CommandMatcher::new("cargo"), [true, true, true, true]),
        (
            CommandMatcher::new("cargo").succeeded(),
            [true, false, false, false],
        ),
        (
            CommandMatcher::new("cargo").failed(),
            [false, true, true, false],
        ),
        (
            CommandMatcher::new("cargo").exit_code(1),
            [false, true, false, false],
        ),
    ];
    for (matcher, expected) in cases {
        let observed = [Some(0), Some(1), Some(-1), None]
            .map(|exit_code| matcher.matches_with_exit_code(line, exit_code));
        assert_eq!(observed, expected, "{matcher}");
        assert_eq!(matcher.matches(line), expected[3], "{matcher}");
        let parsed = &parse_command(line)[1];
        assert_eq!(matcher.matches_parsed(parsed), expected[3], "{matcher}");
    }
}

#[test]
fn exit_expectations_still_need_the_words() {
    let fmt = CommandMatcher::new("cargo").arg("fmt").succeeded();
    assert!(!fmt.matches_with_exit_code("cargo clippy", Some(0)));
    assert!(fmt.matches_with_exit_code("bash -lc 'cargo fmt --all'", Some(0)));
}

#[test]
fn the_last_exit_expectation_wins() {
    let matcher = CommandMatcher::new("make").failed().succeeded();
    assert!(matcher.matches_with_exit_code("make", Some(0)));
    assert!(!matcher.matches_with_exit_code("make", Some(2)));
    let matcher = CommandMatcher::new("make").succeeded().exit_code(2);
    assert!(matcher.matches_with_exit_code("make", Some(2)));
    assert!(!matcher.matches_with_exit_code("make", Some(0)));
}

// ---- display ------------------------------------------------------------------------------

#[test]
fn parsed_command_display() {
    assert_eq!(
        parse_one("npx skills find expo --yes -p80").to_string(),
        r#"executable="npx", positionals=["skills", "find", "expo"], options={--yes: [<flag>], -p: ["80"]}"#
    );
    assert_eq!(parse_one("ls").to_string(), r#"executable="ls""#);
    assert_eq!(
        parse_one("grep -e a --color -e 'b\"c' -- x").to_string(),
        r#"executable="grep", positionals=["x"], options={-e: ["a", "b\"c"], --color: [<flag>]}, end_of_options=true"#
    );
    assert_eq!(
        parse_one("bash -lc 'git -- status'").to_string(),
        r#"from shell wrapper: executable="git", positionals=["status"], end_of_options=true"#
    );
}

#[test]
fn command_matcher_display() {
    assert_eq!(
        CommandMatcher::new("pnpm")
            .args(["build", "run"])
            .flag("tag")
            .option("p", "80")
            .end_of_options()
            .strict()
            .to_string(),
        r#"command matcher (executable="pnpm", positionals=["build", "run"], options={--tag: [<flag>], -p: ["80"]}, end_of_options=true, strict)"#
    );
    assert_eq!(
        CommandMatcher::any().to_string(),
        "command matcher (any command)"
    );
    assert_eq!(
        CommandMatcher::any().strict().to_string(),
        "command matcher (strict)"
    );
    assert_eq!(
        CommandMatcher::new(regex("^p?npm$"))
            .arg(regex("^t"))
            .option("e", "a")
            .option("tag", regex(r"\d"))
            .option("e", "b")
            .to_string(),
        r#"command matcher (executable=/^p?npm$/, positionals=[/^t/], options={-e: ["a", "b"], --tag: [/\d/]})"#
    );
    assert_eq!(
        CommandMatcher::any().arg("x").to_string(),
        r#"command matcher (positionals=["x"])"#
    );
    assert_eq!(
        CommandMatcher::new("cargo")
            .arg("fmt")
            .strict()
            .succeeded()
            .to_string(),
        r#"command matcher (executable="cargo", positionals=["fmt"], strict, succeeded)"#
    );
    assert_eq!(
        CommandMatcher::any().failed().to_string(),
        "command matcher (failed)"
    );
    assert_eq!(
        CommandMatcher::any().exit_code(-1).to_string(),
        "command matcher (exit_code=-1)"
    );
}

// ---- robustness ---------------------------------------------------------------------------

#[test]
fn long_inputs_are_handled() {
    let long = "a && ".repeat(20_000);
    assert_eq!(parse_command(&long).len(), 20_000);
    let nested = "$(".repeat(50_000);
    let tokens = words(&nested);
    assert_eq!(tokens, [nested]);
    let options = " -x y".repeat(20_000);
    assert!(
        CommandMatcher::new("c")
            .option("x", "y")
            .matches(&format!("c{options}"))
    );
}

#[test]
fn deeply_nested_wrappers_stop_unwrapping() {
    let mut command = "npm test".to_owned();
    for _ in 0..18 {
        let escaped: String = command
            .chars()
            .flat_map(|c| {
                if matches!(c, '"' | '\\' | '$' | '`') {
                    vec!['\\', c]
                } else {
                    vec![c]
                }
            })
            .collect();
        command = format!("sh -c \"{escaped}\"");
    }
    let parsed = parse_one(&command);
    assert_eq!(parsed.executable(), "sh");
    assert!(parsed.from_shell_wrapper());
}

fn shell_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ a-z0-9'\"\\\\$`&|;<>(){}#\n\t=*~!-]{0,24}",
    ]
}

proptest! {
    #[test]
    fn quoted_word_tokenizes_to_itself(word in shell_text()) {
        prop_assert_eq!(tokenize(&quote(&word)), vec![word]);
    }

    #[test]
    fn quoted_words_joined_tokenize_to_the_list(list in prop::collection::vec(shell_text(), 0..8)) {
        let line = list.iter().map(|word| quote(word)).collect::<Vec<_>>().join(" ");
        prop_assert_eq!(tokenize(&line), list);
    }

    #[test]
    fn never_panics(input in shell_text()) {
        let _ = tokenize(&input);
        let _ = lex(&input);
        for parsed in parse_command(&input) {
            let _ = parsed.to_string();
        }
        let _ = CommandMatcher::new("a").arg("b").flag("c").option("d", "e").strict().matches(&input);
        let _ = CommandMatcher::any().flag("c").matches(&input);
    }
}
