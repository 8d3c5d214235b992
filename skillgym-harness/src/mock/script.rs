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

use std::collections::HashSet;
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
    turns: Vec<Turn>,
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
    /// The index of the turn in [`Script::turns`].
    pub index: usize,
    /// The turn.
    pub turn: &'a Turn,
}

impl Script {
    /// A script from steps.
    pub fn new(steps: Vec<Step>) -> Script {
        let turns = plan(&steps);
        Script {
            steps,
            path: None,
            turns,
        }
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
            });
        }
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

    /// The replies the script plans, the last one always the final answer.
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// The turn a request is at, given the tool results in its history. `fired` holds the
    /// `fail … times: once` turns that already failed in this session; a once-failing turn
    /// reached for the first time is added to it.
    pub fn position(&self, tool_results: usize, fired: &mut HashSet<usize>) -> Position<'_> {
        let mut remaining = tool_results;
        let last = self.turns.len() - 1;
        for (index, turn) in self.turns.iter().enumerate() {
            match turn {
                Turn::Fail(_) if remaining > 0 => {}
                Turn::Fail(fail) => {
                    if fail.times == Times::Always || fired.insert(index) {
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

/// Groups steps into turns; the last turn is always a final answer.
fn plan(steps: &[Step]) -> Vec<Turn> {
    let mut turns = Vec::new();
    let mut texts = Vec::new();
    for step in steps {
        let action = match step {
            Step::Say(text) => {
                texts.push(text.clone());
                continue;
            }
            Step::Fail(fail) => {
                turns.push(Turn::Fail(fail.clone()));
                continue;
            }
            Step::Run(command) => Action::Run(command.clone()),
            Step::Read(path) => Action::Read(path.clone()),
            Step::Skill(name) => Action::Skill(name.clone()),
            Step::Write { path, content } => Action::Write {
                path: path.clone(),
                content: content.clone(),
            },
        };
        turns.push(Turn::Reply {
            texts: std::mem::take(&mut texts),
            action: Some(action),
        });
    }
    if texts.is_empty() {
        texts.push(DEFAULT_ANSWER.to_owned());
    }
    turns.push(Turn::Reply {
        texts,
        action: None,
    });
    turns
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

    #[test]
    fn steps_group_into_turns_with_a_final_answer() {
        let script = Script::new(vec![
            Step::Say("looking".into()),
            Step::Run("ls".into()),
            Step::Read("a".into()),
        ]);
        assert_eq!(
            script.turns(),
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
            Script::answer("hi").turns(),
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
        let mut fired = HashSet::new();
        assert_eq!(script.position(0, &mut fired).index, 0, "first: the 503");
        assert_eq!(script.position(0, &mut fired).index, 1, "the retry: ls");
        assert_eq!(script.position(0, &mut fired).index, 1, "stateless again");
        assert_eq!(script.position(1, &mut fired).index, 2, "after ls: the 400");
        assert_eq!(script.position(1, &mut fired).index, 2, "always");
        let mut fresh = HashSet::new();
        assert_eq!(script.position(1, &mut fresh).index, 2);
        assert_eq!(script.position(7, &mut fired).index, 3, "past the end");
        let plain = Script::new(vec![Step::Run("ls".into())]);
        assert_eq!(plain.position(5, &mut HashSet::new()).index, 1);
    }
}
