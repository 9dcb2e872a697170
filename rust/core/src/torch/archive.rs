//! The zip format of `torch.save` (torch >= 1.6), checked as `torch.load` checks it: every
//! record under one folder (`<name>/`), a `version` record from 1 to 10 (`.data/version` first),
//! no TorchScript `constants.pkl`, a `byteorder` record (when present) of `little` or `big`,
//! `data.pkl` run through the restricted machine, and each storage's `data/<key>` record
//! holding exactly the bytes the pickle declares. Records are stored (zero-copy) or deflated
//! (inflated on read); any other compression, or encryption, is refused.
//!
//! Every record torch extracts is checked as its zip reader (miniz) checks it before handing
//! the bytes over: besides those above, `.data/serialization_id` and `.format_version` (read,
//! not interpreted) and `.storage_alignment` (which must be an integer to Python's `int()`).
//! A record with data needs its local header (signature, name and extra lengths) and its data
//! inside the file; an empty record is never looked at past its directory entry; CRCs and the
//! local header's sizes, method and flags are not checked (torch builds miniz without its
//! reader's CRC checks). Each rule was found by running `torch.load` on archives that differ
//! from a `torch.save` one in that byte alone (`docs/torch-pickle.md`).

use super::bytes::FileBytes;
use super::pickle::{self, PICKLE_CAP};
use super::storage::{refusal_findings, Found, Located, ZipIds};
use super::view::{check_inflates, inflate, Base};
use super::zip::{self, Entry};
use super::{finding, Format};
use crate::finding::Finding;
use crate::Code;
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

const FORMAT: Format = Format::TorchZip;

/// The newest archive version torch 2.15 reads (`kMaxSupportedFileFormatVersion`).
pub const MAX_VERSION: u64 = 10;

fn problem(code: Code, path: &Path, at: u64, message: impl std::fmt::Display) -> Finding {
    finding(code, FORMAT, path, message).at(at)
}

/// The records of one archive, by name under its folder, in ASCII lower case: torch's zip
/// reader (miniz, asked without `MZ_ZIP_FLAG_CASE_SENSITIVE`) finds `DATA.pkl` as `data.pkl`.
struct Records<'e> {
    prefix: String,
    by_name: HashMap<String, &'e Entry>,
}

fn records<'e>(entries: &'e [Entry], path: &Path, out: &mut Vec<Finding>) -> Option<Records<'e>> {
    let first = entries.first()?;
    let Some((prefix, _)) = first.name.split_once('/') else {
        out.push(problem(
            Code::PT004,
            path,
            first.at,
            format!(
                "{:?} is not in a folder: not a torch.save archive",
                first.name
            ),
        ));
        return None;
    };
    let prefix = format!("{prefix}/");
    let mut by_name = HashMap::new();
    for entry in entries {
        // As torch's PyTorchStreamReader: every record lies in the first one's folder.
        let Some(name) = entry.name.strip_prefix(&prefix) else {
            out.push(problem(
                Code::PT004,
                path,
                entry.at,
                format!(
                    "{:?} is not in the archive's folder {prefix:?}: torch refuses the archive",
                    entry.name
                ),
            ));
            return None;
        };
        if by_name.insert(name.to_ascii_lowercase(), entry).is_some() {
            out.push(problem(
                Code::PT002,
                path,
                entry.at,
                format!(
                    "the record {:?} appears twice (torch's zip reader matches names regardless of case): readers may take either copy",
                    entry.name
                ),
            ));
            return None;
        }
    }
    Some(Records { prefix, by_name })
}

/// The bytes of a small record (version, byteorder, data.pkl), inflated when deflated.
fn record_bytes<'b>(
    bytes: &'b dyn FileBytes,
    entry: &Entry,
    cap: u64,
    path: &Path,
    out: &mut Vec<Finding>,
) -> Option<(Cow<'b, [u8]>, Option<u64>)> {
    let start = check_entry(bytes, entry, path, out)?;
    if entry.size > cap {
        out.push(problem(
            Code::PT008,
            path,
            entry.local,
            format!(
                "the record {:?} is {} bytes, over the {cap}-byte cap; not read",
                entry.name, entry.size
            ),
        ));
        return None;
    }
    let raw = match bytes.read(start, entry.compressed) {
        Ok(raw) => raw,
        Err(why) => {
            out.push(problem(Code::PT002, path, start, why));
            return None;
        }
    };
    if entry.method == 0 {
        return Some((raw, Some(start)));
    }
    match inflate(&raw, entry.size) {
        Ok(plain) => Some((Cow::Owned(plain), None)),
        Err(why) => {
            out.push(problem(
                Code::PT003,
                path,
                start,
                format!("{:?}: {why}", entry.name),
            ));
            None
        }
    }
}

