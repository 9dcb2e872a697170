//! What the zip and legacy readers share: the persistent ids each format's `torch.load` hook
//! accepts, where each storage's bytes lie, and the findings for a pickle the machine refused.

use super::pickle::globals::{Global, StorageClass};
use super::pickle::{self, Arena, Refusal, StorageRef, Unpickled, Value};
use super::view::Base;
use super::{dtypes, finding, Format};
use crate::finding::Finding;
use crate::Code;
use std::collections::HashMap;
use std::path::Path;

/// Where a storage's bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The file, or a deflated record.
    pub base: Base,
    /// Offset of the storage's first byte in the base.
    pub start: u64,
}

/// A torch file whose pickle ran to its end.
#[derive(Debug)]
pub struct Found {
    /// The unpickled state dict (or whatever the file holds).
    pub unpickled: Unpickled,
    /// Per storage of `unpickled.storages`: where its bytes are (`None`: not readable, and a
    /// finding already says why).
    pub located: Vec<Option<Located>>,
    /// True for a big-endian file: every element's bytes are reversed on read.
    pub swap: bool,
    /// Absolute offset of the pickle's first byte, when the pickle is stored as it is.
    pub pickle_base: Option<u64>,
    /// The pickle's length.
    pub pickle_len: u64,
    /// Where findings without a better place point (the pickle's record).
    pub fallback_at: u64,
}

impl Found {
    /// The absolute file offset of pickle offset `at` (the record's, for a deflated pickle).
    pub fn file_offset(&self, at: usize) -> u64 {
        self.pickle_base
            .map_or(self.fallback_at, |b| b.saturating_add(at as u64))
    }
}

fn text(value: &Value) -> Option<String> {
    match value {
        Value::Str(s) => Some(s.to_string()),
        Value::Bytes(b) => std::str::from_utf8(b).ok().map(str::to_owned),
        Value::Int(i) => Some(i.to_string()),
        _ => None,
    }
}

/// The dtype of a persistent id's storage class. Only the zip hook reads `UntypedStorage` (as
/// bytes); the legacy hook asks the class for its dtype, which `UntypedStorage` lacks.
fn storage_dtype(class: &Value, untyped: bool) -> Result<dtypes::TorchDtype, String> {
    match class {
        Value::Global(Global::Storage(StorageClass::Typed(d))) => Ok(*d),
        Value::Global(Global::Storage(StorageClass::Untyped)) if untyped => Ok(dtypes::untyped()),
        Value::Global(g) => Err(format!("{} is not a storage type", g.name())),
        _ => Err("the persistent id's storage type is not a storage class".into()),
    }
}

fn numel(value: &Value) -> Result<u64, String> {
    match value {
        Value::Int(n) if *n >= 0 => Ok(*n as u64),
        _ => Err("the persistent id's storage length is not a non-negative integer".into()),
    }
}

/// The first reference to each storage key: later references reuse that storage (torch's
/// `loaded_storages` / `deserialized_objects`), so their own length is ignored, and one of
/// another dtype views the same bytes when the byte lengths agree.
#[derive(Debug, Default)]
pub struct FirstSeen(HashMap<String, (dtypes::TorchDtype, u64)>);

impl FirstSeen {
    /// The element count torch uses for a reference to `key` as `dtype` with `numel` elements.
    fn numel(&mut self, key: &str, dtype: dtypes::TorchDtype, numel: u64) -> u64 {
        let Some((first, n)) = self.0.get(key) else {
            self.0.insert(key.to_owned(), (dtype, numel));
            return numel;
        };
        if *first == dtype {
            return *n;
        }
        let bytes = n.saturating_mul(first.elsize.unwrap_or(1));
        let elsize = dtype.elsize.unwrap_or(1);
        if bytes % elsize == 0 && bytes / elsize == numel {
            bytes / elsize
        } else {
            numel
        }
    }
}

/// `torch.load`'s zip hook: `('storage', storage_type, key, location, numel)`.
#[derive(Debug, Default)]
pub struct ZipIds(FirstSeen);

impl pickle::PersistentLoad for ZipIds {
    fn load(&mut self, args: &[Value], _arena: &Arena, at: usize) -> Result<StorageRef, String> {
        let [class, key, location, n] = args else {
            return Err(format!(
                "a storage persistent id has {} fields after 'storage', not 4",
                args.len()
            ));
        };
        let dtype = storage_dtype(class, true)?;
        let key = text(key).ok_or("the persistent id's key is not text")?;
        text(location).ok_or("the persistent id's location is not text")?;
        let numel = numel(n)?;
        if dtype.elsize.is_none() {
            return Err(format!("torch.{} has no element size", dtype.name));
        }
        let numel = self.0.numel(&key, dtype, numel);
        Ok(StorageRef {
            key,
            dtype,
            numel,
            view: None,
            at,
        })
    }
}

