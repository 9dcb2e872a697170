//! Reading `d2t` into integer values, with the dtype and shape checks (VM002 to VM005).

use super::raw::{RawTensor, Values};
use super::report::{locate, undecodable_text};
use crate::Code;
use crate::{Dtype, Finding};

/// Largest magnitude an f64 converts to i64 exactly and in range (2^63 itself overflows).
const F64_I64_LIMIT: f64 = 9_223_372_036_854_775_808.0;

/// Decodes `d2t` to integers. Floats are an error but still analysed when every value is an
/// integer; `None` when the values cannot be used at all.
pub(crate) fn read_d2t(raw: &RawTensor<'_>, out: &mut Vec<Finding>) -> Option<Vec<i64>> {
    check_dtype(raw, out);
    let values = match raw.decode() {
        Ok(values) => values,
        Err(why) => {
            let msg = undecodable_text(raw, &why);
            out.push(locate(Finding::new(Code::VM004, msg), raw));
            return None;
        }
    };
    match values {
        Values::Int(v) if raw.dtype != Dtype::Bool => Some(v),
        Values::Int(_) => {
            let msg = "d2t has dtype BOOL, which cannot hold token ids (is it t2d?)";
            out.push(locate(Finding::new(Code::VM004, msg), raw));
            None
        }
        Values::Float(v) => integral(&v, raw, out),
    }
}

fn check_dtype(raw: &RawTensor<'_>, out: &mut Vec<Finding>) {
    let dtype = raw.dtype;
    if dtype.is_float() {
        let msg = format!(
            "d2t has floating-point dtype {dtype}; it must be an integer tensor (I64, or I32 for \
             TRT-LLM): BF16 cannot represent ids above 256 exactly, F16 above 2048"
        );
        out.push(locate(Finding::new(Code::VM002, msg), raw));
    } else if dtype.is_int() && !matches!(dtype, Dtype::I64 | Dtype::I32) {
        let bits = dtype.bits();
        let range = match dtype {
            Dtype::U8 | Dtype::U16 | Dtype::U32 | Dtype::U64 => {
                "unsigned: it cannot store the negative offsets of a frequency-ordered mapping"
                    .to_string()
            }
            _ => format!("it cannot store offsets of {} or more", 1u64 << (bits - 1)),
        };
        let msg = format!("d2t has dtype {dtype}; producers write I64 (TRT-LLM I32), and {range}");
        out.push(locate(Finding::new(Code::VM003, msg), raw));
    }
}

/// Converts float values to i64 when every one is finite and integral.
fn integral(values: &[f64], raw: &RawTensor<'_>, out: &mut Vec<Finding>) -> Option<Vec<i64>> {
    let usable = |x: f64| x.is_finite() && x.fract() == 0.0 && x.abs() < F64_I64_LIMIT;
    let bad: Vec<(usize, f64)> = values
        .iter()
        .copied()
        .enumerate()
        .filter(|&(_, x)| !usable(x))
        .collect();
    if let Some(&(index, value)) = bad.first() {
        let msg = format!(
            "{} of {} d2t values are not integers (first: d2t[{index}] = {value}); the ids \
             were lost when d2t was stored as {}",
            bad.len(),
            values.len(),
            raw.dtype
        );
        out.push(locate(Finding::new(Code::VM004, msg), raw));
        return None;
    }
    // Every value is integral and below 2^63 in magnitude, so the cast is exact.
    Some(values.iter().map(|&x| x as i64).collect())
}

/// Reports a `d2t` that is not 1-D or whose length differs from the draft vocabulary size.
pub(crate) fn check_d2t_shape(
    raw: &RawTensor<'_>,
    len: usize,
    draft_vocab: Option<u64>,
    out: &mut Vec<Finding>,
) {
    if raw.shape.len() != 1 {
        let msg = format!(
            "d2t has shape {} ({}-D); it must be 1-D [Vd]; analysed as {len} flattened values",
            raw.shape_text(),
            raw.shape.len()
        );
        out.push(locate(Finding::new(Code::VM005, msg), raw));
    }
    if let Some(vd) = draft_vocab.filter(|&vd| vd != len as u64) {
        let msg = format!(
            "d2t has {len} elements but the draft vocabulary has Vd = {vd} (lm_head rows or \
             draft_vocab_size); engines fail to load it or index past its end"
        );
        out.push(locate(Finding::new(Code::VM005, msg), raw));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(dtype: Dtype, data: &[u8], n: u64) -> (Option<Vec<i64>>, Vec<Code>) {
        let raw = RawTensor {
            name: "d2t".into(),
            dtype,
            shape: vec![n],
            data,
            file: None,
        };
        let mut out = Vec::new();
        let v = read_d2t(&raw, &mut out);
        (v, out.iter().map(|f| f.code).collect())
    }

    #[test]
    fn i64_and_i32_are_quiet() {
        let data: Vec<u8> = [0i64, 5].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(read(Dtype::I64, &data, 2), (Some(vec![0, 5]), vec![]));
        let data: Vec<u8> = [-3i32].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(read(Dtype::I32, &data, 1), (Some(vec![-3]), vec![]));
    }

    #[test]
    fn float_is_error_but_analysed_when_integral() {
        let data: Vec<u8> = [3.0f32, -1.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(
            read(Dtype::F32, &data, 2),
            (Some(vec![3, -1]), vec![Code::VM002])
        );
        let data: Vec<u8> = [3.5f32, f32::NAN]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(
            read(Dtype::F32, &data, 2),
            (None, vec![Code::VM002, Code::VM004])
        );
    }

    #[test]
    fn unusual_and_unreadable_dtypes() {
        assert_eq!(
            read(Dtype::U8, &[1, 2], 2),
            (Some(vec![1, 2]), vec![Code::VM003])
        );
        assert_eq!(read(Dtype::Bool, &[1], 1), (None, vec![Code::VM004]));
        assert_eq!(read(Dtype::C64, &[0; 8], 1), (None, vec![Code::VM004]));
        assert_eq!(read(Dtype::I64, &[0; 7], 1), (None, vec![Code::VM004]));
    }
}
