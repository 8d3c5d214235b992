//! The run directory: run ids, the per-attempt layout, the `latest` pointer, and JSON files.
//!
//! ```text
//! <output_dir>/<run-id>/{run.json, results.json, summary.json, junit.xml, report.html, github-actions.txt, suite-warnings.txt, workspace-root.json}
//! <output_dir>/<run-id>/<case>/<runner>/result.json
//! <output_dir>/<run-id>/<case>/<runner>/repeat-N/attempt-M/{prompt.md, stdout.log, report.json, result.json, workspace.json, stderr.log (when not empty), agent-state/, explain/}
//! <output_dir>/<run-id>/shared-setup/        (the shared workspace's bootstrap logs and record)
//! <output_dir>/<run-id>/suites/<suite>/      (before_all / after_all records)
//! <output_dir>/<run-id>/{.owner, .locks/, .rejected/, .versions/}
//! <output_dir>/latest -> <run-id>
//! ```
//!
//! The workspaces themselves are not in the run directory: they live under the run's
//! workspace root, outside the author's repository ([`crate::workspace::root`]), which
//! `workspace-root.json` names. Runs of earlier versions kept them in `<run-id>/workspaces/`.
//!
//! Every name above that sits where a case or runner id also names a directory is in
//! [`RUN_LAYOUT`], which [`sanitize`] never yields and readers of a run directory skip.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::log_thread::Offloading;
use crate::time::Timestamp;

/// The directory of one run, shared by every trial of it (and by every process under nextest).
#[derive(Debug, Clone)]
pub struct RunDir {
    output_dir: PathBuf,
    run_id: String,
}

/// Whether other processes may share the run directory: the processes of one nextest run
/// ([`RunDir::claim`] lets them all in); any other process claims a directory of its own.
pub(crate) fn shared_run_dir() -> bool {
    std::env::var_os("NEXTEST_RUN_ID").is_some()
}

impl RunDir {
    /// The run directory `<output_dir>/<run_id>`. Nothing is created until something is written.
    pub fn new(output_dir: impl Into<PathBuf>, run_id: impl Into<String>) -> Self {
        RunDir {
            output_dir: output_dir.into(),
            run_id: run_segment(&run_id.into()),
        }
    }

    /// The run id: `SKILLGYM_RUN_ID`, else nextest's `NEXTEST_RUN_ID` (shared by all the
    /// processes of one nextest run), else a fresh UTC timestamp with the process id.
    pub fn run_id_from_env(lookup: impl Fn(&str) -> Option<String>) -> String {
        let explicit = ["SKILLGYM_RUN_ID", "NEXTEST_RUN_ID"]
            .into_iter()
            .filter_map(&lookup)
            .find(|id| !id.trim().is_empty());
        explicit.unwrap_or_else(|| {
            let now = SystemTime::now();
            let millis = now
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.subsec_millis());
            format!(
                "{}-{millis:03}-{:x}",
                Timestamp::from(now).compact(),
                std::process::id()
            )
        })
    }

    /// The run id.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// `<output_dir>/<run_id>`.
    pub fn path(&self) -> PathBuf {
        self.output_dir.join(&self.run_id)
    }

    /// The directory of one execution: `<run>/<case>/<runner>`.
    pub fn execution_dir(&self, case_id: &str, runner_id: &str) -> PathBuf {
        self.path()
            .join(sanitize(case_id))
            .join(sanitize(runner_id))
    }

    /// The directory of one execution under a variant: `<run>/<case>/<runner>/<variant>`
    /// (without a variant, [`Self::execution_dir`]).
    pub fn variant_dir(&self, case_id: &str, runner_id: &str, variant: Option<&str>) -> PathBuf {
        let dir = self.execution_dir(case_id, runner_id);
        match variant {
            Some(variant) => dir.join(sanitize(variant)),
            None => dir,
        }
    }

    /// The directory of one attempt: `<run>/<case>/<runner>[/<variant>]/repeat-N/attempt-M`.
    pub fn attempt_dir(
        &self,
        case_id: &str,
        runner_id: &str,
        variant: Option<&str>,
        repetition: u32,
        attempt: u32,
    ) -> PathBuf {
        self.variant_dir(case_id, runner_id, variant)
            .join(format!("repeat-{repetition}"))
            .join(format!("attempt-{attempt}"))
    }

    /// Claims the run directory for `owner` (nextest's run id, shared by the processes of one
    /// nextest run, else this process): a directory another run made is never reused, so a
    /// repeated `SKILLGYM_RUN_ID` is an error instead of a silent overwrite.
    pub fn claim(&self, owner: &str) -> Result<(), RunDirError> {
        let dir = self.path();
        let claimed = Self::claim_in(&dir, owner).map_err(|source| RunDirError::Io {
            path: dir.clone(),
            source,
        })?;
        match claimed {
            true => Ok(()),
            false => Err(RunDirError::Reused { path: dir }),
        }
    }

    /// Whether `owner` holds `dir` (now, or already).
    fn claim_in(dir: &Path, owner: &str) -> io::Result<bool> {
        fs::create_dir_all(dir)?;
        let marker = dir.join(".owner");
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&marker)
        {
            Ok(mut file) => {
                return io::Write::write_all(&mut file, owner.as_bytes()).map(|()| true);
            }
            Err(error) if error.kind() != io::ErrorKind::AlreadyExists => return Err(error),
            Err(_) => {}
        }
        // Another process of the same nextest run may be writing it right now.
        let mut found = String::new();
        for _ in 0..100 {
            found = fs::read_to_string(&marker)?;
            if !found.is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        Ok(found == owner)
    }

    /// Points `<output_dir>/latest` at this run (a relative symlink, replaced atomically).
    pub fn mark_latest(&self) -> io::Result<()> {
        fs::create_dir_all(&self.output_dir)?;
        let latest = self.output_dir.join("latest");
        let temporary = self
            .output_dir
            .join(format!(".latest-{}", std::process::id()));
        let _ = fs::remove_file(&temporary);
        std::os::unix::fs::symlink(&self.run_id, &temporary)?;
        fs::rename(&temporary, &latest).inspect_err(|_| {
            let _ = fs::remove_file(&temporary);
        })
    }
}

