//! The run's workspace root: where the isolated and shared workspaces of one run live, outside
//! the author's repository, so that no agent walking up from its workspace meets the author's
//! skills and instructions (or a Cargo workspace).
//!
//! | path | what |
//! |---|---|
//! | `<base>` | `run.workspace_root` (`--workspace-root`, `SKILLGYM_WORKSPACE_ROOT`), created when missing; else `<temp>/skillgym-<uid>` (`std::env::temp_dir`, which honours `TMPDIR`), mode 0700, which must belong to the user |
//! | `<base>/<run-id>-<pid>[-<n>]/` | the run's root (mode 0700), made by the first process of the run that needs a workspace, holding [`MARKER`] |
//! | `<root>/<case>+<runner>[+<variant>]+repeat-N+attempt-M/` | an isolated attempt's workspace: one directory, named after the attempt's directory in the run ([`flat_name`](super::flat_name)) |
//! | `<root>/.spare-<pid>-<n>/` | a passing attempt's workspace that held nothing but its empty repository, kept by this process for its next attempt ([`RunRoot::spare`]) |
//! | `<root>/shared/` | the run's shared workspace |
//! | `<run>/workspace-root.json` | [`RECORD_FILE`]: which root the run uses, so that every process of the run (nextest runs each trial in its own) agrees |
//! | `<run>/.locks/workspace-root.lock` | the lock held while the record is read or written, while a workspace is made below the root and while the root is removed |
//!
//! A passing attempt's workspace is removed, or, when it holds exactly the empty repository
//! skillgym wrote and nothing else, renamed to a spare that the process's next attempt without a
//! template or bootstrap takes as its own (removing a directory is what costs on most file
//! systems: four of them per attempt would cost more than the agent). At the end of the run
//! ([`end_run`]) the process removes its spares, then the root when nothing but its marker is
//! left (a later process of the same run makes it again, at the same path). Failed attempts'
//! workspaces and the shared workspace stay, and so does the root holding them.
//!
//! The first process to make the root checks whether it lies inside a git repository (a `.git`
//! in it or above it) and, if so, warns once per run: the run's workspaces have their own
//! repository boundary, but an agent that reads instructions past it (Claude Code reads every
//! `CLAUDE.md` up to `/`) sees that repository's.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::terminal_text::eprintln_escaped;

/// The run directory's record of its workspace root.
pub(crate) const RECORD_FILE: &str = "workspace-root.json";

/// The file that marks a directory as a run's workspace root (see
/// [`crate::workspace::recorded`]).
pub(crate) const MARKER: &str = ".skillgym-workspace-root";

/// What [`RECORD_FILE`] says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Record {
    /// The run's root.
    root: PathBuf,
    /// The repository the root lies inside, if it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    inside_repository: Option<PathBuf>,
}

/// The workspace root of one run, as every process of the run finds it.
#[derive(Debug, Clone)]
pub(crate) struct RunRoot {
    run_dir: PathBuf,
    run_id: String,
    /// `run.workspace_root`, when configured.
    configured: Option<PathBuf>,
}

impl RunRoot {
    /// The root of the run in `run_dir` (`run_id`), under `configured` when given, else under
    /// [`default_base`].
    pub(crate) fn new(run_dir: PathBuf, run_id: &str, configured: Option<&Path>) -> RunRoot {
        RunRoot {
            run_dir,
            run_id: run_id.to_owned(),
            configured: configured.map(Path::to_path_buf),
        }
    }

    /// `<root>/shared`, the root made first when the run has none yet or it was removed; the
    /// directory itself is left to the caller to make.
    pub(crate) fn shared(&self) -> Result<PathBuf, RootError> {
        let _lock = self.lock()?;
        Ok(self.root()?.join("shared"))
    }

