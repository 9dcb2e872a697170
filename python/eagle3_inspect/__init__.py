"""eagle3-inspect: find the silent format mismatches that give an EAGLE-3 drafter zero acceptance."""

from eagle3_inspect._native import VERSION as __version__

__all__ = ["__version__"]
