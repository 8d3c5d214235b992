//! `cargo skillgym init`: scaffolds a benchmark crate, or adds one to an existing crate.
//!
//! | writes | new crate | existing crate |
//! |---|---|---|
//! | `Cargo.toml` | `[package]`, the two dev-dependencies, `[[test]] benchmarks` with `test = false` (a plain `cargo test` skips it; `cargo test --test benchmarks` runs it) | adds what is missing of the same |
//! | `tests/benchmarks.rs`, `skillgym.yaml`, `skills/hello/SKILL.md`, `bin/stand-in-agent` | yes | yes |
//! | inside another crate's workspace | asked (`--workspace-member`): joins its `members`, or stays a workspace of its own (`[workspace]` in its manifest; nothing else changes) | – |
//! | `[profile.dev.package."*"] opt-level = 3`, `debug = "line-tables-only"` | asked (`--fast-deps`): in the workspace root's manifest, else the crate's, unless a `profile.dev.package."*"` is there | same |
//! | `.github/workflows/skillgym.yml` at the repository root | with `--ci github` (`workflow`) | same |
//!
//! A question is answered by its flag, else asked on a terminal, else answered no: without a
//! terminal `init` changes nothing outside the crate. Nothing is overwritten: a file that
//! exists, or a `benchmarks` test target, stops `init` before it writes anything.

mod ask;
mod error;
mod manifest;
mod templates;
mod workflow;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use error::InitError;
use manifest::{Manifest, Source};

/// Scaffold a benchmark crate in DIR, or add a `benchmarks` target to the crate there.
#[derive(Debug, clap::Args)]
pub(crate) struct InitArgs {
    /// The crate's directory: an existing crate gets a `benchmarks` test target, any other
    /// directory (created if missing) a new crate
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// The new crate's package name (default: the directory's name)
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Depend on the skillgym crates of this checkout (default: the checkout this binary was
    /// built from, if it still exists, else the crates.io release of this version)
    #[arg(long, value_name = "DIR")]
    skillgym_path: Option<PathBuf>,
    /// Inside another crate's workspace: join its `members` (yes) or be a workspace of its own
    /// (no); without the flag, asked on a terminal, else no
    #[arg(long, value_name = "yes|no")]
    workspace_member: Option<ask::Answer>,
    /// Compile dependencies optimized in debug builds (`[profile.dev.package."*"]`): a slower
    /// first build, faster runs; without the flag, asked on a terminal, else no
    #[arg(long, value_name = "yes|no")]
    fast_deps: Option<ask::Answer>,
    /// Also write a CI workflow: `github` writes `.github/workflows/skillgym.yml` at the
    /// repository root (the benchmarks in nextest shards, merged by `cargo skillgym report`)
    #[arg(long, value_name = "github")]
    ci: Option<Ci>,
}

/// The CI systems `--ci` writes a workflow for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Ci {
    /// GitHub Actions.
    Github,
}

/// The files `init` writes besides manifests, relative to the crate, and their contents.
const FILES: [(&str, &str); 4] = [
    ("tests/benchmarks.rs", templates::BENCHMARKS_RS),
    ("skillgym.yaml", templates::SKILLGYM_YAML),
    ("skills/hello/SKILL.md", templates::HELLO_SKILL_MD),
    ("bin/stand-in-agent", templates::STAND_IN_AGENT),
];

pub(crate) fn run(args: &InitArgs) -> ExitCode {
    match init(args) {
        Ok(summary) => {
            print!("{}", crate::escape(&summary));
            ExitCode::SUCCESS
        }
        Err(message) => crate::fail(message),
    }
}

