//! The values of a record spelled as Python's encoder spells them (exact str, int, float; None
//! for any other type: the record is then written the Python way).

use crate::json_text::{push_f64, push_str};
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt, PyString};
use std::fmt::Write;

/// A value spelled here, or None: the record takes the Python way.
pub type Spelled = Option<()>;

pub fn push_plain_str(out: &mut String, value: &Bound<'_, PyAny>) -> Spelled {
    if !value.is_exact_instance_of::<PyString>() {
        return None;
    }
    push_str(out, value.cast::<PyString>().ok()?.to_str().ok()?);
    Some(())
}

pub fn push_int(out: &mut String, value: &Bound<'_, PyAny>) -> Spelled {
    if !value.is_exact_instance_of::<PyInt>() {
        return None;
    }
    // Writing to a String cannot fail.
    let _ = match value.extract::<i64>() {
        Ok(v) => write!(out, "{v}"),
        Err(_) => write!(out, "{}", value.extract::<u64>().ok()?),
    };
    Some(())
}

pub fn push_float(out: &mut String, value: &Bound<'_, PyAny>) -> Spelled {
    if !value.is_exact_instance_of::<PyFloat>() {
        return None;
    }
    push_f64(out, value.cast::<PyFloat>().ok()?.value()).then_some(())
}
