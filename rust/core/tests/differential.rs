//! Differential test of the strict header reader against the reference `safetensors` crate:
//! every file the reference accepts we accept with no ST error, and every file it rejects gets at
//! least one ST error from us. Inputs are random valid files and structural or byte mutations.
//!
//! The one deliberate divergence: duplicate names (ST007), which the format forbids but the
//! reference cannot see (serde keeps the last), are excluded from the "accepts" direction.

use eagle3_inspect_core::header::read_header;
use eagle3_inspect_core::{Dtype, Severity};
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::path::Path;

#[derive(Debug, Clone)]
struct Spec {
    tensors: Vec<(String, Dtype, Vec<u64>)>,
    metadata: Option<Vec<(String, String)>>,
    pad_to: u64,
}

fn arb_spec() -> impl Strategy<Value = Spec> {
    let tensor = (
        0usize..Dtype::ALL.len(),
        prop::collection::vec(0u64..5, 0..3),
    );
    (
        prop::collection::vec(tensor, 0..5),
        prop::option::of(prop::collection::vec(("[a-z]{1,4}", "[ -~]{0,6}"), 0..3)),
        prop::sample::select(vec![1u64, 8, 64]),
    )
        .prop_map(|(tensors, metadata, pad_to)| Spec {
            tensors: tensors
                .into_iter()
                .enumerate()
                .map(|(i, (d, mut shape))| {
                    let dtype = Dtype::ALL[d];
                    // Sub-byte dtypes need a whole number of bytes: make the element count even (F4)
                    // or a multiple of 4 (F6) so the valid file really is valid.
                    if !dtype.bits().is_multiple_of(8) {
                        shape = vec![4 * shape.iter().product::<u64>()];
                    }
                    (format!("t{i}"), dtype, shape)
                })
                .collect(),
            metadata,
            pad_to,
        })
}

/// Builds the header object and data for a spec, tensors laid out contiguously.
fn build(spec: &Spec) -> (Map<String, Value>, u64) {
    let mut header = Map::new();
    if let Some(meta) = &spec.metadata {
        let m: Map<String, Value> = meta.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        header.insert("__metadata__".into(), Value::Object(m));
    }
    let mut offset = 0u64;
    for (name, dtype, shape) in &spec.tensors {
        let numel: u64 = shape.iter().product();
        let len = dtype.byte_len(numel).expect("valid spec");
        header.insert(
            name.clone(),
            json!({"dtype": dtype.name(), "shape": shape, "data_offsets": [offset, offset + len]}),
        );
        offset += len;
    }
    (header, offset)
}

fn serialize(header_text: &str, pad_to: u64, data_len: u64) -> Vec<u8> {
    let mut text = header_text.to_owned();
    while !(8 + text.len() as u64).is_multiple_of(pad_to) {
        text.push(' ');
    }
    let mut bytes = (text.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(text.as_bytes());
    bytes.extend((0..data_len).map(|i| (i * 7 % 251) as u8));
    bytes
}

#[derive(Debug, Clone)]
enum Mutation {
    None,
    Truncate(u64),
    AppendBytes(u8),
    FlipByte(u64, u8),
    ShiftOffset(usize, bool, i64),
    SetShape(usize, Vec<i64>),
    SetDtype(usize, String),
    DropField(usize, usize),
    MetadataValue(i64),
    LengthPrefix(u64),
}

fn arb_mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        Just(Mutation::None),
        any::<u64>().prop_map(Mutation::Truncate),
        (1u8..9).prop_map(Mutation::AppendBytes),
        (any::<u64>(), any::<u8>()).prop_map(|(a, b)| Mutation::FlipByte(a, b)),
        (any::<usize>(), any::<bool>(), -9i64..9)
            .prop_map(|(a, b, c)| Mutation::ShiftOffset(a, b, c)),
        (any::<usize>(), prop::collection::vec(-2i64..6, 0..3))
            .prop_map(|(a, b)| Mutation::SetShape(a, b)),
        (
            any::<usize>(),
            prop::sample::select(vec![
                "F32".to_string(),
                "BF16".into(),
                "F4".into(),
                "F6_E3M2".into(),
                "I64".into(),
                "F128".into(),
                "bf16".into()
            ])
        )
            .prop_map(|(a, b)| Mutation::SetDtype(a, b)),
        (any::<usize>(), 0usize..3).prop_map(|(a, b)| Mutation::DropField(a, b)),
        (-3i64..3).prop_map(Mutation::MetadataValue),
        prop::sample::select(vec![0u64, 7, 100_000_001, u64::MAX]).prop_map(Mutation::LengthPrefix),
    ]
}

