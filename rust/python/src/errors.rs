//! The exception tree and the one newtype that maps core errors onto it.
//!
//! `InspectError` is the base. Classes that must also be a builtin (a missing path is a
//! `FileNotFoundError`, a missing tensor a `KeyError`, a bad argument a `ValueError`) are built
//! with `type()` at import, since `create_exception!` allows a single base. All live in
//! `eagle3_inspect._native` (so they pickle) and are re-exported by `eagle3_inspect.errors`.

use eagle3_inspect_core::Error;
use pyo3::exceptions::{
    PyException, PyFileNotFoundError, PyKeyError, PyKeyboardInterrupt, PyValueError,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

pyo3::create_exception!(
    _native,
    InspectError,
    PyException,
    "Base class of every eagle3-inspect error."
);
pyo3::create_exception!(
    _native,
    InvalidCheckpointError,
    InspectError,
    "The path exists but holds nothing inspectable (no safetensors files, unreadable file)."
);
pyo3::create_exception!(
    _native,
    TensorUnreadableError,
    InspectError,
    "A tensor's bytes cannot be read: its header entry is invalid or its data lies outside the file."
);

static NOT_FOUND: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static TENSOR_NOT_FOUND: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static BAD_ARGUMENT: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn subclass(
    py: Python<'_>,
    name: &str,
    builtin: Bound<'_, PyType>,
    doc: &str,
) -> PyResult<Py<PyType>> {
    let namespace = PyDict::new(py);
    namespace.set_item("__module__", "eagle3_inspect._native")?;
    namespace.set_item("__doc__", doc)?;
    let bases = PyTuple::new(py, [py.get_type::<InspectError>(), builtin])?;
    let class = py.get_type::<PyType>().call1((name, bases, namespace))?;
    Ok(class.cast_into::<PyType>()?.unbind())
}

/// Creates the multiple-inheritance classes and adds the whole tree to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("InspectError", py.get_type::<InspectError>())?;
    module.add(
        "InvalidCheckpointError",
        py.get_type::<InvalidCheckpointError>(),
    )?;
    module.add(
        "TensorUnreadableError",
        py.get_type::<TensorUnreadableError>(),
    )?;
    let classes = [
        (
            &NOT_FOUND,
            "CheckpointNotFoundError",
            py.get_type::<PyFileNotFoundError>(),
            "The path does not exist.",
        ),
        (
            &TENSOR_NOT_FOUND,
            "TensorNotFoundError",
            py.get_type::<PyKeyError>(),
            "No tensor of that name in the checkpoint.",
        ),
        (
            &BAD_ARGUMENT,
            "InvalidArgumentError",
            py.get_type::<PyValueError>(),
            "An argument is invalid.",
        ),
    ];
    for (cell, name, builtin, doc) in classes {
        let class = cell.get_or_try_init(py, || subclass(py, name, builtin, doc))?;
        module.add(name, class.bind(py))?;
    }
    Ok(())
}

fn raise<A>(py: Python<'_>, cell: &PyOnceLock<Py<PyType>>, args: A) -> PyErr
where
    A: pyo3::PyErrArguments + Send + Sync + 'static,
{
    match cell.get(py) {
        Some(class) => PyErr::from_type(class.bind(py).clone(), args),
        None => InspectError::new_err("eagle3_inspect._native was not initialised"),
    }
}

/// A core error on its way to Python.
pub struct NativeError(pub Error);

impl From<Error> for NativeError {
    fn from(err: Error) -> Self {
        NativeError(err)
    }
}

impl From<NativeError> for PyErr {
    fn from(err: NativeError) -> PyErr {
        let message = err.0.to_string();
        Python::attach(|py| match err.0 {
            Error::NotFound { path } => {
                let errno = 2; // ENOENT: FileNotFoundError's errno, so str() and .filename behave.
                raise(
                    py,
                    &NOT_FOUND,
                    (
                        errno,
                        "No such file or directory".to_owned(),
                        path.display().to_string(),
                    ),
                )
            }
            Error::TensorNotFound { .. } => raise(py, &TENSOR_NOT_FOUND, (message,)),
            Error::InvalidArgument(_) => raise(py, &BAD_ARGUMENT, (message,)),
            Error::Cancelled => PyKeyboardInterrupt::new_err(message),
            Error::TensorUnreadable { .. } => TensorUnreadableError::new_err(message),
            Error::Io { .. } | Error::InvalidCheckpoint { .. } => {
                InvalidCheckpointError::new_err(message)
            }
        })
    }
}

/// Result alias for binding functions.
pub type NativeResult<T> = Result<T, NativeError>;