    /// A new directory `<root>/<name>` for one attempt's workspace (`<name>+2`, `+3`, … when a
    /// process of the same run took the name before), the root made first when the run has
    /// none yet or it was removed. With `recycle`, one of this process's spares is renamed to
    /// it when there is one: it already holds an empty repository ([`Placed::recycled`]).
    pub(crate) fn attempt(&self, name: &str, recycle: bool) -> Result<Placed, RootError> {
        // The run's only process needs the lock only until it knows the root (and while it
        // makes it again): no other process makes or removes it meanwhile.
        let known =
            (self.known_root()).filter(|root| !crate::artifacts::shared_run_dir() && root.is_dir());
        let _lock = match known {
            Some(_) => None,
            None => Some(self.lock()?),
        };
        let root = match known {
            Some(root) => root,
            None => self.root()?,
        };
        let spare = recycle.then(|| take_spare(&root)).flatten();
        for n in 1..=100 {
            let dir = match n {
                1 => root.join(name),
                n => root.join(format!("{name}+{n}")),
            };
            let made = match &spare {
                Some(spare) => rename_new(spare, &dir),
                None => fs::create_dir(&dir),
            };
            match made {
                Ok(()) => {
                    return Ok(Placed {
                        dir,
                        recycled: spare.is_some(),
                    });
                }
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
                Err(error) => return Err(RootError::io("create", &dir)(error)),
            }
        }
        Err(RootError::NamesTaken { base: root })
    }

    /// Keeps `workspace`, a passing attempt's workspace holding exactly an empty repository, as
    /// a spare for this process's next attempt: renamed to `<root>/.spare-<pid>-<n>`. `false`
    /// when it could not be renamed (the caller removes it then).
    pub(crate) fn spare(&self, workspace: &Path) -> bool {
        let Some(root) = workspace.parent() else {
            return false;
        };
        let mut state = process_state();
        let n = state.spares_made;
        state.spares_made += 1;
        let spare = root.join(format!(".spare-{}-{n}", std::process::id()));
        if fs::rename(workspace, &spare).is_err() {
            return false;
        }
        state.spares.push(spare);
        true
    }

    /// The run's root, from this process's memory, else the run's record, else made now; made
    /// again when it is gone. The caller holds the lock.
    fn root(&self) -> Result<PathBuf, RootError> {
        let root = match self.known_root() {
            Some(root) => root,
            None => {
                let root = match self.read_record()? {
                    Some(record) => record.root,
                    None => self.create_root()?,
                };
                process_state()
                    .roots
                    .push((self.run_dir.clone(), root.clone()));
                root
            }
        };
        self.ensure_root(&root)?;
        Ok(root)
    }

    /// The run's root, when this process found or made it before.
    fn known_root(&self) -> Option<PathBuf> {
        (process_state().roots.iter())
            .find(|(run_dir, _)| *run_dir == self.run_dir)
            .map(|(_, root)| root.clone())
    }

    /// Removes the root when nothing but its marker is left. Best effort: a root that cannot
    /// be removed stays.
    fn prune(&self, root: &Path) {
        let Ok(_lock) = self.lock() else {
            return;
        };
        let only_marker = fs::read_dir(root).is_ok_and(|entries| {
            let names: Vec<_> = entries.flatten().map(|entry| entry.file_name()).collect();
            names.len() == 1 && names[0] == MARKER
        });
        if only_marker
            && fs::remove_file(root.join(MARKER)).is_ok()
            && fs::remove_dir(root).is_err()
        {
            // Something appeared after all: the root stays, marked.
            let _ = write_marker(root, &self.run_dir);
        }
    }

    /// The exclusive lock on `<run>/.locks/workspace-root.lock`, released when the file is
    /// dropped.
    fn lock(&self) -> Result<File, RootError> {
        let locks = self.run_dir.join(".locks");
        let path = locks.join("workspace-root.lock");
        fs::create_dir_all(&locks).map_err(RootError::io("lock", &path))?;
        crate::schedule::lock_file(&path).map_err(RootError::io("lock", &path))
    }

