//! The opcode loop: the stack, the mark stack and the memo, opcode by opcode as torch's
//! `weights_only` unpickler has them, with every read bounds-checked and every value counted
//! against the cell cap.

use super::calls;
use super::globals::{self, Global, Unresolved};
use super::ops;
use super::value::{Arena, Dict, DictKind, Object, Value};
use super::{PersistentLoad, Refusal, StorageRef, TensorRef, Unpickled, CELL_CAP, MARK_CAP};
use std::collections::HashMap;
use std::rc::Rc;

pub(super) struct Machine<'a> {
    data: &'a [u8],
    pos: usize,
    /// Offset of the opcode being run (for refusals).
    at: usize,
    stack: Vec<Value>,
    marks: Vec<Vec<Value>>,
    memo: HashMap<u32, Value>,
    pub(super) arena: Arena,
    pub(super) storages: Vec<StorageRef>,
    pub(super) tensors: Vec<TensorRef>,
    cells: u64,
    lossy_text: bool,
    /// Whether `Tensor.set_` grows a storage to a view past its end (legacy files).
    pub(super) resizable: bool,
    pub(super) grown: HashMap<String, u64>,
}

type Step<T> = Result<T, Refusal>;

/// Runs the pickle in `data` (from offset 0) to its `STOP`, loading storages through `loader`.
pub fn run(data: &[u8], loader: &mut dyn PersistentLoad) -> Result<Unpickled, Refusal> {
    let mut m = Machine {
        data,
        pos: 0,
        at: 0,
        stack: Vec::new(),
        marks: Vec::new(),
        memo: HashMap::new(),
        arena: Arena::default(),
        storages: Vec::new(),
        tensors: Vec::new(),
        cells: 0,
        lossy_text: false,
        resizable: loader.resizable(),
        grown: HashMap::new(),
    };
    let root = m.run_loop(loader)?;
    Ok(Unpickled {
        root,
        arena: m.arena,
        storages: m.storages,
        tensors: m.tensors,
        end: m.pos,
        lossy_text: m.lossy_text,
        grown: m.grown,
    })
}