fn mutate(spec: &Spec, mutation: &Mutation) -> Vec<u8> {
    let (mut header, data_len) = build(spec);
    let names: Vec<String> = spec.tensors.iter().map(|t| t.0.clone()).collect();
    let pick = |i: usize| names.get(i % names.len().max(1)).cloned();
    match mutation {
        Mutation::ShiftOffset(i, end, by) => {
            if let Some(name) = pick(*i) {
                let slot = usize::from(*end);
                let off = &mut header[&name]["data_offsets"][slot];
                *off = json!((off.as_i64().unwrap_or(0) + by).max(0));
            }
        }
        Mutation::SetShape(i, shape) => {
            if let Some(name) = pick(*i) {
                header[&name]["shape"] = json!(shape);
            }
        }
        Mutation::SetDtype(i, dtype) => {
            if let Some(name) = pick(*i) {
                header[&name]["dtype"] = json!(dtype);
            }
        }
        Mutation::DropField(i, f) => {
            if let Some(name) = pick(*i) {
                let field = ["dtype", "shape", "data_offsets"][*f];
                header[&name].as_object_mut().map(|o| o.remove(field));
            }
        }
        Mutation::MetadataValue(v) => {
            header.insert("__metadata__".into(), json!({"k": v}));
        }
        _ => {}
    }
    let mut bytes = serialize(&Value::Object(header).to_string(), spec.pad_to, data_len);
    match mutation {
        Mutation::Truncate(at) => bytes.truncate((*at % (bytes.len() as u64 + 1)) as usize),
        Mutation::AppendBytes(n) => bytes.extend(std::iter::repeat_n(0u8, usize::from(*n))),
        Mutation::FlipByte(at, v) => {
            let i = (*at % bytes.len() as u64) as usize;
            bytes[i] ^= v | 1;
        }
        Mutation::LengthPrefix(n) => bytes[..8].copy_from_slice(&n.to_le_bytes()),
        _ => {}
    }
    bytes
}

fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    let reference = safetensors::SafeTensors::deserialize(bytes);
    let report = read_header(bytes, bytes.len() as u64, Path::new("f.safetensors"));
    let errors: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.severity() == Severity::Error)
        .collect();
    let duplicate = errors.iter().any(|f| f.code == "ST007");
    match reference {
        Ok(_) if !duplicate => {
            prop_assert!(errors.is_empty(), "reference accepts, we report {errors:?}")
        }
        Ok(_) => {}
        Err(err) => prop_assert!(
            !errors.is_empty(),
            "reference rejects ({err}), we report nothing"
        ),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn agrees_with_reference_on_valid_and_mutated_files(spec in arb_spec(), mutation in arb_mutation()) {
        check(&mutate(&spec, &mutation))?;
    }

    #[test]
    fn never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = read_header(&bytes, bytes.len() as u64, Path::new("f"));
    }

    #[test]
    fn agrees_on_arbitrary_json_headers(text in r#"\{("[a-z_]{1,3}":\{"dtype":"(U8|F32|F4)","shape":\[[0-9]{0,2}\],"data_offsets":\[[0-9]{1,2},[0-9]{1,2}\]\},?){0,3}\}"#, data in 0u64..40) {
        check(&serialize(&text, 1, data))?;
    }
}

#[test]
fn valid_files_of_every_dtype_are_accepted() {
    for dtype in Dtype::ALL {
        let spec = Spec {
            tensors: vec![("x".into(), dtype, vec![4, 2])],
            metadata: None,
            pad_to: 8,
        };
        let (header, len) = build(&spec);
        let bytes = serialize(&Value::Object(header).to_string(), 8, len);
        assert!(
            safetensors::SafeTensors::deserialize(&bytes).is_ok(),
            "{dtype}"
        );
        let report = read_header(&bytes, bytes.len() as u64, Path::new("f"));
        assert!(report.findings.is_empty(), "{dtype}: {:?}", report.findings);
    }
}
