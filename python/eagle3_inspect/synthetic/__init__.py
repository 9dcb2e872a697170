"""Synthetic checkpoints for the demo, the tests and the benchmarks: EAGLE-3 drafters
(`drafters.py`) and their configs in every producer style (`drafter_configs.py`), target models
(`targets.py`), and the one safetensors writer (`writer.py`). Nothing here reads checkpoints."""
