//! The tier's trigger suite (`skills/under-test-dir/triggers.yaml`, found beside the skill
//! under test): on each CLI the scripted model loads `tier-skill` for the should-trigger
//! prompt, which skillgym ends at that load, and answers the should-not prompt without a
//! tool. Both prompts pass, the skill's recall and precision are 1 on the runner, and the
//! replay of the scenarios' run gives the same figures.

use serde_json::Value;

const SKILL: &str = "tier-skill";

/// `runner`'s trigger figures in the scenarios' run (`scenarios`) and its replay
/// (`replayed`); a summary line when they hold.
pub(crate) fn check(runner: &str, scenarios: &Value, replayed: &Value) -> Result<String, String> {
    let score = figures(scenarios, runner)?;
    let counts = [
        "true_positives",
        "false_negatives",
        "false_positives",
        "true_negatives",
    ]
    .map(|key| score[key].as_u64().unwrap_or(u64::MAX));
    if counts != [1, 0, 0, 1] || score["recall"]["value"] != 1.0 {
        return Err(format!(
            "{SKILL} on {runner}: expected one session fired and one quiet: {score:#}"
        ));
    }
    for (kind, ended) in [("should", "fired"), ("should-not", "finished")] {
        let case = format!("triggers::{SKILL}::{kind}::1");
        let execution = scenarios["executions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|e| e["case_id"] == case.as_str() && e["runner_id"] == runner)
            .ok_or_else(|| format!("no result for {case} on {runner}"))?;
        let attempt = &execution["repetitions"][0]["attempts"][0];
        if execution["status"] != "passed" || attempt["trigger"]["ended"] != ended {
            return Err(format!(
                "{case} on {runner}: expected passed and a session ended as {ended}: {execution:#}"
            ));
        }
    }
    let again = figures(replayed, runner)?;
    if again["true_positives"] != score["true_positives"]
        || again["true_negatives"] != score["true_negatives"]
    {
        return Err(format!(
            "the replay's figures differ: {again:#} against {score:#}"
        ));
    }
    Ok(format!(
        "{runner}: {SKILL} recall {} precision {}, {} of 2 sessions ended early",
        score["recall"]["value"], score["precision"]["value"], score["ended_early"]
    ))
}

fn figures<'a>(results: &'a Value, runner: &str) -> Result<&'a Value, String> {
    results["triggers"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["skill"] == SKILL && s["runner_id"] == runner)
        .ok_or_else(|| format!("no trigger figures of {SKILL} on {runner} in results.json"))
}
