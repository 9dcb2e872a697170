//! Replays the committed fuzz corpus (tests/fuzz/corpus) through the reference `safetensors`
//! crate and our header reader: the crate rejects => at least one ST error; it accepts => no ST
//! error unless the file repeats a tensor name (ST007, the documented extra strictness); every
//! finding names the file and a byte offset. The Python side (tests/test_fuzz.py) checks the
//! same corpus against the `safetensors` Python package.

use eagle3_inspect_core::header::read_header;
use eagle3_inspect_core::Severity;
use safetensors::SafeTensors;
use std::path::PathBuf;

fn corpus_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fuzz/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus directory")
        .map(|e| e.expect("corpus entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "safetensors"))
        .collect();
    files.sort();
    files
}

#[test]
fn corpus_agrees_with_the_reference_crate() {
    let files = corpus_files();
    assert!(files.len() >= 20, "corpus has {} files", files.len());
    let mut disagreements = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).expect("read corpus file");
        let accepts = SafeTensors::deserialize(&bytes).is_ok();
        let report = read_header(&bytes, bytes.len() as u64, path);
        for finding in &report.findings {
            assert!(
                finding.file.is_some() && finding.offset.is_some(),
                "{}: {finding:?}",
                path.display()
            );
        }
        let errors: Vec<&str> = report
            .findings
            .iter()
            .filter(|f| f.severity() == Severity::Error)
            .map(|f| f.code.as_str())
            .collect();
        let agrees = if accepts {
            errors.is_empty() || errors.contains(&"ST007")
        } else {
            !errors.is_empty()
        };
        if !agrees {
            disagreements.push(format!("{} accepts={accepts} {errors:?}", path.display()));
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}
