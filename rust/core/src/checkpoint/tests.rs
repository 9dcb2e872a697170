//! Opening checkpoints whose files lead outside them, name only missing shards, or have huge
//! indexes.

use super::Checkpoint;
use crate::Code;
use std::fs;
use std::path::Path;

/// A one-tensor safetensors file (`name`: F32 [1]).
fn write_shard(path: &Path, name: &str) {
    let header = format!(r#"{{"{name}":{{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}}}"#);
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(&1.0f32.to_le_bytes());
    fs::write(path, bytes).unwrap();
}

fn codes(ckpt: &Checkpoint) -> Vec<&'static str> {
    ckpt.findings.iter().map(|f| f.code.as_str()).collect()
}

fn error_codes(ckpt: &Checkpoint) -> Vec<&'static str> {
    let errors = ckpt
        .findings
        .iter()
        .filter(|f| f.severity() == crate::Severity::Error);
    errors.map(|f| f.code.as_str()).collect()
}

#[test]
fn an_index_entry_leading_outside_is_ix010_and_never_opened() {
    let outer = tempfile::tempdir().unwrap();
    let dir = outer.path().join("ckpt");
    fs::create_dir(&dir).unwrap();
    write_shard(&outer.path().join("secret.safetensors"), "secret");
    write_shard(&dir.join("model-1.safetensors"), "a");
    let index = r#"{"weight_map":{"a":"model-1.safetensors","s":"../secret.safetensors","t":"/etc/passwd"}}"#;
    fs::write(dir.join("model.safetensors.index.json"), index).unwrap();
    let ckpt = Checkpoint::open(&dir).unwrap();
    assert_eq!(ckpt.shards.len(), 1);
    assert!(!ckpt.tensors.contains_key("secret"));
    let escapes: Vec<_> = ckpt.findings.iter().filter(|f| f.code == "IX010").collect();
    assert_eq!(escapes.len(), 2, "{:?}", ckpt.findings);
    assert!(!codes(&ckpt).contains(&"IX002"), "{:?}", ckpt.findings);
}

#[test]
fn hf_cache_refs_and_snapshot_links_stay_in_the_repo_folder() {
    let outer = tempfile::tempdir().unwrap();
    let elsewhere = outer.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    write_shard(&elsewhere.join("model.safetensors"), "outside");
    let repo = outer.path().join("models--org--name");
    let snap = repo.join("snapshots").join("abc123");
    fs::create_dir_all(&snap).unwrap();
    fs::create_dir_all(repo.join("blobs")).unwrap();
    fs::create_dir_all(repo.join("refs")).unwrap();
    write_shard(&repo.join("blobs").join("b1"), "inside");
    std::os::unix::fs::symlink("../../blobs/b1", snap.join("model-1.safetensors")).unwrap();
    std::os::unix::fs::symlink(
        elsewhere.join("model.safetensors"),
        snap.join("model-2.safetensors"),
    )
    .unwrap();
    fs::write(repo.join("refs").join("main"), "../../elsewhere").unwrap();
    let ckpt = Checkpoint::open(&repo).unwrap();
    assert_eq!(
        ckpt.file_set.root, snap,
        "refs/main ignored, the only snapshot used"
    );
    assert!(ckpt.tensors.contains_key("inside"));
    assert!(!ckpt.tensors.contains_key("outside"));
    let escapes = codes(&ckpt).iter().filter(|c| **c == "IX010").count();
    assert_eq!(escapes, 2, "{:?}", ckpt.findings);
}

#[test]
fn an_index_naming_only_missing_shards_is_ix001_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let index = r#"{"weight_map":{"a":"model-1.safetensors","b":"model-2.safetensors"}}"#;
    fs::write(dir.path().join("model.safetensors.index.json"), index).unwrap();
    let ckpt = Checkpoint::open(dir.path()).unwrap();
    assert_eq!(codes(&ckpt), ["IX001", "IX001"]);
}

