//! `cargo skillgym record` through the binary: a run is never packed into itself nor replaced,
//! `--force` replaces only a recording it made (one holding its marker), and a symbolic link
//! that leaves the run directory is refused instead of followed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh directory under cargo's test tmp dir, kept when the test fails before
/// [`tempfile::TempDir::close`] removes it.
fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("record-{name}-"))
        .disable_cleanup(true)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A run directory as the harness leaves it: one execution of one attempt, a workspace, the
/// run's own files.
fn run_dir(root: &Path) -> PathBuf {
    let run = root.join("runs/run");
    let execution = run.join("greets/claude");
    write(
        &execution.join("result.json"),
        r#"{"case_id":"greets","runner_id":"claude","status":"passed","repetitions":[{"attempts":[{"repetition":1,"attempt":1}]}]}"#,
    );
    let attempt = execution.join("repeat-1/attempt-1");
    write(&attempt.join("stdout.log"), "{\"type\":\"message\"}\n");
    write(
        &attempt.join("result.json"),
        r#"{"repetition":1,"attempt":1}"#,
    );
    write(
        &run.join("workspaces/greets/claude/repeat-1/attempt-1/main.rs"),
        "fn main() {}",
    );
    write(&run.join("results.json"), "{}");
    write(&run.join("run.json"), "{}");
    run
}

/// Every file below `dir` with its contents, sorted.
fn contents(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).unwrap().map(Result::unwrap) {
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            } else {
                let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
                found.push((entry.path().strip_prefix(dir).unwrap().to_path_buf(), text));
            }
        }
    }
    found.sort();
    found
}

fn record(cwd: &Path, args: &[&Path], force: bool) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-skillgym"));
    command
        .args(["skillgym", "record"])
        .args(args)
        .current_dir(cwd);
    if force {
        command.arg("--force");
    }
    command.output().unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout ---\n{}--- stderr ---\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn a_run_is_never_packed_into_itself_nor_removed() {
    let tmp = scratch("itself");
    let run = run_dir(tmp.path());
    let before = contents(&run);
    let dot = Path::new(".");
    let cases: [(&Path, &[&Path], &str); 5] = [
        (tmp.path(), &[&run, &run], "is the run directory"),
        (&run, &[dot, dot], "is the run directory"),
        (
            &run,
            &[dot, Path::new("recording")],
            "lies inside the run directory",
        ),
        (
            &run,
            &[dot, Path::new("greets/claude")],
            "lies inside the run directory",
        ),
        (&run, &[dot, Path::new("../..")], "holds the run directory"),
    ];
    for (cwd, args, says) in cases {
        for force in [false, true] {
            let output = record(cwd, args, force);
            let context = format!("record {args:?} (force: {force}) in {}", cwd.display());
            assert_eq!(
                output.status.code(),
                Some(2),
                "{context}\n{}",
                text(&output)
            );
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(stderr.contains(says), "{context}\n{stderr}");
            assert!(
                stderr.contains(&format!("the destination {} (", args[1].display()))
                    && stderr.contains(&format!("the run directory {} (", args[0].display())),
                "names both: {stderr}"
            );
            assert_eq!(contents(&run), before, "{context} changed the run");
        }
    }
    tmp.close().unwrap();
}

#[test]
fn force_replaces_only_a_recording_made_by_record() {
    let tmp = scratch("force");
    let run = run_dir(tmp.path());
    let recording = tmp.path().join("recording");
    let output = record(tmp.path(), &[&run, &recording], false);
    assert!(output.status.success(), "{}", text(&output));
    let marker = std::fs::read_to_string(recording.join(".skillgym-recording")).unwrap();
    assert!(marker.contains("cargo skillgym record"), "{marker}");
    let output = record(tmp.path(), &[&run, &recording], true);
    assert!(
        output.status.success(),
        "replaces its own: {}",
        text(&output)
    );

    // Another run directory holds executions too, but no marker: it is never replaced.
    let other = run_dir(&tmp.path().join("other"));
    let before = contents(&other);
    let output = record(tmp.path(), &[&run, &other], true);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("is not a recording made by `cargo skillgym record` (it holds no .skillgym-recording file); it is left alone"),
        "{stderr}"
    );
    assert_eq!(contents(&other), before);
    tmp.close().unwrap();
}

#[test]
fn a_symlink_leaving_the_run_is_refused_not_copied() {
    let tmp = scratch("symlink");
    let run = run_dir(tmp.path());
    let outside = tmp.path().join("outside");
    write(&outside.join("stdout.log"), "a secret from elsewhere");
    let attempt = run.join("greets/claude/repeat-1/attempt-1");
    std::fs::remove_dir_all(&attempt).unwrap();
    std::os::unix::fs::symlink(&outside, &attempt).unwrap();
    let recording = tmp.path().join("recording");
    let output = record(tmp.path(), &[&run, &recording], false);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "{} is a symbolic link to `{}`",
            attempt.display(),
            outside.display()
        )) && stderr.contains("outside the recording"),
        "{stderr}"
    );
    let copied = recording.is_dir().then(|| contents(&recording));
    assert!(
        !format!("{copied:?}").contains("a secret from elsewhere"),
        "{copied:?}"
    );
    tmp.close().unwrap();
}
