//! Scripts: what the scripted model does, step by step.
//!
//! A script is a YAML list of steps, each a one-key mapping:
//!
//! ```yaml
//! - say: Let me look at the skill first.      # text (with the next tool call, or the answer)
//! - read: .claude/skills/demo/SKILL.md        # read a file (relative to the session's cwd)
//! - skill: demo                               # load a skill through the agent's skill tool
//! - run: ls -la                               # run a shell command
//! - write: { path: notes.md, content: "hi" }  # write a file
//! - fail: 429                                 # answer with an HTTP error (every time)
//! - fail: { status: 500, times: once, message: overloaded }
//! - say: Done.                                # the final answer
//! ```
//!
//! The model's replies are *turns*: the `say` texts before a tool step go out with its tool
//! call, one tool call per reply; the `say` texts after the last tool step are the final
//! answer (`done` when there are none). Which turn a request is at is told by the number of
//! tool results in its history, so an agent that retries a request gets the same reply again.
//! A `fail` step answers every request that reaches it with its status (`times: always`, the
//! default) or only the first one (`times: once`), after which the script goes on.
//!
//! An `if_listed` step plays one list of steps or another depending on whether the agent's
//! request lists a skill as available to the model (where each CLI lists its skills:
//! [`listing`](super::listing)), so one script shows a difference between a variant with the
//! skill installed and one without:
//!
//! ```yaml
//! - if_listed:
//!     skill: demo                  # or a list: every one of them must be listed
//!     then:                        # played when the request lists `demo`
//!       - skill: demo
//!       - say: Done with the demo skill.
//!     else:                        # played when it does not (optional)
//!       - run: ls
//!       - say: Done without a skill.
//! ```
//!
//! `then` and `else` hold steps of any kind, `if_listed` included; at least one of them has
//! steps. The choice is made for each request from that request's listing, and the chosen steps
//! take the `if_listed` step's place before the steps are grouped into turns: `say` texts
//! before it go out with the branch's first tool call, and the turn is counted within the
//! chosen branch, so branches of different lengths each play turn by turn.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use crate::config::ConfigError;
use crate::config::yaml::{self, Located};

/// The final answer of a script whose last step is not a `say`.
pub const DEFAULT_ANSWER: &str = "done";

/// A parsed script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    steps: Vec<Step>,
    path: Option<PathBuf>,
}

/// One step of a script.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Step {
    /// `say: TEXT`: assistant text.
    Say(String),
    /// `run: COMMAND`: a shell command through the agent's shell tool.
    Run(String),
    /// `read: PATH`: a file read through the agent's read tool (else `cat` in its shell).
    Read(String),
    /// `skill: NAME`: a skill loaded through the agent's skill tool (else a read of its
    /// `SKILL.md`).
    Skill(String),
    /// `write: {path, content}`: a file written through the agent's write tool (else its
    /// shell).
    Write {
        /// Where, relative to the session's cwd.
        path: String,
        /// What.
        content: String,
    },
    /// `fail: STATUS` or `fail: {status, message, times}`: an HTTP error reply.
    Fail(FailStep),
    /// `if_listed: {skill, then, else}`: steps that depend on the request's skill listing.
    IfListed(IfListed),
}

/// Steps that depend on whether a request lists skills as available to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IfListed {
    /// The skills that must all be listed (at least one).
    pub skills: Vec<String>,
    /// The steps played when every one of them is listed.
    pub then: Vec<Step>,
    /// The steps played otherwise.
    pub otherwise: Vec<Step>,
}

impl IfListed {
    /// Whether `listed` (a request's listed skill names) holds every one of the skills.
    pub fn holds(&self, listed: &BTreeSet<String>) -> bool {
        self.skills.iter().all(|skill| listed.contains(skill))
    }
}

/// An HTTP error the script answers with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailStep {
    /// The status, 400 to 599.
    pub status: u16,
    /// The error message in the provider-shaped body (default: the reason phrase).
    pub message: Option<String>,
    /// Whether every request reaching the step fails, or only the first.
    pub times: Times,
}

/// How often a `fail` step fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Times {
    /// Every request that reaches the step.
    Always,
    /// The first request that reaches the step; later ones go past it.
    Once,
}