    /// The run's record, if it has one yet.
    fn read_record(&self) -> Result<Option<Record>, RootError> {
        let path = self.run_dir.join(RECORD_FILE);
        match fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|source| RootError::Record { path, source }),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(RootError::io("read", &path)(error)),
        }
    }

    /// Makes the run's root under its base, records it, and warns when it lies inside a git
    /// repository.
    fn create_root(&self) -> Result<PathBuf, RootError> {
        let base = match &self.configured {
            Some(base) => {
                fs::create_dir_all(base).map_err(|source| RootError::Configured {
                    base: base.clone(),
                    source,
                })?;
                base.clone()
            }
            None => private_base(&default_base())?,
        };
        let root = unique_dir(&base, &self.run_id)?;
        write_marker(&root, &self.run_dir).map_err(RootError::io("write", &root.join(MARKER)))?;
        let inside_repository = repository_holding(&root);
        let record = Record {
            root: root.clone(),
            inside_repository: inside_repository.clone(),
        };
        let path = self.run_dir.join(RECORD_FILE);
        crate::artifacts::write_json(&path, &record).map_err(RootError::io("write", &path))?;
        if let Some(repository) = inside_repository {
            eprintln_escaped!("skillgym: warning: {}", inside_warning(&root, &repository));
        }
        Ok(root)
    }

    /// Makes the recorded root again when it is gone (a passing attempt removed it, or the
    /// system emptied its temporary directory).
    fn ensure_root(&self, root: &Path) -> Result<(), RootError> {
        match fs::symlink_metadata(root) {
            Ok(meta) if meta.is_dir() => return Ok(()),
            Ok(_) => {
                return Err(RootError::RecordedNotDirectory {
                    root: root.to_path_buf(),
                    record: self.run_dir.join(RECORD_FILE),
                });
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(RootError::io("inspect", root)(error)),
        }
        let problem = RootError::io("create", root);
        if let Some(base) = root.parent() {
            match &self.configured {
                None if base == default_base() => {
                    private_base(base)?;
                }
                _ => fs::create_dir_all(base).map_err(&problem)?,
            }
        }
        fs::DirBuilder::new()
            .mode(0o700)
            .create(root)
            .map_err(&problem)?;
        write_marker(root, &self.run_dir).map_err(&problem)
    }
}

/// An attempt's workspace directory, made by [`RunRoot::attempt`].
#[derive(Debug)]
pub(crate) struct Placed {
    /// The directory.
    pub(crate) dir: PathBuf,
    /// Whether it is a spare, which holds an empty repository already; else it is empty.
    pub(crate) recycled: bool,
}

/// What one process knows of the roots it used: each run's root, and its spares.
#[derive(Debug, Default)]
struct ProcessState {
    /// `(run directory, root)` of every run this process placed a workspace for.
    roots: Vec<(PathBuf, PathBuf)>,
    /// The spare workspaces this process keeps, in its roots.
    spares: Vec<PathBuf>,
    /// How many spares this process named (their names are never reused).
    spares_made: u64,
}

/// This process's [`ProcessState`], locked.
fn process_state() -> std::sync::MutexGuard<'static, ProcessState> {
    static STATE: std::sync::Mutex<ProcessState> = std::sync::Mutex::new(ProcessState {
        roots: Vec::new(),
        spares: Vec::new(),
        spares_made: 0,
    });
    STATE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One of this process's spares in `root`, taken out of the pool.
fn take_spare(root: &Path) -> Option<PathBuf> {
    let mut state = process_state();
    let index = state
        .spares
        .iter()
        .rposition(|spare| spare.parent() == Some(root))?;
    Some(state.spares.swap_remove(index))
}

/// Renames `from` to `to` unless `to` exists (an error of kind `AlreadyExists` then).
fn rename_new(from: &Path, to: &Path) -> io::Result<()> {
    if fs::symlink_metadata(to).is_ok() {
        return Err(io::ErrorKind::AlreadyExists.into());
    }
    fs::rename(from, to)
}

/// At the end of this process's run: removes its spares, then every root it used that holds
/// nothing but its marker. Best effort: what cannot be removed stays.
///
/// Removing a directory waits on the disk (a discard on many file systems), and a spare is four
/// nested ones: each of its directories is first renamed to an empty one of its own beside it
/// ([`flatten_spare`]), then all of them are removed at once, one thread each, so that the
/// waits overlap instead of adding up.
pub(crate) fn end_run() {
    let (roots, spares) = {
        let mut state = process_state();
        (
            std::mem::take(&mut state.roots),
            std::mem::take(&mut state.spares),
        )
    };
    let empty: Vec<PathBuf> = spares
        .iter()
        .flat_map(|spare| flatten_spare(spare))
        .collect();
    std::thread::scope(|scope| {
        for dir in &empty {
            scope.spawn(move || {
                let _ = fs::remove_dir(dir).or_else(|_| fs::remove_dir_all(dir));
            });
        }
    });
    for (run_dir, root) in roots {
        RunRoot {
            run_dir,
            run_id: String::new(),
            configured: None,
        }
        .prune(&root);
    }
}

