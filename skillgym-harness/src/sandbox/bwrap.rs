//! The `bwrap` command line of a session: which paths are hidden, writable and readable, in
//! the order bwrap must mount them.
//!
//! | step | arguments | why |
//! |---|---|---|
//! | the host | `--ro-bind / / --dev /dev --proc /proc` | everything read-only; fresh devices; a `/proc` of the sandbox's own PID namespace |
//! | hidden roots | `--tmpfs <dir>`, outermost first | the home and temporary directories, empty and private |
//! | binds | `--bind` (writable) and `--ro-bind-try` (readable), shallowest first | a deeper bind is mounted over a shallower one, so the most specific path decides |
//! | namespaces | `--unshare-pid --unshare-ipc --new-session --die-with-parent`, `--unshare-net` for loopback | see [`super`] |
//! | start | `--chdir <cwd> --` | the agent starts in its workspace |
//!
//! Every path is canonical (bwrap mounts at the path it is given, and a symbolic link on the
//! way would move the mount). A readable path that is already visible (under no hidden root)
//! or inside a writable one is left out: it adds nothing.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::config::SandboxNetwork;

/// The directories of a session's sandbox, canonical and without redundancy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Layout {
    hidden: Vec<PathBuf>,
    writable: Vec<PathBuf>,
    readable: Vec<PathBuf>,
}

impl Layout {
    /// The layout of `hidden` roots, `writable` and `readable` paths (each made canonical;
    /// readable paths that do not exist are dropped).
    pub(super) fn new(hidden: &[PathBuf], writable: &[PathBuf], readable: &[PathBuf]) -> Layout {
        let hidden = outermost(hidden.iter().map(|p| super::canonical(p)).collect());
        let writable = outermost(writable.iter().map(|p| super::canonical(p)).collect());
        let mut readable: Vec<PathBuf> = readable
            .iter()
            .filter_map(|path| std::fs::canonicalize(path).ok())
            .filter(|path| hidden.iter().any(|root| path.starts_with(root)))
            .filter(|path| !writable.iter().any(|dir| path.starts_with(dir)))
            .collect();
        readable = outermost(readable);
        Layout {
            hidden,
            writable,
            readable,
        }
    }

    /// The hidden roots (each an empty tmpfs).
    pub(super) fn hidden(&self) -> &[PathBuf] {
        &self.hidden
    }

    /// The writable paths.
    pub(super) fn writable(&self) -> &[PathBuf] {
        &self.writable
    }
}

/// The paths none of which lies inside another, sorted.
fn outermost(mut paths: Vec<PathBuf>) -> Vec<PathBuf> {
    paths.sort();
    paths.dedup();
    let mut kept: Vec<PathBuf> = Vec::with_capacity(paths.len());
    for path in paths {
        // Sorted: an ancestor comes before its descendants.
        if !kept.iter().any(|outer| path.starts_with(outer)) {
            kept.push(path);
        }
    }
    kept
}

/// bwrap's arguments for `layout`, started in `cwd`, up to and including `--` (the program
/// and its arguments follow).
pub(super) fn args(layout: &Layout, cwd: &Path, network: SandboxNetwork) -> Vec<OsString> {
    let mut args: Vec<OsString> = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        .map(OsString::from)
        .to_vec();
    for root in &layout.hidden {
        args.push("--tmpfs".into());
        args.push(root.into());
    }
    let mut binds: Vec<(&Path, &str)> = layout
        .writable
        .iter()
        .map(|path| (path.as_path(), "--bind"))
        .chain(
            layout
                .readable
                .iter()
                .map(|path| (path.as_path(), "--ro-bind-try")),
        )
        .collect();
    binds.sort_by_key(|(path, _)| path.components().count());
    for (path, how) in binds {
        args.extend([how.into(), path.into(), path.into()]);
    }
    args.extend(
        [
            "--unshare-pid",
            "--unshare-ipc",
            "--new-session",
            "--die-with-parent",
        ]
        .map(OsString::from),
    );
    if network == SandboxNetwork::Loopback {
        args.push("--unshare-net".into());
    }
    args.extend(["--chdir".into(), cwd.into(), "--".into()]);
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(args: &[OsString]) -> String {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn nested_paths_are_dropped_and_binds_go_shallowest_first() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let home = root.join("home");
        let tool = home.join(".tools/bin");
        let ws = home.join("work/ws");
        let inside_ws = ws.join("bin");
        let outside = root.join("elsewhere");
        for dir in [&tool, &inside_ws, &outside] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let layout = Layout::new(
            &[home.clone(), home.join(".cache"), root.join("missing-tmp")],
            &[ws.join("state"), ws.clone()],
            &[
                tool.clone(),
                home.join(".tools"),
                inside_ws,
                outside,
                home.join("gone"),
            ],
        );
        assert_eq!(layout.hidden(), [home.clone(), root.join("missing-tmp")]);
        assert_eq!(layout.writable(), std::slice::from_ref(&ws));
        // Inside the writable workspace, outside any hidden root, or missing: left out.
        assert_eq!(layout.readable, [home.join(".tools")]);
        let args = text(&args(&layout, &ws, SandboxNetwork::Loopback));
        let (home, ws, tools) = (home.display(), ws.display(), root.join("home/.tools"));
        assert_eq!(
            args,
            format!(
                "--ro-bind / / --dev /dev --proc /proc --tmpfs {home} --tmpfs {missing} \
                 --ro-bind-try {tools} {tools} --bind {ws} {ws} \
                 --unshare-pid --unshare-ipc --new-session --die-with-parent --unshare-net \
                 --chdir {ws} --",
                missing = root.join("missing-tmp").display(),
                tools = tools.display(),
            )
        );
    }

    #[test]
    fn the_host_network_keeps_its_namespace() {
        let layout = Layout::new(&[], &[], &[]);
        let args = text(&args(&layout, Path::new("/w"), SandboxNetwork::Host));
        assert!(!args.contains("--unshare-net"), "{args}");
        assert!(args.ends_with("--die-with-parent --chdir /w --"), "{args}");
    }
}