/// A tool action of a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Action {
    /// A shell command.
    Run(String),
    /// A file read.
    Read(String),
    /// A skill load.
    Skill(String),
    /// A file write.
    Write {
        /// Where.
        path: String,
        /// What.
        content: String,
    },
}

/// One model reply the script plans.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Turn {
    /// Text, then at most one tool call (none: the final answer).
    Reply {
        /// Text before the tool call.
        texts: Vec<String>,
        /// The tool call.
        action: Option<Action>,
    },
    /// An HTTP error.
    Fail(FailStep),
}

/// Where a request is in the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position<'a> {
    /// The index of the turn in [`Plan::turns`].
    pub index: usize,
    /// The turn.
    pub turn: &'a Turn,
}

/// The replies a script plans for one skill listing: its steps with each `if_listed` replaced
/// by the branch the listing chooses, grouped into turns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    turns: Vec<Turn>,
    /// For each turn, the number of the step that ends it in a walk of the whole script (every
    /// branch), so that a `fail … times: once` is the same step whichever branch is played.
    steps: Vec<usize>,
}

impl Script {
    /// A script from steps.
    pub fn new(steps: Vec<Step>) -> Script {
        Script { steps, path: None }
    }

    /// The script that only answers `text`: what a case without a script gets.
    pub fn answer(text: impl Into<String>) -> Script {
        Script::new(vec![Step::Say(text.into())])
    }

    /// Reads and parses the script file at `path`.
    pub fn load(path: &Path) -> Result<Script, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|error| {
            ConfigError::new(
                Some(path),
                format!("cannot read the mock script {}: {error}", path.display()),
            )
        })?;
        Script::parse(path, &text)
    }

    /// Parses `text`, the script file at `path` (named in errors, with line and column).
    pub fn parse(path: &Path, text: &str) -> Result<Script, ConfigError> {
        let raw: Option<Vec<Located<RawStep>>> = yaml::parse(path, text)?;
        let raw = raw.unwrap_or_default();
        if raw.is_empty() {
            return Err(ConfigError::new(
                Some(path),
                format!("{}: the script has no steps", path.display()),
            )
            .with_help("a script is a list of steps, e.g. `- run: ls` then `- say: done`"));
        }
        let steps = convert(path, text, raw)?;
        let mut script = Script::new(steps);
        script.path = Some(path.to_path_buf());
        Ok(script)
    }

    /// The steps, as written.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The file the script was read from, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The replies the script plans for a request listing the skills `listed`; the last one
    /// is always the final answer.
    pub fn plan(&self, listed: &BTreeSet<String>) -> Plan {
        let mut flat = Vec::new();
        let mut number = 0;
        flatten(&self.steps, listed, &mut number, &mut flat);
        plan(&flat)
    }
}

impl Plan {
    /// The replies, the last one always the final answer.
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// The text of the final answer.
    pub fn final_answer(&self) -> String {
        match self.turns.last() {
            Some(Turn::Reply { texts, .. }) => texts.join("\n\n"),
            _ => DEFAULT_ANSWER.to_owned(),
        }
    }

    /// The turn a request is at, given the tool results in its history. `fired` holds the
    /// `fail … times: once` steps that already failed in this session; a once-failing step
    /// reached for the first time is added to it.
    pub fn position(&self, tool_results: usize, fired: &mut HashSet<usize>) -> Position<'_> {
        let mut remaining = tool_results;
        let last = self.turns.len() - 1;
        for (index, turn) in self.turns.iter().enumerate() {
            match turn {
                Turn::Fail(_) if remaining > 0 => {}
                Turn::Fail(fail) => {
                    if fail.times == Times::Always || fired.insert(self.steps[index]) {
                        return Position { index, turn };
                    }
                }
                Turn::Reply {
                    action: Some(_), ..
                } if remaining > 0 => remaining -= 1,
                Turn::Reply { .. } => return Position { index, turn },
            }
        }
        Position {
            index: last,
            turn: &self.turns[last],
        }
    }
}

