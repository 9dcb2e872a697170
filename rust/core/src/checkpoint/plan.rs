//! Which files to open: every `.safetensors` file of the set, or the shards the index names
//! (sorting out the missing ones, the ones that lead outside the checkpoint, and the strays).

use super::capped::Capped;
use super::contain::{escape_finding, is_plain_relative};
use super::index::{self, Index};
use super::{too_many_shards, FileSet, MAX_SHARDS};
use crate::error::Result;
use crate::{Code, Finding};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The outcome of planning.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// Files to open, in name order.
    pub open: Vec<PathBuf>,
    /// Shard names the index gives that do not exist.
    pub missing: BTreeSet<String>,
    /// Shard names the index gives that lead outside the checkpoint (IX010, never opened).
    pub escaped: BTreeSet<String>,
    /// Files in the directory the index never names.
    pub stray: Vec<PathBuf>,
    /// IX010 findings.
    pub findings: Vec<Finding>,
}

/// Plans the files to open; `exists` says whether a path names a file of the checkpoint. O(n log n)
/// in the number of index entries and files. An index naming more than [`MAX_SHARDS`] shards is
/// refused before any of them is looked at.
pub(super) fn plan_files(
    file_set: &FileSet,
    index: Option<&Index>,
    exists: &dyn Fn(&Path) -> bool,
) -> Result<Plan> {
    let Some(index) = index else {
        let mut plan = Plan::default();
        for path in &file_set.files {
            if !file_set.admits(path) {
                let shown = path.file_name().unwrap_or_default().to_string_lossy();
                plan.findings.push(escape_finding(path, "the link", &shown));
            } else {
                plan.open.push(path.clone());
            }
        }
        return Ok(plan);
    };
    let names = index::named_shards(index);
    if names.len() > MAX_SHARDS {
        return Err(too_many_shards(&index.path, "names", names.len()));
    }
    let base = index.path.parent().unwrap_or(&file_set.root);
    let mut plan = Plan::default();
    let mut named = BTreeSet::new();
    let mut escapes = Capped::new(&mut plan.findings);
    for name in names {
        let path = base.join(name);
        let inside = is_plain_relative(name) && file_set.admits(&path);
        if !inside {
            escapes.push(Code::IX010, &index.path, || {
                escape_finding(&index.path, "weight_map names the shard", name)
            });
            plan.escaped.insert(name.to_owned());
        } else if exists(&path) {
            named.insert(path.clone());
            plan.open.push(path);
        } else {
            plan.missing.insert(name.to_owned());
        }
    }
    escapes.finish();
    plan.stray = file_set
        .files
        .iter()
        .filter(|p| !named.contains(*p))
        .cloned()
        .collect();
    Ok(plan)
}
