"""The drafter family names and their titles: the one vocabulary shared by detection, the rule
folders, the engine profiles (`[families.<name>]`) and the corpus manifest (`family`)."""

from __future__ import annotations

EAGLE3 = "eagle3"
PEAGLE = "peagle"
DFLASH = "dflash"
DFLASH2 = "dflash2"
# Not drafter families: what detection says when a checkpoint is neither of the above.
TARGET = "target"
UNKNOWN = "unknown"

TITLES = {
    EAGLE3: "EAGLE-3",
    PEAGLE: "P-EAGLE",
    DFLASH: "DFlash",
    DFLASH2: "DFlash2",
    TARGET: "a target model",
    UNKNOWN: "not a drafter family this tool knows",
}
DRAFTER_FAMILIES = (EAGLE3, PEAGLE, DFLASH, DFLASH2)


def family_title(name: str) -> str:
    """`"DFlash"` for `"dflash"`, `"EAGLE-3 (mla)"` for a profile's `"eagle3:mla"`; the name
    itself when it is not a known family."""
    base, _, variant = name.partition(":")
    title = TITLES.get(base, base)
    return f"{title} ({variant})" if variant else title
