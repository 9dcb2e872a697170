//! Checkpoints whose files are not local: a listing of named [`RangeSource`]s plus the texts of
//! the index and config, turned into the [`FileSet`] that planning and reconciliation read, with
//! the same size caps and findings as files on disk.

use super::index::{self, Index};
use super::{too_many_shards, FileSet, MAX_SHARDS};
use crate::error::Result;
use crate::regular::{CONFIG_CAP, INDEX_CAP};
use crate::source::RangeSource;
use crate::{Code, Finding};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The files of a checkpoint that lives elsewhere (a Hub repo, another machine).
#[derive(Debug, Clone)]
pub struct Listing {
    /// What the user gave (`hf://org/name@main`): the checkpoint's path.
    pub path: PathBuf,
    /// The shown root: a file's path in findings is `root/name`.
    pub root: PathBuf,
    /// Every `.safetensors` file the listing has, by name relative to the root.
    pub files: Vec<(String, Arc<dyn RangeSource>)>,
    /// `(name, text)` of the sharding index, when there is one.
    pub index: Option<(String, String)>,
    /// `(name, text)` of `config.json`, when there is one.
    pub config: Option<(String, String)>,
}

/// Each listed file's source, by the path it has in the file set.
type Sources = HashMap<PathBuf, Arc<dyn RangeSource>>;

/// The file set a directory holding the listed files would have, and each file's source by
/// path. A name that is not a plain relative path is never joined onto the root: it is an
/// IX010 finding, as for an index entry. More than [`MAX_SHARDS`] files are refused.
pub(super) fn file_set(listing: &Listing) -> Result<(FileSet, Sources)> {
    if listing.files.len() > MAX_SHARDS {
        return Err(too_many_shards(&listing.root, "lists", listing.files.len()));
    }
    let mut sources = HashMap::new();
    let mut files = Vec::new();
    let mut findings = Vec::new();
    for (name, source) in &listing.files {
        if !super::contain::is_plain_relative(name) {
            findings.push(super::contain::escape_finding(
                &listing.root,
                "the listing names the file",
                name,
            ));
            continue;
        }
        let path = listing.root.join(name);
        files.push(path.clone());
        sources.insert(path, Arc::clone(source));
    }
    files.sort();
    files.dedup();
    let file_set = FileSet {
        root: listing.root.clone(),
        index: listing.index.as_ref().map(|(n, _)| listing.root.join(n)),
        files,
        config: listing.config.as_ref().map(|(n, _)| listing.root.join(n)),
        boundary: listing.root.clone(),
        links_must_stay_inside: false,
        explicit: None,
        findings,
    };
    Ok((file_set, sources))
}

/// Parses a listed index's text under the cap a file on disk has.
pub(super) fn index(path: &Path, text: &str, findings: &mut Vec<Finding>) -> Option<Index> {
    if text.len() as u64 > INDEX_CAP {
        let why = format!(
            "cannot read the sharding index: {}: is larger than the {INDEX_CAP}-byte limit for this kind of file; refusing to read it",
            path.display()
        );
        findings.push(Finding::new(Code::IX007, why).file(path));
        return None;
    }
    index::parse_index(path, text, findings)
}

