"""DF rules: DFlash and DFlash2 drafters (DF0xx drafter rules in `tensors.py`, DF1xx target
cross-checks in `target.py`; the family specs detection reads in `family.py`)."""
