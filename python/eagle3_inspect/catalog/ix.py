"""IX rules: how the files of a checkpoint fit together (index, stray files, config)."""

from __future__ import annotations

from eagle3_inspect.catalog import RuleDoc
from eagle3_inspect.findings import Severity

E, W = Severity.ERROR, Severity.WARNING

RULES: tuple[RuleDoc, ...] = (
    RuleDoc(
        "IX001",
        E,
        "A shard named by the index is missing or cannot be opened",
        "model.safetensors.index.json names a file that is not there (or is a dangling HF "
        "cache symlink): every tensor mapped to it is missing.",
        '"model-00002-of-00002.safetensors" does not exist',
        "Re-download the missing shard.",
    ),
    RuleDoc(
        "IX002",
        E,
        "Tensor in weight_map absent from its shard",
        "Index-based loaders open the named shard and fail (or silently skip the tensor).",
        'weight_map puts "fc.weight" in shard 1, which lacks it',
        "Regenerate the index from the shards' headers.",
    ),
    RuleDoc(
        "IX003",
        E,
        "Tensor in a shard but not in weight_map",
        "Loaders that follow the index never load it: the parameter stays uninitialised.",
        '"lm_head.weight" in shard 2, not in the index',
        "Regenerate the index.",
    ),
    RuleDoc(
        "IX004",
        E,
        "Tensor stored in two shards",
        "Which copy a loader uses depends on the loader; the copies may differ.",
        '"norm.weight" in shards 1 and 2',
        "Remove the stale copy and regenerate the index.",
    ),
    RuleDoc(
        "IX005",
        W,
        ".safetensors file the index never names",
        "A stray or duplicate shard (mlx-vlm PR #1464: a 4-bit model.safetensors beside bf16 "
        "shards). Some loaders glob *.safetensors and load it too.",
        "model.safetensors beside model-0000x-of-0000y",
        "Delete or move the stray file.",
    ),
    RuleDoc(
        "IX006",
        W,
        "metadata.total_size matches neither convention",
        "total_size has no settled meaning: huggingface_hub sums tensor bytes, others sum file "
        "sizes. Matching neither suggests the index belongs to other shards.",
        "total_size 12345; tensors 8, files 96",
        "Regenerate the index.",
    ),
    RuleDoc(
        "IX007",
        E,
        "Sharding index unreadable",
        "The index is not valid JSON, has no weight_map object, or maps a name to a non-string. "
        "The directory's .safetensors files are inspected without it.",
        "no weight_map",
        "Regenerate the index.",
    ),
    RuleDoc(
        "IX008",
        W,
        "Several .safetensors files and no index",
        "Loaders disagree about such directories: some load every file, some only one.",
        "3 files, no model.safetensors.index.json",
        "Add an index or keep one file.",
    ),
    RuleDoc(
        "IX009",
        E,
        "config.json unreadable or not a JSON object",
        "Engines read the architecture, vocab sizes and aux layer ids from config.json; a "
        "broken one stops the server or, worse, leaves defaults in place.",
        "config.json: Expecting ',' delimiter",
        "Fix or regenerate config.json.",
    ),
    RuleDoc(
        "IX010",
        E,
        "A path read from a file leads outside the checkpoint",
        "An index weight_map entry (absolute, or with '..'), a Hugging Face cache refs/main, or "
        "a snapshot link (into anything but the repo folder's blobs/) points outside the "
        "checkpoint. Such a file is never opened and none of its bytes are shown. In a plain "
        "directory, links the user placed there are followed; in the HF cache they must stay "
        "inside the models--org--name folder.",
        'weight_map names the shard "../../etc/x.safetensors"',
        "Regenerate the index (or the cache entry) so it names only files inside the checkpoint.",
    ),
    RuleDoc(
        "IX011",
        E,
        "A shard shrank while its data was being read",
        "Another process truncated or rewrote the file during the data pass (storage nodes "
        "rotate checkpoints in place). Bytes past the new end read as zeros instead of killing "
        "the process with SIGBUS; the affected tensors' statistics, hashes or diffs are "
        "discarded and this finding names the file, tensor and byte offset.",
        "the file shrank while it was being read: from byte offset 4096 this tensor's data is gone",
        "Re-run once nothing is writing the checkpoint.",
    ),
)
