"""Shared test helpers: writing raw safetensors files and running the CLI in-process."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from click.testing import CliRunner

from eagle3_inspect.cli import main


def raw_file(path: Path, header: dict | str, data: bytes = b"", pad: bool = True) -> Path:
    """Writes a safetensors file from a header (dict or exact JSON text) and data bytes."""
    text = header if isinstance(header, str) else json.dumps(header, separators=(",", ":"))
    if pad:
        text += " " * (-(8 + len(text)) % 8)
    path.write_bytes(struct.pack("<Q", len(text.encode())) + text.encode() + data)
    return path


def raw_tensors(path: Path, tensors: dict[str, tuple[str, tuple[int, ...], bytes]]) -> Path:
    """Writes a valid safetensors file from `{name: (dtype, shape, raw bytes)}`, in name order."""
    header, data, offset = {}, b"", 0
    for name in sorted(tensors):
        dtype, shape, raw = tensors[name]
        header[name] = {
            "dtype": dtype,
            "shape": list(shape),
            "data_offsets": [offset, offset + len(raw)],
        }
        data += raw
        offset += len(raw)
    return raw_file(path, header, data)


@pytest.fixture
def run_cli():
    """Runs the CLI in-process: returns (exit_code, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        result = CliRunner().invoke(main, list(args))
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result.exit_code, result.stdout, result.stderr

    return run
