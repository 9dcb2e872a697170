//! What `REDUCE`, `NEWOBJ` and `BUILD` mean for the allowed globals: each interpreted call is
//! read as the description of what torch would build (a tensor view, an `OrderedDict`, a
//! `torch.Size`), with the argument checks torch's own functions make (`Tensor.set_`'s bounds,
//! which a resizable legacy storage grows to instead, `requires_grad` on integer tensors), so a
//! file torch refuses is refused here too. Nothing is called; a call of any other allowed
//! global gives an opaque value, once its argument count is one its signature takes (torch
//! raises a TypeError for any other).

use super::globals::{Global, StorageClass};
use super::machine::Machine;
use super::value::{Dict, DictKind, Object, Value};
use super::{Refusal, StorageRef, TensorRef};
use crate::torch::dtypes::{self, TorchDtype};
use std::rc::Rc;

type Step<T> = Result<T, Refusal>;

fn items(m: &Machine<'_>, args: &Value, what: &str) -> Step<Vec<Value>> {
    match m.arena.sequence(args) {
        Some(items) => Ok(items.to_vec()),
        None => m.malformed(format!("{what} takes its arguments as a tuple")),
    }
}

fn opaque(name: String) -> Value {
    Value::Opaque(Rc::from(name))
}

/// `func(*args)` for an allowed global.
pub(super) fn call(m: &mut Machine<'_>, func: &Global, args: &Value) -> Step<Value> {
    let name = func.name();
    let a = items(m, args, &name)?;
    if let Some((least, most)) = func.arity() {
        if a.len() < least || most.is_some_and(|most| a.len() > most) {
            let want = match most {
                Some(most) if most == least => least.to_string(),
                Some(most) => format!("{least} to {most}"),
                None => format!("at least {least}"),
            };
            return m.malformed(arity(&name, &want, a.len()));
        }
    }
    match func {
        Global::OrderedDict | Global::Counter => {
            let kind = if *func == Global::Counter {
                DictKind::Counter
            } else {
                DictKind::Ordered
            };
            if kind == DictKind::Counter && !a.is_empty() {
                return Ok(opaque(name));
            }
            dict_from(m, kind, &a)
        }
        Global::Set => {
            let members = match a.as_slice() {
                [] => Vec::new(),
                [seq] => match seq {
                    Value::Obj(id) => match m.arena.get(*id) {
                        Some(Object::Tuple(v) | Object::List(v) | Object::Set(v)) => v.clone(),
                        _ => return Ok(opaque(name)),
                    },
                    // Numbers and None are not iterable (Python's TypeError); a string, bytes,
                    // a tensor or an opaque value may be, as torch then builds a set of it.
                    Value::None
                    | Value::Bool(_)
                    | Value::Int(_)
                    | Value::BigInt(_)
                    | Value::Float(_) => return m.malformed("builtins.set takes an iterable"),
                    _ => return Ok(opaque(name)),
                },
                _ => return m.malformed("builtins.set takes at most one argument"),
            };
            m.add(Object::Set(members))
        }
        Global::Encode => encode(m, &a),
        Global::Size => match a.as_slice() {
            [] => m.add(Object::Tuple(Vec::new())),
            [seq] => {
                let dims = ints(m, seq, "torch.Size")?;
                m.add(Object::Tuple(dims.into_iter().map(Value::Int).collect()))
            }
            _ => m.malformed("torch.Size takes at most one argument"),
        },
        Global::Parameter => parameter(m, &a, None),
        Global::RebuildTensor => match a.as_slice() {
            [storage, offset, size, stride] => {
                rebuild(m, storage, offset, size, stride, None, None, None)
            }
            _ => m.malformed(arity(&name, "4", a.len())),
        },
        Global::RebuildTensorV2 => match a.as_slice() {
            [storage, offset, size, stride, grad, _hooks, rest @ ..] if rest.len() <= 1 => {
                let meta = rest.first();
                rebuild(m, storage, offset, size, stride, None, Some(grad), meta)
            }
            _ => m.malformed(arity(&name, "6 or 7", a.len())),
        },
        Global::RebuildTensorV3 => match a.as_slice() {
            [storage, offset, size, stride, grad, _hooks, dtype, rest @ ..] if rest.len() <= 1 => {
                let Value::Global(Global::Dtype(dtype)) = dtype else {
                    return m.malformed("_rebuild_tensor_v3's dtype is not a torch dtype");
                };
                let meta = rest.first();
                rebuild(
                    m,
                    storage,
                    offset,
                    size,
                    stride,
                    Some(*dtype),
                    Some(grad),
                    meta,
                )
            }
            _ => m.malformed(arity(&name, "7 or 8", a.len())),
        },
        Global::RebuildParameter => match a.as_slice() {
            [data, grad, _hooks] => parameter(m, &[data.clone(), grad.clone()], None),
            _ => m.malformed(arity(&name, "3", a.len())),
        },
        Global::RebuildParameterWithState => match a.as_slice() {
            [data, grad, _hooks, state] => parameter(m, &[data.clone(), grad.clone()], Some(state)),
            _ => m.malformed(arity(&name, "4", a.len())),
        },
        Global::RebuildFromTypeV2 => match a.as_slice() {
            [Value::Global(inner), new_type, inner_args, state] => {
                let made = call(m, inner, inner_args)?;
                let tensor_type =
                    matches!(new_type, Value::Global(Global::Tensor | Global::Parameter));
                match made {
                    Value::Tensor(id) if tensor_type => {
                        if !is_empty_state(m, state) {
                            mark(m, id, "attributes set by _rebuild_from_type_v2");
                        }
                        Ok(Value::Tensor(id))
                    }
                    _ => Ok(opaque(name)),
                }
            }
            [_, _, _, _] => m.malformed("_rebuild_from_type_v2 calls a value that is not a global"),
            _ => m.malformed(arity(&name, "4", a.len())),
        },
        Global::Storage(StorageClass::Typed(_)) | Global::Dtype(_) => {
            m.malformed(format!("{name} is not callable"))
        }
        Global::Other(other) if &**other == "torch._utils._rebuild_qtensor" => qtensor(m, name, &a),
        Global::Other(other) if &**other == "torch.device" => device(m, name, &a),
        Global::Tensor | Global::Storage(_) | Global::Other(_) => Ok(opaque(name)),
    }
}

