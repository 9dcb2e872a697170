//! Test-only builders of torch files, byte for byte as `torch.save` lays them out (checked
//! against torch itself by the committed corpus in `tests/torch/`): a pickle assembler, a zip
//! writer with torch's 64-byte data alignment, and the two file formats around a state dict.

use super::pickle::ops;

/// A pickle being assembled (protocol 2, as torch writes).
#[derive(Debug, Clone, Default)]
pub struct P(pub Vec<u8>);

impl P {
    /// `PROTO 2`.
    pub fn new() -> P {
        P(vec![ops::PROTO, 2])
    }

    /// One raw opcode.
    pub fn op(&mut self, op: u8) -> &mut P {
        self.0.push(op);
        self
    }

    /// Raw bytes.
    pub fn raw(&mut self, bytes: &[u8]) -> &mut P {
        self.0.extend_from_slice(bytes);
        self
    }

    /// `GLOBAL module name`.
    pub fn global(&mut self, module: &str, name: &str) -> &mut P {
        self.0.push(ops::GLOBAL);
        self.0
            .extend_from_slice(format!("{module}\n{name}\n").as_bytes());
        self
    }

    /// `BINUNICODE`.
    pub fn str(&mut self, s: &str) -> &mut P {
        self.0.push(ops::BINUNICODE);
        self.0.extend_from_slice(&(s.len() as u32).to_le_bytes());
        self.0.extend_from_slice(s.as_bytes());
        self
    }

    /// An integer, as pickle's protocol 2 writes it.
    pub fn int(&mut self, i: i64) -> &mut P {
        if (0..256).contains(&i) {
            self.0.extend_from_slice(&[ops::BININT1, i as u8]);
        } else if (0..65536).contains(&i) {
            self.0.push(ops::BININT2);
            self.0.extend_from_slice(&(i as u16).to_le_bytes());
        } else if i32::try_from(i).is_ok() {
            self.0.push(ops::BININT);
            self.0.extend_from_slice(&(i as i32).to_le_bytes());
        } else {
            self.0.extend_from_slice(&[ops::LONG1, 8]);
            self.0.extend_from_slice(&i.to_le_bytes());
        }
        self
    }

    /// A tuple of integers.
    pub fn ints(&mut self, values: &[u64]) -> &mut P {
        self.op(ops::MARK);
        for &v in values {
            self.int(v as i64);
        }
        self.op(ops::TUPLE)
    }

    /// `STOP`, and the bytes.
    pub fn stop(&mut self) -> Vec<u8> {
        self.0.push(ops::STOP);
        std::mem::take(&mut self.0)
    }
}

/// One tensor of a state dict: a view of storage `key`.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The name.
    pub name: String,
    /// The legacy storage class (`FloatStorage`).
    pub class: &'static str,
    /// The storage key.
    pub key: String,
    /// The storage's length in elements.
    pub numel: u64,
    /// Storage offset.
    pub offset: u64,
    /// Sizes.
    pub shape: Vec<u64>,
    /// Strides.
    pub stride: Vec<u64>,
}

impl Spec {
    /// A contiguous tensor of its own storage `key`.
    pub fn plain(name: &str, class: &'static str, key: &str, shape: &[u64]) -> Spec {
        let mut stride = vec![1u64; shape.len()];
        for i in (0..shape.len().saturating_sub(1)).rev() {
            stride[i] = stride[i + 1] * shape[i + 1];
        }
        Spec {
            name: name.into(),
            class,
            key: key.into(),
            numel: shape.iter().product(),
            offset: 0,
            shape: shape.to_vec(),
            stride,
        }
    }
}

/// The state-dict pickle of `specs` (an `OrderedDict`), with zip (`legacy == false`) or legacy
/// persistent ids.
pub fn state_dict(specs: &[Spec], legacy: bool) -> Vec<u8> {
    let mut p = P::new();
    p.global("collections", "OrderedDict")
        .op(ops::EMPTY_TUPLE)
        .op(ops::REDUCE)
        .op(ops::MARK);
    for s in specs {
        p.str(&s.name)
            .global("torch._utils", "_rebuild_tensor_v2")
            .op(ops::MARK)
            .op(ops::MARK)
            .str("storage")
            .global("torch", s.class)
            .str(&s.key)
            .str("cpu")
            .int(s.numel as i64);
        if legacy {
            p.op(ops::NONE);
        }
        p.op(ops::TUPLE)
            .op(ops::BINPERSID)
            .int(s.offset as i64)
            .ints(&s.shape)
            .ints(&s.stride)
            .op(ops::NEWFALSE)
            .global("collections", "OrderedDict")
            .op(ops::EMPTY_TUPLE)
            .op(ops::REDUCE)
            .op(ops::TUPLE)
            .op(ops::REDUCE);
    }
    p.op(ops::SETITEMS);
    p.stop()
}

