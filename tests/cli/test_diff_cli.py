"""`eagle3-inspect diff`: exit codes 0/1/2, the eagle3-inspect/diff/1 JSON schema, options, and
the human output's verdict-first layout."""

from __future__ import annotations

import json

import numpy as np

from tests.diff_helpers import write

W = {
    "midlayer.mlp.up_proj.weight": np.arange(12, dtype=np.float32).reshape(3, 4),
    "fc.weight": np.linspace(-1, 1, 8, dtype=np.float32),
}
TOP_KEYS = {"schema", "a", "b", "added", "removed", "renamed", "changed", "unchanged"}
TOP_KEYS |= {"metadata", "config", "vocab"}
CHANGED_KEYS = {"name", "status", "dtype", "shape", "max_abs", "mean_abs", "rel_l2", "cosine"}
CHANGED_KEYS |= {"mismatched", "numel"}


def run_json(run_cli, *args: str) -> tuple[int, dict]:
    code, out, err = run_cli("diff", *args, "--json")
    assert "Traceback" not in err
    return code, json.loads(out)


def test_identical_exits_zero_with_the_schema(tmp_path, run_cli):
    a, b = write(tmp_path / "a", W), write(tmp_path / "b", W)
    code, data = run_json(run_cli, str(a), str(b))
    assert code == 0
    assert set(data) >= TOP_KEYS
    assert data["schema"] == "eagle3-inspect/diff/1"
    assert (data["a"], data["b"]) == (str(a), str(b))
    assert data["changed"] == [] and data["unchanged"] == 2
    assert data["vocab"]["same_mapping"] is None


def test_renames_alone_exit_zero_unless_no_renames(tmp_path, run_cli):
    renamed = {k.replace("midlayer.", "layers.0."): v for k, v in W.items()}
    a, b = write(tmp_path / "a", W), write(tmp_path / "b", renamed)
    code, data = run_json(run_cli, str(a), str(b))
    assert code == 0
    assert data["renamed"] == [
        {
            "from": "midlayer.mlp.up_proj.weight",
            "to": "layers.0.mlp.up_proj.weight",
            "by": "dialect:midlayer",
        }
    ]
    code, data = run_json(run_cli, str(a), str(b), "--no-renames")
    assert code == 1
    assert data["removed"] == ["midlayer.mlp.up_proj.weight"]
    assert data["added"] == ["layers.0.mlp.up_proj.weight"]


def test_differences_exit_one_and_close_pairs_are_listed(tmp_path, run_cli):
    changed = dict(W)
    changed["fc.weight"] = W["fc.weight"] * np.float32(1 + 2**-22)
    a, b = write(tmp_path / "a", W), write(tmp_path / "b", changed)
    code, data = run_json(run_cli, str(a), str(b))
    assert code == 0
    (entry,) = data["changed"]
    assert set(entry) >= CHANGED_KEYS
    assert entry["status"] == "close" and entry["numel"] == 8
    code, data = run_json(run_cli, str(a), str(b), "--rtol", "0", "--atol", "0")
    assert code == 1 and data["changed"][0]["status"] == "differ"
    assert data["changed"][0]["mismatched"] > 0


def test_config_change_exits_one(tmp_path, run_cli):
    a = write(tmp_path / "a", W, config={"draft_vocab_size": 32000})
    b = write(tmp_path / "b", W, config={"draft_vocab_size": 16000})
    code, data = run_json(run_cli, str(a), str(b))
    assert code == 1
    assert data["config"]["changed"] == {"draft_vocab_size": [32000, 16000]}


def test_structure_only_and_filter(tmp_path, run_cli):
    changed = {**W, "fc.weight": W["fc.weight"] + 1}
    a, b = write(tmp_path / "a", W), write(tmp_path / "b", changed)
    code, data = run_json(run_cli, str(a), str(b), "--structure-only")
    assert code == 0 and data["changed"] == [] and data["vocab"] is None
    code, data = run_json(run_cli, str(a), str(b), "--filter", "midlayer.*", "--threads", "1")
    assert code == 0 and data["unchanged"] == 1
    code, data = run_json(run_cli, str(a), str(b), "--filter", "fc.*")
    assert code == 1 and [c["name"] for c in data["changed"]] == ["fc.weight"]


def test_cannot_run_exits_two(tmp_path, run_cli):
    a = write(tmp_path / "a", W)
    code, _, err = run_cli("diff", str(a), str(tmp_path / "missing"))
    assert code == 2 and "error" in err and "Traceback" not in err
    not_ckpt = tmp_path / "empty"
    not_ckpt.mkdir()
    code, _, err = run_cli("diff", str(a), str(not_ckpt), "--json")
    assert code == 2
    code, _, _ = run_cli("diff", str(a), str(a), "--rtol", "-1")
    assert code == 2


def test_human_output_starts_with_the_verdict(tmp_path, run_cli):
    changed = {**W, "fc.weight": W["fc.weight"] + 1, "extra": np.zeros(2, np.float32)}
    a, b = write(tmp_path / "a", W), write(tmp_path / "b", changed)
    code, out, _ = run_cli("diff", str(a), str(b), "--format", "full")
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith("different") and "1 added" in first
    assert "Changed tensors" in out and "fc.weight" in out and "extra" in out


def test_a_damaged_side_is_named(tmp_path, run_cli):
    a, b = write(tmp_path / "a", W), write(tmp_path / "b", W)
    shard = next(b.glob("*.safetensors")) if b.is_dir() else b
    shard.write_bytes(shard.read_bytes()[:-8])  # truncate the last tensor
    code, data = run_json(run_cli, str(a), str(b))
    assert code == 1
    assert data["findings"]["a"] == []
    assert {f["code"] for f in data["findings"]["b"]} == {"ST015"}
    code, out, _ = run_cli("diff", str(a), str(b), "--format", "full")
    assert "B has 1 file error(s) (ST015)" in out
