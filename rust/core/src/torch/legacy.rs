//! The legacy format of `torch.save` (before torch 1.6, or `_use_new_zipfile_serialization=
//! False`): five pickles back to back (the magic number, the protocol version 1001, the system
//! info, the object, the list of storage keys), then each listed storage as an 8-byte
//! little-endian element count followed by its bytes. Every pickle runs through the restricted
//! machine (a hostile global in any of them is found); each storage's count must match the
//! pickle's, as `torch.load` checks. Also where every other pickle ends up: torch tries this
//! format on any file that is not a zip archive, and so does this reader.

use super::bytes::FileBytes;
use super::pickle::{self, Object, PersistentLoad, Refusal, Unpickled, Value, PICKLE_CAP};
use super::storage::{refusal_findings, Found, LegacyIds, Located};
use super::view::Base;
use super::{finding, Format};
use crate::finding::Finding;
use crate::Code;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::Path;

const FORMAT: Format = Format::TorchLegacy;

/// `torch.serialization.MAGIC_NUMBER` (0x1950a86a20f9469cfc6c) as pickle's LONG1 bytes.
const MAGIC: [u8; 10] = [0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19];
/// `torch.serialization.PROTOCOL_VERSION`.
const PROTOCOL_VERSION: i64 = 1001;
/// The first window a ranged read of a pickle fetches (grown fourfold until the pickle fits).
const FIRST_WINDOW: u64 = 64 << 10;

fn problem(code: Code, path: &Path, at: u64, message: impl std::fmt::Display) -> Finding {
    finding(code, FORMAT, path, message).at(at)
}

/// True for a POSIX tar archive (`ustar` at byte 257): torch's oldest format, which
/// `torch.load(weights_only=True)` refuses.
fn is_tar(bytes: &dyn FileBytes) -> bool {
    bytes.read(257, 5).is_ok_and(|magic| &*magic == b"ustar")
}

/// One pickle at `pos`: its result and its bytes. A mapped file lends the rest of the file
/// (capped); a ranged one is read in growing windows until the pickle's `STOP` is inside.
/// A pickle that ran, or why not; with the bytes it was read from either way.
type Ran<'b> = Result<(Unpickled, Cow<'b, [u8]>), (Refusal, Cow<'b, [u8]>)>;

fn run_at<L: PersistentLoad + Default>(bytes: &dyn FileBytes, pos: u64) -> Ran<'_> {
    let rest = bytes.len().saturating_sub(pos).min(PICKLE_CAP);
    let mut window = if bytes.is_mapped() {
        rest
    } else {
        rest.min(FIRST_WINDOW)
    };
    loop {
        let data = match bytes.read(pos, window) {
            Ok(data) => data,
            Err(why) => return Err((Refusal::Malformed { why, at: 0 }, Cow::Borrowed(&[]))),
        };
        let mut loader = L::default();
        match pickle::run(&data, &mut loader) {
            Ok(u) => return Ok((u, data)),
            Err(Refusal::Truncated { .. }) if window < rest => {
                window = window.saturating_mul(4).min(rest);
            }
            Err(Refusal::Truncated { at }) if rest == PICKLE_CAP => {
                let why = format!("longer than the {PICKLE_CAP}-byte cap");
                return Err((Refusal::Cap { why, at }, data));
            }
            Err(refusal) => return Err((refusal, data)),
        }
    }
}

/// Reads a legacy torch file up to its storages' locations.
pub fn read(bytes: &dyn FileBytes, path: &Path, out: &mut Vec<Finding>) -> Option<Found> {
    if is_tar(bytes) {
        out.push(problem(
            Code::PT001,
            path,
            0,
            "a tar archive (torch's format before 0.4): torch.load(weights_only=True) refuses it",
        ));
        return None;
    }
    let mut pos = 0u64;
    let (magic, _) = step::<LegacyIds>(bytes, path, &mut pos, "the pickle", out)?;
    if !matches!(&magic.root, Value::BigInt(b) if **b == MAGIC) {
        out.push(problem(Code::PT010, path,
            0,
            "a pickle, but not a torch.save file: it does not start with torch's magic number (torch.load refuses it: \"Invalid magic number\")",
        ));
        return None;
    }
    let proto_at = pos;
    let (proto, _) = step::<LegacyIds>(bytes, path, &mut pos, "the protocol version", out)?;
    if proto.root != Value::Int(PROTOCOL_VERSION) {
        out.push(problem(
            Code::PT010,
            path,
            proto_at,
            format!("the protocol version is not {PROTOCOL_VERSION}: torch.load refuses the file"),
        ));
        return None;
    }
    step::<LegacyIds>(bytes, path, &mut pos, "the system info", out)?;
    let main_at = pos;
    let (unpickled, data) = step::<LegacyIds>(bytes, path, &mut pos, "the pickle", out)?;
    let pickle_len = data.len() as u64;
    drop(data);
    let keys_at = pos;
    let (keys, _) = step::<LegacyIds>(bytes, path, &mut pos, "the storage key list", out)?;
    let located = storages(bytes, path, &unpickled, &keys, keys_at, pos, main_at, out)?;
    Some(Found {
        unpickled,
        located,
        swap: false,
        pickle_base: Some(main_at),
        pickle_len,
        fallback_at: main_at,
    })
}