/// `cls.__new__(cls, *args)` (`NEWOBJ`).
pub(super) fn new_object(m: &mut Machine<'_>, cls: &Value, args: &Value) -> Step<Value> {
    match cls {
        Value::Global(Global::Parameter) => {
            let a = items(m, args, "Parameter")?;
            parameter(m, &a, None)
        }
        Value::Global(g) => Ok(opaque(g.name())),
        other => {
            let kind = other.kind(&m.arena).to_owned();
            m.malformed(format!(
                "NEWOBJ of a {kind}: only allowed classes can be created"
            ))
        }
    }
}

/// `BUILD`: the state of the object on top of the stack.
pub(super) fn build(m: &mut Machine<'_>, inst: &Value, state: &Value) -> Step<()> {
    match inst {
        Value::Tensor(id) => {
            mark(m, *id, "state set by BUILD");
            Ok(())
        }
        Value::Opaque(_) => Ok(()),
        Value::Obj(id) => match m.arena.get(*id) {
            Some(Object::Dict(DictKind::Ordered | DictKind::Counter, _)) => {
                if is_dict(m, state) {
                    Ok(())
                } else {
                    m.malformed("BUILD of an OrderedDict with a state that is not a dict")
                }
            }
            Some(Object::Set(_)) if is_empty_state(m, state) => Ok(()),
            _ => {
                let kind = inst.kind(&m.arena).to_owned();
                m.malformed(format!(
                    "BUILD of a {kind}: only Tensor, Parameter and OrderedDict take a state"
                ))
            }
        },
        other => {
            let kind = other.kind(&m.arena).to_owned();
            m.malformed(format!(
                "BUILD of a {kind}: only Tensor, Parameter and OrderedDict take a state"
            ))
        }
    }
}

