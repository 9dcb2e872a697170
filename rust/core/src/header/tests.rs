//! Unit tests of the header reader on hand-built files, one per finding kind.

use super::*;
use std::path::PathBuf;

fn file(header: &str, data_len: usize) -> Vec<u8> {
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header.as_bytes());
    bytes.resize(bytes.len() + data_len, 0);
    bytes
}

fn codes(bytes: &[u8]) -> Vec<&'static str> {
    read_header(bytes, bytes.len() as u64, &PathBuf::from("t.safetensors"))
        .findings
        .iter()
        .filter(|f| f.severity() != crate::Severity::Info)
        .map(|f| f.code.as_str())
        .collect()
}

#[test]
fn valid_file_has_no_findings() {
    let h = r#"{"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F4","shape":[4],"data_offsets":[8,10]}}"#;
    let padded = format!("{h:<width$}", width = h.len().div_ceil(8) * 8);
    let bytes = file(&padded, 10);
    let report = read_header(&bytes, bytes.len() as u64, &PathBuf::from("t"));
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    assert_eq!(codes(&bytes), Vec::<&str>::new());
    let report = read_header(&bytes, bytes.len() as u64, &PathBuf::from("t"));
    let header = report.header.unwrap();
    assert_eq!(header.tensors.len(), 2);
    assert!(header.tensors.iter().all(|t| t.readable));
    assert_eq!(header.metadata.unwrap()["format"], "pt");
}

#[test]
fn each_malformation_has_its_code() {
    assert_eq!(codes(b"abc"), ["ST001"]);
    let mut huge = (200_000_000u64).to_le_bytes().to_vec();
    huge.extend_from_slice(b"{}");
    assert_eq!(codes(&huge), ["ST002"]);
    let mut short = (100u64).to_le_bytes().to_vec();
    short.extend_from_slice(b"{}");
    assert_eq!(codes(&short), ["ST003"]);
    let mut bad_utf8 = (2u64).to_le_bytes().to_vec();
    bad_utf8.extend_from_slice(&[b'{', 0xff]);
    assert_eq!(codes(&bad_utf8), ["ST004"]);
    assert_eq!(codes(&file("{\"a\":", 0)), ["ST005"]);
    assert_eq!(codes(&file("[1,2]", 0)), ["ST006"]);
    let dup = r#"{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}"#;
    assert_eq!(codes(&file(dup, 2)), ["ST007"]);
    assert_eq!(codes(&file(r#"{"__metadata__":{"k":1}}"#, 0)), ["ST008"]);
    assert_eq!(
        codes(&file(
            r#"{"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,0]}}"#,
            0
        )),
        ["ST009"]
    );
    assert_eq!(
        codes(&file(
            r#"{"a":{"dtype":"Q8","shape":[1],"data_offsets":[0,1]}}"#,
            1
        )),
        ["ST010"]
    );
    let overflow = r#"{"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,0]}}"#;
    assert_eq!(codes(&file(overflow, 0)), ["ST011"]);
    assert_eq!(
        codes(&file(
            r#"{"a":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}}"#,
            2
        )),
        ["ST012"]
    );
    assert_eq!(
        codes(&file(
            r#"{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#,
            8
        )),
        ["ST013"]
    );
    assert_eq!(
        codes(&file(
            r#"{"a":{"dtype":"U8","shape":[0],"data_offsets":[4,0]}}"#,
            0
        )),
        ["ST014", "ST018"]
            .iter()
            .take(1)
            .copied()
            .collect::<Vec<_>>()
    );
    assert_eq!(
        codes(&file(
            r#"{"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}}"#,
            4
        )),
        ["ST015"]
    );
    let overlap = r#"{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}}"#;
    assert_eq!(codes(&file(overlap, 6)), ["ST016"]);
    let hole = r#"{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[2],"data_offsets":[6,8]}}"#;
    assert_eq!(codes(&file(hole, 8)), ["ST017"]);
    assert_eq!(
        codes(&file(
            r#"{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}}"#,
            6
        )),
        ["ST018"]
    );
}

#[test]
fn alignment_is_reported_as_info() {
    let h = r#"{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":{"dtype":"F32","shape":[1],"data_offsets":[1,5]}}"#;
    let bytes = file(h, 5);
    let report = read_header(&bytes, bytes.len() as u64, &PathBuf::from("t"));
    let codes: Vec<_> = report
        .findings
        .iter()
        .map(|f| (f.code, f.severity()))
        .collect();
    assert!(
        codes.contains(&(crate::Code::ST019, crate::Severity::Info)),
        "{codes:?}"
    );
    assert!(
        codes.contains(&(crate::Code::ST020, crate::Severity::Info)),
        "{codes:?}"
    );
}

#[test]
fn offsets_point_into_the_file() {
    let bytes = file(
        r#"{"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}}"#,
        4,
    );
    let report = read_header(&bytes, bytes.len() as u64, &PathBuf::from("t"));
    let f = report.findings.iter().find(|f| f.code == "ST015").unwrap();
    assert_eq!(f.tensor.as_deref(), Some("a"));
    assert_eq!(f.offset, Some(bytes.len() as u64));
}

#[test]
fn json_the_reference_cannot_decode_is_st022_at_the_offending_byte() {
    for (header, bad) in [
        (r#"{"__metadata__":{"k":"\ud800"}}"#, r#"\ud800"#),
        (r#"{"__metadata__":{"k":1e999}}"#, "1e999"),
        (
            r#"{"\ud800x":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}}"#,
            r#"\ud800"#,
        ),
    ] {
        let bytes = file(header, 0);
        let report = read_header(&bytes, bytes.len() as u64, &PathBuf::from("t.safetensors"));
        assert_eq!(codes(&bytes), ["ST022"], "{header}");
        let finding = &report.findings[0];
        let at = finding.offset.unwrap() as usize;
        let start = 8 + header.find(bad).unwrap();
        // serde_json points at (or just past) the offending token.
        assert!((start..=start + bad.len()).contains(&at), "{header}: {at}");
        assert!(
            !finding.message.contains("JSON number"),
            "{}",
            finding.message
        );
    }
    let deep = format!(
        r#"{{"__metadata__":{{"k":{}"v"{}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    assert_eq!(codes(&file(&deep, 0)), ["ST022"]);
}

#[test]
fn a_field_repeated_in_a_tensor_entry_is_st023_at_the_repeat() {
    let header = r#"{"a":{"dtype":"F32","shape":[1],"dtype":"I8","data_offsets":[0,1]}}"#;
    let bytes = file(header, 1);
    let report = read_header(&bytes, bytes.len() as u64, &PathBuf::from("t.safetensors"));
    assert_eq!(codes(&bytes), ["ST023"]);
    let at = report.findings[0].offset.unwrap() as usize;
    assert_eq!(&bytes[at..at + 4], br#""I8""#);
    // Repeating a key the reference does not know is accepted there, and here.
    let extra = r#"{"a":{"dtype":"U8","x":1,"x":2,"shape":[1],"data_offsets":[0,1]}}"#;
    assert_eq!(codes(&file(extra, 1)), Vec::<&str>::new());
}
