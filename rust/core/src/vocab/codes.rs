//! The VM (vocab mapping) finding codes: one named constant per code, and its fixed severity.
//!
//! The documentation of every code (why, engine behaviour, fix) lives in the Python rule registry
//! (`eagle3_inspect/rules/vm/codes.toml`); `crate::codes` exports this table to Python, where a test
//! checks that every code is defined there with the same severity.

use crate::{Finding, Severity};

/// `d2t` is absent while the draft vocabulary is smaller than the target vocabulary.
pub const D2T_MISSING: &str = "VM001";
/// `d2t` has a floating-point dtype.
pub const D2T_FLOAT: &str = "VM002";
/// `d2t` has an integer dtype other than I64 or I32.
pub const D2T_UNUSUAL_INT: &str = "VM003";
/// `d2t` cannot be decoded into integer ids (length mismatch, dtype, non-integral values).
pub const D2T_UNREADABLE: &str = "VM004";
/// `d2t` is not 1-D or its length is not the draft vocabulary size.
pub const D2T_SHAPE: &str = "VM005";
/// `d2t` stores absolute target ids instead of offsets.
pub const D2T_ABSOLUTE: &str = "VM006";
/// `d2t` is valid both as offsets and as absolute ids; read as offsets like every engine.
pub const D2T_AMBIGUOUS: &str = "VM007";
/// Target ids outside `[0, Vt)`.
pub const TARGET_OUT_OF_RANGE: &str = "VM008";
/// Duplicate target ids.
pub const TARGET_DUPLICATES: &str = "VM009";
/// Target ids not in ascending order although `t2d` is present.
pub const TARGET_UNSORTED_WITH_T2D: &str = "VM010";
/// Target ids in frequency (not ascending) order, no `t2d`: the Model-Optimizer layout.
pub const TARGET_FREQUENCY_ORDER: &str = "VM011";
/// `d2t` is all zeros while Vd < Vt: the mapping was never saved.
pub const D2T_ALL_ZEROS: &str = "VM012";
/// `d2t == arange(Vd)`: the default-initialisation bug that maps draft id i to target id 2i.
pub const D2T_ARANGE: &str = "VM013";
/// `t2d` is not a BOOL 0/1 mask.
pub const T2D_NOT_BOOL: &str = "VM014";
/// `t2d` cannot be decoded (length mismatch or dtype).
pub const T2D_UNREADABLE: &str = "VM015";
/// `t2d` is not 1-D or its length is not the target vocabulary size.
pub const T2D_SHAPE: &str = "VM016";
/// `t2d.sum()` differs from the draft vocabulary size.
pub const T2D_COUNT: &str = "VM017";
/// `t2d` and `d2t` select different sets of target ids.
pub const T2D_D2T_MISMATCH: &str = "VM018";
/// The draft vocabulary is larger than the target vocabulary.
pub const DRAFT_LARGER_THAN_TARGET: &str = "VM019";
/// Vd == Vt and the stored buffers are the identity: nothing to map.
pub const FULL_VOCAB_IDENTITY: &str = "VM020";
/// Vd == Vt but `d2t` is not all zeros: engines disagree on whether to apply it.
pub const FULL_VOCAB_NOT_IDENTITY: &str = "VM021";
/// The target vocabulary size is unknown, so upper bounds were not checked.
pub const TARGET_VOCAB_UNKNOWN: &str = "VM022";
/// `d2t` looks like absolute ids by statistics only (no `t2d`, both readings valid): a
/// heuristic, so a warning; VM006 / VM013 are kept for verdicts `t2d` or a hard rule decides.
pub const D2T_LIKELY_ABSOLUTE: &str = "VM023";

/// Every VM code with its severity and one-line summary, in code order.
pub const RULES: [(&str, Severity, &str); 23] = [
    (D2T_MISSING, Severity::Error, "d2t missing while Vd < Vt"),
    (D2T_FLOAT, Severity::Error, "d2t has a floating-point dtype"),
    (
        D2T_UNUSUAL_INT,
        Severity::Warning,
        "d2t integer dtype is not I64 or I32",
    ),
    (
        D2T_UNREADABLE,
        Severity::Error,
        "d2t cannot be decoded into integer ids",
    ),
    (D2T_SHAPE, Severity::Error, "d2t shape is not [Vd]"),
    (
        D2T_ABSOLUTE,
        Severity::Error,
        "d2t stores absolute target ids, not offsets",
    ),
    (
        D2T_AMBIGUOUS,
        Severity::Warning,
        "d2t encoding is ambiguous (offsets assumed)",
    ),
    (
        TARGET_OUT_OF_RANGE,
        Severity::Error,
        "target ids outside [0, Vt)",
    ),
    (TARGET_DUPLICATES, Severity::Error, "duplicate target ids"),
    (
        TARGET_UNSORTED_WITH_T2D,
        Severity::Error,
        "target ids out of order although t2d is present",
    ),
    (
        TARGET_FREQUENCY_ORDER,
        Severity::Info,
        "target ids in frequency order (no t2d)",
    ),
    (
        D2T_ALL_ZEROS,
        Severity::Error,
        "d2t all zeros while Vd < Vt",
    ),
    (
        D2T_ARANGE,
        Severity::Error,
        "d2t == arange(Vd): draft id i maps to 2i",
    ),
    (
        T2D_NOT_BOOL,
        Severity::Warning,
        "t2d is not a BOOL 0/1 mask",
    ),
    (T2D_UNREADABLE, Severity::Error, "t2d cannot be decoded"),
    (T2D_SHAPE, Severity::Error, "t2d shape is not [Vt]"),
    (T2D_COUNT, Severity::Error, "t2d.sum() != Vd"),
    (
        T2D_D2T_MISMATCH,
        Severity::Error,
        "t2d and d2t select different token sets",
    ),
    (
        DRAFT_LARGER_THAN_TARGET,
        Severity::Error,
        "draft vocabulary larger than target vocabulary",
    ),
    (
        FULL_VOCAB_IDENTITY,
        Severity::Info,
        "Vd == Vt: identity mapping",
    ),
    (
        FULL_VOCAB_NOT_IDENTITY,
        Severity::Warning,
        "Vd == Vt but d2t is not all zeros",
    ),
    (
        TARGET_VOCAB_UNKNOWN,
        Severity::Info,
        "target vocabulary size unknown",
    ),
    (
        D2T_LIKELY_ABSOLUTE,
        Severity::Warning,
        "d2t looks like absolute ids (statistical, no t2d)",
    ),
];

/// The fixed severity of a VM code (`Error` for an unknown code, which no caller passes).
pub fn severity(code: &str) -> Severity {
    RULES
        .iter()
        .find(|(c, _, _)| *c == code)
        .map_or(Severity::Error, |(_, s, _)| *s)
}

/// A finding for `code` with its catalogue severity.
pub(crate) fn finding(code: &'static str, message: impl Into<String>) -> Finding {
    Finding::new(code, severity(code), message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_numbered_in_order() {
        for (i, (code, _, _)) in RULES.iter().enumerate() {
            assert_eq!(*code, format!("VM{:03}", i + 1));
        }
    }
}