fn arity(name: &str, want: &str, got: usize) -> String {
    format!("{name} takes {want} arguments, got {got}")
}

fn is_dict(m: &Machine<'_>, v: &Value) -> bool {
    matches!(v, Value::Obj(id) if matches!(m.arena.get(*id), Some(Object::Dict(..))))
}

/// True for a state that sets nothing: None, or an empty dict or tuple.
fn is_empty_state(m: &Machine<'_>, v: &Value) -> bool {
    match v {
        Value::None => true,
        Value::Obj(id) => match m.arena.get(*id) {
            Some(Object::Dict(_, d)) => d.items.is_empty(),
            Some(Object::Tuple(t)) => t.is_empty(),
            _ => false,
        },
        _ => false,
    }
}

fn mark(m: &mut Machine<'_>, id: u32, what: &str) {
    if let Some(t) = m.tensors.get_mut(id as usize) {
        t.unsupported.get_or_insert_with(|| what.to_owned());
    }
}

fn dict_from(m: &mut Machine<'_>, kind: DictKind, a: &[Value]) -> Step<Value> {
    let mut dict = Dict::default();
    match a {
        [] => {}
        [source] => {
            let pairs: Vec<(Value, Value)> = match source {
                Value::Obj(id) => match m.arena.get(*id) {
                    Some(Object::Dict(_, d)) => d.items.clone(),
                    Some(Object::Tuple(v) | Object::List(v)) => {
                        let mut pairs = Vec::with_capacity(v.len());
                        for item in v {
                            match m.arena.sequence(item) {
                                Some([k, val]) => pairs.push((k.clone(), val.clone())),
                                _ => return m.malformed("OrderedDict takes pairs"),
                            }
                        }
                        pairs
                    }
                    _ => return m.malformed("OrderedDict takes a mapping or pairs"),
                },
                _ => return m.malformed("OrderedDict takes a mapping or pairs"),
            };
            for (k, v) in pairs {
                if let Some(kind) = m.arena.unhashable(&k) {
                    return m.malformed(format!("OrderedDict with an unhashable {kind} key"));
                }
                dict.set(k, v);
            }
        }
        _ => return m.malformed("OrderedDict takes at most one argument"),
    }
    m.add(Object::Dict(kind, dict))
}

fn encode(m: &mut Machine<'_>, a: &[Value]) -> Step<Value> {
    let (text, encoding) = match a {
        [Value::Str(t)] => (t.clone(), "utf-8".to_owned()),
        [Value::Str(t), Value::Str(e)] => (t.clone(), e.to_ascii_lowercase()),
        _ => return Ok(opaque("_codecs.encode".into())),
    };
    let bytes: Vec<u8> = match encoding.as_str() {
        "latin1" | "latin-1" | "iso-8859-1" | "l1" => {
            let mut out = Vec::with_capacity(text.len());
            for c in text.chars() {
                match u8::try_from(u32::from(c)) {
                    Ok(b) => out.push(b),
                    Err(_) => return m.malformed("_codecs.encode: text is not latin-1"),
                }
            }
            out
        }
        "utf-8" | "utf8" => text.as_bytes().to_vec(),
        "ascii" if text.is_ascii() => text.as_bytes().to_vec(),
        _ => return Ok(opaque("_codecs.encode".into())),
    };
    Ok(Value::Bytes(Rc::from(bytes)))
}

/// The integers of a tuple or list (a shape or strides).
fn ints(m: &Machine<'_>, seq: &Value, what: &str) -> Step<Vec<i64>> {
    let Some(items) = m.arena.sequence(seq) else {
        return m.malformed(format!("{what} is not a tuple of integers"));
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Value::Int(i) => out.push(*i),
            _ => return m.malformed(format!("{what} is not a tuple of integers")),
        }
    }
    Ok(out)
}