/// The file an attempt's model requests are logged to (under `--mock`, and for a scripted
/// model server's sessions).
pub(crate) const REQUEST_LOG: &str = "mock-requests.jsonl";

/// Longest cleaned name kept whole: longer ones are cut here and take the hash suffix, so no
/// path component comes near the 255-byte limit of file names.
const MAX_NAME: usize = 120;

/// The names a run directory gives entries of its own where case and runner ids name
/// directories too (`<run>/`, `<run>/workspaces/`, a workspace root, `<output_dir>/`), and the names inside
/// attempt directories that walks of a run directory skip. [`sanitize`] never yields one (nor a
/// layout file's temporary `<name>.tmp-…`), so a case id can take none of them; readers of a
/// run directory skip exactly these ([`is_layout_name`]). Names starting with `.` are listed
/// for completeness: no id yields one.
pub(crate) const RUN_LAYOUT: [&str; 19] = [
    // <run>/: files
    "run.json",
    "results.json",
    "summary.json",
    "junit.xml",
    "report.html",
    "github-actions.txt",
    "suite-warnings.txt",
    "workspace-root.json",
    ".owner",
    // <run>/: directories
    "suites",
    ".locks",
    ".rejected",
    ".versions",
    "shared-setup",
    // <run>/workspaces/ of runs made by earlier versions (and `shared` in a workspace root)
    "workspaces",
    "shared",
    // <output_dir>/
    "latest",
    // <run>/<case>/<runner>/repeat-N/attempt-M/, skipped by `cargo skillgym explain`'s walk
    "agent-state",
    "explain",
];

/// Whether `name` is one the run directory uses for itself: a [`RUN_LAYOUT`] name, the
/// temporary `<name>.tmp-…` of one, or any name starting with `.`. No case or runner id's
/// directory ([`sanitize`]) is one: a clean name is checked here, and a hashed one holds `~`,
/// which none of these does.
pub(crate) fn is_layout_name(name: &str) -> bool {
    name.starts_with('.')
        || !name.contains('~')
            && RUN_LAYOUT.iter().any(|layout| {
                name.strip_prefix(layout)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(".tmp-"))
            })
}

