//! Edits of `Cargo.toml` files that keep their comments and layout (toml_edit).

use std::fmt;
use std::path::{Path, PathBuf};

use toml_edit::{ArrayOfTables, DocumentMut, InlineTable, Item, Table, value};

use super::error::InitError;
use super::templates::PROFILE_COMMENT;

/// Where the skillgym crates come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Source {
    /// A checkout of the repository: path dependencies.
    Path(PathBuf),
    /// crates.io: this version.
    Version(String),
}

impl Source {
    fn dependency(&self, krate: &str) -> Item {
        match self {
            Source::Path(root) => {
                let mut table = InlineTable::new();
                table.insert("path", root.join(krate).display().to_string().into());
                value(table)
            }
            Source::Version(version) => value(version.as_str()),
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Path(root) => write!(f, "from {}", root.display()),
            Source::Version(version) => write!(f, "{version} from crates.io"),
        }
    }
}

/// One manifest, read (or new) and edited in memory until [`Manifest::write`].
pub(super) struct Manifest {
    path: PathBuf,
    document: DocumentMut,
}

impl Manifest {
    pub(super) fn read(path: &Path) -> Result<Manifest, InitError> {
        let text = std::fs::read_to_string(path).map_err(InitError::io("read", path))?;
        let document = text
            .parse::<DocumentMut>()
            .map_err(|source| InitError::Manifest {
                path: path.to_owned(),
                source,
            })?;
        Ok(Manifest {
            path: path.to_owned(),
            document,
        })
    }

    /// A manifest for a new package `name` with only a `[package]` table.
    pub(super) fn new_package(path: &Path, name: &str) -> Manifest {
        let mut document = DocumentMut::new();
        let mut package = Table::new();
        package.insert("name", value(name));
        package.insert("version", value("0.1.0"));
        package.insert("edition", value("2024"));
        package.insert("publish", value(false));
        document.insert("package", Item::Table(package));
        Manifest {
            path: path.to_owned(),
            document,
        }
    }

    /// Adds an empty `[workspace]` table: the crate is a workspace of its own.
    pub(super) fn make_workspace_root(&mut self) {
        if !self.document.contains_key("workspace") {
            self.document.insert("workspace", Item::Table(Table::new()));
        }
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether this manifest has a `[workspace]` table.
    pub(super) fn is_workspace_root(&self) -> bool {
        self.document.contains_key("workspace")
    }

    /// A package without a `benchmarks` test target.
    pub(super) fn check_can_add_benchmarks(&self) -> Result<(), InitError> {
        if !self.document.contains_key("package") {
            return Err(InitError::VirtualManifest {
                manifest: self.path.clone(),
            });
        }
        let has_benchmarks = self
            .document
            .get("test")
            .and_then(Item::as_array_of_tables)
            .is_some_and(|tests| {
                tests
                    .iter()
                    .any(|test| test.get("name").and_then(Item::as_str) == Some("benchmarks"))
            });
        if has_benchmarks {
            return Err(InitError::HasBenchmarks {
                manifest: self.path.clone(),
            });
        }
        Ok(())
    }

    /// Adds the dev-dependencies that are missing and the `benchmarks` test target.
    pub(super) fn add_benchmarks(&mut self, source: &Source) {
        let deps = self
            .document
            .entry("dev-dependencies")
            .or_insert_with(|| Item::Table(Table::new()));
        if let Some(deps) = deps.as_table_like_mut() {
            for krate in ["skillgym", "skillgym-harness"] {
                if !deps.contains_key(krate) {
                    deps.insert(krate, source.dependency(krate));
                }
            }
        }
        let mut test = Table::new();
        test.insert("name", value("benchmarks"));
        test.insert("harness", value(false));
        // Agent sessions only when asked for: `cargo test --test benchmarks`.
        test.insert("test", value(false));
        match self
            .document
            .get_mut("test")
            .and_then(Item::as_array_of_tables_mut)
        {
            Some(tests) => tests.push(test),
            None => {
                let mut tests = ArrayOfTables::new();
                tests.push(test);
                self.document.insert("test", Item::ArrayOfTables(tests));
            }
        }
    }

    /// Adds `[profile.dev.package."*"] opt-level = 3, debug = "line-tables-only"` unless a `profile.dev.package."*"` is
    /// there; whether it was added.
    pub(super) fn add_dev_profile(&mut self) -> bool {
        let present = self
            .document
            .get("profile")
            .and_then(|p| p.get("dev"))
            .and_then(|d| d.get("package"))
            .and_then(|p| p.get("*"))
            .is_some();
        if present {
            return false;
        }
        let mut all = Table::new();
        all.insert("opt-level", value(3));
        all.insert("debug", value("line-tables-only"));
        all.decor_mut().set_prefix(PROFILE_COMMENT);
        let profile = self
            .document
            .entry("profile")
            .or_insert_with(|| Item::Table(implicit_table()));
        let Some(profile) = profile.as_table_mut() else {
            return false;
        };
        let dev = profile
            .entry("dev")
            .or_insert_with(|| Item::Table(implicit_table()));
        let Some(dev) = dev.as_table_mut() else {
            return false;
        };
        let package = dev
            .entry("package")
            .or_insert_with(|| Item::Table(implicit_table()));
        let Some(package) = package.as_table_mut() else {
            return false;
        };
        package.insert("*", Item::Table(all));
        true
    }

    /// Adds `dir` (relative to this workspace root) to `workspace.members` unless a member
    /// entry or an `exclude` entry names it; whether it was added.
    pub(super) fn add_member(&mut self, dir: &Path) -> Result<bool, InitError> {
        let root = self.path.parent().unwrap_or(Path::new("."));
        // `root` was found among `dir`'s ancestors.
        let Ok(relative) = dir.strip_prefix(root) else {
            return Ok(false);
        };
        let relative = relative.to_string_lossy().replace('\\', "/");
        let Some(workspace) = self
            .document
            .get_mut("workspace")
            .and_then(Item::as_table_like_mut)
        else {
            return Ok(false);
        };
        let listed = |key: &str, workspace: &dyn toml_edit::TableLike| {
            workspace
                .get(key)
                .and_then(Item::as_array)
                .is_some_and(|items| items.iter().any(|item| item.as_str() == Some(&relative)))
        };
        if listed("members", workspace) || listed("exclude", workspace) {
            return Ok(false);
        }
        let members = workspace
            .entry("members")
            .or_insert(value(toml_edit::Array::new()));
        match members.as_array_mut() {
            Some(members) => {
                members.push(relative.as_str());
                Ok(true)
            }
            None => Err(InitError::MembersNotArray {
                manifest: self.path.clone(),
            }),
        }
    }

    pub(super) fn write(&self) -> Result<(), InitError> {
        std::fs::write(&self.path, self.document.to_string())
            .map_err(InitError::io("write", &self.path))
    }
}

/// A table shown only through its subtables (`[profile.dev.package."*"]`, no `[profile]`).
fn implicit_table() -> Table {
    let mut table = Table::new();
    table.set_implicit(true);
    table
}
