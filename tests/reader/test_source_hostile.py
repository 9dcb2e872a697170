"""Readers that misbehave: wrong types and lengths, exceptions that must reach the caller
(KeyboardInterrupt, SystemExit, MemoryError raised on a worker thread), re-entrance, sizes that
lie, sizes near 2**64 and files of 0..7 bytes. Every case ends in a finding, a clean error or the
reader's own exception, never a panic, a hang or a swallowed interrupt."""

from __future__ import annotations

import array
import threading

import numpy as np
import pytest

import eagle3_inspect
from eagle3_inspect import _native
from eagle3_inspect.errors import TensorUnreadableError
from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.source import SourceFile
from eagle3_inspect.synthetic.drafters import build_drafter
from eagle3_inspect.synthetic.writer import header_bytes
from tests.reader.sources import ROOT, directory_listing, listing, slicer

TENSOR = "fc.weight"


@pytest.fixture
def drafter(tmp_path):
    return build_drafter().write(tmp_path / "d", shards=3)


def findings(ckpt) -> list[dict]:
    return [f.to_dict() for f in ckpt.findings]


BYTES_LIKE = {
    "bytes": bytes,
    "bytearray": bytearray,
    "memoryview": memoryview,
    "array": lambda d: array.array("B", d),
    "numpy-uint8": lambda d: np.frombuffer(d, dtype=np.uint8),
    "numpy-int16": lambda d: np.frombuffer(d, dtype=np.int16) if len(d) % 2 == 0 else d,
}


@pytest.mark.parametrize("answer", BYTES_LIKE.values(), ids=BYTES_LIKE.keys())
def test_any_bytes_like_answer_is_its_raw_bytes(drafter, answer):
    mapped = eagle3_inspect.open(drafter)
    ranged = Checkpoint.from_source(directory_listing(drafter, answer))
    assert findings(ranged) == findings(mapped)
    assert ranged.raw_bytes(TENSOR).tobytes() == mapped.raw_bytes(TENSOR).tobytes()
    assert ranged.stats(hashes=True) == mapped.stats(hashes=True)


NOT_BYTES = {
    "None": lambda d: None,
    "str": lambda d: d.decode("latin-1"),
    "int": len,
    "list": list,
    "strided-memoryview": lambda d: memoryview(bytes(2 * len(d)))[::2],
}


@pytest.mark.parametrize("answer", NOT_BYTES.values(), ids=NOT_BYTES.keys())
def test_an_answer_that_is_not_bytes_like_is_ix001_at_open(drafter, answer):
    ckpt = Checkpoint.from_source(directory_listing(drafter, answer))
    ix001 = [f for f in ckpt.findings if f.code == "IX001"]
    assert len(ix001) == 3, findings(ckpt)
    assert all("not a bytes-like object" in f.message for f in ix001)


@pytest.mark.parametrize("answer", NOT_BYTES.values(), ids=NOT_BYTES.keys())
def test_an_answer_that_is_not_bytes_like_names_tensor_and_offset_at_read(drafter, answer):
    calls = []

    def data_wrong(data: bytes) -> object:
        calls.append(len(data))
        return data if len(calls) <= 6 else answer(data)  # 3 files x 2 header reads

    ckpt = Checkpoint.from_source(directory_listing(drafter, data_wrong))
    assert findings(ckpt) == findings(eagle3_inspect.open(drafter))
    info = ckpt.tensors[TENSOR]
    with pytest.raises(TensorUnreadableError) as err:
        ckpt.tensor(TENSOR)
    message = str(err.value)
    assert TENSOR in message and f"byte offset {info.offset}" in message
    assert info.file in message and "not a bytes-like object" in message


@pytest.mark.parametrize(
    "wrong", [-1, 1, -7, 100], ids=["one-short", "one-over", "7-short", "100-over"]
)
def test_more_or_fewer_bytes_than_asked(drafter, wrong):
    def answer(data: bytes) -> bytes:
        return data[:wrong] if wrong < 0 else data + bytes(wrong)

    ckpt = Checkpoint.from_source(directory_listing(drafter, answer))
    ix001 = [f for f in ckpt.findings if f.code == "IX001"]
    assert len(ix001) == 3 and all("got" in f.message for f in ix001), findings(ckpt)
    assert all(f.file.startswith(str(drafter)) for f in ix001)


