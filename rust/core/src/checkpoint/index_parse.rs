//! Parsing `model.safetensors.index.json` straight into the [`Index`] (no intermediate JSON tree):
//! a million entries cost one key string each, and the shard names they repeat are stored once.
//! Entries that are not file names are IX007 findings (at most [`super::capped::LISTED_PER_FILE`]
//! listed); JSON that does not parse, nests deeper than [`MAX_JSON_DEPTH`] anywhere (checked
//! before parsing), or has no `weight_map` object is one IX007 finding.

use super::capped::Capped;
use super::index::Index;
use crate::json_depth::{nesting_depth, MAX_JSON_DEPTH};
use crate::{Code, Finding};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// One `weight_map` value: a shard file name (interned), or what the value was instead.
type Entry = Result<Arc<str>, String>;

/// What the top-level object holds: its `weight_map` entries (None: no such object) and
/// `metadata.total_size` when it is an unsigned integer.
#[derive(Default)]
struct Doc {
    weight_map: Option<Vec<(String, Entry)>>,
    total_size: Option<u64>,
}

/// Reads and parses an index file; problems are IX007 findings and give `None`.
pub fn read_index(path: &Path, findings: &mut Vec<Finding>) -> Option<Index> {
    match crate::regular::read_capped_text(path, crate::regular::INDEX_CAP) {
        Ok(text) => parse_index(path, &text, findings),
        Err(err) => {
            let why = format!("cannot read the sharding index: {err}");
            findings.push(Finding::new(Code::IX007, why).file(path));
            None
        }
    }
}

/// Parses the text of the index file `path`; problems are IX007 findings and give `None`.
pub fn parse_index(path: &Path, text: &str, findings: &mut Vec<Finding>) -> Option<Index> {
    let fail = |findings: &mut Vec<Finding>, why: String| {
        findings.push(Finding::new(Code::IX007, why).file(path));
        None
    };
    if nesting_depth(text.as_bytes()) > MAX_JSON_DEPTH {
        let why = format!("sharding index nests deeper than {MAX_JSON_DEPTH} levels");
        return fail(findings, why);
    }
    let mut names = HashSet::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let doc = match TopLevel(&mut names)
        .deserialize(&mut de)
        .and_then(|doc| de.end().map(|()| doc))
    {
        Ok(doc) => doc,
        Err(err) => return fail(findings, format!("sharding index is not valid JSON: {err}")),
    };
    let Some(mut entries) = doc.weight_map else {
        return fail(
            findings,
            "sharding index has no \"weight_map\" object".into(),
        );
    };
    // A name given twice keeps its last entry, as every JSON reader of the index does.
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut kept: Vec<(String, Entry)> = Vec::with_capacity(entries.len());
    for entry in entries {
        match kept.last_mut() {
            Some(last) if last.0 == entry.0 => *last = entry,
            _ => kept.push(entry),
        }
    }
    let mut capped = Capped::new(findings);
    let mut weight_map = Vec::with_capacity(kept.len());
    for (name, entry) in kept {
        match entry {
            Ok(file) => weight_map.push((name, file)),
            Err(what) => capped.push(Code::IX007, path, || {
                Finding::new(
                    Code::IX007,
                    format!("weight_map[{name:?}] is {what}, not a file name"),
                )
                .file(path)
                .tensor(name)
            }),
        }
    }
    capped.finish();
    Some(Index {
        path: path.to_owned(),
        weight_map: BTreeMap::from_iter(weight_map),
        total_size: doc.total_size,
    })
}

/// A visitor's answer to a scalar where an object was wanted: `$value` (nothing there).
macro_rules! skip_scalars {
    ($value:expr) => {
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}

/// The top-level value: an object is read for `weight_map` and `metadata`; anything else is
/// skipped (and has no weight map).
struct TopLevel<'a>(&'a mut HashSet<Arc<str>>);

impl<'de> DeserializeSeed<'de> for TopLevel<'_> {
    type Value = Doc;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Doc, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopLevel<'_> {
    type Value = Doc;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Doc, A::Error> {
        let mut doc = Doc::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "weight_map" => doc.weight_map = map.next_value_seed(WeightMap(&mut *self.0))?,
                "metadata" => doc.total_size = map.next_value_seed(Metadata)?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(doc)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Doc, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Doc::default())
    }
    skip_scalars!(Doc::default());
}

/// `weight_map`: its entries when it is an object, else None (skipped).
struct WeightMap<'a>(&'a mut HashSet<Arc<str>>);

impl<'de> DeserializeSeed<'de> for WeightMap<'_> {
    type Value = Option<Vec<(String, Entry)>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for WeightMap<'_> {
    type Value = Option<Vec<(String, Entry)>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some(name) = map.next_key::<String>()? {
            let file = map.next_value_seed(ShardName(&mut *self.0))?;
            entries.push((name, file));
        }
        Ok(Some(entries))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    skip_scalars!(None);
}

