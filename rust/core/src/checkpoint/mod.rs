//! The checkpoint model: every shard of a checkpoint opened in parallel, one logical tensor
//! table across shards, the config text, and the `ST` + `IX` findings.

mod changed;
mod contain;
mod index;
mod plan;
mod resolve;

pub use index::Index;
pub use resolve::{resolve, FileSet};

use crate::error::{Error, Result};
use crate::finding::{Finding, Severity};
use crate::header::TensorEntry;
use crate::shard::Shard;
use rayon::prelude::*;
use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
            if file_set.links_must_stay_inside && !contain::resolves_inside(p, &file_set.boundary) {
                findings.push(contain::escape_finding(
                    p,
                    "the snapshot link",
                    &file_name(p),
                ));
                return None;
            }
            index::read_index(p, &mut findings)
        });
        let plan = plan::plan_files(&file_set, index.as_ref());
        findings.extend(file_set.findings.iter().cloned());
        findings.extend(plan.findings.iter().cloned());
        let opened: Vec<Result<Shard>> = plan.open.par_iter().map(|p| Shard::open(p)).collect();
        let mut shards = Vec::with_capacity(opened.len());
        for (shard, path) in opened.into_iter().zip(&plan.open) {
            match shard {
                Ok(shard) => shards.push(shard),
                // A dangling HF-cache symlink or an unreadable shard is a finding, not a crash.
                Err(err) => findings.push(
                    Finding::new(
                        "IX001",
                        Severity::Error,
                        format!("shard cannot be opened: {err}"),
                    )
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
                reason: "no .safetensors files to inspect".into(),
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
            findings.push(
                Finding::new("IX008", Severity::Warning, format!("{} .safetensors files and no model.safetensors.index.json: loaders may pick one file or all", shards.len()))
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

    /// The header entry and shard of a logical tensor.
    pub fn entry(&self, name: &str) -> Option<(&Shard, &TensorEntry)> {
        let loc = self.tensors.get(name)?;
        let shard = self.shards.get(loc.shard)?;
        Some((shard, shard.header.as_ref()?.tensors.get(loc.entry)?))
    }

    /// The raw bytes of a tensor, or an error naming the file, tensor and offset.
    pub fn tensor_bytes(&self, name: &str) -> Result<(&Shard, &TensorEntry, &[u8])> {
        let (shard, entry) = self.entry(name).ok_or_else(|| Error::TensorNotFound {
            name: name.to_owned(),
            path: self.path.clone(),
        })?;
        let bytes = shard.tensor_bytes(entry).ok_or_else(|| Error::TensorUnreadable {
            name: name.to_owned(),
            file: shard.path.clone(),
            offset: shard.data_start().unwrap_or(0).saturating_add(entry.range.map_or(0, |r| r.0)),
            reason: "its header entry is invalid or its data lies outside the file (see the ST findings)".into(),
        })?;
        Ok((shard, entry, bytes))
    }
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
                .is_some_and(|f| *f == file_name(&shard.path))
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
    if file_set.links_must_stay_inside && !contain::resolves_inside(path, &file_set.boundary) {
        findings.push(contain::escape_finding(
            path,
            "the snapshot link",
            "config.json",
        ));
        return None;
    }
    match crate::regular::read_capped_text(path, crate::regular::CONFIG_CAP) {
        Ok(text) => Some(text),
        Err(err) => {
            findings.push(
                Finding::new(
                    "IX009",
                    Severity::Error,
                    format!("config.json cannot be read: {err}"),
                )
                .file(path.clone()),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests;
