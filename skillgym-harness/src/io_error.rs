//! [`IoError`]: a file or process operation that failed, naming its path(s).

use std::io;
use std::path::PathBuf;

/// A file or process operation that failed, naming its path(s); the io error is the source.
///
/// Where a seam returns [`io::Result`] (e.g. [`Agent::launch`](crate::Agent::launch)) it is
/// wrapped in an [`io::Error`] of the same kind, which keeps it as its source:
/// `io::Error::from(IoError::...)`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IoError {
    /// A directory for a log file cannot be created.
    #[error("cannot create log directory `{}`: {source}", .path.display())]
    CreateLogDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A log file cannot be created.
    #[error("cannot create log file `{}`: {source}", .path.display())]
    CreateLogFile {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A program cannot be started.
    #[error("cannot start `{}` in `{}`: {source}{}", .program.display(), .cwd.display(), spawn_hint(.source))]
    Spawn {
        /// The program.
        program: PathBuf,
        /// The directory it was to run in.
        cwd: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A directory cannot be created.
    #[error("cannot create {}: {source}", .path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A file cannot be written.
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A prompt file cannot be read.
    #[error("cannot read prompt file {}: {source}", .path.display())]
    ReadPrompt {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// What a skill's directory holds cannot be removed before it is installed again.
    #[error("cannot replace {}: {source}", .path.display())]
    ReplaceSkill {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A skill cannot be copied into a workspace.
    #[error("cannot install the skill `{name}` from {} into {}: {source}", .from.display(), .to.display())]
    InstallSkill {
        /// The skill name.
        name: String,
        /// Its directory.
        from: PathBuf,
        /// Where it was to go.
        to: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// An auth file cannot be copied into an agent's state directory.
    #[error("cannot seed {} into {}: {source}", .from.display(), .to.display())]
    Seed {
        /// The user's file.
        from: PathBuf,
        /// The copy.
        to: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A private skills directory cannot be linked to the user's.
    #[error("cannot link {} to the user's skills {}: {source}", .link.display(), .target.display())]
    LinkUserSkills {
        /// The link.
        link: PathBuf,
        /// The user's skills directory.
        target: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// An agent's session file cannot be copied into the artifacts.
    #[error("cannot copy the session file {}: {source}", .path.display())]
    CopySessionFile {
        /// The session file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// Any other operation on a path (e.g. while copying a tree).
    #[error("{}: {source}", .path.display())]
    At {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
}

impl IoError {
    /// The io error behind it.
    pub fn io_source(&self) -> &io::Error {
        match self {
            IoError::CreateLogDir { source, .. }
            | IoError::CreateLogFile { source, .. }
            | IoError::Spawn { source, .. }
            | IoError::CreateDir { source, .. }
            | IoError::Write { source, .. }
            | IoError::ReadPrompt { source, .. }
            | IoError::ReplaceSkill { source, .. }
            | IoError::InstallSkill { source, .. }
            | IoError::Seed { source, .. }
            | IoError::LinkUserSkills { source, .. }
            | IoError::CopySessionFile { source, .. }
            | IoError::At { source, .. } => source,
        }
    }
}

impl From<IoError> for io::Error {
    /// An [`io::Error`] of the cause's kind, whose source is the cause.
    fn from(error: IoError) -> io::Error {
        io::Error::new(error.io_source().kind(), error)
    }
}

/// What to do when the kernel refuses a program's format (`ENOEXEC`, "Exec format error"): a
/// script run without its `#!` line first, the usual cause of a stand-in agent that never starts.
fn spawn_hint(source: &io::Error) -> &'static str {
    if source.raw_os_error() == Some(libc::ENOEXEC) {
        "\n  hint: a script must start with its `#!` line (such as `#!/bin/sh`) on the very first line, and be executable (`chmod +x`)"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_of_no_known_format_gets_the_shebang_hint() {
        let spawn = |code| IoError::Spawn {
            program: PathBuf::from("bin/my-agent"),
            cwd: PathBuf::from("/w"),
            source: io::Error::from_raw_os_error(code),
        };
        let message = spawn(libc::ENOEXEC).to_string();
        assert!(
            message.starts_with("cannot start `bin/my-agent` in `/w`: "),
            "{message}"
        );
        assert!(
            message.contains("hint: a script must start with its `#!` line"),
            "{message}"
        );
        assert!(!spawn(libc::ENOENT).to_string().contains("hint"));
    }
}
