use std::ffi::OsString;
use std::path::PathBuf;

use libtest_mimic::{Arguments, ColorSetting, FormatSetting};

use super::*;

fn run(args: &[&str]) -> Result<(SkillgymArgs, Arguments), UsageError> {
    let argv = std::iter::once("bench").chain(args.iter().copied());
    match parse(argv)? {
        Invocation::Run(libtest, ours) => Ok((*ours, *libtest)),
        Invocation::Help(_) => panic!("{args:?} asked for help"),
    }
}

fn ours(args: &[&str]) -> SkillgymArgs {
    run(args)
        .unwrap_or_else(|error| panic!("{args:?}: {error}"))
        .0
}

fn error(args: &[&str]) -> UsageError {
    match run(args) {
        Ok(parsed) => panic!("{args:?} parsed: {parsed:?}"),
        Err(error) => error,
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let vars: Vec<(String, String)> = vars
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |key| vars.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
}

#[test]
fn parses_a_mixed_argv() {
    let (ours, libtest) = run(&[
        "--exact",
        "foo",
        "--tag",
        "a,b",
        "--tag",
        "c",
        "--skip",
        "x",
        "--runner=claude",
        "--test-threads",
        "2",
    ])
    .unwrap();
    assert_eq!(ours.tags, strings(&["a", "b", "c"]));
    assert_eq!(ours.runners, strings(&["claude"]));
    assert!(libtest.exact);
    assert_eq!(libtest.filter.as_deref(), Some("foo"));
    assert_eq!(libtest.skip, strings(&["x"]));
    assert_eq!(libtest.test_threads, Some(2));
}

#[test]
fn parses_every_flag_in_both_forms() {
    let expected = SkillgymArgs {
        tags: strings(&["a", "b"]),
        runners: strings(&["claude", "codex"]),
        variants: strings(&["with", "without"]),
        variants_from_env: false,
        repeat: Some(3),
        repeat_failure: Some(1),
        retry_failed: Some(2),
        samples: Some(5),
        schedule: Some(Schedule::IsolatedByRunner),
        max_parallel: Some(4),
        output_dir: Some(PathBuf::from("out/runs")),
        workspace_root: Some(PathBuf::from("/tmp/ws")),
        config: Some(PathBuf::from("cfg/skillgym.yaml")),
        reporters: strings(&["json"]),
        mock: Some(true),
        mock_script: Some(PathBuf::from("scripts/a.yaml")),
        replay: Some(PathBuf::from("runs/recorded")),
        update_snapshots: Some(true),
        update_snapshots_from_env: false,
        require_agents: None,
        runners_from_env: false,
        format_junit: false,
        explain: None,
        rerun: false,
        more_filters: Vec::new(),
    };
    let pairs = [
        ("--tag", " a , b "),
        ("--runner", "claude,codex"),
        ("--variant", "with,without"),
        ("--repeat", "3"),
        ("--repeat-failure", "1"),
        ("--retry-failed", "2"),
        ("--samples", "5"),
        ("--schedule", "isolated-by-runner"),
        ("--max-parallel", "4"),
        ("--output-dir", "out/runs"),
        ("--workspace-root", "/tmp/ws"),
        ("--config", "cfg/skillgym.yaml"),
        ("--reporter", "json"),
        ("--mock-script", "scripts/a.yaml"),
        ("--replay", "runs/recorded"),
    ];
    let separate: Vec<&str> = pairs
        .iter()
        .flat_map(|(flag, value)| [*flag, *value])
        .chain(["--mock", "--update-snapshots"])
        .collect();
    assert_eq!(ours(&separate), expected);
    let joined: Vec<String> = pairs
        .iter()
        .map(|(flag, value)| format!("{flag}={value}"))
        .chain(["--mock=1".to_owned(), "--update-snapshots=true".to_owned()])
        .collect();
    let joined: Vec<&str> = joined.iter().map(String::as_str).collect();
    assert_eq!(ours(&joined), expected);
    assert_eq!(ours(&[]), SkillgymArgs::default());
}

#[test]
fn update_snapshots_is_a_switch_and_remembers_where_it_came_from() {
    assert_eq!(ours(&["--update-snapshots"]).update_snapshots, Some(true));
    assert_eq!(
        ours(&["--update-snapshots=0"]).update_snapshots,
        Some(false)
    );
    let variable = from_env(env(&[("SKILLGYM_UPDATE_SNAPSHOTS", "1")])).unwrap();
    assert_eq!(
        (
            variable.update_snapshots,
            variable.update_snapshots_from_env
        ),
        (Some(true), true)
    );
    let flag_wins = ours(&["--update-snapshots=false"]).or(variable.clone());
    assert_eq!(
        (
            flag_wins.update_snapshots,
            flag_wins.update_snapshots_from_env
        ),
        (Some(false), false)
    );
    let from_variable = ours(&[]).or(variable);
    assert_eq!(
        (
            from_variable.update_snapshots,
            from_variable.update_snapshots_from_env
        ),
        (Some(true), true)
    );
}

#[test]
fn mock_is_a_switch_with_an_optional_boolean() {
    let (ours, libtest) = run(&["--mock", "filter"]).unwrap();
    assert_eq!(ours.mock, Some(true));
    assert_eq!(libtest.filter.as_deref(), Some("filter"));
    assert_eq!(self::ours(&["--mock=no"]).mock, Some(false));
    let err = error(&["--mock=sure"]);
    assert_eq!(
        err.to_string(),
        "`--mock` expects 1 or 0 (true or false), found `sure`"
    );
    assert_eq!(err.subject(), "--mock");
    assert_eq!(
        from_env(env(&[("SKILLGYM_MOCK", "0")])).unwrap().mock,
        Some(false)
    );
    assert_eq!(
        from_env(env(&[("SKILLGYM_MOCK", "true")])).unwrap().mock,
        Some(true)
    );
    let err = from_env(env(&[("SKILLGYM_MOCK", "sure")])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "`SKILLGYM_MOCK` expects 1 or 0 (true or false), found `sure`"
    );
    assert_eq!(error(&["--mok"]).suggestion(), Some("--mock"));
}

#[test]
fn lists_are_deduplicated_in_first_seen_order() {
    let parsed = ours(&["--tag", "b,a", "--tag=a,c,b", "--runner", "x,x"]);
    assert_eq!(parsed.tags, strings(&["b", "a", "c"]));
    assert_eq!(parsed.runners, strings(&["x"]));
}

#[test]
fn empty_list_piece_is_an_error() {
    let err = error(&["--tag", "a,,b"]);
    assert_eq!(
        err.to_string(),
        "`--tag` expects non-empty comma-separated values, found `a,,b`"
    );
    assert_eq!(err.subject(), "--tag");
    error(&["--runner", "a, "]);
}

#[test]
fn missing_value_is_an_error() {
    let err = error(&["--repeat"]);
    assert_eq!(err.to_string(), "`--repeat` needs a value: `--repeat <N>`");
    let err = error(&["--tag", "--exact"]);
    assert_eq!(err.subject(), "--tag");
    assert_eq!(
        err.to_string(),
        "`--tag` needs a value: `--tag <TAG[,TAG...]>`"
    );
    assert_eq!(error(&["--tag="]).subject(), "--tag");
    assert_eq!(error(&["--config", ""]).subject(), "--config");
}

#[test]
fn bad_values_are_errors() {
    let err = error(&["--repeat", "abc"]);
    assert_eq!(
        err.to_string(),
        "`--repeat` expects an integer >= 1, found `abc`"
    );
    let err = error(&["--repeat=0"]);
    assert_eq!(
        err.message(),
        "`--repeat` expects an integer >= 1, found `0`"
    );
    assert_eq!(error(&["--repeat", "4294967296"]).subject(), "--repeat");
    error(&["--repeat-failure", "-1"]);
    error(&["--max-parallel", "0"]);
    error(&["--max-parallel", "1.5"]);
    assert_eq!(ours(&["--repeat-failure", "0"]).repeat_failure, Some(0));
    let err = error(&["--schedule", "paralel"]);
    assert_eq!(
        err.to_string(),
        "`--schedule` expects one of serial, parallel, isolated-by-runner, \
         found `paralel`; did you mean `parallel`?"
    );
    assert_eq!(err.suggestion(), Some("parallel"));
    let err = error(&["--reporter", " "]);
    assert_eq!(
        err.message(),
        "`--reporter` expects non-empty comma-separated values, found ` `"
    );
}

#[test]
fn unknown_flag_gets_a_suggestion_from_both_sets() {
    let err = error(&["--tgs", "smoke"]);
    assert_eq!(
        err.to_string(),
        "unknown flag `--tgs`; did you mean `--tag`?"
    );
    assert_eq!(err.subject(), "--tgs");
    assert_eq!(err.suggestion(), Some("--tag"));
    assert_eq!(error(&["--exactt", "foo"]).suggestion(), Some("--exact"));
    let err = error(&["--test-thread=2"]);
    assert_eq!(
        err.to_string(),
        "unknown flag `--test-thread`; did you mean `--test-threads`?"
    );
    assert_eq!(
        error(&["--frobnicate"]).to_string(),
        "unknown flag `--frobnicate`"
    );
}

#[test]
fn several_filters_are_taken_as_libtest_takes_them() {
    let (ours, libtest) = run(&["one", "--tag", "smoke", "two", "three"]).unwrap();
    assert_eq!(libtest.filter.as_deref(), Some("one"));
    assert_eq!(ours.more_filters, strings(&["two", "three"]));
    assert_eq!(ours.tags, strings(&["smoke"]));
    let (ours, libtest) = run(&["--exact", "[a] x", "[b] y"]).unwrap();
    assert!(libtest.exact);
    assert_eq!(libtest.filter.as_deref(), Some("[a] x"));
    assert_eq!(ours.more_filters, strings(&["[b] y"]));
    let (ours, _) = run(&["one"]).unwrap();
    assert!(ours.more_filters.is_empty());
}

#[test]
fn libtest_flags_are_parsed_beside_ours() {
    let (ours, libtest) = run(&[
        "--include-ignored",
        "--test",
        "--list",
        "--nocapture",
        "--show-output",
        "--exact",
        "--test-threads=3",
        "--logfile",
        "log.txt",
        "--skip=--runner",
        "--skip",
        "x",
        "--color",
        "never",
        "--format=json",
        "-Z",
        "unstable-options",
        "--tag",
        "smoke",
        "name",
    ])
    .unwrap();
    assert_eq!(ours.tags, strings(&["smoke"]));
    assert!(
        ours.runners.is_empty(),
        "`--skip --runner`: a libtest value"
    );
    assert!(libtest.include_ignored && libtest.test && libtest.list);
    assert!(libtest.nocapture && libtest.show_output && libtest.exact);
    assert_eq!(libtest.test_threads, Some(3));
    assert_eq!(libtest.logfile.as_deref(), Some("log.txt"));
    assert_eq!(libtest.skip, strings(&["--runner", "x"]));
    assert_eq!(libtest.color, Some(ColorSetting::Never));
    assert_eq!(libtest.format, Some(FormatSetting::Json));
    assert_eq!(libtest.filter.as_deref(), Some("name"));
    let (_, libtest) = run(&["-q", "--ignored", "--bench"]).unwrap();
    assert!(libtest.quiet && libtest.ignored && libtest.bench);
    let err = error(&["--format", "jsn"]);
    assert_eq!(err.subject(), "--format");
    assert!(err.to_string().contains("jsn"), "{err}");
}

#[test]
fn help_lists_libtest_and_skillgym_flags() {
    let text = match parse(["bench", "--help"]).unwrap() {
        Invocation::Help(text) => text,
        other => panic!("{other:?}"),
    };
    for flag in [
        "--tag",
        "--runner",
        "--repeat ",
        "--repeat-failure",
        "--retry-failed",
        "--schedule",
        "--max-parallel",
        "--output-dir",
        "--config",
        "--reporter",
        "--mock",
        "--mock-script",
        "--update-snapshots",
        "--exact",
        "--list",
        "--test-threads",
        "--skip",
        "--format",
    ] {
        assert!(text.contains(flag), "{flag} missing from\n{text}");
    }
    assert!(text.contains("skillgym options"), "{text}");
    assert!(text.contains("SKILLGYM_REPEAT_FAILURE"), "{text}");
    let Ok(Invocation::Help(short)) = parse(["bench", "-h"]) else {
        panic!("-h is not help");
    };
    assert!(short.contains("--mock-script") && short.len() < text.len());
    assert_eq!(help_text(), text);
}

#[test]
fn an_empty_argv_runs_everything() {
    match parse(Vec::<OsString>::new()).unwrap() {
        Invocation::Run(libtest, ours) => {
            assert_eq!(*ours, SkillgymArgs::default());
            assert!(libtest.filter.is_none());
        }
        other => panic!("{other:?}"),
    }
}

#[cfg(unix)]
#[test]
fn non_utf8_values_are_refused() {
    use std::os::unix::ffi::OsStringExt;
    let odd = || OsString::from_vec(vec![0x66, 0xff]);
    let Err(err) = parse(vec!["bench".into(), "--config".into(), odd()]) else {
        panic!("a non-UTF-8 --config parsed");
    };
    assert!(err.to_string().contains("UTF-8"), "{err}");
    // Each error names the flag, or the argument, at fault.
    assert_eq!(err.subject(), "--config");
    assert_eq!(
        err.to_string(),
        "the value of `--config` is not valid UTF-8: `f\u{fffd}`"
    );
    let mut equals = OsString::from("--tag=");
    equals.push(odd());
    let err = parse(vec!["bench".into(), "--mock".into(), equals]).unwrap_err();
    assert_eq!(err.subject(), "--tag");
    let err = parse(vec!["bench".into(), "--mock".into(), odd()]).unwrap_err();
    assert_eq!(err.subject(), "f\u{fffd}");
    assert_eq!(
        err.to_string(),
        "the argument `f\u{fffd}` is not valid UTF-8"
    );
}

#[test]
fn reads_every_env_var() {
    let args = from_env(env(&[
        ("SKILLGYM_TAG", "a,b"),
        ("SKILLGYM_RUNNER", "claude"),
        ("SKILLGYM_VARIANT", "with"),
        ("SKILLGYM_REPEAT", "2"),
        ("SKILLGYM_REPEAT_FAILURE", "1"),
        ("SKILLGYM_RETRY_FAILED", "3"),
        ("SKILLGYM_SAMPLES", "4"),
        ("SKILLGYM_SCHEDULE", "serial"),
        ("SKILLGYM_MAX_PARALLEL", "8"),
        ("SKILLGYM_OUTPUT_DIR", "out"),
        ("SKILLGYM_WORKSPACE_ROOT", "ws"),
        ("SKILLGYM_CONFIG", "sg.yaml"),
        ("SKILLGYM_REPORTER", "junit"),
        ("SKILLGYM_MOCK", "1"),
        ("SKILLGYM_MOCK_SCRIPT", "s.yaml"),
        ("SKILLGYM_REPLAY", "runs/r1"),
        ("SKILLGYM_UPDATE_SNAPSHOTS", "1"),
    ]))
    .unwrap();
    assert_eq!(
        args,
        SkillgymArgs {
            tags: strings(&["a", "b"]),
            runners: strings(&["claude"]),
            variants: strings(&["with"]),
            variants_from_env: true,
            repeat: Some(2),
            repeat_failure: Some(1),
            retry_failed: Some(3),
            samples: Some(4),
            schedule: Some(Schedule::Serial),
            max_parallel: Some(8),
            output_dir: Some(PathBuf::from("out")),
            workspace_root: Some(PathBuf::from("ws")),
            config: Some(PathBuf::from("sg.yaml")),
            reporters: strings(&["junit"]),
            mock: Some(true),
            mock_script: Some(PathBuf::from("s.yaml")),
            replay: Some(PathBuf::from("runs/r1")),
            update_snapshots: Some(true),
            update_snapshots_from_env: true,
            require_agents: None,
            runners_from_env: true,
            format_junit: false,
            explain: None,
            rerun: false,
            more_filters: Vec::new(),
        }
    );
}

#[test]
fn every_flag_has_its_variable_in_the_help() {
    let help = help_text();
    let command = <flags::EnvLine as clap::CommandFactory>::command();
    let longs = long_flags(&command);
    assert_eq!(longs.len(), 18, "{longs:?}");
    for long in longs {
        let name = env_name(long);
        // Every variable is read, as its flag...
        let read = ["1", "serial"]
            .into_iter()
            .find_map(|value| from_env(env(&[(&name, value)])).ok())
            .unwrap_or_else(|| panic!("{name} takes neither 1 nor serial"));
        assert_ne!(read, SkillgymArgs::default(), "{name} was not read");
        let flag = ["1", "serial"]
            .into_iter()
            .find_map(|value| run(&[&format!("--{long}={value}")]).ok())
            .unwrap()
            .0;
        // (Apart from remembering that it came from the variable, which errors then name.)
        let read = SkillgymArgs {
            runners_from_env: false,
            variants_from_env: false,
            update_snapshots_from_env: false,
            ..read
        };
        assert_eq!(read, flag, "{name} and --{long} differ");
        // ...and the help names both.
        assert!(help.contains(&format!("--{long}")), "{long}");
        assert!(help.contains(&format!("[env: {name}]")), "{name}");
    }
    assert!(help.contains("SKILLGYM_"), "{help}");
}

#[test]
fn empty_env_values_are_unset_and_bad_ones_name_the_variable() {
    let args = from_env(env(&[("SKILLGYM_TAG", ""), ("SKILLGYM_REPEAT", " ")])).unwrap();
    assert_eq!(args, SkillgymArgs::default());
    let err = from_env(env(&[("SKILLGYM_MAX_PARALLEL", "zero")])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "`SKILLGYM_MAX_PARALLEL` expects an integer >= 1, found `zero`"
    );
    assert_eq!(err.subject(), "SKILLGYM_MAX_PARALLEL");
    let err = from_env(env(&[("SKILLGYM_SCHEDULE", "serail")])).unwrap_err();
    assert_eq!(err.suggestion(), Some("serial"));
}

#[test]
fn flags_override_env_field_by_field() {
    let env_args = from_env(env(&[
        ("SKILLGYM_TAG", "env-tag"),
        ("SKILLGYM_RUNNER", "env-runner"),
        ("SKILLGYM_REPEAT", "2"),
        ("SKILLGYM_SCHEDULE", "serial"),
        ("SKILLGYM_REPORTER", "json"),
    ]))
    .unwrap();
    let merged = ours(&["--tag", "flag-tag", "--repeat", "5"]).or(env_args);
    assert_eq!(merged.tags, strings(&["flag-tag"]));
    assert_eq!(merged.runners, strings(&["env-runner"]));
    assert_eq!(merged.repeat, Some(5));
    assert_eq!(merged.schedule, Some(Schedule::Serial));
    assert_eq!(merged.reporters, strings(&["json"]));
}

#[test]
fn retry_failed_flag_beats_repeat_failure_env() {
    let env_args = from_env(env(&[("SKILLGYM_REPEAT_FAILURE", "4")])).unwrap();
    let merged = ours(&["--retry-failed", "1"]).or(env_args.clone());
    assert_eq!(
        (merged.repeat_failure, merged.retry_failed),
        (None, Some(1))
    );
    let merged = SkillgymArgs::default().or(env_args);
    assert_eq!(
        (merged.repeat_failure, merged.retry_failed),
        (Some(4), None)
    );
}

#[test]
fn format_junit_is_skillgyms_and_keeps_libtest_quiet() {
    for argv in [
        &["--format", "junit", "--exact", "x"][..],
        &["--format=junit", "--exact", "x"][..],
    ] {
        let (args, libtest) = run(argv).unwrap();
        assert!(args.format_junit, "{argv:?}");
        assert_eq!(libtest.format, Some(libtest_mimic::FormatSetting::Terse));
        assert_eq!(libtest.filter.as_deref(), Some("x"));
        assert!(libtest.exact);
    }
    let (args, libtest) = run(&["--format", "json"]).unwrap();
    assert!(!args.format_junit);
    assert_eq!(libtest.format, Some(libtest_mimic::FormatSetting::Json));
    assert!(error(&["--format", "xml"]).message().contains("xml"));
}

#[test]
fn explain_flags_are_command_line_only() {
    let args = ours(&["--explain", "runs/r1/a/fake", "--rerun", "--mock"]);
    assert_eq!(args.explain, Some(PathBuf::from("runs/r1/a/fake")));
    assert!(args.rerun);
    assert_eq!(args.mock, Some(true));
    assert!(!ours(&["--explain=x"]).rerun);
    let error = error(&["--rerun"]);
    assert!(error.to_string().contains("--explain"), "{error}");
    let from_env = from_env(env(&[("SKILLGYM_EXPLAIN", "x"), ("SKILLGYM_RERUN", "1")])).unwrap();
    assert_eq!(from_env, SkillgymArgs::default());
}