/// Runs the pickle at `*pos`, moving `*pos` past it; a refusal becomes findings.
fn step<'b, L: PersistentLoad + Default>(
    bytes: &'b dyn FileBytes,
    path: &Path,
    pos: &mut u64,
    what: &str,
    out: &mut Vec<Finding>,
) -> Option<(Unpickled, Cow<'b, [u8]>)> {
    let base = *pos;
    match run_at::<L>(bytes, base) {
        Ok((u, data)) => {
            *pos = base + u.end as u64;
            Some((u, data))
        }
        Err((refusal, data)) => {
            let offset = |at: usize| base.saturating_add(at as u64);
            out.extend(refusal_findings(
                &refusal, &data, FORMAT, path, &offset, what,
            ));
            None
        }
    }
}

/// Walks the storage records in key-list order from `pos`, checking each count against the
/// pickle; returns where each persistent id's bytes are.
#[allow(clippy::too_many_arguments)]
fn storages(
    bytes: &dyn FileBytes,
    path: &Path,
    unpickled: &Unpickled,
    keys: &Unpickled,
    keys_at: u64,
    mut pos: u64,
    main_at: u64,
    out: &mut Vec<Finding>,
) -> Option<Vec<Option<Located>>> {
    let Some(list) = key_list(keys) else {
        out.push(problem(
            Code::PT010,
            path,
            keys_at,
            "the storage key list is not a list of keys: torch.load refuses the file",
        ));
        return None;
    };
    let mut roots: HashMap<&str, (u64, u64)> = HashMap::new(); // key -> (elsize, numel)
    for s in &unpickled.storages {
        let elsize = s.dtype.elsize.unwrap_or(1);
        roots.entry(s.key.as_str()).or_insert((elsize, s.numel));
    }
    let mut starts: HashMap<String, u64> = HashMap::new();
    for key in &list {
        let Some(&(elsize, numel)) = roots.get(key.as_str()) else {
            out.push(problem(
                Code::PT010,
                path,
                keys_at,
                format!("the key list names the storage {key:?}, which the pickle never loads"),
            ));
            return None;
        };
        let count = match bytes.read(pos, 8) {
            Ok(b) => i64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8])),
            Err(why) => {
                out.push(problem(
                    Code::PT010,
                    path,
                    pos,
                    format!("storage {key:?}: {why}"),
                ));
                return None;
            }
        };
        // A storage a view grew (torch resizes legacy storages in `Tensor.set_`) must hold
        // the grown size in the file, as torch's `_set_from_file` compares with it.
        let grown = unpickled.grown.get(key.as_str()).copied().unwrap_or(0);
        let want = numel.checked_mul(elsize).map(|w| w.max(grown));
        let have = u64::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(elsize));
        if want != have {
            out.push(problem(Code::PT010, path,
                pos,
                format!(
                    "storage {key:?} holds {count} elements in the file, the pickle says {numel}{}: torch.load refuses it (\"storage has wrong byte size\")",
                    if grown > numel.saturating_mul(elsize) { format!(" and a view grows it to {grown} bytes") } else { String::new() }
                ),
            ));
            return None;
        }
        let nbytes = have.unwrap_or(0);
        let start = pos + 8;
        if start.checked_add(nbytes).is_none_or(|e| e > bytes.len()) {
            out.push(problem(
                Code::PT010,
                path,
                pos,
                format!("storage {key:?}'s {nbytes} bytes run past the end of the file: cut short"),
            ));
            return None;
        }
        starts.insert(key.clone(), start);
        pos = start + nbytes;
    }
    let mut unread = HashSet::new();
    let located = unpickled
        .storages
        .iter()
        .map(|s| {
            let Some(&root) = starts.get(&s.key) else {
                unread.insert(s.key.clone());
                return None;
            };
            let offset = s.root_offset()?;
            if let Some((_, vo, vs)) = &s.view {
                let (_, numel) = roots[s.key.as_str()];
                if vo.checked_add(*vs).is_none_or(|e| e > numel) {
                    out.push(problem(
                        Code::PT010,
                        path,
                        main_at.saturating_add(s.at as u64),
                        format!("a view of storage {:?} runs past its end", s.key),
                    ));
                    return None;
                }
            }
            Some(Located {
                base: Base::File,
                start: root + offset,
            })
        })
        .collect();
    let mut unread: Vec<String> = unread.into_iter().collect();
    unread.sort();
    for key in unread {
        out.push(problem(Code::PT010, path,
            keys_at,
            format!(
                "the pickle loads the storage {key:?} but the file holds no data for it (torch would leave it uninitialized)"
            ),
        ));
    }
    Some(located)
}

/// The keys of the key-list pickle (a list or tuple of strings).
fn key_list(keys: &Unpickled) -> Option<Vec<String>> {
    let Value::Obj(id) = &keys.root else {
        return None;
    };
    let items = match keys.arena.get(*id)? {
        Object::List(v) | Object::Tuple(v) => v,
        _ => return None,
    };
    items
        .iter()
        .map(|k| match k {
            Value::Str(s) => Some(s.to_string()),
            Value::Int(i) => Some(i.to_string()),
            _ => None,
        })
        .collect()
}
