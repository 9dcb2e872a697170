"""The checkpoints the local Hub publishes in the remote tests and in benchmarks/remote_bytes.py,
and the sparse target that declares hundreds of GB but holds only its headers."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from eagle3_inspect.synthetic.demo import DIMS, demo_target_config
from eagle3_inspect.synthetic.writer import header_bytes

GB = 1 << 30
# The sparse target: two shards of 24 BF16 expert blocks of 6 GiB each: 288 GiB declared.
HUGE_BLOCK = (3072, 1024, 1024)
HUGE_BLOCKS_PER_SHARD = 24


@dataclass(frozen=True)
class Published:
    """The local folders and their repos on the local Hub."""

    drafter: Path  # the demo's correct drafter: one file + config.json
    broken: Path  # the demo's broken drafter
    sharded: Path  # the correct drafter in three shards + index
    target: Path  # the demo's small target: two shards + index + config
    huge: Path  # the sparse target: headers only, hundreds of GB declared
    commits: dict[str, str]  # repo id -> its main commit


def write_huge_target(out: Path) -> Path:
    """A target whose shards declare ~288 GiB but hold only their headers (sparse files)."""
    out.mkdir(parents=True)
    config = demo_target_config()
    (out / "config.json").write_text(json.dumps(config, indent=2))
    block = 2 * HUGE_BLOCK[0] * HUGE_BLOCK[1] * HUGE_BLOCK[2]
    small = [
        ("model.embed_tokens.weight", (DIMS["Vt"], DIMS["H"])),
        ("lm_head.weight", (DIMS["Vt"], DIMS["H"])),
    ]
    weight_map = {}
    for shard in range(2):
        name = f"model-{shard + 1:05d}-of-00002.safetensors"
        entries = [(small[shard][0], "BF16", small[shard][1], 2 * DIMS["Vt"] * DIMS["H"])]
        for i in range(HUGE_BLOCKS_PER_SHARD):
            layer = shard * HUGE_BLOCKS_PER_SHARD + i
            entries.append((f"model.layers.{layer}.mlp.experts.w", "BF16", HUGE_BLOCK, block))
        header = header_bytes(entries)
        with (out / name).open("wb") as f:
            f.write(header)
            f.truncate(len(header) + sum(e[3] for e in entries))
        weight_map |= {e[0]: name for e in entries}
    index = {"metadata": {"total_size": 0}, "weight_map": weight_map}
    (out / "model.safetensors.index.json").write_text(json.dumps(index))
    return out
