//! From an unpickled state dict to the tensor table: names (a dict's keys; nested dicts and
//! lists joined with `.`, as `state_dict()` names submodules), and per tensor the entry the rest
//! of the core reads: dtype, shape, and where its bytes are (an absolute range, plus a
//! [`Layout`] when it is not one contiguous native-order run). Tied tensors (several names over
//! one storage) each get their own entry over the shared bytes.

use super::pickle::{Object, TensorRef, Value};
use super::storage::{Found, Located};
use super::view::{is_contiguous, span_elements, Base, Layout};
use super::{finding, unreadable_entry, Format};
use crate::finding::Finding;
use crate::header::TensorEntry;
use crate::{Code, Dtype};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// The deepest nesting of containers followed for names.
const DEPTH_CAP: usize = 32;
/// How many ignored values a finding names as examples.
const EXAMPLES: usize = 3;

struct Walk<'f> {
    found: &'f Found,
    named: Vec<(String, u32)>,
    ignored: Vec<(String, String)>,
    opaque: Vec<(String, String)>,
    too_deep: Option<String>,
    seen: HashSet<u32>,
}

impl Walk<'_> {
    fn visit(&mut self, name: String, value: &Value, depth: usize) {
        match value {
            Value::Tensor(id) => self.named.push((name, *id)),
            Value::Opaque(what) => self.opaque.push((name, what.to_string())),
            Value::Obj(id) => {
                if depth >= DEPTH_CAP {
                    self.too_deep.get_or_insert(name);
                    return;
                }
                if !self.seen.insert(*id) {
                    return;
                }
                let arena = &self.found.unpickled.arena;
                let children: Vec<(String, Value)> = match arena.get(*id) {
                    Some(Object::Dict(_, d)) => d
                        .items
                        .iter()
                        .filter_map(|(k, v)| {
                            let key = match k {
                                Value::Str(s) => s.to_string(),
                                Value::Int(i) => i.to_string(),
                                _ => {
                                    self.ignored.push((join(&name, "?"), "non-text key".into()));
                                    return None;
                                }
                            };
                            Some((join(&name, &key), v.clone()))
                        })
                        .collect(),
                    Some(Object::List(v) | Object::Tuple(v)) => v
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (join(&name, &i.to_string()), v.clone()))
                        .collect(),
                    Some(Object::Set(_)) | None => {
                        self.ignored.push((name, "set".into()));
                        return;
                    }
                };
                for (child, v) in children {
                    self.visit(child, &v, depth + 1);
                }
            }
            other => {
                let kind = other.kind(&self.found.unpickled.arena).to_owned();
                self.ignored.push((name, kind));
            }
        }
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_owned()
    } else {
        format!("{prefix}.{key}")
    }
}

