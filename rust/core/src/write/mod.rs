//! Writing one safetensors file through the `safetensors` crate's serializer: tensors copied from
//! memory-mapped source shards (safetensors or torch files) as borrowed views (no full load: the serializer streams each view
//! into a buffered writer), plus a few small owned tensors (a rewritten `d2t`, a generated `t2d`).
//!
//! The caller (the `fix` command) owns the temp-directory / rename protocol; this module writes one
//! file, fsyncs it, and refuses to finish when a source shard changed while it was being copied.

use crate::dtype::Dtype;
use crate::error::{Error, Result};
use crate::shard::Shard;
use safetensors::tensor::{Dtype as StDtype, View};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
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

/// A view the serializer reads: dtype, shape and bytes (borrowed from a map or an owned tensor,
/// or the materialized values of a torch view).
struct TensorView<'a> {
    dtype: StDtype,
    shape: Vec<usize>,
    data: Cow<'a, [u8]>,
}

impl View for TensorView<'_> {
    fn dtype(&self) -> StDtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.data)
    }
    fn data_len(&self) -> usize {
        self.data.len()
    }
}

fn serializer_dtype(name: &str) -> Result<StDtype> {
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

/// Opens each source shard once.
fn open_sources(copied: &[CopiedTensor]) -> Result<HashMap<PathBuf, Shard>> {
    let mut shards = HashMap::new();
    for tensor in copied {
        if !shards.contains_key(&tensor.file) {
            shards.insert(tensor.file.clone(), Shard::open(&tensor.file)?);
        }
    }
    Ok(shards)
}

fn copied_view<'a>(
    shards: &'a HashMap<PathBuf, Shard>,
    tensor: &CopiedTensor,
) -> Result<TensorView<'a>> {
    let shard = &shards[&tensor.file];
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
    let data = shard.read_tensor(entry).map_err(|why| unreadable(&why))?;
    let (Some(dtype), Some(shape)) = (entry.dtype, entry.shape.as_ref()) else {
        return Err(unreadable("unknown dtype or shape"));
    };
    Ok(TensorView {
        dtype: serializer_dtype(Dtype::name(dtype))?,
        shape: usize_shape(&tensor.name, shape)?,
        data,
    })
}

fn owned_view(tensor: &OwnedTensor) -> Result<TensorView<'_>> {
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
    Ok(TensorView {
        dtype: serializer_dtype(&tensor.dtype)?,
        shape: usize_shape(&tensor.name, &tensor.shape)?,
        data: Cow::Borrowed(&tensor.data),
    })
}

/// Writes `dest` (which must not exist yet) with the copied and owned tensors and `metadata`,
/// fsyncs it, and returns its size in bytes. Fails, leaving `dest` for the caller to discard, when
/// a name repeats, a source tensor cannot be read, a source shard shrank during the copy, or the
/// write itself fails (ENOSPC, EFBIG, EROFS, ...).
pub fn write_file(
    dest: &Path,
    copied: &[CopiedTensor],
    owned: &[OwnedTensor],
    metadata: Option<BTreeMap<String, String>>,
) -> Result<u64> {
    let shards = open_sources(copied)?;
    let mut views: Vec<(String, TensorView<'_>)> = Vec::with_capacity(copied.len() + owned.len());
    for tensor in copied {
        views.push((tensor.name.clone(), copied_view(&shards, tensor)?));
    }
    for tensor in owned {
        views.push((tensor.name.clone(), owned_view(tensor)?));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some((name, _)) = views.iter().find(|(n, _)| !seen.insert(n.clone())) {
        return Err(Error::InvalidArgument(format!(
            "tensor {name:?} is written twice"
        )));
    }
    if dest.exists() {
        return Err(Error::InvalidArgument(format!(
            "{} already exists",
            dest.display()
        )));
    }
    let info = metadata.map(|m| m.into_iter().collect::<HashMap<_, _>>());
    safetensors::serialize_to_file(views, info, dest).map_err(|e| match e {
        safetensors::SafeTensorError::IoError(source) => Error::io(dest, source),
        other => Error::InvalidArgument(format!("{}: {other}", dest.display())),
    })?;
    for shard in shards.values() {
        if let Some(offset) = shard.changed_from() {
            return Err(Error::InvalidCheckpoint {
                path: shard.path.clone(),
                reason: format!("the file changed from byte offset {offset} while it was copied"),
            });
        }
    }
    let file = File::open(dest).map_err(|e| Error::io(dest, e))?;
    file.sync_all().map_err(|e| Error::io(dest, e))?;
    Ok(file.metadata().map_err(|e| Error::io(dest, e))?.len())
}

/// fsyncs a directory so the names created in it (files, a renamed directory) are durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))
}