/// The steps `listed` chooses, each numbered by its place in a walk of every branch.
fn flatten<'a>(
    steps: &'a [Step],
    listed: &BTreeSet<String>,
    number: &mut usize,
    out: &mut Vec<(usize, &'a Step)>,
) {
    for step in steps {
        let this = *number;
        *number += 1;
        let Step::IfListed(condition) = step else {
            out.push((this, step));
            continue;
        };
        if condition.holds(listed) {
            flatten(&condition.then, listed, number, out);
            *number += count(&condition.otherwise);
        } else {
            *number += count(&condition.then);
            flatten(&condition.otherwise, listed, number, out);
        }
    }
}

/// The number of steps in `steps`, those inside `if_listed` branches included.
fn count(steps: &[Step]) -> usize {
    steps
        .iter()
        .map(|step| match step {
            Step::IfListed(condition) => 1 + count(&condition.then) + count(&condition.otherwise),
            _ => 1,
        })
        .sum()
}

/// Groups numbered steps (no `if_listed` among them) into turns; the last turn is always a
/// final answer.
fn plan(steps: &[(usize, &Step)]) -> Plan {
    let mut turns = Vec::new();
    let mut numbers = Vec::new();
    let mut texts = Vec::new();
    for &(number, step) in steps {
        let action = match step {
            Step::Say(text) => {
                texts.push(text.clone());
                continue;
            }
            Step::Fail(fail) => {
                turns.push(Turn::Fail(fail.clone()));
                numbers.push(number);
                continue;
            }
            Step::Run(command) => Action::Run(command.clone()),
            Step::Read(path) => Action::Read(path.clone()),
            Step::Skill(name) => Action::Skill(name.clone()),
            Step::Write { path, content } => Action::Write {
                path: path.clone(),
                content: content.clone(),
            },
            Step::IfListed(_) => continue,
        };
        turns.push(Turn::Reply {
            texts: std::mem::take(&mut texts),
            action: Some(action),
        });
        numbers.push(number);
    }
    if texts.is_empty() {
        texts.push(DEFAULT_ANSWER.to_owned());
    }
    turns.push(Turn::Reply {
        texts,
        action: None,
    });
    numbers.push(usize::MAX);
    Plan {
        turns,
        steps: numbers,
    }
}

/// One step as written.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum RawStep {
    Say(String),
    Run(String),
    Read(String),
    Skill(String),
    Write(RawWrite),
    Fail(FailStep),
    IfListed(RawIfListed),
}

/// Raw steps, checked, with `if_listed` branches converted in turn.
fn convert(path: &Path, text: &str, raw: Vec<Located<RawStep>>) -> Result<Vec<Step>, ConfigError> {
    let mut steps = Vec::with_capacity(raw.len());
    for step in raw {
        let at = |message: String| ConfigError::at(path, text, step.line, step.column, message);
        steps.push(match step.value {
            RawStep::Say(text) => Step::Say(text),
            RawStep::Run(command) if command.trim().is_empty() => {
                return Err(at("`run` needs a command".to_owned()));
            }
            RawStep::Run(command) => Step::Run(command),
            RawStep::Read(file) if file.trim().is_empty() => {
                return Err(at("`read` needs a path".to_owned()));
            }
            RawStep::Read(file) => Step::Read(file),
            RawStep::Skill(name) if name.trim().is_empty() => {
                return Err(at("`skill` needs a skill name".to_owned()));
            }
            RawStep::Skill(name) => Step::Skill(name),
            RawStep::Write(write) if write.path.trim().is_empty() => {
                return Err(at("`write` needs a `path`".to_owned()));
            }
            RawStep::Write(write) => Step::Write {
                path: write.path,
                content: write.content,
            },
            RawStep::Fail(fail) if !(400..=599).contains(&fail.status) => {
                return Err(at(format!(
                    "`fail` needs an HTTP error status from 400 to 599, found {}",
                    fail.status
                )));
            }
            RawStep::Fail(fail) => Step::Fail(fail),
            RawStep::IfListed(condition) => {
                Step::IfListed(if_listed(path, text, (step.line, step.column), condition)?)
            }
        });
    }
    Ok(steps)
}

