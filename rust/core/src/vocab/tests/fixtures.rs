//! Test fixtures: owned tensors, realistic mappings in each producer's layout, and a runner.

use crate::vocab::{analyze_vocab, RawTensor, VocabAnalysis, VocabInputs};
use crate::Code;
use crate::{Dtype, Severity};

/// A tensor that owns its bytes; `raw()` borrows it as the analysis input.
#[derive(Debug, Clone)]
pub(crate) struct Owned {
    pub name: String,
    pub dtype: Dtype,
    pub shape: Vec<u64>,
    pub bytes: Vec<u8>,
}

impl Owned {
    pub fn raw(&self) -> RawTensor<'_> {
        RawTensor {
            name: self.name.clone(),
            dtype: self.dtype,
            shape: self.shape.clone(),
            data: &self.bytes,
            file: Some("model.safetensors".into()),
        }
    }
}

/// A 1-D tensor of `values` encoded as `dtype` (I64, I32, U32, F32 or BF16).
pub(crate) fn ints(name: &str, dtype: Dtype, values: &[i64]) -> Owned {
    let bytes = values
        .iter()
        .flat_map(|&v| match dtype {
            Dtype::I64 => v.to_le_bytes().to_vec(),
            Dtype::I32 => (v as i32).to_le_bytes().to_vec(),
            Dtype::U32 => (v as u32).to_le_bytes().to_vec(),
            Dtype::F32 => (v as f32).to_le_bytes().to_vec(),
            Dtype::Bf16 => half::bf16::from_f64(v as f64).to_le_bytes().to_vec(),
            other => panic!("fixture does not encode {other}"),
        })
        .collect();
    let shape = vec![values.len() as u64];
    Owned {
        name: name.into(),
        dtype,
        shape,
        bytes,
    }
}

/// `d2t` as I64.
pub(crate) fn d2t(values: &[i64]) -> Owned {
    ints("d2t", Dtype::I64, values)
}

/// A BOOL `t2d` of length `vt` selecting `selected`.
pub(crate) fn t2d(vt: u64, selected: &[i64]) -> Owned {
    let mut bytes = vec![0u8; vt as usize];
    for &id in selected {
        bytes[id as usize] = 1;
    }
    Owned {
        name: "t2d".into(),
        dtype: Dtype::Bool,
        shape: vec![vt],
        bytes,
    }
}

/// Offsets encoding of a selection in the given order: `d2t[i] = sel[i] - i`.
pub(crate) fn offsets(selection: &[i64]) -> Vec<i64> {
    (0..).zip(selection).map(|(i, &s)| s - i).collect()
}

/// Vt and Vd of the realistic fixtures.
pub(crate) const VT: u64 = 1000;
pub(crate) const VD: u64 = 120;

/// A frequency-style selection of `VD` ids out of `VT`: most low ids, a scattered middle and
/// the high special ids, in *frequency* order (high special tokens first, as Model-Optimizer).
pub(crate) fn frequency_selection() -> Vec<i64> {
    let mut ids: Vec<i64> = vec![999, 998, 3, 17, 990];
    ids.extend((0..70).filter(|i| *i != 3 && *i != 17));
    ids.extend((0..47).map(|k| 100 + 17 * k));
    ids.reverse();
    assert_eq!(ids.len() as u64, VD);
    ids
}

/// The same selection sorted ascending, as EAGLE, SpecForge and speculators write it.
pub(crate) fn sorted_selection() -> Vec<i64> {
    let mut ids = frequency_selection();
    ids.sort_unstable();
    ids
}

/// Runs the analysis with the given tensors and sizes.
pub(crate) fn run(
    d2t: Option<&Owned>,
    t2d: Option<&Owned>,
    vd: Option<u64>,
    vt: Option<u64>,
) -> VocabAnalysis {
    analyze_vocab(&VocabInputs {
        d2t: d2t.map(Owned::raw),
        t2d: t2d.map(Owned::raw),
        draft_vocab: vd,
        target_vocab: vt,
    })
}

/// The codes of all findings, in order.
pub(crate) fn codes(a: &VocabAnalysis) -> Vec<Code> {
    a.findings.iter().map(|f| f.code).collect()
}

/// The codes of error findings.
pub(crate) fn errors(a: &VocabAnalysis) -> Vec<Code> {
    let errs = a
        .findings
        .iter()
        .filter(|f| f.severity() == Severity::Error);
    errs.map(|f| f.code).collect()
}
