"""Case generators: valid safetensors files, byte-level and structural (header JSON) mutations of
them, and mutated `model.safetensors.index.json` files. Every generator is a function of a
`random.Random`, so a case is reproducible from its seed."""

from __future__ import annotations

import json
import random
import struct

DTYPES = {"F32": 4, "F16": 2, "BF16": 2, "I64": 8, "U8": 1, "BOOL": 1, "F64": 8, "I8": 1}
BAD_DTYPES = ["Q4", "f32", "", "F8", "I128", "F4 ", "\u00e9", 3, None, ["F32"]]
HUGE = [2**63, 2**64 - 1, 2**64, 2**70, -1, -(2**63), 10**30, 1e308, 1.5, -0.0, "1"]


def assemble(header: str | bytes, data: bytes, length: int | None = None) -> bytes:
    raw = header.encode("utf-8", "surrogatepass") if isinstance(header, str) else header
    return struct.pack("<Q", len(raw) if length is None else length % 2**64) + raw + data


def valid_tensors(rng: random.Random) -> tuple[list[tuple[str, str, list[int], int, int]], int]:
    """(name, dtype, shape, begin, end) laid out contiguously, and the data length."""
    out, offset = [], 0
    for i in range(rng.randint(0, 4)):
        dtype = rng.choice(list(DTYPES))
        shape = [rng.randint(0, 3) for _ in range(rng.randint(0, 3))]
        n = DTYPES[dtype]
        for d in shape:
            n *= d
        out.append((f"t{i}", dtype, shape, offset, offset + n))
        offset += n
    return out, offset


def header_pairs(rng: random.Random) -> tuple[list[tuple[str, object]], int]:
    tensors, data_len = valid_tensors(rng)
    pairs: list[tuple[str, object]] = []
    if rng.random() < 0.5:
        pairs.append(("__metadata__", {"format": "pt", "k": "v"}))
    for name, dtype, shape, b, e in tensors:
        pairs.append((name, {"dtype": dtype, "shape": shape, "data_offsets": [b, e]}))
    rng.shuffle(pairs)
    return pairs, data_len


def render(pairs: list[tuple[str, object]]) -> str:
    """JSON text of an object from ordered pairs; duplicates are kept (json.dumps cannot)."""
    return "{" + ",".join(json.dumps(k) + ":" + render_value(v) for k, v in pairs) + "}"


def render_value(value: object) -> str:
    if isinstance(value, RawJson):
        return value.text
    if isinstance(value, dict):
        return render(list(value.items()))
    if isinstance(value, list) and any(isinstance(v, RawJson) for v in value):
        return "[" + ",".join(render_value(v) for v in value) + "]"
    return json.dumps(value)


class RawJson:
    """Literal JSON text (for things json.dumps will not write: 1e999, lone surrogates, repeats)."""

    def __init__(self, text: str) -> None:
        self.text = text


def _entry(rng: random.Random, pairs: list) -> dict | None:
    entries = [v for k, v in pairs if isinstance(v, dict) and k != "__metadata__"]
    return rng.choice(entries) if entries else None


def dup_name(rng, pairs):
    if pairs:
        pairs.insert(rng.randint(0, len(pairs)), rng.choice(pairs))


def dup_field(rng, pairs):
    entry = _entry(rng, pairs)
    if entry is None:
        return
    key = rng.choice(["dtype", "shape", "data_offsets", "extra"])
    items = [*entry.items(), (key, entry.get(key, 1))]
    entry.clear()
    text = render(items)
    entry["__raw__"] = RawJson(text)


def bad_dtype(rng, pairs):
    entry = _entry(rng, pairs)
    if entry is not None:
        entry["dtype"] = rng.choice(BAD_DTYPES + list(DTYPES))


def bad_offsets(rng, pairs):
    entry = _entry(rng, pairs)
    offsets = entry.get("data_offsets") if entry is not None else None
    if isinstance(offsets, list) and len(offsets) == 2 and all(type(x) is int for x in offsets):
        b, e = offsets
        entry["data_offsets"] = rng.choice(
            [
                [b + 1, e + 1],
                [b, e + 1],
                [max(b - 1, 0), e],
                [e, b],
                [0, e],
                [b],
                [b, e, e],
                [rng.choice(HUGE), e],
                [b, rng.choice(HUGE)],
                "0,1",
                None,
            ]
        )


def bad_shape(rng, pairs):
    entry = _entry(rng, pairs)
    if entry is not None:
        entry["shape"] = rng.choice(
            [[2**32, 2**32], [2**63, 2], [rng.choice(HUGE)], [0, 2**63], [1] * 70, [], None, 1]
        )


def weird_number(rng, pairs):
    entry = _entry(rng, pairs)
    if entry is not None:
        text = rng.choice(["1e999", "-1e999", "1.0", "-0", "1E2", "00", "18446744073709551616"])
        field = rng.choice(["shape", "data_offsets", "extra"])
        entry[field] = [RawJson(text)] if field != "extra" else RawJson(text)


def bad_metadata(rng, pairs):
    choices = [
        RawJson('{"k":"\\ud800"}'),
        RawJson('{"k":"\\udc00x"}'),
        RawJson('{"\\ud83d":"v"}'),
        RawJson('{"k":1e999}'),
        RawJson('{"k":"\\ud83d\\ude00"}'),
        {"k": 1},
        [],
        "s",
        None,
        RawJson('{"k":"a","k":"b"}'),
        RawJson("{" + '"k":' + "[" * 130 + "]" * 130 + "}"),
    ]
    depth = rng.randint(120, 130)
    choices.append(RawJson('{"k":' + "[" * depth + '"v"' + "]" * depth + "}"))
    pairs.append(("__metadata__", rng.choice(choices)))