fn init(args: &InitArgs) -> Result<String, InitError> {
    let cwd = std::env::current_dir().map_err(InitError::io("read", "the current directory"))?;
    let dir = cwd.join(&args.dir);
    let source = source(args.skillgym_path.as_deref(), &cwd)?;
    let manifest_path = dir.join("Cargo.toml");
    let existing = manifest_path.exists();
    let mut crate_manifest = if existing {
        let manifest = Manifest::read(&manifest_path)?;
        manifest.check_can_add_benchmarks()?;
        manifest
    } else {
        let name = package_name(args.name.as_deref(), &dir)?;
        Manifest::new_package(&manifest_path, &name)
    };
    let taken: Vec<&str> = FILES
        .iter()
        .map(|(path, _)| *path)
        .filter(|path| dir.join(path).exists())
        .collect();
    if !taken.is_empty() {
        return Err(InitError::FilesExist { dir, files: taken });
    }
    let repository_root = repository_root(&dir);
    if args.ci.is_some() && repository_root.join(workflow::PATH).exists() {
        return Err(InitError::FilesExist {
            dir: repository_root,
            files: vec![workflow::PATH],
        });
    }
    let workspace = if crate_manifest.is_workspace_root() {
        None
    } else {
        find_workspace_root(&dir)?
    };

    crate_manifest.add_benchmarks(&source);
    let mut notes = Vec::new();
    let workspace = match workspace {
        Some(root) if !existing => join_or_not(args, root, &mut crate_manifest, &dir, &mut notes)?,
        workspace => workspace,
    };
    let fast_deps = ask::answer(
        args.fast_deps,
        "Compile dependencies optimized in debug builds (`[profile.dev.package.\"*\"] opt-level = 3`)? The first build takes longer (on 2 cores, the crates downloaded: about 3 minutes instead of 45 s); agent transcripts are then parsed about 9x faster.",
    );
    match workspace {
        Some(mut root) => {
            if fast_deps && root.add_dev_profile() {
                notes.push(format!(
                    "optimized dependencies in debug builds: {}",
                    root.path().display()
                ));
                root.write()?;
            }
        }
        None => {
            if fast_deps && crate_manifest.add_dev_profile() {
                notes.push("optimized dependencies in debug builds: Cargo.toml".to_owned());
            }
        }
    }
    std::fs::create_dir_all(&dir).map_err(InitError::io("create", &dir))?;
    crate_manifest.write()?;
    for (path, text) in FILES {
        write_file(&dir.join(path), text)?;
    }
    make_executable(&dir.join("bin/stand-in-agent"))?;
    if args.ci == Some(Ci::Github) {
        let relative = dir.strip_prefix(&repository_root).unwrap_or(Path::new("."));
        let text = workflow::workflow(relative, &source, REPOSITORY);
        let path = repository_root.join(workflow::PATH);
        write_file(&path, &text)?;
        notes.push(format!("the GitHub Actions workflow: {}", path.display()));
        if matches!(source, Source::Path(_)) {
            notes.push("CI has no checkout of skillgym: depend on it from git or crates.io there (the workflow installs cargo-skillgym from git)".to_owned());
        }
    }
    Ok(summary(&dir, &cwd, existing, &source, &notes))
}

/// A new crate inside `root`'s workspace: joins its `members` when the author says so (the
/// root's manifest is written, and it is the workspace the profile goes to), else becomes a
/// workspace of its own (`[workspace]` in its manifest; `None`: no other workspace).
fn join_or_not(
    args: &InitArgs,
    mut root: Manifest,
    crate_manifest: &mut Manifest,
    dir: &Path,
    notes: &mut Vec<String>,
) -> Result<Option<Manifest>, InitError> {
    let question = format!(
        "{} is inside the workspace of {}. Add it to that workspace's `members` (then `cargo test --workspace` builds it)?",
        dir.display(),
        root.path().display()
    );
    if ask::answer(args.workspace_member, &question) {
        if root.add_member(dir)? {
            notes.push(format!(
                "added to the workspace members: {}",
                root.path().display()
            ));
            root.write()?;
        }
        return Ok(Some(root));
    }
    crate_manifest.make_workspace_root();
    notes.push(format!(
        "a workspace of its own ([workspace] in its Cargo.toml), not a member of {} (`--workspace-member yes` adds it)",
        root.path().display()
    ));
    Ok(None)
}

