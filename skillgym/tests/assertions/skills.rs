//! The skills group: every check passing and failing, on transcript reports and hand-built
//! reports with several detections at different confidences.

use skillgym::assert::Expect;
use skillgym::{Confidence, SessionReport, SkillDetection};

use crate::common::*;

use crate::support::transcripts::load;

/// A check run against a report, for tables of checks.
type CheckFn = Box<dyn for<'a> Fn(Expect<'a>)>;

/// What every transcript's failure message lists under the headline.
const DEMO_OBSERVED: &str = "observed 1 skill:
  1. demo (strong)
     evidence: Read /home/dev/demo/skills/demo/SKILL.md
     evidence: Read /home/dev/demo/skills/demo/references/notes.md inside the skill's directory";

/// Four skills, one per confidence; `expo` has five pieces of evidence.
fn several() -> SessionReport {
    SessionReport::default()
        .with_skill(SkillDetection::new(
            "find-skills",
            Confidence::Explicit,
            ["Loaded via Skill tool"],
        ))
        .with_skill(SkillDetection::new(
            "expo",
            Confidence::Strong,
            [
                "Read /s/expo/SKILL.md",
                "Read /s/expo/a.md",
                "Read /s/expo/b.md",
                "Read /s/expo/c.md",
                "Read /s/expo/d.md",
            ],
        ))
        .with_skill(SkillDetection::new(
            "deploy",
            Confidence::Medium,
            ["Read /s/deploy/run.sh"],
        ))
        .with_skill(SkillDetection::new(
            "lint",
            Confidence::Weak,
            ["mentioned lint"],
        ))
}

// ---------------------------------------------------------------------------------------------
// has

#[test]
fn has_passes_on_every_transcript() {
    for (name, report) in skill_transcripts() {
        assert_eq!(report.detected_skills.len(), 1, "{name}");
        passes(&report, |e| {
            e.skills().has("demo");
        });
        passes(&report, |e| {
            e.skills().min_confidence(Confidence::Strong).has("demo");
        });
    }
}

#[test]
fn has_fails_for_a_skill_no_transcript_used() {
    for (name, report) in skill_transcripts() {
        let failure = fails(&report, |e| {
            e.skills().has("deploy");
        });
        assert_eq!(
            failure.message,
            format!("expected the skill \"deploy\" to be used\n{DEMO_OBSERVED}"),
            "{name}"
        );
        assert_eq!(
            failure.question.as_deref(),
            Some("Why did you not use the \"deploy\" skill?"),
            "{name}"
        );
    }
}

#[test]
fn has_compares_names_exactly() {
    let report = load("claude-code.failing-command");
    for name in ["d", "DEMO", "demo ", "skills/demo", "SKILL.md"] {
        fails(&report, |e| {
            e.skills().has(name);
        });
    }
}

#[test]
fn has_fails_on_a_report_without_skills() {
    let msg = message(&SessionReport::default(), |e| {
        e.skills().has("demo");
    });
    assert_eq!(
        msg,
        "expected the skill \"demo\" to be used\nobserved no skills"
    );
}

#[test]
fn has_lists_every_skill_with_confidence_and_abbreviated_evidence() {
    let msg = message(&several(), |e| {
        e.skills().has("docs");
    });
    assert_eq!(
        msg,
        "expected the skill \"docs\" to be used
observed 4 skills:
  1. find-skills (explicit)
     evidence: Loaded via Skill tool
  2. expo (strong)
     evidence: Read /s/expo/SKILL.md
     evidence: Read /s/expo/a.md
     evidence: Read /s/expo/b.md
     … 2 more
  3. deploy (medium)
     evidence: Read /s/deploy/run.sh
  4. lint (weak)
     evidence: mentioned lint"
    );
}

