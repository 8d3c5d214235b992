//! Does my skill help? The `find-skills` skill, without and with it (`variants:` in
//! `experiment/skillgym.yaml`), on six real agent CLIs, from recordings: each CLI played the
//! case's mock script against skillgym's scripted model, which plays the skill's steps only
//! when the agent's request lists the skill (`experiment/scripts/find-skills.yaml`). Run it
//! with `cargo test -p skillgym-examples --test experiment`: the console ends with the lift
//! table. `min_lift = 0.5` is the gate: the `with` variant passes when it passes at least 50
//! points more often than `without`; the baseline is the measure and passes once it ran. No
//! agent starts, no key is needed.

use skillgym::prelude::*;

#[skillgym::case(
    prompt = "Find a skill for upgrading Expo SDK and tell me how to install it.",
    tags = ["experiment"],
    samples = 5,
    min_lift = 0.5,
    mock = "experiment/scripts/find-skills.yaml"
)]
fn finds_the_install_command(report: &SessionReport) {
    report
        .expect()
        .output()
        .includes("npx skills add expo/upgrading-expo");
}

fn main() -> std::process::ExitCode {
    skillgym_harness::Harness::new()
        .config_file(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/experiment/skillgym.yaml"
        ))
        .run()
}