/// Where an entry's data starts, after the checks every record gets.
fn check_entry(
    bytes: &dyn FileBytes,
    entry: &Entry,
    path: &Path,
    out: &mut Vec<Finding>,
) -> Option<u64> {
    if entry.encrypted() {
        out.push(problem(
            Code::PT003,
            path,
            entry.at,
            format!("the record {:?} is encrypted; not read", entry.name),
        ));
        return None;
    }
    if entry.patch() {
        out.push(problem(
            Code::PT003,
            path,
            entry.at,
            format!(
                "the record {:?} is a compressed patch; not read",
                entry.name
            ),
        ));
        return None;
    }
    if entry.method != 0 && entry.method != 8 {
        out.push(problem(
            Code::PT003,
            path,
            entry.at,
            format!(
                "the record {:?} uses compression method {}, which this reader does not read",
                entry.name, entry.method
            ),
        ));
        return None;
    }
    if entry.method == 0 && entry.compressed != entry.size {
        out.push(problem(
            Code::PT002,
            path,
            entry.at,
            format!(
                "the stored record {:?} declares {} bytes compressed but {} uncompressed",
                entry.name, entry.compressed, entry.size
            ),
        ));
        return None;
    }
    if entry.compressed == 0 {
        // miniz returns an empty record before it reads the local header.
        return Some(entry.local.min(bytes.len()));
    }
    match zip::data_start(bytes, entry) {
        Ok(start) => Some(start),
        Err(e) => {
            out.push(problem(Code::PT002, path, e.at, e.why));
            None
        }
    }
}

/// Checks that a deflated record whose data starts at `start` inflates to its declared size.
fn check_inflates_at(
    bytes: &dyn FileBytes,
    entry: &Entry,
    start: u64,
    path: &Path,
    out: &mut Vec<Finding>,
) -> Option<()> {
    let checked = bytes
        .read(start, entry.compressed)
        .and_then(|raw| check_inflates(&raw, entry.size));
    if let Err(why) = checked {
        out.push(problem(
            Code::PT003,
            path,
            start,
            format!("{}: {why}", entry.name),
        ));
        return None;
    }
    Some(())
}

/// Whether a record's text is what torch parses it as.
type TextCheck = fn(&[u8]) -> bool;

/// The records torch extracts besides `version`, `byteorder`, `data.pkl` and the storages:
/// `.format_version`, read and not interpreted (torch does not even notice a deflated one
/// that does not inflate); `.data/serialization_id`, which torch decodes as UTF-8 text; and
/// `.storage_alignment`, parsed with Python's `int()`.
fn check_side_records(
    bytes: &dyn FileBytes,
    recs: &Records<'_>,
    path: &Path,
    out: &mut Vec<Finding>,
) -> Option<()> {
    if let Some(entry) = recs.by_name.get(".format_version") {
        check_entry(bytes, entry, path, out)?;
    }
    let checks: [(&str, TextCheck, &str); 2] = [
        (
            ".data/serialization_id",
            |t| std::str::from_utf8(t).is_ok(),
            "UTF-8 text",
        ),
        (
            ".storage_alignment",
            python_int,
            "an integer to Python's int()",
        ),
    ];
    for (name, valid, what) in checks {
        let Some(entry) = recs.by_name.get(name) else {
            continue;
        };
        let (text, _) = record_bytes(bytes, entry, 64 << 10, path, out)?;
        if !valid(&text) {
            out.push(problem(
                Code::PT004,
                path,
                entry.local,
                format!(
                    "the record {:?} holds {:?}, not {what}: torch.load refuses the archive",
                    entry.name,
                    String::from_utf8_lossy(&text)
                ),
            ));
            return None;
        }
    }
    Some(())
}

/// Whether Python's `int()` parses `text`: ASCII whitespace around an optional sign and decimal
/// digits, single underscores only between digits, at most 4300 digits (`int_max_str_digits`).
fn python_int(text: &[u8]) -> bool {
    let space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let Some(first) = text.iter().position(|b| !space(b)) else {
        return false;
    };
    let last = text.iter().rposition(|b| !space(b)).unwrap_or(first);
    let mut body = &text[first..=last];
    if let [b'+' | b'-', rest @ ..] = body {
        body = rest;
    }
    let digits = body.iter().filter(|b| b.is_ascii_digit()).count();
    let well_formed = body
        .split(|&b| b == b'_')
        .all(|run| !run.is_empty() && run.iter().all(u8::is_ascii_digit));
    well_formed && digits <= 4300
}

