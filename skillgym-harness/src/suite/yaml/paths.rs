//! Relative paths of a case: the case directory first, then the suite directory.
//!
//! | Written | Resolved |
//! |---|---|
//! | absolute | as is (must exist) |
//! | relative, exists under the case directory | `<case dir>/<path>` |
//! | relative, exists under the suite directory | `<suite dir>/<path>` |
//! | neither | an error naming both places |
//! | inside the suite directory as written, but through a symlink that leads out of it | an error naming the link and its target (see `links`) |

use std::path::PathBuf;

use super::fields::Source;
use super::graders::Dirs;
use super::links::{Escape, escape};
use super::node::Node;

fn resolve(
    source: &mut Source,
    node: &Node,
    written: &str,
    dirs: Dirs<'_>,
    want_dir: bool,
) -> Option<PathBuf> {
    let path = PathBuf::from(written);
    let candidates: Vec<PathBuf> = if path.is_absolute() {
        vec![path]
    } else if dirs.case == dirs.suite {
        vec![dirs.case.join(&path)]
    } else {
        vec![dirs.case.join(&path), dirs.suite.join(&path)]
    };
    let what = if want_dir { "directory" } else { "file" };
    for candidate in &candidates {
        let ok = if want_dir {
            candidate.is_dir()
        } else {
            candidate.is_file()
        };
        if ok {
            if let Some(escape) = escape(dirs.suite, candidate) {
                source.error_help(node, escape.message(), Escape::HELP);
                return None;
            }
            return Some(candidate.clone());
        }
    }
    let looked: Vec<String> = candidates
        .iter()
        .map(|c| format!("`{}`", c.display()))
        .collect();
    source.error(
        node,
        format!(
            "{what} `{written}` not found (looked at {})",
            looked.join(", ")
        ),
    );
    None
}

/// An existing directory.
pub(crate) fn resolve_dir(
    source: &mut Source,
    node: &Node,
    written: &str,
    dirs: Dirs<'_>,
) -> Option<PathBuf> {
    resolve(source, node, written, dirs, true)
}

/// An existing file.
pub(crate) fn resolve_file(
    source: &mut Source,
    node: &Node,
    written: &str,
    dirs: Dirs<'_>,
) -> Option<PathBuf> {
    resolve(source, node, written, dirs, false)
}
