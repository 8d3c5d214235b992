//! The cases of the child harness. Every prompt is a fake-agent script (the runners set
//! `FAKE_AGENT_SCRIPT=-`), so each case scripts its own agent. `count <name>` numbers the
//! sessions of a case across attempts and repetitions (state in `FAKE_AGENT_STATE_DIR`), and
//! `on`/`not` make a session depend on its number.

use skillgym::prelude::*;

/// What the scripts print as their answer.
fn answered_ok(report: &SessionReport) {
    report.expect().output().equals("ok");
}

pub mod samples {
    use super::*;

    // Five independent sessions: 2 and 4 fail. None is retried and none stops the others.
    #[skillgym::case(
        samples = 5,
        prompt = r#"
count sampled
on 1 emit {"type":"usage","total_tokens":100,"cost_usd":0.01}
on 2 emit {"type":"usage","total_tokens":200,"cost_usd":0.02}
on 3 emit {"type":"usage","total_tokens":300,"cost_usd":0.03}
on 4 emit {"type":"usage","total_tokens":400,"cost_usd":0.04}
on 5 emit {"type":"usage","total_tokens":500,"cost_usd":0.05}
on 2,4 emit {"type":"message","role":"assistant","phase":"final","text":"wrong"}
not 2,4 emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn two_of_five_fail(report: &SessionReport) {
        answered_ok(report);
    }

    // The same five sessions against gates: 3/5 meets 0.6 and misses 0.8.
    #[skillgym::case(
        samples = 5,
        min_pass_rate = 0.6,
        prompt = r#"
count gate_met
on 2,4 emit {"type":"message","role":"assistant","phase":"final","text":"wrong"}
not 2,4 emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn gate_met(report: &SessionReport) {
        answered_ok(report);
    }

    #[skillgym::case(
        samples = 5,
        min_pass_rate = 0.8,
        prompt = r#"
count gate_missed
on 2,4 emit {"type":"message","role":"assistant","phase":"final","text":"wrong"}
not 2,4 emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn gate_missed(report: &SessionReport) {
        answered_ok(report);
    }

    // Sampling stops as soon as the gate is settled: every session passes (or fails), and the
    // 95% confidence sequence leaves 0.5 behind after the seventh.
    #[skillgym::case(
        samples = 40,
        min_pass_rate = 0.5,
        stop_when_decided,
        prompt = r#"
emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn decided_meets(report: &SessionReport) {
        answered_ok(report);
    }

    #[skillgym::case(
        samples = 40,
        min_pass_rate = 0.5,
        stop_when_decided,
        prompt = r#"
emit {"type":"message","role":"assistant","phase":"final","text":"wrong"}
"#
    )]
    fn decided_misses(report: &SessionReport) {
        answered_ok(report);
    }

    // Every sample passes.
    #[skillgym::case(
        samples = 3,
        prompt = r#"
emit {"type":"usage","total_tokens":100}
emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn all_pass(report: &SessionReport) {
        answered_ok(report);
    }
}

/// Experiments: the same case under the variants of the run's config (`without`, `with`),
/// whose `env` sets the stand-in agent's chance to pass (`PASS_RATE`) and its seed.
pub mod experiment {
    use super::*;

    #[skillgym::case(
        samples = 30,
        variants = ["without", "with"],
        prompt = r#"
count experiment_lift
emit {"type":"usage","total_tokens":100}
chance EXTRA_TOKENS emit {"type":"usage","total_tokens":50}
chance PASS_RATE emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn lift(report: &SessionReport) {
        answered_ok(report);
    }

    // Gates on the lift: met (the skill adds about 70 points), and missed.
    #[skillgym::case(
        samples = 20,
        variants = ["without", "with"],
        min_lift = 0.3,
        prompt = r#"
count experiment_lift_met
chance PASS_RATE emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn lift_met(report: &SessionReport) {
        answered_ok(report);
    }

    #[skillgym::case(
        samples = 20,
        variants = ["without", "with"],
        min_lift = 0.95,
        prompt = r#"
count experiment_lift_missed
chance PASS_RATE emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn lift_missed(report: &SessionReport) {
        answered_ok(report);
    }

    // Passes when the variant's instruction file is in the workspace.
    #[skillgym::case(
        variants = ["without", "with"],
        prompt = r#"
read AGENTS.md
emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn briefed(report: &SessionReport) {
        report.expect().file_reads().includes("AGENTS.md");
    }

