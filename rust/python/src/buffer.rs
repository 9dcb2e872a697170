//! Zero-copy access to tensor bytes: a read-only buffer object over one tensor's slice of the
//! map, which keeps the checkpoint (and so the map) alive while numpy views it.

use eagle3_inspect_core::Checkpoint;
use pyo3::exceptions::PyBufferError;
use pyo3::ffi;
use pyo3::prelude::*;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

/// The bytes of one tensor, exported through the buffer protocol (format `B`, read-only): a
/// view of the map, or the bytes read once from a ranged source and owned here.
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

    /// # Safety
    /// Called by CPython with a valid `view` pointer (or null, which is rejected).
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        if view.is_null() {
            return Err(PyBufferError::new_err("view is null"));
        }
        if (flags & ffi::PyBUF_WRITABLE) == ffi::PyBUF_WRITABLE {
            return Err(PyBufferError::new_err("checkpoint tensors are read-only"));
        }
        let data = slf.get().bytes();
        let (ptr, len) = (data.as_ptr(), data.len());
        // SAFETY: `view` is non-null and CPython hands us a Py_buffer to fill. `obj` takes a strong
        // reference to `slf`, which owns `data`: either an Arc of the checkpoint whose map holds
        // it, or the read bytes themselves (never mutated: the class is frozen), so the pointer
        // stays valid until the consumer releases the buffer. The format string is static.
        unsafe {
            (*view).obj = slf.into_any().into_ptr();
            (*view).buf = ptr as *mut c_void;
            (*view).len = len as isize;
            (*view).readonly = 1;
            (*view).itemsize = 1;
            (*view).format = if (flags & ffi::PyBUF_FORMAT) == ffi::PyBUF_FORMAT {
                c"B".as_ptr() as *mut _
            } else {
                std::ptr::null_mut()
            };
            (*view).ndim = 1;
            (*view).shape = if (flags & ffi::PyBUF_ND) == ffi::PyBUF_ND {
                &mut (*view).len
            } else {
                std::ptr::null_mut()
            };
            (*view).strides = if (flags & ffi::PyBUF_STRIDES) == ffi::PyBUF_STRIDES {
                &mut (*view).itemsize
            } else {
                std::ptr::null_mut()
            };
            (*view).suboffsets = std::ptr::null_mut();
            (*view).internal = std::ptr::null_mut();
        }
        Ok(())
    }
}
