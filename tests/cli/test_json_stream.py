"""The streaming `--json` writer writes, byte for byte, what the one-string writer it replaced
wrote (kept here as the oracle), on a 10k-tensor file, across batch boundaries."""

from __future__ import annotations

import json
import struct
from typing import Any

import pytest

import eagle3_inspect
from eagle3_inspect.cli import json_stream
from eagle3_inspect.cli.emit import emit_json
from eagle3_inspect.commands.scan import scan
from eagle3_inspect.commands.validate import validate
from eagle3_inspect.jsontext import EncodedRecords, encode_record

TENSORS = 10_000


def _old_json_text(value: Any, depth: int = 0) -> str:
    """The writer before streaming (cli/main.py at 91ff721), verbatim but for the encoder."""
    pad = "  " * (depth + 1)
    if depth < 2 and isinstance(value, dict) and value:
        items = [
            f"{pad}{json.dumps(str(k))}: {_old_json_text(v, depth + 1)}" for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
    if depth < 2 and isinstance(value, list) and value:
        items = [pad + _old_json_text(v, depth + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * depth + "]"
    return json.dumps(value, allow_nan=False, default=str)


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> str:
    """One file of 10k F32 [2, 2] tensors of zeros (every one an all-zero NUM004 finding)."""
    entries = [
        f'"model.layers.{i // 1000}.block.{i % 1000}.weight":'
        f'{{"dtype":"F32","shape":[2,2],"data_offsets":[{16 * i},{16 * i + 16}]}}'
        for i in range(TENSORS)
    ]
    header = ('{"__metadata__":{"format":"pt"},' + ",".join(entries) + "}").encode()
    header += b" " * (-len(header) % 8)
    path = tmp_path_factory.mktemp("many") / "many.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + bytes(16 * TENSORS))
    return str(path)


@pytest.mark.parametrize(
    ("argv", "report"),
    [
        (["scan", "--json"], lambda p: scan(p)),
        (["scan", "--json", "--stats"], lambda p: scan(p, stats=True)),
        (["validate", "--json"], lambda p: validate(p)),
    ],
)
def test_cli_output_equals_the_one_string_writer(many, run_cli, argv, report) -> None:
    code, out, err = run_cli(argv[0], many, *argv[1:])
    assert code in (0, 1), err
    expected = _old_json_text(report(many).to_dict()) + "\n"
    assert out == expected
    if argv[0] == "validate":  # every all-zero tensor is a record of its own
        codes = [f["code"] for f in json.loads(out)["findings"]]
        assert codes.count("NUM004") == TENSORS


@pytest.mark.parametrize("batch", [1, 7, 4096])
def test_batches_of_any_size_join_to_the_document(many, monkeypatch, batch) -> None:
    monkeypatch.setattr(json_stream, "BATCH_CHARS", batch)
    data = scan(eagle3_inspect.open(many), stats=True).to_dict()
    writes: list[str] = []
    json_stream.write_json(data, writes.append)
    assert "".join(writes) == _old_json_text(data) + "\n"
    assert len(writes) > 1
    assert all(len(w) < batch + 2000 for w in writes)  # a batch is never much over its size


def test_non_finite_floats_are_refused_and_unknown_objects_become_strings() -> None:
    with pytest.raises(ValueError):
        json_stream.json_text({"a": [{"x": float("nan")}]})
    assert json_stream.json_text({"a": {"b": {"c": None, "d": object}}}).startswith(
        '{\n  "a": {\n    "b": {"c": null, "d": "<class'
    )


def test_empty_record_iterators_are_written_as_empty_lists(many, capsys) -> None:
    # A filter matching nothing is refused now (issue 24 item 5): empty lists made by hand.
    report = scan(many)
    report.tensors, report.findings = [], []
    emit_json(report.to_dict(stream=True))
    out = capsys.readouterr().out
    assert out == _old_json_text(report.to_dict()) + "\n"
    assert '"tensors": [],' in out and '"findings": [],' in out
    assert json_stream.json_text({"a": iter([])}) == '{\n  "a": []\n}'


def test_the_api_documents_keep_their_lists_and_streamed_ones_yield_the_same_records(many):
    report = validate(many)
    listed, streamed = report.to_dict(), report.to_dict(stream=True)
    assert isinstance(listed["findings"], list)
    # Streamed records arrive encoded, each the encoder's text of the listed record.
    assert list(streamed["findings"]) == list(map(encode_record, listed["findings"]))
    for stats in (False, True):
        rows = scan(many, stats=stats)
        texts = list(rows.to_dict(stream=True)["tensors"])
        assert texts == list(map(encode_record, rows.to_dict()["tensors"]))


@pytest.mark.parametrize("count", [0, 1, 2, 511, 512, 513, 1025])
def test_encoded_records_are_written_as_the_records_they_encode(count) -> None:
    records = [{"i": i, "s": "a, b\n"} for i in range(count)]
    streamed = {"a": 1, "rows": EncodedRecords(map(encode_record, records))}
    assert json_stream.json_text(streamed) == _old_json_text({"a": 1, "rows": records})
