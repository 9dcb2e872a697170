//! Small helpers shared by the vocab checks: attaching locations and wording decode failures.

use super::raw::{RawTensor, Undecodable};
use crate::Finding;

/// Attaches the tensor name and file of `raw` to a finding.
pub(crate) fn locate(finding: Finding, raw: &RawTensor<'_>) -> Finding {
    let finding = finding.tensor(raw.name.clone());
    match &raw.file {
        Some(file) => finding.file(file.clone()),
        None => finding,
    }
}

/// A sentence saying why `raw` could not be decoded.
pub(crate) fn undecodable_text(raw: &RawTensor<'_>, why: &Undecodable) -> String {
    let name = &raw.name;
    match why {
        Undecodable::Length {
            expected: Some(expected),
            actual,
        } => format!(
            "{name} has shape {} and dtype {}, which need {expected} bytes, but holds {actual}",
            raw.shape_text(),
            raw.dtype
        ),
        Undecodable::Length {
            expected: None,
            actual,
        } => format!(
            "{name} has shape {} whose byte size overflows (it holds {actual} bytes)",
            raw.shape_text()
        ),
        Undecodable::Dtype => format!(
            "{name} has dtype {}, which cannot hold token ids",
            raw.dtype
        ),
        Undecodable::TooMany { numel } => format!(
            "{name} has {numel} elements, more than any vocabulary (limit {}); not decoded",
            super::raw::MAX_VOCAB_ELEMENTS
        ),
        Undecodable::TooLarge { index, value } => {
            format!(
                "{name}[{index}] = {value} does not fit in int64, so it is no token id or offset"
            )
        }
    }
}
