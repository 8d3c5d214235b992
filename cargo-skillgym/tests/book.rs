//! The book (`docs/src`) and the README are right as written. Every fenced block names a
//! language this test checks:
//!
//! | block | checked |
//! |---|---|
//! | `rust`, `rust,no_run` | compiled (and run, unless `no_run`) as doctests of `skillgym-e2e`, whose `src/lib.rs` includes every page; [`every_page_is_a_doctest_module`] keeps that list whole |
//! | `yaml` | parses as a `skillgym.yaml`; as a mock script when it starts with `# mock script`, as a trigger file with `# triggers.yaml`; `# examples/evals/` blocks are the example package's suite files (compared with the files in `tests/quickstart.rs`), `# .github/` blocks workflows (`tests/init.rs`) |
//! | `toml` | parses as TOML |
//! | `json` | parses as JSON, or each of its lines does (JSON Lines) |
//! | `sh`, and the `$ ` lines of `console` | `sh -n` accepts it; each `cargo skillgym <command>` names a command and flags of the generated reference, each flag after `cargo test … --` one of a benchmark binary's |
//! | `text` | nothing: output, listings, messages |
//!
//! Links between pages, to their headings' anchors and to repository files resolve, and the
//! book's table of contents lists every page.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use skillgym_harness::config::Config;
use skillgym_harness::mock::Script;

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The repository URL links to its files start with.
const REPOSITORY_FILES: [&str; 2] = [
    "https://github.com/skillgym/skillgym-rs/tree/main/",
    "https://github.com/skillgym/skillgym-rs/blob/main/",
];

/// A page: its path relative to the repository and its text.
struct Page {
    path: PathBuf,
    text: String,
}

impl Page {
    /// The page at `path`, relative to the repository.
    fn read(path: impl Into<PathBuf>) -> Page {
        let path = path.into();
        Page {
            text: std::fs::read_to_string(root().join(&path)).unwrap(),
            path,
        }
    }

    /// The texts of its blocks of language `info`.
    fn blocks_of(&self, info: &str) -> Vec<String> {
        blocks(self)
            .into_iter()
            .filter(|block| block.info == info)
            .map(|block| block.text)
            .collect()
    }
}

/// The README and every page of the book, `SUMMARY.md` aside.
fn pages() -> Vec<Page> {
    let mut paths = vec![PathBuf::from("README.md")];
    let mut stack = vec![PathBuf::from("docs/src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(root().join(&dir)).unwrap() {
            let entry = entry.unwrap();
            let path = dir.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md")
                && path.file_name().is_some_and(|n| n != "SUMMARY.md")
            {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths.into_iter().map(Page::read).collect()
}

/// A fenced block: where it starts, its info string and its text (fence indentation removed).
struct Block {
    at: String,
    info: String,
    text: String,
}

/// The fenced blocks of `page`.
fn blocks(page: &Page) -> Vec<Block> {
    let mut found = Vec::new();
    let mut open: Option<(usize, String, usize, String)> = None;
    for (index, line) in page.text.lines().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some((index + 1, info.trim().to_owned(), indent, String::new()));
                }
            }
            Some(_) if trimmed == "```" => {
                let (line, info, _, text) = open.take().unwrap();
                found.push(Block {
                    at: format!("{}:{line}", page.path.display()),
                    info,
                    text,
                });
            }
            Some((_, _, fence, text)) => {
                text.push_str(line.get(*fence..).unwrap_or(line.trim_start()));
                text.push('\n');
            }
        }
    }
    assert!(
        open.is_none(),
        "{}: a fence is never closed",
        page.path.display()
    );
    found
}

fn all_blocks() -> Vec<Block> {
    pages().iter().flat_map(blocks).collect()
}

#[test]
fn every_block_names_a_checked_language() {
    let known = [
        "rust",
        "rust,no_run",
        "yaml",
        "toml",
        "json",
        "sh",
        "console",
        "text",
    ];
    let unknown: Vec<String> = all_blocks()
        .into_iter()
        .filter(|block| !known.contains(&block.info.as_str()))
        .map(|block| format!("{}: ```{}", block.at, block.info))
        .collect();
    assert!(
        unknown.is_empty(),
        "blocks of a language this test does not check (one of {known:?}):\n{}",
        unknown.join("\n")
    );
}

