"""`paused_gc`: the cyclic garbage collector held off while a header's worth of records is built.

Building a million small objects (TensorInfo, TensorStats, findings, their JSON dicts) makes
CPython run its collector every 700 allocations, and every so often a full collection that walks
everything built so far: a third of the time of a million-tensor scan. The records built here
form no reference cycles, so there is nothing for the collector to find; it is re-enabled (if it
was enabled before) as soon as the block ends, and a nested pause leaves it to the outer one.

Paused where a header's worth is built: opening a checkpoint (its TensorInfo table and
findings), the stats mapping when first read, validate's rules (a finding per tensor), and the
CLI around a whole command (the records it prints are built after the API call returns).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Runs the block with `gc` disabled, restoring its previous state afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
