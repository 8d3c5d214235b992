//! Turns a script's tool action into a call of a tool the agent offers: the tool is picked by
//! name, its arguments by the names in the tool's schema, so each agent gets its own shapes.
//!
//! | action | tools, first offered wins | argument | when none is offered |
//! |---|---|---|---|
//! | `run` | `Bash`, `bash`, `exec_command`, `run_shell_command`, `shell`, `local_shell` | `command`, `cmd` (an array schema gets `["bash", "-lc", CMD]`) | no call: the reply says so |
//! | `read` | `Read`, `read`, `view`, `read_file` | `file_path`, `filePath`, `path`, `absolute_path` | `cat PATH` through the shell tool |
//! | `skill` | `Skill`, `skill`, `activate_skill` | `skill`, `name` | a read of the skill's `SKILL.md` (a path named in the request, else found with `find`) |
//! | `write` | `Write`, `write`, `write_file`, `create` | path as for `read`; `content`, `file_text`, `contents` | a here-document through the shell tool |
//!
//! Paths are resolved against the session's cwd when it is known (agents' read tools want
//! absolute paths), and kept as written in shell commands, which run in that cwd. Other
//! required arguments get a value from their schema: a `description` says what the step is,
//! other strings are empty, numbers their `minimum` or 0, and so on.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::schema::example_property;
use super::script::Action;
use super::wire::{ToolCall, ToolSpec};

const SHELL_TOOLS: &[&str] = &[
    "Bash",
    "bash",
    "exec_command",
    "run_shell_command",
    "shell",
    "local_shell",
];
const SHELL_ARGS: &[&str] = &["command", "cmd"];
const READ_TOOLS: &[&str] = &["Read", "read", "view", "read_file"];
const PATH_ARGS: &[&str] = &["file_path", "filePath", "path", "absolute_path"];
const SKILL_TOOLS: &[&str] = &["Skill", "skill", "activate_skill"];
const SKILL_ARGS: &[&str] = &["skill", "name"];
const WRITE_TOOLS: &[&str] = &["Write", "write", "write_file", "create"];
const CONTENT_ARGS: &[&str] = &["content", "file_text", "contents"];

/// What a tool action becomes.
#[derive(Debug, Clone, PartialEq)]
pub enum Planned {
    /// A call of one of the agent's tools.
    Call(ToolCall),
    /// No tool can do it: the reply says why, as text.
    Unavailable(String),
}

/// The call that performs `action` with the agent's `tools`. `cwd` is the session's working
/// directory, when known; `text` is the request's text, where skill paths are looked up.
pub fn plan_call(action: &Action, tools: &[ToolSpec], cwd: Option<&Path>, text: &str) -> Planned {
    match action {
        Action::Run(command) => shell(tools, command, action),
        Action::Read(path) => match find(tools, READ_TOOLS) {
            Some(tool) => call(tool, &[(PATH_ARGS, json!(absolute(cwd, path)))], action),
            None => shell(tools, &format!("cat {}", quote(path)), action),
        },
        Action::Skill(name) => match find(tools, SKILL_TOOLS) {
            Some(tool) => call(tool, &[(SKILL_ARGS, json!(name))], action),
            None => {
                let read = match skill_path(text, name) {
                    Some(path) => Action::Read(path),
                    None => Action::Run(format!(
                        "cat \"$(find . -path '*/{}/SKILL.md' -print -quit)\"",
                        name.replace('\'', "")
                    )),
                };
                plan_call(&read, tools, cwd, text)
            }
        },
        Action::Write { path, content } => match find(tools, WRITE_TOOLS) {
            Some(tool) => call(
                tool,
                &[
                    (PATH_ARGS, json!(absolute(cwd, path))),
                    (CONTENT_ARGS, json!(content)),
                ],
                action,
            ),
            None => {
                let mut marker = "SKILLGYM_EOF".to_owned();
                while content.contains(&marker) {
                    marker.push('_');
                }
                let command = format!("cat > {} <<'{marker}'\n{content}\n{marker}", quote(path));
                shell(tools, &command, action)
            }
        },
    }
}

/// A call of the shell tool, or why there is none.
fn shell(tools: &[ToolSpec], command: &str, action: &Action) -> Planned {
    match find(tools, SHELL_TOOLS) {
        Some(tool) => {
            let array = argument_name(tool, SHELL_ARGS)
                .and_then(|name| tool.schema.pointer(&format!("/properties/{name}/type")))
                .is_some_and(|kind| kind == "array");
            let value = if array {
                json!(["bash", "-lc", command])
            } else {
                json!(command)
            };
            call(tool, &[(SHELL_ARGS, value)], action)
        }
        None => Planned::Unavailable(format!(
            "skillgym mock: the agent offers no tool for `{}` (tools offered: {})",
            describe(action),
            names(tools)
        )),
    }
}

