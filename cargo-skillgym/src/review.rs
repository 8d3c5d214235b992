//! `cargo skillgym review`: accept or reject the token snapshot values waiting in the `.new`
//! file beside the baseline.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use skillgym_harness::config;
use skillgym_harness::snapshot::{Entry, Locked, SnapshotFile, delta, pending_path, show};

/// Accept or reject the token snapshot values waiting for review.
///
/// The baseline is `--snapshots`, else `snapshots.path` of the config (`--config`, else
/// `$SKILLGYM_CONFIG`, else `skillgym.yaml` found upward from the current directory); the
/// values wait in `<baseline>.new`. Each is shown beside the baseline it would replace and
/// answered with a line: `a` (accept: it becomes the baseline), `r` (reject: it is dropped) or
/// `s` (skip: it keeps waiting; also what the end of the input does). `--accept` and `--reject`
/// answer for all. Exits 0 when done, also when nothing waits; 2 on a usage error or an
/// invalid file.
#[derive(Debug, clap::Args)]
pub(crate) struct ReviewArgs {
    /// The baseline file (default: the config's `snapshots.path`)
    #[arg(long, value_name = "FILE")]
    snapshots: Option<PathBuf>,
    /// The skillgym.yaml whose `snapshots.path` to review [env: SKILLGYM_CONFIG]
    #[arg(long, value_name = "FILE", conflicts_with = "snapshots")]
    config: Option<PathBuf>,
    /// Accept every pending value without asking
    #[arg(long, conflicts_with = "reject")]
    accept: bool,
    /// Reject every pending value without asking
    #[arg(long)]
    reject: bool,
}

/// An answer for one pending value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Accept,
    Reject,
    Skip,
}

pub(crate) fn run(args: &ReviewArgs) -> ExitCode {
    let path = match baseline_path(args) {
        Ok(path) => path,
        Err(message) => return crate::fail(message),
    };
    let pending_file = pending_path(&path);
    let (baseline, pending) = match (SnapshotFile::read(&path), SnapshotFile::read(&pending_file)) {
        (Ok(baseline), Ok(pending)) => (baseline, pending),
        (Err(error), _) | (_, Err(error)) => return crate::fail(error),
    };
    if pending.entries.is_empty() {
        let line = format!(
            "skillgym review: no snapshot values pending review ({} does not exist)",
            pending_file.display()
        );
        println!("{}", crate::escape(&line));
        return ExitCode::SUCCESS;
    }
    let total = pending.entries.len();
    let line = format!(
        "skillgym review: {total} snapshot value{} pending in {}",
        if total == 1 { "" } else { "s" },
        pending_file.display()
    );
    println!("{}", crate::escape(&line));
    let mut input = std::io::stdin().lock().lines();
    let mut decisions: Vec<(&String, &Entry, Answer)> = Vec::with_capacity(total);
    for (index, (key, entry)) in pending.entries.iter().enumerate() {
        // The key (case and runner ids), the agent and model names come from the file.
        let shown = format!(
            "\n[{}/{total}] {key}\n{}",
            index + 1,
            describe(entry, baseline.entries.get(key))
        );
        println!("{}", crate::escape(&shown));
        let answer = if args.accept {
            Answer::Accept
        } else if args.reject {
            Answer::Reject
        } else {
            ask(&mut input)
        };
        decisions.push((key, entry, answer));
    }
    let applied = Locked::new(&path)
        .map_err(|error| format!("cannot lock {}: {error}", path.display()))
        .and_then(|locked| apply(&locked, &decisions).map_err(|error| error.to_string()));
    if let Err(message) = applied {
        return crate::fail(message);
    }
    let count = |answer| decisions.iter().filter(|(_, _, a)| *a == answer).count();
    let mut summary = format!(
        "\nskillgym review: {} accepted, {} rejected, {} skipped",
        count(Answer::Accept),
        count(Answer::Reject),
        count(Answer::Skip)
    );
    if count(Answer::Accept) > 0 {
        summary.push_str(&format!("; baseline: {}", path.display()));
    }
    println!("{}", crate::escape(&summary));
    ExitCode::SUCCESS
}

/// The baseline file: `--snapshots`, else the configuration's `snapshots.path`.
fn baseline_path(args: &ReviewArgs) -> Result<PathBuf, String> {
    let cwd = std::env::current_dir().unwrap_or_default();
    if let Some(path) = &args.snapshots {
        return Ok(cwd.join(path));
    }
    let explicit = args.config.clone().or_else(|| {
        std::env::var_os("SKILLGYM_CONFIG")
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    });
    let config_path = match explicit {
        Some(path) => cwd.join(path),
        None => config::discover_checked(&cwd)
            .map_err(|error| error.to_string())?
            .ok_or_else(|| {
                format!(
                    "no skillgym.yaml found in {} or above; name the baseline with `--snapshots FILE` or the config with `--config FILE`",
                    cwd.display()
                )
            })?,
    };
    let loaded = config::load(&config_path).map_err(|error| error.to_string())?;
    loaded.snapshots.map(|s| s.path).ok_or_else(|| {
        format!(
            "{} has no `snapshots:` section, so there are no token snapshots to review",
            config_path.display()
        )
    })
}

