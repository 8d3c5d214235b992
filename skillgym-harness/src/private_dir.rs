//! Files that hold a secret in clear (the user's login seeded for an agent, a prompt with a
//! secret in it): kept out of the run directory, in a private directory that goes with the
//! session.
//!
//! | when | what remains |
//! |---|---|
//! | while the session runs | `<base>/skillgym-private-<pid>-<n>/` (mode 0700, its files 0600), `<base>` being `$XDG_RUNTIME_DIR` (a per-user tmpfs the system empties at logout) when it is an absolute directory, else the temporary directory; the run directory holds only symbolic links to these files |
//! | the session ends, however it ends | nothing: the guard ([`PrivateDir`]) removes the directory when dropped |
//! | a second signal (the harness exits at once) | nothing: every file and directory is registered with [`crate::interrupt`] before anything is written (a file made by other means, a process's log or a socket, through [`PrivateDir::reserve`]), and the signal handler unlinks them |
//! | SIGKILL of the harness | the directory, until the next skillgym run on the machine removes it ([`sweep`], on a thread of its own while the run's trials start: directories whose process is gone) or the system empties `<base>`; readable by its owner only. The links in the run directory point at it |

use std::fs::{self, File};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::interrupt::RegisteredPath;

/// The prefix of every private directory's name.
const PREFIX: &str = "skillgym-private-";

/// A private directory of secret files, removed with everything in it when dropped.
#[derive(Debug)]
pub(crate) struct PrivateDir {
    dir: PathBuf,
    /// Files made here so far (their names are numbered).
    files: usize,
    /// The directory and its files, for the signal handler.
    registered: Vec<RegisteredPath>,
}

impl PrivateDir {
    /// Creates a fresh private directory under [`base`].
    pub(crate) fn create() -> io::Result<PrivateDir> {
        static SEQUENCE: AtomicU64 = AtomicU64::new(1);
        let base = base();
        let pid = std::process::id();
        let mut last_error = None;
        for _ in 0..64 {
            let n = SEQUENCE.fetch_add(1, Ordering::Relaxed);
            let dir = base.join(format!("{PREFIX}{pid}-{n}"));
            // Registered before it exists: a fast exit right after mkdir still removes it.
            let registered = RegisteredPath::new(&dir);
            match fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => {
                    return Ok(PrivateDir {
                        dir,
                        files: 0,
                        registered: vec![registered],
                    });
                }
                // Taken (by a process of the same pid long gone, or by anyone in a shared
                // temporary directory): never reused, the next name is tried.
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                    last_error = Some(error);
                }
                Err(error) => return Err(with_path(error, &dir)),
            }
        }
        Err(last_error.map_or_else(
            || io::Error::other("no free name"),
            |error| with_path(error, &base),
        ))
    }

    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }

    /// A new file here, readable by the owner only, holding `contents`; `name` ends its file
    /// name (for whoever looks).
    pub(crate) fn write(&mut self, name: &str, contents: &[u8]) -> io::Result<PathBuf> {
        let (path, mut file) = self.new_file(name)?;
        file.write_all(contents)
            .map_err(|error| with_path(error, &path))?;
        Ok(path)
    }

    /// A copy of the file `source` here, readable by the owner only.
    pub(crate) fn copy(&mut self, source: &Path, name: &str) -> io::Result<PathBuf> {
        let (path, mut file) = self.new_file(name)?;
        io::copy(&mut File::open(source)?, &mut file)?;
        Ok(path)
    }

    /// Registers `path`, a file outside this directory that refers to one inside it (a
    /// link), for removal by a fast exit.
    pub(crate) fn register(&mut self, path: &Path) {
        self.registered.push(RegisteredPath::new(path));
    }

    /// The path `name` here, for a file made by other means (a process's log, a socket),
    /// registered for removal by a fast exit before it exists.
    pub(crate) fn reserve(&mut self, name: &str) -> PathBuf {
        let path = self.dir.join(name);
        self.register(&path);
        path
    }

    fn new_file(&mut self, name: &str) -> io::Result<(PathBuf, File)> {
        self.files += 1;
        let name: String = name
            .chars()
            .map(|c| if c == '/' { '_' } else { c })
            .collect();
        let path = self.dir.join(format!("{}-{name}", self.files));
        self.registered.push(RegisteredPath::new(&path));
        let file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(|error| with_path(error, &path))?;
        Ok((path, file))
    }

    /// Removes the directory with everything in it; a directory already gone is fine.
    pub(crate) fn remove(&mut self) -> io::Result<()> {
        let removed = match fs::remove_dir_all(&self.dir) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => {
                Err(with_path(error, &self.dir))
            }
            _ => Ok(()),
        };
        self.registered.clear();
        removed
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = self.remove();
    }
}

