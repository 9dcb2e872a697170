//! The writer against the reference reader (`safetensors::SafeTensors`): copied bytes are the
//! source's bytes, owned tensors land as given, and every bad request is an error, not a file.

use super::*;
use crate::NoProgress;
use safetensors::tensor::TensorView as RefView;
use safetensors::SafeTensors;

fn write(
    dest: &Path,
    copied: &[CopiedTensor],
    owned: &[OwnedTensor],
    metadata: Option<BTreeMap<String, String>>,
) -> Result<WriteReport> {
    write_file(
        dest,
        copied,
        owned,
        metadata,
        &WriteOptions::default(),
        &NoProgress,
    )
}

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
    let report = write(
        &dest,
        &[copy("midlayer.w", &src, "layers.0.w")],
        &[owned],
        Some(meta),
    )
    .unwrap();
    let bytes = std::fs::read(&dest).unwrap();
    assert_eq!(report.size, bytes.len() as u64);
    let names: Vec<_> = report.tensors.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["midlayer.w", "t2d"]);
    assert!(report.tensors.iter().all(|t| t.problem.is_none()));
    assert_eq!(
        report.tensors[0].source,
        Some((src.clone(), "layers.0.w".to_string()))
    );
    assert_eq!(report.tensors[1].source, None);
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
        write(&dest, &twice, &[], None),
        Err(Error::InvalidArgument(m)) if m.contains("twice")
    ));
    let short = OwnedTensor {
        name: "d2t".into(),
        dtype: "I64".into(),
        shape: vec![3],
        data: vec![0; 16],
    };
    assert!(write(&dest, &[], &[short], None).is_err());
    let missing = write(&dest, &[copy("y", &src, "nope")], &[], None);
    assert!(matches!(missing, Err(Error::TensorUnreadable { name, .. }) if name == "nope"));
    assert!(!dest.exists(), "no file is written for a refused request");
    assert!(write(&src, &[copy("d2t", &src, "d2t")], &[], None).is_err());
}

#[test]
fn reports_a_failed_write_with_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let src = source(dir.path());
    let dest = dir.path().join("no-such-dir").join("out.safetensors");
    let err = write(&dest, &[copy("d2t", &src, "d2t")], &[], None).unwrap_err();
    assert!(err.to_string().contains("no-such-dir"), "{err}");
}

#[test]
fn the_header_is_the_one_the_reference_serializer_writes() {
    let dir = tempfile::tempdir().unwrap();
    let src = source(dir.path());
    let dest = dir.path().join("out.safetensors");
    let copied = [copy("b", &src, "d2t"), copy("a", &src, "layers.0.w")];
    let meta = BTreeMap::from([("format".to_string(), "pt".to_string())]);
    write(&dest, &copied, &[], Some(meta.clone())).unwrap();
    let a: Vec<u8> = (0..24u8).collect();
    let b: Vec<u8> = (100..108u8).collect();
    let reference = dir.path().join("reference.safetensors");
    let views = vec![
        ("b", RefView::new(StDtype::I64, vec![1], &b).unwrap()),
        ("a", RefView::new(StDtype::BF16, vec![3, 4], &a).unwrap()),
    ];
    let info = Some(meta.into_iter().collect());
    safetensors::serialize_to_file(views, info, &reference).unwrap();
    assert_eq!(
        std::fs::read(&dest).unwrap(),
        std::fs::read(&reference).unwrap()
    );
}

#[test]
fn statistics_are_those_of_a_pass_over_the_written_file() {
    use crate::stats::{compute_stats, StatsOptions, StatsTask};
    let dir = tempfile::tempdir().unwrap();
    // Two chunks and a ragged piece of BF16, plus an I64 tensor.
    let n = (DEFAULT_CHUNK + 1000) / 2;
    let values: Vec<u8> = (0..2 * n).map(|i| (i * 7919 % 251) as u8 & 0xBF).collect();
    let ids: Vec<u8> = (0..80u8).collect();
    let tensors = vec![
        ("w", RefView::new(StDtype::BF16, vec![n], &values).unwrap()),
        ("ids", RefView::new(StDtype::I64, vec![10], &ids).unwrap()),
    ];
    let src = dir.path().join("src.safetensors");
    safetensors::serialize_to_file(tensors, None, &src).unwrap();
    let dest = dir.path().join("out.safetensors");
    let opts = WriteOptions { threads: Some(3) };
    let copied = [copy("x.w", &src, "w"), copy("x.ids", &src, "ids")];
    let report = write_file(&dest, &copied, &[], None, &opts, &NoProgress).unwrap();
    let written = crate::Checkpoint::open(&dest).unwrap();
    for t in &report.tensors {
        assert_eq!(t.problem, None);
        let (_, entry, data) = written.tensor_bytes(&t.name).unwrap();
        let task = StatsTask {
            dtype: entry.dtype.unwrap(),
            numel: entry.numel().unwrap(),
            data: &data,
        };
        let pass = compute_stats(&[task], &StatsOptions::default(), &NoProgress).unwrap();
        assert_eq!(t.stats.as_ref(), Some(&pass[0]), "{}", t.name);
    }
}

const DEFAULT_CHUNK: usize = crate::stats::DEFAULT_CHUNK_BYTES;
