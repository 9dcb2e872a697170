"""Every VM code fires from a real file through the Python API (the Rust unit tests in
`rust/core/src/vocab/` cover each code in memory; these write safetensors files and read them back
through `Checkpoint.vocab_mapping`). Fixtures mirror `rust/core/src/vocab/fixtures.rs`."""

from __future__ import annotations

import numpy as np
import pytest

import eagle3_inspect
from eagle3_inspect.registry import rule
from tests.conftest import raw_tensors

VT, VD = 1000, 120


def frequency_selection() -> list[int]:
    ids = [999, 998, 3, 17, 990]
    ids += [i for i in range(70) if i not in (3, 17)]
    ids += [100 + 17 * k for k in range(47)]
    assert len(ids) == VD
    return ids[::-1]


SEL = sorted(frequency_selection())


def offsets(selection) -> list[int]:
    return [s - i for i, s in enumerate(selection)]


def ints(dtype: str, values) -> tuple[str, tuple[int, ...], bytes]:
    numpy = {"I64": "<i8", "I32": "<i4", "U32": "<u4", "F32": "<f4"}[dtype]
    return dtype, (len(values),), np.asarray(values, dtype=numpy).tobytes()


def mask(vt: int, selected, dtype: str = "BOOL") -> tuple[str, tuple[int, ...], bytes]:
    out = np.zeros(vt, dtype=np.uint8)
    out[list(selected)] = 1
    return dtype, (vt,), out.tobytes()


def bf16_half() -> tuple[str, tuple[int, ...], bytes]:
    return "BF16", (1,), np.asarray([0x3F00], dtype="<u2").tobytes()  # 0.5: not an id


def shuffled(selection) -> list[int]:
    out = list(selection)
    out[10], out[90] = out[90], out[10]
    return out


def duplicated() -> list[int]:
    off = offsets(SEL)
    off[1] = off[0] - 1  # draft id 1 maps to the same target as draft id 0
    return off


def one_replaced() -> list[int]:
    other = list(SEL)
    other[0] = 500
    return sorted(other)


def swapped(n: int) -> list[int]:
    ids = list(range(n))
    ids[3], ids[4] = ids[4], ids[3]
    return ids


FC = {"fc.weight": ("F32", (2,), bytes(8))}
CASES = {
    "VM001": (FC, VD, VT),
    "VM002": ({"d2t": ints("F32", offsets(SEL)), "t2d": mask(VT, SEL)}, None, None),
    "VM003": ({"d2t": ints("U32", offsets(SEL))}, VD, VT),
    "VM004": ({"d2t": bf16_half()}, 1, 10),
    "VM005": ({"d2t": ints("I64", offsets(SEL))}, VD + 8, VT),
    "VM006": ({"d2t": ints("I64", SEL), "t2d": mask(VT, SEL)}, VD, VT),
    "VM007": ({"d2t": ints("I64", [3, 5, 9])}, 3, 20),
    "VM008": ({"d2t": ints("I64", [7, 7, 7])}, 3, 8),
    "VM009": ({"d2t": ints("I64", duplicated())}, VD, VT),
    "VM010": ({"d2t": ints("I64", offsets(shuffled(SEL))), "t2d": mask(VT, SEL)}, VD, VT),
    "VM011": ({"d2t": ints("I32", offsets(frequency_selection()))}, VD, VT),
    "VM012": ({"d2t": ints("I64", [0] * VD)}, VD, VT),
    "VM013": ({"d2t": ints("I64", list(range(VD))), "t2d": mask(VT, range(VD))}, VD, VT),
    "VM014": ({"d2t": ints("I64", offsets(SEL)), "t2d": mask(VT, SEL, "U8")}, VD, VT),
    "VM015": ({"d2t": ints("I64", offsets(SEL)), "t2d": ("C64", (VT,), bytes(8 * VT))}, VD, VT),
    "VM016": ({"d2t": ints("I64", offsets(SEL)), "t2d": mask(VT, SEL)}, VD, VT + 24),
    "VM017": ({"d2t": ints("I64", offsets(SEL)), "t2d": mask(VT, range(VT))}, VD, VT),
    "VM018": ({"d2t": ints("I64", offsets(SEL)), "t2d": mask(VT, one_replaced())}, VD, VT),
    "VM019": (FC, VT + 1, VT),
    "VM020": ({"d2t": ints("I64", [0] * 50), "t2d": mask(50, range(50))}, 50, 50),
    "VM021": ({"d2t": ints("I64", offsets(swapped(50)))}, 50, 50),
    "VM022": ({"d2t": ints("I64", offsets(SEL))}, VD, None),
    # Offsets over every third id (d2t = 2*i): statistics alone say absolute, so a warning.
    "VM023": ({"d2t": ints("I64", [2 * i for i in range(VD)])}, VD, VT),
}


def test_every_vm_code_has_a_case():
    from eagle3_inspect.registry import all_rules

    assert set(CASES) == {code for code in all_rules() if code.startswith("VM")}


@pytest.mark.parametrize("code", sorted(CASES))
def test_vm_code_fires_from_a_file(tmp_path, code):
    tensors, vd, vt = CASES[code]
    path = raw_tensors(tmp_path / "model.safetensors", tensors)
    mapping = eagle3_inspect.open(path).vocab_mapping(draft_vocab=vd, target_vocab=vt)
    fired = {f.code: f for f in mapping.findings}
    assert code in fired, [f.code for f in mapping.findings]
    assert fired[code].severity is rule(code).severity
    assert fired[code].hint == (rule(code).hint or None)
