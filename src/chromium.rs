//! Headless Chromium for the HTML report's tests and benchmark, cut off from the network.
//!
//! | function | what |
//! |---|---|
//! | [`find`] | the executable: `chromium` on `PATH`, else `/usr/bin/chromium` |
//! | [`offline_headless`] | `unshare -n -- chromium` headless, with no first-run, sync, extension or update traffic, in its own profile |

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Chromium executable: `chromium` on `PATH`, else `/usr/bin/chromium`, if either is there.
pub fn find() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|dir| dir.join("chromium"))
        .find(|candidate| candidate.is_file());
    on_path.or_else(|| {
        let default = PathBuf::from("/usr/bin/chromium");
        default.is_file().then_some(default)
    })
}

/// `chromium` headless in a network namespace of its own (`unshare -n`), with the profile
/// directory `profile`; the caller adds its own flags and the page.
pub fn offline_headless(chromium: &Path, profile: &Path) -> Command {
    let mut command = Command::new("unshare");
    command
        .args(["-n", "--"])
        .arg(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.display()));
    command
}