FATAL = [KeyboardInterrupt, SystemExit, MemoryError]


class Fatal:
    """A reader over `data` raising `kind` from the `at`-th call on (calls counted per thread)."""

    def __init__(self, data: bytes, kind: type[BaseException], at: int) -> None:
        self.data, self.kind, self.at = data, kind, at
        self.lock = threading.Lock()
        self.calls: list[int] = []  # the thread of each call

    def read(self, offset: int, length: int) -> bytes:
        with self.lock:
            self.calls.append(threading.get_ident())
            n = len(self.calls)
        if n >= self.at:
            raise self.kind("raised inside the reader")
        return self.data[offset : offset + length]


def fatal_listing(tmp_path, kind, at: int, shards: int = 3):
    directory = build_drafter().write(tmp_path / "f", shards=shards)
    readers, files = [], []
    for path in sorted(directory.glob("*.safetensors")):
        reader = Fatal(path.read_bytes(), kind, at)
        readers.append(reader)
        files.append(SourceFile(path.name, path.stat().st_size, reader.read))
    return listing(files, root=str(directory)), readers


@pytest.mark.parametrize("kind", FATAL)
def test_a_fatal_exception_at_open_reaches_the_caller(tmp_path, kind):
    source, readers = fatal_listing(tmp_path, kind, at=1)
    with pytest.raises(kind, match="raised inside the reader"):
        Checkpoint.from_source(source)
    main = threading.get_ident()
    assert all(t != main for r in readers for t in r.calls), "reads run on worker threads"


@pytest.mark.parametrize("kind", FATAL)
@pytest.mark.parametrize("shards", [1, 3])
def test_a_fatal_exception_in_a_data_pass_reaches_the_caller_and_stops_the_reads(
    tmp_path, kind, shards
):
    source, readers = fatal_listing(tmp_path, kind, at=3, shards=shards)  # headers fine
    ckpt = Checkpoint.from_source(source)
    opened = sum(len(r.calls) for r in readers)
    with pytest.raises(kind, match="raised inside the reader"):
        ckpt.stats()
    # After the first fatal read no reader is called again: only reads already in flight ran.
    # The drafter has ~10 tensors per shard; with the reads going on, every one would be called.
    tensors = len(ckpt.tensors)
    assert sum(len(r.calls) for r in readers) - opened <= 8 < tensors + 3
    with pytest.raises(kind):
        ckpt.tensor(TENSOR)
    # The checkpoint stays usable: a later call reads (and raises) again, nothing is stuck.
    with pytest.raises(kind):
        ckpt.raw_bytes(TENSOR)


OPERATIONS = {
    "tensor": lambda r, m: r.tensor(TENSOR),
    "vocab_mapping": lambda r, m: r.vocab_mapping(),
    "content_hashes": lambda r, m: _native.content_hashes(r._native, [TENSOR]),
    "diff_pairs": lambda r, m: _native.diff_pairs(m._native, r._native, [(TENSOR, TENSOR)]),
    "compare_vocab": lambda r, m: _native.compare_vocab(m._native, r._native),
    "sum_words": lambda r, m: _native.sum_words(r._native),
}


@pytest.mark.parametrize("operation", OPERATIONS.values(), ids=OPERATIONS.keys())
def test_every_data_operation_re_raises_the_fatal_exception(tmp_path, operation):
    source, _ = fatal_listing(tmp_path, KeyboardInterrupt, at=3, shards=1)
    ranged = Checkpoint.from_source(source)
    mapped = eagle3_inspect.open(source.root)
    with pytest.raises(KeyboardInterrupt, match="raised inside the reader"):
        operation(ranged, mapped)


