//! The torch readers end to end on files built by `test_files` (torch's own layout): tensors,
//! views, tied storages, both formats, hostile pickles and every refusal, and mutated files
//! (proptest) that never panic and never report an unlocated finding.

use super::pickle::ops;
use super::test_files::{f32s, legacy, state_dict, torch_zip, zip, Spec, P};
use super::{read, sniff, Format};
use crate::shard::Shard;
use crate::Dtype;
use proptest::prelude::*;
use std::path::Path;

fn path() -> &'static Path {
    Path::new("model.bin")
}

fn codes(file: &super::TorchFile) -> Vec<&'static str> {
    file.findings.iter().map(|f| f.code.as_str()).collect()
}

fn read_zip(bytes: &[u8]) -> super::TorchFile {
    read(&bytes, path(), Format::TorchZip)
}

fn read_legacy(bytes: &[u8]) -> super::TorchFile {
    read(&bytes, path(), Format::TorchLegacy)
}

fn two_tensors() -> (Vec<u8>, Vec<(&'static str, Vec<u8>)>) {
    let specs = [
        Spec::plain("fc.weight", "FloatStorage", "0", &[2, 3]),
        Spec::plain("norm", "BFloat16Storage", "1", &[4]),
    ];
    let storages = vec![
        ("0", f32s(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0])),
        ("1", vec![0x80, 0x3f, 0, 0x40, 0x40, 0x40, 0x80, 0x40]),
    ];
    (state_dict(&specs, false), storages)
}

#[test]
fn a_zip_state_dict_reads_as_a_tensor_table_of_aligned_zero_copy_ranges() {
    let (pickle, storages) = two_tensors();
    let bytes = torch_zip(pickle, &storages);
    assert_eq!(sniff(path(), &bytes), Format::TorchZip);
    let file = read_zip(&bytes);
    assert_eq!(codes(&file), Vec::<&str>::new(), "{:?}", file.findings);
    let header = file.header.unwrap();
    assert_eq!(header.data_start, 0);
    let fc = &header.tensors[0];
    assert_eq!(
        (fc.name.as_str(), fc.dtype),
        ("fc.weight", Some(Dtype::F32))
    );
    assert_eq!(fc.shape, Some(vec![2, 3]));
    assert!(fc.readable && fc.layout.is_none());
    let (b, e) = fc.range.unwrap();
    assert_eq!(b % 64, 0, "torch aligns storages to 64 bytes");
    assert_eq!(&bytes[b as usize..e as usize], &storages[0].1[..]);
    assert_eq!(fc.nbytes(), Some(24));
    assert_eq!(header.tensors[1].dtype, Some(Dtype::Bf16));
}