#[test]
fn every_yaml_block_is_valid() {
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for block in all_blocks().into_iter().filter(|b| b.info == "yaml") {
        let text = &block.text;
        let at = &block.at;
        let file = Path::new("/repo/example.yaml");
        if text.starts_with("# examples/evals/") || text.starts_with("# .github/") {
            *kinds.entry("compared elsewhere").or_default() += 1;
        } else if text.starts_with("# triggers.yaml") {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("triggers.yaml");
            std::fs::write(&path, text).unwrap();
            if let Err(error) =
                skillgym_harness::suite::triggers::TriggerSet::load(&path, Some("s"))
            {
                panic!("{at}: the trigger file example fails:\n{error}");
            }
            *kinds.entry("trigger file").or_default() += 1;
        } else if text.starts_with("# mock script") {
            if let Err(error) = Script::parse(file, text) {
                panic!("{at}: the mock script example fails:\n{error}");
            }
            *kinds.entry("mock script").or_default() += 1;
        } else {
            match Config::parse(file, text) {
                Ok(config) => {
                    let providers = config
                        .runners
                        .iter()
                        .filter(|(_, runner)| runner.agent.provider.is_some())
                        .count();
                    *kinds.entry("provider").or_default() += providers;
                }
                Err(error) => panic!("{at}: the config example fails:\n{error}"),
            }
            *kinds.entry("config").or_default() += 1;
        }
    }
    for (kind, least) in [("config", 15), ("mock script", 1), ("provider", 4)] {
        assert!(
            kinds.get(kind).copied().unwrap_or(0) >= least,
            "the examples are all read: {kinds:?}"
        );
    }
}

#[test]
fn every_toml_block_parses() {
    let mut count = 0;
    for block in all_blocks().into_iter().filter(|b| b.info == "toml") {
        if let Err(error) = block.text.parse::<toml_edit::DocumentMut>() {
            panic!("{}: not TOML:\n{error}", block.at);
        }
        count += 1;
    }
    assert!(count >= 5, "{count} toml blocks");
}

#[test]
fn every_json_block_parses() {
    for block in all_blocks().into_iter().filter(|b| b.info == "json") {
        let whole = serde_json::from_str::<serde_json::Value>(&block.text);
        let lines = block
            .text
            .lines()
            .filter(|line| !line.trim().is_empty())
            .try_for_each(|line| serde_json::from_str::<serde_json::Value>(line).map(drop));
        if let (Err(error), Err(_)) = (whole, lines) {
            panic!("{}: neither JSON nor JSON Lines:\n{error}", block.at);
        }
    }
}

/// The commands of a shell block: lines joined where they end in `\`, comments dropped; for a
/// `console` block only its `$ ` lines.
fn commands(block: &Block) -> Vec<String> {
    let lines: Vec<&str> = if block.info == "console" {
        block
            .text
            .lines()
            .filter_map(|line| line.strip_prefix("$ "))
            .collect()
    } else {
        block.text.lines().collect()
    };
    let mut commands = Vec::new();
    let mut current = String::new();
    for line in lines {
        let line = line.split(" #").next().unwrap_or(line);
        if line.trim_start().starts_with('#') {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(head) => current.push_str(head),
            None => {
                current.push_str(line);
                commands.push(std::mem::take(&mut current));
            }
        }
    }
    commands
}

/// `cargo skillgym`'s commands and the flags each takes, from the generated reference.
fn skillgym_commands() -> BTreeMap<String, String> {
    let reference =
        std::fs::read_to_string(root().join("docs/src/reference/cargo-skillgym.md")).unwrap();
    reference
        .split("\n## `cargo skillgym ")
        .skip(1)
        .filter_map(|section| {
            let (name, rest) = section.split_once('`')?;
            Some((name.to_owned(), rest.to_owned()))
        })
        .collect()
}

/// The `--flags` among `words`.
fn flags<'a>(words: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    words
        .filter(|word| word.starts_with("--") && word.len() > 2)
        .map(|word| word.split('=').next().unwrap_or(word))
        .collect()
}

