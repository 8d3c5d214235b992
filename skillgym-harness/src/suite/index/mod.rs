//! The suite index: what `--list` and a one-trial process need of a suite's discovered cases,
//! kept in the target directory so that they do not parse every `case.yaml` again.
//!
//! A suite of 10,000 case directories takes seconds to parse in a debug build, and
//! `cargo nextest` starts a process per trial. After a suite is loaded whole, its index is
//! written to `<target>/skillgym/…/suite-index/<hash>.idx`: each discovered case's plan fields
//! (id, tags, targets, runners, variants, sampling; [`format::CASE_FIELDS`]), the loading's
//! warnings, and the stamp ([`stamp::Stamp`]) of everything the load depended on. A later
//! process uses it only when every stamp is unchanged; it then reads the suite file (and its
//! inline cases) and builds stubs of the discovered cases, and the harness reads the case
//! files of the trials it runs only ([`crate::suite::sources::hydrate`]).
//!
//! | the index is rebuilt when | because its stamp changed |
//! |---|---|
//! | a `case.yaml` is edited, replaced or removed | the case file's |
//! | a case directory is added, removed or renamed | the `tests:` directory's |
//! | a `case.yaml` appears in a directory that had none | that directory's |
//! | the suite file, a cases file or a workspace file changes | that file's |
//! | `skillgym.yaml` changes | the config's |
//! | a `${{ NAME }}` the suite reads has another value | (the value is recorded) |
//! | the test binary is rebuilt, or another skillgym reads it | the binary's, the format's version |
//!
//! A file written at or after the time its load began (a file time of the same clock, as git
//! does for its index) is never trusted: the index is then not written, or not used.
//! Writing an index removes those of suites whose directory is gone.

mod format;
mod stamp;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use self::stamp::{Stamp, file_time};
use crate::suite::yaml::{CaseDef, Loaded, Warning};

/// Where the indexes of a run's suites are kept, and what every index depends on.
#[derive(Debug)]
pub(crate) struct IndexCache {
    dir: PathBuf,
    config: Option<PathBuf>,
    exe: Option<PathBuf>,
}

/// A fresh index's content: the stubs of the discovered cases and the loading's warnings.
#[derive(Debug)]
pub(crate) struct Indexed {
    pub(crate) cases: Vec<CaseDef>,
    pub(crate) warnings: Vec<Warning>,
}

/// A load in progress whose index is written by [`Pending::finish`]; its start is the file
/// time of the index's temporary file.
#[derive(Debug)]
pub(crate) struct Pending {
    temp: PathBuf,
    path: PathBuf,
    started: (i64, i64),
    config: Option<PathBuf>,
    exe: Option<PathBuf>,
}

impl IndexCache {
    /// The indexes under `dir`, valid while `config` (the run's `skillgym.yaml`, if any) and
    /// this executable are unchanged.
    pub(crate) fn new(dir: PathBuf, config: Option<PathBuf>) -> IndexCache {
        IndexCache {
            dir,
            config,
            exe: std::env::current_exe().ok(),
        }
    }

    fn path_of(&self, suite: &Path) -> PathBuf {
        let mut key = suite.as_os_str().as_encoded_bytes().to_vec();
        key.push(0);
        if let Some(config) = &self.config {
            key.extend_from_slice(config.as_os_str().as_encoded_bytes());
        }
        let hash = crate::artifacts::fnv1a(&key);
        self.dir.join(format!("{hash:016x}.idx"))
    }

    /// The index of the suite at `suite` (as the run names it) when every stamp in it holds.
    /// With a `focus` (a one-trial process), only the discovered cases whose id it accepts are
    /// kept, and only their case files' stamps are checked (besides the suite's own files and
    /// directories): the other cases are not part of the process's run.
    pub(crate) fn fresh(&self, suite: &Path, focus: Option<Focus<'_>>) -> Option<Indexed> {
        let text = std::fs::read_to_string(self.path_of(suite)).ok()?;
        let expected = Expected {
            config: self.config.as_deref(),
            exe: self.exe.as_deref(),
            focus,
        };
        parse(&text, &expected)
    }

