//! `model.safetensors.index.json`: parsing, and reconciling it with the shards' headers (`IX`).

use super::plan::Plan;
use crate::shard::Shard;
use crate::{Code, Finding};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The parts of an index file that matter here.
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// The index file.
    pub path: PathBuf,
    /// Tensor name -> shard file name (relative to the index's directory).
    pub weight_map: BTreeMap<String, String>,
    /// `metadata.total_size`, when present and an integer.
    pub total_size: Option<u64>,
}

/// Reads and parses an index file; problems are IX007 findings and give `None`.
pub fn read_index(path: &Path, findings: &mut Vec<Finding>) -> Option<Index> {
    match crate::regular::read_capped_text(path, crate::regular::INDEX_CAP) {
        Ok(text) => parse_index(path, &text, findings),
        Err(err) => {
            let why = format!("cannot read the sharding index: {err}");
            findings.push(Finding::new(Code::IX007, why).file(path));
            None
        }
    }
}

/// Parses the text of the index file `path`; problems are IX007 findings and give `None`.
pub fn parse_index(path: &Path, text: &str, findings: &mut Vec<Finding>) -> Option<Index> {
    let fail = |findings: &mut Vec<Finding>, why: String| {
        findings.push(Finding::new(Code::IX007, why).file(path));
        None
    };
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(err) => return fail(findings, format!("sharding index is not valid JSON: {err}")),
    };
    let Some(map) = value.get("weight_map").and_then(|m| m.as_object()) else {
        return fail(
            findings,
            "sharding index has no \"weight_map\" object".into(),
        );
    };
    let mut weight_map = BTreeMap::new();
    for (name, file) in map {
        match file.as_str() {
            Some(file) => {
                weight_map.insert(name.clone(), file.to_owned());
            }
            None => findings.push(
                Finding::new(
                    Code::IX007,
                    format!("weight_map[{name:?}] is {file}, not a file name"),
                )
                .file(path)
                .tensor(name),
            ),
        }
    }
    let total_size = value
        .pointer("/metadata/total_size")
        .and_then(serde_json::Value::as_u64);
    Some(Index {
        path: path.to_owned(),
        weight_map,
        total_size,
    })
}

/// The shard files an index names, in name order.
pub fn named_shards(index: &Index) -> BTreeSet<&str> {
    index.weight_map.values().map(String::as_str).collect()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// IX001-IX006: reconciles the index with the shards that were opened. O(n log n) in the
/// number of index entries, tensors and files.
pub(super) fn reconcile(index: &Index, shards: &[Shard], plan: &Plan, out: &mut Vec<Finding>) {
    let mut per_shard: BTreeMap<&str, usize> = BTreeMap::new();
    for file in index.weight_map.values() {
        *per_shard.entry(file.as_str()).or_default() += 1;
    }
    for name in &plan.missing {
        let count = per_shard.get(name.as_str()).copied().unwrap_or(0);
        out.push(
            Finding::new(
                Code::IX001,
                format!("shard {name:?} named by the index ({count} tensors) does not exist"),
            )
            .file(index.path.clone()),
        );
    }
    let mut holders: BTreeMap<&str, Vec<&Shard>> = BTreeMap::new();
    for shard in shards {
        for entry in shard.header.iter().flat_map(|h| &h.tensors) {
            holders.entry(&entry.name).or_default().push(shard);
        }
    }
    for (name, file) in &index.weight_map {
        if plan.missing.contains(file) || plan.escaped.contains(file) {
            continue;
        }
        let found_in: Vec<String> = holders
            .get(name.as_str())
            .map_or_else(Vec::new, |v| v.iter().map(|s| file_name(&s.path)).collect());
        if !found_in.contains(file) {
            let elsewhere = if found_in.is_empty() {
                String::new()
            } else {
                format!(" (it is in {})", found_in.join(", "))
            };
            out.push(
                Finding::new(Code::IX002, format!("weight_map puts {name:?} in {file:?} but that shard has no such tensor{elsewhere}"))
                    .file(index.path.clone())
                    .tensor(name),
            );
        }
    }
    for (name, in_shards) in &holders {
        if in_shards.len() > 1 {
            let files: Vec<String> = in_shards.iter().map(|s| file_name(&s.path)).collect();
            out.push(
                Finding::new(
                    Code::IX004,
                    format!(
                        "tensor {name:?} is stored in {} shards: {}",
                        files.len(),
                        files.join(", ")
                    ),
                )
                .file(in_shards[1].path.clone())
                .tensor(*name),
            );
        }
        if !index.weight_map.contains_key(*name) {
            out.push(
                Finding::new(Code::IX003, format!("tensor {name:?} is in the shard but not in the index's weight_map; index-based loaders never load it"))
                    .file(in_shards[0].path.clone())
                    .tensor(*name),
            );
        }
    }
    for path in &plan.stray {
        out.push(
            Finding::new(Code::IX005, format!("{} is in the checkpoint directory but the index never names it (stray or duplicate shard?)", file_name(path)))
                .file(path.clone()),
        );
    }
    check_total_size(index, shards, out);
}

fn check_total_size(index: &Index, shards: &[Shard], out: &mut Vec<Finding>) {
    let Some(total) = index.total_size else {
        return;
    };
    let tensor_bytes: u64 = shards
        .iter()
        .flat_map(|s| s.header.iter().flat_map(|h| &h.tensors))
        .filter_map(|t| t.nbytes())
        .fold(0u64, u64::saturating_add);
    let file_bytes: u64 = shards
        .iter()
        .map(|s| s.file_len)
        .fold(0u64, u64::saturating_add);
    if total != tensor_bytes && total != file_bytes {
        out.push(
            Finding::new(Code::IX006, format!("metadata.total_size is {total}, matching neither the tensor bytes ({tensor_bytes}) nor the shard file sizes ({file_bytes})"),
            )
            .file(index.path.clone()),
        );
    }
}