/// Whether `help` shows `flag` (followed by anything but more of a flag's name).
fn names_flag(help: &str, flag: &str) -> bool {
    help.match_indices(flag).any(|(at, _)| {
        !help[at + flag.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

#[test]
fn every_shell_block_is_valid_and_names_real_commands_and_flags() {
    let commands_of_skillgym = skillgym_commands();
    assert!(
        commands_of_skillgym.contains_key("init"),
        "the reference lists the commands"
    );
    let harness_flags =
        std::fs::read_to_string(root().join("docs/src/reference/flags.md")).unwrap();
    let mut checked = 0;
    for block in all_blocks()
        .into_iter()
        .filter(|b| b.info == "sh" || b.info == "console")
    {
        let script = commands(&block).join("\n");
        let mut sh = Command::new("sh")
            .arg("-n")
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        sh.stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        let output = sh.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}: sh -n rejects it: {}",
            block.at,
            String::from_utf8_lossy(&output.stderr)
        );
        for command in commands(&block) {
            let words: Vec<&str> = command.split_whitespace().collect();
            for (index, pair) in words.windows(2).enumerate() {
                if pair != ["cargo", "skillgym"] {
                    continue;
                }
                let Some(name) = words.get(index + 2).filter(|w| !w.starts_with('-')) else {
                    continue;
                };
                let Some(section) = commands_of_skillgym.get(*name) else {
                    panic!("{}: `cargo skillgym {name}` is no command", block.at);
                };
                for flag in flags(words[index + 3..].iter().copied()) {
                    assert!(
                        names_flag(section, flag),
                        "{}: `cargo skillgym {name}` has no flag `{flag}`",
                        block.at
                    );
                }
                checked += 1;
            }
            if words.starts_with(&["cargo", "test"])
                && let Some(split) = words.iter().position(|w| *w == "--")
            {
                for flag in flags(words[split + 1..].iter().copied()) {
                    assert!(
                        names_flag(&harness_flags, flag),
                        "{}: a benchmark binary has no flag `{flag}`",
                        block.at
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "{checked} commands checked");
}

/// The anchor mdBook gives a heading.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a page's headings (outside fenced blocks).
fn anchors(text: &str) -> BTreeSet<String> {
    prose_lines(text)
        .filter(|line| line.starts_with('#'))
        .map(|line| anchor(line.trim_start_matches('#')))
        .collect()
}

/// The lines of a page outside fenced blocks (the fences themselves left out).
fn prose_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut fenced = false;
    text.lines().filter(move |line| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            return false;
        }
        !fenced
    })
}

/// The targets of a page's inline links, outside fenced blocks and code spans.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in prose_lines(text) {
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join("");
        let mut rest = prose.as_str();
        while let Some(start) = rest.find("](") {
            rest = &rest[start + 2..];
            if let Some(end) = rest.find(')') {
                found.push(rest[..end].to_owned());
            }
        }
    }
    found
}

#[test]
fn every_link_resolves() {
    let pages = pages();
    let by_path: BTreeMap<&Path, &Page> = pages.iter().map(|p| (p.path.as_path(), p)).collect();
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in &pages {
        for target in links(&page.text) {
            checked += 1;
            let (file, fragment) = match target.split_once('#') {
                Some((file, fragment)) => (file, Some(fragment)),
                None => (target.as_str(), None),
            };
            if let Some(path) = REPOSITORY_FILES.iter().find_map(|p| file.strip_prefix(p)) {
                if !root().join(path).exists() {
                    broken.push(format!("{}: {target}: no such file", page.path.display()));
                }
                continue;
            }
            if file.starts_with("http") || file.starts_with("mailto:") {
                continue;
            }
            let resolved = if file.is_empty() {
                page.path.clone()
            } else {
                normalize(&page.path.parent().unwrap().join(file))
            };
            if !root().join(&resolved).exists() {
                broken.push(format!("{}: {target}: no such file", page.path.display()));
                continue;
            }
            if let Some(fragment) = fragment {
                let text = by_path
                    .get(resolved.as_path())
                    .map(|p| p.text.clone())
                    .unwrap_or_default();
                if !anchors(&text).contains(fragment) {
                    broken.push(format!(
                        "{}: {target}: no such heading",
                        page.path.display()
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked >= 200, "{checked} links checked");
}

/// `path` without `.` and `..` components.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn the_table_of_contents_lists_every_page() {
    let summary = std::fs::read_to_string(root().join("docs/src/SUMMARY.md")).unwrap();
    let listed: BTreeSet<PathBuf> = links(&summary)
        .into_iter()
        .map(|target| Path::new("docs/src").join(target))
        .collect();
    let pages: BTreeSet<PathBuf> = pages()
        .into_iter()
        .map(|page| page.path)
        .filter(|path| path.starts_with("docs/src"))
        .collect();
    assert_eq!(listed, pages, "SUMMARY.md and the pages in docs/src");
}

#[test]
fn every_page_is_a_doctest_module() {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    for page in pages() {
        let include = format!("include_str!(\"../{}\")", page.path.display());
        assert!(
            lib.contains(&include),
            "src/lib.rs compiles the Rust blocks of {} as doctests: add `#[doc = {include}]`",
            page.path.display()
        );
    }
}

#[test]
fn the_readme_stays_short() {
    let lines = std::fs::read_to_string(root().join("README.md"))
        .unwrap()
        .lines()
        .count();
    assert!(
        lines <= 250,
        "the README has {lines} lines; the book holds the rest"
    );
}

/// The `if_listed` example of "The scripted model" plays its `then` steps for a request that
/// lists the skill and its `else` steps for one that does not, and the script error it shows
/// is the one given.
#[test]
fn the_mock_script_examples_play_and_fail_as_shown() {
    use std::collections::HashSet;

    use skillgym_harness::mock::script::{Action, Turn};

    let page = Page::read("docs/src/scripted-model.md");
    let text = page
        .blocks_of("yaml")
        .into_iter()
        .find(|text| text.contains("if_listed:"))
        .expect("the page shows an if_listed script");
    let script = Script::parse(Path::new("/repo/example.yaml"), &text).unwrap();
    let first_action = |listed: &[&str]| {
        let listed: BTreeSet<String> = listed.iter().map(|name| (*name).to_owned()).collect();
        let plan = script.plan(&listed);
        match plan.position(0, &mut HashSet::new()).turn {
            Turn::Reply { action, .. } => action.clone(),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(
        first_action(&["upgrading-expo", "other"]),
        Some(Action::Skill("upgrading-expo".into()))
    );
    assert_eq!(
        first_action(&["other"]),
        Some(Action::Run("npm outdated".into()))
    );

    let shown = page
        .blocks_of("text")
        .into_iter()
        .find(|block| block.starts_with("error: /repo/tests/scripts/smoke.yaml"))
        .expect("the page shows a script error");
    let error = Script::parse(
        Path::new("/repo/tests/scripts/smoke.yaml"),
        "- say: Looking.\n- rn: npx skills find expo\n",
    )
    .unwrap_err();
    assert_eq!(format!("error: {error}\n"), shown);
}

/// The table of built-in prices on "Tokens and cost" is the built-in table, row for row, and
/// its `pricing:` example replaces one price and adds a model with the stated defaults.
#[test]
fn the_cost_page_shows_the_builtin_prices_and_a_working_override() {
    use skillgym_harness::pricing::{ModelPrice, PriceTable, builtin};

    let page = Page::read("docs/src/cost.md");
    let rows: Vec<(String, [f64; 4])> = page
        .text
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let price = |i: usize| cells[i].parse::<f64>().unwrap();
            (
                cells[0].trim_matches('`').to_owned(),
                [price(1), price(2), price(3), price(4)],
            )
        })
        .collect();
    let builtin: Vec<(String, [f64; 4])> = builtin()
        .iter()
        .map(|(id, p)| {
            (
                (*id).to_owned(),
                [p.input, p.cached_input, p.output, p.reasoning],
            )
        })
        .collect();
    assert_eq!(rows, builtin);

    let example = page
        .blocks_of("yaml")
        .into_iter()
        .find(|text| text.starts_with("pricing:"))
        .expect("the page shows `pricing:`");
    let config = Config::parse(Path::new("/repo/skillgym.yaml"), &example).unwrap();
    let table = PriceTable::builtin().with(config.pricing);
    assert_eq!(
        table.lookup("openai/gpt-5.5"),
        Some(&ModelPrice::new(5.0, 0.5, 30.0, 30.0))
    );
    assert_eq!(
        table.lookup("my-gateway-model"),
        Some(&ModelPrice::new(0.8, 0.8, 3.2, 3.2))
    );
}

/// The compile error "Writing cases in Rust" shows is the one the UI tests check.
#[test]
fn the_cases_page_shows_the_macros_own_diagnostic() {
    let shown = Page::read("docs/src/cases.md")
        .blocks_of("text")
        .into_iter()
        .find(|block| block.starts_with("error: "))
        .expect("the page shows a compile error");
    let checked = std::fs::read_to_string(root().join("tests/ui/arguments.stderr")).unwrap();
    assert!(
        checked.contains(&shown),
        "docs/src/cases.md shows a diagnostic tests/ui/arguments.stderr does not hold:\n{shown}"
    );
}