    /// Starts loading the suite at `suite`; `None` when the cache cannot be written.
    pub(crate) fn begin(&self, suite: &Path) -> Option<Pending> {
        std::fs::create_dir_all(&self.dir).ok()?;
        let path = self.path_of(suite);
        let name = path.file_name()?.to_string_lossy().into_owned();
        let temp = self.dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let file = std::fs::File::create(&temp).ok()?;
        let started = file.metadata().and_then(|m| m.modified()).ok()?;
        Some(Pending {
            temp,
            path,
            started: file_time(started),
            config: self.config.clone(),
            exe: self.exe.clone(),
        })
    }
}

impl Pending {
    /// Writes the index of `loaded`, whose `${{ NAME }}` lookups were `env`; nothing when a
    /// path is not UTF-8, a file is gone, or one was written since the load began.
    pub(crate) fn finish(self, loaded: &Loaded, env: &[(String, Option<String>)]) {
        if let Some(text) = self.text(loaded, env)
            && std::fs::write(&self.temp, text).is_ok()
            // A failed rename leaves the temporary file, which `drop` removes.
            && std::fs::rename(&self.temp, &self.path).is_ok()
            && let Some(dir) = self.path.parent()
        {
            prune(dir);
        }
    }

    fn text(&self, loaded: &Loaded, env: &[(String, Option<String>)]) -> Option<String> {
        use format::{escape, path_text};
        let root = &loaded.suite.dir;
        let mut text = format!(
            "skillgym-suite-index\t{}\t{}\nstarted\t{}\t{}\nroot\t{}\n",
            format::VERSION,
            env!("CARGO_PKG_VERSION"),
            self.started.0,
            self.started.1,
            path_text(root)?,
        );
        let stamp_of = |path: &Path, required: bool| -> Option<String> {
            match Stamp::of(path) {
                Some(stamp) if stamp.racy(self.started) => None,
                Some(stamp) => Some(stamp.encode()),
                None if required => None,
                None => Some("-".to_owned()),
            }
        };
        let stamped = |text: &mut String, kind: &str, path: &Path, required: bool| {
            let line = format!(
                "{kind}\t{}\t{}\n",
                stamp_of(path, required)?,
                path_text(path)?
            );
            text.push_str(&line);
            Some(())
        };
        if let Some(exe) = &self.exe {
            stamped(&mut text, "exe", exe, true)?;
        }
        if let Some(config) = &self.config {
            stamped(&mut text, "config", config, false)?;
        }
        let discovered: HashSet<&str> =
            loaded.reads.discovered.iter().map(String::as_str).collect();
        let cases: Vec<&CaseDef> = (loaded.suite.cases.iter())
            .filter(|case| discovered.contains(case.id.as_str()))
            .collect();
        // The case files are stamped in their `case` records.
        let mut seen: HashSet<&Path> = cases.iter().map(|case| case.file.as_path()).collect();
        for file in &loaded.reads.files {
            if seen.insert(file) {
                stamped(&mut text, "file", file, true)?;
            }
        }
        for dir in &loaded.reads.dirs {
            if seen.insert(dir) {
                stamped(&mut text, "dir", dir, true)?;
            }
        }
        let mut names: HashSet<&str> = HashSet::new();
        for (name, value) in env {
            if names.insert(name) {
                let value = value
                    .as_deref()
                    .map_or("!".to_owned(), |v| format!("={}", escape(v)));
                text.push_str(&format!("env\t{}\t{value}\n", escape(name)));
            }
        }
        for warning in &loaded.warnings {
            let path = path_text(&warning.path)?;
            text.push_str(&format!("warn\t{path}\t{}\n", escape(&warning.message)));
        }
        for case in cases {
            let stamp = stamp_of(&case.file, true)?;
            let fields = format::encode_case(case, root)?;
            text.push_str(&format!("case\t{}\t{stamp}\t{fields}\n", escape(&case.id)));
        }
        Some(text)
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        // Renamed away when written; otherwise nothing may be left behind.
        let _ = std::fs::remove_file(&self.temp);
    }
}

