"""The header cases the reference refuses and the reader once reported clean (issue 10, item 6):
each is an ST error through the public API, naming the file and a byte offset."""

from __future__ import annotations

from pathlib import Path

import pytest

import eagle3_inspect

CORPUS = Path(__file__).resolve().parents[1] / "fuzz" / "corpus"


@pytest.mark.parametrize(
    ("seed", "code"),
    [
        ("seed-meta-lone-surrogate", "ST022"),
        ("seed-meta-1e999", "ST022"),
        ("seed-meta-nesting-200", "ST022"),
        ("seed-name-lone-surrogate", "ST022"),
        ("seed-entry-nesting-126-refused", "ST022"),
        ("seed-repeated-dtype", "ST023"),
    ],
)
def test_reference_refusals_are_st_errors_with_a_location(seed: str, code: str) -> None:
    path = CORPUS / f"{seed}.safetensors"
    found = [f for f in eagle3_inspect.open(path).findings if f.code == code]
    assert found, [f.code for f in eagle3_inspect.open(path).findings]
    assert all(f.severity.value == "error" and f.file == str(path) for f in found)
    assert all(f.offset is not None and 8 <= f.offset < path.stat().st_size for f in found)


@pytest.mark.parametrize(
    "seed",
    [
        "seed-entry-nesting-125-loads",
        "seed-repeated-unknown-field-loads",
        "seed-surrogate-pair-loads",
    ],
)
def test_what_the_reference_loads_has_no_st_error(seed: str) -> None:
    found = eagle3_inspect.open(CORPUS / f"{seed}.safetensors").findings
    assert not [f for f in found if f.code.startswith("ST") and f.severity.value == "error"]