    // Reads the skill under test as each variant installed it.
    #[skillgym::case(
        variants = ["now", "old"],
        prompt = r#"
read .agents/skills/demo/SKILL.md
emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn git_version(report: &SessionReport) {
        answered_ok(report);
    }

    // Stops once the sign of the lift is settled (the sequential sign test on pairs).
    #[skillgym::case(
        samples = 200,
        variants = ["without", "with"],
        stop_when_decided,
        prompt = r#"
count experiment_decided
chance PASS_RATE emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn decided(report: &SessionReport) {
        answered_ok(report);
    }
}

pub mod repeat {
    use super::*;

    #[skillgym::case(
        repeat = 3,
        prompt = r#"
count all_pass
on 1 emit {"type":"usage","total_tokens":100}
on 2 emit {"type":"usage","total_tokens":200}
on 3 emit {"type":"usage","total_tokens":300}
emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn all_pass(report: &SessionReport) {
        answered_ok(report);
    }

    // Session 2 (repetition 2, attempt 1) fails slowly and expensively; its retry recovers.
    #[skillgym::case(
        repeat = 3,
        repeat_failure = 1,
        prompt = r#"
count recovers
on 1 emit {"type":"usage","total_tokens":100}
on 2 emit {"type":"usage","total_tokens":90000}
on 2 sleep 1500
on 3 emit {"type":"usage","total_tokens":200}
on 4 emit {"type":"usage","total_tokens":300}
on 2 emit {"type":"message","role":"assistant","phase":"final","text":"wrong"}
not 2 emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn recovers(report: &SessionReport) {
        answered_ok(report);
    }

    // Repetition 3 fails in both its attempts (sessions 3 and 4): repetition 4 never runs.
    #[skillgym::case(
        repeat = 4,
        repeat_failure = 1,
        prompt = r#"
count exhausts
on 3,4 emit {"type":"message","role":"assistant","phase":"final","text":"wrong"}
not 3,4 emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn exhausts(report: &SessionReport) {
        answered_ok(report);
    }

    // Sessions 1 and 2 fail, 3 and later pass: passes with 2 or more retries allowed.
    #[skillgym::case(
        retry_failed = 2,
        prompt = r#"
count legacy_alias
on 1,2 emit {"type":"message","role":"assistant","phase":"final","text":"wrong"}
not 1,2 emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn legacy_alias(report: &SessionReport) {
        answered_ok(report);
    }

    // `repeat_failure` wins over `retry_failed`: 1 retry, not 3, so it fails.
    #[skillgym::case(
        repeat_failure = 1,
        retry_failed = 3,
        prompt = r#"
count both_given
on 1,2 emit {"type":"message","role":"assistant","phase":"final","text":"wrong"}
not 1,2 emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn both_given(report: &SessionReport) {
        answered_ok(report);
    }

    // No per-case values: the config and the flags decide.
    #[skillgym::case(prompt = r#"
count unset
on 1,2 emit {"type":"message","role":"assistant","phase":"final","text":"wrong"}
not 1,2 emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#)]
    fn unset(report: &SessionReport) {
        answered_ok(report);
    }
}

pub mod status {
    use super::*;

    #[skillgym::case(
        prompt = r#"emit {"type":"message","role":"assistant","phase":"final","text":"ok"}"#
    )]
    fn passes(report: &SessionReport) {
        answered_ok(report);
    }

    #[skillgym::case(
        prompt = r#"emit {"type":"message","role":"assistant","phase":"final","text":"no"}"#
    )]
    fn fails(report: &SessionReport) {
        answered_ok(report);
    }

    #[skillgym::case(
        expected_fail,
        prompt = r#"emit {"type":"message","role":"assistant","phase":"final","text":"no"}"#
    )]
    fn expected_fail_fails(report: &SessionReport) {
        answered_ok(report);
    }

    // An unexpected pass is not retried, whatever `repeat_failure` allows.
    #[skillgym::case(
        expected_fail,
        repeat_failure = 2,
        prompt = r#"emit {"type":"message","role":"assistant","phase":"final","text":"ok"}"#
    )]
    fn expected_fail_passes(report: &SessionReport) {
        answered_ok(report);
    }
}

/// One failure per origin the harness can produce, each with and without `expected_fail`:
/// only the assertion failure may be expected.
pub mod origin {
    use super::*;

    macro_rules! origin_cases {
        ($($name:ident, $expected:ident: [$($arg:ident = $value:expr),*] $prompt:literal;)*) => {$(
            #[skillgym::case($($arg = $value,)* prompt = $prompt)]
            fn $name(report: &SessionReport) {
                answered_ok(report);
            }

            #[skillgym::case($($arg = $value,)* expected_fail, prompt = $prompt)]
            fn $expected(report: &SessionReport) {
                answered_ok(report);
            }
        )*};
    }