/// One `weight_map` value: a string is a shard name, stored once however many entries repeat
/// it; anything else is described (a number or literal as written, a container by its kind,
/// never echoed whole).
struct ShardName<'a>(&'a mut HashSet<Arc<str>>);

impl ShardName<'_> {
    fn intern(self, name: &str) -> Arc<str> {
        if let Some(known) = self.0.get(name) {
            return Arc::clone(known);
        }
        let name: Arc<str> = Arc::from(name);
        self.0.insert(Arc::clone(&name));
        name
    }
}

impl<'de> DeserializeSeed<'de> for ShardName<'_> {
    type Value = Entry;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Entry, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ShardName<'_> {
    type Value = Entry;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_str<E>(self, v: &str) -> Result<Entry, E> {
        Ok(Ok(self.intern(v)))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Entry, E> {
        Ok(Err(v.to_string()))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Entry, E> {
        Ok(Err(v.to_string()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Entry, E> {
        Ok(Err(v.to_string()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Entry, E> {
        Ok(Err(serde_json::Value::from(v).to_string()))
    }
    fn visit_unit<E>(self) -> Result<Entry, E> {
        Ok(Err("null".into()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entry, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Err("an array".into()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entry, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Err("an object".into()))
    }
}

/// `metadata`: its `total_size` when that is an unsigned integer.
struct Metadata;

impl<'de> DeserializeSeed<'de> for Metadata {
    type Value = Option<u64>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<u64>, D::Error> {
        let value: serde_json::Value = serde::Deserialize::deserialize(d)?;
        Ok(value.get("total_size").and_then(serde_json::Value::as_u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> (Option<Index>, Vec<Finding>) {
        let mut findings = Vec::new();
        let index = parse_index(Path::new("i.json"), text, &mut findings);
        (index, findings)
    }

    #[test]
    fn entries_shard_names_and_total_size() {
        let text = r#"{"metadata":{"total_size":12,"x":[1]},"weight_map":{"b":"s1","a":"s1","c":"s2"},"extra":{"y":[[]]}}"#;
        let (index, findings) = parsed(text);
        let index = index.unwrap();
        assert!(findings.is_empty(), "{findings:?}");
        assert_eq!(index.total_size, Some(12));
        let names: Vec<_> = index.weight_map.keys().map(String::as_str).collect();
        assert_eq!(names, ["a", "b", "c"]);
        // The repeated shard name is one allocation.
        assert!(Arc::ptr_eq(&index.weight_map["a"], &index.weight_map["b"]));
    }

    #[test]
    fn the_last_of_a_repeated_name_wins_and_non_names_are_ix007() {
        let (index, findings) =
            parsed(r#"{"weight_map":{"a":"s1","a":3,"b":3,"b":"s2","c":[1,[2]],"d":1.5}}"#);
        let index = index.unwrap();
        assert_eq!(index.weight_map.len(), 1);
        assert_eq!(&*index.weight_map["b"], "s2");
        let messages: Vec<_> = findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                r#"weight_map["a"] is 3, not a file name"#,
                r#"weight_map["c"] is an array, not a file name"#,
                r#"weight_map["d"] is 1.5, not a file name"#,
            ]
        );
    }

    #[test]
    fn no_weight_map_object_bad_json_and_deep_nesting_are_one_ix007() {
        for text in [
            r#"[]"#,
            r#""x""#,
            r#"{"weight_map":[1]}"#,
            r#"{"weight_map":null}"#,
            r#"{"weight_map":{}"#,
            r#"{"weight_map":{}} x"#,
        ] {
            let (index, findings) = parsed(text);
            assert!(index.is_none(), "{text}");
            assert_eq!(findings.len(), 1, "{text}: {findings:?}");
            assert_eq!(findings[0].code, "IX007");
        }
        let deep = format!(
            r#"{{"weight_map":{{}},"x":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let (index, findings) = parsed(&deep);
        assert!(index.is_none());
        assert!(
            findings[0].message.contains("deeper than 127"),
            "{findings:?}"
        );
    }

    #[test]
    fn a_million_bad_entries_build_a_thousand_findings_and_a_fold() {
        let body: Vec<String> = (0..20_000).map(|i| format!(r#""t{i}":{i}"#)).collect();
        let (index, findings) = parsed(&format!(r#"{{"weight_map":{{{}}}}}"#, body.join(",")));
        assert!(index.unwrap().weight_map.is_empty());
        assert_eq!(findings.len(), super::super::capped::LISTED_PER_FILE + 1);
        assert!(findings
            .last()
            .unwrap()
            .message
            .starts_with("19000 more IX007"));
    }
}
