//! Pickle opcodes: the ones torch's `weights_only` unpickler implements (the only ones this
//! machine runs), the ones that import or call by themselves (refused as a security finding),
//! and the names of the rest for messages.

/// `(`: push a mark.
pub const MARK: u8 = b'(';
/// `.`: end of the pickle.
pub const STOP: u8 = b'.';
/// `J`: 4-byte signed integer.
pub const BININT: u8 = b'J';
/// `K`: 1-byte unsigned integer.
pub const BININT1: u8 = b'K';
/// `M`: 2-byte unsigned integer.
pub const BININT2: u8 = b'M';
/// `N`: None.
pub const NONE: u8 = b'N';
/// `Q`: persistent id from the stack.
pub const BINPERSID: u8 = b'Q';
/// `R`: call a callable with an argument tuple.
pub const REDUCE: u8 = b'R';
/// `U`: short byte string (read as UTF-8 text, as `torch.load` asks).
pub const SHORT_BINSTRING: u8 = b'U';
/// `X`: UTF-8 string with a 4-byte length.
pub const BINUNICODE: u8 = b'X';
/// `a`: append to a list.
pub const APPEND: u8 = b'a';
/// `b`: set an object's state.
pub const BUILD: u8 = b'b';
/// `c`: push a global named by two text lines.
pub const GLOBAL: u8 = b'c';
/// `}`: empty dict.
pub const EMPTY_DICT: u8 = b'}';
/// `e`: extend a list by the items above the mark.
pub const APPENDS: u8 = b'e';
/// `h`: memo get, 1-byte key.
pub const BINGET: u8 = b'h';
/// `j`: memo get, 4-byte key.
pub const LONG_BINGET: u8 = b'j';
/// `]`: empty list.
pub const EMPTY_LIST: u8 = b']';
/// `q`: memo put, 1-byte key.
pub const BINPUT: u8 = b'q';
/// `r`: memo put, 4-byte key.
pub const LONG_BINPUT: u8 = b'r';
/// `s`: dict item.
pub const SETITEM: u8 = b's';
/// `t`: tuple of the items above the mark.
pub const TUPLE: u8 = b't';
/// `)`: empty tuple.
pub const EMPTY_TUPLE: u8 = b')';
/// `u`: dict items above the mark.
pub const SETITEMS: u8 = b'u';
/// `G`: 8-byte big-endian float.
pub const BINFLOAT: u8 = b'G';
/// Protocol marker.
pub const PROTO: u8 = 0x80;
/// Build an instance of a class with `cls.__new__`.
pub const NEWOBJ: u8 = 0x81;
/// One-item tuple.
pub const TUPLE1: u8 = 0x85;
/// Two-item tuple.
pub const TUPLE2: u8 = 0x86;
/// Three-item tuple.
pub const TUPLE3: u8 = 0x87;
/// True.
pub const NEWTRUE: u8 = 0x88;
/// False.
pub const NEWFALSE: u8 = 0x89;
/// Integer of n little-endian two's-complement bytes (1-byte n).
pub const LONG1: u8 = 0x8a;
/// Empty set.
pub const EMPTY_SET: u8 = 0x8f;

/// Opcodes that import a global or call one without `GLOBAL` + `REDUCE`: `STACK_GLOBAL`
/// imports a name built at run time, `INST` / `OBJ` / `NEWOBJ_EX` instantiate any class,
/// `EXT1`/`EXT2`/`EXT4` import from the copyreg extension registry. torch refuses each.
pub fn imports_or_calls(op: u8) -> bool {
    matches!(op, 0x93 | b'i' | b'o' | 0x92 | 0x82 | 0x83 | 0x84)
}

/// The pickle name of `op`, or `None` for a byte that is no opcode of any protocol.
pub fn name(op: u8) -> Option<&'static str> {
    Some(match op {
        b'(' => "MARK",
        b'.' => "STOP",
        b'0' => "POP",
        b'1' => "POP_MARK",
        b'2' => "DUP",
        b'F' => "FLOAT",
        b'I' => "INT",
        b'J' => "BININT",
        b'K' => "BININT1",
        b'L' => "LONG",
        b'M' => "BININT2",
        b'N' => "NONE",
        b'P' => "PERSID",
        b'Q' => "BINPERSID",
        b'R' => "REDUCE",
        b'S' => "STRING",
        b'T' => "BINSTRING",
        b'U' => "SHORT_BINSTRING",
        b'V' => "UNICODE",
        b'X' => "BINUNICODE",
        b'a' => "APPEND",
        b'b' => "BUILD",
        b'c' => "GLOBAL",
        b'd' => "DICT",
        b'}' => "EMPTY_DICT",
        b'e' => "APPENDS",
        b'g' => "GET",
        b'h' => "BINGET",
        b'i' => "INST",
        b'j' => "LONG_BINGET",
        b'l' => "LIST",
        b']' => "EMPTY_LIST",
        b'o' => "OBJ",
        b'p' => "PUT",
        b'q' => "BINPUT",
        b'r' => "LONG_BINPUT",
        b's' => "SETITEM",
        b't' => "TUPLE",
        b')' => "EMPTY_TUPLE",
        b'u' => "SETITEMS",
        b'G' => "BINFLOAT",
        b'B' => "BINBYTES",
        b'C' => "SHORT_BINBYTES",
        0x80 => "PROTO",
        0x81 => "NEWOBJ",
        0x82 => "EXT1",
        0x83 => "EXT2",
        0x84 => "EXT4",
        0x85 => "TUPLE1",
        0x86 => "TUPLE2",
        0x87 => "TUPLE3",
        0x88 => "NEWTRUE",
        0x89 => "NEWFALSE",
        0x8a => "LONG1",
        0x8b => "LONG4",
        0x8c => "SHORT_BINUNICODE",
        0x8d => "BINUNICODE8",
        0x8e => "BINBYTES8",
        0x8f => "EMPTY_SET",
        0x90 => "ADDITEMS",
        0x91 => "FROZENSET",
        0x92 => "NEWOBJ_EX",
        0x93 => "STACK_GLOBAL",
        0x94 => "MEMOIZE",
        0x95 => "FRAME",
        0x96 => "BYTEARRAY8",
        0x97 => "NEXT_BUFFER",
        0x98 => "READONLY_BUFFER",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_calling_opcodes_are_named_opcodes() {
        for op in 0..=255u8 {
            if imports_or_calls(op) {
                assert!(name(op).is_some(), "{op:#x}");
            }
        }
        assert_eq!(name(GLOBAL), Some("GLOBAL"));
        assert_eq!(name(0xff), None);
        assert!(!imports_or_calls(GLOBAL) && !imports_or_calls(REDUCE));
    }
}