fn examples(items: &[(String, String)]) -> String {
    let shown: Vec<String> = items
        .iter()
        .take(EXAMPLES)
        .map(|(n, k)| format!("{n:?} ({k})"))
        .collect();
    let more = items.len().saturating_sub(EXAMPLES);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// The tensor table of `found`, with the findings about its names and layouts.
pub fn entries(
    found: &Found,
    format: Format,
    path: &Path,
    out: &mut Vec<Finding>,
) -> Vec<TensorEntry> {
    let root = &found.unpickled.root;
    let root_is_dict = matches!(root, Value::Obj(id)
        if matches!(found.unpickled.arena.get(*id), Some(Object::Dict(..))));
    let mut walk = Walk {
        found,
        named: Vec::new(),
        ignored: Vec::new(),
        opaque: Vec::new(),
        too_deep: None,
        seen: HashSet::new(),
    };
    let root_name = if matches!(root, Value::Tensor(_)) {
        "tensor"
    } else {
        ""
    };
    walk.visit(root_name.to_owned(), root, 0);
    // File-level notes point at the pickle (they are about what it holds).
    let pickle_at = found.file_offset(0);
    let note = |code, message: String| finding(code, format, path, message).at(pickle_at);
    if !root_is_dict {
        let kind = root.kind(&found.unpickled.arena).to_owned();
        out.push(note(
            Code::PT016, format!("the file holds a {kind}, not a state dict: its tensors are named by their place in it"),
        ));
    }
    if !walk.ignored.is_empty() {
        out.push(note(
            Code::PT017,
            format!(
                "{} values that are not tensors are not inspected: {}",
                walk.ignored.len(),
                examples(&walk.ignored)
            ),
        ));
    }
    if let Some(name) = &walk.too_deep {
        out.push(note(
            Code::PT016,
            format!("containers nested more than {DEPTH_CAP} deep (at {name:?}) are not inspected"),
        ));
    }
    if !walk.opaque.is_empty() {
        out.push(note(
            Code::PT011,
            format!(
                "{} objects this reader does not interpret are not inspected: {}",
                walk.opaque.len(),
                examples(&walk.opaque)
            ),
        ));
    }
    if found.unpickled.lossy_text {
        out.push(note(
            Code::PT018, "some text holds lone surrogates, which torch keeps: those names are shown with replacement characters".into(),
        ));
    }
    let mut by_name: BTreeMap<&str, usize> = BTreeMap::new();
    let mut entries = Vec::with_capacity(walk.named.len());
    let mut unaligned = Vec::new();
    for (name, id) in &walk.named {
        let t = &found.unpickled.tensors[*id as usize];
        let at = found.file_offset(t.at);
        if by_name.insert(name, entries.len()).is_some() {
            out.push(
                note(
                    Code::PT018, format!("the name {name:?} is given twice by nested containers; the first is inspected"),
                )
                .tensor(name)
                .at(at),
            );
            continue;
        }
        entries.push(entry(found, name, t, at, format, path, out, &mut unaligned));
    }
    if let Some((first, at, elsize)) = unaligned.first() {
        out.push(
            finding(
                Code::PT012, format,
                path,
                format!(
                    "{} tensors start at a byte offset that is not a multiple of their element size (the first, {first:?}, at byte {at}, of {elsize}-byte elements): zero-copy typed views of them need a copy",
                    unaligned.len()
                ),
            )
            .tensor(first)
            .at(*at),
        );
    }
    tied(found, &walk.named, &by_name, &entries, format, path, out);
    entries
}

#[allow(clippy::too_many_arguments)]
fn entry(
    found: &Found,
    name: &str,
    t: &TensorRef,
    at: u64,
    format: Format,
    path: &Path,
    out: &mut Vec<Finding>,
    unaligned: &mut Vec<(String, u64, u64)>,
) -> TensorEntry {
    let dtype_name = t.dtype.dtype.map_or_else(
        || format!("torch.{}", t.dtype.name),
        |d| d.name().to_owned(),
    );
    let shape = Some(t.shape.clone());
    let located = found
        .located
        .get(t.storage as usize)
        .and_then(Option::as_ref);
    let why_not = t.unsupported.clone().or_else(|| {
        t.dtype
            .dtype
            .is_none()
            .then(|| format!("dtype torch.{}", t.dtype.name))
    });
    if let Some(why) = why_not {
        out.push(
            finding(
                Code::PT011,
                format,
                path,
                format!(
                    "a tensor with {why}, which this reader does not read; it is not inspected"
                ),
            )
            .tensor(name)
            .at(at),
        );
        return unreadable_entry(name, dtype_name, shape, at);
    }
    let (Some(located), Some(dtype), Some(elsize)) = (located, t.dtype.dtype, t.dtype.elsize)
    else {
        // The storage's findings say why its bytes cannot be had.
        return unreadable_entry(name, dtype_name, shape, at);
    };
    let Some(layout) = layout(located, t, dtype, elsize, found.swap) else {
        return unreadable_entry(name, dtype_name, shape, at);
    };
    let numel: u64 = t.shape.iter().product();
    let span = span_elements(&t.shape, &t.stride).unwrap_or(0) * elsize;
    let (range, layout) = match &layout.base {
        Base::File => {
            let direct = !layout.swap && is_contiguous(&t.shape, &t.stride);
            let range = (layout.start, layout.start + span);
            if !direct && numel > 1 && !layout.swap {
                out.push(
                    finding(
                        Code::PT013, format,
                        path,
                        format!(
                            "a strided view (shape {:?}, strides {:?}): its values are read through a copy, in row-major order",
                            t.shape, t.stride
                        ),
                    )
                    .tensor(name)
                    .at(layout.start),
                );
            }
            (range, (!direct).then(|| Box::new(layout)))
        }
        Base::Deflated { at, compressed, .. } => ((*at, *at + *compressed), Some(Box::new(layout))),
    };
    if range.0 % elsize != 0 && numel > 0 && matches!(located.base, Base::File) {
        unaligned.push((name.to_owned(), range.0, elsize));
    }
    TensorEntry {
        name: name.to_owned(),
        dtype: Some(dtype),
        dtype_name,
        shape,
        range: Some(range),
        header_offset: at,
        readable: true,
        layout,
    }
}

/// The layout of tensor `t` over its storage's bytes (the start checked not to overflow).
fn layout(
    located: &Located,
    t: &TensorRef,
    dtype: Dtype,
    elsize: u64,
    swap: bool,
) -> Option<Layout> {
    let start = t.offset.checked_mul(elsize)?.checked_add(located.start)?;
    span_elements(&t.shape, &t.stride)?
        .checked_mul(elsize)?
        .checked_add(start)?;
    Some(Layout {
        base: located.base.clone(),
        start,
        shape: t.shape.clone(),
        strides: t.stride.clone(),
        elsize,
        swap,
        bools: dtype == Dtype::Bool && !is_contiguous(&t.shape, &t.stride),
    })
}

/// PT014: names that share one storage (tied weights), one finding per storage.
fn tied(
    found: &Found,
    named: &[(String, u32)],
    kept: &BTreeMap<&str, usize>,
    entries: &[TensorEntry],
    format: Format,
    path: &Path,
    out: &mut Vec<Finding>,
) {
    let mut by_storage: HashMap<&str, Vec<&str>> = HashMap::new();
    for (name, id) in named {
        if !kept.contains_key(name.as_str()) {
            continue;
        }
        let t = &found.unpickled.tensors[*id as usize];
        let key = found.unpickled.storages[t.storage as usize].key.as_str();
        by_storage.entry(key).or_default().push(name);
    }
    let mut groups: Vec<Vec<&str>> = by_storage.into_values().filter(|g| g.len() > 1).collect();
    groups.sort();
    for group in groups {
        let quoted: Vec<String> = group.iter().map(|n| format!("{n:?}")).collect();
        let first = &entries[kept[group[0]]];
        let at = first.range.map_or(first.header_offset, |r| r.0);
        out.push(
            finding(
                Code::PT014, format,
                path,
                format!(
                    "{} share one storage (tied weights): each is read as its own view of it; a safetensors copy stores each separately",
                    quoted.join(", ")
                ),
            )
            .tensor(group[0])
            .at(at),
        );
    }
}
