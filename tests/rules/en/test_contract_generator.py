"""tools/gen_config_contract.py on synthetic wheels: the reads, defaults, guards and uses it
records for the patterns the engines' draft classes and config adapters use (the hasattr-then-
multiply that crashed SGLang on speculators' `target_hidden_size: null` first)."""

from __future__ import annotations

import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

SGLANG_MODEL = """
from sglang.srt.models.llama import LlamaForCausalLM
import torch

class LlamaModel(nn.Module):
    def __init__(self, config):
        if hasattr(config, "target_hidden_size"):
            self.hidden_size_in = config.target_hidden_size
        else:
            self.hidden_size_in = config.hidden_size
        self.num_aux = getattr(config, "num_aux_hidden_states", None)
        if self.num_aux is None:
            ids = (getattr(config, "eagle_config", None) or {}).get("ids")
            self.num_aux = len(ids) if ids else 3
        self.fc = torch.nn.Linear(self.hidden_size_in * self.num_aux, config.hidden_size)
        self.flag = getattr(config, "norm_output", False)
        if self.flag:
            self.x = config.only_when_flag + 1
        if config.model_type == "llama4_text":
            self.y = config.intermediate_size_mlp * 2
        if self.is_input:
            self.z = config.rarely * 2
        try:
            self.w = config.optional_field * 2
        except AttributeError:
            self.w = 0

class LlamaForCausalLMEagle3(LlamaForCausalLM):
    def __init__(self, config, quant_config=None):
        self.model = LlamaModel(config)
        if config.draft_vocab_size is None:
            config.draft_vocab_size = config.vocab_size
        self.lm_head = ParallelLMHead(config.draft_vocab_size, config.hidden_size)

EntryClass = [LlamaForCausalLMEagle3]
"""

VLLM_ALGOS = """
SUPPORTED = {}

def register_speculator(name):
    def decorator(fn):
        return fn
    return decorator

@register_speculator("eagle3")
def update_eagle3(config_dict: dict, pre_trained_config: dict) -> None:
    pre_trained_config["draft_vocab_size"] = config_dict.get("draft_vocab_size")
    if config_dict.get("target_hidden_size") is not None:
        pre_trained_config["target_hidden_size"] = config_dict["target_hidden_size"]
    pre_trained_config["norm_before_residual"] = config_dict.get("norm_before_residual", True)
    pre_trained_config["architectures"] = ["Eagle3LlamaForCausalLM"]
    ids = config_dict["aux_ids"]
    pre_trained_config["targets"] = [i - 1 for i in ids]
"""


@pytest.fixture
def analyse():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from config_contract.sources import WheelSource
        from config_contract.write import summarise, summarise_write
        from gen_config_contract import analyse as run

        def go(path: Path) -> dict:
            out = {}
            for entry, reads, writes in run(WheelSource(path)):
                out[entry.name] = (
                    entry,
                    [summarise(r) | {"at": r.where} for r in reads],
                    [summarise_write(w) for w in writes],
                )
            return out

        yield go
    finally:
        sys.path.remove(str(ROOT / "tools"))
        for name in [m for m in sys.modules if m.startswith(("config_contract", "gen_config"))]:
            del sys.modules[name]


def _wheel(path: Path, files: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, textwrap.dedent(text))
    return path


def _reads(reads: list[dict], field: str) -> list[dict]:
    return [r for r in reads if r["field"] == field]


def test_sglang_draft_class_reads_uses_and_guards(tmp_path: Path, analyse) -> None:
    wheel = _wheel(
        tmp_path / "sglang-9.9.9-py3-none-any.whl",
        {"sglang/srt/models/llama_eagle3.py": SGLANG_MODEL},
    )
    entry, reads, writes = analyse(wheel)["LlamaForCausalLMEagle3"]
    assert entry.architectures == ["LlamaForCausalLMEagle3"]
    (hasattr_read,) = [r for r in _reads(reads, "target_hidden_size") if r["access"] == "attr"]
    # hasattr is no None test: the null goes on into the multiplication
    assert hasattr_read["guard"] == "hasattr" and hasattr_read["default_field"] == "hidden_size"
    assert hasattr_read["use"] == "arithmetic" and hasattr_read["raises_on_none"]
    assert hasattr_read["use_line"] == 15
    (num_aux,) = _reads(reads, "num_aux_hidden_states")
    assert num_aux["none_default"] == "len(ids) if ids else 3" and "raises_on_none" not in num_aux
    (ids,) = _reads(reads, "eagle_config.ids")
    assert ids["use"] == "length" and "raises_on_none" not in ids  # `if ids` guards len()
    (flagged,) = _reads(reads, "only_when_flag")
    assert flagged["when"] == ["set:norm_output"] and flagged["raises_on_none"]
    (mlp,) = _reads(reads, "intermediate_size_mlp")
    assert mlp["when"] == ["model_type == 'llama4_text'"]
    (rare,) = _reads(reads, "rarely")
    assert rare.get("conditional") is True
    (caught,) = _reads(reads, "optional_field")
    assert caught.get("caught") is True
    fills = [w for w in writes if w["field"] == "draft_vocab_size"]
    assert fills == [
        {
            "field": "draft_vocab_size",
            "copy": "vocab_size",
            "if_none": True,
            "line": 32,
            "at": "sglang/srt/models/llama_eagle3.py:LlamaForCausalLMEagle3.__init__",
        }
    ]
    head = [r for r in _reads(reads, "draft_vocab_size") if r["line"] == 33]
    assert head and head[0]["engine_set"] and head[0]["use"] == "shape"


def test_vllm_adapter_writes_with_their_conditions(tmp_path: Path, analyse) -> None:
    wheel = _wheel(
        tmp_path / "vllm-9.9.9-py3-none-any.whl",
        {
            "vllm/transformers_utils/configs/speculators/algos.py": VLLM_ALGOS,
            "vllm/model_executor/models/registry.py": "_SPECULATIVE_DECODING_MODELS = {}\n",
        },
    )
    entry, reads, writes = analyse(wheel)["update_eagle3"]
    assert entry.kind == "adapter" and entry.algorithm == "eagle3"
    by_field = {w["field"].removeprefix("transformer_layer_config."): w for w in writes}
    assert by_field["draft_vocab_size"]["copy"] == "draft_vocab_size"
    assert by_field["draft_vocab_size"]["default"] == "None"
    assert by_field["target_hidden_size"]["when"] == "not-none"
    assert by_field["norm_before_residual"]["default"] == "True"
    assert by_field["architectures"]["literal"] == "['Eagle3LlamaForCausalLM']"
    assert by_field["targets"]["computed"] is True
    (aux,) = _reads(reads, "aux_ids")
    assert aux["access"] == "subscript" and aux["use"] == "iterate" and aux["root"] == "raw"