impl Machine<'_> {
    /// Offset of the opcode being run.
    pub(super) fn op_at(&self) -> usize {
        self.at
    }

    pub(super) fn malformed<T>(&self, why: impl Into<String>) -> Step<T> {
        Err(Refusal::Malformed {
            why: why.into(),
            at: self.at,
        })
    }

    fn take(&mut self, n: usize) -> Step<&[u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let Some(end) = end else {
            return Err(Refusal::Truncated {
                at: self.data.len(),
            });
        };
        let bytes = &self.data[self.pos..end];
        self.pos = end;
        Ok(bytes)
    }

    fn byte(&mut self) -> Step<u8> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Step<u16> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Step<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A `\n`-terminated line without its newline, as Python's `readline()[:-1]`.
    fn line(&mut self) -> Step<&[u8]> {
        let rest = &self.data[self.pos..];
        let Some(n) = rest.iter().position(|&b| b == b'\n') else {
            return Err(Refusal::Truncated {
                at: self.data.len(),
            });
        };
        let line = &rest[..n];
        self.pos += n + 1;
        Ok(line)
    }

    fn count(&mut self, n: u64) -> Step<()> {
        self.cells = self.cells.saturating_add(n);
        if self.cells > CELL_CAP {
            return Err(Refusal::Cap {
                why: format!("more than {CELL_CAP} values"),
                at: self.at,
            });
        }
        Ok(())
    }

    fn push(&mut self, value: Value) -> Step<()> {
        self.count(1)?;
        self.stack.push(value);
        Ok(())
    }

    fn pop(&mut self) -> Step<Value> {
        match self.stack.pop() {
            Some(v) => Ok(v),
            None => self.malformed("the stack is empty"),
        }
    }

    fn top(&self) -> Step<&Value> {
        match self.stack.last() {
            Some(v) => Ok(v),
            None => self.malformed("the stack is empty"),
        }
    }

    pub(super) fn add(&mut self, object: Object) -> Step<Value> {
        match self.arena.add(object) {
            Some(v) => Ok(v),
            None => Err(Refusal::Cap {
                why: "too many objects".into(),
                at: self.at,
            }),
        }
    }

    fn pop_mark(&mut self) -> Step<Vec<Value>> {
        match self.marks.pop() {
            Some(below) => Ok(std::mem::replace(&mut self.stack, below)),
            None => self.malformed("no mark to pop to"),
        }
    }

    fn text(&mut self, bytes_len: usize, surrogates: bool) -> Step<Value> {
        let bytes = self.take(bytes_len)?;
        let text: Rc<str> = match std::str::from_utf8(bytes) {
            Ok(s) => Rc::from(s),
            Err(_) if surrogates && surrogate_utf8(bytes) => {
                let s = Rc::from(String::from_utf8_lossy(bytes).as_ref());
                self.lossy_text = true;
                s
            }
            Err(e) => return self.malformed(format!("text is not valid UTF-8 ({e})")),
        };
        Ok(Value::Str(text))
    }

    fn run_loop(&mut self, loader: &mut dyn PersistentLoad) -> Step<Value> {
        loop {
            self.at = self.pos;
            let op = self.byte()?;
            match op {
                ops::GLOBAL => {
                    let global = self.global()?;
                    self.push(Value::Global(global))?;
                }
                ops::NEWOBJ => {
                    let args = self.pop()?;
                    let cls = self.pop()?;
                    let made = calls::new_object(self, &cls, &args)?;
                    self.push(made)?;
                }
                ops::REDUCE => {
                    let args = self.pop()?;
                    let func = self.pop()?;
                    let Value::Global(func) = func else {
                        let kind = func.kind(&self.arena).to_owned();
                        return self.malformed(format!("REDUCE calls a {kind}, not a global"));
                    };
                    let made = calls::call(self, &func, &args)?;
                    self.push(made)?;
                }
                ops::BUILD => {
                    let state = self.pop()?;
                    let inst = self.top()?.clone();
                    calls::build(self, &inst, &state)?;
                }
                ops::APPEND => {
                    let item = self.pop()?;
                    self.count(1)?;
                    self.extend_list(vec![item], "APPEND")?;
                }
                ops::APPENDS => {
                    let items = self.pop_mark()?;
                    self.extend_list(items, "APPENDS")?;
                }
                ops::SETITEM => {
                    let value = self.pop()?;
                    let key = self.pop()?;
                    self.count(2)?;
                    self.set_items(vec![key, value], "SETITEM")?;
                }
                ops::SETITEMS => {
                    let items = self.pop_mark()?;
                    if items.len() % 2 == 1 {
                        return self.malformed("SETITEMS with an odd number of items");
                    }
                    self.set_items(items, "SETITEMS")?;
                }
                ops::MARK => {
                    if self.marks.len() >= MARK_CAP {
                        return Err(Refusal::Cap {
                            why: format!("marks nested more than {MARK_CAP} deep"),
                            at: self.at,
                        });
                    }
                    self.count(1)?;
                    let below = std::mem::take(&mut self.stack);
                    self.marks.push(below);
                }
                ops::TUPLE => {
                    let items = self.pop_mark()?;
                    let t = self.add(Object::Tuple(items))?;
                    self.push(t)?;
                }
                ops::TUPLE1 | ops::TUPLE2 | ops::TUPLE3 => {
                    let n = usize::from(op - ops::TUPLE1 + 1);
                    if self.stack.len() < n {
                        return self.malformed(format!("TUPLE{n} needs {n} items on the stack"));
                    }
                    let items = self.stack.split_off(self.stack.len() - n);
                    let t = self.add(Object::Tuple(items))?;
                    self.push(t)?;
                }
                ops::NONE => self.push(Value::None)?,
                ops::NEWFALSE => self.push(Value::Bool(false))?,
                ops::NEWTRUE => self.push(Value::Bool(true))?,
                ops::EMPTY_TUPLE => {
                    let t = self.add(Object::Tuple(Vec::new()))?;
                    self.push(t)?;
                }
                ops::EMPTY_LIST => {
                    let l = self.add(Object::List(Vec::new()))?;
                    self.push(l)?;
                }
                ops::EMPTY_DICT => {
                    let d = self.add(Object::Dict(DictKind::Plain, Dict::default()))?;
                    self.push(d)?;
                }
                ops::EMPTY_SET => {
                    let s = self.add(Object::Set(Vec::new()))?;
                    self.push(s)?;
                }
                ops::BININT => {
                    let v = self.u32()? as i32;
                    self.push(Value::Int(i64::from(v)))?;
                }
                ops::BININT1 => {
                    let v = self.byte()?;
                    self.push(Value::Int(i64::from(v)))?;
                }
                ops::BININT2 => {
                    let v = self.u16()?;
                    self.push(Value::Int(i64::from(v)))?;
                }
                ops::LONG1 => {
                    let n = usize::from(self.byte()?);
                    let bytes = self.take(n)?;
                    let v = decode_long(bytes);
                    self.push(v)?;
                }
                ops::BINFLOAT => {
                    let b = self.take(8)?;
                    let mut a = [0u8; 8];
                    a.copy_from_slice(b);
                    self.push(Value::Float(f64::from_be_bytes(a)))?;
                }
                ops::BINUNICODE => {
                    let n = self.u32()? as usize;
                    let v = self.text(n, true)?;
                    self.push(v)?;
                }
                ops::SHORT_BINSTRING => {
                    let n = usize::from(self.byte()?);
                    let v = self.text(n, false)?;
                    self.push(v)?;
                }
                ops::BINPERSID => {
                    let pid = self.pop()?;
                    let storage = self.persistent(loader, &pid)?;
                    let id = u32::try_from(self.storages.len()).map_err(|_| Refusal::Cap {
                        why: "too many storages".into(),
                        at: self.at,
                    })?;
                    self.storages.push(storage);
                    self.push(Value::Storage(id))?;
                }
                ops::BINGET | ops::LONG_BINGET => {
                    let key = if op == ops::BINGET {
                        u32::from(self.byte()?)
                    } else {
                        self.u32()?
                    };
                    let Some(v) = self.memo.get(&key).cloned() else {
                        return self.malformed(format!("memo key {key} was never put"));
                    };
                    self.push(v)?;
                }
                ops::BINPUT | ops::LONG_BINPUT => {
                    let key = if op == ops::BINPUT {
                        u32::from(self.byte()?)
                    } else {
                        self.u32()?
                    };
                    let v = self.top()?.clone();
                    self.count(1)?;
                    self.memo.insert(key, v);
                }
                ops::PROTO => {
                    self.byte()?;
                }
                ops::STOP => return self.pop(),
                op if ops::imports_or_calls(op) => {
                    let at = self.at;
                    // Step over its arguments (never run): where the scan for more starts.
                    let args = match op {
                        b'i' => match self.line().map(|_| ()) {
                            Ok(()) => self.line().map(|_| ()),
                            Err(e) => Err(e),
                        },
                        0x82 => self.take(1).map(|_| ()),
                        0x83 => self.take(2).map(|_| ()),
                        0x84 => self.take(4).map(|_| ()),
                        _ => Ok(()),
                    };
                    let next = if args.is_ok() {
                        self.pos
                    } else {
                        self.data.len()
                    };
                    return Err(Refusal::Calling { op, at, next });
                }
                op => return Err(Refusal::Unsupported { op, at: self.at }),
            }
        }
    }

    fn global(&mut self) -> Step<Global> {
        let at = self.at;
        let module = self.line()?.to_vec();
        let name = self.line()?.to_vec();
        let (Ok(module), Ok(name)) = (String::from_utf8(module), String::from_utf8(name)) else {
            return self.malformed("GLOBAL names a module or name that is not UTF-8");
        };
        let (module, name) = globals::mapped(&module, &name);
        match globals::resolve(&module, &name) {
            Ok(global) => Ok(global),
            Err(why) => Err(Refusal::Global {
                module,
                name,
                blocked: why == Unresolved::Blocked,
                at,
                next: self.pos,
            }),
        }
    }

    fn persistent(&mut self, loader: &mut dyn PersistentLoad, pid: &Value) -> Step<StorageRef> {
        let items = match pid {
            Value::Obj(id) => match self.arena.get(*id) {
                Some(Object::Tuple(items)) => items.clone(),
                _ => return self.malformed("a persistent id must be a tuple"),
            },
            _ => return self.malformed("a persistent id must be a tuple"),
        };
        match items.first() {
            Some(Value::Str(s)) if &**s == "storage" => {}
            _ => return self.malformed("only persistent ids of storages are allowed"),
        }
        match loader.load(&items[1..], &self.arena, self.at) {
            Ok(storage) => Ok(storage),
            Err(why) => self.malformed(why),
        }
    }

    fn extend_list(&mut self, items: Vec<Value>, op: &str) -> Step<()> {
        let target = self.top()?.clone();
        if let Value::Obj(id) = target {
            if let Some(Object::List(list)) = self.arena.get_mut(id) {
                list.extend(items);
                return Ok(());
            }
        }
        let kind = target.kind(&self.arena).to_owned();
        self.malformed(format!("{op} to a {kind}: only lists can be appended to"))
    }

    fn set_items(&mut self, items: Vec<Value>, op: &str) -> Step<()> {
        let target = self.top()?.clone();
        for key in items.iter().step_by(2) {
            if let Some(kind) = self.arena.unhashable(key) {
                return self.malformed(format!("{op} with an unhashable {kind} key"));
            }
        }
        if let Value::Obj(id) = target {
            if let Some(Object::Dict(_, dict)) = self.arena.get_mut(id) {
                let mut it = items.into_iter();
                while let (Some(k), Some(v)) = (it.next(), it.next()) {
                    dict.set(k, v);
                }
                return Ok(());
            }
        }
        let kind = target.kind(&self.arena).to_owned();
        self.malformed(format!("{op} on a {kind}: only dicts take items"))
    }
}

