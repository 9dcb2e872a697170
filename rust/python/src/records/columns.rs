//! The stats pass's columns (`tensor_stats`: one list per field, or None when every row is
//! None), read by row for a record's shape.

use super::shape::Shape;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The columns in a shape's field order.
pub struct Columns<'py> {
    py: Python<'py>,
    lists: Vec<Option<Bound<'py, PyList>>>,
}

impl<'py> Columns<'py> {
    /// The column of each of `shape`'s fields (absent or None: None in every row).
    pub fn new(columns: &Bound<'py, PyDict>, shape: &Shape<'py>) -> PyResult<Self> {
        let mut lists = Vec::new();
        for attr in shape.attrs() {
            lists.push(match columns.get_item(attr)? {
                Some(value) if !value.is_none() => Some(value.cast_into::<PyList>()?),
                _ => None,
            });
        }
        Ok(Columns {
            py: columns.py(),
            lists,
        })
    }

    /// Row `row` of field `field`'s column (None for a column that is None).
    pub fn get(&self, field: usize, row: usize) -> Option<Bound<'py, PyAny>> {
        match self.lists.get(field)? {
            Some(list) => list.get_item(row).ok(),
            None => Some(self.py.None().into_bound(self.py)),
        }
    }
}
