//! The README's YAML examples are valid as written: every `yaml` block parses as a
//! `skillgym.yaml`, or, when it starts with `# mock script`, as a mock script, or, when it
//! starts with `# triggers.yaml`, as a trigger file. Blocks that
//! start with `# examples/evals/` show the example package's suite files, which the
//! end-to-end tests compare with the files (`tests/quickstart.rs`) and load in every run;
//! `# .github/` blocks are workflows.

use std::path::Path;

use skillgym_harness::config::Config;
use skillgym_harness::mock::Script;

/// The `yaml` blocks of the README, with the line each starts on.
fn yaml_blocks(readme: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (number, line) in readme.lines().enumerate() {
        match &mut current {
            None if line.trim() == "```yaml" => current = Some((number + 2, String::new())),
            Some(_) if line.trim() == "```" => blocks.extend(current.take()),
            Some((_, text)) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    blocks
}

#[test]
fn every_yaml_example_parses() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let blocks = yaml_blocks(&readme);
    assert!(
        blocks.len() >= 5,
        "the README has its examples: {}",
        blocks.len()
    );
    let mut scripts = 0;
    let mut providers = 0;
    for (line, text) in blocks {
        let file = Path::new("/repo/README-example.yaml");
        // The example package's suite files (compared with the files elsewhere), and a
        // GitHub Actions workflow.
        if text.starts_with("# examples/evals/") || text.starts_with("# .github/") {
            continue;
        }
        if text.starts_with("# triggers.yaml") {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("triggers.yaml");
            std::fs::write(&path, &text).unwrap();
            if let Err(error) =
                skillgym_harness::suite::triggers::TriggerSet::load(&path, Some("s"))
            {
                panic!("README.md line {line}: the trigger file example fails:\n{error}");
            }
            continue;
        }
        if text.starts_with("# mock script") {
            scripts += 1;
            if let Err(error) = Script::parse(file, &text) {
                panic!("README.md line {line}: the mock script example fails:\n{error}");
            }
        } else {
            match Config::parse(file, &text) {
                Ok(config) => {
                    providers += config
                        .runners
                        .iter()
                        .filter(|(_, runner)| runner.agent.provider.is_some())
                        .count();
                }
                Err(error) => panic!("README.md line {line}: the config example fails:\n{error}"),
            }
        }
    }
    assert!(scripts >= 1, "the script format is shown");
    assert!(
        providers >= 4,
        "the provider examples are parsed: {providers}"
    );
}

/// The README's `if_listed` example plays its `then` steps for a request that lists the skill
/// and its `else` steps for one that does not, and the script error it shows is the one given.
#[test]
fn the_mock_script_examples_play_and_fail_as_shown() {
    use std::collections::{BTreeSet, HashSet};

    use skillgym_harness::mock::script::{Action, Turn};

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let (_, text) = yaml_blocks(&readme)
        .into_iter()
        .find(|(_, text)| text.contains("if_listed:"))
        .expect("the README shows an if_listed script");
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

    let shown = readme
        .split("```text\n")
        .filter_map(|block| block.split_once("```").map(|(block, _)| block))
        .find(|block| block.starts_with("error: /repo/tests/scripts/smoke.yaml"))
        .expect("the README shows a script error");
    let error = Script::parse(
        Path::new("/repo/tests/scripts/smoke.yaml"),
        "- say: Looking.\n- rn: npx skills find expo\n",
    )
    .unwrap_err();
    assert_eq!(format!("error: {error}\n"), shown);
}

/// The README's table of built-in prices (section "Cost") is the built-in table, row for row,
/// and its `pricing:` example replaces one price and adds a model with the stated defaults.
#[test]
fn the_cost_section_shows_the_builtin_prices_and_a_working_override() {
    use skillgym_harness::pricing::{ModelPrice, PriceTable, builtin};

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let section = readme
        .split("\n## Cost\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("the README has a Cost section");
    let rows: Vec<(String, [f64; 4])> = section
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

    let example = yaml_blocks(section)
        .into_iter()
        .map(|(_, text)| text)
        .find(|text| text.starts_with("pricing:"))
        .expect("the Cost section shows `pricing:`");
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
