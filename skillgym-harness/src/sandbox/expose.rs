//! What the sandbox hides, and what of the hidden it shows again read-only so that the agent
//! still starts.
//!
//! | hidden root | why |
//! |---|---|
//! | `$HOME`, and the user's home in the password database | keys, logins, history, the author's other work |
//! | `/tmp`, `/var/tmp`, `$TMPDIR` | other programs' files, skillgym's private directories of other sessions |
//! | `$XDG_RUNTIME_DIR` | the user's sockets (agents, keyrings, the session bus) and other sessions' seeded logins |
//!
//! A root that is `/` or a system directory (a home of `/usr`) is never hidden.
//!
//! | shown again, read-only | found by |
//! |---|---|
//! | the agent's program | `PATH` (a name) or the path itself |
//! | its installation | the outermost `node_modules` around the program's real file (an npm install: its dependencies are siblings), else that file's directory, and the directory the program was found in |
//! | its interpreter | the `#!` line of the real file (`#!/usr/bin/env node`: `node` on `PATH`), the same way |
//! | the harness's executable and shared libraries, for the forwarder | `/proc/self/maps` |
//! | files the adapter hands the agent | `GIT_CONFIG_GLOBAL`, `NPM_CONFIG_USERCONFIG` in its environment |

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Read};
use std::path::{Component, Path, PathBuf};

/// System directories never hidden, whatever a variable says.
const SYSTEM: [&str; 13] = [
    "/", "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/opt", "/var", "/proc", "/sys",
    "/dev", "/run",
];

/// The directories the sandbox replaces with an empty tmpfs (those that exist).
pub(super) fn hidden_roots() -> Vec<PathBuf> {
    let env_dir = |name: &str| std::env::var_os(name).map(PathBuf::from);
    let mut roots: Vec<PathBuf> = [
        Some(PathBuf::from("/tmp")),
        Some(PathBuf::from("/var/tmp")),
        env_dir("TMPDIR"),
        env_dir("XDG_RUNTIME_DIR"),
    ]
    .into_iter()
    .flatten()
    .chain(homes())
    .collect();
    roots.retain(|root| root.is_absolute() && root.is_dir());
    roots = roots.iter().map(|root| super::canonical(root)).collect();
    roots.retain(|root| !SYSTEM.iter().any(|system| root == Path::new(system)));
    roots
}

/// The user's home directories: `$HOME` and the password database's (when they differ).
pub(super) fn homes() -> Vec<PathBuf> {
    let mut homes: Vec<PathBuf> = std::env::var_os("HOME")
        .map(PathBuf::from)
        .into_iter()
        .chain(password_home())
        .filter(|home| home.is_absolute() && home.is_dir())
        .map(|home| super::canonical(&home))
        .filter(|home| !SYSTEM.iter().any(|system| home == Path::new(system)))
        .collect();
    homes.dedup();
    homes
}

/// The home directory of this process's user in the password database.
fn password_home() -> Option<PathBuf> {
    use std::ffi::CStr;
    use std::os::unix::ffi::OsStrExt;
    let mut buffer = vec![0u8; 16 * 1024];
    // SAFETY: an all-zero passwd is a valid value for getpwuid_r to fill in.
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: the buffer and its length match, and `entry`/`found` are valid for writes;
    // getuid(2) cannot fail.
    let status = unsafe {
        libc::getpwuid_r(
            libc::getuid(),
            &mut entry,
            buffer.as_mut_ptr().cast(),
            buffer.len(),
            &mut found,
        )
    };
    if status != 0 || found.is_null() || entry.pw_dir.is_null() {
        return None;
    }
    // SAFETY: getpwuid_r succeeded: `pw_dir` points to a NUL-terminated string in `buffer`.
    let dir = unsafe { CStr::from_ptr(entry.pw_dir) };
    Some(PathBuf::from(OsStr::from_bytes(dir.to_bytes())))
}

/// The agent's program and its installation (see the module's table); `cwd` is where a
/// relative path is relative to.
pub(super) fn program(program: &OsStr, cwd: &Path) -> Vec<PathBuf> {
    let mut shown = Vec::new();
    let Some(found) = find(program, cwd) else {
        return shown;
    };
    installation(&found, &mut shown);
    if let Some(interpreter) = interpreter(&found).and_then(|name| find(&name, cwd)) {
        installation(&interpreter, &mut shown);
    }
    shown
}

/// `program` on `PATH`, or relative to `cwd` when it holds a `/`.
fn find(program: &OsStr, cwd: &Path) -> Option<PathBuf> {
    let path = Path::new(program);
    if path.is_absolute() {
        return Some(path.to_path_buf());
    }
    if program.to_string_lossy().contains('/') {
        return Some(cwd.join(path));
    }
    crate::process::find_program(path)
}

/// Adds what shows `found` (as found, maybe a link) and its real file's installation.
fn installation(found: &Path, shown: &mut Vec<PathBuf>) {
    if let Some(dir) = found.parent() {
        shown.push(dir.to_path_buf());
    }
    let Ok(real) = std::fs::canonicalize(found) else {
        return;
    };
    shown.push(install_root(&real));
}