def test_a_reader_reentering_the_checkpoint(drafter):
    mapped = eagle3_inspect.open(drafter)
    holder: dict[str, Checkpoint] = {}
    budget = threading.Semaphore(2)  # two data reads re-enter; the nested reads run elsewhere
    reentered = []

    def answer(data: bytes) -> bytes:
        ckpt = holder.get("ckpt")
        if ckpt is not None and budget.acquire(blocking=False):
            reentered.append((ckpt.tensor(TENSOR).tobytes(), ckpt.stats([TENSOR])[TENSOR]))
        return data

    holder["ckpt"] = ckpt = Checkpoint.from_source(directory_listing(drafter, answer))
    done = {}
    worker = threading.Thread(
        target=lambda: done.update(stats=ckpt.stats(hashes=True)), daemon=True
    )
    worker.start()
    worker.join(120)
    assert not worker.is_alive(), "a re-entering reader hung the data pass"
    assert done["stats"] == mapped.stats(hashes=True)
    want = (mapped.tensor(TENSOR).tobytes(), mapped.stats([TENSOR])[TENSOR])
    assert reentered == [want, want]


def small_file() -> bytes:
    return (
        header_bytes([("a", "F32", (4,), 16), ("b", "F32", (4,), 16)])
        + np.arange(8, dtype=np.float32).tobytes()
    )


def test_a_size_larger_than_the_file_fails_the_reads_past_its_end():
    data = small_file()
    lying = listing([SourceFile("m.safetensors", len(data), slicer(data[:-8]))])
    ckpt = Checkpoint.from_source(lying)
    assert ckpt.findings == []  # the header is whole and agrees with the stated size
    np.testing.assert_array_equal(ckpt.tensor("a"), np.arange(4, dtype=np.float32))
    with pytest.raises(TensorUnreadableError) as err:
        ckpt.tensor("b")
    assert 'tensor "b"' in str(err.value) and f"byte offset {len(data) - 16}" in str(err.value)
    with pytest.raises(TensorUnreadableError, match="got 8"):
        ckpt.stats()


def test_a_size_smaller_than_the_file_is_the_file_cut_there(tmp_path):
    data = small_file()
    cut = len(data) - 8
    (tmp_path / "m.safetensors").write_bytes(data[:cut])
    asked = []

    def read(offset: int, length: int) -> bytes:
        asked.append(offset + length)
        return data[offset : offset + length]

    ranged = Checkpoint.from_source(
        listing([SourceFile("m.safetensors", cut, read)], root=str(tmp_path))
    )
    assert findings(ranged) == findings(eagle3_inspect.open(tmp_path)) != []
    assert max(asked) <= cut


@pytest.mark.parametrize("size", [2**64 - 1, 2**64 - 8, 2**63])
def test_sizes_near_2_64(size):
    data = small_file()
    ckpt = Checkpoint.from_source(listing([SourceFile("m.safetensors", size, slicer(data))]))
    np.testing.assert_array_equal(ckpt.tensor("b"), np.arange(4, 8, dtype=np.float32))
    assert all(f.file == f"{ROOT}/m.safetensors" for f in ckpt.findings)


@pytest.mark.parametrize("size", [2**64, -1, 1.0, True])
def test_a_size_outside_u64_is_refused_when_listed(size):
    with pytest.raises((ValueError, TypeError), match="size"):
        SourceFile("m.safetensors", size, slicer(b""))


@pytest.mark.parametrize("length", range(8))
def test_files_of_0_to_7_bytes_give_the_local_findings(tmp_path, length):
    data = bytes(range(1, length + 1))
    (tmp_path / "m.safetensors").write_bytes(data)
    asked = []

    def read(offset: int, n: int) -> bytes:
        asked.append((offset, n))
        return data[offset : offset + n]

    source = listing([SourceFile("m.safetensors", length, read)], root=str(tmp_path))
    ranged = Checkpoint.from_source(source)
    assert findings(ranged) == findings(eagle3_inspect.open(tmp_path)) != []
    assert asked == ([(0, length)] if length else [])
