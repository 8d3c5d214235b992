//! `cargo skillgym lint` through the binary, over the good and bad skills of
//! `tests/fixtures/lint/` (copied to a scratch directory, where the scripts' executable bits
//! are set: git keeps only 755 and 644): the exact findings in each format, the exit codes,
//! the body budget and usage errors, and the README's example.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

/// A copy of the fixture tree, with `good`'s script executable and `bad/broken`'s not.
fn fixtures() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("skillgym-lint-")
        .tempdir()
        .unwrap();
    copy(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lint"),
        dir.path(),
    );
    let mode = |path: &str, mode: u32| {
        std::fs::set_permissions(dir.path().join(path), std::fs::Permissions::from_mode(mode))
            .unwrap();
    };
    mode("good/find-skills/scripts/search.sh", 0o755);
    mode("bad/broken/scripts/tool.sh", 0o644);
    dir
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Runs `cargo-skillgym skillgym lint ARGS` in `dir`.
fn lint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-skillgym"))
        .args(["skillgym", "lint"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

const ALL: &str = "\
bad/Bad_Name/SKILL.md:2:7: error[name]: invalid skill name \"Bad_Name\": 'B' is not a lowercase letter, a digit or a hyphen
  help: use lowercase letters, digits and hyphens, e.g. `find-skills`
bad/broken/SKILL.md:7:27: error[broken-link]: the link target `references/missing.md` does not exist
  help: links are relative to the skill directory: fix the path or add the file
bad/broken/SKILL.md:7:67: error[broken-link]: the link target `assets/gone.png` does not exist
  help: links are relative to the skill directory: fix the path or add the file
bad/broken/SKILL.md:8:13: warning[missing-file]: `scripts/absent.py` is not a file of the skill
  help: add it to the skill directory, or fix the path (relative to the skill directory)
bad/broken/scripts/tool.sh:1:1: warning[script-not-executable]: `scripts/tool.sh` starts with `#!` but is not executable
  help: chmod +x scripts/tool.sh (and `git add --chmod=+x scripts/tool.sh`)
bad/long-description/SKILL.md:4:3: error[description-length]: `description` has 1151 characters, more than 1024: Codex refuses to load the skill (limit 1024), the agentskills.io spec forbids it (limit 1024)
  help: shorten it to at most 1024 characters: what the skill does and when to use it
bad/no-frontmatter/SKILL.md:1:1: error[frontmatter]: a SKILL.md must start with YAML frontmatter between `---` lines
  help: begin the file with `---`, then `name: <skill-name>` and `description: <what it is for>`, then `---`
bad/vague/SKILL.md:3:14: warning[when-to-use]: `description` never says when to use the skill
  help: add when it applies, e.g. \"Use when the user asks to ...\": agents decide from the description alone
bad/vague/SKILL.md:4:1: warning[optional-key]: `licence` is not a frontmatter key of the agentskills.io spec
  help: did you mean `license`?
bad/vague/SKILL.md:5:1: warning[optional-key]: `metadata` must be a mapping of keys to values
bad/vague/SKILL.md:6:1: warning[optional-key]: `argument-hint` is not a frontmatter key of the agentskills.io spec
  help: the spec's optional keys are `license`, `compatibility`, `metadata` and `allowed-tools`; other keys are read by some agents only
dup/find-skills/SKILL.md:2:7: error[duplicate-name]: the name \"find-skills\" is taken by good/find-skills/SKILL.md too
  help: rename one of them: an agent loads only one of two skills with the same name
7 skills linted: 6 errors, 6 warnings (tokens estimated as characters / 4)
";

#[test]
fn every_problem_is_named_at_its_place_and_errors_exit_1() {
    let dir = fixtures();
    let output = lint(dir.path(), &["good", "bad", "dup"]);
    assert_eq!(stdout(&output), ALL);
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn a_good_skill_is_clean_and_warnings_alone_exit_0() {
    let dir = fixtures();
    let output = lint(dir.path(), &["good/find-skills"]);
    assert_eq!(
        stdout(&output),
        "1 skill linted: 0 errors, 0 warnings (tokens estimated as characters / 4)\n"
    );
    assert_eq!(output.status.code(), Some(0));
    let output = lint(&dir.path().join("bad/vague"), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(
        stdout(&output).ends_with(
            "1 skill linted: 0 errors, 4 warnings (tokens estimated as characters / 4)\n"
        )
    );
}

#[test]
fn json_has_the_documented_schema() {
    let dir = fixtures();
    let output = lint(dir.path(), &["bad/Bad_Name", "--format", "json"]);
    assert_eq!(
        stdout(&output),
        r#"{
  "errors": 1,
  "findings": [
    {
      "column": 7,
      "file": "bad/Bad_Name/SKILL.md",
      "help": "use lowercase letters, digits and hyphens, e.g. `find-skills`",
      "line": 2,
      "message": "invalid skill name \"Bad_Name\": 'B' is not a lowercase letter, a digit or a hyphen",
      "rule": "name",
      "severity": "error"
    }
  ],
  "skills": 1,
  "token_estimate": "characters / 4",
  "warnings": 0
}
"#
    );
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn github_annotations_are_escaped_workflow_commands() {
    let dir = fixtures();
    let output = lint(dir.path(), &["bad/vague", "--format", "github"]);
    assert_eq!(
        stdout(&output),
        "\
::warning file=bad/vague/SKILL.md,line=3,col=14,title=skillgym lint when-to-use::`description` never says when to use the skill%0Ahelp: add when it applies, e.g. \"Use when the user asks to ...\": agents decide from the description alone
::warning file=bad/vague/SKILL.md,line=4,col=1,title=skillgym lint optional-key::`licence` is not a frontmatter key of the agentskills.io spec%0Ahelp: did you mean `license`?
::warning file=bad/vague/SKILL.md,line=5,col=1,title=skillgym lint optional-key::`metadata` must be a mapping of keys to values
::warning file=bad/vague/SKILL.md,line=6,col=1,title=skillgym lint optional-key::`argument-hint` is not a frontmatter key of the agentskills.io spec%0Ahelp: the spec's optional keys are `license`, `compatibility`, `metadata` and `allowed-tools`; other keys are read by some agents only
1 skill linted: 0 errors, 4 warnings (tokens estimated as characters / 4)
"
    );
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn the_body_budget_is_configurable() {
    let dir = fixtures();
    let output = lint(dir.path(), &["good", "--max-body-tokens", "40"]);
    assert_eq!(
        stdout(&output),
        "\
good/find-skills/SKILL.md:8:1: warning[body-tokens]: the body has about 52 tokens (characters / 4), more than the budget of 40
  help: move details into files under references/ that the body links to; agentskills.io recommends a body under 5000 tokens (`--max-body-tokens` sets the budget)
1 skill linted: 0 errors, 1 warning (tokens estimated as characters / 4)
"
    );
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn usage_errors_exit_2() {
    let dir = fixtures();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    for (args, error) in [
        (&["missing"][..], "error: missing: does not exist\n"),
        (
            &["empty"][..],
            "error: empty: no SKILL.md in it or below it\n",
        ),
        (
            &["good/find-skills/SKILL.md"][..],
            "error: good/find-skills/SKILL.md: is not a directory\n",
        ),
    ] {
        let output = lint(dir.path(), args);
        assert_eq!(String::from_utf8_lossy(&output.stderr), error, "{args:?}");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
    let output = lint(dir.path(), &["--format", "xml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("invalid value 'xml' for '--format"));
}

#[test]
fn the_book_example_is_what_lint_prints() {
    let readme = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src/skills.md"),
    )
    .unwrap();
    let dir = fixtures();
    let output = lint(dir.path(), &["bad/vague"]);
    let example = format!(
        "```console\n$ cargo skillgym lint bad/vague\n{}```\n",
        stdout(&output)
    );
    assert!(
        readme.contains(&example),
        "docs/src/skills.md shows:\n{example}"
    );
}