/// `std::stoull`: leading whitespace, then digits (what `torch.load` parses a version with).
fn parse_version(text: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(text).ok()?;
    let digits: String = s
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

fn check_version(
    bytes: &dyn FileBytes,
    recs: &Records<'_>,
    path: &Path,
    out: &mut Vec<Finding>,
) -> Option<()> {
    let Some(entry) = recs
        .by_name
        .get(".data/version")
        .or_else(|| recs.by_name.get("version"))
    else {
        out.push(problem(
            Code::PT004,
            path,
            0,
            format!("no {}version record: not a torch.save archive", recs.prefix),
        ));
        return None;
    };
    let (text, _) = record_bytes(bytes, entry, 4096, path, out)?;
    match parse_version(&text) {
        Some(v) if (1..=MAX_VERSION).contains(&v) => Some(()),
        Some(v) => {
            out.push(problem(
                Code::PT004,
                path,
                entry.local,
                format!("archive version {v}: torch reads versions 1 to {MAX_VERSION}"),
            ));
            None
        }
        None => {
            out.push(problem(
                Code::PT004,
                path,
                entry.local,
                format!(
                    "the version record {:?} is not a number",
                    String::from_utf8_lossy(&text)
                ),
            ));
            None
        }
    }
}

/// `Some(swap)` from the `byteorder` record (little-endian when absent, as torch assumes).
fn byte_order(
    bytes: &dyn FileBytes,
    recs: &Records<'_>,
    path: &Path,
    out: &mut Vec<Finding>,
) -> Option<bool> {
    let Some(entry) = recs.by_name.get("byteorder") else {
        return Some(false);
    };
    let (text, _) = record_bytes(bytes, entry, 4096, path, out)?;
    match &*text {
        b"little" => Some(false),
        b"big" => {
            out.push(
                finding(
                    Code::PT015, FORMAT,
                    path,
                    "the archive was written big-endian (byteorder \"big\"): every element's bytes are swapped on read",
                )
                .at(entry.local),
            );
            Some(true)
        }
        other => {
            out.push(problem(
                Code::PT004,
                path,
                entry.local,
                format!(
                    "the byteorder record says {:?}, neither \"little\" nor \"big\"",
                    String::from_utf8_lossy(other)
                ),
            ));
            None
        }
    }
}

/// Reads a zip torch archive up to its storages' locations.
pub fn read(bytes: &dyn FileBytes, path: &Path, out: &mut Vec<Finding>) -> Option<Found> {
    let entries = match zip::read_directory(bytes) {
        Ok(entries) => entries,
        Err(e) => {
            out.push(problem(Code::PT002, path, e.at, e.why));
            return None;
        }
    };
    let refused = |out: &mut Vec<Finding>| {
        scan_pickles(bytes, &entries, path, out);
        None
    };
    let Some(recs) = records(&entries, path, out) else {
        return refused(out);
    };
    if recs.by_name.contains_key("constants.pkl") {
        out.push(problem(Code::PT004, path,
            0,
            "a TorchScript archive (it has constants.pkl): torch.load(weights_only=True) refuses it; load it with torch.jit.load",
        ));
        return refused(out);
    }
    if check_version(bytes, &recs, path, out).is_none() {
        return refused(out);
    }
    let Some(swap) = byte_order(bytes, &recs, path, out) else {
        return refused(out);
    };
    if check_side_records(bytes, &recs, path, out).is_none() {
        return refused(out);
    }
    let Some(pkl) = recs.by_name.get("data.pkl") else {
        out.push(problem(
            Code::PT004,
            path,
            0,
            format!(
                "no {}data.pkl record: not a torch.save archive",
                recs.prefix
            ),
        ));
        return None;
    };
    let (data, base) = record_bytes(bytes, pkl, PICKLE_CAP, path, out)?;
    let fallback_at = pkl.local;
    let offset = |at: usize| base.map_or(fallback_at, |b| b.saturating_add(at as u64));
    let unpickled = match pickle::run(&data, &mut ZipIds::default()) {
        Ok(u) => u,
        Err(refusal) => {
            let what = format!("{} (data.pkl)", "the pickle");
            out.extend(refusal_findings(
                &refusal, &data, FORMAT, path, &offset, &what,
            ));
            return None;
        }
    };
    let located = locate(bytes, &recs, &unpickled.storages, path, &offset, out);
    Some(Found {
        pickle_len: data.len() as u64,
        unpickled,
        located,
        swap,
        pickle_base: base,
        fallback_at,
    })
}

/// The globals every `.pkl` record of a refused archive would import, found by walking each
/// pickle without running it (what a scanner reports of an archive torch refuses to open).
fn scan_pickles(bytes: &dyn FileBytes, entries: &[Entry], path: &Path, out: &mut Vec<Finding>) {
    for entry in entries.iter().filter(|e| e.name.ends_with(".pkl")) {
        let mut quiet = Vec::new();
        let Some((data, base)) = record_bytes(bytes, entry, PICKLE_CAP, path, &mut quiet) else {
            continue;
        };
        for (name, pos) in pickle::globals_after(&data, 0, 16) {
            let at = base.map_or(entry.local, |b| b.saturating_add(pos as u64));
            let code = if name.starts_with("opcode ") {
                Code::PT006
            } else {
                Code::PT005
            };
            let message = format!(
                "the pickle {:?} would import {name} at byte offset {at} (found by walking its opcodes without running them; the archive itself is refused)",
                entry.name
            );
            out.push(finding(code, FORMAT, path, message).at(at));
        }
    }
}

/// Each storage's record `data/<key>`, which must hold exactly `numel * element size` bytes.
fn locate(
    bytes: &dyn FileBytes,
    recs: &Records<'_>,
    storages: &[pickle::StorageRef],
    path: &Path,
    offset: &dyn Fn(usize) -> u64,
    out: &mut Vec<Finding>,
) -> Vec<Option<Located>> {
    let mut seen: HashMap<&str, Option<Located>> = HashMap::new();
    storages
        .iter()
        .map(|s| {
            let name = format!("data/{}", s.key);
            let Some(entry) = recs.by_name.get(&name.to_ascii_lowercase()) else {
                out.push(problem(Code::PT009, path,
                    offset(s.at),
                    format!("the pickle names the storage {}{name}, which the archive does not hold", recs.prefix),
                ));
                return None;
            };
            let want = s.nbytes().unwrap_or(0);
            if entry.size != want {
                out.push(problem(Code::PT009, path,
                    entry.local,
                    format!(
                        "the record {} holds {} bytes, but the pickle declares {} elements of torch.{} ({want} bytes)",
                        entry.name, entry.size, s.numel, s.dtype.name
                    ),
                ));
                return None;
            }
            if let Some(known) = seen.get(s.key.as_str()) {
                return known.clone();
            }
            // An empty record is empty whatever its method says (miniz returns it unread).
            let stored = entry.method == 0 || entry.compressed == 0;
            let located = check_entry(bytes, entry, path, out).and_then(|start| {
                if stored {
                    return Some(Located {
                        base: Base::File,
                        start,
                    });
                }
                check_inflates_at(bytes, entry, start, path, out)?;
                Some(Located {
                    base: Base::Deflated {
                        at: start,
                        compressed: entry.compressed,
                        size: entry.size,
                    },
                    start: 0,
                })
            });
            seen.insert(&s.key, located.clone());
            located
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{parse_version, python_int};

    #[test]
    fn versions_parse_as_stoull_does() {
        assert_eq!(parse_version(b"3\n"), Some(3));
        assert_eq!(parse_version(b" 3"), Some(3));
        assert_eq!(parse_version(b"3x"), Some(3));
        assert_eq!(parse_version(b"x"), None);
        assert_eq!(parse_version(b""), None);
    }

    #[test]
    fn storage_alignments_parse_as_python_int_does() {
        for good in [
            &b"64"[..],
            b" 64\n",
            b"+64",
            b"-1",
            b"0064",
            b"6_4",
            b"\t\x0b\x0c\r64",
        ] {
            assert!(python_int(good), "{good:?}");
        }
        for bad in [
            &b""[..],
            b" ",
            b"6 4",
            b"_64",
            b"64_",
            b"6__4",
            b"0x40",
            b"64\0",
            b"+",
            b"\xff",
        ] {
            assert!(!python_int(bad), "{bad:?}");
        }
        assert!(python_int(&[b'7'; 4300]));
        assert!(!python_int(&[b'7'; 4301]));
    }
}
