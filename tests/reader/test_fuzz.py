"""The fuzzer in the normal test run (headers, indexes, and the documents of issue 22:
config.json, --resume files, Hub model-info answers served by the local fixture Hub): the
committed corpus replays with no disagreement, then a bounded campaign (E3_FUZZ_CASES cases of
E3_FUZZ_SEED, default 6,000 of seed 0: the same cases wherever it runs) mutates cases against the
reference. Fresh seeds and longer runs: scripts/fuzz.py.
"""

from __future__ import annotations

import os
from collections import Counter

from tests.fuzz import campaign, documents, oracle


def test_committed_corpus_replays_with_no_disagreement() -> None:
    files = list(campaign.CORPUS.iterdir())
    assert len(files) >= 20
    assert campaign.replay() == []


def test_corpus_holds_the_issue_cases_with_the_right_verdicts(tmp_path) -> None:
    expected = {
        "seed-meta-lone-surrogate": (False, ("ST022",)),
        "seed-meta-nesting-200": (False, ("ST022",)),
        "seed-meta-1e999": (False, ("ST022",)),
        "seed-entry-nesting-125-loads": (True, ()),
        "seed-entry-nesting-126-refused": (False, ("ST022",)),
        "seed-repeated-dtype": (False, ("ST023",)),
        "seed-repeated-unknown-field-loads": (True, ()),
        "seed-name-lone-surrogate": (False, ("ST022",)),
        "seed-duplicate-name": (True, ("ST007", "ST016")),  # the dropped copy overlaps
    }
    for name, (accepts, codes) in expected.items():
        blob = (campaign.CORPUS / f"{name}.safetensors").read_bytes()
        assert campaign.judge("file", blob, tmp_path) == (oracle.OK, accepts, codes), name


def test_corpus_holds_the_document_cases_of_issue_22(tmp_path) -> None:
    """Each seed's verdict: accepted or not, and the outcome that says so (IX009 for a config,
    the refusal of a --resume file, a one-line error for a model-info answer); the other codes
    of a config are validate's, whatever the rules of the day say."""
    expected = {
        "config-seed-nesting-200.json": (False, "IX009"),
        "config-seed-nesting-127-loads.json": (True, None),
        "config-seed-not-an-object.json": (False, "IX009"),
        "config-seed-vocab-1e308.json": (True, None),  # a TypeError in validate on main
        "resume-seed-torn-multibyte.jsonl": (True, None),
        "resume-seed-path-list.jsonl": (False, "refused"),
        "resume-seed-binary.jsonl": (False, "refused"),
        "modelinfo-seed-sha-number.json": (False, "remote-error"),
        "modelinfo-seed-size-nan.json": (False, "remote-error"),
        "modelinfo-seed-size-string.json": (False, "remote-error"),
        "modelinfo-seed-nesting-200.json": (False, "remote-error"),
    }
    try:
        for name, (accepts, outcome) in expected.items():
            blob = (campaign.CORPUS / name).read_bytes()
            category, accepted, codes = campaign.judge(campaign.kind_of(name), blob, tmp_path)
            assert (category, accepted) == (oracle.OK, accepts), name
            assert (outcome in codes) if outcome else ("IX009" not in codes), (name, codes)
    finally:
        documents.cleanup()


def test_bounded_campaign_finds_no_disagreement() -> None:
    """A fixed set of cases (E3_FUZZ_CASES of E3_FUZZ_SEED, default 6,000 of seed 0), so the run
    judges the same cases on any machine; fresh seeds are for scripts/fuzz.py."""
    cases = int(os.environ.get("E3_FUZZ_CASES", "6000"))
    seed = int(os.environ.get("E3_FUZZ_SEED", "0"))
    report = campaign.run(seed=seed, case_timeout=60.0, cases=cases)
    assert report.execs == cases
    assert report.disagreements == 0, (
        f"seed {seed}: {report.failures[:10]} (reproduce: "
        f"python scripts/fuzz.py --cases {cases} --seed {seed} --save)"
    )


def test_watchdog_counts_a_crash_and_a_hang_and_carries_on(monkeypatch) -> None:
    monkeypatch.setenv("E3_FUZZ_INJECT", "crash:3,hang:8")
    report = campaign.run(seed=5, case_timeout=10.0, cases=20)
    categories = Counter(category for (_kind, category) in report.outcomes.elements())
    assert categories[campaign.CRASH] == 1
    assert categories[campaign.HANG] == 1
    assert report.execs == 20  # the worker was restarted after each and went on to the end