/// A listed config's text under the cap a file on disk has (IX009 over it).
pub(super) fn config(
    file_set: &FileSet,
    text: Option<&str>,
    findings: &mut Vec<Finding>,
) -> Option<String> {
    let (path, text) = (file_set.config.as_ref()?, text?);
    if text.len() as u64 > CONFIG_CAP {
        findings.push(
            Finding::new(Code::IX009, format!(
                    "config.json cannot be read: {}: is larger than the {CONFIG_CAP}-byte limit for this kind of file; refusing to read it",
                    path.display()
                ),
            )
            .file(path.clone()),
        );
        return None;
    }
    Some(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::Listing;
    use crate::source::{FileRangeSource, RangeSource};
    use crate::Checkpoint;
    use std::fs;
    use std::path::Path;
    use std::sync::Arc;

    fn write_shard(path: &Path, name: &str, value: f32) {
        let header = format!(r#"{{"{name}":{{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}}}"#);
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(&value.to_le_bytes());
        fs::write(path, bytes).unwrap();
    }

    fn listing_of(dir: &Path) -> Listing {
        let mut files = Vec::new();
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            if name.ends_with(".safetensors") {
                let source: Arc<dyn RangeSource> = Arc::new(FileRangeSource::open(&path).unwrap());
                files.push((name, source));
            }
        }
        let text = |n: &str| {
            fs::read_to_string(dir.join(n))
                .ok()
                .map(|t| (n.to_owned(), t))
        };
        Listing {
            path: dir.to_owned(),
            root: dir.to_owned(),
            files,
            index: text("model.safetensors.index.json"),
            config: text("config.json"),
        }
    }

    #[test]
    fn a_listing_opens_like_the_directory_holding_its_files() {
        let dir = tempfile::tempdir().unwrap();
        write_shard(&dir.path().join("model-1.safetensors"), "a", 1.5);
        write_shard(&dir.path().join("model-2.safetensors"), "b", 2.5);
        write_shard(&dir.path().join("stray.safetensors"), "c", 3.5);
        fs::write(dir.path().join("config.json"), "{\"x\": 1}").unwrap();
        let index = r#"{"weight_map":{"a":"model-1.safetensors","b":"model-2.safetensors","m":"model-3.safetensors"}}"#;
        fs::write(dir.path().join("model.safetensors.index.json"), index).unwrap();
        let mapped = Checkpoint::open(dir.path()).unwrap();
        let ranged = Checkpoint::open_listing(listing_of(dir.path())).unwrap();
        assert!(ranged.is_ranged() && !mapped.is_ranged());
        assert_eq!(
            format!("{:?}", ranged.findings),
            format!("{:?}", mapped.findings)
        );
        assert_eq!(ranged.tensors, mapped.tensors);
        assert_eq!(ranged.config_text, mapped.config_text);
        for name in ["a", "b"] {
            let (_, _, r) = ranged.tensor_bytes(name).unwrap();
            let (_, _, m) = mapped.tensor_bytes(name).unwrap();
            assert_eq!(r, m);
        }
        let codes: Vec<_> = mapped.findings.iter().map(|f| f.code).collect();
        assert!(
            codes.contains(&crate::Code::IX001),
            "the missing shard: {codes:?}"
        );
    }

    #[test]
    fn a_cancelled_open_reads_nothing_and_says_so() {
        #[derive(Debug, Default)]
        struct Counting(std::sync::atomic::AtomicUsize);
        impl RangeSource for Counting {
            fn len(&self) -> u64 {
                16
            }
            fn read_at(&self, _offset: u64, len: usize) -> Result<Vec<u8>, String> {
                self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Ok(vec![0; len])
            }
        }
        let source = Arc::new(Counting::default());
        let files: Vec<(String, Arc<dyn RangeSource>)> = (0..4)
            .map(|i| {
                (
                    format!("m{i}.safetensors"),
                    source.clone() as Arc<dyn RangeSource>,
                )
            })
            .collect();
        let root = Path::new("/remote").to_owned();
        let listing = Listing {
            path: root.clone(),
            root,
            files,
            index: None,
            config: None,
        };
        let progress = crate::AtomicProgress::default();
        progress.cancel();
        let opened = Checkpoint::open_listing_with(listing.clone(), Some(2), &progress);
        assert!(matches!(opened, Err(crate::Error::Cancelled)), "{opened:?}");
        assert_eq!(source.0.load(std::sync::atomic::Ordering::Relaxed), 0);
        assert!(Checkpoint::open_listing(listing).is_ok());
        assert_eq!(source.0.load(std::sync::atomic::Ordering::Relaxed), 4);
    }

    #[test]
    fn texts_over_the_caps_are_findings_not_reads() {
        let dir = tempfile::tempdir().unwrap();
        write_shard(&dir.path().join("model.safetensors"), "a", 1.0);
        let mut listing = listing_of(dir.path());
        let huge = " ".repeat(usize::try_from(crate::regular::CONFIG_CAP).unwrap() + 1);
        listing.config = Some(("config.json".into(), huge));
        let ckpt = Checkpoint::open_listing(listing).unwrap();
        assert!(ckpt.config_text.is_none());
        assert!(ckpt.findings.iter().any(|f| f.code == "IX009"));
    }
}