#[test]
fn a_big_index_with_many_missing_shards_reconciles() {
    // 200,000 entries over 16,000 missing shards: quadratic reconciliation would take minutes.
    let dir = tempfile::tempdir().unwrap();
    write_shard(&dir.path().join("model-present.safetensors"), "t0");
    let mut map = serde_json::Map::new();
    map.insert("t0".into(), "model-present.safetensors".into());
    for i in 1..200_000 {
        map.insert(
            format!("t{i}"),
            format!("model-{}.safetensors", i % 16_000).into(),
        );
    }
    let index = serde_json::json!({ "weight_map": map });
    fs::write(
        dir.path().join("model.safetensors.index.json"),
        index.to_string(),
    )
    .unwrap();
    let ckpt = Checkpoint::open(dir.path()).unwrap();
    let missing: Vec<_> = ckpt.findings.iter().filter(|f| f.code == "IX001").collect();
    // The first 1,000 missing shards by name, then one finding for the other 15,000.
    assert_eq!(missing.len(), super::capped::LISTED_PER_FILE + 1);
    assert!(missing[1000].message.starts_with("15000 more IX001"));
    assert_eq!(ckpt.tensors.len(), 1);
}

#[test]
fn links_leaving_a_plain_directory_are_ix010_and_never_opened() {
    let outer = tempfile::tempdir().unwrap();
    let elsewhere = outer.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    write_shard(&elsewhere.join("secret.safetensors"), "secret");
    fs::write(elsewhere.join("config.json"), "{\"secret\": 1}").unwrap();
    let dir = outer.path().join("ckpt");
    fs::create_dir(&dir).unwrap();
    write_shard(&dir.join("model-1.safetensors"), "a");
    fs::create_dir(dir.join("sub")).unwrap();
    write_shard(&dir.join("sub").join("b.safetensors"), "b");
    let link = |to: &Path, name: &str| std::os::unix::fs::symlink(to, dir.join(name)).unwrap();
    link(&elsewhere.join("secret.safetensors"), "model-2.safetensors");
    link(&elsewhere.join("config.json"), "config.json");
    link(Path::new("sub/b.safetensors"), "model-3.safetensors"); // stays inside: read
    let ckpt = Checkpoint::open(&dir).unwrap();
    let names: Vec<_> = ckpt.tensors.keys().map(String::as_str).collect();
    assert_eq!(names, ["a", "b"]);
    assert!(ckpt.config_text.is_none());
    let escapes: Vec<_> = ckpt.findings.iter().filter(|f| f.code == "IX010").collect();
    assert_eq!(escapes.len(), 2, "{:?}", ckpt.findings);
    assert!(escapes.iter().all(|f| f.message.starts_with("the link")));
    // The file the user names is read wherever it leads; its directory's config still is not.
    let named = Checkpoint::open(&dir.join("model-2.safetensors")).unwrap();
    assert!(named.tensors.contains_key("secret"));
    assert_eq!(error_codes(&named), ["IX010"]);
}

#[test]
fn a_snapshot_given_directly_is_bounded_by_its_repository() {
    let outer = tempfile::tempdir().unwrap();
    let repo = outer.path().join("models--org--name");
    let snap = repo.join("snapshots").join("abc123");
    fs::create_dir_all(&snap).unwrap();
    fs::create_dir_all(repo.join("blobs")).unwrap();
    write_shard(&repo.join("blobs").join("b1"), "inside");
    fs::write(repo.join("blobs").join("c1"), "{}").unwrap();
    std::os::unix::fs::symlink("../../blobs/b1", snap.join("model.safetensors")).unwrap();
    std::os::unix::fs::symlink("../../blobs/c1", snap.join("config.json")).unwrap();
    let ckpt = Checkpoint::open(&snap).unwrap();
    assert!(ckpt.tensors.contains_key("inside"));
    assert_eq!(ckpt.config_text.as_deref(), Some("{}"));
    assert!(error_codes(&ckpt).is_empty(), "{:?}", ckpt.findings);
}

