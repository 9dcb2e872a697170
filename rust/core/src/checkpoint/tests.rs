//! Opening checkpoints whose files lead outside them, name only missing shards, or have huge
//! indexes.

use super::Checkpoint;
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
    // 200,000 entries over 20,000 missing shards: quadratic reconciliation would take minutes.
    let dir = tempfile::tempdir().unwrap();
    write_shard(&dir.path().join("model-present.safetensors"), "t0");
    let mut map = serde_json::Map::new();
    map.insert("t0".into(), "model-present.safetensors".into());
    for i in 1..200_000 {
        map.insert(
            format!("t{i}"),
            format!("model-{}.safetensors", i % 20_000).into(),
        );
    }
    let index = serde_json::json!({ "weight_map": map });
    fs::write(
        dir.path().join("model.safetensors.index.json"),
        index.to_string(),
    )
    .unwrap();
    let ckpt = Checkpoint::open(dir.path()).unwrap();
    let missing = codes(&ckpt).iter().filter(|c| **c == "IX001").count();
    assert_eq!(missing, 20_000);
    assert_eq!(ckpt.tensors.len(), 1);
}