/// Python's `pickle.decode_long`: little-endian two's complement.
fn decode_long(bytes: &[u8]) -> Value {
    if bytes.is_empty() {
        return Value::Int(0);
    }
    if bytes.len() > 8 {
        let negative = bytes[bytes.len() - 1] & 0x80 != 0;
        let fill = if negative { 0xff } else { 0x00 };
        // Sign extension only: a long LONG1 can still hold a 64-bit value.
        let fits = bytes[8..].iter().all(|&b| b == fill) && (bytes[7] & 0x80 != 0) == negative;
        if !fits {
            let mut short = bytes.to_vec();
            while short.len() > 9
                && short[short.len() - 1] == fill
                && (short[short.len() - 2] & 0x80 != 0) == negative
            {
                short.pop();
            }
            return Value::BigInt(Rc::from(short));
        }
    }
    let mut buf = [if bytes[bytes.len().min(8) - 1] & 0x80 != 0 {
        0xff
    } else {
        0
    }; 8];
    let n = bytes.len().min(8);
    buf[..n].copy_from_slice(&bytes[..n]);
    Value::Int(i64::from_le_bytes(buf))
}

/// True when `bytes` is UTF-8 but for encoded surrogates (what Python's `surrogatepass` reads).
fn surrogate_utf8(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(_) => return true,
            Err(e) => {
                let bad = &rest[e.valid_up_to()..];
                let is_surrogate = bad.len() >= 3
                    && bad[0] == 0xed
                    && (0xa0..=0xbf).contains(&bad[1])
                    && (0x80..=0xbf).contains(&bad[2]);
                if !is_surrogate {
                    return false;
                }
                rest = &bad[3..];
            }
        }
    }
    true
}