/// Turns a case or runner id into one safe path segment, injectively: two distinct ids never
/// share a directory.
///
/// An id made only of lowercase ASCII letters, digits, `_`, `-` and `::` separators keeps its
/// name, with `::` written `.` (`skills::find_expo` -> `skills.find_expo`). Any other id — with
/// a literal `.`, an uppercase letter (file systems that ignore case would merge it with its
/// lowercase twin), another character, a name of the run layout (`is_layout_name`), a leading
/// `.`, or more than 120 bytes — is cleaned the same way (other characters become `-`, a
/// leading `.` gets a `_` prefix, the name is cut at 120 bytes) and gets `~` and 12 hex digits
/// of a stable hash of the whole id:
/// `mod.c` -> `mod.c~9ed63e933f3a`. Clean names never contain `~`, so the two kinds never meet,
/// and no `RUN_LAYOUT` name contains one.
pub fn sanitize(id: &str) -> String {
    let (mut name, faithful) = clean(id);
    let faithful = faithful && name.len() <= MAX_NAME && !is_layout_name(&name);
    if faithful {
        return name;
    }
    if name.len() > MAX_NAME {
        // The cleaned name is ASCII: any byte index is a character boundary.
        name.truncate(MAX_NAME);
    }
    format!("{name}~{:012x}", fnv1a(id.as_bytes()) >> 16)
}

/// The cleaned name and whether it is faithful (lowercase ASCII letters, digits, `_`, `-` and
/// `::`, and not starting with `::`).
fn clean(id: &str) -> (String, bool) {
    let mut name = String::with_capacity(id.len());
    let mut faithful = true;
    let mut rest = id;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("::") {
            name.push('.');
            rest = after;
            continue;
        }
        match c {
            'a'..='z' | '0'..='9' | '_' | '-' => name.push(c),
            'A'..='Z' | '.' => {
                faithful = false;
                name.push(c);
            }
            _ => {
                faithful = false;
                name.push('-');
            }
        }
        rest = &rest[c.len_utf8()..];
    }
    if name.is_empty() || name.starts_with('.') {
        faithful = false;
        name.insert(0, '_');
    }
    (name, faithful)
}

/// The run id as a path segment: cleaned like an id, without the hash (there is one run id per
/// directory, and a directory is never reused).
fn run_segment(run_id: &str) -> String {
    let (mut name, _) = clean(run_id);
    name.truncate(MAX_NAME);
    name
}