/// `torch.nn.Parameter(data, requires_grad=True)`: the tensor itself.
fn parameter(m: &mut Machine<'_>, a: &[Value], state: Option<&Value>) -> Step<Value> {
    let (data, grad) = match a {
        [data] => (data, &Value::Bool(true)),
        [data, grad] => (data, grad),
        _ => return m.malformed(arity("torch.nn.Parameter", "1 or 2", a.len())),
    };
    let Value::Tensor(id) = data else {
        return match data {
            Value::Opaque(_) => Ok(data.clone()),
            _ => m.malformed("a Parameter of something that is not a tensor"),
        };
    };
    let Value::Bool(grad) = grad else {
        return m.malformed("requires_grad is not a bool");
    };
    let dtype = m.tensors[*id as usize].dtype;
    if *grad && !dtypes::can_require_grad(&dtype) {
        return m.malformed(format!(
            "only tensors of floating point dtype can require gradients (this one is {})",
            dtype.name
        ));
    }
    if let Some(state) = state {
        if !is_empty_state(m, state) {
            mark(
                m,
                *id,
                "Parameter state set by _rebuild_parameter_with_state",
            );
        }
    }
    Ok(Value::Tensor(*id))
}

/// `_rebuild_tensor*`: `torch.empty((0,), dtype).set_(storage, offset, size, stride)`, with
/// `set_`'s checks, then `requires_grad` and the metadata.
#[allow(clippy::too_many_arguments)]
fn rebuild(
    m: &mut Machine<'_>,
    storage: &Value,
    offset: &Value,
    size: &Value,
    stride: &Value,
    dtype: Option<TorchDtype>,
    grad: Option<&Value>,
    metadata: Option<&Value>,
) -> Step<Value> {
    let Value::Storage(sid) = storage else {
        return m.malformed("a tensor rebuilt from something that is not a storage");
    };
    let storage = m.storages[*sid as usize].clone();
    let dtype = dtype.unwrap_or(storage.dtype);
    let (offset, shape, strides, mut unsupported) =
        view_checks(m, &storage, dtype, offset, size, stride)?;
    if let Some(grad) = grad {
        let Value::Bool(grad) = grad else {
            return m.malformed("requires_grad is not a bool");
        };
        if *grad && !dtypes::can_require_grad(&dtype) {
            return m.malformed(format!(
                "only tensors of floating point dtype can require gradients (this one is {})",
                dtype.name
            ));
        }
    }
    if let Some(meta) = metadata {
        if !is_empty_state(m, meta) && !matches!(meta, Value::Bool(false)) {
            unsupported
                .get_or_insert_with(|| "tensor metadata (conjugate or negative bits)".into());
        }
    }
    if dtype.dtype.is_none() {
        unsupported.get_or_insert_with(|| format!("dtype torch.{}", dtype.name));
    }
    let id = u32::try_from(m.tensors.len()).map_err(|_| Refusal::Cap {
        why: "too many tensors".into(),
        at: m.op_at(),
    })?;
    let reduce_at = m.op_at();
    m.tensors.push(TensorRef {
        storage: *sid,
        dtype,
        offset,
        shape,
        stride: strides,
        at: reduce_at,
        unsupported,
    });
    Ok(Value::Tensor(id))
}

/// A checked view: storage offset, shape, strides, and why it is not read (a dtype with no
/// size here).
type View = (u64, Vec<u64>, Vec<u64>, Option<String>);