#[test]
fn evidence_of_exactly_three_lines_is_not_abbreviated() {
    let report = SessionReport::default().with_skill(SkillDetection::new(
        "x",
        Confidence::Medium,
        ["one", "two", "three"],
    ));
    let msg = message(&report, |e| {
        e.skills().has("y");
    });
    assert_eq!(
        msg,
        "expected the skill \"y\" to be used
observed 1 skill:
  1. x (medium)
     evidence: one
     evidence: two
     evidence: three"
    );
}

// ---------------------------------------------------------------------------------------------
// min_confidence

#[test]
fn min_confidence_explicit_rejects_every_transcript_read() {
    for (name, report) in skill_transcripts() {
        let failure = fails(&report, |e| {
            e.skills().min_confidence(Confidence::Explicit).has("demo");
        });
        assert_eq!(
            failure.message,
            "expected the skill \"demo\" to be used (at least explicit)
observed 1 skill:
  1. demo (strong) — below the minimum confidence
     evidence: Read /home/dev/demo/skills/demo/SKILL.md
     evidence: Read /home/dev/demo/skills/demo/references/notes.md inside the skill's directory",
            "{name}"
        );
    }
}

#[test]
fn min_confidence_is_inclusive_and_ordered() {
    let report = several();
    // (skill, its confidence): passes at and below it, fails above it.
    let levels = [
        Confidence::Weak,
        Confidence::Medium,
        Confidence::Strong,
        Confidence::Explicit,
    ];
    let skills = [
        ("lint", Confidence::Weak),
        ("deploy", Confidence::Medium),
        ("expo", Confidence::Strong),
        ("find-skills", Confidence::Explicit),
    ];
    for (skill, confidence) in skills {
        for min in levels {
            let failures = failures(&report, |e| {
                e.skills().min_confidence(min).has(skill);
            });
            assert_eq!(
                failures.is_empty(),
                confidence >= min,
                "{skill} ({confidence:?}) at min {min:?}"
            );
        }
    }
}

#[test]
fn min_confidence_marks_detections_below_the_minimum() {
    let msg = message(&several(), |e| {
        e.skills().min_confidence(Confidence::Strong).has("deploy");
    });
    assert_eq!(
        msg,
        "expected the skill \"deploy\" to be used (at least strong)
observed 4 skills:
  1. find-skills (explicit)
     evidence: Loaded via Skill tool
  2. expo (strong)
     evidence: Read /s/expo/SKILL.md
     evidence: Read /s/expo/a.md
     evidence: Read /s/expo/b.md
     … 2 more
  3. deploy (medium) — below the minimum confidence
     evidence: Read /s/deploy/run.sh
  4. lint (weak) — below the minimum confidence
     evidence: mentioned lint"
    );
}

#[test]
fn min_confidence_weak_is_the_default_and_adds_no_qualifier() {
    let report = several();
    let explicit_weak = message(&report, |e| {
        e.skills().min_confidence(Confidence::Weak).has("docs");
    });
    let default = message(&report, |e| {
        e.skills().has("docs");
    });
    assert_eq!(explicit_weak, default);
    assert!(!default.contains("at least"), "{default}");
    assert!(!default.contains("below the minimum"), "{default}");
}

#[test]
fn min_confidence_applies_to_the_checks_after_it_only() {
    let report = several();
    passes(&report, |e| {
        e.skills()
            .has("lint")
            .min_confidence(Confidence::Strong)
            .not_has("lint");
    });
    let failures = failures(&report, |e| {
        e.skills()
            .min_confidence(Confidence::Strong)
            .has("lint")
            .min_confidence(Confidence::Weak)
            .has("lint");
    });
    assert_eq!(failures.len(), 1, "{failures:#?}");
    assert!(failures[0].message.contains("(at least strong)"));
}

// ---------------------------------------------------------------------------------------------
// not_has

