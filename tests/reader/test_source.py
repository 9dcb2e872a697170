"""The byte-source seam: a checkpoint opened through `SourceFile` readers gives exactly what the
same files give when mapped (findings, tensor table, stats, hashes, vocab, diff), and a reader
that fails or answers short is a finding at open and an error naming the tensor at read time."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest

import eagle3_inspect
from eagle3_inspect._native import diff_pairs
from eagle3_inspect.errors import TensorUnreadableError
from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.source import SourceFile, SourceListing
from eagle3_inspect.synthetic.drafters import build_drafter, mutate_d2t_absolute


class Counted:
    """pread readers over a local directory that count calls and bytes (thread-safe)."""

    def __init__(self) -> None:
        self.calls = 0
        self.bytes = 0
        self.lock = threading.Lock()

    def reader(self, path: Path):
        def read(offset: int, length: int) -> bytes:
            fd = os.open(path, os.O_RDONLY)
            try:
                data = os.pread(fd, length, offset)
            finally:
                os.close(fd)
            with self.lock:
                self.calls += 1
                self.bytes += len(data)
            return data

        return read


def listing_of(directory: Path, counted: Counted | None = None) -> SourceListing:
    counted = counted or Counted()
    files = [
        SourceFile(p.name, p.stat().st_size, counted.reader(p))
        for p in sorted(directory.glob("*.safetensors"))
    ]
    index = directory / "model.safetensors.index.json"
    config = directory / "config.json"
    return SourceListing(
        path=str(directory),
        root=str(directory),
        files=files,
        index=(index.name, index.read_text()) if index.exists() else None,
        config=(config.name, config.read_text()) if config.exists() else None,
    )


@pytest.fixture(params=[1, 3], ids=["one-file", "three-shards"])
def drafter_dir(request, tmp_path) -> Path:
    return mutate_d2t_absolute(build_drafter()).write(tmp_path / "d", shards=request.param)


def test_ranged_open_equals_the_mapped_open(drafter_dir):
    mapped = eagle3_inspect.open(drafter_dir)
    ranged = Checkpoint.from_source(listing_of(drafter_dir))
    assert [f.to_dict() for f in ranged.findings] == [f.to_dict() for f in mapped.findings]
    assert ranged.tensors == mapped.tensors
    assert ranged.files == mapped.files
    assert ranged.config == mapped.config and ranged.config_path == mapped.config_path
    assert ranged.metadata == mapped.metadata
    assert ranged.path == mapped.path and ranged.index_path == mapped.index_path


def test_open_reads_only_the_headers(drafter_dir):
    counted = Counted()
    ranged = Checkpoint.from_source(listing_of(drafter_dir, counted))
    header_bytes = sum(8 + f.header_bytes for f in ranged.files)
    assert counted.calls == 2 * len(ranged.files)
    assert counted.bytes == header_bytes


def test_data_passes_are_identical(drafter_dir):
    mapped = eagle3_inspect.open(drafter_dir)
    counted = Counted()
    ranged = Checkpoint.from_source(listing_of(drafter_dir, counted))
    before = counted.bytes
    assert ranged.stats(hashes=True, threads=2) == mapped.stats(hashes=True, threads=2)
    assert counted.bytes - before == sum(t.nbytes for t in mapped.tensors.values())
    assert ranged.vocab_mapping() == mapped.vocab_mapping()
    for name in ("d2t", "fc.weight"):
        assert np.array_equal(ranged.tensor(name), mapped.tensor(name))
        assert bytes(ranged.raw_bytes(name)) == bytes(mapped.raw_bytes(name))
    pairs = [(n, n) for n in mapped.tensors]
    assert diff_pairs(ranged._native, mapped._native, pairs) == diff_pairs(
        mapped._native, mapped._native, pairs
    )


def test_a_reader_failing_at_open_is_ix001_naming_the_file(drafter_dir):
    listing = listing_of(drafter_dir)

    def broken(offset: int, length: int) -> bytes:
        raise OSError("HTTP 503 from https://example.invalid/x")

    first = listing.files[0]
    files = [SourceFile(first.name, first.size, broken), *listing.files[1:]]
    ckpt = Checkpoint.from_source(SourceListing(**{**listing.__dict__, "files": files}))
    ix001 = [f for f in ckpt.findings if f.code == "IX001"]
    assert ix001 and ix001[0].file == f"{drafter_dir}/{first.name}"
    assert "HTTP 503" in ix001[0].message


@pytest.mark.parametrize(
    "answer",
    [lambda data: data[:-1], lambda data: data + b"x", lambda data: data.decode("latin-1")],
)
def test_a_wrong_answer_at_read_time_names_tensor_and_offset(tmp_path, answer):
    directory = build_drafter().write(tmp_path / "d")
    path = directory / "model.safetensors"
    listing = listing_of(directory)
    exact = listing.files[0].read
    calls = []

    def read(offset: int, length: int) -> bytes:
        calls.append(offset)
        data = exact(offset, length)
        return data if len(calls) <= 2 else answer(data)  # headers fine, data wrong

    ckpt = Checkpoint.from_source(
        SourceListing(
            **{**listing.__dict__, "files": [SourceFile(path.name, path.stat().st_size, read)]}
        )
    )
    info = ckpt.tensors["fc.weight"]
    with pytest.raises(TensorUnreadableError) as err:
        ckpt.tensor("fc.weight")
    assert "fc.weight" in str(err.value) and f"byte offset {info.offset}" in str(err.value)
    with pytest.raises(TensorUnreadableError):
        ckpt.stats(["fc.weight"])


def test_an_index_naming_a_file_the_listing_lacks_is_ix001(tmp_path):
    directory = build_drafter().write(tmp_path / "d", shards=3)
    listing = listing_of(directory)
    ckpt = Checkpoint.from_source(SourceListing(**{**listing.__dict__, "files": listing.files[1:]}))
    mapped_missing = listing.files[0].name
    assert any(f.code == "IX001" and mapped_missing in f.message for f in ckpt.findings), (
        ckpt.findings
    )


def test_a_listed_name_leaving_the_root_is_ix010_and_never_read(tmp_path):
    directory = build_drafter().write(tmp_path / "d")
    listing = listing_of(directory)
    touched = []
    outside = SourceFile("../etc.safetensors", 100, lambda o, n: touched.append(o) or b"")
    ckpt = Checkpoint.from_source(
        SourceListing(**{**listing.__dict__, "files": [*listing.files, outside]})
    )
    assert [f.code for f in ckpt.findings if f.code == "IX010"] == ["IX010"]
    assert touched == []
