//! One test per rule, over skills written to a scratch directory.

use std::path::{Path, PathBuf};

use super::*;

/// Writes `files` (path, text) under `root/dir` and returns the skill directory.
fn skill(root: &Path, dir: &str, files: &[(&str, &str)]) -> PathBuf {
    let path = root.join(dir);
    for (file, text) in files {
        let file = path.join(file);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    path
}

/// The findings of linting the skills in `dirs`, as `rule line:column message`.
fn findings(dirs: &[PathBuf], options: &Options) -> Vec<String> {
    lint_skills(dirs, options)
        .findings
        .into_iter()
        .map(|f| format!("{} {}:{} {}", f.rule, f.line, f.column, f.message))
        .collect()
}

/// The findings of one `SKILL.md` in a directory named `dir`.
fn one(dir: &str, text: &str) -> Vec<String> {
    let root = tempfile::tempdir().unwrap();
    let dir = skill(root.path(), dir, &[("SKILL.md", text)]);
    findings(&[dir], &Options::default())
}

const GOOD: &str = "---\nname: ok\ndescription: Does things. Use when asked.\n---\nBody.\n";

#[test]
fn a_good_skill_has_no_finding() {
    assert_eq!(one("ok", GOOD), Vec::<String>::new());
}

#[test]
fn frontmatter_must_exist_and_parse() {
    assert_eq!(
        one("ok", "# no frontmatter\n"),
        ["frontmatter 1:1 a SKILL.md must start with YAML frontmatter between `---` lines"]
    );
    let broken = one("ok", "---\nname: ok\ndescription: [x\n---\n");
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert!(broken[0].starts_with("frontmatter 3:"), "{broken:?}");
}

#[test]
fn name_is_required_and_well_formed() {
    assert_eq!(
        one("ok", "---\ndescription: Use when asked.\n---\n"),
        ["name 1:1 the frontmatter has no `name`"]
    );
    assert_eq!(
        one("ok", "---\nname: a--b\ndescription: Use when asked.\n---\n"),
        ["name 2:7 invalid skill name \"a--b\": it has two hyphens in a row"]
    );
    assert_eq!(
        one("ok", "---\nname: 7\ndescription: Use when asked.\n---\n"),
        ["name 2:7 `name` must be a string"]
    );
}

#[test]
fn name_matches_the_directory() {
    assert_eq!(
        one("elsewhere", GOOD),
        ["name-matches-directory 2:7 the skill is named \"ok\" but its directory is \"elsewhere\""]
    );
}

#[test]
fn description_is_present_and_not_empty() {
    assert_eq!(
        one("ok", "---\nname: ok\n---\n"),
        ["description 1:1 the frontmatter has no `description`"]
    );
    assert_eq!(
        one("ok", "---\nname: ok\ndescription: \" \"\n---\n"),
        ["description 3:14 `description` is empty; agents choose skills by it"]
    );
}

#[test]
fn description_length_names_the_agents_it_exceeds() {
    let at_limit = format!(
        "---\nname: ok\ndescription: when {}\n---\n",
        "x".repeat(1019)
    );
    assert_eq!(one("ok", &at_limit), Vec::<String>::new());
    let over = format!(
        "---\nname: ok\ndescription: when {}\n---\n",
        "x".repeat(1020)
    );
    assert_eq!(
        one("ok", &over),
        [
            "description-length 3:14 `description` has 1025 characters, more than 1024: Codex refuses to load the skill (limit 1024), the agentskills.io spec forbids it (limit 1024)"
        ]
    );
}

#[test]
fn optional_keys_are_the_specs() {
    let text = "---\nname: ok\ndescription: Use when asked.\nlicense: MIT\ncompatibility: any\nmetadata: { a: b }\nallowed-tools: Bash Read\nallowed_tools: x\n---\n";
    assert_eq!(
        one("ok", text),
        ["optional-key 8:1 `allowed_tools` is not a frontmatter key of the agentskills.io spec"]
    );
    let long = format!(
        "---\nname: ok\ndescription: Use when asked.\ncompatibility: {}\nlicense: [MIT]\n---\n",
        "c".repeat(501)
    );
    assert_eq!(
        one("ok", &long),
        [
            "optional-key 4:1 `compatibility` has 501 characters, more than the 500 the agentskills.io spec allows",
            "optional-key 5:1 `license` must be a string",
        ]
    );
}

#[test]
fn the_description_should_say_when() {
    assert_eq!(
        one("ok", "---\nname: ok\ndescription: PDF tools.\n---\n"),
        ["when-to-use 3:14 `description` never says when to use the skill"]
    );
    for says in [
        "Use for PDFs.",
        "Triggers on PDF work.",
        "PDF tools; if the user asks.",
        "Use this skill to fill forms.",
    ] {
        assert_eq!(
            one("ok", &format!("---\nname: ok\ndescription: {says}\n---\n")),
            Vec::<String>::new(),
            "{says}"
        );
    }
}

#[test]
fn the_body_has_a_token_budget() {
    let text = format!(
        "---\nname: ok\ndescription: Use when asked.\n---\n{}",
        "abcd".repeat(10)
    );
    let root = tempfile::tempdir().unwrap();
    let dir = skill(root.path(), "ok", &[("SKILL.md", &text)]);
    let tight = Options { max_body_tokens: 9 };
    assert_eq!(
        findings(std::slice::from_ref(&dir), &tight),
        [
            "body-tokens 5:1 the body has about 10 tokens (characters / 4), more than the budget of 9"
        ]
    );
    assert_eq!(
        findings(
            &[dir],
            &Options {
                max_body_tokens: 10
            }
        ),
        Vec::<String>::new()
    );
}

#[test]
fn links_and_mentions_point_at_files_of_the_skill() {
    let root = tempfile::tempdir().unwrap();
    let body = "[a](references/a.md) [b](references/b.md#x) [web](https://x.y) [top](#top)\n\
                `[c](c.md)` run scripts/go.sh or scripts/gone.sh.\n```\n[d](d.md) references/none.md\n```\n";
    let dir = skill(
        root.path(),
        "ok",
        &[
            (
                "SKILL.md",
                &format!("---\nname: ok\ndescription: Use when asked.\n---\n{body}"),
            ),
            ("references/a.md", "a"),
            ("scripts/go.sh", "echo go"),
        ],
    );
    assert_eq!(
        findings(&[dir], &Options::default()),
        [
            "broken-link 5:26 the link target `references/b.md#x` does not exist",
            "missing-file 6:34 `scripts/gone.sh` is not a file of the skill",
            "missing-file 8:11 `references/none.md` is not a file of the skill",
        ]
    );
}

#[cfg(unix)]
#[test]
fn scripts_with_a_shebang_are_executable() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    let dir = skill(
        root.path(),
        "ok",
        &[
            ("SKILL.md", GOOD),
            ("scripts/run.sh", "#!/bin/sh\n"),
            ("scripts/lib/data.txt", "data\n"),
        ],
    );
    let script = dir.join("scripts/run.sh");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
    let report = lint_skills(std::slice::from_ref(&dir), &Options::default());
    assert_eq!(report.findings.len(), 1, "{report:?}");
    assert_eq!(report.findings[0].file, script);
    assert_eq!(
        report.findings[0].message,
        "`scripts/run.sh` starts with `#!` but is not executable"
    );
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(findings(&[dir], &Options::default()), Vec::<String>::new());
}