/// How an opcode's argument is laid out, for walking a pickle without running it.
enum Arg {
    None,
    Fixed(usize),
    /// A length of this many little-endian bytes, then that many bytes.
    Counted(usize),
    Lines(usize),
}

fn arg_of(op: u8) -> Option<Arg> {
    Some(match op {
        b'F' | b'I' | b'L' | b'P' | b'S' | b'V' | b'g' | b'p' => Arg::Lines(1),
        b'c' | b'i' => Arg::Lines(2),
        b'J' | b'j' | b'r' | 0x84 => Arg::Fixed(4),
        b'K' | b'h' | b'q' | 0x80 | 0x82 => Arg::Fixed(1),
        b'M' | 0x83 => Arg::Fixed(2),
        b'G' | 0x95 => Arg::Fixed(8),
        b'T' | b'X' | b'B' | 0x8b => Arg::Counted(4),
        b'U' | b'C' | 0x8a | 0x8c => Arg::Counted(1),
        0x8d | 0x8e | 0x96 => Arg::Counted(8),
        op if ops::name(op).is_some() => Arg::None,
        _ => return None,
    })
}

/// True for the opcodes that push a string (what `STACK_GLOBAL` takes its names from).
fn pushes_text(op: u8) -> bool {
    matches!(op, b'S' | b'V' | b'T' | b'U' | b'X' | 0x8c | 0x8d)
}

