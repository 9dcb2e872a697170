"""What a config field's value is used as, as the contract files name it (`use`): the uses that
raise on None or on a value of the wrong type, and those that tolerate None. The generator
(`tools/config_contract/model.py`) ranks a read's uses by this order and the check
(`contract/check.py`) tests a value's type only where its use raises; this file imports
nothing, so the generator loads it by path in the truth venv, where the package is not
installed."""

from __future__ import annotations

# Strongest first: the value is computed with, sizes a tensor / layer, counts a loop, is cast,
# ordered, measured, iterated, indexed, read as an object, or names a file / model to load.
RAISING: tuple[str, ...] = (
    "arithmetic",
    "shape",
    "count",
    "cast",
    "compare",
    "length",
    "iterate",
    "index",
    "object",
    "load",
    "required",
)
# Truthiness, identity / equality tests, membership, lookups, passing it on.
TOLERANT: tuple[str, ...] = (
    "flag",
    "presence",
    "equality",
    "lookup",
    "member",
    "value",
    "arg",
    "format",
)
