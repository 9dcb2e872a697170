//! Path resolution: which files make up the checkpoint at a path (single file, directory,
//! sharded directory with an index, Hugging Face cache repo or snapshot), safetensors or torch
//! (which files are weights: `names`).

use super::contain::{boundary_of, canonical, escape_finding, resolves_inside};
use super::names::{self, Choice};
use crate::error::{Error, Result};
use crate::finding::Finding;
use crate::regular::{read_capped_text, REFS_CAP};
use crate::Code;
use std::fs;
use std::path::{Path, PathBuf};

/// The set of files that make up a checkpoint: where its weights, index and config live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSet {
    /// The directory holding the weights (a snapshot directory for the HF cache).
    pub root: PathBuf,
    /// The sharding index, when there is one.
    pub index: Option<PathBuf>,
    /// The weights files in the root, sorted (or the single file given): its `.safetensors`
    /// files, or when it has none, its torch files.
    pub files: Vec<PathBuf>,
    /// `config.json` beside the weights, when present.
    pub config: Option<PathBuf>,
    /// The directory every file must resolve inside (canonical): the root, or for the Hugging
    /// Face cache the repo folder `models--org--name` (holding `blobs/`). See [`FileSet::admits`].
    pub boundary: PathBuf,
    /// True for files on this machine: each one (shard, index, config), symlinks followed, must
    /// resolve inside `boundary`, whether the directory is a Hugging Face snapshot (whose files
    /// link into `blobs/`) or a plain directory. False for a listing, whose files are not paths.
    pub links_must_stay_inside: bool,
    /// The file the user named (a `.safetensors` file or an index), read wherever its link leads:
    /// what was given is inside what was given.
    pub explicit: Option<PathBuf>,
    /// IX010 findings met while resolving (a `refs/main` that leads outside the repo).
    pub findings: Vec<Finding>,
}

/// Resolves `path` to the files of the checkpoint it names.
pub fn resolve(path: &Path) -> Result<FileSet> {
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
            let listed = list_names(&root)?;
            let listed: Vec<&str> = listed.iter().map(String::as_str).collect();
            let files = names::files_for_index(name, &listed);
            if files.len() > super::MAX_SHARDS {
                return Err(super::too_many_shards(&root, "holds", files.len()));
            }
            return Ok(FileSet {
                files: files.iter().map(|n| root.join(n)).collect(),
                config: config_in(&root),
                index: Some(path.to_owned()),
                boundary: boundary_of(&root),
                links_must_stay_inside: true,
                explicit: Some(path.to_owned()),
                findings: Vec::new(),
                root,
            });
        }
        if name == "config.json" {
            return resolve(&root);
        }
        return Ok(FileSet {
            config: config_in(&root),
            index: None,
            files: vec![path.to_owned()],
            boundary: boundary_of(&root),
            links_must_stay_inside: true,
            explicit: Some(path.to_owned()),
            findings: Vec::new(),
            root,
        });
    }
    let mut findings = Vec::new();
    let snapshot = hf_snapshot(path, &mut findings)?;
    let in_hf_cache = snapshot.is_some();
    let root = snapshot.unwrap_or_else(|| path.to_owned());
    let listed = list_names(&root)?;
    let listed: Vec<&str> = listed.iter().map(String::as_str).collect();
    let Choice {
        files,
        index,
        skipped,
    } = names::choose(&listed);
    if files.len() > super::MAX_SHARDS {
        return Err(super::too_many_shards(&root, "holds", files.len()));
    }
    if files.is_empty() && index.is_none() {
        return Err(Error::InvalidCheckpoint {
            path: path.to_owned(),
            reason: "no weights here: no .safetensors files, no model.safetensors.index.json, \
                     and no torch files (.bin, .pt, .pth) or pytorch_model.bin.index.json"
                .into(),
        });
    }
    if !skipped.is_empty() {
        findings.push(
            Finding::new(
                Code::PT019, format!(
                    "{} not inspected: a trainer's side files, not weights (scan one by its path to check it)",
                    skipped.join(", ")
                ),
            )
            .file(root.clone()),
        );
    }
    Ok(FileSet {
        config: config_in(&root),
        index: index.map(|n| root.join(n)),
        files: files.iter().map(|n| root.join(n)).collect(),
        boundary: if in_hf_cache {
            canonical(path)
        } else {
            boundary_of(&root)
        },
        links_must_stay_inside: true,
        explicit: None,
        findings,
        root,
    })
}

impl FileSet {
    /// The containment rule (one for plain directories, HF snapshots and `fix`'s copying): true
    /// when the file at `path` may be opened, i.e. it is the file the user named, or it resolves
    /// inside [`FileSet::boundary`] (a path that cannot be resolved counts as inside: opening it
    /// then fails on its own, reading nothing).
    pub fn admits(&self, path: &Path) -> bool {
        !self.links_must_stay_inside
            || self.explicit.as_deref() == Some(path)
            || resolves_inside(path, &self.boundary)
    }
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

/// The names of the entries of `dir`, sorted (names that are not UTF-8 are not weights).
fn list_names(dir: &Path) -> Result<Vec<String>> {
    Ok(list(dir)?
        .into_iter()
        .filter_map(|p| p.file_name()?.to_str().map(str::to_owned))
        .collect())
}

/// For an HF cache repo directory (`models--org--name` with `snapshots/` and `refs/`), the snapshot
/// that `refs/main` names, or the only snapshot. `None` when `dir` is not such a repo directory.
/// A `refs/main` that is not a plain revision name, or whose snapshot leads outside the repo
/// folder, is an IX010 finding and is ignored.
fn hf_snapshot(dir: &Path, findings: &mut Vec<Finding>) -> Result<Option<PathBuf>> {
    let snapshots = dir.join("snapshots");
    if !snapshots.is_dir() || !dir.join("refs").is_dir() && !dir.join("blobs").is_dir() {
        return Ok(None);
    }
    let refs_main = dir.join("refs").join("main");
    if !resolves_inside(&refs_main, &canonical(dir)) {
        findings.push(escape_finding(&refs_main, "the link", "refs/main"));
    } else if let Ok(main) = read_capped_text(&refs_main, REFS_CAP) {
        let revision = main.trim();
        let snapshot = snapshots.join(revision);
        if !is_revision_name(revision) || !resolves_inside(&snapshot, &canonical(dir)) {
            findings.push(escape_finding(
                &refs_main,
                "refs/main names the snapshot",
                revision,
            ));
        } else if snapshot.is_dir() {
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

/// A revision as the HF cache names snapshot folders: letters, digits, `-`, `_`, `.`, and not a
/// path (`.` or `..`).
fn is_revision_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}
