//! One finding: `Finding.to_json()`.

use super::spell::{push_int, push_optional_str, push_plain_str, Repeated, Spelled};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// `Finding.to_json()` of `finding`.
pub fn finding_record<'py>(
    out: &mut String,
    finding: &Bound<'py, PyAny>,
    seen: &mut [Repeated<'py>; 4],
) -> Spelled {
    let py = finding.py();
    let get = |name: &Bound<'py, PyString>| finding.getattr(name).ok();
    out.push_str("{\"code\": ");
    seen[0].push(out, &get(intern!(py, "code"))?, push_plain_str)?;
    out.push_str(", \"severity\": ");
    seen[1].push(out, &get(intern!(py, "severity"))?, push_severity)?;
    out.push_str(", \"message\": ");
    push_plain_str(out, &get(intern!(py, "message"))?)?;
    out.push_str(", \"file\": ");
    seen[2].push(out, &get(intern!(py, "file"))?, push_optional_str)?;
    out.push_str(", \"tensor\": ");
    push_optional_str(out, &get(intern!(py, "tensor"))?)?;
    out.push_str(", \"offset\": ");
    let offset = get(intern!(py, "offset"))?;
    if offset.is_none() {
        out.push_str("null");
    } else {
        push_int(out, &offset)?;
    }
    out.push_str(", \"config_key\": ");
    push_optional_str(out, &get(intern!(py, "config_key"))?)?;
    out.push_str(", \"hint\": ");
    seen[3].push(out, &get(intern!(py, "hint"))?, push_optional_str)?;
    out.push_str(", \"engine\": ");
    push_optional_str(out, &get(intern!(py, "engine"))?)?;
    out.push('}');
    Some(())
}

/// A Severity member as its value (`severity._value_`, what `Finding.to_json` writes).
fn push_severity(out: &mut String, severity: &Bound<'_, PyAny>) -> Spelled {
    push_plain_str(
        out,
        &severity.getattr(intern!(severity.py(), "_value_")).ok()?,
    )
}