/// The first of `names` among the tools.
fn find<'a>(tools: &'a [ToolSpec], names: &[&str]) -> Option<&'a ToolSpec> {
    names
        .iter()
        .find_map(|name| tools.iter().find(|tool| tool.name == *name))
}

/// The first of `candidates` that the tool's schema has as a property; the first candidate
/// when the schema lists no properties.
fn argument_name<'a>(tool: &ToolSpec, candidates: &[&'a str]) -> Option<&'a str> {
    match tool.schema.get("properties").and_then(Value::as_object) {
        Some(properties) => candidates
            .iter()
            .copied()
            .find(|name| properties.contains_key(*name)),
        None => candidates.first().copied(),
    }
}

/// A call of `tool` with the given arguments, its other required ones filled in.
fn call(tool: &ToolSpec, arguments: &[(&[&str], Value)], action: &Action) -> Planned {
    let mut object = Map::new();
    for (candidates, value) in arguments {
        let Some(name) = argument_name(tool, candidates) else {
            return Planned::Unavailable(format!(
                "skillgym mock: tool `{}` has none of the arguments {} needed for `{}`",
                tool.name,
                candidates.join(", "),
                describe(action)
            ));
        };
        object.insert(name.to_owned(), value.clone());
    }
    let properties = tool.schema.get("properties").and_then(Value::as_object);
    let required = tool.schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        if object.contains_key(name) {
            continue;
        }
        let schema = properties.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
        object.insert(name.to_owned(), filler(name, schema, action));
    }
    Planned::Call(ToolCall {
        name: tool.name.clone(),
        arguments: Value::Object(object),
    })
}

/// A value for a required argument the script says nothing about: its schema's default, else
/// a value of its type; a string is empty, but for a description of the step.
fn filler(name: &str, schema: &Value, action: &Action) -> Value {
    if let Some(value) = schema.get("default") {
        return value.clone();
    }
    match example_property(name, schema) {
        Value::String(_) | Value::Null if name.to_ascii_lowercase().contains("description") => {
            json!(format!("skillgym mock step: {}", describe(action)))
        }
        Value::String(_) | Value::Null => json!(""),
        value => value,
    }
}