#[test]
fn not_has_passes_for_skills_no_transcript_used() {
    for (name, report) in skill_transcripts() {
        let failures = failures(&report, |e| {
            e.skills().not_has("deploy").not_has("WD").not_has("");
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
}

#[test]
fn not_has_fails_for_the_skill_every_transcript_used() {
    for (name, report) in skill_transcripts() {
        let failure = fails(&report, |e| {
            e.skills().not_has("demo");
        });
        assert_eq!(
            failure.message,
            "expected the skill \"demo\" not to be used
observed 1 skill (> marks an offending skill):
  > 1. demo (strong)
       evidence: Read /home/dev/demo/skills/demo/SKILL.md
       evidence: Read /home/dev/demo/skills/demo/references/notes.md inside the skill's directory",
            "{name}"
        );
        assert_eq!(
            failure.question.as_deref(),
            Some("Why did you use the \"demo\" skill?"),
            "{name}"
        );
    }
}

#[test]
fn not_has_ignores_detections_below_the_minimum() {
    for (name, report) in skill_transcripts() {
        let failures = failures(&report, |e| {
            e.skills()
                .min_confidence(Confidence::Explicit)
                .not_has("demo");
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
}

#[test]
fn not_has_marks_only_the_offending_skill() {
    let msg = message(&several(), |e| {
        e.skills()
            .min_confidence(Confidence::Medium)
            .not_has("deploy");
    });
    assert_eq!(
        msg,
        "expected the skill \"deploy\" not to be used (at least medium)
observed 4 skills (> marks an offending skill):
    1. find-skills (explicit)
       evidence: Loaded via Skill tool
    2. expo (strong)
       evidence: Read /s/expo/SKILL.md
       evidence: Read /s/expo/a.md
       evidence: Read /s/expo/b.md
       … 2 more
  > 3. deploy (medium)
       evidence: Read /s/deploy/run.sh
    4. lint (weak) — below the minimum confidence
       evidence: mentioned lint"
    );
}

// ---------------------------------------------------------------------------------------------
// includes

#[test]
fn includes_passes_when_every_skill_was_used() {
    for (name, report) in skill_transcripts() {
        let failures = failures(&report, |e| {
            e.skills().includes(["demo"]).includes([]);
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
    passes(&several(), |e| {
        e.skills()
            .includes(["lint", "find-skills", "expo", "deploy"]);
    });
}

#[test]
fn includes_names_the_missing_skill() {
    for (name, report) in skill_transcripts() {
        let failure = fails(&report, |e| {
            e.skills().includes(["demo", "deploy"]);
        });
        assert_eq!(
            failure.message,
            format!(
                "expected the skills [\"demo\", \"deploy\"] to be used, but [\"deploy\"] was not\n\
                 {DEMO_OBSERVED}"
            ),
            "{name}"
        );
        assert_eq!(
            failure.question.as_deref(),
            Some("Why did you not use the skills [\"deploy\"]?"),
            "{name}"
        );
    }
}

#[test]
fn includes_counts_only_detections_at_the_minimum() {
    let failure = fails(&several(), |e| {
        e.skills().min_confidence(Confidence::Strong).includes([
            "find-skills",
            "expo",
            "deploy",
            "lint",
        ]);
    });
    assert_eq!(
        failure.message.lines().next(),
        Some(
            "expected the skills [\"find-skills\", \"expo\", \"deploy\", \"lint\"] to be used \
             (at least strong), but [\"deploy\", \"lint\"] were not"
        )
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you not use the skills [\"deploy\", \"lint\"]?")
    );
}

// ---------------------------------------------------------------------------------------------
// count

#[test]
fn count_passes_with_the_number_of_detections() {
    for (name, report) in skill_transcripts() {
        let failures = failures(&report, |e| {
            e.skills()
                .count("demo", 1)
                .count("deploy", 0)
                .min_confidence(Confidence::Explicit)
                .count("demo", 0);
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
}

#[test]
fn count_fails_with_another_number() {
    for (name, report) in skill_transcripts() {
        let failure = fails(&report, |e| {
            e.skills().count("demo", 2);
        });
        assert_eq!(
            failure.message,
            "expected the skill \"demo\" to be detected 2 times, observed 1
observed 1 skill (> marks a match):
  > 1. demo (strong)
       evidence: Read /home/dev/demo/skills/demo/SKILL.md
       evidence: Read /home/dev/demo/skills/demo/references/notes.md inside the skill's directory",
            "{name}"
        );
        assert_eq!(
            failure.question.as_deref(),
            Some("Why did you use the \"demo\" skill once, not 2 times?"),
            "{name}"
        );
    }
}

#[test]
fn count_does_not_mark_a_detection_below_the_minimum() {
    let failure = fails(&load("claude-code.failing-command"), |e| {
        e.skills()
            .min_confidence(Confidence::Explicit)
            .count("demo", 1);
    });
    assert_eq!(
        failure.message,
        "expected the skill \"demo\" to be detected once (at least explicit), observed 0
observed 1 skill:
  1. demo (strong) — below the minimum confidence
     evidence: Read /home/dev/demo/skills/demo/SKILL.md
     evidence: Read /home/dev/demo/skills/demo/references/notes.md inside the skill's directory"
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you use the \"demo\" skill 0 times, not once?")
    );
}

#[test]
fn count_counts_separate_detections_of_one_skill() {
    let report = SessionReport::default()
        .with_skill(SkillDetection::new("x", Confidence::Weak, ["a"]))
        .with_skill(SkillDetection::new("x", Confidence::Strong, ["b"]));
    passes(&report, |e| {
        e.skills()
            .count("x", 2)
            .min_confidence(Confidence::Medium)
            .count("x", 1);
    });
    let msg = message(&report, |e| {
        e.skills().min_confidence(Confidence::Medium).count("x", 2);
    });
    assert_eq!(
        msg,
        "expected the skill \"x\" to be detected 2 times (at least medium), observed 1
observed 2 skills (> marks a match):
    1. x (weak) — below the minimum confidence
       evidence: a
  > 2. x (strong)
       evidence: b"
    );
}

// ---------------------------------------------------------------------------------------------
// exactly_one

#[test]
fn exactly_one_passes_on_every_transcript() {
    for (name, report) in skill_transcripts() {
        let failures = failures(&report, |e| {
            e.skills().exactly_one("demo");
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
}

#[test]
fn exactly_one_fails_when_the_skill_was_not_used() {
    for (name, report) in skill_transcripts() {
        let failure = fails(&report, |e| {
            e.skills().exactly_one("deploy");
        });
        assert_eq!(
            failure.message,
            format!(
                "expected \"deploy\" to be the only skill used, but it was not used\n\
                 observed 1 skill (> marks an offending skill):\n  \
                 > 1. demo (strong)\n       \
                 evidence: Read /home/dev/demo/skills/demo/SKILL.md\n       \
                 evidence: Read /home/dev/demo/skills/demo/references/notes.md inside the skill's directory"
            ),
            "{name}"
        );
        assert_eq!(
            failure.question.as_deref(),
            Some("Why did you not use exactly one skill, \"deploy\"?"),
            "{name}"
        );
    }
}

#[test]
fn exactly_one_fails_when_other_skills_were_used_too() {
    let report = several();
    let msg = message(&report, |e| {
        e.skills()
            .min_confidence(Confidence::Strong)
            .exactly_one("expo");
    });
    assert_eq!(
        msg,
        "expected \"expo\" to be the only skill used (at least strong), but [\"find-skills\"] also was
observed 4 skills (> marks an offending skill):
  > 1. find-skills (explicit)
       evidence: Loaded via Skill tool
    2. expo (strong)
       evidence: Read /s/expo/SKILL.md
       evidence: Read /s/expo/a.md
       evidence: Read /s/expo/b.md
       … 2 more
    3. deploy (medium) — below the minimum confidence
       evidence: Read /s/deploy/run.sh
    4. lint (weak) — below the minimum confidence
       evidence: mentioned lint"
    );
    let msg = message(&report, |e| {
        e.skills().exactly_one("expo");
    });
    assert_eq!(
        msg.lines().next(),
        Some(
            "expected \"expo\" to be the only skill used, but [\"find-skills\", \"deploy\", \
             \"lint\"] also were"
        )
    );
    // Others below the minimum do not count.
    passes(&report, |e| {
        e.skills()
            .min_confidence(Confidence::Explicit)
            .exactly_one("find-skills");
    });
}

#[test]
fn exactly_one_fails_when_the_skill_was_detected_twice() {
    let report = SessionReport::default()
        .with_skill(SkillDetection::new("x", Confidence::Strong, ["a"]))
        .with_skill(SkillDetection::new("x", Confidence::Strong, ["b"]));
    let msg = message(&report, |e| {
        e.skills().exactly_one("x");
    });
    assert_eq!(
        msg,
        "expected \"x\" to be the only skill used, but it was detected 2 times
observed 2 skills:
  1. x (strong)
     evidence: a
  2. x (strong)
     evidence: b"
    );
}

// ---------------------------------------------------------------------------------------------
// only

#[test]
fn only_passes_when_every_skill_is_allowed() {
    for (name, report) in skill_transcripts() {
        let failures = failures(&report, |e| {
            e.skills().only(["demo"]).only(["deploy", "demo"]);
        });
        assert!(failures.is_empty(), "{name}: {failures:#?}");
    }
    passes(&SessionReport::default(), |e| {
        e.skills().only([]);
    });
    passes(&several(), |e| {
        e.skills()
            .min_confidence(Confidence::Strong)
            .only(["find-skills", "expo"]);
    });
}

#[test]
fn only_fails_for_a_skill_not_allowed() {
    for (name, report) in skill_transcripts() {
        let failure = fails(&report, |e| {
            e.skills().only(["deploy"]);
        });
        assert_eq!(
            failure.message,
            "expected only the skills [\"deploy\"] to be used, but [\"demo\"] also was
observed 1 skill (> marks an offending skill):
  > 1. demo (strong)
       evidence: Read /home/dev/demo/skills/demo/SKILL.md
       evidence: Read /home/dev/demo/skills/demo/references/notes.md inside the skill's directory",
            "{name}"
        );
        assert_eq!(
            failure.question.as_deref(),
            Some("Why did you use the skills [\"demo\"]?"),
            "{name}"
        );
    }
}

#[test]
fn only_marks_every_extra_skill_at_the_minimum() {
    let msg = message(&several(), |e| {
        e.skills().min_confidence(Confidence::Medium).only(["expo"]);
    });
    assert_eq!(
        msg,
        "expected only the skills [\"expo\"] to be used (at least medium), but [\"find-skills\", \"deploy\"] also were
observed 4 skills (> marks an offending skill):
  > 1. find-skills (explicit)
       evidence: Loaded via Skill tool
    2. expo (strong)
       evidence: Read /s/expo/SKILL.md
       evidence: Read /s/expo/a.md
       evidence: Read /s/expo/b.md
       … 2 more
  > 3. deploy (medium)
       evidence: Read /s/deploy/run.sh
    4. lint (weak) — below the minimum confidence
       evidence: mentioned lint"
    );
}

// ---------------------------------------------------------------------------------------------
// because, explain, explain_with

#[test]
fn because_becomes_the_first_line() {
    for (name, report) in skill_transcripts() {
        let msg = message(&report, |e| {
            e.skills()
                .because("the prompt names the deploy skill")
                .has("deploy");
        });
        assert_eq!(
            msg,
            format!(
                "the prompt names the deploy skill\n\
                 expected the skill \"deploy\" to be used\n{DEMO_OBSERVED}"
            ),
            "{name}"
        );
    }
}

#[test]
fn because_applies_to_every_following_check_and_not_to_passing_ones() {
    let report = load("claude-code.failing-command");
    let failures = failures(&report, |e| {
        e.skills()
            .has("demo")
            .because("reason")
            .not_has("demo")
            .has("demo")
            .only(["x"]);
    });
    assert_eq!(failures.len(), 2, "{failures:#?}");
    for failure in &failures {
        assert_eq!(failure.message.lines().next(), Some("reason"));
    }
    assert!(failures[0].message.contains("not to be used"));
    assert!(failures[1].message.contains("expected only the skills"));
}

#[test]
fn because_does_not_change_the_question() {
    let failure = fails(&load("codex.failing-command"), |e| {
        e.skills().because("reason").has("deploy");
    });
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you not use the \"deploy\" skill?")
    );
}

#[test]
fn every_check_has_a_default_question() {
    let report = several();
    let cases: Vec<(&str, CheckFn)> = vec![
        (
            "Why did you not use the \"docs\" skill?",
            Box::new(|e| {
                e.skills().has("docs");
            }),
        ),
        (
            "Why did you use the \"lint\" skill?",
            Box::new(|e| {
                e.skills().not_has("lint");
            }),
        ),
        (
            "Why did you not use the skills [\"docs\", \"ci\"]?",
            Box::new(|e| {
                e.skills().includes(["expo", "docs", "ci"]);
            }),
        ),
        (
            "Why did you use the \"expo\" skill once, not 3 times?",
            Box::new(|e| {
                e.skills().count("expo", 3);
            }),
        ),
        (
            "Why did you not use exactly one skill, \"expo\"?",
            Box::new(|e| {
                e.skills().exactly_one("expo");
            }),
        ),
        (
            "Why did you use the skills [\"find-skills\", \"lint\"]?",
            Box::new(|e| {
                e.skills().only(["expo", "deploy"]);
            }),
        ),
    ];
    for (question, check) in cases {
        let failure = fails(&report, check);
        assert_eq!(failure.question.as_deref(), Some(question));
    }
}

#[test]
fn explain_replaces_the_question_of_every_check() {
    let report = several();
    let checks: Vec<CheckFn> = vec![
        Box::new(|e| {
            e.skills().explain("Q?").has("docs");
        }),
        Box::new(|e| {
            e.skills().explain("Q?").not_has("lint");
        }),
        Box::new(|e| {
            e.skills().explain("Q?").includes(["docs"]);
        }),
        Box::new(|e| {
            e.skills().explain("Q?").count("expo", 3);
        }),
        Box::new(|e| {
            e.skills().explain("Q?").exactly_one("expo");
        }),
        Box::new(|e| {
            e.skills().explain("Q?").only(["expo"]);
        }),
    ];
    for check in checks {
        let failure = fails(&report, check);
        assert_eq!(failure.question.as_deref(), Some("Q?"));
        assert!(!failure.message.contains("Q?"), "{}", failure.message);
    }
}

#[test]
fn explain_with_computes_the_question_from_the_report() {
    for (name, report) in skill_transcripts() {
        let failure = fails(&report, |e| {
            e.skills()
                .explain_with(|report| {
                    format!(
                        "You used {} skill(s) in {}. Why not deploy?",
                        report.detected_skills.len(),
                        report.runner.id
                    )
                })
                .has("deploy");
        });
        assert_eq!(
            failure.question,
            Some(format!(
                "You used 1 skill(s) in {}. Why not deploy?",
                report.runner.id
            )),
            "{name}"
        );
        assert_eq!(
            failure.message,
            format!("expected the skill \"deploy\" to be used\n{DEMO_OBSERVED}")
        );
    }
}

#[test]
fn explain_with_is_not_called_when_the_check_passes() {
    let called = std::cell::Cell::new(false);
    passes(&load("opencode.failing-command"), |e| {
        e.skills()
            .explain_with(|_| {
                called.set(true);
                String::new()
            })
            .has("demo");
    });
    assert!(!called.get());
}

#[test]
fn the_last_explain_wins() {
    let report = load("gemini-cli.failing-command");
    let failure = fails(&report, |e| {
        e.skills()
            .explain("first?")
            .explain_with(|_| "second?".to_owned())
            .has("deploy");
    });
    assert_eq!(failure.question.as_deref(), Some("second?"));
    let failure = fails(&report, |e| {
        e.skills()
            .explain_with(|_| "first?".to_owned())
            .explain("second?")
            .has("deploy");
    });
    assert_eq!(failure.question.as_deref(), Some("second?"));
}

#[test]
fn because_and_explain_combine() {
    let failure = fails(&load("copilot.failing-command"), |e| {
        e.skills()
            .because("demo must be loaded explicitly")
            .explain("Why did you only read demo's SKILL.md?")
            .min_confidence(Confidence::Explicit)
            .has("demo");
    });
    assert_eq!(
        failure.message,
        "demo must be loaded explicitly
expected the skill \"demo\" to be used (at least explicit)
observed 1 skill:
  1. demo (strong) — below the minimum confidence
     evidence: Read /home/dev/demo/skills/demo/SKILL.md
     evidence: Read /home/dev/demo/skills/demo/references/notes.md inside the skill's directory"
    );
    assert_eq!(
        failure.question.as_deref(),
        Some("Why did you only read demo's SKILL.md?")
    );
}

// ---------------------------------------------------------------------------------------------
// location

#[test]
fn the_failure_points_at_the_check() {
    let report = load("claude-code.failing-command");
    let failure = fails(&report, |e| {
        e.skills().has("deploy");
    });
    let location = failure.location.expect("a location");
    assert_eq!(location.line, line!() - 3);
    assert!(
        location.file.ends_with("tests/assertions/skills.rs"),
        "{}",
        location.file
    );
}

#[test]
fn each_failure_of_a_chain_points_at_its_own_check() {
    let report = load("claude-code.failing-command");
    let failures = failures(&report, |e| {
        e.skills()
            .because("the prompt asks for the deploy skill, not the demo skill")
            .has("deploy")
            .has("demo")
            .not_has("demo");
    });
    let lines: Vec<u32> = failures
        .iter()
        .map(|failure| failure.location.as_ref().expect("a location").line)
        .collect();
    let first = line!() - 8;
    assert_eq!(lines, [first, first + 2]);
}

// ---------------------------------------------------------------------------------------------
// failed loads and reads

/// The captured `missing-skill` scenario: the skill tool asked for `ghost-skill`, then a read
/// of the missing `skills/ghost/SKILL.md`. Neither is evidence, whatever the check.
#[test]
fn failed_attempts_never_satisfy_a_check_and_are_shown() {
    for agent in [
        "claude-code",
        "copilot",
        "gemini-cli",
        "opencode",
        "qwen-code",
    ] {
        let name = format!("{agent}.missing-skill");
        let report = load(&name);
        passes(&report, |e| {
            e.skills()
                .min_confidence(Confidence::Weak)
                .not_has("ghost-skill")
                .not_has("ghost")
                .count("ghost-skill", 0)
                .only([]);
        });
        let failure = fails(&report, |e| {
            e.skills().has("ghost-skill");
        });
        let lines: Vec<&str> = failure.message.lines().collect();
        assert_eq!(
            lines[..3],
            [
                "expected the skill \"ghost-skill\" to be used",
                "observed no skills",
                "observed 2 failed skill attempts (not evidence):",
            ],
            "{name}"
        );
        assert!(
            lines[3].starts_with("  1. ghost-skill: attempted via ")
                && lines[3].contains(" tool, failed: "),
            "{name}: {}",
            lines[3]
        );
        assert!(
            lines[4].starts_with(
                "  2. ghost: attempted via Read /home/dev/demo/skills/ghost/SKILL.md, failed: "
            ),
            "{name}: {}",
            lines[4]
        );
        fails(&report, |e| {
            e.skills().includes(["ghost"]);
        });
        fails(&report, |e| {
            e.skills().exactly_one("ghost-skill");
        });
    }
}

#[test]
fn claude_s_failed_load_reads_as_the_tool_said() {
    let message = message(&load("claude-code.missing-skill"), |e| {
        e.skills().has("ghost-skill");
    });
    assert!(
        message.contains(
            "1. ghost-skill: attempted via Skill tool, failed: Unknown skill: ghost-skill"
        ),
        "{message}"
    );
}
