//! The restricted pickle machine: runs exactly the opcodes torch's `weights_only` unpickler
//! (torch 2.15, `torch/_weights_only_unpickler.py`) runs, resolves only the globals it allows
//! (`globals`), and never imports or calls anything: a rebuild function is interpreted by name
//! into a tensor *description* (storage, offset, shape, strides), never executed. Any other
//! global or any opcode that imports or calls by itself stops the machine where it stands: that
//! opcode and everything after it are never run, and the refusal names the global and its byte
//! offset in the pickle.
//!
//! No existing Rust pickle reader keeps that line (see `docs/torch-pickle.md`): candle's and
//! `repugnant-pickle` deep-clone memo entries (a memo bomb is exponential) and record no offsets,
//! and `serde-pickle` has no persistent ids (every torch file uses them) and silently stands in
//! a dict for instances of arbitrary classes (`INST`, `OBJ`, `NEWOBJ`).
//!
//! Caps: the pickle's length ([`PICKLE_CAP`]), the values held at once ([`CELL_CAP`]), the
//! mark depth ([`MARK_CAP`]); memory is bounded by them whatever the input.

mod calls;
pub mod globals;
mod machine;
pub mod ops;
pub mod value;

pub use machine::run;
pub use value::{Arena, DictKind, Object, Value};

use crate::torch::dtypes::TorchDtype;
use std::collections::HashMap;

/// The largest pickle read (a state dict pickle is about 150 bytes per tensor).
pub const PICKLE_CAP: u64 = 512 << 20;
/// The most values held at once on the stack, in the memo and in containers.
pub const CELL_CAP: u64 = 1 << 25;
/// The deepest nesting of marks.
pub const MARK_CAP: usize = 1 << 16;

/// A storage as a persistent id describes it (the bytes themselves are the archive's business).
#[derive(Debug, Clone, PartialEq)]
pub struct StorageRef {
    /// The storage key: the zip record `data/<key>`, or the legacy storage's key.
    pub key: String,
    /// The storage's element type.
    pub dtype: TorchDtype,
    /// Its length in elements of `dtype`.
    pub numel: u64,
    /// Legacy format only: `(view key, offset, length)` in elements when the persistent id names
    /// a view into the root storage `key`.
    pub view: Option<(String, u64, u64)>,
    /// Pickle offset of the `BINPERSID` that loaded it.
    pub at: usize,
}

impl StorageRef {
    /// The storage's byte length as torch computes it (`numel * element size`), when defined.
    pub fn nbytes(&self) -> Option<u64> {
        let numel = self.view.as_ref().map_or(self.numel, |v| v.2);
        numel.checked_mul(self.dtype.elsize?)
    }

    /// The storage's offset in bytes inside its root storage (non-zero only for legacy views).
    pub fn root_offset(&self) -> Option<u64> {
        self.view
            .as_ref()
            .map_or(Some(0), |v| v.1.checked_mul(self.dtype.elsize?))
    }
}

/// A tensor as a rebuild function describes it: a strided view of a storage.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorRef {
    /// Index into [`Unpickled::storages`].
    pub storage: u32,
    /// The tensor's element type (the storage's, or `_rebuild_tensor_v3`'s dtype argument).
    pub dtype: TorchDtype,
    /// Storage offset, in elements of `dtype`.
    pub offset: u64,
    /// Sizes.
    pub shape: Vec<u64>,
    /// Strides, in elements.
    pub stride: Vec<u64>,
    /// Pickle offset of the `REDUCE` that rebuilt it.
    pub at: usize,
    /// Set when the tensor is more than a plain view (metadata bits, a state set by `BUILD`):
    /// what it is, for a finding; such a tensor is not read.
    pub unsupported: Option<String>,
}

/// Why the machine stopped before `STOP`.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// `GLOBAL` names something torch's allowlist does not hold: never imported.
    Global {
        /// The module, after torch's Python 2 mapping.
        module: String,
        /// The name.
        name: String,
        /// True when the module is one torch blocks outright (`os`, `sys`, ...).
        blocked: bool,
        /// Pickle offset of the opcode.
        at: usize,
        /// Offset just past the opcode and its arguments.
        next: usize,
    },
    /// An opcode that imports or calls by itself (`STACK_GLOBAL`, `INST`, `OBJ`, ...).
    Calling {
        /// The opcode.
        op: u8,
        /// Pickle offset.
        at: usize,
        /// Offset just past the opcode and its arguments.
        next: usize,
    },
    /// An opcode torch's `weights_only` unpickler does not implement, or a byte that is none.
    Unsupported {
        /// The byte.
        op: u8,
        /// Pickle offset.
        at: usize,
    },
    /// What torch would raise on (stack underflow, wrong type for an opcode, bad arguments).
    Malformed {
        /// What is wrong.
        why: String,
        /// Pickle offset of the opcode.
        at: usize,
    },
    /// The bytes end before `STOP`.
    Truncated {
        /// Pickle offset where more bytes were needed.
        at: usize,
    },
    /// A cap was reached.
    Cap {
        /// Which one.
        why: String,
        /// Pickle offset.
        at: usize,
    },
}

impl Refusal {
    /// Pickle offset of the refusal.
    pub fn at(&self) -> usize {
        match self {
            Refusal::Global { at, .. }
            | Refusal::Calling { at, .. }
            | Refusal::Unsupported { at, .. }
            | Refusal::Malformed { at, .. }
            | Refusal::Truncated { at }
            | Refusal::Cap { at, .. } => *at,
        }
    }

    /// For a security refusal (a global or a calling opcode), the offset just past it: where a
    /// scan for what the pickle would import next starts.
    pub fn security_next(&self) -> Option<usize> {
        match self {
            Refusal::Global { next, .. } | Refusal::Calling { next, .. } => Some(*next),
            _ => None,
        }
    }
}

/// What the file's persistent-load hook makes of a persistent id `('storage', ...)`: the tuple's
/// items after `'storage'`.
pub trait PersistentLoad {
    /// The storage the id names, or why torch would refuse the id.
    fn load(&mut self, args: &[Value], arena: &Arena, at: usize) -> Result<StorageRef, String>;

    /// True when torch makes the storages resizable (the legacy format's
    /// `UntypedStorage(nbytes)`), so that `Tensor.set_` grows one to a view past its end;
    /// false for the zip format's storages, made over their records.
    fn resizable(&self) -> bool {
        false
    }
}

/// The outcome of a pickle that reached `STOP`.
#[derive(Debug)]
pub struct Unpickled {
    /// The object `STOP` returned.
    pub root: Value,
    /// Every container.
    pub arena: Arena,
    /// Every storage a persistent id loaded, in load order.
    pub storages: Vec<StorageRef>,
    /// Every tensor a rebuild function made, in pickle order.
    pub tensors: Vec<TensorRef>,
    /// Offset just past `STOP`.
    pub end: usize,
    /// Text that was not valid UTF-8 was read with replacement characters (lone surrogates,
    /// which torch keeps): names may differ from torch's.
    pub lossy_text: bool,
    /// The bytes each resizable storage (by key) was grown to by a view past its declared end.
    pub grown: HashMap<String, u64>,
}

/// Every global a pickle holds from `from` on that torch's allowlist refuses (and every opcode
/// that imports or calls by itself), found by walking its opcodes without running them, as
/// `pickletools` disassembles: what a refused pickle would import. At most `limit`.
pub fn globals_after(data: &[u8], from: usize, limit: usize) -> Vec<(String, usize)> {
    machine::scan_globals(data, from, limit)
}