    origin_cases! {
        assertion, assertion_expected: []
            r#"emit {"type":"message","role":"assistant","phase":"final","text":"no"}"#;
        runner, runner_expected: [] "stderr the model said no\nexit 7";
        crash, crash_expected: [] "crash";
        timeout, timeout_expected: [timeout = "300ms"] "hang";
        max_steps, max_steps_expected: [max_steps = 2] r#"
emit {"type":"message","role":"assistant","text":"one"}
emit {"type":"message","role":"assistant","text":"two"}
emit {"type":"message","role":"assistant","text":"three"}
hang
"#;
        normalization, normalization_expected: []
            "print I am a plain-text agent\nprint with no JSON at all";
        workspace, workspace_expected: [workspace = "tests/execution/no-such-template"] "echo-prompt";
    }

    // `bootstrap` fails through the configuration (a failing bootstrap command).
    #[skillgym::case(prompt = "echo-prompt")]
    fn bootstrap(_report: &SessionReport) {}

    #[skillgym::case(expected_fail, prompt = "echo-prompt")]
    fn bootstrap_expected(_report: &SessionReport) {}
}

pub mod classes {
    use super::*;

    fn slow_agent(failure: &skillgym::Failure) -> Option<FailureClass> {
        (failure.origin == skillgym::FailureOrigin::Timeout)
            .then(|| FailureClass::new("slow-agent", "The agent is too slow"))
    }

    // The hook reclassifies an infrastructure failure; the origin stays.
    #[skillgym::case(timeout = "300ms", classify_failure = slow_agent, prompt = "hang")]
    fn hook_on_timeout(_report: &SessionReport) {}

    // The hook returns nothing for assertion failures: the attached class stays.
    #[skillgym::case(
        classify_failure = slow_agent,
        prompt = r#"emit {"type":"message","role":"assistant","phase":"final","text":"no"}"#
    )]
    fn hook_declines(report: &SessionReport) {
        classify("wrong-answer", || answered_ok(report));
    }
}

/// Each session marks its start and end in the state file `spans`, sleeping in between.
pub mod sched {
    use super::*;

    macro_rules! sched_cases {
        ($($name:ident: $script:literal;)*) => {$(
            #[skillgym::case(prompt = $script)]
            fn $name(report: &SessionReport) {
                answered_ok(report);
            }
        )*};
    }

    sched_cases! {
        s1: "log spans +\nsleep 240\nlog spans -\nemit {\"type\":\"message\",\"role\":\"assistant\",\"phase\":\"final\",\"text\":\"ok\"}";
        s2: "log spans +\nsleep 60\nlog spans -\nemit {\"type\":\"message\",\"role\":\"assistant\",\"phase\":\"final\",\"text\":\"ok\"}";
        s3: "log spans +\nsleep 200\nlog spans -\nemit {\"type\":\"message\",\"role\":\"assistant\",\"phase\":\"final\",\"text\":\"ok\"}";
        s4: "log spans +\nsleep 80\nlog spans -\nemit {\"type\":\"message\",\"role\":\"assistant\",\"phase\":\"final\",\"text\":\"ok\"}";
        s5: "log spans +\nsleep 160\nlog spans -\nemit {\"type\":\"message\",\"role\":\"assistant\",\"phase\":\"final\",\"text\":\"ok\"}";
        s6: "log spans +\nsleep 100\nlog spans -\nemit {\"type\":\"message\",\"role\":\"assistant\",\"phase\":\"final\",\"text\":\"ok\"}";
    }
}

pub mod limits {
    use super::*;

    // Starts two grandchildren in its process group, then talks too much.
    #[skillgym::case(
        max_steps = 2,
        prompt = r#"
fork 2
emit {"type":"message","role":"assistant","text":"one"}
emit {"type":"message","role":"assistant","text":"two"}
stderr about to exceed
emit {"type":"message","role":"assistant","text":"three"}
hang
"#
    )]
    fn max_steps_kill(_report: &SessionReport) {}

    #[skillgym::case(timeout = "400ms", prompt = "fork 2\nhang")]
    fn timeout_kill(_report: &SessionReport) {}

    // No timeout of its own: `defaults.timeout` applies.
    #[skillgym::case(prompt = "hang")]
    fn default_timeout(_report: &SessionReport) {}
}