#[test]
fn more_shards_than_the_cap_are_refused_before_any_is_opened() {
    let dir = tempfile::tempdir().unwrap();
    let mut map = serde_json::Map::new();
    for i in 0..=super::MAX_SHARDS {
        map.insert(format!("t{i}"), format!("model-{i}.safetensors").into());
    }
    let index = serde_json::json!({ "weight_map": map }).to_string();
    fs::write(dir.path().join("model.safetensors.index.json"), index).unwrap();
    let err = Checkpoint::open(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("names 16385 .safetensors files, more than the 16384"),
        "{err}"
    );
    let many = tempfile::tempdir().unwrap();
    for i in 0..=super::MAX_SHARDS {
        fs::File::create(many.path().join(format!("m{i}.safetensors"))).unwrap();
    }
    let err = Checkpoint::open(many.path()).unwrap_err().to_string();
    assert!(err.contains("holds 16385 .safetensors files"), "{err}");
}

#[test]
fn opened_shards_hold_no_file_descriptor() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..300 {
        write_shard(
            &dir.path().join(format!("m{i:03}.safetensors")),
            &format!("t{i}"),
        );
    }
    let open_fds = || fs::read_dir("/proc/self/fd").unwrap().count();
    let before = open_fds();
    let ckpt = Checkpoint::open(dir.path()).unwrap();
    assert_eq!(ckpt.tensors.len(), 300);
    // Other tests' threads may open a few files meanwhile; one per shard would be 300.
    assert!(open_fds() < before + 50, "{before} -> {}", open_fds());
    // Shrinking is still seen through the path: the stat finds the same inode, smaller.
    let path = dir.path().join("m000.safetensors");
    fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(8)
        .unwrap();
    assert_eq!(ckpt.changed_tensors(&["t0", "t1"]).len(), 1);
}

#[test]
fn a_million_entries_the_shard_lacks_are_a_thousand_findings_and_a_fold() {
    let dir = tempfile::tempdir().unwrap();
    write_shard(&dir.path().join("model.safetensors"), "t0");
    let body: Vec<String> = (0..1_000_000)
        .map(|i| format!(r#""t{i}":"model.safetensors""#))
        .collect();
    let index = format!(r#"{{"weight_map":{{{}}}}}"#, body.join(","));
    fs::write(dir.path().join("model.safetensors.index.json"), index).unwrap();
    let ckpt = Checkpoint::open(dir.path()).unwrap();
    let ix002: Vec<_> = ckpt.findings.iter().filter(|f| f.code == "IX002").collect();
    assert_eq!(ix002.len(), super::capped::LISTED_PER_FILE + 1);
    let fold = ix002.last().unwrap();
    assert!(
        fold.message.starts_with("998999 more IX002"),
        "{}",
        fold.message
    );
    assert_eq!(fold.tensor, None);
}

#[test]
fn stored_twice_and_unindexed_tensors_come_in_name_order() {
    let dir = tempfile::tempdir().unwrap();
    write_shard(&dir.path().join("model-1.safetensors"), "b");
    write_shard(&dir.path().join("model-2.safetensors"), "b");
    write_shard(&dir.path().join("model-3.safetensors"), "a");
    let index = r#"{"weight_map":{"c":"model-1.safetensors","d":"model-2.safetensors","e":"model-3.safetensors"}}"#;
    fs::write(dir.path().join("model.safetensors.index.json"), index).unwrap();
    let ckpt = Checkpoint::open(dir.path()).unwrap();
    let found: Vec<_> = ckpt
        .findings
        .iter()
        .filter(|f| matches!(f.code, Code::IX002 | Code::IX003 | Code::IX004))
        .map(|f| (f.code.as_str(), f.tensor.clone().unwrap_or_default()))
        .collect();
    let expected = [
        ("IX002", "c"),
        ("IX002", "d"),
        ("IX002", "e"),
        ("IX003", "a"),
        ("IX004", "b"),
        ("IX003", "b"),
    ];
    let expected: Vec<_> = expected.iter().map(|(c, t)| (*c, t.to_string())).collect();
    assert_eq!(found, expected);
}
