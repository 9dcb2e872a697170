"""The HTML reports in a real browser: headless Chromium (Debian's `chromium`; scripts/test-all.sh
installs it on a fresh CI machine) opens each file offline, and the test reads the DOM it built
and checks its screenshot is a rendered page, not a blank one."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageStat

import eagle3_inspect
from eagle3_inspect.html.findings import finding_rows
from eagle3_inspect.html.report import render_html
from eagle3_inspect.version import PRODUCER
from tests.html import reports
from tests.html.dom import Dom

# A loaded machine can take a while to start a browser; a hang still ends the test.
TIMEOUT = 240
BLUE = (9, 105, 218)  # the diff chart's first layer group (#0969da)
PURPLE = (130, 80, 223)  # the d2t plot's points (#8250df), a colour used nowhere else
YELLOW = (255, 248, 197)  # an all-zero tensor's row (#fff8c5)


def chromium() -> str:
    found = shutil.which("chromium")
    if found is None:
        pytest.fail(
            "chromium is not installed: apt-get install chromium (test-all.sh does, as root)"
        )
    return found


def run_browser(page: Path, *args: str) -> str:
    profile = page.parent / f"{page.stem}-profile"
    command = [
        chromium(),
        "--headless",
        "--no-sandbox",  # root in CI containers; the page is our own local file
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        f"--user-data-dir={profile}",
        *args,
        page.resolve().as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def open_in_browser(tmp: Path, name: str, html: str, height: int) -> tuple[Dom, Image.Image]:
    page = tmp / f"{name}.html"
    page.write_text(html, encoding="utf-8")
    dom = Dom(run_browser(page, "--dump-dom"))
    shot = tmp / f"{name}.png"
    run_browser(page, f"--screenshot={shot}", f"--window-size=1280,{height}")
    return dom, Image.open(shot).convert("RGB")


def assert_not_blank(image: Image.Image) -> None:
    grey = image.convert("L")
    assert ImageStat.Stat(grey).stddev[0] > 10, "the screenshot is (nearly) one colour"
    dark = sum(grey.histogram()[:128])
    assert dark > 0.002 * image.width * image.height, "almost no text or lines were drawn"


def count_near(image: Image.Image, colour: tuple[int, int, int], tolerance: int = 40) -> int:
    pixels = np.asarray(image, dtype=np.int16)
    return int((np.abs(pixels - np.array(colour)).max(axis=2) <= tolerance).sum())


def test_the_blank_check_catches_blank_and_text_free_pages():
    with pytest.raises(AssertionError):
        assert_not_blank(Image.new("RGB", (200, 200), "white"))
    with pytest.raises(AssertionError):
        assert_not_blank(Image.new("RGB", (200, 200), (120, 200, 120)))
    assert count_near(Image.new("RGB", (4, 4), PURPLE), PURPLE) == 16


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return reports.demo(tmp_path_factory.mktemp("browser-demo"))


def footer_text(dom: Dom) -> str:
    [footer] = dom.find("footer", "run")
    return "".join(footer.text)


def test_validate_report_in_chromium(files, tmp_path):
    report = reports.validate_report(files)
    command = f"eagle3-inspect validate {files.broken} --engine sglang@0.5.11"
    page = render_html(report, command=command)
    dom, shot = open_in_browser(tmp_path, "validate", page, 4200)
    assert dom.text("title") == "validate drafter-broken: FAIL"
    rows = finding_rows(report.findings)
    assert len(dom.find("tr", "finding")) == len(rows) == len(report.findings)
    # The twenty EN001 / EN002 findings of the layers.0.* keys are one rename: one row.
    renamed = ["".join(r.text) for r in dom.find("tr", "finding") if "EN001" in "".join(r.text)]
    assert len(renamed) == 1 and "EN001 x9, EN002 x10" in renamed[0]
    assert len(dom.find("div", "fix")) == sum(1 for r in rows if r.first.hint)
    # The next-step box, with the fix command line.
    [box] = dom.find("section", "next-step")
    assert f"eagle3-inspect fix {files.broken} --engine sglang@0.5.11" in "".join(box.text)
    assert dom.find("table", "captures")
    assert len(dom.find("svg")) == 1
    assert dom.find("table", "engines")
    footer = footer_text(dom)
    assert PRODUCER in footer and command in footer and " UTC" in footer
    assert_not_blank(shot)
    assert count_near(shot, PURPLE) > 50  # the d2t plot's points were painted


def test_diff_report_in_chromium(tmp_path):
    report = reports.layered_diff(tmp_path)
    dom, shot = open_in_browser(tmp_path, "diff", render_html(report), 2000)
    assert dom.text("title") == "diff step-a vs step-b: different"
    assert len(dom.find("svg")) == 1
    assert len(dom.find("table", "changed")[0].text) > 0
    assert dom.find("table", "vocab")
    assert "eagle3_inspect.diff(" in footer_text(dom)
    assert_not_blank(shot)
    assert count_near(shot, BLUE) > 500  # the layer-0 bars


def test_re_encoded_diff_in_chromium(files, tmp_path):
    report = eagle3_inspect.diff(files.correct, files.mislabelled)
    dom, shot = open_in_browser(tmp_path, "diff-same", render_html(report), 1400)
    [equal] = dom.find("details", "equal")
    assert f"{report.unchanged} tensor(s) bitwise equal" in "".join(equal.text)
    assert "same mapping, re-encoded" in "".join(dom.find("table", "changed")[0].text)
    assert_not_blank(shot)


def test_scan_stats_report_in_chromium(files, tmp_path):
    report = eagle3_inspect.scan(files.broken, stats=True)
    dom, shot = open_in_browser(tmp_path, "scan", render_html(report), 1400)
    assert dom.text("title") == "scan drafter-broken"
    assert len(dom.find("span", "bar")) >= len(report.tensors)
    assert "eagle3_inspect.scan(" in footer_text(dom) and "stats=True" in footer_text(dom)
    assert_not_blank(shot)


def test_scan_anomalies_in_chromium(tmp_path):
    report = eagle3_inspect.scan(reports.anomalous_checkpoint(tmp_path), stats=True, hashes=True)
    dom, shot = open_in_browser(tmp_path, "scan-anomalies", render_html(report), 900)
    assert len(dom.find("tr", "all-zero")) == 1 and len(dom.find("tr", "nonfinite")) == 1
    assert len(dom.find("div", "hash")) == len(report.tensors)
    assert count_near(shot, YELLOW, tolerance=6) > 500  # the all-zero row's background
    assert_not_blank(shot)


def test_hostile_names_stay_text_in_chromium(tmp_path):
    report = reports.hostile_diff(tmp_path)
    dom, shot = open_in_browser(tmp_path, "hostile", render_html(report), 1400)
    assert not dom.find("script")  # the tensor name's <script> never became an element
    assert reports.HOSTILE in "".join(dom.find("table", "changed")[0].text)
    assert_not_blank(shot)
