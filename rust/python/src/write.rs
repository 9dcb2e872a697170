//! Writing safetensors files for `fix`: tensors copied from source shards' memory maps as borrowed
//! views plus a few small owned tensors, through the `safetensors` crate's serializer.

use crate::errors::NativeResult;
use eagle3_inspect_core::write::{self, CopiedTensor, OwnedTensor};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Writes `dest` (must not exist) and fsyncs it; returns its size. `copied` is
/// `[(name, source_file, source_name)]`, `owned` is `[(name, dtype, shape, bytes)]`. The GIL is
/// released while bytes are copied.
#[pyfunction]
#[pyo3(signature = (dest, copied, owned, metadata=None))]
pub fn write_safetensors(
    py: Python<'_>,
    dest: PathBuf,
    copied: Vec<(String, PathBuf, String)>,
    owned: Vec<(String, String, Vec<u64>, Bound<'_, PyBytes>)>,
    metadata: Option<BTreeMap<String, String>>,
) -> NativeResult<u64> {
    let copied: Vec<CopiedTensor> = copied
        .into_iter()
        .map(|(name, file, source_name)| CopiedTensor {
            name,
            file,
            source_name,
        })
        .collect();
    let owned: Vec<OwnedTensor> = owned
        .into_iter()
        .map(|(name, dtype, shape, data)| OwnedTensor {
            name,
            dtype,
            shape,
            data: data.as_bytes().to_vec(),
        })
        .collect();
    Ok(py.detach(|| write::write_file(&dest, &copied, &owned, metadata))?)
}

/// fsyncs a directory so the entries created in it are durable.
#[pyfunction]
pub fn sync_dir(py: Python<'_>, path: PathBuf) -> NativeResult<()> {
    Ok(py.detach(|| write::sync_dir(&path))?)
}
