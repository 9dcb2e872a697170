"""TG rules: cross-checks every drafter family gets against its target (`validate --target`):
the position range and the RoPE, read from any config layout (`reader/rope.py`). Codes in
`codes.toml`; `check_positions_and_rope` runs them."""

from __future__ import annotations

from eagle3_inspect.rules.tg.check import check_positions_and_rope

__all__ = ["check_positions_and_rope"]
