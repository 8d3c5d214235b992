//! Case and runner ids as directory names ([`sanitize`]) on arbitrary ids.

use std::path::{Component, Path};

use crate::artifacts::{is_layout_name, sanitize};
use crate::replay::recording::execution_dir;

/// Every name a run directory uses for itself, at its top or beside attempt directories: no
/// id may be turned into one of them.
const LAYOUT: &[&str] = &[
    "workspaces",
    "results.json",
    "shared",
    "shared-setup",
    "latest",
    "suites",
    "run.json",
    "suite-warnings.txt",
    "workspace-root.json",
    ".locks",
    ".rejected",
    ".versions",
    "agent-state",
    "explain",
];

/// Sanitizes the two ids `bytes` hold (NUL-separated, UTF-8); checks that each becomes one
/// path segment of at most 255 bytes that no run directory uses for itself, and that two
/// different ids never share a directory. For fuzz targets; not a stable API.
pub fn sanitize_ids(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let (first, second) = text.split_once('\0').unwrap_or((&text, ""));
    let (a, b) = (sanitize(first), sanitize(second));
    for (id, name) in [(first, &a), (second, &b)] {
        assert!(
            name.len() <= 255,
            "{id:?} -> a name of {} bytes",
            name.len()
        );
        assert!(
            matches!(
                Path::new(name).components().collect::<Vec<_>>()[..],
                [Component::Normal(segment)] if segment == name.as_str()
            ),
            "{id:?} -> {name:?}, not one path segment"
        );
        assert!(!name.contains(['/', '\\', '\0']), "{id:?} -> {name:?}");
        assert!(
            !LAYOUT.contains(&name.as_str()) && !is_layout_name(name),
            "{id:?} -> {name:?}, a name of the run layout"
        );
    }
    if first != second {
        assert_ne!(a, b, "{first:?} and {second:?} share a directory");
        let root = Path::new("/run");
        assert_ne!(
            execution_dir(root, first, second),
            execution_dir(root, second, first),
            "two executions share a directory"
        );
    }
}