/// 64-bit FNV-1a: small, and stable across Rust versions and platforms (directory names must
/// not change between runs).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Creates `path` and its missing parents from the top down, starting below `base` (created
/// first only when it is missing): one `mkdir` per directory of `path` under `base`, where
/// [`fs::create_dir_all`] tries the deepest first and fails once per missing level. A
/// directory that already exists is fine; `path` outside `base` falls back to
/// `create_dir_all`.
pub(crate) fn create_dirs_below(base: &Path, path: &Path) -> io::Result<()> {
    let Ok(relative) = path.strip_prefix(base) else {
        return fs::create_dir_all(path);
    };
    let mut current = base.to_path_buf();
    for (index, component) in relative.components().enumerate() {
        current.push(component);
        match fs::create_dir(&current) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists && current.is_dir() => {}
            Err(error) if index == 0 && error.kind() == io::ErrorKind::NotFound => {
                fs::create_dir_all(base)?;
                return create_dirs_below(base, path);
            }
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

/// JSON documents up to this size are pretty-printed for people; larger ones (the report of a
/// long session, the results of a large run) are written compact, for programs and `jq`.
pub(crate) const PRETTY_LIMIT: usize = 16 * 1024;

/// Writes `value` as JSON to `path` (pretty up to [`PRETTY_LIMIT`] bytes, compact above),
/// through a temporary file so readers never see half a file; secrets are masked
/// ([`crate::secrets`]). The directory is created only when it is missing. A large document
/// (the report of a long session) is streamed to the file as it is serialized, past
/// [`OFFLOAD_AFTER`] by a thread of its own ([`Offloading`]), never held in memory whole.
pub(crate) fn write_json(path: &Path, value: &impl Serialize) -> io::Result<()> {
    match small_json(value)? {
        Some(bytes) => write_json_bytes(path, bytes),
        None => write_atomically_with(path, |temporary| {
            stream_json(temporary, |out| {
                serde_json::to_writer(out, value).map_err(io::Error::other)
            })
        }),
    }
}

/// Writes a session's `report.json` as [`write_json`] does, or notes the file as not written
/// ([`write_json_or_note`]); the events of a long session's report (from
/// [`LARGE`](crate::drop_aside::LARGE) up, always longer than [`PRETTY_LIMIT`]) are serialised
/// on two threads ([`crate::report_json`]), into the same bytes.
pub(crate) fn write_report_or_note(path: &Path, report: &mut skillgym::SessionReport) {
    if report.events.len() < crate::drop_aside::LARGE {
        return write_json_or_note(path, report);
    }
    let written = write_atomically_with(path, |temporary| {
        stream_json(temporary, |out| crate::report_json::write(out, report))
    });
    if let Err(error) = written {
        crate::unwritten::note(path, &error);
    }
}

/// `value` as pretty JSON when its compact form is at most [`PRETTY_LIMIT`] bytes; `None` when
/// it is longer. The pretty form is tried first, given up as soon as it passes the limit (when
/// it fits, the compact form, never longer, fits too); then the compact one, given up the
/// same way.
fn small_json(value: &impl Serialize) -> io::Result<Option<Vec<u8>>> {
    let mut capped = Capped {
        bytes: Vec::with_capacity(8192),
        cap: PRETTY_LIMIT,
    };
    if serde_json::to_writer_pretty(&mut capped, value).is_ok() {
        return Ok(Some(capped.bytes));
    }
    capped.bytes.clear();
    if serde_json::to_writer(&mut capped, value).is_err() {
        return Ok(None);
    }
    serde_json::to_vec_pretty(value)
        .map(Some)
        .map_err(io::Error::other)
}

/// Writes what `serialise` writes (compact JSON) and a final newline to the new file `path`,
/// masked as it goes (its directory is created only when it is missing).
fn stream_json(
    path: &Path,
    serialise: impl FnOnce(&mut Offloading) -> io::Result<()>,
) -> io::Result<()> {
    let file = match fs::File::create(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)?;
            }
            fs::File::create(path)?
        }
        file => file?,
    };
    // Past its first chunks serialising and writing overlap: a long report takes about as long
    // to write as to serialise.
    let file = io::BufWriter::with_capacity(64 * 1024, crate::secrets::MaskingWriter::new(file));
    let mut out = Offloading::new(file, OFFLOAD_AFTER);
    let written = serialise(&mut out).and_then(|()| io::Write::write_all(&mut out, b"\n"));
    match written {
        Ok(()) => out.finish(),
        Err(error) => {
            out.into_failed();
            Err(error)
        }
    }
}

/// A document written past this many bytes goes on on a thread of its own.
const OFFLOAD_AFTER: u64 = 256 * 1024;

/// A buffer that refuses to grow past `cap` bytes.
struct Capped {
    bytes: Vec<u8>,
    cap: usize,
}

impl io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    // serde_json writes through `write_all`, a token at a time: one check and one copy each.
    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if self.bytes.len() + buf.len() > self.cap {
            return Err(io::Error::other("over the cap"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Writes `value` as pretty JSON to `path` whatever its size (files people review in diffs,
/// such as the token snapshot baseline), like [`write_json`] otherwise.
pub(crate) fn write_pretty_json(path: &Path, value: &impl Serialize) -> io::Result<()> {
    write_json_bytes(
        path,
        serde_json::to_vec_pretty(value).map_err(io::Error::other)?,
    )
}

/// Writes `value` as JSON to `path` like [`write_json`], for a file of the run: a failure is
/// noted ([`crate::unwritten`]), which names it and fails the attempt it belongs to.
pub(crate) fn write_json_or_note(path: &Path, value: &impl Serialize) {
    if let Err(error) = write_json(path, value) {
        crate::unwritten::note(path, &error);
    }
}

/// Masks secrets in `bytes`, adds the final newline and writes them to `path` through a
/// temporary file and a rename.
fn write_json_bytes(path: &Path, bytes: Vec<u8>) -> io::Result<()> {
    let mut bytes = crate::secrets::mask_bytes(bytes);
    bytes.push(b'\n');
    write_atomically(path, &bytes)
}

/// Writes `bytes` to `path` through the temporary file `<name>.tmp-<pid>` beside it and a
/// rename, so that readers never see half a file (the directory is created only when it is
/// missing). When either step fails the temporary file is removed and `path` is untouched.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomically_with(path, |temporary| write_creating_parent(temporary, bytes))
}

/// [`write_atomically`], writing the temporary file with `write`.
fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&Path) -> io::Result<()>,
) -> io::Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}", std::process::id()));
    let temporary = path.with_file_name(name);
    let written = write(&temporary).and_then(|()| fs::rename(&temporary, path));
    if written.is_err() {
        // Half a file, or a whole one that could not take its name: either is litter.
        let _ = fs::remove_file(&temporary);
    }
    written
}

