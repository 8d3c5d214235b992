//! The two questions `init` asks before it touches anything outside the new crate: whether to
//! join the enclosing workspace, and whether to optimize dependencies in debug builds. A flag
//! answers each without a prompt; without one, `init` asks on a terminal and otherwise answers
//! no (nothing outside the crate changes).

use std::io::{BufRead, IsTerminal, Write};

/// A yes/no answer given by a flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Answer {
    /// Yes.
    Yes,
    /// No.
    No,
}

/// The answer to `question`: `given` by a flag, else asked on the terminal (stdin and stderr
/// both terminals; an empty answer is no), else no.
pub(super) fn answer(given: Option<Answer>, question: &str) -> bool {
    if let Some(given) = given {
        return given == Answer::Yes;
    }
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return false;
    }
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "{question} [y/N] ");
    let _ = stderr.flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return false;
    }
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}
