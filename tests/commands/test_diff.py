"""`eagle3_inspect.diff`: structure (renames, added/removed, dtype/shape changes, sharding) and
numbers (metrics against numpy in float64), on checkpoints built in the test."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import eagle3_inspect
from tests.diff_helpers import assert_metrics, write

RNG = np.random.default_rng(1234)
WEIGHTS = {
    "midlayer.self_attn.q_proj.weight": RNG.standard_normal((64, 48)).astype(np.float32),
    "midlayer.input_layernorm.weight": RNG.standard_normal(48).astype(np.float32),
    "fc.weight": RNG.standard_normal((48, 96)).astype(np.float32),
    "norm.weight": np.ones(48, dtype=np.float32),
    "lm_head.weight": RNG.standard_normal((32, 48)).astype(np.float32),
}


def by_name(report) -> dict[str, dict]:
    return {c["name"]: c for c in report.to_dict()["changed"]}


def test_identical_checkpoints(tmp_path):
    a = write(tmp_path / "a", WEIGHTS, config={"hidden_size": 48})
    b = write(tmp_path / "b", WEIGHTS, config={"hidden_size": 48})
    report = eagle3_inspect.diff(a, b)
    assert report.identical and report.ok
    assert report.unchanged == len(WEIGHTS)
    assert report.to_dict()["changed"] == []
    assert {p.status for p in report.pairs} == {"equal"}


def test_sharded_against_unsharded(tmp_path):
    a = write(tmp_path / "a", WEIGHTS)
    b = write(tmp_path / "b", WEIGHTS, shards=3)
    assert len(eagle3_inspect.open(b).files) == 3
    report = eagle3_inspect.diff(a, b)
    assert report.identical
    assert report.unchanged == len(WEIGHTS)


@pytest.mark.parametrize("prefix", ["", "model."])
def test_dialect_renames(tmp_path, prefix):
    renamed = {
        prefix + k.replace("midlayer.", "layers.0."): v
        for k, v in WEIGHTS.items()
        if k != "lm_head.weight"
    }
    renamed["lm_head.weight"] = WEIGHTS["lm_head.weight"]
    report = eagle3_inspect.diff(write(tmp_path / "a", WEIGHTS), write(tmp_path / "b", renamed))
    got = {r.source: (r.target, r.by) for r in report.matching.renamed}
    want_rule = {"": "dialect:midlayer", "model.": "dialect:midlayer+model-prefix"}[prefix]
    assert got["midlayer.self_attn.q_proj.weight"] == (
        prefix + "layers.0.self_attn.q_proj.weight",
        want_rule,
    )
    if prefix:
        assert got["fc.weight"] == ("model.fc.weight", "dialect:model-prefix")
    assert len(got) == (len(WEIGHTS) - 1 if prefix else 2)
    assert report.ok and not report.identical
    assert report.added == report.removed == []
    assert {p.status for p in report.pairs} == {"equal"}


def test_pure_renames_by_hash_and_no_renames(tmp_path):
    other = dict(WEIGHTS)
    other["proj.weight"] = other.pop("fc.weight")
    a, b = write(tmp_path / "a", WEIGHTS), write(tmp_path / "b", other)
    report = eagle3_inspect.diff(a, b)
    assert [r.to_dict() for r in report.matching.renamed] == [
        {"from": "fc.weight", "to": "proj.weight", "by": "hash"}
    ]
    assert report.ok
    strict = eagle3_inspect.diff(a, b, renames=False)
    assert (strict.removed, strict.added, strict.ok) == (["fc.weight"], ["proj.weight"], False)
    # Headers only: no content hashes, so the rename is not found.
    headers = eagle3_inspect.diff(a, b, structure_only=True)
    assert headers.matching.renamed == [] and headers.added == ["proj.weight"]


def test_changed_content_is_not_a_hash_rename(tmp_path):
    other = dict(WEIGHTS)
    other["proj.weight"] = other.pop("fc.weight") + np.float32(1.0)
    report = eagle3_inspect.diff(write(tmp_path / "a", WEIGHTS), write(tmp_path / "b", other))
    assert report.removed == ["fc.weight"] and report.added == ["proj.weight"]
    assert not report.ok


def test_close_and_differ_metrics_against_numpy(tmp_path):
    other = dict(WEIGHTS)
    fc = WEIGHTS["fc.weight"]
    other["fc.weight"] = fc * np.float32(1 + 1e-7)
    lm = WEIGHTS["lm_head.weight"].copy()
    lm += RNG.standard_normal(lm.shape).astype(np.float32) * 0.05
    lm[7, 11] += 3.0
    other["lm_head.weight"] = lm
    report = eagle3_inspect.diff(write(tmp_path / "a", WEIGHTS), write(tmp_path / "b", other))
    changed = by_name(report)
    assert changed["fc.weight"]["status"] == "close"
    assert changed["lm_head.weight"]["status"] == "differ"
    assert changed["lm_head.weight"]["max_abs_at"] == [7, 11]
    assert_metrics(changed["fc.weight"], fc, other["fc.weight"])
    assert_metrics(changed["lm_head.weight"], WEIGHTS["lm_head.weight"], lm)
    assert report.unchanged == len(WEIGHTS) - 2
    assert not report.ok
    # A loose tolerance turns the strong change into close too.
    loose = eagle3_inspect.diff(tmp_path / "a", tmp_path / "b", rtol=10.0, atol=10.0)
    assert loose.ok and by_name(loose)["lm_head.weight"]["status"] == "close"
    assert by_name(loose)["lm_head.weight"]["rtol"] == 10.0


def test_threads_do_not_change_results(tmp_path):
    big = {"w": RNG.standard_normal(3_000_000).astype(np.float32)}
    other = {"w": big["w"] + RNG.standard_normal(3_000_000).astype(np.float32) * 1e-3}
    a, b = write(tmp_path / "a", big), write(tmp_path / "b", other)
    one = eagle3_inspect.diff(a, b, threads=1).to_dict()["changed"]
    two = eagle3_inspect.diff(a, b, threads=2).to_dict()["changed"]
    assert one == two
    assert_metrics(one[0], big["w"], other["w"])


def test_dtype_change_with_equal_values_is_close(tmp_path):
    values = RNG.standard_normal((16, 8)).astype(ml_dtypes.bfloat16)
    a = write(tmp_path / "a", {"w": values})
    b = write(tmp_path / "b", {"w": values.astype(np.float32)})
    report = eagle3_inspect.diff(a, b)
    (entry,) = report.to_dict()["changed"]
    assert entry["dtype"] == ["BF16", "F32"] and entry["shape"] is None
    assert entry["status"] == "close"
    assert (entry["max_abs"], entry["mismatched"]) == (0.0, 0)
    assert (entry["rtol"], entry["atol"]) == (1.6e-2, 1e-5)
    assert report.ok and not report.identical
    headers = eagle3_inspect.diff(a, b, structure_only=True)
    assert not headers.ok and headers.to_dict()["changed"][0]["status"] is None


def test_bf16_perturbation_against_numpy(tmp_path):
    base = RNG.standard_normal((40, 30)).astype(ml_dtypes.bfloat16)
    noisy = (base.astype(np.float32) * (1 + RNG.standard_normal(base.shape) * 0.02)).astype(
        ml_dtypes.bfloat16
    )
    report = eagle3_inspect.diff(
        write(tmp_path / "a", {"w": base}), write(tmp_path / "b", {"w": noisy})
    )
    (entry,) = report.to_dict()["changed"]
    assert 0 < entry["mismatched"] < base.size
    assert_metrics(entry, base, noisy)


def test_shape_changes(tmp_path):
    w = RNG.standard_normal((6, 4)).astype(np.float32)
    a = write(tmp_path / "a", {"reshaped": w, "grown": w})
    b = write(tmp_path / "b", {"reshaped": w.reshape(4, 6), "grown": np.zeros((7, 4), np.float32)})
    changed = by_name(eagle3_inspect.diff(a, b))
    assert changed["reshaped"]["shape"] == [[6, 4], [4, 6]]
    assert changed["reshaped"]["status"] == "differ"
    assert (changed["reshaped"]["max_abs"], changed["reshaped"]["mismatched"]) == (0.0, 0)
    assert changed["grown"]["status"] == "differ"
    assert changed["grown"]["max_abs"] is None and changed["grown"]["cosine"] is None


def test_nan_in_one_side(tmp_path):
    w = RNG.standard_normal(100).astype(np.float32)
    w_nan = w.copy()
    w_nan[[3, 50]] = np.nan
    both = w.copy()
    both[3] = np.nan
    a = write(tmp_path / "a", {"x": w, "y": both})
    b = write(tmp_path / "b", {"x": w_nan, "y": both})
    report = eagle3_inspect.diff(a, b)
    changed = by_name(report)
    assert set(changed) == {"x"}  # the same NaN in the same place is bitwise equal
    assert changed["x"]["mismatched"] == 2 and changed["x"]["nonfinite_mismatched"] == 2
    assert changed["x"]["max_abs"] == 0.0
    assert_metrics(changed["x"], w, w_nan)


def test_added_removed_metadata_and_config(tmp_path):
    config_a = {"hidden_size": 48, "eagle_config": {"ids": [1, 2, 3]}, "tie": True}
    config_b = {"hidden_size": 64, "eagle_config": {"ids": [1, 5]}, "tie": 1, "new": "x"}
    a = write(tmp_path / "a", WEIGHTS, config=config_a, metadata={"format": "pt"})
    extra = {**WEIGHTS, "embed_tokens.weight": np.zeros((4, 48), np.float32)}
    del extra["norm.weight"]
    b = write(tmp_path / "b", extra, config=config_b, metadata={"format": "np", "k": "v"})
    report = eagle3_inspect.diff(a, b)
    assert report.added == ["embed_tokens.weight"] and report.removed == ["norm.weight"]
    assert report.metadata == {
        "added": {"k": "v"},
        "removed": {},
        "changed": {"format": ["pt", "np"]},
    }
    config = report.config
    assert config["changed"] == {
        "eagle_config.ids[1]": [2, 5],
        "hidden_size": [48, 64],
        "tie": [True, 1],
    }
    assert config["removed"] == {"eagle_config.ids[2]": 3}
    assert config["added"] == {"new": "x"}
    assert not report.ok


def test_config_change_alone_fails_the_verdict(tmp_path):
    a = write(tmp_path / "a", WEIGHTS, config={"vocab_size": 10})
    b = write(tmp_path / "b", WEIGHTS, config={"vocab_size": 11})
    report = eagle3_inspect.diff(a, b)
    assert report.unchanged == len(WEIGHTS) and not report.ok


def test_filter_selects_both_dialects(tmp_path):
    renamed = {k.replace("midlayer.", "layers.0."): v for k, v in WEIGHTS.items()}
    report = eagle3_inspect.diff(
        write(tmp_path / "a", WEIGHTS), write(tmp_path / "b", renamed), filter="layers.0.*"
    )
    assert len(report.pairs) == 2 and report.added == report.removed == []


def test_bad_arguments(tmp_path):
    a = write(tmp_path / "a", WEIGHTS)
    with pytest.raises(ValueError):
        eagle3_inspect.diff(a, a, threads=0)
    with pytest.raises(ValueError):
        eagle3_inspect.diff(a, a, rtol=-1)
    with pytest.raises(FileNotFoundError):
        eagle3_inspect.diff(a, tmp_path / "missing")


def test_renamed_pair_with_changed_values_is_listed_under_both_names(tmp_path):
    renamed = {k.replace("midlayer.", "layers.0."): v for k, v in WEIGHTS.items()}
    q = "layers.0.self_attn.q_proj.weight"
    renamed[q] = renamed[q] + np.float32(0.25)
    report = eagle3_inspect.diff(write(tmp_path / "a", WEIGHTS), write(tmp_path / "b", renamed))
    (entry,) = report.to_dict()["changed"]
    assert entry["name"] == "midlayer.self_attn.q_proj.weight" and entry["renamed_to"] == q
    assert entry["status"] == "differ" and entry["max_abs"] == pytest.approx(0.25, rel=1e-6)


def test_structure_only_reads_no_tensor_data(tmp_path, monkeypatch):
    from eagle3_inspect import _native

    def refuse(*args, **kwargs):
        raise AssertionError("tensor data was read")

    monkeypatch.setattr(_native, "diff_pairs", refuse)
    monkeypatch.setattr(_native, "content_hashes", refuse)
    other = {**WEIGHTS, "fc.weight": WEIGHTS["fc.weight"].astype(np.float64)}
    report = eagle3_inspect.diff(
        write(tmp_path / "a", WEIGHTS), write(tmp_path / "b", other), structure_only=True
    )
    (entry,) = report.to_dict()["changed"]
    assert entry["dtype"] == ["F32", "F64"] and entry["status"] is None
    assert report.vocab is None and not report.ok


def test_progress_reports_both_sides(tmp_path):
    other = {**WEIGHTS, "proj.weight": WEIGHTS["fc.weight"]}
    del other["fc.weight"]
    other["lm_head.weight"] = WEIGHTS["lm_head.weight"] + np.float32(1)
    calls: list[tuple[int, int]] = []
    eagle3_inspect.diff(
        write(tmp_path / "a", WEIGHTS),
        write(tmp_path / "b", other),
        progress=lambda done, total: calls.append((done, total)),
    )
    pair_bytes = 2 * sum(v.nbytes for v in WEIGHTS.values())
    hash_bytes = WEIGHTS["fc.weight"].nbytes
    assert (hash_bytes, hash_bytes) in calls  # the hash pass, once per side
    assert calls[-1] == (pair_bytes, pair_bytes)  # the numeric pass over both sides


def test_hf_cache_snapshot_against_a_sharded_directory(tmp_path):
    repo = tmp_path / "models--org--drafter"
    blobs, snapshot = repo / "blobs", repo / "snapshots" / "abc123"
    write(blobs, WEIGHTS, config={"hidden_size": 48})
    snapshot.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123")
    for file in ("model.safetensors", "config.json"):
        (snapshot / file).symlink_to(blobs / file)
    sharded = write(tmp_path / "sharded", WEIGHTS, config={"hidden_size": 48}, shards=2)
    report = eagle3_inspect.diff(repo, sharded)
    assert report.identical and report.unchanged == len(WEIGHTS)
