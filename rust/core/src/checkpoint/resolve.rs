//! Path resolution: which files make up the checkpoint at a path (single file, directory,
//! sharded directory with an index, Hugging Face cache repo or snapshot).

use crate::error::{Error, Result};
use std::fs;
use std::path::{Path, PathBuf};

/// Where a checkpoint's weights and config live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The directory holding the weights (a snapshot directory for the HF cache).
    pub root: PathBuf,
    /// The sharding index, when there is one.
    pub index: Option<PathBuf>,
    /// The `.safetensors` files in the root, sorted (or the single file given).
    pub files: Vec<PathBuf>,
    /// `config.json` beside the weights, when present.
    pub config: Option<PathBuf>,
}

const INDEX_NAME: &str = "model.safetensors.index.json";

/// Resolves `path` to the files of the checkpoint it names.
pub fn resolve(path: &Path) -> Result<Layout> {
    let meta = fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.is_file() {
        let root = path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let root = if root.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            root
        };
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.ends_with(".index.json") {
            return Ok(Layout {
                files: safetensors_files(&root)?,
                config: config_in(&root),
                index: Some(path.to_owned()),
                root,
            });
        }
        if name == "config.json" {
            return resolve(&root);
        }
        return Ok(Layout {
            config: config_in(&root),
            index: None,
            files: vec![path.to_owned()],
            root,
        });
    }
    let root = hf_snapshot(path)?.unwrap_or_else(|| path.to_owned());
    let files = safetensors_files(&root)?;
    let index = find_index(&root)?;
    if files.is_empty() && index.is_none() {
        return Err(Error::InvalidCheckpoint {
            path: path.to_owned(),
            reason: "no .safetensors files and no model.safetensors.index.json here".into(),
        });
    }
    Ok(Layout {
        config: config_in(&root),
        index,
        files,
        root,
    })
}

fn config_in(root: &Path) -> Option<PathBuf> {
    let config = root.join("config.json");
    config.exists().then_some(config)
}

fn list(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        names.push(entry.path());
    }
    names.sort();
    Ok(names)
}

fn safetensors_files(dir: &Path) -> Result<Vec<PathBuf>> {
    Ok(list(dir)?
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "safetensors"))
        .collect())
}

fn find_index(dir: &Path) -> Result<Option<PathBuf>> {
    let preferred = dir.join(INDEX_NAME);
    if preferred.exists() {
        return Ok(Some(preferred));
    }
    let mut indexes: Vec<PathBuf> = list(dir)?
        .into_iter()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".safetensors.index.json"))
        })
        .collect();
    Ok(if indexes.len() == 1 {
        indexes.pop()
    } else {
        None
    })
}

/// For an HF cache repo directory (`models--org--name` with `snapshots/` and `refs/`), the snapshot
/// that `refs/main` names, or the only snapshot. `None` when `dir` is not such a repo directory.
fn hf_snapshot(dir: &Path) -> Result<Option<PathBuf>> {
    let snapshots = dir.join("snapshots");
    if !snapshots.is_dir() || !dir.join("refs").is_dir() && !dir.join("blobs").is_dir() {
        return Ok(None);
    }
    if let Ok(main) = fs::read_to_string(dir.join("refs").join("main")) {
        let snapshot = snapshots.join(main.trim());
        if snapshot.is_dir() {
            return Ok(Some(snapshot));
        }
    }
    let mut all: Vec<PathBuf> = list(&snapshots)?
        .into_iter()
        .filter(|p| p.is_dir())
        .collect();
    match all.len() {
        1 => Ok(all.pop()),
        0 => Err(Error::InvalidCheckpoint { path: dir.to_owned(), reason: "Hugging Face cache repo with no snapshots".into() }),
        n => Err(Error::InvalidCheckpoint {
            path: dir.to_owned(),
            reason: format!("Hugging Face cache repo with {n} snapshots and no refs/main; pass a snapshots/<revision> directory"),
        }),
    }
}