/// The directories of the spare `spare` (an empty repository, [`super::boundary`]), each made
/// an empty directory beside it (`<spare>.0`, `.1`, `.2`): its `HEAD` removed, `objects/`,
/// `refs/` and `.git/` renamed out. A directory that cannot be renamed stays where it is, and
/// is removed with its parent.
fn flatten_spare(spare: &Path) -> Vec<PathBuf> {
    let git = spare.join(".git");
    let _ = fs::remove_file(git.join("HEAD"));
    let mut dirs: Vec<PathBuf> = [git.join("objects"), git.join("refs"), git]
        .into_iter()
        .enumerate()
        .filter_map(|(n, inner)| {
            let mut name = spare.as_os_str().to_owned();
            name.push(format!(".{n}"));
            let beside = PathBuf::from(name);
            fs::rename(&inner, &beside).ok().map(|()| beside)
        })
        .collect();
    dirs.push(spare.to_path_buf());
    dirs
}

/// Why the run's workspace root cannot hold a workspace: one line naming the path (the caller
/// adds how to choose another root).
#[derive(Debug, thiserror::Error)]
pub(crate) enum RootError {
    /// A file-system call failed: `cannot {verb} {path}: {source}`.
    #[error("cannot {verb} {}: {source}", path.display())]
    Io {
        /// What was being done: `lock`, `read`, `write`, `create`, `inspect`.
        verb: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    /// The run's [`RECORD_FILE`] is not a record.
    #[error("{}: {source}", path.display())]
    Record {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// The configured `run.workspace_root` cannot be made.
    #[error("cannot create the workspace root {} (`run.workspace_root`): {source}", base.display())]
    Configured { base: PathBuf, source: io::Error },
    /// The recorded root exists but is no directory.
    #[error("the workspace root {} recorded in {} is not a directory", root.display(), record.display())]
    RecordedNotDirectory { root: PathBuf, record: PathBuf },
    /// The default base is a symbolic link or a file.
    #[error(
        "{} is not a directory (a symbolic link or a file): skillgym keeps workspaces in a directory of its own there; remove it, or set `run.workspace_root`",
        base.display()
    )]
    BaseNotDirectory { base: PathBuf },
    /// The default base belongs to another user.
    #[error(
        "{} belongs to user {owner}, not to you (user {uid}): skillgym keeps workspaces in a directory only you can enter; remove it, or set `run.workspace_root`",
        base.display()
    )]
    BaseNotYours { base: PathBuf, owner: u32, uid: u32 },
    /// The default base's mode cannot be made 0700.
    #[error("cannot make {} private (mode 0700): {source}", base.display())]
    NotPrivate { base: PathBuf, source: io::Error },
    /// Every `<run-id>-<pid>[-<n>]` tried exists already.
    #[error("cannot create a workspace root in {}: every name tried is taken", base.display())]
    NamesTaken { base: PathBuf },
}

impl RootError {
    /// `cannot {verb} {path}: …`, for `map_err`.
    fn io(verb: &'static str, path: &Path) -> impl Fn(io::Error) -> RootError {
        let path = path.to_path_buf();
        move |source| RootError::Io {
            verb,
            path: path.clone(),
            source,
        }
    }
}

/// The warning of a workspace root inside the git repository `repository`.
pub(crate) fn inside_warning(root: &Path, repository: &Path) -> String {
    format!(
        "the workspace root {} is inside the git repository {}: each workspace is a repository of its own, but agents that read instructions beyond it (Claude Code reads every CLAUDE.md up to /) see that repository's; set `run.workspace_root` outside it, or leave it unset for the temporary directory",
        root.display(),
        repository.display()
    )
}

