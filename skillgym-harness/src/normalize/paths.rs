//! Path normalization for observed file reads.

use std::path::{Component, Path, PathBuf};

/// Makes `path` absolute against `cwd` and removes `.` and `..` components lexically
/// (without touching the file system, so paths that no longer exist still normalize).
pub fn resolve_path(cwd: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_and_dot_segments() {
        let cwd = Path::new("/work/app");
        assert_eq!(
            resolve_path(cwd, Path::new("src/./a.rs")),
            Path::new("/work/app/src/a.rs")
        );
        assert_eq!(
            resolve_path(cwd, Path::new("../b/SKILL.md")),
            Path::new("/work/b/SKILL.md")
        );
        assert_eq!(resolve_path(cwd, Path::new("/etc/../x")), Path::new("/x"));
        assert_eq!(resolve_path(cwd, Path::new("/../../x")), Path::new("/x"));
    }
}