#[test]
fn duplicate_names_are_reported_on_the_later_skill() {
    let root = tempfile::tempdir().unwrap();
    let first = skill(root.path(), "a/ok", &[("SKILL.md", GOOD)]);
    let second = skill(root.path(), "b/ok", &[("SKILL.md", GOOD)]);
    let found = findings(&[first.clone(), second], &Options::default());
    assert_eq!(
        found,
        [format!(
            "duplicate-name 2:7 the name \"ok\" is taken by {} too",
            first.join("SKILL.md").display()
        )]
    );
}

#[test]
fn directories_are_searched_without_following_symlinks() {
    let root = tempfile::tempdir().unwrap();
    skill(
        root.path(),
        "tree/one",
        &[("SKILL.md", GOOD.replace("ok", "one").as_str())],
    );
    skill(
        root.path(),
        "tree/.hidden/two",
        &[("SKILL.md", GOOD.replace("ok", "two").as_str())],
    );
    skill(
        root.path(),
        "tree/one/nested",
        &[("SKILL.md", "not linted")],
    );
    skill(
        root.path(),
        "outside/three",
        &[("SKILL.md", GOOD.replace("ok", "three").as_str())],
    );
    #[cfg(unix)]
    std::os::unix::fs::symlink(root.path().join("outside"), root.path().join("tree/link")).unwrap();
    let report = lint(&[root.path().join("tree")], &Options::default()).unwrap();
    assert_eq!((report.skills, report.findings.len()), (2, 0), "{report:?}");
    let missing = lint(&[root.path().join("nope")], &Options::default()).unwrap_err();
    assert_eq!(
        missing.to_string(),
        format!("{}: does not exist", root.path().join("nope").display())
    );
}

#[test]
fn installed_skills_get_the_install_rules_findings_as_warnings() {
    let root = tempfile::tempdir().unwrap();
    let vague = "---\nname: ok\ndescription: PDF tools.\n---\nSee [x](x.md).\n";
    let first = skill(root.path(), "a/ok", &[("SKILL.md", vague)]);
    let second = skill(root.path(), "b/ok", &[("SKILL.md", GOOD)]);
    assert_eq!(
        install_warnings(&[first.clone(), second]),
        [(
            first.join("SKILL.md"),
            "the link target `x.md` does not exist (line 5, column 9; `cargo skillgym lint` rule `broken-link`)".to_owned()
        )]
    );
}
