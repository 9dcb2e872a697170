"""The export guard: require_servable returns the report for a servable drafter and raises
DrafterNotServable (picklable, listing errors and fixes) for one the engine would mis-load."""

from __future__ import annotations

import pickle

import pytest

import eagle3_inspect
from eagle3_inspect.errors import DrafterNotServable, InspectError
from eagle3_inspect.synthetic.demo import ENGINE, write_demo


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return write_demo(tmp_path_factory.mktemp("demo"))


def test_a_servable_drafter_returns_its_report(demo):
    report = eagle3_inspect.require_servable(demo.correct)
    # The default is a bare name: the newest known version, as on the command line.
    assert report.ok and report.engines == ["sglang@0.5.23"]
    assert not [f for f in report.findings if f.severity.value == "error"]


def test_the_broken_drafter_raises_with_errors_and_fixes(demo):
    with pytest.raises(DrafterNotServable) as caught:
        eagle3_inspect.require_servable(demo.broken, engine=ENGINE, target=demo.target)
    err = caught.value
    assert isinstance(err, InspectError)
    codes = {f.code for f in err.errors}
    assert {"EN001", "VM006", "E3009"} <= codes
    assert all(f.severity.value == "error" for f in err.errors)
    assert len(err.findings) >= len(err.errors)
    text = str(err)
    assert text.startswith(f"{err.path} is not servable with {ENGINE}: {len(err.errors)} ")
    for f in err.errors:
        assert f"- {f.code} " in text
    assert "fix: rename the tensor (layers.0. -> midlayer.)" in text


def test_it_pickles(demo):
    with pytest.raises(DrafterNotServable) as caught:
        eagle3_inspect.require_servable(demo.broken, engine=ENGINE)
    again = pickle.loads(pickle.dumps(caught.value))
    assert type(again) is DrafterNotServable
    assert str(again) == str(caught.value)
    assert again.findings == caught.value.findings and again.engine == ENGINE


def test_fail_on_warning_is_stricter(demo):
    report = eagle3_inspect.validate(demo.correct, engine="sglang@0.5.12")
    warnings = [f for f in report.findings if f.severity.value == "warning"]
    if warnings:
        with pytest.raises(DrafterNotServable):
            eagle3_inspect.require_servable(demo.correct, fail_on="warning")
    else:
        assert eagle3_inspect.require_servable(demo.correct, fail_on="warning").ok


def test_bad_arguments_are_not_servability_verdicts(demo, tmp_path):
    with pytest.raises(ValueError):  # InvalidArgumentError is a ValueError too
        eagle3_inspect.require_servable(demo.correct, engine="nosuchengine")
    with pytest.raises(FileNotFoundError):
        eagle3_inspect.require_servable(tmp_path / "missing")