/// The outermost `node_modules` directory around `file` (an npm package needs its siblings),
/// else its directory.
fn install_root(file: &Path) -> PathBuf {
    let mut root = PathBuf::new();
    for component in file.components() {
        root.push(component);
        if component == Component::Normal(OsStr::new("node_modules")) {
            return root;
        }
    }
    file.parent()
        .map_or_else(|| file.to_path_buf(), Path::to_path_buf)
}

/// The interpreter a script's `#!` line names: the program after `env` (`#!/usr/bin/env node`),
/// else the path itself.
fn interpreter(file: &Path) -> Option<OsString> {
    let mut head = Vec::with_capacity(256);
    std::fs::File::open(file)
        .ok()?
        .take(256)
        .read_to_end(&mut head)
        .ok()?;
    let line = head.strip_prefix(b"#!")?;
    let line = line.split(|&b| b == b'\n').next()?;
    let line = String::from_utf8_lossy(line);
    let mut words = line.split_whitespace();
    let first = words.next()?;
    if Path::new(first).file_name() == Some(OsStr::new("env")) {
        // `env -S node --flag`: the first word that is no option.
        return words
            .find(|word| !word.starts_with('-'))
            .map(OsString::from);
    }
    Some(OsString::from(first))
}

/// The files of this process's image: its executable and the shared libraries mapped (the
/// forwarder runs this executable inside the sandbox).
pub(super) fn own_files(exe: &Path) -> Vec<PathBuf> {
    let mut files = vec![exe.to_path_buf()];
    let Ok(maps) = std::fs::File::open("/proc/self/maps") else {
        return files;
    };
    for line in BufReader::new(maps).lines().map_while(Result::ok) {
        // address perms offset dev inode pathname
        if let Some(path) = line
            .split_whitespace()
            .nth(5)
            .filter(|p| p.starts_with('/'))
            && !files.iter().any(|known| known == Path::new(path))
        {
            files.push(PathBuf::from(path));
        }
    }
    files
}

/// The files named by the variables through which an adapter hands the agent the user's own
/// configuration.
pub(super) fn named_by_env(env: &[(OsString, OsString)]) -> Vec<PathBuf> {
    env.iter()
        .filter(|(name, _)| name == "GIT_CONFIG_GLOBAL" || name == "NPM_CONFIG_USERCONFIG")
        .map(|(_, value)| PathBuf::from(value))
        .filter(|path| path.is_absolute())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_npm_package_shows_its_whole_node_modules() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let package = root.join("prefix/node_modules/@scope/cli/bin");
        std::fs::create_dir_all(&package).unwrap();
        std::fs::create_dir_all(root.join("prefix/node_modules/.bin")).unwrap();
        std::fs::create_dir_all(root.join("node/bin")).unwrap();
        let script = package.join("cli.js");
        std::fs::write(
            &script,
            "#!/usr/bin/env -S node --no-warnings\nconsole.log(1)\n",
        )
        .unwrap();
        let link = root.join("prefix/node_modules/.bin/cli");
        std::os::unix::fs::symlink("../@scope/cli/bin/cli.js", &link).unwrap();
        let mut shown = Vec::new();
        installation(&link, &mut shown);
        assert_eq!(
            shown,
            [
                root.join("prefix/node_modules/.bin"),
                root.join("prefix/node_modules")
            ]
        );
        assert_eq!(interpreter(&script), Some(OsString::from("node")));
        let native = root.join("node/bin/tool");
        std::fs::write(&native, "\x7fELF").unwrap();
        assert_eq!(interpreter(&native), None);
        assert_eq!(install_root(&native), root.join("node/bin"));
        let shell = root.join("agent.sh");
        std::fs::write(&shell, "#!/bin/bash -e\necho\n").unwrap();
        assert_eq!(interpreter(&shell), Some(OsString::from("/bin/bash")));
    }

    #[test]
    fn a_relative_program_is_found_from_the_cwd() {
        let cwd = Path::new("/ws");
        assert_eq!(
            find(OsStr::new("./bin/agent"), cwd),
            Some(PathBuf::from("/ws/./bin/agent"))
        );
        assert_eq!(
            find(OsStr::new("/abs/agent"), cwd),
            Some(PathBuf::from("/abs/agent"))
        );
        assert_eq!(
            find(OsStr::new("sh"), cwd).map(|p| p.is_absolute()),
            Some(true)
        );
    }

    #[test]
    fn system_directories_are_never_hidden() {
        let roots = hidden_roots();
        assert!(roots.iter().all(|root| root != Path::new("/")), "{roots:?}");
        assert!(
            roots.contains(&super::super::canonical(Path::new("/tmp"))),
            "{roots:?}"
        );
        assert!(
            own_files(Path::new("/x")).len() > 1,
            "the executable and its libraries"
        );
    }
}