/// Removes the indexes in `dir` of suites whose directory is gone (a temporary suite's), so
/// that they do not pile up; run when an index is written, after a whole load.
fn prune(dir: &Path) {
    use std::io::BufRead as _;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for path in entries.flatten().map(|entry| entry.path()) {
        if path.extension().is_none_or(|ext| ext != "idx") {
            continue;
        }
        let Ok(file) = std::fs::File::open(&path) else {
            continue;
        };
        // The third line names the suite's directory.
        let root = std::io::BufReader::new(file).lines().nth(2);
        let root = root.and_then(Result::ok);
        let root = root.as_deref().and_then(|line| line.strip_prefix("root\t"));
        if let Some(root) = root.and_then(format::unescape)
            && !Path::new(&root).is_dir()
        {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Which discovered cases a one-trial process needs, by their ids in the suite.
pub(crate) type Focus<'a> = &'a dyn Fn(&str) -> bool;

/// What a fresh index must agree with.
struct Expected<'a> {
    config: Option<&'a Path>,
    exe: Option<&'a Path>,
    focus: Option<Focus<'a>>,
}

/// Whether `path`'s stamp is still `recorded` (`-`: still missing), and was not racy.
fn holds(recorded: &str, path: &Path, started: (i64, i64)) -> bool {
    match (recorded, Stamp::of(path)) {
        ("-", None) => true,
        (recorded, Some(now)) => now.encode() == recorded && !now.racy(started),
        _ => false,
    }
}

/// The index in `text` when it is of this format and version and every stamp it needs, the
/// config's and the executable's included, still holds.
fn parse(text: &str, expected: &Expected<'_>) -> Option<Indexed> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next()?.split('\t').collect();
    if header
        != [
            "skillgym-suite-index",
            format::VERSION,
            env!("CARGO_PKG_VERSION"),
        ]
    {
        return None;
    }
    let started = match lines.next()?.split('\t').collect::<Vec<_>>()[..] {
        ["started", secs, nanos] => (secs.parse().ok()?, nanos.parse().ok()?),
        _ => return None,
    };
    let root = PathBuf::from(format::unescape(lines.next()?.strip_prefix("root\t")?)?);
    let mut seen_config = expected.config.is_none();
    let mut seen_exe = expected.exe.is_none();
    let mut indexed = Indexed {
        cases: Vec::new(),
        warnings: Vec::new(),
    };
    for line in lines {
        if let Some(case) = line.strip_prefix("case\t") {
            let (id, rest) = case.split_once('\t')?;
            let id = format::unescape(id)?;
            if expected.focus.is_some_and(|focus| !focus(&id)) {
                continue;
            }
            let (stamp, rest) = rest.split_once('\t')?;
            let fields: Vec<&str> = rest.split('\t').collect();
            if fields.len() != format::CASE_FIELDS.len() {
                return None;
            }
            let case = format::decode_case(id, &fields, &root)?;
            if !holds(stamp, &case.file, started) {
                return None;
            }
            indexed.cases.push(case);
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        match fields[..] {
            [kind @ ("exe" | "config" | "file" | "dir"), stamp, path] => {
                let path = PathBuf::from(format::unescape(path)?);
                match kind {
                    "exe" => seen_exe = expected.exe == Some(path.as_path()),
                    "config" => seen_config = expected.config == Some(path.as_path()),
                    _ => {}
                }
                if !holds(stamp, &path, started) {
                    return None;
                }
            }
            ["env", name, value] => {
                let now = std::env::var(format::unescape(name)?).ok();
                let recorded = match value {
                    "!" => None,
                    value => Some(format::unescape(value.strip_prefix('=')?)?),
                };
                if now != recorded {
                    return None;
                }
            }
            ["warn", path, message] => indexed.warnings.push(Warning {
                path: PathBuf::from(format::unescape(path)?),
                message: format::unescape(message)?,
            }),
            _ => return None,
        }
    }
    (seen_config && seen_exe).then_some(indexed)
}

#[cfg(test)]
mod tests;