/// Where private directories go: `$XDG_RUNTIME_DIR` when it is an absolute directory, else
/// the temporary directory.
fn base() -> PathBuf {
    std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute() && dir.is_dir())
        .unwrap_or_else(std::env::temp_dir)
}

/// [`sweep`] on a thread of its own (here and now when no thread can be had), while the run
/// goes on: a temporary directory can hold thousands of entries to read.
pub(crate) fn sweep_in_background() -> Sweeping {
    let thread = std::thread::Builder::new()
        .name("skillgym-sweep".to_owned())
        .spawn(sweep)
        .inspect_err(|_| sweep());
    Sweeping(thread.ok())
}

/// A [`sweep_in_background`] under way.
pub(crate) struct Sweeping(Option<std::thread::JoinHandle<()>>);

impl Sweeping {
    /// Waits until the sweep is done.
    pub(crate) fn wait(self) {
        if let Some(thread) = self.0 {
            let _ = thread.join();
        }
    }
}

/// Removes the private directories a skillgym process left behind when it was killed
/// (SIGKILL): those of this user, named as [`PrivateDir`] names them, whose process is gone.
pub(crate) fn sweep() {
    let base = base();
    let Ok(entries) = fs::read_dir(&base) else {
        return;
    };
    // SAFETY: getuid(2) cannot fail.
    let uid = unsafe { libc::getuid() };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_prefix(PREFIX))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, n)| n.parse::<u64>().ok().and(pid.parse::<libc::pid_t>().ok()))
        else {
            continue;
        };
        let Ok(meta) = fs::symlink_metadata(entry.path()) else {
            continue;
        };
        if meta.is_dir() && meta.uid() == uid && pid > 0 && !alive(pid) {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether a process `pid` exists (of any user).
fn alive(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks whether the process exists.
    let answer = unsafe { libc::kill(pid, 0) };
    answer == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// The error, naming the path.
fn with_path(error: io::Error, path: &Path) -> io::Error {
    io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn files_are_private_and_go_with_the_directory() {
        let mut private = PrivateDir::create().unwrap();
        let dir = private.dir.clone();
        assert!(dir.starts_with(base()), "{}", dir.display());
        assert_eq!(mode(&dir), 0o700);
        let written = private.write("nested/name.json", b"secret").unwrap();
        assert_eq!(
            written.parent(),
            Some(dir.as_path()),
            "one level, `/` replaced"
        );
        assert_eq!(fs::read(&written).unwrap(), b"secret");
        assert_eq!(mode(&written), 0o600);
        let copied = private.copy(&written, "copy").unwrap();
        assert_eq!(fs::read(&copied).unwrap(), b"secret");
        assert_eq!(mode(&copied), 0o600);
        drop(private);
        assert!(!dir.exists());
    }

    #[test]
    fn the_sweep_removes_directories_whose_process_is_gone() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        let stale = base().join(format!("{PREFIX}{gone}-999999"));
        let alive = base().join(format!("{PREFIX}{}-999999", std::process::id()));
        let other = base().join(format!("{PREFIX}x-{gone}"));
        for dir in [&stale, &alive, &other] {
            fs::create_dir_all(dir.join("sub")).unwrap();
            fs::write(dir.join("sub/login.json"), "secret").unwrap();
        }
        sweep();
        assert!(!stale.exists(), "its process is gone");
        assert!(alive.exists(), "this process is alive");
        assert!(other.exists(), "not a name of ours");
        fs::remove_dir_all(&alive).unwrap();
        fs::remove_dir_all(&other).unwrap();
    }
}
