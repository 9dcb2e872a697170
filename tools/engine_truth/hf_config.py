"""The draft config object the engines build from config.json: transformers' own `AutoConfig`
when transformers is installed in this venv (what both engines call), so defaults and missing
attributes behave as in the engines."""

from __future__ import annotations

import copy


def build_config(config: dict):
    """A transformers config for `config`, or raises ValueError as AutoConfig does for an unknown
    model_type. Returns (config object, how it was built)."""
    from transformers import AutoConfig  # imported lazily: only the engine drivers need it

    data = copy.deepcopy(config)
    model_type = data.pop("model_type", None)
    if model_type is None:
        raise ValueError("config.json has no model_type: AutoConfig cannot pick a config class")
    return AutoConfig.for_model(model_type, **data)