/// The lines shown for one pending value.
fn describe(entry: &Entry, baseline: Option<&Entry>) -> String {
    let metric = entry.metric;
    let change = match baseline.filter(|b| b.metric == metric) {
        Some(old) => format!(
            "  {metric}: {} -> {} ({})",
            show(metric, old.value),
            show(metric, entry.value),
            delta(metric, entry.value, old.value)
        ),
        None => format!("  {metric}: no baseline -> {}", show(metric, entry.value)),
    };
    let model = entry
        .model
        .as_deref()
        .map_or(String::new(), |model| format!(" · model {model}"));
    let version = |entry: &Entry| {
        entry
            .version
            .as_deref()
            .map_or(String::new(), |version| format!(" {version}"))
    };
    let mut text = format!(
        "{change}\n  agent {}{}{model} · recorded {}",
        entry.agent,
        version(entry),
        entry.updated_at
    );
    if let Some(old) = baseline.filter(|old| old.metric == metric)
        && let (Some(then), Some(now)) = (&old.version, &entry.version)
        && then != now
    {
        text.push_str(&format!(
            "\n  note: the baseline was recorded with version {then} of the agent"
        ));
    }
    text
}

/// Asks until a valid answer or the end of the input (a skip).
fn ask(input: &mut impl Iterator<Item = std::io::Result<String>>) -> Answer {
    loop {
        print!("accept? [a]ccept / [r]eject / [s]kip: ");
        let _ = std::io::stdout().flush();
        let Some(Ok(line)) = input.next() else {
            println!("(no answer: skipped)");
            return Answer::Skip;
        };
        match line.trim().to_ascii_lowercase().as_str() {
            "a" | "accept" => return Answer::Accept,
            "r" | "reject" => return Answer::Reject,
            "s" | "skip" => return Answer::Skip,
            other => println!(
                "{}",
                crate::escape(&format!("`{other}` is not an answer: type a, r or s"))
            ),
        }
    }
}

/// Moves the accepted values into the baseline and drops the rejected ones from `.new`; a value
/// that changed in `.new` since it was shown (a run wrote a newer one) is left for the next
/// review.
fn apply(
    locked: &Locked,
    decisions: &[(&String, &Entry, Answer)],
) -> Result<(), skillgym_harness::snapshot::EditError> {
    let pending_now = SnapshotFile::read(&pending_path(locked.path()))?;
    let unchanged: Vec<&(&String, &Entry, Answer)> = decisions
        .iter()
        .filter(|(key, entry, answer)| {
            *answer != Answer::Skip && pending_now.entries.get(*key) == Some(*entry)
        })
        .collect();
    locked.edit_baseline(|file| {
        for (key, entry, answer) in &unchanged {
            if *answer == Answer::Accept {
                file.entries.insert((*key).clone(), (*entry).clone());
            }
        }
    })?;
    locked.edit_pending(|file| {
        for (key, _, _) in &unchanged {
            file.entries.remove(*key);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_until_valid_and_the_end_is_a_skip() {
        let mut lines = ["x", " A ", "reject", ""]
            .into_iter()
            .map(|line| Ok(line.to_owned()));
        assert_eq!(ask(&mut lines), Answer::Accept);
        assert_eq!(ask(&mut lines), Answer::Reject);
        let mut empty = std::iter::empty();
        assert_eq!(ask(&mut empty), Answer::Skip);
    }

    #[test]
    fn a_pending_value_is_shown_beside_its_baseline() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        std::fs::write(
            &path,
            r#"{"version": 1, "entries": {
                "c::r": {"metric": "total_tokens", "value": 1000, "agent": "command", "updated_at": "t0"},
                "n::r": {"metric": "total_tokens", "value": 1250, "agent": "claude-code", "model": "m", "updated_at": "t1"},
                "v::r": {"metric": "total_tokens", "value": 900, "agent": "claude-code", "version": "2.1.330", "updated_at": "t2"},
                "w::r": {"metric": "total_tokens", "value": 950, "agent": "claude-code", "version": "2.1.332", "updated_at": "t3"}}}"#,
        )
        .unwrap();
        let file = SnapshotFile::read(&path).unwrap();
        let (old, new) = (&file.entries["c::r"], &file.entries["n::r"]);
        assert_eq!(
            describe(new, Some(old)),
            "  total_tokens: 1,000 -> 1,250 (+250, +25.0%)\n  agent claude-code · model m · recorded t1"
        );
        let (then, now) = (&file.entries["v::r"], &file.entries["w::r"]);
        assert_eq!(
            describe(now, Some(then)),
            "  total_tokens: 900 -> 950 (+50, +5.6%)\n  agent claude-code 2.1.332 · recorded t3\n  note: the baseline was recorded with version 2.1.330 of the agent"
        );
        assert_eq!(
            describe(now, Some(now)),
            "  total_tokens: 950 -> 950 (+0, +0.0%)\n  agent claude-code 2.1.332 · recorded t3",
            "the same version: no note"
        );
        assert_eq!(
            describe(new, None),
            "  total_tokens: no baseline -> 1,250\n  agent claude-code · model m · recorded t1"
        );
    }
}
