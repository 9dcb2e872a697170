"""How a value is used, told from the call or operator it flows into: which callees size a tensor
with their arguments, which cast, count, measure or iterate them, which load a file or model by
name. Names only: the layer classes are the engines' own (and torch's), whose first arguments
are sizes."""

from __future__ import annotations

# Constructors whose positional arguments (and these keywords) are sizes: torch.nn layers and
# tensor factories, and the engines' parallel layers.
LAYER_CTORS = {
    "Linear",
    "ColumnParallelLinear",
    "RowParallelLinear",
    "ReplicatedLinear",
    "QKVParallelLinear",
    "MergedColumnParallelLinear",
    "VocabParallelEmbedding",
    "ParallelLMHead",
    "Embedding",
    "RMSNorm",
    "GemmaRMSNorm",
    "LayerNorm",
    "Parameter",
    "Conv1d",
    "Conv2d",
    "empty",
    "zeros",
    "ones",
    "full",
    "arange",
    "randn",
    "rand",
}
SHAPE_KEYWORDS = {
    "input_size",
    "output_size",
    "hidden_size",
    "head_size",
    "total_num_heads",
    "total_num_kv_heads",
    "num_embeddings",
    "embedding_dim",
    "in_features",
    "out_features",
    "org_num_embeddings",
    "intermediate_size",
    "normalized_shape",
    "size",
}
FLAG_KEYWORDS = {"bias", "skip_bias_add", "gather_output", "input_is_parallel"}
# Callees that open a file or resolve a model by the value (None is no name at all).
LOADERS = {
    "from_pretrained",
    "load_model_layers",
    "get_config_dict",
    "get_verifier_config",
    "resolve_target_layer_ids",
    "snapshot_download",
    "hf_hub_download",
    "open",
    "Path",
}
BUILTIN_USE = {
    "int": "cast",
    "float": "cast",
    "bool": "flag",
    "len": "length",
    "range": "count",
    "list": "iterate",
    "tuple": "iterate",
    "set": "iterate",
    "frozenset": "iterate",
    "sorted": "iterate",
    "enumerate": "iterate",
    "zip": "iterate",
    "sum": "iterate",
    "min": "iterate",
    "max": "iterate",
    "any": "iterate",
    "all": "iterate",
    "dict": "iterate",
    "str": "format",
    "repr": "format",
    "print": "format",
    "isinstance": "presence",
    "id": "value",
    "type": "value",
}
# Methods of a config object or dict that return the same object or read a key from it.
SAME_OBJECT = {"get_text_config", "to_dict", "copy", "to_diff_dict"}
KEY_READERS = {"get", "pop", "setdefault"}
ITERATORS = {"items", "keys", "values"}
COPIES = {"deepcopy", "copy"}


def call_arg_use(callee: str, keyword: str | None) -> str:
    """The use of an argument passed to an unresolved callee `callee` (positional when
    `keyword` is None)."""
    if callee in BUILTIN_USE and keyword is None:
        return BUILTIN_USE[callee]
    if callee in LOADERS:
        return "load"
    if callee in LAYER_CTORS:
        if keyword is None or keyword in SHAPE_KEYWORDS:
            return "shape"
        if keyword in FLAG_KEYWORDS:
            return "flag"
        return "value"
    return "arg"
