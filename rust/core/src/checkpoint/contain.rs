//! Containment of paths that come from file contents (index `weight_map` entries, HF cache
//! `refs/*`, snapshot links): they must stay inside the checkpoint's root, or they are an IX010
//! finding and are never opened (so no byte of a file outside a checkpoint is ever echoed).

use crate::{Code, Finding};
use std::path::{Component, Path, PathBuf};

/// True when `name` (a relative path read from a file) names something below its base directory
/// without leaving it lexically: relative, no `..`, no root or drive prefix, not empty.
pub fn is_plain_relative(name: &str) -> bool {
    let path = Path::new(name);
    !name.is_empty()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        && path.components().any(|c| matches!(c, Component::Normal(_)))
}

/// True when `path`, with every symlink resolved, lies inside `boundary` (itself canonical). A
/// path that cannot be resolved (dangling link, missing) counts as inside: opening it then fails
/// on its own and is reported as missing, without reading anything.
pub fn resolves_inside(path: &Path, boundary: &Path) -> bool {
    match std::fs::canonicalize(path) {
        Ok(real) => real.starts_with(boundary),
        Err(_) => true,
    }
}

/// The IX010 finding for `what` (how the file names the path) read from `source`.
pub fn escape_finding(source: &Path, what: &str, target: &str) -> Finding {
    Finding::new(
        Code::IX010,
        format!("{what} {target:?} leads outside the checkpoint; it was not opened"),
    )
    .file(source.to_path_buf())
}

/// The canonical form of `dir`, or `dir` itself when it cannot be resolved.
pub fn canonical(dir: &Path) -> PathBuf {
    std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_relative_names_only() {
        assert!(is_plain_relative("model-00001-of-00002.safetensors"));
        assert!(is_plain_relative("sub/model.safetensors"));
        assert!(is_plain_relative("./model.safetensors"));
        for bad in [
            "",
            ".",
            "../x.safetensors",
            "a/../../x",
            "/etc/passwd",
            "a/../b",
        ] {
            assert!(!is_plain_relative(bad), "{bad}");
        }
    }

    #[test]
    fn symlinks_out_of_the_boundary_are_caught() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("root");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(outer.path().join("secret"), b"x").unwrap();
        std::fs::write(root.join("inside"), b"x").unwrap();
        std::os::unix::fs::symlink("../secret", root.join("link")).unwrap();
        let boundary = canonical(&root);
        assert!(resolves_inside(&root.join("inside"), &boundary));
        assert!(!resolves_inside(&root.join("link"), &boundary));
    }
}
