//! `model.safetensors.index.json`: the parsed index (see `index_parse`), and reconciling it with
//! the shards' headers (`IX`) at a bounded cost per entry: one hash lookup each, and a finding
//! built only for the first [`super::capped::LISTED_PER_FILE`] of each code.

use super::capped::Capped;
pub use super::index_parse::{parse_index, read_index};
use super::plan::Plan;
use crate::shard::Shard;
use crate::{Code, Finding};
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The parts of an index file that matter here.
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// The index file.
    pub path: PathBuf,
    /// Tensor name -> shard file name (relative to the index's directory; each distinct name
    /// stored once, however many entries repeat it).
    pub weight_map: BTreeMap<String, Arc<str>>,
    /// `metadata.total_size`, when present and an integer.
    pub total_size: Option<u64>,
}

/// The shard files an index names, in name order.
pub fn named_shards(index: &Index) -> BTreeSet<&str> {
    index.weight_map.values().map(|f| &**f).collect()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Where each tensor name lives: the first shard holding it, and (rarely) the others.
struct Holders<'s> {
    first: HashMap<&'s str, (usize, bool)>,
    more: BTreeMap<&'s str, Vec<usize>>,
}

impl<'s> Holders<'s> {
    fn of(shards: &'s [Shard]) -> Self {
        let mut first = HashMap::new();
        let mut more: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (s, shard) in shards.iter().enumerate() {
            for entry in shard.header.iter().flat_map(|h| &h.tensors) {
                match first.entry(entry.name.as_str()) {
                    Entry::Vacant(slot) => {
                        slot.insert((s, false));
                    }
                    Entry::Occupied(held) => more
                        .entry(&entry.name)
                        .or_insert_with(|| vec![held.get().0])
                        .push(s),
                }
            }
        }
        Holders { first, more }
    }

    /// Every shard holding `name`, in shard order.
    fn all(&self, name: &str) -> Vec<usize> {
        match self.more.get(name) {
            Some(all) => all.clone(),
            None => self.first.get(name).map(|h| vec![h.0]).unwrap_or_default(),
        }
    }
}

/// IX001-IX006: reconciles the index with the shards that were opened. Linear in the number of
/// index entries and tensors (one hash lookup each), plus a sort of the names it reports.
pub(super) fn reconcile(index: &Index, shards: &[Shard], plan: &Plan, out: &mut Vec<Finding>) {
    if !plan.missing.is_empty() {
        let mut per_shard: HashMap<&str, usize> =
            plan.missing.iter().map(|m| (m.as_str(), 0)).collect();
        for file in index.weight_map.values() {
            if let Some(count) = per_shard.get_mut(&**file) {
                *count += 1;
            }
        }
        let mut capped = Capped::new(out);
        for name in &plan.missing {
            let count = per_shard[name.as_str()];
            capped.push(Code::IX001, &index.path, || {
                Finding::new(
                    Code::IX001,
                    format!("shard {name:?} named by the index ({count} tensors) does not exist"),
                )
                .file(index.path.clone())
            });
        }
        capped.finish();
    }
    let names: Vec<String> = shards.iter().map(|s| file_name(&s.path)).collect();
    let skipped: HashSet<&str> = plan
        .missing
        .iter()
        .chain(&plan.escaped)
        .map(String::as_str)
        .collect();
    let mut holders = Holders::of(shards);
    let mut capped = Capped::new(out);
    for (name, file) in &index.weight_map {
        if !skipped.is_empty() && skipped.contains(&**file) {
            continue;
        }
        let holds = |s: usize| names[s] == **file;
        let found = match holders.first.get_mut(name.as_str()) {
            Some(held) => {
                held.1 = true;
                holds(held.0)
                    || holders
                        .more
                        .get(name.as_str())
                        .is_some_and(|all| all.iter().any(|&s| holds(s)))
            }
            None => false,
        };
        if !found {
            let found_in: Vec<&str> = holders
                .all(name)
                .into_iter()
                .map(|s| names[s].as_str())
                .collect();
            capped.push(Code::IX002, &index.path, || {
                let elsewhere = if found_in.is_empty() {
                    String::new()
                } else {
                    format!(" (it is in {})", found_in.join(", "))
                };
                Finding::new(Code::IX002, format!("weight_map puts {name:?} in {file:?} but that shard has no such tensor{elsewhere}"))
                    .file(index.path.clone())
                    .tensor(name)
            });
        }
    }
    // Tensors stored twice (IX004) or missing from the index (IX003), in name order as a
    // loader would meet them (IX004 first for a name that is both).
    let mut reported: Vec<(&str, bool)> = holders.more.keys().map(|n| (*n, false)).collect();
    reported.extend(
        holders
            .first
            .iter()
            .filter(|(name, held)| !held.1 && !index.weight_map.contains_key(**name))
            .map(|(name, _)| (*name, true)),
    );
    reported.sort_unstable();
    for (name, unindexed) in reported {
        let all = holders.all(name);
        if unindexed {
            let path = &shards[all[0]].path;
            capped.push(Code::IX003, path, || {
                Finding::new(Code::IX003, format!("tensor {name:?} is in the shard but not in the index's weight_map; index-based loaders never load it"))
                    .file(path.clone())
                    .tensor(name)
            });
            continue;
        }
        let path = &shards[all[1]].path;
        capped.push(Code::IX004, path, || {
            let files: Vec<&str> = all.iter().map(|&s| names[s].as_str()).collect();
            Finding::new(
                Code::IX004,
                format!(
                    "tensor {name:?} is stored in {} shards: {}",
                    files.len(),
                    files.join(", ")
                ),
            )
            .file(path.clone())
            .tensor(name)
        });
    }
    capped.finish();
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
