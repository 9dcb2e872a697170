//! The writer against the reference reader (`safetensors::SafeTensors`): copied bytes are the
//! source's bytes, owned tensors land as given, and every bad request is an error, not a file.

use super::*;
use safetensors::tensor::TensorView as RefView;
use safetensors::SafeTensors;

fn source(dir: &Path) -> PathBuf {
    let a: Vec<u8> = (0..24u8).collect();
    let b: Vec<u8> = (100..108u8).collect();
    let tensors = vec![
        (
            "layers.0.w",
            RefView::new(StDtype::BF16, vec![3, 4], &a).unwrap(),
        ),
        ("d2t", RefView::new(StDtype::I64, vec![1], &b).unwrap()),
    ];
    let path = dir.join("src.safetensors");
    safetensors::serialize_to_file(tensors, None, &path).unwrap();
    path
}

fn copy(name: &str, file: &Path, source_name: &str) -> CopiedTensor {
    CopiedTensor {
        name: name.into(),
        file: file.into(),
        source_name: source_name.into(),
    }
}

#[test]
fn copies_renamed_bytes_and_owned_tensors_and_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let src = source(dir.path());
    let dest = dir.path().join("out.safetensors");
    let owned = OwnedTensor {
        name: "t2d".into(),
        dtype: "BOOL".into(),
        shape: vec![2],
        data: vec![1, 0],
    };
    let meta = BTreeMap::from([("format".to_string(), "pt".to_string())]);
    let len = write_file(
        &dest,
        &[copy("midlayer.w", &src, "layers.0.w")],
        &[owned],
        Some(meta),
    )
    .unwrap();
    let bytes = std::fs::read(&dest).unwrap();
    assert_eq!(len, bytes.len() as u64);
    let (_, metadata) = SafeTensors::read_metadata(&bytes).unwrap();
    assert_eq!(metadata.metadata().as_ref().unwrap()["format"], "pt");
    let read = SafeTensors::deserialize(&bytes).unwrap();
    let w = read.tensor("midlayer.w").unwrap();
    assert_eq!(w.dtype(), StDtype::BF16);
    assert_eq!(w.shape(), &[3, 4]);
    assert_eq!(w.data(), (0..24u8).collect::<Vec<_>>().as_slice());
    assert_eq!(read.tensor("t2d").unwrap().data(), &[1, 0]);
    assert_eq!(read.names().len(), 2);
    assert!(
        std::fs::read(&src).unwrap().len() > 8,
        "source is untouched"
    );
}

#[test]
fn refuses_duplicate_names_short_data_missing_tensors_and_existing_dest() {
    let dir = tempfile::tempdir().unwrap();
    let src = source(dir.path());
    let dest = dir.path().join("out.safetensors");
    let twice = [copy("x", &src, "d2t"), copy("x", &src, "layers.0.w")];
    assert!(matches!(
        write_file(&dest, &twice, &[], None),
        Err(Error::InvalidArgument(m)) if m.contains("twice")
    ));
    let short = OwnedTensor {
        name: "d2t".into(),
        dtype: "I64".into(),
        shape: vec![3],
        data: vec![0; 16],
    };
    assert!(write_file(&dest, &[], &[short], None).is_err());
    let missing = write_file(&dest, &[copy("y", &src, "nope")], &[], None);
    assert!(matches!(missing, Err(Error::TensorUnreadable { name, .. }) if name == "nope"));
    assert!(!dest.exists(), "no file is written for a refused request");
    assert!(write_file(&src, &[copy("d2t", &src, "d2t")], &[], None).is_err());
}

#[test]
fn reports_a_failed_write_with_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let src = source(dir.path());
    let dest = dir.path().join("no-such-dir").join("out.safetensors");
    let err = write_file(&dest, &[copy("d2t", &src, "d2t")], &[], None).unwrap_err();
    assert!(err.to_string().contains("no-such-dir"), "{err}");
}
