"""The config contract: every config field each engine version's draft model classes and config
adapters read, how and what for (generated from the engines' own code by
`tools/gen_config_contract.py` into `rules/en/profiles/contracts/`), and the check that holds
a drafter's config to it (EN018, EN019)."""

from __future__ import annotations

from eagle3_inspect.rules.en.contract.check import Problem, check_contract, contract_problems
from eagle3_inspect.rules.en.contract.data import (
    ContractEntry,
    EngineContract,
    FieldRead,
    FieldWrite,
    contract_version,
    load_contract,
    scanned,
)

__all__ = [
    "ContractEntry",
    "EngineContract",
    "FieldRead",
    "FieldWrite",
    "Problem",
    "check_contract",
    "contract_problems",
    "contract_version",
    "load_contract",
    "scanned",
]