pub mod ids {
    use super::*;

    pub mod a {
        use super::*;

        // `cases::ids::a::b`: the same path segment as `cases::ids::a.b` once `::` is `.`.
        #[skillgym::case(prompt = "echo-prompt")]
        fn b(_report: &SessionReport) {}
    }

    #[skillgym::case(id = "cases::ids::a.b", prompt = "echo-prompt")]
    fn dotted(_report: &SessionReport) {}

    // Longer than a file name may be.
    #[skillgym::case(
        id = "cases::ids::xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        prompt = "echo-prompt"
    )]
    fn long(_report: &SessionReport) {}
}

pub mod secrets {
    use super::*;

    // Prints three secrets on stdout (in a message) and stderr, then fails.
    #[skillgym::case(
        prompt = "echo-env SERVICE_API_KEY\necho-env HARNESS_TOKEN\necho-env PLAIN_NAME\nexit 1"
    )]
    fn echoed(_report: &SessionReport) {}
}

pub mod escape {
    use super::*;

    // Leaves a child in its process group and one that escaped it, and exits.
    #[skillgym::case(prompt = "fork 1\nfork-escaped 1\necho-prompt")]
    fn a_leaves(_report: &SessionReport) {}

    // Runs after `a_leaves` (serial schedule): both its children are gone by then.
    #[skillgym::case(prompt = "alive-pids")]
    fn b_finds_none(report: &SessionReport) {
        assert_eq!(report.final_output(), "alive: 0");
    }
}

pub mod interrupt {
    use super::*;

    // Prints a line, starts a child in its process group and one that escapes it with
    // `setsid`, then works until it is killed.
    #[skillgym::case(prompt = r#"
emit {"type":"message","role":"assistant","text":"working"}
fork 1
fork-escaped 1
hang
"#)]
    fn busy(_report: &SessionReport) {}

    // Waits for a slot behind the busy ones: never started once the run is interrupted.
    #[skillgym::case(prompt = "echo-prompt")]
    fn queued(_report: &SessionReport) {}
}

pub mod workspace {
    use std::path::Path;

    use super::*;

    /// What the template holds (see `template()` in main.rs).
    fn has_template(dir: &Path) {
        assert_eq!(
            std::fs::read_to_string(dir.join(".env")).unwrap(),
            "SECRET=1\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join(".git/HEAD")).unwrap(),
            "ref: refs/heads/main\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("src/lib.rs")).unwrap(),
            "// lib\n"
        );
        let link = dir.join("README.link");
        assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("src/lib.rs"));
        let outside = dir.join("outside.link");
        assert!(outside.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(
            std::fs::read_link(&outside).unwrap(),
            Path::new("/etc/hostname")
        );
    }

    // Records its cwd and environment; checks the template and what the bootstrap made.
    #[skillgym::case(prompt = r#"
record agent.json
write agent-was-here yes
emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#)]
    fn template_copied(report: &SessionReport, ctx: &mut CaseContext) {
        has_template(ctx.workspace_dir());
        answered_ok(report);
    }

    // Only records where it ran.
    #[skillgym::case(prompt = r#"
record agent.json
emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#)]
    fn records_cwd(report: &SessionReport) {
        answered_ok(report);
    }

    // Fails on its first session, passes on its retry: one kept, one removed workspace.
    #[skillgym::case(
        repeat_failure = 1,
        prompt = r#"
count kept_then_removed
write agent-was-here yes
on 1 emit {"type":"message","role":"assistant","phase":"final","text":"no"}
not 1 emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn kept_then_removed(report: &SessionReport) {
        answered_ok(report);
    }

    // Fails every time: its workspace is kept.
    #[skillgym::case(prompt = r#"
write agent-was-here yes
emit {"type":"message","role":"assistant","phase":"final","text":"no"}
"#)]
    fn always_fails(report: &SessionReport) {
        answered_ok(report);
    }

    // Sees what the bootstrap wrote (a shared workspace: every session sees the same dir).
    #[skillgym::case(prompt = r#"
record agent.json
emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#)]
    fn bootstrapped(report: &SessionReport, ctx: &mut CaseContext) {
        assert!(
            ctx.workspace_dir().join("bootstrapped").is_file(),
            "the bootstrap ran in {}",
            ctx.workspace_dir().display()
        );
        answered_ok(report);
    }

