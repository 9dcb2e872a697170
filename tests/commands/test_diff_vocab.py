"""The vocab block of the diff: d2t encodings (offsets vs absolute ids, with and without t2d) and
mapping/token-set equality, on mappings built the way the producers build them."""

from __future__ import annotations

import json

import numpy as np

import eagle3_inspect
from eagle3_inspect.commands.diff.vocab import analyze_side
from tests.cli.test_fast_start import probed
from tests.diff_helpers import write

VT, VD = 1000, 64
RNG = np.random.default_rng(7)
SELECTED = np.sort(RNG.choice(VT, VD, replace=False))  # ascending target ids (EAGLE/SpecForge)
LM = {"lm_head.weight": np.zeros((VD, 4), np.float32)}


def t2d_of(selected: np.ndarray) -> np.ndarray:
    mask = np.zeros(VT, dtype=bool)
    mask[selected] = True
    return mask


def offsets(selected: np.ndarray) -> np.ndarray:
    return (selected - np.arange(selected.size)).astype(np.int64)


def test_offsets_against_absolute_with_t2d_is_the_same_mapping(tmp_path):
    a = write(tmp_path / "a", {**LM, "d2t": offsets(SELECTED), "t2d": t2d_of(SELECTED)})
    b = write(tmp_path / "b", {**LM, "d2t": SELECTED.astype(np.int64), "t2d": t2d_of(SELECTED)})
    vocab = eagle3_inspect.diff(a, b).vocab
    assert (vocab["a"]["encoding"], vocab["b"]["encoding"]) == ("offsets", "absolute")
    assert vocab["a"]["certain"] and vocab["b"]["certain"]
    assert vocab["same_mapping"] is True and vocab["same_token_set"] is True
    assert vocab["same_encoding"] is False
    assert "same draft-to-target mapping" in vocab["summary"]


def test_absolute_without_t2d_is_found_from_the_vocab_size(tmp_path):
    high = np.sort(np.concatenate([SELECTED[:-1], [VT - 1]]))  # a high special-token id
    a = write(tmp_path / "a", {**LM, "d2t": offsets(high)}, config={"vocab_size": VT})
    b = write(tmp_path / "b", {**LM, "model.d2t": high.astype(np.int64)}, config={"vocab_size": VT})
    vocab = eagle3_inspect.diff(a, b).vocab
    assert vocab["b"]["d2t"] == "model.d2t"
    assert vocab["b"]["encoding"] == "absolute"
    assert vocab["same_mapping"] is True


def test_frequency_order_is_the_same_tokens_but_another_mapping(tmp_path):
    shuffled = RNG.permutation(SELECTED)  # Model-Optimizer: frequency order, offsets, no t2d
    a = write(tmp_path / "a", {**LM, "d2t": offsets(SELECTED), "t2d": t2d_of(SELECTED)})
    b = write(tmp_path / "b", {**LM, "d2t": offsets(shuffled)}, config={"vocab_size": VT})
    vocab = eagle3_inspect.diff(a, b).vocab
    assert vocab["b"]["encoding"] == "offsets"
    assert vocab["same_mapping"] is False and vocab["same_token_set"] is True
    assert "different draft order" in vocab["summary"]


def test_different_tokens_and_a_missing_mapping(tmp_path):
    other = np.sort(RNG.choice(VT, VD, replace=False))
    a = write(tmp_path / "a", {**LM, "d2t": offsets(SELECTED), "t2d": t2d_of(SELECTED)})
    b = write(tmp_path / "b", {**LM, "d2t": offsets(other), "t2d": t2d_of(other)})
    c = write(tmp_path / "c", LM)
    vocab = eagle3_inspect.diff(a, b).vocab
    assert vocab["same_mapping"] is False and vocab["same_token_set"] is False
    missing = eagle3_inspect.diff(a, c).vocab
    assert missing["b"]["d2t"] is None and missing["same_mapping"] is None
    assert missing["summary"] == "only A has a d2t mapping"


def test_all_zero_d2t_is_offsets(tmp_path):
    side = analyze_side(eagle3_inspect.open(write(tmp_path / "z", {"d2t": np.zeros(8, np.int64)})))
    assert side.encoding == "offsets" and side.targets.tolist() == list(range(8))


def test_a_cli_diff_compares_mappings_without_importing_numpy(tmp_path):
    # The comparison runs natively; numpy would cost a fresh CLI process about 50 ms.
    shuffled = RNG.permutation(SELECTED)
    a = write(tmp_path / "a", {**LM, "d2t": offsets(SELECTED), "t2d": t2d_of(SELECTED)})
    b = write(tmp_path / "b", {**LM, "d2t": offsets(shuffled)}, config={"vocab_size": VT})
    code, loaded, out = probed("diff", str(a), str(b), "--format", "json")
    vocab = json.loads(out)["vocab"]
    assert vocab["same_mapping"] is False and vocab["same_token_set"] is True
    assert code == 1 and "numpy" not in loaded, loaded
