//! What the restricted pickle machine builds: plain values, and containers kept in an arena and
//! referred to by index. The arena gives pickle's object identity (a memoized list appended to
//! later is the same list everywhere it is referenced) without reference counting: cycles cost
//! nothing, dropping a deeply nested structure never recurses, and a memo reference is a copy
//! of an index, never of the structure behind it (no "billion laughs" blow-up).

use super::globals::Global;
use std::collections::HashMap;
use std::rc::Rc;

/// Index of a container in [`Arena::objects`].
pub type ObjId = u32;
/// Index of a storage in [`super::Unpickled::storages`].
pub type StorageId = u32;
/// Index of a tensor in [`super::Unpickled::tensors`].
pub type TensorId = u32;

/// One value on the stack, in the memo or inside a container.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// An integer that fits in 64 bits.
    Int(i64),
    /// An integer too large for 64 bits (LONG1 with more than 8 bytes), as its shortest
    /// little-endian two's-complement bytes: never a size or offset (torch's magic number is one).
    BigInt(Rc<[u8]>),
    /// A float.
    Float(f64),
    /// A text string (BINUNICODE, SHORT_BINSTRING decoded as UTF-8).
    Str(Rc<str>),
    /// A bytes object (from `_codecs.encode`).
    Bytes(Rc<[u8]>),
    /// A container in the arena.
    Obj(ObjId),
    /// A global from the allowlist, resolved by name (never imported: it is only a name).
    Global(Global),
    /// What the persistent-load hook returned: a storage of the file.
    Storage(StorageId),
    /// What a tensor rebuild function returned.
    Tensor(TensorId),
    /// The result of calling an allowed global this reader does not interpret (a quantized or
    /// sparse tensor, a device, a layout, ...): `what` names the call.
    Opaque(Rc<str>),
}

impl Value {
    /// A short name of the value's Python type, for messages.
    pub fn kind<'a>(&self, arena: &'a Arena) -> &'a str {
        match self {
            Value::None => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::BigInt(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
            Value::Obj(id) => arena.get(*id).map_or("object", Object::kind),
            Value::Global(_) => "global",
            Value::Storage(_) => "storage",
            Value::Tensor(_) => "Tensor",
            Value::Opaque(_) => "object",
        }
    }
}

/// Which dict type a dict is (`SETITEM` accepts these three; `BUILD` only the ordered one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DictKind {
    /// `{}`.
    Plain,
    /// `collections.OrderedDict`.
    Ordered,
    /// `collections.Counter`.
    Counter,
}

/// A hashable key this reader can compare: dict keys are nearly always strings (tensor names).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Key {
    /// A string key.
    Str(Rc<str>),
    /// An integer key (bools compare as 0 and 1, as in Python).
    Int(i64),
}

impl Key {
    /// The key of `value` when it is a string or an integer.
    pub fn of(value: &Value) -> Option<Key> {
        match value {
            Value::Str(s) => Some(Key::Str(Rc::clone(s))),
            Value::Int(i) => Some(Key::Int(*i)),
            Value::Bool(b) => Some(Key::Int(i64::from(*b))),
            _ => None,
        }
    }
}

/// A dict: items in insertion order, a repeated key replacing the value in place (Python's rule).
#[derive(Debug, Clone, Default)]
pub struct Dict {
    /// Entries in insertion order.
    pub items: Vec<(Value, Value)>,
    index: HashMap<Key, usize>,
}

impl Dict {
    /// Sets `key` to `value`: replaces the value of an equal string or integer key, else appends.
    pub fn set(&mut self, key: Value, value: Value) {
        if let Some(k) = Key::of(&key) {
            if let Some(&at) = self.index.get(&k) {
                self.items[at].1 = value;
                return;
            }
            self.index.insert(k, self.items.len());
        }
        self.items.push((key, value));
    }
}

