//! The checkpoint model: every shard of a checkpoint opened in parallel, one logical tensor
//! table across shards, the config text, and the `ST` + `IX` findings.

mod capped;
mod changed;
mod contain;
mod index;
mod index_parse;
mod listing;
pub mod names;
mod plan;
mod resolve;

pub use contain::{boundary_of, resolves_inside};
pub use index::Index;
pub use listing::Listing;
pub use resolve::{resolve, FileSet};

/// The most shard files one checkpoint may have (found in its directory, named by its index, or
/// listed remotely). The largest published checkpoints have a few hundred; past this the open is
/// refused before a single shard is opened or requested, so a hostile index of 300,000 names
/// costs neither 300,000 requests nor a mapping per name.
pub const MAX_SHARDS: usize = 16_384;

/// The error for a checkpoint of more than [`MAX_SHARDS`] files; `what` says where they are
/// named ("holds", "names").
pub(crate) fn too_many_shards(path: &Path, what: &str, count: usize) -> Error {
    Error::InvalidCheckpoint {
        path: path.to_owned(),
        reason: format!(
            "{what} {count} .safetensors files, more than the {MAX_SHARDS} one checkpoint may \
             have; refusing to open them"
        ),
    }
}

use crate::error::{Error, Result};
use crate::header::TensorEntry;
use crate::progress::{NoProgress, Progress};
use crate::shard::Shard;
use crate::{Code, Finding};
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where one logical tensor lives: `shards[shard].header.tensors[entry]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TensorLocation {
    /// Index into [`Checkpoint::shards`].
    pub shard: usize,
    /// Index into that shard's header entries.
    pub entry: usize,
}

/// An opened checkpoint.
#[derive(Debug)]
pub struct Checkpoint {
    /// The path the user gave.
    pub path: PathBuf,
    /// Resolved files.
    pub file_set: FileSet,
    /// The parsed index, when there is a readable one.
    pub index: Option<Index>,
    /// Opened shards, in file-name order.
    pub shards: Vec<Shard>,
    /// Logical tensors by name (unique; a name in two shards resolves to the index's choice).
    pub tensors: BTreeMap<String, TensorLocation>,
    /// `config.json` text, when present and readable.
    pub config_text: Option<String>,
    /// Every `ST` and `IX` finding, shard by shard then index-level.
    pub findings: Vec<Finding>,
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl Checkpoint {
    /// Opens the checkpoint at `path`: resolves its files, maps and validates every shard in
    /// parallel, and reconciles the index. Reads headers only.
    pub fn open(path: &Path) -> Result<Checkpoint> {
        let file_set = resolve(path)?;
        let mut findings = Vec::new();
        let index = file_set.index.as_deref().and_then(|p| {
            if !file_set.admits(p) {
                findings.push(contain::escape_finding(p, "the link", &file_name(p)));
                return None;
            }
            index::read_index(p, &mut findings)
        });
        let config =
            |file_set: &FileSet, findings: &mut Vec<Finding>| read_config(file_set, findings);
        assemble(
            path,
            file_set,
            index,
            findings,
            &|p: &Path| p.exists(),
            &|p: &Path| Shard::open(p),
            &config,
        )
    }

    /// Opens a checkpoint whose files are ranged sources (see [`Listing`]): the same planning,
    /// header checks, reconciliation and findings as [`Checkpoint::open`] on a directory holding
    /// those files, reading only the headers (two ranged reads per file, files in parallel).
    pub fn open_listing(listing: Listing) -> Result<Checkpoint> {
        Checkpoint::open_listing_with(listing, None, &NoProgress)
    }

    /// [`Checkpoint::open_listing`] with the header reads issued from `threads` worker threads
    /// (default [`crate::fetch::FETCH_THREADS`]: they wait on the network, not the cores), and
    /// no read started once `progress` is cancelled ([`Error::Cancelled`] when it was).
    pub fn open_listing_with(
        listing: Listing,
        threads: Option<usize>,
        progress: &dyn Progress,
    ) -> Result<Checkpoint> {
        let threads = Some(threads.unwrap_or(crate::fetch::FETCH_THREADS));
        let opened =
            crate::pool::run_with_threads(threads, || Self::assemble_listing(listing, progress))?;
        if progress.is_cancelled() {
            return Err(Error::Cancelled);
        }
        Ok(opened)
    }

    fn assemble_listing(listing: Listing, progress: &dyn Progress) -> Result<Checkpoint> {
        let (file_set, sources) = listing::file_set(&listing)?;
        let mut findings = Vec::new();
        let index = listing.index.as_ref().and_then(|(name, text)| {
            let path = listing.root.join(name);
            listing::index(&path, text, &mut findings)
        });
        let config_text = listing.config.as_ref().map(|(_, text)| text.as_str());
        let config = |file_set: &FileSet, findings: &mut Vec<Finding>| {
            listing::config(file_set, config_text, findings)
        };
        assemble(
            &listing.path,
            file_set,
            index,
            findings,
            &|p: &Path| sources.contains_key(p),
            &|p: &Path| match sources.get(p) {
                Some(source) => Shard::from_source(p, Arc::clone(source), progress),
                None => Err(Error::NotFound { path: p.to_owned() }),
            },
            &config,
        )
    }

    /// The header entry and shard of a logical tensor.
    pub fn entry(&self, name: &str) -> Option<(&Shard, &TensorEntry)> {
        let loc = self.tensors.get(name)?;
        let shard = self.shards.get(loc.shard)?;
        Some((shard, shard.header.as_ref()?.tensors.get(loc.entry)?))
    }

    /// The raw bytes of a tensor (borrowed from the map, or read from a ranged source), or an
    /// error naming the file, tensor and offset.
    pub fn tensor_bytes(&self, name: &str) -> Result<(&Shard, &TensorEntry, Cow<'_, [u8]>)> {
        let (shard, entry) = self.entry(name).ok_or_else(|| Error::TensorNotFound {
            name: name.to_owned(),
            path: self.path.clone(),
        })?;
        let bytes = shard
            .read_tensor(entry)
            .map_err(|reason| Error::TensorUnreadable {
                name: name.to_owned(),
                file: shard.path.clone(),
                offset: shard
                    .data_start()
                    .unwrap_or(0)
                    .saturating_add(entry.range.map_or(0, |r| r.0)),
                reason,
            })?;
        Ok((shard, entry, bytes))
    }

    /// True when `name` is a tensor whose bytes can be had (checked without reading them).
    pub fn is_readable(&self, name: &str) -> bool {
        self.entry(name).is_some_and(|(s, e)| s.is_readable(e))
    }

    /// True when any shard is a ranged source (its tensor bytes are read, not mapped).
    pub fn is_ranged(&self) -> bool {
        self.shards.iter().any(Shard::is_ranged)
    }
}

/// The common part of opening: plans the files, opens the shards in parallel, reconciles the
/// index and reads the config, in the same order of findings for every kind of file access.
fn assemble(
    path: &Path,
    file_set: FileSet,
    index: Option<Index>,
    mut findings: Vec<Finding>,
    exists: &(dyn Fn(&Path) -> bool + Sync),
    open_shard: &(dyn Fn(&Path) -> Result<Shard> + Sync),
    read_config: &dyn Fn(&FileSet, &mut Vec<Finding>) -> Option<String>,
) -> Result<Checkpoint> {
    let plan = plan::plan_files(&file_set, index.as_ref(), exists)?;
    findings.extend(file_set.findings.iter().cloned());
    findings.extend(plan.findings.iter().cloned());
    let opened: Vec<Result<Shard>> = plan.open.par_iter().map(|p| open_shard(p)).collect();
    let mut shards = Vec::with_capacity(opened.len());
    for (shard, path) in opened.into_iter().zip(&plan.open) {
        match shard {
            Ok(shard) => shards.push(shard),
            // A dangling HF-cache symlink or an unreadable shard is a finding, not a crash.
            Err(err) => findings.push(
                Finding::new(Code::IX001, format!("shard cannot be opened: {err}"))
                    .file(path.clone()),
            ),
        }
    }
    // With no shard to open, the missing or escaping shards are the findings (exit 1); only a
    // checkpoint with nothing to report at all cannot be inspected.
    let explained = findings
        .iter()
        .any(|f| f.code == "IX001" || f.code == "IX010")
        || !plan.missing.is_empty();
    if shards.is_empty() && !explained {
        return Err(Error::InvalidCheckpoint {
            path: path.to_owned(),
            reason: "no weights files to inspect".into(),
        });
    }
    let mut st: Vec<Finding> = shards
        .iter()
        .flat_map(|s| s.findings.iter().cloned())
        .collect();
    st.append(&mut findings);
    let mut findings = st;
    if let Some(index) = &index {
        index::reconcile(index, &shards, &plan, &mut findings);
    } else if shards.len() > 1 {
        let (kind, index) = if shards
            .iter()
            .all(|s| s.format == crate::torch::Format::Safetensors)
        {
            (".safetensors", names::SAFETENSORS_INDEX)
        } else {
            ("torch", names::TORCH_INDEX)
        };
        findings.push(
            Finding::new(
                Code::IX008,
                format!(
                    "{} {kind} files and no {index}: loaders may pick one file or all",
                    shards.len()
                ),
            )
            .file(file_set.root.clone()),
        );
    }
    let tensors = logical_tensors(&shards, index.as_ref());
    let config_text = read_config(&file_set, &mut findings);
    Ok(Checkpoint {
        path: path.to_owned(),
        file_set,
        index,
        shards,
        tensors,
        config_text,
        findings,
    })
}

fn logical_tensors(shards: &[Shard], index: Option<&Index>) -> BTreeMap<String, TensorLocation> {
    let mut tensors: BTreeMap<String, TensorLocation> = BTreeMap::new();
    for (s, shard) in shards.iter().enumerate() {
        let Some(header) = &shard.header else {
            continue;
        };
        let preferred = |name: &str| {
            index
                .and_then(|i| i.weight_map.get(name))
                .is_some_and(|f| **f == *file_name(&shard.path))
        };
        for (e, entry) in header.tensors.iter().enumerate() {
            let loc = TensorLocation { shard: s, entry: e };
            // One search of the map per tensor (a million for a large header), not two.
            match tensors.entry(entry.name.clone()) {
                Entry::Vacant(slot) => {
                    slot.insert(loc);
                }
                Entry::Occupied(mut slot) if preferred(&entry.name) => {
                    slot.insert(loc);
                }
                Entry::Occupied(_) => {}
            }
        }
    }
    tensors
}

fn read_config(file_set: &FileSet, findings: &mut Vec<Finding>) -> Option<String> {
    let path = file_set.config.as_ref()?;
    if !file_set.admits(path) {
        findings.push(contain::escape_finding(path, "the link", "config.json"));
        return None;
    }
    match crate::regular::read_capped_text(path, crate::regular::CONFIG_CAP) {
        Ok(text) => Some(text),
        Err(err) => {
            findings.push(
                Finding::new(Code::IX009, format!("config.json cannot be read: {err}"))
                    .file(path.clone()),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests;
