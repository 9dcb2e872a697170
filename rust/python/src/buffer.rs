//! Zero-copy access to tensor bytes: a read-only object over one tensor's slice of the map,
//! which keeps the checkpoint (and so the map) alive while numpy views it.
//!
//! It is exported through numpy's array interface (`__array_interface__`, version 3), not the
//! buffer protocol: `Py_buffer` and `bf_getbuffer` are in the limited API only from Python 3.11,
//! and the extension is built for the 3.10 limited API (abi3). `np.asarray(buffer)` gives a
//! read-only 1-D uint8 array over these very bytes whose `base` is this object, so the map
//! outlives every view; numpy refuses to make it writable (the base exports no writable buffer).

use eagle3_inspect_core::Checkpoint;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

/// The bytes of one tensor, exported as a read-only uint8 array interface: a view of the map, or
/// the bytes read once from a ranged source and owned here.
#[pyclass(frozen, module = "eagle3_inspect._native")]
pub struct TensorBuffer {
    checkpoint: Arc<Checkpoint>,
    name: String,
    read: Option<Vec<u8>>,
}

impl TensorBuffer {
    /// A buffer over the mapped bytes of tensor `name`, which the caller has checked to be
    /// readable, or over `read`, the bytes already read (from a ranged source, or materialized).
    pub fn new(checkpoint: Arc<Checkpoint>, name: String, read: Option<Vec<u8>>) -> Self {
        TensorBuffer {
            checkpoint,
            name,
            read,
        }
    }

    fn bytes(&self) -> &[u8] {
        if let Some(read) = &self.read {
            return read;
        }
        self.checkpoint
            .entry(&self.name)
            .and_then(|(shard, entry)| shard.mapped_tensor_bytes(entry))
            .unwrap_or(&[])
    }
}

#[pymethods]
impl TensorBuffer {
    fn __len__(&self) -> usize {
        self.bytes().len()
    }

    /// numpy's array interface: `data` is `(address, read_only=True)`. The address stays valid
    /// while this object lives: it holds an Arc of the checkpoint whose map holds the bytes, or
    /// the read bytes themselves (never mutated: the class is frozen), and numpy keeps the
    /// object as the array's base.
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let data = self.bytes();
        let interface = PyDict::new(py);
        interface.set_item("version", 3)?;
        interface.set_item("typestr", "|u1")?;
        interface.set_item("shape", (data.len(),))?;
        interface.set_item("data", (data.as_ptr() as usize, true))?;
        Ok(interface)
    }
}
