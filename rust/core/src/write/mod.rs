//! Writing one safetensors file for `fix` and verifying it in the same pass: tensors copied from
//! source shards (safetensors or torch files) piece by piece (no full load) plus a few small
//! owned tensors (a rewritten `d2t`, a generated `t2d`), the header laid out as the
//! `safetensors` crate lays it out (`header`).
//!
//! Verification without a second pass (`pass`): the header is written first and read back
//! through this crate's own reader, which gives every tensor's range; each piece of each tensor
//! is then written to that range, read back from the file at once (it is still in cache), and
//! compared with the source bytes; the statistics of the written bytes are computed from the
//! same read. So every weight is checked bit-equal under its planned name, at the place the
//! reader will look for it, for the cost of one read of the sources and one write of the file,
//! and `validate` of the written file gets its statistics without reading the data again.
//!
//! The caller (the `fix` command) owns the temp-directory / rename protocol; this module writes one
//! file, fsyncs it, and refuses to finish when a source shard changed while it was being copied.

mod header;
mod pass;

use crate::dtype::Dtype;
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::shard::Shard;
use crate::stats::TensorStats;
use header::Entry;
use safetensors::tensor::Dtype as StDtype;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::path::{Path, PathBuf};

#[cfg(test)]
mod tests;

/// A tensor copied unchanged from a source shard under a (possibly new) name.
#[derive(Debug, Clone)]
pub struct CopiedTensor {
    /// Name in the written file.
    pub name: String,
    /// The source safetensors file.
    pub file: PathBuf,
    /// Name in the source file.
    pub source_name: String,
}

/// A small tensor whose bytes the caller supplies (little-endian, row-major).
#[derive(Debug, Clone)]
pub struct OwnedTensor {
    /// Name in the written file.
    pub name: String,
    /// Header dtype spelling (`"I64"`, `"BF16"`, ...).
    pub dtype: String,
    /// Shape.
    pub shape: Vec<u64>,
    /// The raw bytes.
    pub data: Vec<u8>,
}

/// How [`write_file`] runs.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// Worker threads: `Some(n)` on a private pool of `n`, `None` on the global pool.
    pub threads: Option<usize>,
}

/// What the pass found for one written tensor.
#[derive(Debug, Clone, PartialEq)]
pub struct WrittenTensor {
    /// Name in the written file.
    pub name: String,
    /// Where its bytes came from: `(file, name)` for a copied tensor, `None` for an owned one.
    pub source: Option<(PathBuf, String)>,
    /// `None` when the written file, read back, holds exactly the source bytes under this name
    /// with the source's dtype and shape; otherwise what is wrong.
    pub problem: Option<String>,
    /// Statistics of the bytes read back (as `compute_stats` gives them for the written file);
    /// `None` when the tensor could not be located in the written header.
    pub stats: Option<TensorStats>,
}

/// The result of [`write_file`].
#[derive(Debug, Clone)]
pub struct WriteReport {
    /// Size of the written file in bytes.
    pub size: u64,
    /// One entry per tensor asked for: the copied ones in order, then the owned ones.
    pub tensors: Vec<WrittenTensor>,
}

/// Where a tensor's bytes are read from.
pub(crate) enum Bytes<'a> {
    /// `len` bytes at `offset` of a source shard's open file (read by offset, with the kernel's
    /// sequential readahead, not through the map: no page faults, and no SIGBUS if it shrinks).
    File { file: &'a File, offset: u64 },
    /// The caller's bytes.
    Owned(&'a [u8]),
    /// A torch view's logical values (strided, byte-swapped or inflated), materialized once.
    Materialized(Vec<u8>),
}

/// One tensor to write: its name, dtype, shape, length and bytes, and where they come from.
pub(crate) struct Planned<'a> {
    pub name: &'a str,
    pub dtype: Dtype,
    pub shape: Vec<u64>,
    pub len: usize,
    pub bytes: Bytes<'a>,
    /// `(file, name)` of a copied tensor; `None` for an owned one (bytes in a `Vec`).
    pub source: Option<(&'a Path, &'a str)>,
}

fn serializer_dtype(dtype: Dtype) -> Result<StDtype> {
    let name = Dtype::name(dtype);
    serde_json::from_value(serde_json::Value::String(name.to_owned()))
        .map_err(|_| Error::InvalidArgument(format!("dtype {name:?} cannot be serialized")))
}

fn usize_shape(name: &str, shape: &[u64]) -> Result<Vec<usize>> {
    shape
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| Error::InvalidArgument(format!("tensor {name:?}: shape {shape:?} too large")))
}

/// Opens each source shard once, keeping its file open for the pass to read pieces from (a
/// shard itself holds no descriptor).
fn open_sources(copied: &[CopiedTensor]) -> Result<HashMap<PathBuf, (Shard, File)>> {
    let mut shards = HashMap::new();
    for tensor in copied {
        if !shards.contains_key(&tensor.file) {
            shards.insert(tensor.file.clone(), Shard::open_with_file(&tensor.file)?);
        }
    }
    Ok(shards)
}

