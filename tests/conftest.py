"""Shared test helpers: writing raw safetensors files and running the CLI in-process."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from eagle3_inspect.cli import main
from eagle3_inspect.synthetic.writer import header_bytes, raw_header


def raw_file(path: Path, header: dict | str, data: bytes = b"", pad: bool = True) -> Path:
    """Writes a safetensors file from a header (dict or exact JSON text) and data bytes."""
    path.write_bytes(raw_header(header, pad) + data)
    return path


def raw_tensors(path: Path, tensors: dict[str, tuple[str, tuple[int, ...], bytes]]) -> Path:
    """Writes a valid safetensors file from `{name: (dtype, shape, raw bytes)}`, in name order."""
    names = sorted(tensors)
    entries = [(n, tensors[n][0], tensors[n][1], len(tensors[n][2])) for n in names]
    path.write_bytes(header_bytes(entries) + b"".join(tensors[n][2] for n in names))
    return path


@pytest.fixture
def run_cli():
    """Runs the CLI in-process: returns (exit_code, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        result = CliRunner().invoke(main, list(args))
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result.exit_code, result.stdout, result.stderr

    return run