def weird_name(rng, pairs):
    if pairs:
        i = rng.randrange(len(pairs))
        name = rng.choice(
            ["\ud800", "a\udc00", "", "__metadata__", "\u0000", "\U0001f600", "a" * 300]
        )
        pairs[i] = (name, pairs[i][1])


def deep_extra(rng, pairs):
    entry = _entry(rng, pairs)
    if entry is not None:
        depth = rng.randint(123, 130)
        entry["extra"] = RawJson("[" * depth + "]" * depth)


STRUCTURAL = [
    dup_name,
    dup_field,
    bad_dtype,
    bad_offsets,
    bad_shape,
    weird_number,
    bad_metadata,
    weird_name,
    deep_extra,
]


def _fix_raw(pairs):
    """dup_field replaces an entry by its raw text; unwrap it for rendering."""
    return [(k, v["__raw__"] if isinstance(v, dict) and "__raw__" in v else v) for k, v in pairs]


def valid_file(rng: random.Random) -> bytes:
    pairs, data_len = header_pairs(rng)
    text = render(pairs)
    text += " " * (-(8 + len(text)) % 8 if rng.random() < 0.7 else 0)
    return assemble(text, bytes(rng.randrange(256) for _ in range(data_len)))


def byte_level(rng: random.Random, blob: bytes) -> bytes:
    """Byte flips, overwrites, truncation, insertion, deletion and length-prefix tweaks."""
    b = bytearray(blob)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(7)
        if op == 0 and b:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        elif op == 1 and b:
            b[rng.randrange(len(b))] = rng.choice(
                [0, 0x22, 0x2C, 0x5B, 0x5D, 0x7B, 0x7D, 0x5C, 0xFF, 0xC3, 0xED]
            )
        elif op == 2:
            del b[rng.randint(0, len(b)) :]
        elif op == 3:
            at = rng.randint(0, len(b))
            b[at:at] = rng.choice(
                [b" ", b"\xef\xbb\xbf", b"\xff", b'"', b"0", b"\\", bytes([rng.randrange(256)])]
            )
        elif op == 4 and b:
            at = rng.randrange(len(b))
            del b[at : at + rng.randint(1, 4)]
        elif op == 5 and len(b) >= 8:
            n = struct.unpack("<Q", bytes(b[:8]))[0]
            n = rng.choice(
                [n + 1, n - 1, n + 8, 0, 2, 2**63, 2**64 - 1, 100_000_001, len(b) - 8, len(b)]
            )
            b[:8] = struct.pack("<Q", n % 2**64)
        elif op == 6:
            b += bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return bytes(b)


def file_case(rng: random.Random) -> bytes:
    kind = rng.random()
    if kind < 0.1:
        return valid_file(rng)
    if kind < 0.55:
        return byte_level(rng, valid_file(rng))
    blob = structural(rng)
    return byte_level(rng, blob) if rng.random() < 0.15 else blob


def structural(rng: random.Random) -> bytes:
    """A header built wrong on purpose, one or two structural defects at a time."""
    pairs, data_len = header_pairs(rng)
    for _ in range(rng.randint(1, 2)):
        rng.choice(STRUCTURAL)(rng, pairs)
    text = render(_fix_raw(pairs))
    if rng.random() < 0.3:
        text = rng.choice([" ", "\n", "\t", "\r\n"]) * rng.randint(1, 9) + text
    if rng.random() < 0.3:
        text += " " * rng.randint(1, 9)
    if rng.random() < 0.05:
        text = "\ufeff" + text
    data = bytes(rng.randrange(256) for _ in range(data_len))
    if rng.random() < 0.2:
        data = data[: rng.randint(0, data_len)] + b"\0" * rng.randint(0, 3)
    return assemble(text, data)


SHARD_TENSORS = {
    "model-00001-of-00002.safetensors": ["a", "b"],
    "model-00002-of-00002.safetensors": ["c"],
}


def index_case(rng: random.Random) -> bytes:
    """A `model.safetensors.index.json` for the shards of SHARD_TENSORS, mutated."""
    weight_map: dict[str, object] = {t: f for f, ts in SHARD_TENSORS.items() for t in ts}
    doc: dict[str, object] = {"metadata": {"total_size": 12}, "weight_map": weight_map}
    for _ in range(rng.randint(0, 3)):
        op = rng.randrange(9)
        key = rng.choice(list(weight_map) or ["a"])
        if op == 0:
            weight_map[key] = rng.choice(
                ["missing.safetensors", "../x.safetensors", "/etc/hostname", "", ".", 3, None]
            )
        elif op == 1:
            weight_map.pop(key, None)
        elif op == 2:
            weight_map[rng.choice(["z", "", "\u00e9", "a" * 200])] = rng.choice(list(SHARD_TENSORS))
        elif op == 3:
            doc["weight_map"] = rng.choice([[], "x", None, 3, {}])
        elif op == 4:
            doc.pop("weight_map", None)
        elif op == 5:
            doc["metadata"] = rng.choice([None, [], {"total_size": -1}, {"total_size": "x"}])
        elif op == 6:
            doc = rng.choice([[], "x", None])  # type: ignore[assignment]
            break
        elif op == 7:
            doc["weight_map"] = RawJson(
                render([*weight_map.items(), ("a", "model-00002-of-00002.safetensors")])
            )
        elif op == 8:
            doc["extra"] = RawJson("[" * 200 + "]" * 200)
    text = render_value(doc).encode()
    if rng.random() < 0.3:
        text = byte_level(rng, text)
    return text