/// A container.
#[derive(Debug, Clone)]
pub enum Object {
    /// A tuple (also `torch.Size`).
    Tuple(Vec<Value>),
    /// A list.
    List(Vec<Value>),
    /// A dict of one of the three kinds.
    Dict(DictKind, Dict),
    /// A set (`EMPTY_SET`, `builtins.set`).
    Set(Vec<Value>),
}

impl Object {
    fn kind(&self) -> &'static str {
        match self {
            Object::Tuple(_) => "tuple",
            Object::List(_) => "list",
            Object::Dict(DictKind::Plain, _) => "dict",
            Object::Dict(DictKind::Ordered, _) => "OrderedDict",
            Object::Dict(DictKind::Counter, _) => "Counter",
            Object::Set(_) => "set",
        }
    }
}

/// Every container the machine made.
#[derive(Debug, Default)]
pub struct Arena {
    objects: Vec<Object>,
}

impl Arena {
    /// The Python type of what makes `key` unhashable (a list, dict or set, or one inside a
    /// tuple), as Python refuses it as a dict key; `None` when it hashes. Walked with an
    /// explicit stack, each tuple once (a memo can share one tuple many times over).
    pub fn unhashable(&self, key: &Value) -> Option<&'static str> {
        let mut stack = vec![key];
        let mut seen = std::collections::HashSet::new();
        while let Some(v) = stack.pop() {
            let Value::Obj(id) = v else {
                continue;
            };
            if !seen.insert(*id) {
                continue;
            }
            match self.get(*id)? {
                Object::Tuple(items) => stack.extend(items.iter()),
                other => return Some(other.kind()),
            }
        }
        None
    }

    /// Stores `object`; `None` when the arena already holds `u32::MAX` objects (the caller's
    /// cell cap is far below that).
    pub fn add(&mut self, object: Object) -> Option<Value> {
        let id = ObjId::try_from(self.objects.len()).ok()?;
        self.objects.push(object);
        Some(Value::Obj(id))
    }

    /// The container `id`.
    pub fn get(&self, id: ObjId) -> Option<&Object> {
        self.objects.get(id as usize)
    }

    /// The container `id`, to modify.
    pub fn get_mut(&mut self, id: ObjId) -> Option<&mut Object> {
        self.objects.get_mut(id as usize)
    }

    /// The items of a tuple or list value.
    pub fn sequence<'a>(&'a self, value: &Value) -> Option<&'a [Value]> {
        match value {
            Value::Obj(id) => match self.get(*id)? {
                Object::Tuple(items) | Object::List(items) => Some(items),
                _ => None,
            },
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unhashable_as_python_says() {
        // Fuzz case 31049 of seed 3: an OrderedDict as a dict key (torch: "unhashable type").
        let mut arena = Arena::default();
        let od = arena
            .add(Object::Dict(DictKind::Ordered, Dict::default()))
            .unwrap();
        let list = arena.add(Object::List(Vec::new())).unwrap();
        let ints = arena
            .add(Object::Tuple(vec![Value::Int(1), Value::Int(2)]))
            .unwrap();
        let nested = arena.add(Object::Tuple(vec![ints.clone(), list])).unwrap();
        assert_eq!(arena.unhashable(&od), Some("OrderedDict"));
        assert_eq!(arena.unhashable(&nested), Some("list"));
        assert_eq!(arena.unhashable(&ints), None);
        assert_eq!(arena.unhashable(&Value::Int(3)), None);
    }

    #[test]
    fn a_repeated_key_keeps_its_place_and_takes_the_last_value() {
        let mut d = Dict::default();
        let s = |t: &str| Value::Str(Rc::from(t));
        d.set(s("a"), Value::Int(1));
        d.set(s("b"), Value::Int(2));
        d.set(s("a"), Value::Int(3));
        d.set(Value::Bool(true), Value::Int(4));
        d.set(Value::Int(1), Value::Int(5));
        assert_eq!(
            d.items,
            vec![
                (s("a"), Value::Int(3)),
                (s("b"), Value::Int(2)),
                (Value::Bool(true), Value::Int(5)),
            ]
        );
    }
}
