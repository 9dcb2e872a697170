//! IX011: tensors whose file changed (was truncated) while or before their data was read. Asked
//! after a data pass; the caller discards those tensors' results.

use super::Checkpoint;
use crate::shard::Shard;
use crate::{Code, Finding};
use std::collections::HashMap;

impl Checkpoint {
    /// An IX011 finding for each of `names` whose bytes lie (partly) past the point from which its
    /// shard no longer holds what it held when opened (see [`crate::shard::Shard::changed_from`]).
    /// Names that are not readable tensors are skipped. Checks each shard once.
    pub fn changed_tensors<S: AsRef<str>>(&self, names: &[S]) -> Vec<Finding> {
        // Nearly always nothing changed: then no name needs looking up (a million after a pass
        // over a large header). Each shard is asked at most once either way.
        let mut changed_from: HashMap<usize, Option<u64>> = HashMap::new();
        if names.len() > self.shards.len() {
            changed_from.extend(self.shards.iter().map(Shard::changed_from).enumerate());
            if changed_from.values().all(Option::is_none) {
                return Vec::new();
            }
        }
        let mut out = Vec::new();
        for name in names {
            let name = name.as_ref();
            let Some(location) = self.tensors.get(name) else {
                continue;
            };
            let Some((shard, entry)) = self.entry(name) else {
                continue;
            };
            let from = *changed_from
                .entry(location.shard)
                .or_insert_with(|| shard.changed_from());
            let (Some(from), Some((begin, end)), Some(data_start)) =
                (from, entry.range, shard.data_start())
            else {
                continue;
            };
            let start = data_start.saturating_add(begin);
            let stop = data_start.saturating_add(end);
            if from < stop {
                let offset = from.max(start);
                out.push(
                    Finding::new(Code::IX011, format!(
                            "the file shrank while it was being read: from byte offset {offset} \
                             this tensor's data is gone (now at most {from} bytes of the {} opened); \
                             its results are discarded",
                            shard.file_len
                        ),
                    )
                    .file(shard.path.clone())
                    .tensor(name)
                    .at(offset),
                );
            }
        }
        out
    }
}