/// Writes `bytes` to `path`; only when its directory is missing is it created (then the write
/// is tried again), so the usual case costs no `mkdir`.
pub(crate) fn write_creating_parent(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match fs::write(path, bytes) {
        Err(error)
            if matches!(
                error.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            match path
                .parent()
                .filter(|parent| !parent.as_os_str().is_empty())
            {
                Some(parent) => fs::create_dir_all(parent)?,
                None => return Err(error),
            }
            fs::write(path, bytes)
        }
        written => written,
    }
}

/// Why a run cannot claim its run directory.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunDirError {
    /// Another run already owns it (`SKILLGYM_RUN_ID` names a finished run).
    #[error(
        "the run directory `{}` already holds another run: a run directory is never reused\n  help: unset `SKILLGYM_RUN_ID` (each run then gets a fresh id), choose another one, or remove the directory",
        .path.display()
    )]
    Reused {
        /// The run directory.
        path: PathBuf,
    },
    /// It cannot be created, or its owner marker written or read.
    #[error("cannot claim the run directory `{}`", .path.display())]
    Io {
        /// The run directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    #[test]
    fn clean_ids_keep_their_names() {
        assert_eq!(sanitize("skills::find_expo"), "skills.find_expo");
        assert_eq!(sanitize("fix-null-check_2"), "fix-null-check_2");
        assert_eq!(sanitize("claude-code"), "claude-code");
    }

    #[test]
    fn other_ids_get_a_stable_hash() {
        let hashed = sanitize("mod.c");
        assert!(hashed.starts_with("mod.c~"), "{hashed}");
        assert_eq!(hashed.len(), "mod.c~".len() + 12);
        assert_eq!(
            hashed, "mod.c~9ed63e933f3a",
            "stable across versions and platforms"
        );
        assert_eq!(
            sanitize("mod.c"),
            format!("mod.c~{:012x}", fnv1a(b"mod.c") >> 16)
        );
        for (id, prefix) in [
            ("../../etc/passwd", "_..-..-etc-passwd~"),
            ("..", "_..~"),
            ("", "_~"),
            ("::a", "_.a~"),
            ("a b/c\\d\u{e9}", "a-b-c-d-~"),
            ("Claude", "Claude~"),
            ("workspaces", "workspaces~"),
        ] {
            let name = sanitize(id);
            assert!(name.starts_with(prefix), "{id:?} -> {name}");
        }
    }

    #[test]
    fn distinct_ids_never_share_a_directory() {
        let ids = [
            "a::b", "a.b", "col/a", "col+a", "r/x", "r x", "r-x", "A::b", "a::B", "a_b", "a--b",
        ];
        let mut names: Vec<String> = ids.iter().map(|id| sanitize(id)).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ids.len(), "{names:?}");
        // Case-insensitive file systems too.
        let mut folded: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
        folded.sort();
        folded.dedup();
        assert_eq!(folded.len(), ids.len(), "{folded:?}");
    }

    /// The ids that would come closest to a layout name: the name itself, with its `.` read
    /// as `::` (the only way a clean name gets a `.`), and its temporary file's name.
    fn look_alikes(name: &str) -> [String; 4] {
        [
            name.to_owned(),
            name.replace('.', "::"),
            format!("{}::tmp-1", name.replace('.', "::")),
            name.to_uppercase(),
        ]
    }

    #[test]
    fn no_id_takes_a_name_of_the_run_layout() {
        for name in RUN_LAYOUT {
            assert!(is_layout_name(name), "{name}");
            assert!(!name.contains('~'), "{name}: hashed names hold `~`");
            for id in look_alikes(name) {
                let taken = sanitize(&id);
                assert!(!is_layout_name(&taken), "{id:?} -> {taken}");
                assert!(taken.contains('~'), "{id:?} -> {taken}: hashed");
            }
        }
        assert_eq!(sanitize("suites").len(), "suites~".len() + 12);
        assert!(sanitize("results::json").starts_with("results.json~"));
        for kept in [
            "suites::smoke",
            "workspace",
            "shared_x",
            "latest-run",
            "results.jsonx",
        ] {
            assert!(!sanitize(&kept.replace('.', "::")).contains('~'), "{kept}");
        }
    }

    proptest::proptest! {
        #[test]
        fn sanitize_never_yields_a_layout_name(
            id in proptest::prop_oneof![
                proptest::prelude::any::<String>(),
                "[a-z:._-]{0,24}",
                (proptest::sample::select(RUN_LAYOUT.as_slice()), "[a-z0-9:._-]{0,8}")
                    .prop_map(|(name, tail)| format!("{}{tail}", name.replace('.', "::"))),
            ]
        ) {
            let name = sanitize(&id);
            proptest::prop_assert!(!is_layout_name(&name), "{:?} -> {}", id, name);
            proptest::prop_assert!(!name.is_empty() && !name.contains('/'));
        }
    }

    #[test]
    fn long_ids_are_cut_below_the_file_name_limit() {
        let long = "x".repeat(300);
        let name = sanitize(&long);
        assert_eq!(name.len(), MAX_NAME + 13);
        assert_ne!(sanitize(&format!("{long}y")), name);
    }

    #[test]
    fn run_id_prefers_explicit_then_nextest_then_a_timestamp() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |key: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            RunDir::run_id_from_env(env(&[("SKILLGYM_RUN_ID", "mine"), ("NEXTEST_RUN_ID", "n")])),
            "mine"
        );
        assert_eq!(
            RunDir::run_id_from_env(env(&[("NEXTEST_RUN_ID", "n")])),
            "n"
        );
        let generated = RunDir::run_id_from_env(env(&[("SKILLGYM_RUN_ID", " ")]));
        assert!(
            generated.starts_with("20") && generated.contains('T'),
            "{generated}"
        );
    }

    #[test]
    fn a_run_directory_is_claimed_once() {
        // Kept when the test fails, for inspection.
        let tmp = tempfile::Builder::new()
            .prefix("skillgym-claim-")
            .disable_cleanup(true)
            .tempdir()
            .unwrap();
        let dir = tmp.path();
        let run = RunDir::new(dir, "same");
        run.claim("nextest:1").unwrap();
        run.claim("nextest:1")
            .expect("another process of the same nextest run");
        let error = run.claim("pid:2").unwrap_err().to_string();
        assert!(error.contains("already holds another run"), "{error}");
        assert!(error.contains("SKILLGYM_RUN_ID"), "{error}");

        // A directory that cannot be made names itself and keeps the io error.
        fs::write(dir.join("file"), "").unwrap();
        let blocked = RunDir::new(dir.join("file"), "id");
        let error = blocked.claim("pid:3").unwrap_err();
        let source = std::error::Error::source(&error).expect("the io error is kept");
        assert_eq!(
            error.to_string(),
            format!(
                "cannot claim the run directory `{}`",
                blocked.path().display()
            )
        );
        assert!(!source.to_string().is_empty());
        tmp.close().unwrap();
    }

    #[test]
    fn the_form_follows_the_compact_size_whatever_the_pretty_size() {
        // The old rule, serializing twice: pretty when the compact form fits the limit.
        let reference = |value: &serde_json::Value| {
            let compact = serde_json::to_vec(value).unwrap();
            if compact.len() <= PRETTY_LIMIT {
                serde_json::to_vec_pretty(value).unwrap()
            } else {
                compact
            }
        };
        let dir = tempfile::tempdir().unwrap();
        let written = |value: &serde_json::Value| {
            let path = dir.path().join("value.json");
            write_json(&path, value).unwrap();
            let mut bytes = fs::read(&path).unwrap();
            assert_eq!(bytes.pop(), Some(b'\n'));
            bytes
        };
        for count in [0, 10, 1000, 1500, 2000, 2400, 2800, 3000, 5000, 50_000] {
            let value = serde_json::Value::from((0..count).collect::<Vec<u32>>());
            assert_eq!(written(&value), reference(&value), "{count} numbers");
        }
        // Between the limits: compact fits, pretty does not; pretty wins.
        let value = serde_json::Value::from((0..2400).collect::<Vec<u32>>());
        let (compact, pretty) = (
            serde_json::to_vec(&value).unwrap().len(),
            serde_json::to_vec_pretty(&value).unwrap().len(),
        );
        assert!(compact <= PRETTY_LIMIT && pretty > PRETTY_LIMIT);
        assert_eq!(written(&value).len(), pretty);
    }

    #[test]
    fn small_documents_are_pretty_and_large_ones_compact() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small/result.json");
        write_json(&small, &serde_json::json!({"status": "passed"})).unwrap();
        assert_eq!(
            fs::read_to_string(&small).unwrap(),
            "{\n  \"status\": \"passed\"\n}\n",
            "the missing directory is created"
        );

        let events: Vec<serde_json::Value> = (0..2000)
            .map(|n| serde_json::json!({"type": "command", "n": n}))
            .collect();
        let large = dir.path().join("small/report.json");
        write_json(&large, &events).unwrap();
        let text = fs::read_to_string(&large).unwrap();
        assert!(text.len() > PRETTY_LIMIT);
        assert_eq!(text.lines().count(), 1, "compact, one line");
        assert_eq!(
            serde_json::from_str::<Vec<serde_json::Value>>(&text).unwrap(),
            events
        );

        let baseline = dir.path().join("snapshots.json");
        write_pretty_json(&baseline, &events).unwrap();
        assert!(fs::read_to_string(&baseline).unwrap().lines().count() > 2000);
        let leftovers: Vec<_> = fs::read_dir(dir.path().join("small"))
            .unwrap()
            .flatten()
            .filter(|entry| entry.file_name().to_string_lossy().contains(".tmp-"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file_and_the_old_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("result.json");
        fs::write(&path, "old\n").unwrap();
        // The disk fills up half way through the temporary file.
        let half_then_full = |temporary: &Path| {
            fs::write(temporary, b"new co")?;
            Err(io::Error::from(io::ErrorKind::StorageFull))
        };
        let error = write_atomically_with(&path, half_then_full).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::StorageFull);
        assert_eq!(fs::read_to_string(&path).unwrap(), "old\n", "untouched");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|entry| entry.file_name())
            .collect();
        assert_eq!(names, ["result.json"], "the temporary file is removed");

        // The rename fails (a directory holds the name): the temporary file goes too.
        let blocked = dir.path().join("report.html");
        fs::create_dir(&blocked).unwrap();
        fs::write(blocked.join("inside"), "").unwrap();
        assert!(write_atomically(&blocked, b"<html>").is_err());
        let left: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .filter(|entry| entry.file_name().to_string_lossy().contains(".tmp-"))
            .collect();
        assert!(left.is_empty(), "{left:?}");

        write_atomically(&path, b"new\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
    }

    #[test]
    fn directories_are_created_from_the_top_down() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("run");
        let deep = base.join("case/runner/repeat-1/attempt-1");
        create_dirs_below(&base, &deep).expect("a missing base is created too");
        assert!(deep.is_dir());
        create_dirs_below(&base, &deep).expect("existing directories are fine");
        let sibling = base.join("case/runner/repeat-1/attempt-2");
        create_dirs_below(&base, &sibling).unwrap();
        assert!(sibling.is_dir());
        create_dirs_below(&base, &dir.path().join("elsewhere/x")).unwrap();
        assert!(dir.path().join("elsewhere/x").is_dir());

        fs::write(base.join("file"), "").unwrap();
        let error = create_dirs_below(&base, &base.join("file")).unwrap_err();
        assert_eq!(
            error.kind(),
            io::ErrorKind::AlreadyExists,
            "a file is no directory"
        );
        assert!(create_dirs_below(&base, &base.join("file/below")).is_err());
    }

    #[test]
    fn latest_points_at_the_newest_run() {
        // Kept when the test fails, for inspection.
        let tmp = tempfile::Builder::new()
            .prefix("skillgym-latest-")
            .disable_cleanup(true)
            .tempdir()
            .unwrap();
        let dir = tmp.path();
        RunDir::new(dir, "first").mark_latest().unwrap();
        RunDir::new(dir, "second").mark_latest().unwrap();
        assert_eq!(
            fs::read_link(dir.join("latest")).unwrap(),
            Path::new("second")
        );
        tmp.close().unwrap();
    }
}