/// The path of a skill's `SKILL.md` named in the request text (e.g. a skill list in the
/// system prompt), if any. A path under a root alias (Codex lists `` - `r1` = `/ws/.agents/skills` ``
/// and then `(file: r1/demo/SKILL.md)`) is expanded.
pub fn skill_path(text: &str, name: &str) -> Option<String> {
    let suffix = format!("/{name}/SKILL.md");
    let end = text.find(&suffix)? + suffix.len();
    let start = text[..end]
        .char_indices()
        .rfind(|&(_, c)| c.is_whitespace() || "\"'`<>()[]{},".contains(c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let path = &text[start..end];
    let expanded = path.split_once('/').and_then(|(alias, rest)| {
        let definition = format!("`{alias}` = `");
        let at = text.find(&definition)? + definition.len();
        let root = &text[at..at + text[at..].find('`')?];
        Some(format!("{root}/{rest}"))
    });
    Some(expanded.unwrap_or_else(|| path.to_owned()))
}

/// `path` against `cwd` when it is relative and the cwd is known.
fn absolute(cwd: Option<&Path>, path: &str) -> String {
    match cwd {
        Some(cwd) if !Path::new(path).is_absolute() => cwd.join(path).display().to_string(),
        _ => path.to_owned(),
    }
}

/// A word for the shell: as it is when it is plain, else single-quoted.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The step as written in a script.
fn describe(action: &Action) -> String {
    match action {
        Action::Run(command) => format!("run: {command}"),
        Action::Read(path) => format!("read: {path}"),
        Action::Skill(name) => format!("skill: {name}"),
        Action::Write { path, .. } => format!("write: {path}"),
    }
}

fn names(tools: &[ToolSpec]) -> String {
    if tools.is_empty() {
        return "none".to_owned();
    }
    tools
        .iter()
        .map(|tool| tool.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, schema: Value) -> ToolSpec {
        ToolSpec::new(name, schema)
    }

    fn planned_call(planned: Planned) -> ToolCall {
        match planned {
            Planned::Call(call) => call,
            Planned::Unavailable(why) => panic!("no call: {why}"),
        }
    }

    #[test]
    fn picks_tools_and_argument_names_from_the_schema() {
        let tools = [
            tool(
                "bash",
                json!({"properties": {"command": {"type": "string"}, "description": {"type": "string"}}, "required": ["command", "description"]}),
            ),
            tool(
                "view",
                json!({"properties": {"path": {"type": "string"}}, "required": ["path"]}),
            ),
            tool(
                "skill",
                json!({"properties": {"skill": {"type": "string"}}}),
            ),
        ];
        let cwd = Path::new("/ws");
        let run = planned_call(plan_call(&Action::Run("ls".into()), &tools, Some(cwd), ""));
        assert_eq!(run.name, "bash");
        assert_eq!(
            run.arguments,
            json!({"command": "ls", "description": "skillgym mock step: run: ls"})
        );
        let read = planned_call(plan_call(
            &Action::Read("SKILL.md".into()),
            &tools,
            Some(cwd),
            "",
        ));
        assert_eq!(read.arguments, json!({"path": "/ws/SKILL.md"}));
        let skill = planned_call(plan_call(
            &Action::Skill("demo".into()),
            &tools,
            Some(cwd),
            "",
        ));
        assert_eq!(
            (skill.name.as_str(), skill.arguments),
            ("skill", json!({"skill": "demo"}))
        );
    }

    #[test]
    fn a_skill_path_after_a_wide_separator_is_cut_on_a_character_boundary() {
        for separator in ["\u{a0}", "\u{3000}", "\u{2028}"] {
            let text = format!("skills:{separator}/ws/demo/SKILL.md{separator}");
            assert_eq!(
                skill_path(&text, "demo").as_deref(),
                Some("/ws/demo/SKILL.md"),
                "{separator:?}"
            );
        }
        assert_eq!(
            skill_path("\u{a0}/demo/SKILL.md", "demo").as_deref(),
            Some("/demo/SKILL.md")
        );
    }

    #[test]
    fn falls_back_to_the_shell() {
        let tools = [tool(
            "exec_command",
            json!({"properties": {"cmd": {"type": "string"}}, "required": ["cmd"]}),
        )];
        let read = planned_call(plan_call(&Action::Read("my file".into()), &tools, None, ""));
        assert_eq!(read.arguments, json!({"cmd": "cat 'my file'"}));
        let text = "skills:\n- demo: /home/u/.agents/skills/demo/SKILL.md (file)";
        let skill = planned_call(plan_call(&Action::Skill("demo".into()), &tools, None, text));
        assert_eq!(
            skill.arguments,
            json!({"cmd": "cat /home/u/.agents/skills/demo/SKILL.md"})
        );
        let text = "- `r1` = `/ws/.agents/skills`\n- demo: A demo. (file: r1/demo/SKILL.md)";
        let skill = planned_call(plan_call(&Action::Skill("demo".into()), &tools, None, text));
        assert_eq!(
            skill.arguments,
            json!({"cmd": "cat /ws/.agents/skills/demo/SKILL.md"})
        );
        let skill = planned_call(plan_call(&Action::Skill("x".into()), &tools, None, ""));
        assert_eq!(
            skill.arguments,
            json!({"cmd": "cat \"$(find . -path '*/x/SKILL.md' -print -quit)\""})
        );
        let write = Action::Write {
            path: "a.txt".into(),
            content: "one SKILLGYM_EOF".into(),
        };
        let write = planned_call(plan_call(&write, &tools, None, ""));
        assert_eq!(
            write.arguments,
            json!({"cmd": "cat > a.txt <<'SKILLGYM_EOF_'\none SKILLGYM_EOF\nSKILLGYM_EOF_"})
        );
    }

    #[test]
    fn an_array_command_is_wrapped_and_a_missing_shell_is_said() {
        let tools = [tool(
            "shell",
            json!({"properties": {"command": {"type": "array"}}}),
        )];
        let run = planned_call(plan_call(&Action::Run("ls".into()), &tools, None, ""));
        assert_eq!(run.arguments, json!({"command": ["bash", "-lc", "ls"]}));
        let none = plan_call(
            &Action::Run("ls".into()),
            &[tool("glob", Value::Null)],
            None,
            "",
        );
        assert_eq!(
            none,
            Planned::Unavailable(
                "skillgym mock: the agent offers no tool for `run: ls` (tools offered: glob)"
                    .into()
            )
        );
    }

    #[test]
    fn quotes_only_what_needs_it() {
        assert_eq!(quote("SKILL.md"), "SKILL.md");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }
}