/// The directory the run roots go in by default: `<temp>/skillgym-<uid>`.
pub(crate) fn default_base() -> PathBuf {
    // SAFETY: geteuid cannot fail and touches no memory.
    let uid = unsafe { libc::geteuid() };
    std::env::temp_dir().join(format!("skillgym-{uid}"))
}

/// Makes `base` (mode 0700) unless it exists, and checks that it is a directory of the user's
/// that nobody else may enter (tightening its mode if needed).
fn private_base(base: &Path) -> Result<PathBuf, RootError> {
    match fs::DirBuilder::new().mode(0o700).create(base) {
        Ok(()) => return Ok(base.to_path_buf()),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            let parent = base.parent().unwrap_or(Path::new("/"));
            fs::create_dir_all(parent).map_err(RootError::io("create", parent))?;
            return private_base(base);
        }
        Err(error) => return Err(RootError::io("create", base)(error)),
    }
    let meta = fs::symlink_metadata(base).map_err(RootError::io("inspect", base))?;
    // SAFETY: geteuid cannot fail and touches no memory.
    let uid = unsafe { libc::geteuid() };
    if !meta.is_dir() {
        return Err(RootError::BaseNotDirectory {
            base: base.to_path_buf(),
        });
    }
    if meta.uid() != uid {
        return Err(RootError::BaseNotYours {
            base: base.to_path_buf(),
            owner: meta.uid(),
            uid,
        });
    }
    if meta.mode() & 0o077 != 0 {
        fs::set_permissions(base, fs::Permissions::from_mode(0o700)).map_err(|source| {
            RootError::NotPrivate {
                base: base.to_path_buf(),
                source,
            }
        })?;
    }
    Ok(base.to_path_buf())
}

/// A new directory (mode 0700) in `base` named after the run: `<run-id>-<pid>`, else with
/// `-<n>` added (a name another run took is never reused).
fn unique_dir(base: &Path, run_id: &str) -> Result<PathBuf, RootError> {
    let pid = std::process::id();
    for n in 0..100 {
        let name = match n {
            0 => format!("{run_id}-{pid}"),
            n => format!("{run_id}-{pid}-{n}"),
        };
        let dir = base.join(name);
        match fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(RootError::io("create", &dir)(error)),
        }
    }
    Err(RootError::NamesTaken {
        base: base.to_path_buf(),
    })
}

/// Writes the marker of a run's root, naming the run directory.
fn write_marker(root: &Path, run_dir: &Path) -> io::Result<()> {
    let text = serde_json::json!({
        "skillgym_workspace_root": 1,
        "run_dir": run_dir,
        "note": "the workspaces of one skillgym run; failed attempts' workspaces are kept here",
    });
    fs::write(root.join(MARKER), format!("{text:#}\n"))
}