    // Its own template (relative to the crate dir, made by the driver) makes it isolated
    // whatever the configured mode.
    #[skillgym::case(
        workspace = "target/e2e-tmp/execution-case-template",
        prompt = r#"
record agent.json
emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn own_template(report: &SessionReport, ctx: &mut CaseContext) {
        assert_eq!(
            std::fs::read_to_string(ctx.workspace_dir().join("case-template.txt")).unwrap(),
            "from the case\n"
        );
        answered_ok(report);
    }
}

/// `--mock` dry runs: the fake agent asks the scripted model once (`chat`); the checks read
/// what it answered from the reports.
pub mod dry_run {
    use super::*;

    #[skillgym::case(prompt = "chat", mock = "tests/execution/scripts/hello.yaml")]
    fn case_script(_report: &SessionReport) {}

    #[skillgym::case(prompt = "chat")]
    fn run_script(_report: &SessionReport) {}
}

pub mod skills {
    use super::*;

    // Reads the skills installed for a `command` agent (`.agents/skills`): the run's `listed`
    // and this case's `case-skill`, then a skill that is not there.
    #[skillgym::case(
        skills = ["tests/execution/skills/case-dir"],
        prompt = r#"
read .agents/skills/listed/SKILL.md
read .agents/skills/case-skill/SKILL.md
read .agents/skills/case-skill/references/notes.md
read .agents/skills/ghost/SKILL.md
emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn installed(report: &SessionReport) {
        answered_ok(report);
        report
            .expect()
            .skills()
            .min_confidence(Confidence::Strong)
            .includes(["listed", "case-skill"])
            .not_has("ghost");
    }
}

pub mod figures {
    use super::*;

    // Every session reports figures near `u64::MAX` and a cost near `f64::MAX`: two attempts
    // add past both (the runner's row sums every attempt).
    #[skillgym::case(
        repeat = 2,
        prompt = r#"
emit {"type":"usage","input_tokens":18446744073709551614,"output_tokens":18446744073709551614,"reasoning_tokens":18446744073709551614,"cache_tokens":18446744073709551614,"total_tokens":18446744073709551614,"cost_usd":1.7e308}
emit {"type":"message","role":"assistant","phase":"final","text":"ok"}
"#
    )]
    fn huge(report: &SessionReport) {
        answered_ok(report);
    }
}

/// The bubblewrap sandbox: shell-script agents (a `command` runner running `bash -c` with the
/// prompt) that try what the sandbox forbids, each answering `denied` when it failed. The
/// variables come from the checks.
pub mod sandbox {
    pub mod denied {
        use skillgym::prelude::*;

        #[skillgym::case(
            prompt = r#"if echo escaped > "$SANDBOX_OUTSIDE/escaped.txt"; then answer=wrote; else answer=denied; fi
printf '{"type":"message","role":"assistant","phase":"final","text":"%s"}\n' "$answer""#
        )]
        fn writes_outside_the_workspace(report: &SessionReport) {
            report.expect().output().equals("wrote");
        }

        #[skillgym::case(
            prompt = r#"if secret=$(cat "$HOME/secret.txt"); then answer="read $secret"; else answer=denied; fi
printf '{"type":"message","role":"assistant","phase":"final","text":"%s"}\n' "$answer""#
        )]
        fn reads_the_home(report: &SessionReport) {
            report.expect().output().equals("read top-secret-home");
        }

        #[skillgym::case(
            prompt = r#"if exec 3<>"/dev/tcp/127.0.0.1/$SANDBOX_PORT"; then answer=connected; else answer=denied; fi
printf '{"type":"message","role":"assistant","phase":"final","text":"%s"}\n' "$answer""#
        )]
        fn connects_to_the_hosts_loopback(report: &SessionReport) {
            report.expect().output().equals("connected");
        }
    }

    /// Processes that outlive the agent's shell: one left in the group, one in a session of
    /// its own (`setsid`); `$SANDBOX_TOKEN` names them in the process table.
    pub mod kill {
        use skillgym::prelude::*;

        #[skillgym::case(
            timeout = "1s",
            prompt = r#"setsid sleep "$SANDBOX_TOKEN" &
sleep "$SANDBOX_TOKEN" &
echo '{"type":"message","role":"assistant","text":"started"}'
wait"#
        )]
        fn times_out(_report: &SessionReport) {}

        #[skillgym::case(prompt = r#"setsid sleep "$SANDBOX_TOKEN" &
sleep "$SANDBOX_TOKEN" &
echo '{"type":"message","role":"assistant","text":"started"}'
wait"#)]
        fn runs_until_signalled(_report: &SessionReport) {}
    }
}