/// `Tensor.set_(storage, offset, size, stride)`'s checks of a view of `storage` as `dtype`.
fn view_checks(
    m: &mut Machine<'_>,
    storage: &StorageRef,
    dtype: TorchDtype,
    offset: &Value,
    size: &Value,
    stride: &Value,
) -> Step<View> {
    let Value::Int(offset) = offset else {
        return m.malformed("the storage offset is not an integer");
    };
    let shape = ints(m, size, "the size")?;
    let strides = ints(m, stride, "the stride")?;
    if shape.len() != strides.len() {
        return m.malformed(format!(
            "mismatch in length of strides ({}) and shape ({})",
            strides.len(),
            shape.len()
        ));
    }
    if *offset < 0 {
        return m.malformed(format!("invalid storage offset {offset}"));
    }
    if let Some(d) = shape.iter().find(|&&d| d < 0) {
        return m.malformed(format!("negative dimension {d}"));
    }
    if let Some(s) = strides.iter().find(|&&s| s < 0) {
        return m.malformed(format!("negative stride {s}"));
    }
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let strides: Vec<u64> = strides.iter().map(|&s| s as u64).collect();
    let offset = *offset as u64;
    let mut unsupported = None;
    match (dtype.elsize, storage.nbytes()) {
        (Some(elsize), Some(declared)) => {
            let grown = m.grown.get(&storage.key).copied().unwrap_or(0);
            let need = view_bytes(m, &shape, &strides, offset, elsize)?;
            // A resizable storage (legacy) grows to the view, as `Tensor.set_` resizes it;
            // torch then wants the file to hold that many bytes (legacy.rs checks).
            let resizable = m.resizable && storage.view.is_none();
            if need > declared.max(grown) {
                if !resizable {
                    return m.malformed(format!(
                        "sizes {shape:?}, strides {strides:?} and storage offset {offset} need {need} bytes of a storage of {declared}"
                    ));
                }
                m.grown.insert(storage.key.clone(), need);
            }
        }
        _ => unsupported = Some(format!("dtype torch.{}", dtype.name)),
    }
    Ok((offset, shape, strides, unsupported))
}

/// `_rebuild_qtensor(storage, storage_offset, size, stride, ...)` ends in `Tensor.set_` with
/// those, so it gets the same checks (fuzz case 24674 of seed 3: a view past its storage);
/// the quantized tensor itself is opaque (listed, not read).
fn qtensor(m: &mut Machine<'_>, name: String, a: &[Value]) -> Step<Value> {
    if let [Value::Storage(sid), offset, size, stride, ..] = a {
        let storage = m.storages[*sid as usize].clone();
        view_checks(m, &storage, storage.dtype, offset, size, stride)?;
    }
    Ok(opaque(name))
}

/// `torch.device(type_or_device)` / `torch.device(type, index)`: what torch 2.15's argument
/// parser refuses, as found by calling it (fuzz case 18427 of seed 4: a tensor's arguments);
/// a text or a non-negative index is left to be a device, opaque (its text is not parsed).
fn device(m: &mut Machine<'_>, name: String, a: &[Value]) -> Step<Value> {
    let not_text = |v: &Value| {
        !matches!(
            v,
            Value::Str(_) | Value::Bytes(_) | Value::Int(_) | Value::Opaque(_)
        )
    };
    let refused = match a {
        [first] => not_text(first),
        [first, index] => {
            not_text(first)
                || matches!(index, Value::Str(_))
                || matches!(index, Value::Int(i) if *i < 0)
        }
        _ => true,
    };
    if refused {
        return m.malformed(format!(
            "{name}() takes a device, a type or a type and a non-negative index"
        ));
    }
    Ok(opaque(name))
}

/// The storage bytes a view needs (`computeStorageNbytes`, what `Tensor.set_` checks or grows
/// the storage to): none with a zero dimension; otherwise up to its last element.
fn view_bytes(
    m: &Machine<'_>,
    shape: &[u64],
    strides: &[u64],
    offset: u64,
    elsize: u64,
) -> Step<u64> {
    if shape.contains(&0) {
        return Ok(0);
    }
    let span = shape.iter().zip(strides).try_fold(1u64, |acc, (&d, &s)| {
        s.checked_mul(d - 1).and_then(|x| acc.checked_add(x))
    });
    let need = span
        .and_then(|span| span.checked_mul(elsize))
        .and_then(|bytes| offset.checked_mul(elsize)?.checked_add(bytes));
    match need {
        None => m.malformed("the view's storage size overflows"),
        Some(need) => Ok(need),
    }
}