#[test]
fn the_legacy_format_reads_the_same_tensors() {
    let specs = [
        Spec::plain("fc.weight", "FloatStorage", "0", &[2, 3]),
        Spec::plain("embed", "HalfStorage", "1", &[2]),
    ];
    let data0 = f32s(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    let bytes = legacy(
        state_dict(&specs, true),
        &[("0", 4, data0.clone()), ("1", 2, vec![0, 0x3c, 0, 0x40])],
    );
    assert_eq!(sniff(path(), &bytes), Format::TorchLegacy);
    let file = read_legacy(&bytes);
    // Legacy files do not align their storages.
    assert_eq!(codes(&file), vec!["PT012"], "{:?}", file.findings);
    let header = file.header.unwrap();
    let (b, e) = header.tensors[0].range.unwrap();
    assert_eq!(&bytes[b as usize..e as usize], &data0[..]);
    assert_eq!(header.tensors[1].dtype, Some(Dtype::F16));
}

#[test]
fn a_legacy_view_past_its_storage_grows_it_as_torch_does() {
    // Fuzz cases 10636 and 23015 of seed 3: torch makes legacy storages resizable, so
    // `Tensor.set_` grows one to a view past its declared end; the file must then hold the
    // grown size. Zip storages are not resizable: the same view is refused there.
    let mut spec = Spec::plain("w", "FloatStorage", "0", &[4]);
    spec.numel = 2;
    let pickle = state_dict(std::slice::from_ref(&spec), true);
    let values = f32s(&[1.0, 2.0, 3.0, 4.0]);
    let file = read_legacy(&legacy(pickle.clone(), &[("0", 4, values.clone())]));
    assert_eq!(codes(&file), vec!["PT012"], "{:?}", file.findings);
    assert!(file.header.unwrap().tensors[0].readable);
    let short = read_legacy(&legacy(pickle, &[("0", 4, values[..8].to_vec())]));
    assert_eq!(codes(&short), vec!["PT010"], "{:?}", short.findings);
    let zip_pickle = state_dict(std::slice::from_ref(&spec), false);
    let zipped = read_zip(&torch_zip(zip_pickle, &[("0", values[..8].to_vec())]));
    assert_eq!(codes(&zipped), vec!["PT007"]);
}

#[test]
fn a_legacy_storage_whose_count_disagrees_is_refused() {
    let specs = [Spec::plain("w", "FloatStorage", "0", &[2])];
    let mut bytes = legacy(state_dict(&specs, true), &[("0", 4, f32s(&[1.0, 2.0]))]);
    let at = bytes.len() - 16;
    bytes[at] = 3;
    let file = read_legacy(&bytes);
    assert_eq!(codes(&file), vec!["PT010"]);
    assert_eq!(file.findings[0].offset, Some(at as u64));
    bytes.truncate(bytes.len() - 1);
    bytes[at] = 2;
    assert_eq!(codes(&read_legacy(&bytes)), vec!["PT010"]);
}

#[test]
fn a_strided_view_and_tied_names_read_as_their_logical_values() {
    // One 2x3 storage; "a" is it, "b" its transpose (a tied, strided view), "c" a slice of it.
    let mut a = Spec::plain("a", "FloatStorage", "0", &[2, 3]);
    let mut b = a.clone();
    b.name = "b".into();
    b.shape = vec![3, 2];
    b.stride = vec![1, 3];
    let mut c = a.clone();
    c.name = "c".into();
    c.offset = 4;
    c.shape = vec![2];
    c.stride = vec![1];
    a.numel = 6;
    let values = f32s(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    let bytes = torch_zip(state_dict(&[a, b, c], false), &[("0", values)]);
    let file = read_zip(&bytes);
    assert_eq!(codes(&file), vec!["PT013", "PT014"], "{:?}", file.findings);
    let t = file.header.unwrap().tensors;
    let b = &t[1];
    let layout = b.layout.as_ref().expect("a transpose is not zero-copy");
    let (start, stop) = b.range.unwrap();
    let got = layout
        .materialize(&bytes[start as usize..stop as usize], start)
        .unwrap();
    assert_eq!(got, f32s(&[0.0, 3.0, 1.0, 4.0, 2.0, 5.0]));
    assert_eq!(b.nbytes(), Some(24));
    let c = &t[2];
    assert!(c.layout.is_none(), "a contiguous slice is zero-copy");
    let (start, stop) = c.range.unwrap();
    assert_eq!(
        &bytes[start as usize..stop as usize],
        &f32s(&[4.0, 5.0])[..]
    );
}

#[test]
fn shards_of_torch_files_map_contiguous_tensors_and_materialize_views() {
    let mut a = Spec::plain("a", "FloatStorage", "0", &[2, 2]);
    let mut t = a.clone();
    t.name = "t".into();
    t.stride = vec![1, 2];
    a.numel = 4;
    let bytes = torch_zip(
        state_dict(&[a, t], false),
        &[("0", f32s(&[1.0, 2.0, 3.0, 4.0]))],
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pytorch_model.bin");
    std::fs::write(&file, &bytes).unwrap();
    let shard = Shard::open(&file).unwrap();
    assert_eq!(shard.format, Format::TorchZip);
    let header = shard.header.as_ref().unwrap();
    let (a, t) = (&header.tensors[0], &header.tensors[1]);
    assert_eq!(
        shard.mapped_tensor_bytes(a),
        Some(&f32s(&[1.0, 2.0, 3.0, 4.0])[..])
    );
    assert_eq!(shard.mapped_tensor_bytes(t), None);
    assert!(matches!(
        shard.read_tensor(a).unwrap(),
        std::borrow::Cow::Borrowed(_)
    ));
    assert_eq!(
        shard.read_tensor(t).unwrap().into_owned(),
        f32s(&[1.0, 3.0, 2.0, 4.0])
    );
    let source = std::sync::Arc::new(crate::source::FileRangeSource::open(&file).unwrap());
    let ranged = Shard::from_source(&file, source, &crate::NoProgress).unwrap();
    assert_eq!(ranged.header.as_ref().unwrap().tensors, header.tensors);
    assert_eq!(
        ranged.read_tensor(t).unwrap(),
        shard.read_tensor(t).unwrap()
    );
}

fn hostile(payload: &[u8]) -> Vec<u8> {
    let mut p = P::new();
    p.raw(payload);
    p.stop()
}

#[test]
fn a_disallowed_global_stops_the_machine_at_its_offset_in_both_formats() {
    let mut payload = P(Vec::new());
    payload
        .global("posix", "system")
        .str("touch /tmp/pwned")
        .op(ops::TUPLE1)
        .op(ops::REDUCE)
        .global("builtins", "exec");
    let pickle = hostile(&payload.0);
    let bytes = torch_zip(pickle.clone(), &[]);
    let file = read_zip(&bytes);
    assert!(file.header.is_none());
    assert_eq!(codes(&file), vec!["PT005", "PT005"]);
    let first = &file.findings[0];
    let pkl_start = bytes.windows(2).position(|w| w == [0x80, 2]).unwrap() as u64;
    assert_eq!(first.offset, Some(pkl_start + 2));
    assert!(first.message.contains("posix.system"), "{}", first.message);
    assert!(first.message.starts_with("torch.save zip archive:"));
    assert!(file.findings[1].message.contains("builtins.exec"));
    // The same pickle as a plain .pt file (torch tries the legacy format): the same verdict.
    let file = read_legacy(&pickle);
    assert_eq!(codes(&file), vec!["PT005", "PT005"]);
    assert_eq!(file.findings[0].offset, Some(2));
    assert!(file.findings[0]
        .message
        .starts_with("torch.save legacy file:"));
}

#[test]
fn a_hostile_global_inside_a_legacy_file_after_its_header_pickles_is_found() {
    let mut main = P::new();
    main.global("subprocess", "Popen").op(ops::STOP);
    let bytes = legacy(main.0, &[]);
    let file = read_legacy(&bytes);
    assert_eq!(codes(&file), vec!["PT005"]);
    assert!(file.findings[0].message.contains("subprocess.Popen"));
}

#[test]
fn opcodes_that_import_or_call_are_refused_and_others_are_not_run() {
    for (payload, code) in [
        (&b"\x8c\x02os\x8c\x06system\x93"[..], "PT007"),
        (
            &b"X\x02\x00\x00\x00osX\x06\x00\x00\x00system\x93"[..],
            "PT006",
        ),
        (&b"(ios\nsystem\n"[..], "PT006"),
        (&b"(o"[..], "PT006"),
        (&b"\x82\x01"[..], "PT006"),
        (&b"\x95\x00\x00\x00\x00\x00\x00\x00\x00"[..], "PT007"),
        (&b"\xff"[..], "PT007"),
    ] {
        let file = read_legacy(&hostile(payload));
        assert_eq!(
            codes(&file).first(),
            Some(&code),
            "{payload:?}: {:?}",
            file.findings
        );
    }
}

#[test]
fn what_torch_refuses_about_tensors_is_refused() {
    let base = Spec::plain("w", "LongStorage", "0", &[2, 2]);
    let storage = vec![("0", vec![0u8; 32])];
    let mut past_end = base.clone();
    past_end.offset = 1;
    let mut negative = base.clone();
    negative.stride = vec![u64::MAX, 1];
    let mut short_record = base.clone();
    short_record.numel = 5;
    let cases = [
        (past_end, "PT007"),
        (negative, "PT007"),
        (short_record, "PT009"),
    ];
    for (spec, code) in cases {
        let file = read_zip(&torch_zip(
            state_dict(std::slice::from_ref(&spec), false),
            &storage,
        ));
        assert_eq!(codes(&file), vec![code], "{spec:?}: {:?}", file.findings);
    }
    // requires_grad on an integer tensor: torch raises.
    let mut pickle = state_dict(&[base], false);
    let at = pickle.iter().rposition(|&b| b == ops::NEWFALSE).unwrap();
    pickle[at] = ops::NEWTRUE;
    let file = read_zip(&torch_zip(pickle, &storage));
    assert_eq!(codes(&file), vec!["PT007"]);
    assert!(file.findings[0].message.contains("require gradients"));
}

#[test]
fn a_call_with_an_argument_count_its_function_does_not_take_is_refused() {
    // Fuzz case 3872 of seed 2: `_rebuild_qtensor("touch ...")`. torch calls the function and
    // raises "missing 6 required positional arguments"; a call it accepts stays PT011 (listed,
    // not read).
    let call = |args: usize| {
        let mut p = P::new();
        p.op(ops::EMPTY_DICT)
            .str("q")
            .global("torch._utils", "_rebuild_qtensor")
            .op(ops::MARK);
        for _ in 0..args {
            p.op(ops::NONE);
        }
        p.op(ops::TUPLE).op(ops::REDUCE).op(ops::SETITEM);
        read_legacy(&legacy(p.stop(), &[]))
    };
    for args in [1, 6, 8] {
        let file = call(args);
        assert_eq!(codes(&file), vec!["PT007"], "{args}: {:?}", file.findings);
        let message = &file.findings[0].message;
        assert!(
            message.contains(&format!("_rebuild_qtensor takes 7 arguments, got {args}")),
            "{message}"
        );
        assert!(file.findings[0].offset.is_some());
    }
    assert_eq!(codes(&call(7)), vec!["PT011"]);
}

#[test]
fn torch_device_takes_what_its_argument_parser_takes() {
    // Fuzz case 18427 of seed 4: `torch.device` called with a tensor's six arguments.
    let call = |args: &[&[u8]]| {
        let mut p = P::new();
        p.op(ops::EMPTY_DICT)
            .str("d")
            .global("torch", "device")
            .op(ops::MARK);
        for arg in args {
            p.raw(arg);
        }
        p.op(ops::TUPLE).op(ops::REDUCE).op(ops::SETITEM);
        codes(&read_legacy(&legacy(p.stop(), &[])))
    };
    let cpu = &b"X\x03\x00\x00\x00cpu"[..];
    let x = &b"X\x01\x00\x00\x00x"[..];
    for refused in [
        &[][..],
        &[&b"N"[..]],
        &[&b"G?\xf8\x00\x00\x00\x00\x00\x00"[..]],
        &[cpu, x],
        &[cpu, &b"J\xff\xff\xff\xff"[..]],
        &[cpu, &b"K\x00"[..], &b"K\x01"[..]],
    ] {
        assert_eq!(call(refused), vec!["PT007"], "{refused:?}");
    }
    for taken in [&[cpu][..], &[cpu, &b"K\x00"[..]], &[&b"K\x01"[..]]] {
        assert!(!call(taken).contains(&"PT007"), "{taken:?}");
    }
}

#[test]
fn archives_torch_does_not_read_are_refused() {
    let (pickle, storages) = two_tensors();
    let good = |name: &str| (format!("archive/{name}"), Vec::new());
    type Records = Vec<(String, Vec<u8>)>;
    let cases: Vec<(Records, &str)> = vec![
        (vec![("data.pkl".into(), pickle.clone())], "PT004"),
        (vec![("archive/data.pkl".into(), pickle.clone())], "PT004"),
        (
            vec![
                ("archive/data.pkl".into(), pickle.clone()),
                ("archive/version".into(), b"11".to_vec()),
            ],
            "PT004",
        ),
        (
            vec![
                ("archive/data.pkl".into(), pickle.clone()),
                ("archive/version".into(), b"3".to_vec()),
                good("constants.pkl"),
            ],
            "PT004",
        ),
        (
            vec![
                ("archive/version".into(), b"3".to_vec()),
                ("archive/byteorder".into(), b"middle".to_vec()),
            ],
            "PT004",
        ),
        (
            vec![
                ("archive/version".into(), b"3".to_vec()),
                ("archive/version".into(), b"3".to_vec()),
            ],
            "PT002",
        ),
        (
            vec![
                ("archive/data.pkl".into(), pickle.clone()),
                ("archive/version".into(), b"3".to_vec()),
                ("other/data/0".into(), Vec::new()),
            ],
            "PT004",
        ),
    ];
    for (records, code) in cases {
        let file = read_zip(&zip(&records));
        assert_eq!(codes(&file), vec![code], "{records:?}");
    }
    // A record name that is not UTF-8 (in the central directory, which torch lists as str).
    let mut bad_name = torch_zip(pickle.clone(), &storages);
    let at = bad_name
        .windows(12)
        .rposition(|w| w == b"archive/data")
        .unwrap();
    bad_name[at + 8] = 0xff;
    assert_eq!(codes(&read_zip(&bad_name)), vec!["PT002"]);
    let mut missing = torch_zip(pickle, &storages[..1]);
    assert_eq!(codes(&read_zip(&missing)), vec!["PT009"]);
    missing.truncate(missing.len() - 30);
    assert_eq!(codes(&read_zip(&missing)), vec!["PT002"]);
}

/// An archive with every record torch 2.15 writes (and one it never reads), the storage
/// record `data/1` empty, `.storage_alignment` holding `alignment`.
fn torch_2_15_zip(alignment: &[u8]) -> Vec<u8> {
    let specs = [
        Spec::plain("w", "FloatStorage", "0", &[2]),
        Spec::plain("empty", "FloatStorage", "1", &[0]),
    ];
    let records: Vec<(&str, Vec<u8>)> = vec![
        ("data.pkl", state_dict(&specs, false)),
        (".format_version", b"1".to_vec()),
        (".storage_alignment", alignment.to_vec()),
        ("byteorder", b"little".to_vec()),
        ("data/0", f32s(&[1.0, 2.0])),
        ("data/1", Vec::new()),
        ("version", b"3\n".to_vec()),
        (".data/serialization_id", b"1234567890".to_vec()),
        ("notes", b"not a record torch reads".to_vec()),
    ];
    let records: Vec<(String, Vec<u8>)> = records
        .into_iter()
        .map(|(name, data)| (format!("archive/{name}"), data))
        .collect();
    zip(&records)
}

/// Where the local header of `archive/<name>` starts (its name followed by the builder's
/// extra field, which the central directory's copy of the name is not).
fn local_header(bytes: &[u8], name: &str) -> usize {
    let mut key = format!("archive/{name}").into_bytes();
    key.extend_from_slice(b"FB");
    bytes.windows(key.len()).position(|w| w == key).unwrap() - 30
}

#[test]
fn every_record_torch_extracts_is_checked_as_its_zip_reader_checks_it() {
    // Fuzz cases 2039, 3916, 5023 and 5651 of seed 2: a corrupt local header of
    // .storage_alignment or .format_version, which torch's miniz refuses to extract.
    let good = torch_2_15_zip(b"64");
    let file = read_zip(&good);
    assert!(file.findings.is_empty(), "{:?}", file.findings);
    let read = [
        "data.pkl",
        ".format_version",
        ".storage_alignment",
        "byteorder",
        "data/0",
        "version",
        ".data/serialization_id",
    ];
    for name in read {
        let at = local_header(&good, name);
        // The signature, the name length (the data then starts past the end of the file).
        for (field, value) in [(2, &[0x09u8][..]), (26, &[0xff, 0xff])] {
            let mut bad = good.clone();
            bad[at + field..at + field + value.len()].copy_from_slice(value);
            let file = read_zip(&bad);
            assert_eq!(
                codes(&file),
                vec!["PT002"],
                "{name} +{field}: {:?}",
                file.findings
            );
            let offset = file.findings[0].offset.unwrap();
            assert!(offset < bad.len() as u64);
            assert!(
                file.findings[0].message.contains(name),
                "{}",
                file.findings[0].message
            );
        }
    }
    // What miniz does not look at: an empty record's local header, a record torch never
    // extracts, the CRCs and the local header's sizes, method and flags.
    for (name, field, value) in [
        ("data/1", 2, &[0x09u8][..]),
        ("notes", 2, &[0x09]),
        ("data/0", 14, &[1, 2, 3, 4]),
        ("data/0", 18, &[0x77, 0, 0, 0, 0x77, 0, 0, 0]),
        ("data/0", 8, &[99, 0]),
        ("data/0", 6, &[1, 0]),
    ] {
        let mut edited = good.clone();
        let at = local_header(&good, name) + field;
        edited[at..at + value.len()].copy_from_slice(value);
        let file = read_zip(&edited);
        assert!(
            file.findings.is_empty(),
            "{name} +{field}: {:?}",
            file.findings
        );
        assert!(file.header.unwrap().tensors.iter().all(|t| t.readable));
    }
    let file = read_zip(&torch_2_15_zip(b"sixty-four"));
    assert_eq!(codes(&file), vec!["PT004"], "{:?}", file.findings);
    assert!(file.findings[0].message.contains(".storage_alignment"));
    assert!(read_zip(&torch_2_15_zip(b" 6_4\n")).findings.is_empty());
    let mut bad_id = good.clone();
    let at = local_header(&good, ".data/serialization_id");
    let data = at
        + 30
        + usize::from(u16::from_le_bytes([good[at + 26], good[at + 27]]))
        + usize::from(u16::from_le_bytes([good[at + 28], good[at + 29]]));
    bad_id[data] = 0xff;
    assert_eq!(
        codes(&read_zip(&bad_id)),
        vec!["PT004"],
        "torch decodes the id as UTF-8"
    );
    // Names are matched regardless of case, as miniz does.
    let mut upper = good.clone();
    let at = local_header(&good, "byteorder") + 30 + "archive/".len();
    upper[at..at + 9].copy_from_slice(b"BYTEORDER");
    let at = central_entry(&good, "byteorder") + 46 + "archive/".len();
    upper[at..at + 9].copy_from_slice(b"BYTEORDER");
    assert!(read_zip(&upper).findings.is_empty());
}

/// Where the central directory entry of `archive/<name>` starts.
fn central_entry(bytes: &[u8], name: &str) -> usize {
    let key = format!("archive/{name}").into_bytes();
    bytes.windows(key.len()).rposition(|w| w == key).unwrap() - 46
}

#[test]
fn directory_entries_are_checked_as_torchs_zip_reader_checks_them() {
    let good = torch_2_15_zip(b"64");
    let edit = |name: &str, field: usize, value: &[u8]| {
        let mut bytes = good.clone();
        let at = central_entry(&good, name) + field;
        bytes[at..at + value.len()].copy_from_slice(value);
        codes(&read_zip(&bytes))
    };
    let none: Vec<&str> = Vec::new();
    // When miniz opens the archive, every entry, read or not: stored sizes that differ (with
    // method and time both 0), data with no compressed bytes, a disk past 1, data past the
    // end of the file, a masked local header.
    for name in ["notes", "data/1", "version"] {
        assert_eq!(
            edit(name, 24, &[0x55, 0, 0, 0]),
            vec!["PT002"],
            "{name} sizes"
        );
        assert_eq!(
            edit(name, 20, &[0, 0, 0, 0]).len(),
            usize::from(name != "data/1")
        );
        assert_eq!(edit(name, 34, &[3, 0]), vec!["PT002"], "{name} disk");
        assert_eq!(edit(name, 34, &[1, 0]), none, "{name} disk 1");
        assert_eq!(
            edit(name, 42, &[0xff, 0xff, 0, 0]),
            vec!["PT002"],
            "{name} local"
        );
        assert_eq!(edit(name, 8, &[0, 0x20]), vec!["PT002"], "{name} masked");
        assert_eq!(edit(name, 8, &[0x08, 0]), none, "{name} data descriptor");
    }
    // A stored record with a modification time: miniz skips its size check.
    let mut timed = good.clone();
    let at = central_entry(&good, "notes");
    timed[at + 12] = 1;
    timed[at + 20] = 0x55;
    assert_eq!(codes(&read_zip(&timed)), none);
    // When torch extracts a record, even an empty one: encryption, a patch, another method;
    // a record torch never extracts may say anything there.
    for name in ["data/1", "version"] {
        for flags in [[1u8, 0], [0x40, 0]] {
            assert_eq!(edit(name, 8, &flags), vec!["PT003"], "{name} {flags:?}");
        }
        assert_eq!(edit(name, 8, &[0x20, 0]), vec!["PT003"], "{name} patch");
        assert_eq!(edit(name, 10, &[99, 0]), vec!["PT003"], "{name} method");
    }
    assert_eq!(edit("data/1", 10, &[8, 0]), none);
    // The end record that counts must be of disk 0 with every entry on it; its comment
    // length is not checked. This archive has no zip64 end record, so the plain one counts
    // (in a torch.save archive the zip64 one does: fuzz cases 4a98c5a7 and 21284 of seed 3).
    let eocd = good.len() - 22;
    for (field, value, want) in [
        (4, &[3u8, 0][..], vec!["PT002"]),
        (6, &[5, 0], vec!["PT002"]),
        (4, &[1, 0, 1, 0], vec!["PT002"]),
        (8, &[1, 0], vec!["PT002"]),
        (20, &[5, 0], none.clone()),
    ] {
        let mut bytes = good.clone();
        bytes[eocd + field..eocd + field + value.len()].copy_from_slice(value);
        assert_eq!(codes(&read_zip(&bytes)), want, "end record +{field}");
    }
    for (field, value) in [(8, &[1u8, 0][..]), (8, &[0x20, 0]), (10, &[99, 0])] {
        assert_eq!(edit("notes", field, value), none, "notes +{field}");
    }
}

#[test]
fn a_big_endian_archive_is_read_with_its_bytes_swapped() {
    let specs = [Spec::plain("w", "FloatStorage", "0", &[2])];
    let be: Vec<u8> = [1.5f32, -2.0]
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .collect();
    let mut records = vec![
        ("archive/data.pkl".to_owned(), state_dict(&specs, false)),
        ("archive/byteorder".to_owned(), b"big".to_vec()),
        ("archive/data/0".to_owned(), be),
    ];
    records.push(("archive/version".to_owned(), b"3".to_vec()));
    let bytes = zip(&records);
    let file = read_zip(&bytes);
    assert_eq!(codes(&file), vec!["PT015"]);
    let w = &file.header.unwrap().tensors[0];
    let (s, e) = w.range.unwrap();
    let got = w
        .layout
        .as_ref()
        .unwrap()
        .materialize(&bytes[s as usize..e as usize], s);
    assert_eq!(got.unwrap(), f32s(&[1.5, -2.0]));
}

#[test]
fn a_deflated_record_is_inflated_on_read() {
    let specs = [Spec::plain("w", "FloatStorage", "0", &[64])];
    let plain = f32s(&[1.5; 64]);
    let mut bytes = torch_zip(state_dict(&specs, false), &[("0", plain.clone())]);
    // Re-pack the storage record deflated, in place of the stored one (same archive otherwise).
    let packed = miniz_oxide::deflate::compress_to_vec(&plain, 6);
    let at = bytes
        .windows(plain.len())
        .position(|w| w == &plain[..])
        .unwrap();
    let local = bytes[..at]
        .windows(4)
        .rposition(|w| w == [0x50, 0x4b, 3, 4])
        .unwrap();
    bytes[local + 8] = 8;
    bytes[local + 18..local + 22].copy_from_slice(&(packed.len() as u32).to_le_bytes());
    bytes.splice(at..at + plain.len(), packed.iter().copied());
    let delta = plain.len() - packed.len();
    let cd = bytes
        .windows(4)
        .position(|w| w == [0x50, 0x4b, 1, 2])
        .unwrap();
    let mut pos = cd;
    while bytes[pos..pos + 4] == [0x50, 0x4b, 1, 2] {
        let n = u16::from_le_bytes([bytes[pos + 28], bytes[pos + 29]]) as usize;
        let name = String::from_utf8_lossy(&bytes[pos + 46..pos + 46 + n]).into_owned();
        let local_at = u32::from_le_bytes(bytes[pos + 42..pos + 46].try_into().unwrap()) as usize;
        if name == "archive/data/0" {
            bytes[pos + 10] = 8;
            bytes[pos + 20..pos + 24].copy_from_slice(&(packed.len() as u32).to_le_bytes());
        } else if local_at > local {
            let moved = (local_at - delta) as u32;
            bytes[pos + 42..pos + 46].copy_from_slice(&moved.to_le_bytes());
        }
        pos += 46 + n;
    }
    let eocd = bytes.len() - 22;
    let cd_at = u32::from_le_bytes(bytes[eocd + 16..eocd + 20].try_into().unwrap()) - delta as u32;
    bytes[eocd + 16..eocd + 20].copy_from_slice(&cd_at.to_le_bytes());
    let file = read_zip(&bytes);
    assert!(file.findings.is_empty(), "{:?}", file.findings);
    let w = &file.header.unwrap().tensors[0];
    let (s, e) = w.range.unwrap();
    let layout = w.layout.as_ref().unwrap();
    assert_eq!(
        layout
            .materialize(&bytes[s as usize..e as usize], s)
            .unwrap(),
        plain
    );
}

#[test]
fn files_that_are_not_torch_files_say_so() {
    // A pickle of a dict, not a torch file (torch: "Invalid magic number").
    let mut p = P::new();
    p.op(ops::EMPTY_DICT);
    assert_eq!(codes(&read_legacy(&p.stop())), vec!["PT010"]);
    let mut tar = vec![0u8; 512];
    tar[257..262].copy_from_slice(b"ustar");
    assert_eq!(codes(&read_legacy(&tar)), vec!["PT001"]);
    assert_eq!(codes(&read_legacy(b"")), vec!["PT007"]);
    assert_eq!(codes(&read_zip(b"PK\x03\x04 not really")), vec!["PT002"]);
}

#[test]
fn what_goes_to_which_reader() {
    let st = 16u64.to_le_bytes();
    assert_eq!(
        sniff(Path::new("x.safetensors"), b"PK\x03\x04"),
        Format::Safetensors
    );
    assert_eq!(sniff(Path::new("x.bin"), &st), Format::Safetensors);
    assert_eq!(sniff(Path::new("x"), b"PK\x03\x04rest"), Format::TorchZip);
    assert_eq!(
        sniff(Path::new("x.pt"), b"\x80\x02\x8a\x0al\xfc\x9cF"),
        Format::TorchLegacy
    );
    assert_eq!(sniff(Path::new("x.pth"), b""), Format::TorchLegacy);
    // Protocol 4: PROTO 4, FRAME and a frame length whose high bytes are zero.
    assert_eq!(
        sniff(Path::new("x.pkl"), b"\x80\x04\x95\x10\0\0\0\0\0\0"),
        Format::TorchLegacy
    );
    assert_eq!(
        sniff(Path::new("x.bin"), &0x0480u64.to_le_bytes()),
        Format::Safetensors
    );
    assert_eq!(sniff(Path::new("x"), b""), Format::Safetensors);
}

#[test]
fn memo_references_share_instead_of_copying_and_caps_hold() {
    // A "billion laughs": each level a list holding the previous one twice, 60 levels deep.
    let mut p = P::new();
    p.op(ops::EMPTY_LIST).op(ops::BINPUT).raw(&[0]);
    for i in 1..=60u8 {
        p.op(ops::EMPTY_LIST)
            .op(ops::MARK)
            .op(ops::BINGET)
            .raw(&[i - 1])
            .op(ops::BINGET)
            .raw(&[i - 1])
            .op(ops::APPENDS)
            .op(ops::BINPUT)
            .raw(&[i]);
    }
    let file = read_legacy(&p.stop());
    assert_eq!(
        codes(&file),
        vec!["PT010"],
        "not a torch file, and read in no time"
    );
    let deep = vec![ops::MARK; super::pickle::MARK_CAP + 1];
    assert_eq!(codes(&read_legacy(&hostile(&deep))), vec!["PT008"]);
}

fn valid_files() -> Vec<(Vec<u8>, Format)> {
    let (pickle, storages) = two_tensors();
    let specs = [Spec::plain("w", "FloatStorage", "0", &[2])];
    vec![
        (torch_zip(pickle, &storages), Format::TorchZip),
        (
            legacy(state_dict(&specs, true), &[("0", 4, f32s(&[1.0, 2.0]))]),
            Format::TorchLegacy,
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Mutated torch files: never a panic; every finding names the file and an offset inside
    /// it; every readable tensor's range lies inside the file and materializes.
    #[test]
    fn mutated_files_never_panic_and_every_finding_is_located(
        which in 0usize..2,
        edits in proptest::collection::vec((any::<u16>(), any::<u8>()), 1..6),
        cut in proptest::option::of(any::<u16>()),
    ) {
        let (mut bytes, format) = valid_files().swap_remove(which);
        for (at, value) in edits {
            let at = at as usize % bytes.len();
            bytes[at] = value;
        }
        if let Some(cut) = cut {
            let keep = cut as usize % (bytes.len() + 1);
            bytes.truncate(keep);
        }
        let file = read(&&bytes[..], path(), format);
        for f in &file.findings {
            prop_assert!(f.file.is_some(), "{f:?}");
            let at = f.offset;
            prop_assert!(at.is_none_or(|a| a <= bytes.len() as u64), "{f:?}");
        }
        for t in file.header.iter().flat_map(|h| &h.tensors).filter(|t| t.readable) {
            let (s, e) = t.range.unwrap();
            prop_assert!(s <= e && e <= bytes.len() as u64);
            if let Some(layout) = &t.layout {
                prop_assert!(layout.materialize(&bytes[s as usize..e as usize], s).is_ok());
            } else {
                prop_assert_eq!(Some(e - s), t.nbytes());
            }
        }
    }
}

#[test]
fn a_protocol_4_payload_is_named_by_walking_it() {
    let data = b"\x80\x04\x959\x00\x00\x00\x00\x00\x00\x00\x8c\x08builtins\x94\x8c\x04eval\x94\x93\x94\x8c\x1dprint('security test - eval')\x94\x85\x94R\x94.";
    let found = super::pickle::globals_after(data, 0, 16);
    assert_eq!(found, vec![("builtins.eval".to_owned(), 29)]);
    let bytes = zip(&[
        ("version".to_owned(), b"3".to_vec()),
        ("data.pkl".to_owned(), data.to_vec()),
    ]);
    let file = read_zip(&bytes);
    assert_eq!(codes(&file), vec!["PT004", "PT005"], "{:?}", file.findings);
}