/// An `if_listed` step as written at `step` (line, column), checked, its branches converted.
fn if_listed(
    path: &Path,
    text: &str,
    step: (u32, u32),
    condition: RawIfListed,
) -> Result<IfListed, ConfigError> {
    let at_step = |message: String| ConfigError::at(path, text, step.0, step.1, message);
    let Some(skills) = condition.skill else {
        return Err(
            at_step("`if_listed` needs `skill`, the skill a request must list".to_owned())
                .with_help("e.g. `if_listed: { skill: demo, then: [{ skill: demo }] }`"),
        );
    };
    let skill_at =
        |message: String| ConfigError::at(path, text, skills.line, skills.column, message);
    if skills.value.is_empty() {
        return Err(skill_at("`if_listed` needs a skill name".to_owned())
            .with_help("name one, `skill: demo`, or a list, `skill: [demo, other]`"));
    }
    if let Some(name) = skills
        .value
        .iter()
        .find(|name| name.is_empty() || name.contains(char::is_whitespace))
    {
        return Err(skill_at(format!(
            "`if_listed` skill name `{name}` can never be listed"
        ))
        .with_help("a listed skill's name has no whitespace: `demo`, `plugin:skill`"));
    }
    if condition.then.is_empty() && condition.otherwise.is_empty() {
        return Err(
            at_step("`if_listed` needs steps in `then` or `else`".to_owned()).with_help(
                "e.g. `then: [{skill: demo}]` for a request that lists the skill, \
                 `else: [{run: ls}]` for one that does not",
            ),
        );
    }
    Ok(IfListed {
        skills: skills.value,
        then: convert(path, text, condition.then)?,
        otherwise: convert(path, text, condition.otherwise)?,
    })
}

/// `if_listed: {skill, then, else}` as written.
struct RawIfListed {
    skill: Option<Located<Vec<String>>>,
    then: Vec<Located<RawStep>>,
    otherwise: Vec<Located<RawStep>>,
}

/// A mapping; anything else gets an error showing the mapping.
impl<'de> Deserialize<'de> for RawIfListed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Full {
            #[serde(default)]
            skill: Option<Located<SkillNames>>,
            #[serde(default)]
            then: Vec<Located<RawStep>>,
            #[serde(default, rename = "else")]
            otherwise: Vec<Located<RawStep>>,
        }

        struct IfListedVisitor;

        impl<'de> Visitor<'de> for IfListedVisitor {
            type Value = RawIfListed;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a mapping with `skill`, `then` and `else`")
            }

            fn visit_str<E: de::Error>(self, value: &str) -> Result<RawIfListed, E> {
                Err(E::custom(yaml::with_help(
                    format!("`if_listed` takes a mapping, found the text `{value}`"),
                    &format!(
                        "write `if_listed: {{ skill: {value}, then: [...], else: [...] }}`, \
                         the steps for each case in `then` and `else`"
                    ),
                )))
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawIfListed, A::Error> {
                let full = Full::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(RawIfListed {
                    skill: full.skill.map(|skill| Located {
                        value: skill.value.0,
                        line: skill.line,
                        column: skill.column,
                    }),
                    then: full.then,
                    otherwise: full.otherwise,
                })
            }
        }

        deserializer.deserialize_any(IfListedVisitor)
    }
}

/// `skill: demo` or `skill: [demo, other]`.
struct SkillNames(Vec<String>);

impl<'de> Deserialize<'de> for SkillNames {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NamesVisitor;

        impl<'de> Visitor<'de> for NamesVisitor {
            type Value = SkillNames;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a skill name or a list of skill names")
            }

            fn visit_str<E: de::Error>(self, name: &str) -> Result<SkillNames, E> {
                Ok(SkillNames(vec![name.trim().to_owned()]))
            }

            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<SkillNames, A::Error> {
                let mut names = Vec::new();
                while let Some(name) = seq.next_element::<String>()? {
                    names.push(name.trim().to_owned());
                }
                Ok(SkillNames(names))
            }
        }

        deserializer.deserialize_any(NamesVisitor)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWrite {
    path: String,
    #[serde(default)]
    content: String,
}

/// `fail: 429` or `fail: {status: 429, message: …, times: once}`.
impl<'de> Deserialize<'de> for FailStep {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Full {
            status: u16,
            #[serde(default)]
            message: Option<String>,
            #[serde(default = "always")]
            times: Times,
        }

