//! Shell commands held from a tool call's start until its completion, so that each executed
//! command becomes one `Command` event, emitted once, with its exit code.

use std::path::PathBuf;

use crate::normalize::ReportBuilder;

/// Shell commands held from a tool call's start until its completion tells the exit code,
/// so that each executed command is one `Command` event.
#[derive(Debug, Default)]
pub(super) struct PendingCommands(Vec<PendingCommand>);

#[derive(Debug)]
struct PendingCommand {
    id: String,
    command: String,
    workdir: Option<PathBuf>,
    at: Option<String>,
}

impl PendingCommands {
    /// Holds the command of call `id`.
    pub(super) fn hold(
        &mut self,
        id: &str,
        command: &str,
        workdir: Option<PathBuf>,
        at: Option<String>,
    ) {
        self.0.retain(|pending| pending.id != id);
        self.0.push(PendingCommand {
            id: id.to_owned(),
            command: command.to_owned(),
            workdir,
            at,
        });
    }

    /// Emits the command of call `id` with its exit code; `false` when none was held.
    pub(super) fn release(
        &mut self,
        id: &str,
        exit_code: Option<i32>,
        out: &mut ReportBuilder,
    ) -> bool {
        let Some(index) = self.0.iter().position(|pending| pending.id == id) else {
            return false;
        };
        let pending = self.0.remove(index);
        out.shell_command(
            Some(&pending.id),
            &pending.command,
            exit_code,
            pending.workdir.as_deref(),
            pending.at,
        );
        true
    }

    /// Forgets the command of call `id` (it was never executed).
    pub(super) fn discard(&mut self, id: &str) {
        self.0.retain(|pending| pending.id != id);
    }

    /// Emits the commands whose completion never came (the stream was cut), without exit code.
    pub(super) fn flush(&mut self, out: &mut ReportBuilder) {
        for pending in self.0.drain(..) {
            out.shell_command(
                Some(&pending.id),
                &pending.command,
                None,
                pending.workdir.as_deref(),
                pending.at,
            );
        }
    }
}
