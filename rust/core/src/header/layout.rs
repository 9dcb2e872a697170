//! Data-section layout: ranges against the file end, overlaps, holes, trailing bytes, alignment.

use super::Header;
use crate::{Code, Finding};
use std::path::Path;

/// Sweeps the tensor ranges in offset order (as the reference does) and marks readable entries.
pub(super) fn check_ranges(
    header: &mut Header,
    file_len: u64,
    path: &Path,
    out: &mut Vec<Finding>,
) {
    let data_start = header.data_start;
    let data_len = file_len.saturating_sub(data_start);
    if !data_start.is_multiple_of(8) {
        out.push(
            Finding::new(Code::ST019, format!(
                    "data section starts at byte {data_start}, not a multiple of 8 (the reference writer pads the header to 8; zero-copy loaders may need to copy)"
                ),
            )
            .file(path)
            .at(data_start),
        );
    }
    let mut order: Vec<usize> = (0..header.tensors.len())
        .filter(|&i| header.tensors[i].range.is_some())
        .collect();
    order.sort_by_key(|&i| header.tensors[i].range);
    let mut covered_to = 0u64;
    let mut last_name: Option<&str> = None;
    for &i in &order {
        let entry = &header.tensors[i];
        let Some((begin, end)) = entry.range else {
            continue;
        };
        let abs = data_start.saturating_add(begin);
        if end < begin {
            out.push(
                Finding::new(
                    Code::ST014,
                    format!("data_offsets [{begin}, {end}] end before they begin"),
                )
                .file(path)
                .tensor(&entry.name)
                .at(abs),
            );
            continue;
        }
        if end > data_len {
            out.push(
                Finding::new(Code::ST015, format!(
                        "data [{begin}, {end}) ends {} bytes past the end of the file (data section is {data_len} bytes): file truncated?",
                        end - data_len
                    ),
                )
                .file(path)
                .tensor(&entry.name)
                .at(data_start.saturating_add(end.min(data_len))),
            );
        }
        if begin < covered_to {
            let other = last_name.unwrap_or("?");
            out.push(
                Finding::new(Code::ST016, format!("data [{begin}, {end}) overlaps the range of {other:?} (which ends at {covered_to})"),
                )
                .file(path)
                .tensor(&entry.name)
                .at(abs),
            );
        } else if begin > covered_to {
            out.push(
                Finding::new(Code::ST017, format!("{} unindexed bytes [{covered_to}, {begin}) before this tensor (holes are forbidden: polyglot files)", begin - covered_to),
                )
                .file(path)
                .tensor(&entry.name)
                .at(data_start.saturating_add(covered_to)),
            );
        }
        if end >= covered_to {
            covered_to = end;
            last_name = Some(&entry.name);
        }
    }
    if covered_to < data_len {
        out.push(
            Finding::new(Code::ST018, format!("{} trailing bytes after the last tensor (data ends at {covered_to}, file data section is {data_len} bytes)", data_len - covered_to),
            )
            .file(path)
            .at(data_start.saturating_add(covered_to)),
        );
    }
    mark_readable(header, data_len, path, out);
}

/// A tensor is readable when its dtype, shape and range agree and lie inside the file. Also
/// reports (info) readable tensors whose absolute offset is not a multiple of their alignment.
fn mark_readable(header: &mut Header, data_len: u64, path: &Path, out: &mut Vec<Finding>) {
    let data_start = header.data_start;
    for entry in &mut header.tensors {
        let (Some(dtype), Some((begin, end)), Some(numel)) =
            (entry.dtype, entry.range, entry.numel())
        else {
            continue;
        };
        entry.readable =
            end >= begin && end <= data_len && dtype.byte_len(numel) == Some(end - begin);
        let abs = data_start.saturating_add(begin);
        let align = dtype.alignment();
        if entry.readable && end > begin && abs % align != 0 {
            out.push(
                Finding::new(Code::ST020, format!("data starts at byte {abs}, not a multiple of the {align}-byte {dtype} element size: zero-copy typed views need a copy"),
                )
                .file(path)
                .tensor(&entry.name)
                .at(abs),
            );
        }
    }
}
