//! Reading `t2d`, the target-vocabulary mask: which target ids the draft vocabulary selects.

use super::raw::{RawTensor, Undecodable, Values};
use super::report::{locate, undecodable_text};
use crate::Code;
use crate::{Dtype, Finding};

/// The decoded mask.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct T2dMask {
    /// Number of elements (the target vocabulary size it implies).
    pub len: u64,
    /// `nonzero(t2d)`: selected target ids, ascending.
    pub selected: Vec<i64>,
}

/// Decodes `t2d` (any integer, BOOL or float dtype; nonzero means selected, as `torch.nonzero`),
/// reporting a non-BOOL dtype, values other than 0/1, undecodable bytes and a wrong shape.
pub(crate) fn read_t2d(
    raw: &RawTensor<'_>,
    target_vocab: Option<u64>,
    out: &mut Vec<Finding>,
) -> Option<T2dMask> {
    let values = match raw.decode() {
        Ok(values) => values,
        Err(why) => {
            let msg = match why {
                Undecodable::Dtype => format!("t2d has dtype {}, which is not decoded", raw.dtype),
                other => undecodable_text(raw, &other),
            };
            out.push(locate(Finding::new(Code::VM015, msg), raw));
            return None;
        }
    };
    let (selected, non_binary) = match &values {
        Values::Int(v) => mask_of(v.iter().map(|&x| (x != 0, x != 0 && x != 1))),
        Values::Float(v) => mask_of(v.iter().map(|&x| (x != 0.0, x != 0.0 && x != 1.0))),
    };
    if raw.dtype != Dtype::Bool || non_binary > 0 {
        let msg = format!(
            "t2d has dtype {} (expected BOOL) and {non_binary} value(s) other than 0 and 1; \
             read as nonzero = selected",
            raw.dtype
        );
        out.push(locate(Finding::new(Code::VM014, msg), raw));
    }
    let len = match &values {
        Values::Int(v) => v.len() as u64,
        Values::Float(v) => v.len() as u64,
    };
    check_shape(raw, len, target_vocab, out);
    Some(T2dMask { len, selected })
}

fn mask_of(flags: impl Iterator<Item = (bool, bool)>) -> (Vec<i64>, u64) {
    let mut selected = Vec::new();
    let mut non_binary = 0u64;
    for (id, (on, odd)) in (0i64..).zip(flags) {
        if on {
            selected.push(id);
        }
        non_binary += u64::from(odd);
    }
    (selected, non_binary)
}

fn check_shape(raw: &RawTensor<'_>, len: u64, target_vocab: Option<u64>, out: &mut Vec<Finding>) {
    if raw.shape.len() != 1 {
        let msg = format!(
            "t2d has shape {} ({}-D); it must be 1-D [Vt]",
            raw.shape_text(),
            raw.shape.len()
        );
        out.push(locate(Finding::new(Code::VM016, msg), raw));
    }
    if let Some(vt) = target_vocab.filter(|&vt| vt != len) {
        let msg = format!("t2d has {len} elements but the target vocabulary has Vt = {vt}");
        out.push(locate(Finding::new(Code::VM016, msg), raw));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(
        dtype: Dtype,
        shape: &[u64],
        data: &[u8],
        vt: Option<u64>,
    ) -> (Option<T2dMask>, Vec<Code>) {
        let raw = RawTensor {
            name: "t2d".into(),
            dtype,
            shape: shape.to_vec(),
            data,
            file: None,
        };
        let mut out = Vec::new();
        let m = read_t2d(&raw, vt, &mut out);
        (m, out.iter().map(|f| f.code).collect())
    }

    #[test]
    fn bool_mask_is_quiet() {
        let (m, codes) = mask(Dtype::Bool, &[5], &[0, 1, 1, 0, 1], Some(5));
        assert_eq!(m.map(|m| m.selected), Some(vec![1, 2, 4]));
        assert!(codes.is_empty());
    }

    #[test]
    fn non_bool_and_shape_findings() {
        let (m, codes) = mask(Dtype::U8, &[1, 4], &[0, 2, 1, 0], Some(5));
        assert_eq!(m.map(|m| (m.len, m.selected)), Some((4, vec![1, 2])));
        assert_eq!(codes, vec![Code::VM014, Code::VM016, Code::VM016]);
        let (m, codes) = mask(Dtype::Bool, &[4], &[0, 1], None);
        assert!(m.is_none());
        assert_eq!(codes, vec![Code::VM015]);
        let neg_zero = (-0.0f32).to_le_bytes();
        let (m, _) = mask(Dtype::F32, &[1], &neg_zero, None);
        assert_eq!(m.map(|m| m.selected), Some(vec![]));
    }
}