/// `torch.load`'s legacy hook: `('storage', storage_type, root_key, location, numel, view)`.
#[derive(Debug, Default)]
pub struct LegacyIds(FirstSeen);

impl pickle::PersistentLoad for LegacyIds {
    fn resizable(&self) -> bool {
        true
    }

    fn load(&mut self, args: &[Value], arena: &Arena, at: usize) -> Result<StorageRef, String> {
        let [class, key, location, n, view] = args else {
            return Err(format!(
                "a storage persistent id has {} fields after 'storage', not 5",
                args.len()
            ));
        };
        let dtype = storage_dtype(class, false)?;
        let key = text(key).ok_or("the persistent id's key is not text")?;
        text(location).ok_or("the persistent id's location is not text")?;
        let numel = numel(n)?;
        if dtype.elsize.is_none() {
            return Err(format!("torch.{} has no element size", dtype.name));
        }
        let view = match view {
            Value::None => None,
            other => match arena.sequence(other) {
                Some([k, Value::Int(o), Value::Int(s)]) if *o >= 0 && *s >= 0 => {
                    let k = text(k).ok_or("the storage view's key is not text")?;
                    Some((k, *o as u64, *s as u64))
                }
                _ => return Err("the storage view is not (key, offset, size)".into()),
            },
        };
        let numel = self.0.numel(&key, dtype, numel);
        Ok(StorageRef {
            key,
            dtype,
            numel,
            view,
            at,
        })
    }
}

/// The most later globals a security finding names besides the one that stopped the machine.
const MORE_GLOBALS: usize = 16;

/// The findings for a pickle the machine refused: the refusal itself, and for a security
/// refusal every further global the pickle would import (found by walking its opcodes without
/// running them).
pub fn refusal_findings(
    refusal: &Refusal,
    data: &[u8],
    format: Format,
    path: &Path,
    offset: &dyn Fn(usize) -> u64,
    what: &str,
) -> Vec<Finding> {
    let at = offset(refusal.at());
    let (code, message) = match refusal {
        Refusal::Global {
            module,
            name,
            blocked,
            ..
        } => {
            let why = if *blocked {
                format!("whose module {module} torch blocks outright")
            } else {
                "that torch's weights_only unpickler never allows".to_owned()
            };
            (
                Code::PT005,
                format!(
                    "{what} imports the global {module}.{name} at byte offset {at}, {why}: it was \
                     not imported and nothing after it was run (torch.load without \
                     weights_only=True would import and may call it)"
                ),
            )
        }
        Refusal::Calling { op, .. } => (
            Code::PT006,
            format!(
                "{what} uses the opcode {} at byte offset {at}, which imports or calls by \
                 itself: it was not run, nor anything after it",
                pickle::ops::name(*op).unwrap_or("?")
            ),
        ),
        Refusal::Unsupported { op, .. } => (
            Code::PT007,
            match pickle::ops::name(*op) {
                Some(name) => format!(
                    "{what} uses the opcode {name} at byte offset {at}, which torch's \
                     weights_only unpickler does not implement: torch.load(weights_only=True) \
                     refuses the file"
                ),
                None => format!(
                    "{what} has the byte {op:#04x} at byte offset {at}, which is no pickle opcode"
                ),
            },
        ),
        Refusal::Malformed { why, .. } => (
            Code::PT007,
            format!("{what} is refused at byte offset {at}: {why}"),
        ),
        Refusal::Truncated { .. } => (
            Code::PT007,
            format!("{what} ends at byte offset {at} before its STOP opcode: cut short"),
        ),
        Refusal::Cap { why, .. } => (
            Code::PT008,
            format!("{what} is over a cap at byte offset {at}: {why}; not read further"),
        ),
    };
    let mut out = vec![finding(code, format, path, message).at(at)];
    // Whatever stopped the machine, name every global the pickle would import (a protocol-4
    // payload is refused at its FRAME opcode, before its STACK_GLOBAL is reached).
    let mut seen = std::collections::HashSet::new();
    for (name, pos) in pickle::globals_after(data, 0, MORE_GLOBALS) {
        if pos == refusal.at() || !seen.insert(name.clone()) {
            continue;
        }
        let at = offset(pos);
        let message = format!(
            "{what} would import {name} at byte offset {at} (found by walking its opcodes without running them)"
        );
        let code = if name.starts_with("opcode ") {
            Code::PT006
        } else {
            Code::PT005
        };
        out.push(finding(code, format, path, message).at(at));
    }
    out
}