/// Every global a pickle would import that torch's allowlist refuses, found by walking its
/// opcodes by their argument lengths only (as `pickletools` disassembles), never running one:
/// `GLOBAL` and `INST` name theirs, `STACK_GLOBAL` takes the last two strings pushed (directly
/// or from the memo). Walks on into a next pickle that starts right after `STOP`. At most
/// `limit` names; stops at a byte that is no opcode or an argument past the end.
pub(super) fn scan_globals(data: &[u8], from: usize, limit: usize) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    let mut memo: std::collections::HashMap<u64, String> = std::collections::HashMap::new();
    let mut last_text: Option<String> = None;
    let mut pos = from;
    let refused = |module: &str, name: &str| {
        let (module, name) = globals::mapped(module, name);
        globals::resolve(&module, &name)
            .is_err()
            .then(|| format!("{module}.{name}"))
    };
    while found.len() < limit {
        let Some(&op) = data.get(pos) else { break };
        let at = pos;
        pos += 1;
        let Some(arg) = arg_of(op) else { break };
        let (body, next) = match arg {
            Arg::None => (&data[pos..pos], pos),
            Arg::Fixed(n) => match data.get(pos..pos + n) {
                Some(b) => (b, pos + n),
                None => break,
            },
            Arg::Counted(n) => {
                let Some(len) = data.get(pos..pos + n) else {
                    break;
                };
                let mut bytes = [0u8; 8];
                bytes[..n].copy_from_slice(len);
                let len = u64::from_le_bytes(bytes);
                let Some(end) = usize::try_from(len)
                    .ok()
                    .and_then(|l| (pos + n).checked_add(l))
                else {
                    break;
                };
                match data.get(pos + n..end) {
                    Some(b) => (b, end),
                    None => break,
                }
            }
            Arg::Lines(k) => {
                let mut end = pos;
                for _ in 0..k {
                    match data
                        .get(end..)
                        .and_then(|r| r.iter().position(|&b| b == b'\n'))
                    {
                        Some(n) => end += n + 1,
                        None => return found,
                    }
                }
                (&data[pos..end], end)
            }
        };
        pos = next;
        let text = String::from_utf8_lossy(body);
        let pushed = pushes_text(op).then(|| {
            text.trim_end_matches('\n')
                .trim_matches(|c| c == '\'' || c == '"')
                .to_owned()
        });
        match op {
            b'c' | b'i' => {
                let mut lines = text.split('\n');
                let (module, name) = (lines.next().unwrap_or(""), lines.next().unwrap_or(""));
                if let Some(full) = refused(module, name) {
                    found.push((full, at));
                }
            }
            0x93 => {
                if let [.., module, name] = texts.as_slice() {
                    if let Some(full) = refused(module, name) {
                        found.push((full, at));
                    }
                } else {
                    found.push(("opcode STACK_GLOBAL".into(), at));
                }
            }
            b'q' | b'r' | b'p' | 0x94 => {
                if let Some(t) = &last_text {
                    let key = match op {
                        b'q' => u64::from(body[0]),
                        b'r' => u64::from(u32::from_le_bytes([body[0], body[1], body[2], body[3]])),
                        b'p' => text.trim().parse().unwrap_or(u64::MAX),
                        _ => memo.len() as u64,
                    };
                    memo.insert(key, t.clone());
                }
            }
            b'h' | b'j' | b'g' => {
                let key = match op {
                    b'h' => u64::from(body[0]),
                    b'j' => u64::from(u32::from_le_bytes([body[0], body[1], body[2], body[3]])),
                    _ => text.trim().parse().unwrap_or(u64::MAX),
                };
                if let Some(t) = memo.get(&key).cloned() {
                    texts.push(t.clone());
                    last_text = Some(t);
                    continue;
                }
            }
            op if ops::imports_or_calls(op) => {
                found.push((format!("opcode {}", ops::name(op).unwrap_or("?")), at));
            }
            ops::STOP if data.get(pos) != Some(&ops::PROTO) => break,
            _ => {}
        }
        match pushed {
            Some(t) => {
                texts.push(t.clone());
                last_text = Some(t);
            }
            None if !matches!(op, b'q' | b'r' | b'p' | 0x94 | 0x95) => last_text = None,
            None => {}
        }
        if texts.len() > 64 {
            texts.drain(..32);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longs_decode_as_python_does() {
        assert_eq!(decode_long(&[]), Value::Int(0));
        assert_eq!(decode_long(&[0xff]), Value::Int(-1));
        assert_eq!(decode_long(&[0x7f]), Value::Int(127));
        assert_eq!(decode_long(&[0x80]), Value::Int(-128));
        assert_eq!(decode_long(&[0x80, 0x00]), Value::Int(128));
        assert_eq!(
            decode_long(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]),
            Value::Int(i64::MAX)
        );
        assert_eq!(
            decode_long(&[0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0]),
            Value::BigInt(Rc::from(&[0, 0, 0, 0, 0, 0, 0, 0x80, 0][..]))
        );
        assert_eq!(decode_long(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0]), Value::Int(1));
        assert_eq!(
            decode_long(&[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
            Value::Int(-2)
        );
    }

    #[test]
    fn encoded_surrogates_are_told_from_other_bad_bytes() {
        assert!(surrogate_utf8(b"ab\xed\xa0\x80cd"));
        assert!(!surrogate_utf8(b"ab\xffcd"));
        assert!(!surrogate_utf8(b"ab\xed\xa0"));
    }
}