/// The nearest directory at or above `dir` (symlinks resolved) holding a `.git`.
pub(crate) fn repository_holding(dir: &Path) -> Option<PathBuf> {
    let real = fs::canonicalize(dir).ok()?;
    real.ancestors()
        .find(|dir| fs::symlink_metadata(dir.join(".git")).is_ok())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_configured_root_holds_the_run_and_goes_when_empty() {
        let t = tempfile::tempdir().unwrap();
        let run_dir = t.path().join("runs/r1");
        let base = t.path().join("roots/made-on-demand");
        let root = RunRoot::new(run_dir.clone(), "r1", Some(&base));
        let placed = root.attempt("case+a+repeat-1+attempt-1", false).unwrap();
        let run_root = base.join(format!("r1-{}", std::process::id()));
        assert_eq!(placed.dir, run_root.join("case+a+repeat-1+attempt-1"));
        assert!(!placed.recycled);
        assert_eq!(names(&placed.dir), Vec::<String>::new(), "made, empty");
        assert_eq!(
            fs::metadata(&run_root).unwrap().permissions().mode() & 0o777,
            0o700
        );
        let marker: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(run_root.join(MARKER)).unwrap()).unwrap();
        assert_eq!(marker["run_dir"], run_dir.display().to_string());
        let record: Record =
            serde_json::from_str(&fs::read_to_string(run_dir.join(RECORD_FILE)).unwrap()).unwrap();
        assert_eq!(record.root, run_root);

        // A name taken (by an earlier process of the run) is not reused.
        let again = root.attempt("case+a+repeat-1+attempt-1", false).unwrap();
        assert_eq!(again.dir, run_root.join("case+a+repeat-1+attempt-1+2"));

        // A spare serves the next attempt that may take one, renamed.
        crate::workspace::boundary::ensure_repository(&again.dir).unwrap();
        assert!(root.spare(&again.dir));
        assert!(!again.dir.exists());
        let recycled = root.attempt("case+a+repeat-2+attempt-1", true).unwrap();
        assert!(recycled.recycled);
        assert_eq!(recycled.dir, run_root.join("case+a+repeat-2+attempt-1"));
        assert!(crate::workspace::boundary::is_pristine(&recycled.dir));
        assert!(
            !root.attempt("x", true).unwrap().recycled,
            "one spare, taken"
        );

        // At the end of the run the spares go, and the root once it holds only its marker.
        assert!(root.spare(&recycled.dir));
        fs::remove_dir(&placed.dir).unwrap();
        end_run();
        assert_eq!(
            names(&run_root),
            [MARKER, "x"],
            "a workspace left (a failed attempt's) keeps the root"
        );
        fs::remove_dir(run_root.join("x")).unwrap();
        root.attempt("y", false).unwrap();
        fs::remove_dir(run_root.join("y")).unwrap();
        end_run();
        assert!(!run_root.exists(), "an empty root is removed");
        assert!(base.is_dir(), "the configured directory stays");

        // The run's next workspace gets the same root back.
        let back = root.attempt("z", false).unwrap();
        assert_eq!(back.dir, run_root.join("z"));
        assert!(run_root.join(MARKER).is_file());
    }

    #[test]
    fn roots_inside_a_repository_are_recorded_as_such() {
        let t = tempfile::tempdir().unwrap();
        let repository = t.path().join("author");
        fs::create_dir_all(repository.join(".git")).unwrap();
        let run_dir = repository.join("target/runs/r1");
        let base = repository.join("target/workspaces");
        RunRoot::new(run_dir.clone(), "r1", Some(&base))
            .shared()
            .unwrap();
        let record: Record =
            serde_json::from_str(&fs::read_to_string(run_dir.join(RECORD_FILE)).unwrap()).unwrap();
        assert_eq!(
            record.inside_repository,
            Some(fs::canonicalize(&repository).unwrap())
        );
        assert_eq!(
            repository_holding(&t.path().join("author")),
            record.inside_repository
        );
        let outside = t.path().join("elsewhere");
        fs::create_dir(&outside).unwrap();
        // The scratch directory itself may sit in a repository (a checkout's target/); only a
        // repository at or below the scratch directory counts here.
        assert!(
            repository_holding(&outside)
                .is_none_or(|found| !found.starts_with(fs::canonicalize(t.path()).unwrap()))
        );
    }

    #[test]
    fn the_default_base_is_private_and_must_be_the_users() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().join("skillgym-test");
        assert_eq!(private_base(&base).unwrap(), base);
        assert_eq!(
            fs::metadata(&base).unwrap().permissions().mode() & 0o777,
            0o700
        );
        fs::set_permissions(&base, fs::Permissions::from_mode(0o755)).unwrap();
        private_base(&base).unwrap();
        assert_eq!(
            fs::metadata(&base).unwrap().permissions().mode() & 0o777,
            0o700,
            "a base others may enter is made private"
        );
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&base, &link).unwrap();
        let refused = private_base(&link).unwrap_err().to_string();
        assert!(refused.contains("is not a directory"), "{refused}");
        assert!(default_base().starts_with(std::env::temp_dir()));
    }

    #[test]
    fn names_taken_are_skipped() {
        let t = tempfile::tempdir().unwrap();
        let pid = std::process::id();
        fs::create_dir(t.path().join(format!("r-{pid}"))).unwrap();
        let dir = unique_dir(t.path(), "r").unwrap();
        assert_eq!(dir, t.path().join(format!("r-{pid}-1")));
        assert_eq!(names(t.path()), [format!("r-{pid}"), format!("r-{pid}-1")]);
    }
}
