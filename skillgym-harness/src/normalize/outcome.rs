//! Settling what each file read, skill load and shell command came to, from the tool result
//! of the call that made it: the same rules for every adapter.
//!
//! | event | failed when |
//! |---|---|
//! | file read or skill load made by a tool call | the call's result is an error, or no result came |
//! | file read made by a shell command | the command exited non-zero, or its call's result is an error |
//! | shell command | (its exit code is taken from the adapter, or from [`Links::exit`]) |
//!
//! A failed read or load keeps its event, marked with the error: it is an attempt, not evidence.

use foldhash::HashMap;

use skillgym::SessionEvent;

/// The longest error text kept on a failed event.
const MAX_ERROR_CHARS: usize = 200;
/// What a failed event says when the tool gave no text.
const NO_TEXT: &str = "the tool reported an error";
/// What an event says when its call never got a result.
const NO_RESULT: &str = "no tool result was recorded (the session ended first)";

/// Which events came from which tool call, recorded by the builder as adapters push them.
#[derive(Debug, Default)]
pub(super) struct Links {
    /// Event index → the id of the tool call that made it.
    calls: HashMap<usize, String>,
    /// File-read event index → the index of the shell command that read it.
    shell_reads: Vec<(usize, usize)>,
    /// Call id → exit status the adapter read from the call's result.
    exits: HashMap<String, i32>,
}

impl Links {
    /// Event `index` was made by call `call`.
    pub(super) fn call(&mut self, index: usize, call: Option<&str>) {
        if let Some(call) = call {
            self.calls.insert(index, call.to_owned());
        }
    }

    /// File read `read` was made by the shell command at `command`.
    pub(super) fn shell_read(&mut self, read: usize, command: usize) {
        self.shell_reads.push((read, command));
    }

    /// The command made by call `call` exited with `code`.
    pub(super) fn exit(&mut self, call: &str, code: i32) {
        self.exits.insert(call.to_owned(), code);
    }

    /// Marks every failed read and load, fills exit codes, and names each skill load's
    /// signal after the tool that made it (`tool:Skill`). `tools` maps call ids to tool names.
    ///
    /// Only what an event can take is looked up and copied: an exit code for a command
    /// without one, a failure for a read not yet marked, both names for a skill load.
    pub(super) fn settle(&self, events: &mut [SessionEvent], tools: &HashMap<String, String>) {
        // Decided while `events` is only read (the results are borrowed from it), applied after.
        let mut updates: Vec<(usize, Update)> = Vec::with_capacity(self.calls.len());
        let mut read_failures: Vec<(usize, String)> = Vec::new();
        {
            // Call id → the error text of its first result, `None` when that result succeeded.
            let mut results: HashMap<&str, Option<String>> = HashMap::default();
            for event in events.iter() {
                if let SessionEvent::ToolResult {
                    id: Some(id),
                    output,
                    is_error,
                    ..
                } = event
                {
                    results
                        .entry(id.as_str())
                        .or_insert_with(|| is_error.then(|| error_text(output)));
                }
            }
            let failure = |call: &str| match results.get(call) {
                Some(error) => error.clone(),
                None => Some(NO_RESULT.to_owned()),
            };
            for (&index, call) in &self.calls {
                let update = match &events[index] {
                    SessionEvent::Command {
                        exit_code: None, ..
                    } => match self.exits.get(call) {
                        Some(&code) => Update::Exit(code),
                        None => continue,
                    },
                    SessionEvent::FileRead { error: None, .. } => match failure(call) {
                        Some(failure) => Update::Failure(failure),
                        None => continue,
                    },
                    SessionEvent::SkillSignal { .. } => Update::SkillLoad {
                        failure: failure(call),
                        tool: tools.get(call).cloned(),
                    },
                    _ => continue,
                };
                updates.push((index, update));
            }
            for &(read, command) in &self.shell_reads {
                // The command's exit code as it will be once its call's update is applied.
                let exit_code = match &events[command] {
                    SessionEvent::Command { exit_code, .. } => exit_code.or_else(|| {
                        let call = self.calls.get(&command)?;
                        self.exits.get(call).copied()
                    }),
                    _ => None,
                };
                let failure = match exit_code {
                    Some(code) if code != 0 => Some(format!("the command exited with {code}")),
                    _ => self
                        .calls
                        .get(&command)
                        .and_then(|call| results.get(call.as_str()))
                        .and_then(Clone::clone),
                };
                if let Some(failure) = failure {
                    read_failures.push((read, failure));
                }
            }
        }
        for (index, update) in updates {
            apply(&mut events[index], update);
        }
        for (read, failure) in read_failures {
            if let SessionEvent::FileRead { error, .. } = &mut events[read] {
                error.get_or_insert(failure);
            }
        }
    }

    /// How many links are held (calls, exit codes, shell reads): the measure of what freeing
    /// them costs.
    pub(super) fn len(&self) -> usize {
        self.calls.len() + self.exits.len() + self.shell_reads.len()
    }
}

/// What a call's result means for one of the events it made.
enum Update {
    /// A command's exit code, read from its call's result.
    Exit(i32),
    /// A read's failure.
    Failure(String),
    /// A skill load's failure, if any, and the name of the tool that made it.
    SkillLoad {
        failure: Option<String>,
        tool: Option<String>,
    },
}

fn apply(event: &mut SessionEvent, update: Update) {
    match (event, update) {
        (SessionEvent::Command { exit_code, .. }, Update::Exit(code)) => {
            exit_code.get_or_insert(code);
        }
        (SessionEvent::FileRead { error, .. }, Update::Failure(failure)) => {
            error.get_or_insert(failure);
        }
        (SessionEvent::SkillSignal { signal, error, .. }, Update::SkillLoad { failure, tool }) => {
            if let Some(tool) = tool {
                *signal = format!("tool:{tool}");
            }
            if let Some(failure) = failure {
                error.get_or_insert(failure);
            }
        }
        _ => {}
    }
}

/// The first line of a tool's error output, without Claude's `<tool_use_error>` wrapper,
/// abbreviated.
fn error_text(output: &str) -> String {
    let text = output.trim();
    let text = text
        .strip_prefix("<tool_use_error>")
        .map(|rest| rest.strip_suffix("</tool_use_error>").unwrap_or(rest))
        .unwrap_or(text);
    let line = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or(NO_TEXT);
    if line.chars().count() > MAX_ERROR_CHARS {
        let cut: String = line.chars().take(MAX_ERROR_CHARS).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_link_held_counts_toward_what_freeing_them_costs() {
        let mut links = Links::default();
        for index in 0..5 {
            links.call(index, Some(&format!("call-{index}")));
        }
        links.call(5, None);
        links.exit("call-0", 0);
        links.exit("call-1", 2);
        links.shell_read(6, 0);
        assert_eq!(links.len(), 5 + 2 + 1);
    }

    #[test]
    fn error_text_is_one_clean_line() {
        assert_eq!(
            error_text("<tool_use_error>Unknown skill: ghost</tool_use_error>"),
            "Unknown skill: ghost"
        );
        assert_eq!(error_text("\n  File not found.\nmore"), "File not found.");
        assert_eq!(error_text(""), NO_TEXT);
        assert_eq!(
            error_text(&"x".repeat(300)).chars().count(),
            MAX_ERROR_CHARS + 1
        );
    }
}
