//! Differential test through the reference `safetensors` crate: tensors serialised to a real
//! safetensors buffer and read back give the same analysis as the in-memory fixtures.

use super::fixtures::*;
use crate::vocab::{analyze_vocab, RawTensor, VocabInputs};
use crate::Dtype;
use safetensors::tensor::{serialize, SafeTensors, TensorView};

fn round_trip(tensors: &[&Owned]) -> Vec<u8> {
    let views: Vec<(String, TensorView<'_>)> = tensors
        .iter()
        .map(|t| {
            let dtype = match t.dtype {
                Dtype::I64 => safetensors::Dtype::I64,
                Dtype::I32 => safetensors::Dtype::I32,
                Dtype::Bool => safetensors::Dtype::BOOL,
                other => panic!("not used here: {other}"),
            };
            let shape = t.shape.iter().map(|&d| d as usize).collect();
            let view = TensorView::new(dtype, shape, &t.bytes).expect("valid view");
            (t.name.clone(), view)
        })
        .collect();
    serialize(views, None).expect("serialisable")
}

fn read<'a>(file: &'a SafeTensors<'a>, name: &str) -> RawTensor<'a> {
    let view = file.tensor(name).expect("present");
    RawTensor {
        name: name.into(),
        dtype: Dtype::parse(&format!("{:?}", view.dtype())).expect("known dtype"),
        shape: view.shape().iter().map(|&d| d as u64).collect(),
        data: view.data(),
        file: Some("model.safetensors".into()),
    }
}

#[test]
fn analysis_of_a_real_safetensors_buffer_matches_fixtures() {
    let sel = sorted_selection();
    let freq = frequency_selection();
    let cases = [
        (d2t(&offsets(&sel)), Some(t2d(VT, &sel))),
        (d2t(&sel), Some(t2d(VT, &sel))),
        (ints("d2t", Dtype::I32, &offsets(&freq)), None),
    ];
    for (d, t) in cases {
        let mut owned = vec![&d];
        owned.extend(t.as_ref());
        let bytes = round_trip(&owned);
        let file = SafeTensors::deserialize(&bytes).expect("readable");
        let from_file = analyze_vocab(&VocabInputs {
            d2t: Some(read(&file, "d2t")),
            t2d: t.as_ref().map(|_| read(&file, "t2d")),
            draft_vocab: Some(VD),
            target_vocab: Some(VT),
        });
        let from_memory = run(Some(&d), t.as_ref(), Some(VD), Some(VT));
        assert_eq!(from_file, from_memory);
        assert!(from_file.target_ids.is_some());
    }
}