        fn always() -> Times {
            Times::Always
        }

        struct FailVisitor;

        impl<'de> Visitor<'de> for FailVisitor {
            type Value = FailStep;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an HTTP status, or a mapping with `status`, `message` and `times`")
            }

            fn visit_u64<E: de::Error>(self, status: u64) -> Result<FailStep, E> {
                Ok(FailStep {
                    status: u16::try_from(status).unwrap_or(u16::MAX),
                    message: None,
                    times: Times::Always,
                })
            }

            fn visit_i64<E: de::Error>(self, status: i64) -> Result<FailStep, E> {
                self.visit_u64(u64::try_from(status).unwrap_or(0))
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<FailStep, A::Error> {
                let full = Full::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(FailStep {
                    status: full.status,
                    message: full.message,
                    times: full.times,
                })
            }
        }

        deserializer.deserialize_any(FailVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Script, ConfigError> {
        Script::parse(Path::new("/suite/script.yaml"), text)
    }

    #[test]
    fn parses_every_step_kind() {
        let script = parse(
            "- say: first\n- run: echo hello\n- read: SKILL.md\n- skill: demo\n\
             - write: { path: a.txt, content: hi }\n- fail: 429\n\
             - fail: { status: 500, times: once, message: overloaded }\n- say: bye\n",
        )
        .unwrap();
        assert_eq!(
            script.steps(),
            [
                Step::Say("first".into()),
                Step::Run("echo hello".into()),
                Step::Read("SKILL.md".into()),
                Step::Skill("demo".into()),
                Step::Write {
                    path: "a.txt".into(),
                    content: "hi".into()
                },
                Step::Fail(FailStep {
                    status: 429,
                    message: None,
                    times: Times::Always
                }),
                Step::Fail(FailStep {
                    status: 500,
                    message: Some("overloaded".into()),
                    times: Times::Once
                }),
                Step::Say("bye".into()),
            ]
        );
        assert_eq!(script.path(), Some(Path::new("/suite/script.yaml")));
    }

    #[test]
    fn errors_point_at_the_step_with_a_suggestion() {
        let error = parse("- run: ls\n- raed: SKILL.md\n").unwrap_err();
        let text = error.to_string();
        assert!(text.starts_with("/suite/script.yaml:2:"), "{text}");
        assert!(text.contains("unknown value `raed`"), "{text}");
        assert!(text.contains("did you mean `read`?"), "{text}");

        let error = parse("- run: ls\n- fail: 200\n").unwrap_err();
        assert_eq!(error.location().unwrap().1, 2, "{error}");
        assert!(
            error.to_string().contains("from 400 to 599, found 200"),
            "{error}"
        );

        let error = parse("- fail: { status: 500, times: onse }\n").unwrap_err();
        assert!(
            error.to_string().contains("did you mean `once`?"),
            "{error}"
        );
        let error = parse("- write: { path: a, contents: b }\n").unwrap_err();
        assert!(
            error.to_string().contains("did you mean `content`?"),
            "{error}"
        );
        let error = parse("- run: '  '\n").unwrap_err();
        assert!(
            error.to_string().contains("`run` needs a command"),
            "{error}"
        );
        let error = parse("").unwrap_err();
        assert!(error.to_string().contains("no steps"), "{error}");
        let error = parse("run: ls\n").unwrap_err();
        assert!(error.location().is_some(), "{error}");
    }

    fn none() -> BTreeSet<String> {
        BTreeSet::new()
    }

    fn listing(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn steps_group_into_turns_with_a_final_answer() {
        let script = Script::new(vec![
            Step::Say("looking".into()),
            Step::Run("ls".into()),
            Step::Read("a".into()),
        ]);
        assert_eq!(
            script.plan(&none()).turns(),
            [
                Turn::Reply {
                    texts: vec!["looking".into()],
                    action: Some(Action::Run("ls".into()))
                },
                Turn::Reply {
                    texts: vec![],
                    action: Some(Action::Read("a".into()))
                },
                Turn::Reply {
                    texts: vec![DEFAULT_ANSWER.into()],
                    action: None
                },
            ]
        );
        assert_eq!(
            Script::answer("hi").plan(&none()).turns(),
            [Turn::Reply {
                texts: vec!["hi".into()],
                action: None
            }]
        );
    }

    #[test]
    fn the_position_follows_tool_results_and_fail_steps() {
        let script = Script::new(vec![
            Step::Fail(FailStep {
                status: 503,
                message: None,
                times: Times::Once,
            }),
            Step::Run("ls".into()),
            Step::Fail(FailStep {
                status: 400,
                message: None,
                times: Times::Always,
            }),
            Step::Say("never".into()),
        ]);
        let script = script.plan(&none());
        let mut fired = HashSet::new();
        assert_eq!(script.position(0, &mut fired).index, 0, "first: the 503");
        assert_eq!(script.position(0, &mut fired).index, 1, "the retry: ls");
        assert_eq!(script.position(0, &mut fired).index, 1, "stateless again");
        assert_eq!(script.position(1, &mut fired).index, 2, "after ls: the 400");
        assert_eq!(script.position(1, &mut fired).index, 2, "always");
        let mut fresh = HashSet::new();
        assert_eq!(script.position(1, &mut fresh).index, 2);
        assert_eq!(script.position(7, &mut fired).index, 3, "past the end");
        let plain = Script::new(vec![Step::Run("ls".into())]).plan(&none());
        assert_eq!(plain.position(5, &mut HashSet::new()).index, 1);
    }

    const BRANCHES: &str = "\
- say: Checking for a skill.
- if_listed:
    skill: demo
    then:
      - skill: demo
      - run: cat out.txt
      - say: Done with the demo skill.
    else:
      - say: Done without a skill.
";

    #[test]
    fn if_listed_parses_into_its_branches() {
        let script = parse(BRANCHES).unwrap();
        assert_eq!(
            script.steps()[1],
            Step::IfListed(IfListed {
                skills: vec!["demo".into()],
                then: vec![
                    Step::Skill("demo".into()),
                    Step::Run("cat out.txt".into()),
                    Step::Say("Done with the demo skill.".into()),
                ],
                otherwise: vec![Step::Say("Done without a skill.".into())],
            })
        );
        let nested = parse(
            "- if_listed:\n    skill: [demo, other]\n    else:\n      - if_listed: \
             { skill: other, then: [{ run: ls }] }\n",
        )
        .unwrap();
        let Step::IfListed(outer) = &nested.steps()[0] else {
            panic!("{nested:?}");
        };
        assert_eq!(outer.skills, ["demo", "other"]);
        assert!(outer.then.is_empty());
        assert!(matches!(&outer.otherwise[0], Step::IfListed(inner) if inner.skills == ["other"]));
    }

    #[test]
    fn the_listing_chooses_the_branch_and_its_turns() {
        let script = parse(BRANCHES).unwrap();
        let with = script.plan(&listing(&["demo", "other"]));
        assert_eq!(
            with.turns(),
            [
                Turn::Reply {
                    texts: vec!["Checking for a skill.".into()],
                    action: Some(Action::Skill("demo".into()))
                },
                Turn::Reply {
                    texts: vec![],
                    action: Some(Action::Run("cat out.txt".into()))
                },
                Turn::Reply {
                    texts: vec!["Done with the demo skill.".into()],
                    action: None
                },
            ]
        );
        let without = script.plan(&listing(&["other"]));
        assert_eq!(
            without.turns(),
            [Turn::Reply {
                texts: vec![
                    "Checking for a skill.".into(),
                    "Done without a skill.".into()
                ],
                action: None
            }]
        );
        assert_eq!(
            without.final_answer(),
            "Checking for a skill.\n\nDone without a skill."
        );
        // Turn by turn, each in its own branch.
        let mut fired = HashSet::new();
        assert_eq!(with.position(1, &mut fired).index, 1);
        assert_eq!(with.position(2, &mut fired).index, 2);
        assert_eq!(without.position(0, &mut fired).index, 0);
        assert_eq!(without.position(2, &mut fired).index, 0, "past its end");
        // Every skill of a list must be listed; no `else` plays nothing.
        let all = Script::new(vec![Step::IfListed(IfListed {
            skills: vec!["a".into(), "b".into()],
            then: vec![Step::Run("ls".into())],
            otherwise: vec![],
        })]);
        assert_eq!(all.plan(&listing(&["a", "b"])).turns().len(), 2);
        assert_eq!(all.plan(&listing(&["a"])).turns().len(), 1);
    }

    #[test]
    fn a_once_failing_step_is_the_same_step_in_any_branch_order() {
        let once = || {
            Step::Fail(FailStep {
                status: 503,
                message: None,
                times: Times::Once,
            })
        };
        let script = Script::new(vec![
            Step::IfListed(IfListed {
                skills: vec!["demo".into()],
                then: vec![Step::Run("ls".into()), Step::Run("pwd".into())],
                otherwise: vec![],
            }),
            once(),
            Step::IfListed(IfListed {
                skills: vec!["demo".into()],
                then: vec![],
                otherwise: vec![once()],
            }),
        ]);
        let with = script.plan(&listing(&["demo"]));
        let without = script.plan(&none());
        let mut fired = HashSet::new();
        assert_eq!(with.position(2, &mut fired).index, 2, "the first 503");
        assert_eq!(with.position(2, &mut fired).index, 3, "its retry goes on");
        // The same `fail` step at another turn index without the skill: already fired.
        assert_eq!(without.position(0, &mut fired).index, 1, "the second 503");
        assert_eq!(without.position(0, &mut fired).index, 2, "then the answer");
    }

    #[test]
    fn malformed_if_listed_steps_are_located_with_a_suggestion() {
        let error = parse("- run: ls\n- if_listed: demo\n").unwrap_err();
        assert_eq!(error.location().unwrap().1, 2, "{error}");
        assert!(
            error
                .to_string()
                .contains("`if_listed` takes a mapping, found the text `demo`"),
            "{error}"
        );
        assert!(
            error
                .help()
                .unwrap()
                .contains("if_listed: { skill: demo, then: [...]"),
            "{error}"
        );

        let error =
            parse("- if_listed:\n    skill: demo\n    than:\n      - run: ls\n").unwrap_err();
        assert_eq!(error.location().unwrap().1, 3, "{error}");
        assert_eq!(error.help(), Some("did you mean `then`?"), "{error}");

        let error =
            parse("- if_listed:\n    skill: demo\n    then:\n      - rn: ls\n").unwrap_err();
        assert_eq!(error.location().unwrap().1, 4, "{error}");
        assert_eq!(error.help(), Some("did you mean `run`?"), "{error}");

        let error = parse("- say: hi\n- if_listed: { skill: demo }\n").unwrap_err();
        assert_eq!(error.location().unwrap().1, 2, "{error}");
        assert!(
            error
                .to_string()
                .contains("needs steps in `then` or `else`"),
            "{error}"
        );

        let error = parse("- if_listed:\n    skill: []\n    then: [{ run: ls }]\n").unwrap_err();
        assert_eq!(
            error.location().unwrap().1..=error.location().unwrap().2,
            2..=12,
            "{error}"
        );
        assert!(error.to_string().contains("needs a skill name"), "{error}");

        let error = parse("- if_listed:\n    skill: [demo, my skill]\n    then: [{ run: ls }]\n")
            .unwrap_err();
        assert_eq!(error.location().unwrap().1, 2, "{error}");
        assert!(
            error.to_string().contains("`my skill` can never be listed"),
            "{error}"
        );

        let error = parse("- say: hi\n- if_listed:\n    then: [{ run: ls }]\n").unwrap_err();
        assert_eq!(error.location().unwrap().1, 2, "{error}");
        assert!(
            error.to_string().contains("`if_listed` needs `skill`"),
            "{error}"
        );
        assert!(error.help().unwrap().contains("skill: demo"), "{error}");

        let error =
            parse("- if_listed:\n    skill: demo\n    then:\n      - run: ''\n").unwrap_err();
        assert_eq!(error.location().unwrap().1, 4, "{error}");
        assert!(
            error.to_string().contains("`run` needs a command"),
            "{error}"
        );
    }
}