fn push16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn push32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// A zip archive of stored `records`, each record's data aligned to 64 bytes as torch's writer
/// pads them (an extra field in the local header).
pub fn zip(records: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in records {
        let local = out.len() as u32;
        let fixed = 30 + name.len();
        let pad = (64 - (out.len() + fixed + 4) % 64) % 64;
        push32(&mut out, 0x0403_4b50);
        for v in [20u16, 0, 0, 0, 0] {
            push16(&mut out, v);
        }
        push32(&mut out, 0);
        push32(&mut out, data.len() as u32);
        push32(&mut out, data.len() as u32);
        push16(&mut out, name.len() as u16);
        push16(&mut out, (4 + pad) as u16);
        out.extend_from_slice(name.as_bytes());
        push16(&mut out, 0x4246);
        push16(&mut out, pad as u16);
        out.extend(std::iter::repeat_n(b'Z', pad));
        out.extend_from_slice(data);
        push32(&mut central, 0x0201_4b50);
        for v in [20u16, 20, 0, 0, 0, 0] {
            push16(&mut central, v);
        }
        push32(&mut central, 0);
        push32(&mut central, data.len() as u32);
        push32(&mut central, data.len() as u32);
        push16(&mut central, name.len() as u16);
        for v in [0u16, 0, 0, 0] {
            push16(&mut central, v);
        }
        push32(&mut central, 0);
        push32(&mut central, local);
        central.extend_from_slice(name.as_bytes());
    }
    let cd_at = out.len() as u32;
    out.extend_from_slice(&central);
    push32(&mut out, 0x0605_4b50);
    for v in [0u16, 0, records.len() as u16, records.len() as u16] {
        push16(&mut out, v);
    }
    push32(&mut out, central.len() as u32);
    push32(&mut out, cd_at);
    push16(&mut out, 0);
    out
}

/// A zip torch archive (`archive/...`) of `pickle` and the storages `(key, bytes)`.
pub fn torch_zip(pickle: Vec<u8>, storages: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut records = vec![("archive/data.pkl".to_owned(), pickle)];
    records.push(("archive/byteorder".to_owned(), b"little".to_vec()));
    for (key, bytes) in storages {
        records.push((format!("archive/data/{key}"), bytes.clone()));
    }
    records.push(("archive/version".to_owned(), b"3\n".to_vec()));
    zip(&records)
}

/// A legacy torch file of the main `pickle` and the storages `(key, element size, bytes)`.
pub fn legacy(pickle: Vec<u8>, storages: &[(&str, u64, Vec<u8>)]) -> Vec<u8> {
    let mut out = P::new()
        .raw(&[
            ops::LONG1,
            10,
            0x6c,
            0xfc,
            0x9c,
            0x46,
            0xf9,
            0x20,
            0x6a,
            0xa8,
            0x50,
            0x19,
        ])
        .stop();
    out.extend(P::new().int(1001).stop());
    let mut info = P::new();
    info.op(ops::EMPTY_DICT)
        .str("protocol_version")
        .int(1001)
        .op(ops::SETITEM);
    out.extend(info.stop());
    out.extend(pickle);
    let mut keys = P::new();
    keys.op(ops::EMPTY_LIST).op(ops::MARK);
    for (key, _, _) in storages {
        keys.str(key);
    }
    keys.op(ops::APPENDS);
    out.extend(keys.stop());
    for (_, elsize, bytes) in storages {
        out.extend_from_slice(&(bytes.len() as u64 / elsize).to_le_bytes());
        out.extend_from_slice(bytes);
    }
    out
}

/// The little-endian bytes of `values` as f32.
pub fn f32s(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}
