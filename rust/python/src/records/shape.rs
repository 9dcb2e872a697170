//! A record's JSON shape, as Python declares it once per record class
//! (`eagle3_inspect.records.Shape.native`): per field, its `"key": ` text, the attribute (or
//! column) it is read from, how its value is spelled, and whether a None leaves it out.

use super::spell::{push_float, push_int, push_plain_str, Spelled};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use std::ops::Range;

/// How a field's value is spelled (the numbers of `eagle3_inspect.records.Kind`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An exact str (or None: null).
    Str,
    /// An exact int (or None: null).
    Int,
    /// An exact finite float (or None: null); a non-finite one is left to Python.
    Float,
    /// An exact tuple of exact ints, as a JSON list.
    IntTuple,
    /// An enum member, as its `_value_` (an exact str).
    Enum,
}

/// One field of a shape.
pub struct Field<'py> {
    key: String,
    attr: Bound<'py, PyString>,
    kind: Kind,
    omit_none: bool,
}

/// The fields of one record class, in JSON order.
pub struct Shape<'py> {
    fields: Vec<Field<'py>>,
}

impl<'py> Shape<'py> {
    /// The shape from its Python form: a tuple of `(key_text, attribute, kind, omit_none)`.
    pub fn new(spec: &Bound<'py, PyTuple>) -> PyResult<Self> {
        let mut fields = Vec::with_capacity(spec.len());
        for item in spec.iter() {
            let (key, attr, kind, omit_none): (String, Bound<'py, PyString>, u8, bool) =
                item.extract()?;
            let kind = match kind {
                0 => Kind::Str,
                1 => Kind::Int,
                2 => Kind::Float,
                3 => Kind::IntTuple,
                4 => Kind::Enum,
                _ => {
                    return Err(pyo3::exceptions::PyValueError::new_err(format!(
                        "unknown field kind {kind}"
                    )))
                }
            };
            fields.push(Field {
                key,
                attr,
                kind,
                omit_none,
            });
        }
        Ok(Shape { fields })
    }

    /// The attribute (or column) names, in order.
    pub fn attrs(&self) -> impl Iterator<Item = &Bound<'py, PyString>> {
        self.fields.iter().map(|f| &f.attr)
    }

    /// The record's fields, each from `value(i)` (the object's attribute or a column's row),
    /// written between `{` and `}`; None when a value is not one this spells.
    pub fn push_record(
        &self,
        out: &mut String,
        seen: &mut Seen<'py>,
        mut value: impl FnMut(usize, &Field<'py>) -> Option<Bound<'py, PyAny>>,
        close: bool,
    ) -> Spelled {
        out.push('{');
        let mut first = true;
        for (i, field) in self.fields.iter().enumerate() {
            let value = value(i, field)?;
            if field.omit_none && value.is_none() {
                continue;
            }
            if !first {
                out.push_str(", ");
            }
            first = false;
            out.push_str(&field.key);
            if value.is_none() {
                out.push_str("null");
                continue;
            }
            match field.kind {
                Kind::Str | Kind::Enum => seen.push(out, i, &value, field.kind)?,
                Kind::Int => push_int(out, &value)?,
                Kind::Float => push_float(out, &value)?,
                Kind::IntTuple => push_int_tuple(out, &value)?,
            }
        }
        if close {
            out.push('}');
        }
        Some(())
    }
}

impl<'py> Field<'py> {
    /// The attribute (or column) the field is read from.
    pub fn attr(&self) -> &Bound<'py, PyString> {
        &self.attr
    }
}

fn push_int_tuple(out: &mut String, value: &Bound<'_, PyAny>) -> Spelled {
    if !value.is_exact_instance_of::<PyTuple>() {
        return None;
    }
    out.push('[');
    for (i, item) in value.cast::<PyTuple>().ok()?.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_int(out, &item)?;
    }
    out.push(']');
    Some(())
}

/// Per field, the last string object written and where its text is in the output: a field that
/// repeats one object across records (a file path, a dtype, a finding's code and hint) is
/// escaped once and copied after that.
#[derive(Default)]
pub struct Seen<'py> {
    last: Vec<Option<(Bound<'py, PyAny>, Range<usize>)>>,
}

impl<'py> Seen<'py> {
    fn push(
        &mut self,
        out: &mut String,
        field: usize,
        value: &Bound<'py, PyAny>,
        kind: Kind,
    ) -> Spelled {
        if self.last.len() <= field {
            self.last.resize_with(field + 1, || None);
        }
        if let Some((last, span)) = &self.last[field] {
            // The same object (held here, so its address is not reused): the same text.
            if last.is(value) && span.end <= out.len() && out.is_char_boundary(span.start) {
                // SAFETY: `span` is where a whole `&str` was written into `out` (the output is
                // only ever cut back at record starts, and `forget` then drops every span), so
                // the bytes copied are complete UTF-8 and `out` stays valid UTF-8.
                unsafe { out.as_mut_vec() }.extend_from_within(span.clone());
                return Some(());
            }
        }
        let start = out.len();
        if kind == Kind::Enum {
            let member = value.getattr(pyo3::intern!(value.py(), "_value_")).ok()?;
            push_plain_str(out, &member)?;
        } else {
            push_plain_str(out, value)?;
        }
        self.last[field] = Some((value.clone(), start..out.len()));
        Some(())
    }

    /// Forgets every span: the output was cut back (a record left to Python).
    pub fn forget(&mut self) {
        self.last.clear();
    }
}