/// skillgym's repository, where `--ci github` installs `cargo-skillgym` from when the crates
/// come from a checkout.
const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");

/// The repository `dir` is in: the nearest ancestor (or itself) holding `.git`, else `dir`.
fn repository_root(dir: &Path) -> PathBuf {
    dir.ancestors()
        .find(|ancestor| ancestor.join(".git").exists())
        .unwrap_or(dir)
        .to_path_buf()
}

/// Where the skillgym crates come from.
fn source(explicit: Option<&Path>, cwd: &Path) -> Result<Source, InitError> {
    if let Some(path) = explicit {
        let path = cwd.join(path);
        return if is_checkout(&path) {
            Ok(Source::Path(path))
        } else {
            Err(InitError::NotACheckout { path })
        };
    }
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf);
    Ok(match built_from.filter(|root| is_checkout(root)) {
        Some(root) => Source::Path(root),
        None => Source::Version(env!("CARGO_PKG_VERSION").to_owned()),
    })
}

fn is_checkout(root: &Path) -> bool {
    root.join("skillgym/Cargo.toml").is_file() && root.join("skillgym-harness/Cargo.toml").is_file()
}

/// `--name`, else the directory's name, made a valid package name.
fn package_name(explicit: Option<&str>, dir: &Path) -> Result<String, InitError> {
    if let Some(name) = explicit {
        let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        return if valid {
            Ok(name.to_owned())
        } else {
            Err(InitError::BadName {
                name: name.to_owned(),
            })
        };
    }
    let base = dir
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let mut name: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    name = name.trim_matches('-').to_owned();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name = format!("benchmarks-{name}")
            .trim_end_matches('-')
            .to_owned();
    }
    Ok(name)
}

/// The manifest of the workspace enclosing `dir`, if any.
fn find_workspace_root(dir: &Path) -> Result<Option<Manifest>, InitError> {
    for ancestor in dir.ancestors().skip(1) {
        let candidate = ancestor.join("Cargo.toml");
        if candidate.is_file() {
            let manifest = Manifest::read(&candidate)?;
            if manifest.is_workspace_root() {
                return Ok(Some(manifest));
            }
        }
    }
    Ok(None)
}

fn write_file(path: &Path, text: &str) -> Result<(), InitError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(InitError::io("create", parent))?;
    }
    std::fs::write(path, text).map_err(InitError::io("write", path))
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), InitError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(InitError::io("make executable", path))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<(), InitError> {
    Ok(())
}

fn summary(dir: &Path, cwd: &Path, existing: bool, source: &Source, notes: &[String]) -> String {
    let shown = dir.strip_prefix(cwd).unwrap_or(dir);
    let shown = if shown.as_os_str().is_empty() {
        Path::new(".")
    } else {
        shown
    };
    let mut text = String::new();
    let what = if existing {
        "added a benchmarks target to"
    } else {
        "created the benchmark crate"
    };
    let _ = writeln!(text, "skillgym: {what} {}", shown.display());
    let _ = writeln!(
        text,
        "  Cargo.toml (dev-dependencies skillgym and skillgym-harness {source}, [[test]] benchmarks)"
    );
    for (path, _) in FILES {
        let _ = writeln!(text, "  {path}");
    }
    for note in notes {
        let _ = writeln!(text, "  {note}");
    }
    let cd = if shown == Path::new(".") {
        String::new()
    } else {
        format!("cd {} && ", shown.display())
    };
    let _ = writeln!(
        text,
        "\nrun the benchmark (its stand-in agent needs no agent or key):"
    );
    let _ = writeln!(text, "  {cd}cargo test --test benchmarks");
    let _ = writeln!(
        text,
        "(a plain `cargo test` skips it: `test = false` on the target keeps agent sessions out of everyone's test runs)"
    );
    let _ = writeln!(
        text,
        "then put a real agent in skillgym.yaml and check that it is ready:"
    );
    let _ = writeln!(text, "  cargo skillgym doctor");
    text
}