fn copied_tensor<'a>(
    shards: &'a HashMap<PathBuf, (Shard, File)>,
    tensor: &'a CopiedTensor,
) -> Result<Planned<'a>> {
    let (shard, file) = &shards[&tensor.file];
    let unreadable = |reason: &str| Error::TensorUnreadable {
        name: tensor.source_name.clone(),
        file: tensor.file.clone(),
        offset: shard.data_start().unwrap_or(0),
        reason: reason.to_owned(),
    };
    let entry = shard
        .header
        .as_ref()
        .and_then(|h| h.tensors.iter().find(|e| e.name == tensor.source_name))
        .ok_or_else(|| unreadable("no such tensor in this file"))?;
    if entry.layout.is_some() {
        // A torch view whose bytes are not one native-order run of the file: its logical
        // values, as every reader of this crate sees them.
        let data = shard
            .read_tensor(entry)
            .map_err(|why| unreadable(&why))?
            .into_owned();
        let (Some(dtype), Some(shape)) = (entry.dtype, entry.shape.as_ref()) else {
            return Err(unreadable("unknown dtype or shape"));
        };
        return Ok(Planned {
            name: &tensor.name,
            dtype,
            shape: shape.clone(),
            len: data.len(),
            bytes: Bytes::Materialized(data),
            source: Some((&tensor.file, &tensor.source_name)),
        });
    }
    let invalid = || unreadable("its header entry or byte range is invalid");
    let (start, stop) = shard.absolute_range(entry).ok_or_else(invalid)?;
    let (Some(dtype), Some(shape)) = (entry.dtype, entry.shape.as_ref()) else {
        return Err(unreadable("unknown dtype or shape"));
    };
    Ok(Planned {
        name: &tensor.name,
        dtype,
        shape: shape.clone(),
        len: usize::try_from(stop - start).map_err(|_| invalid())?,
        bytes: Bytes::File {
            file,
            offset: start,
        },
        source: Some((&tensor.file, &tensor.source_name)),
    })
}

fn owned_tensor(tensor: &OwnedTensor) -> Result<Planned<'_>> {
    let dtype = Dtype::parse(&tensor.dtype)
        .ok_or_else(|| Error::InvalidArgument(format!("unknown dtype {:?}", tensor.dtype)))?;
    let numel = tensor
        .shape
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .and_then(|n| dtype.byte_len(n));
    if numel != Some(tensor.data.len() as u64) {
        return Err(Error::InvalidArgument(format!(
            "tensor {:?}: {} bytes do not fill shape {:?} of {}",
            tensor.name,
            tensor.data.len(),
            tensor.shape,
            tensor.dtype
        )));
    }
    Ok(Planned {
        name: &tensor.name,
        dtype,
        shape: tensor.shape.clone(),
        len: tensor.data.len(),
        bytes: Bytes::Owned(&tensor.data),
        source: None,
    })
}

/// Writes `dest` (which must not exist yet) with the copied and owned tensors and `metadata`,
/// verifying every tensor as it goes (see the module docs), fsyncs it, and reports its size and
/// what was found per tensor. A tensor whose written bytes are not its source's is reported in
/// [`WrittenTensor::problem`], not as an error. Fails, leaving `dest` for the caller to discard,
/// when a name repeats, a source tensor cannot be read, a source shard changed during the copy,
/// the pass is cancelled, or the write itself fails (ENOSPC, EFBIG, EROFS, ...).
pub fn write_file(
    dest: &Path,
    copied: &[CopiedTensor],
    owned: &[OwnedTensor],
    metadata: Option<BTreeMap<String, String>>,
    opts: &WriteOptions,
    progress: &dyn Progress,
) -> Result<WriteReport> {
    crate::pool::check_threads(opts.threads)?;
    let shards = open_sources(copied)?;
    let mut planned = Vec::with_capacity(copied.len() + owned.len());
    for tensor in copied {
        planned.push(copied_tensor(&shards, tensor)?);
    }
    for tensor in owned {
        planned.push(owned_tensor(tensor)?);
    }
    let mut seen = HashSet::new();
    if let Some(p) = planned.iter().find(|p| !seen.insert(p.name)) {
        return Err(Error::InvalidArgument(format!(
            "tensor {:?} is written twice",
            p.name
        )));
    }
    let mut entries = Vec::with_capacity(planned.len());
    for p in &planned {
        entries.push(Entry {
            name: p.name,
            dtype: serializer_dtype(p.dtype)?,
            shape: usize_shape(p.name, &p.shape)?,
            len: p.len,
        });
    }
    let info = metadata.map(|m| m.into_iter().collect::<HashMap<_, _>>());
    let (head, total) = header::header_bytes(&entries, info)?;
    let file = File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .open(dest)
        .map_err(|e| Error::io(dest, e))?;
    let tensors = pass::write_and_verify(dest, &file, &head, total, &planned, opts, progress)?;
    for (shard, _) in shards.values() {
        if let Some(offset) = shard.changed_from() {
            return Err(Error::InvalidCheckpoint {
                path: shard.path.clone(),
                reason: format!("the file changed from byte offset {offset} while it was copied"),
            });
        }
    }
    file.sync_all().map_err(|e| Error::io(dest, e))?;
    let size = file.metadata().map_err(|e| Error::io(dest, e))?.len();
    Ok(WriteReport { size, tensors })
}

/// fsyncs a directory so the names created in it (files, a renamed directory) are durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))
}
