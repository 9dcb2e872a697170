"""Engine-truth cells that wait for the drafter-families rules (issue 19): the differential test
compares them like every other cell, prints each disagreement as a PendingFamilyCell warning
(named, counted) instead of failing, and fails once one of them agrees, so the list only
shrinks. Each entry: "drafter engine@version" -> the checks pending for it:

* "errors": `validate --engine` errors do not yet match the engine's verdict (harm.py);
* "fc_width": the profile's fc model (EN015 `fc_aux_count`) does not give the fc the engine
  built;
* "aux_ids": the profile's aux-id location does not give the ids the engine's reader returned.

A "<drafter> no-engine" cell is `validate` without `--engine` reporting errors on a drafter some
engine version loads as trained.

Generated from the committed truth and the rules as they stand (see tools/engine_truth/
README.md, "Pending cells"); edit by hand only to remove cells the rules now get right.
"""

from __future__ import annotations

PENDING: dict[str, frozenset[str]] = {}

# Corpus drafters `tests/commands/fix/test_corpus.py` (fix over every drafter x engine) waits on,
# with why. Same contract: a failure is printed as a PendingFamilyCell warning, a pass fails as
# stale. Empty since fix plans per family (commands/fix/dflash.py) and FP8 weights with their
# scales are one precision class (layout/quant.py).
PENDING_FIX_DRAFTERS: dict[str, str] = {}
