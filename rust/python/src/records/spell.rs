//! The values of a record spelled as Python's encoder spells them (exact str, int, float; None
//! for any other type: the record is then written the Python way), and `Repeated`, which escapes
//! an object repeated across records once.

use eagle3_inspect_core::json_text::{push_f64, push_str};
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

pub fn push_optional_str(out: &mut String, value: &Bound<'_, PyAny>) -> Spelled {
    if value.is_none() {
        out.push_str("null");
        return Some(());
    }
    push_plain_str(out, value)
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

/// The JSON of the last object seen in one field: a field that repeats one object across
/// records (a file path, a dtype, a finding's code and hint) is escaped once, not per record.
#[derive(Default)]
pub struct Repeated<'py> {
    last: Option<(Bound<'py, PyAny>, String)>,
}

impl<'py> Repeated<'py> {
    pub fn push(
        &mut self,
        out: &mut String,
        value: &Bound<'py, PyAny>,
        spell: fn(&mut String, &Bound<'py, PyAny>) -> Spelled,
    ) -> Spelled {
        if let Some((last, text)) = &self.last {
            // The same object (held here, so its address is not reused): the same text.
            if last.is(value) {
                out.push_str(text);
                return Some(());
            }
        }
        let start = out.len();
        spell(out, value)?;
        self.last = Some((value.clone(), out[start..].to_owned()));
        Some(())
    }
}
