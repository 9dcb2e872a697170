//! Containment: the one rule for every path a local checkpoint is made of. Names read from file
//! contents (index `weight_map` entries, HF cache `refs/*`) must be plain relative paths, and
//! every file opened (shards, index, config; `fix`'s side files through the binding) must
//! resolve, symlinks followed, inside the checkpoint's boundary: its directory, or for a
//! Hugging Face cache snapshot its `models--org--name` repository. Anything else is an IX010
//! finding and is never opened (so no byte of a file outside a checkpoint is ever echoed).

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

/// The directory every file of the local checkpoint rooted at `root` must resolve inside: `root`
/// itself (canonical), or, when `root` is a Hugging Face cache snapshot or a folder inside one
/// (`models--org--name/snapshots/REV[/SUB]`), that `models--org--name` repository, which holds
/// the `blobs/` its snapshot links lead to.
pub fn boundary_of(root: &Path) -> PathBuf {
    let root = canonical(root);
    let repo = root.ancestors().skip(1).find_map(|dir| {
        let repo = dir.parent()?;
        let is_repo = repo
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("models--"));
        (dir.file_name()? == "snapshots" && is_repo).then(|| repo.to_path_buf())
    });
    repo.unwrap_or(root)
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
    fn a_snapshot_is_bounded_by_its_repository() {
        let outer = tempfile::tempdir().unwrap();
        let repo = outer.path().join("models--org--name");
        let snap = repo.join("snapshots").join("abc");
        std::fs::create_dir_all(snap.join("sub")).unwrap();
        let repo = canonical(&repo);
        assert_eq!(boundary_of(&snap), repo);
        assert_eq!(boundary_of(&snap.join("sub")), repo);
        assert_eq!(
            boundary_of(&repo.join("snapshots")),
            canonical(&repo.join("snapshots"))
        );
        let plain = outer.path().join("plain");
        std::fs::create_dir(&plain).unwrap();
        assert_eq!(boundary_of(&plain), canonical(&plain));
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
