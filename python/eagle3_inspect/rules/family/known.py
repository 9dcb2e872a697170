"""Every drafter family this tool knows, in the order detection tries them (the most specific
first: a DFlash2 drafter also looks like DFlash, a P-EAGLE drafter like EAGLE-3). Adding a
family: a rule folder that declares a `FamilySpec`, one entry here, a `[families.<name>]`
section in the engine profiles that serve it, corpus drafters (docs/families.md)."""

from __future__ import annotations

from eagle3_inspect.rules.df.family import SPEC as DFLASH
from eagle3_inspect.rules.df.family import SPEC2 as DFLASH2
from eagle3_inspect.rules.e3.family import SPEC as EAGLE3
from eagle3_inspect.rules.family.spec import FamilySpec
from eagle3_inspect.rules.pe.family import SPEC as PEAGLE

SPECS: tuple[FamilySpec, ...] = (DFLASH2, DFLASH, PEAGLE, EAGLE3)
BY_NAME = {spec.name: spec for spec in SPECS}
