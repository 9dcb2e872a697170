"""`--ray` / `ray=` on a three-node local cluster: the same JSON as a local run over a folder
holding every shard (plus a "cluster" section), shards read once, where they are, and the fault
cases (a shard on no node, a node killed between the header and the data pass)."""

from __future__ import annotations

import _thread
import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from eagle3_inspect.cli.json_stream import json_text
from eagle3_inspect.cluster import checkpoint as cluster_checkpoint
from eagle3_inspect.cluster import discover as discover_module
from eagle3_inspect.cluster.session import Job
from eagle3_inspect.commands.audit import audit
from eagle3_inspect.commands.diff import diff
from eagle3_inspect.commands.scan import scan
from eagle3_inspect.commands.validate import validate
from eagle3_inspect.errors import InvalidArgumentError
from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.opening import connect, open_checkpoint
from eagle3_inspect.synthetic.demo import DIMS
from eagle3_inspect.synthetic.drafters import (
    build_drafter,
    mutate_d2t_absolute,
    mutate_fc_single_aux,
    mutate_layer_keys,
)
from eagle3_inspect.synthetic.targets import target_config, write_target
from tests.cluster.conftest import SimCluster, shards_by_size

INDEX, CONFIG = "model.safetensors.index.json", "config.json"
WHOLE_CAP = discover_module.WHOLE_CAP


@pytest.fixture(autouse=True)
def data_on_the_nodes(monkeypatch):
    """These shards are small enough to travel whole with the listing (their data pass then runs
    on the driver); the tests send headers only, so data passes run as tasks on the nodes, unless
    a test sets the cap back (`whole`)."""
    monkeypatch.setattr(discover_module, "WHOLE_CAP", 0)


def _holdings(folder: Path) -> dict[str, list[str]]:
    """n0: index and config; n1: the largest and smallest shard; n2: the middle and smallest
    one. The smallest goes to n2 (less loaded), so it is read there only."""
    large, middle, small = shards_by_size(folder)
    return {"n0": [INDEX, CONFIG], "n1": [large, small], "n2": [middle, small]}


@pytest.fixture(scope="module")
def data(sim_cluster: SimCluster, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("all")
    correct = build_drafter(dialect="midlayer", config_style="sglang", **DIMS)
    broken = mutate_fc_single_aux(mutate_d2t_absolute(mutate_layer_keys(correct, to="layers")))
    paths = {"broken": broken.write(root / "broken", shards=3)}
    paths["correct"] = correct.write(root / "correct", shards=3)
    for name in ("broken", "correct"):
        sim_cluster.spread(paths[name], _holdings(paths[name]))
    # "gap": the broken drafter with its middle shard on no node (and, locally, deleted).
    paths["gap"] = root / "gap"
    shutil.copytree(paths["broken"], paths["gap"])
    holdings = _holdings(paths["gap"])
    middle = holdings["n2"][0]
    holdings["n2"].remove(middle)
    (paths["gap"] / middle).unlink()
    sim_cluster.spread(paths["gap"], holdings)
    # "damaged": the correct drafter with its smallest shard's header length garbage and its
    # middle shard cut short.
    paths["damaged"] = root / "damaged"
    shutil.copytree(paths["correct"], paths["damaged"])
    _, middle, small = (paths["damaged"] / n for n in shards_by_size(paths["damaged"]))
    small.write_bytes(b"\xff" * 8 + small.read_bytes()[8:])
    middle.write_bytes(middle.read_bytes()[:-100])
    sim_cluster.spread(paths["damaged"], _holdings(paths["damaged"]))
    config = target_config(
        hidden_size=DIMS["H"], vocab_size=DIMS["Vt"], num_hidden_layers=DIMS["target_layers"]
    )
    paths["target"] = write_target(root / "target", config)
    large, small = shards_by_size(paths["target"])
    target_holdings = {"n0": [INDEX, CONFIG], "n1": [large], "n2": [small]}
    sim_cluster.spread(paths["target"], target_holdings)
    # "far-target": the same target on the nodes only (this machine has none of it).
    paths["far-target"] = root / "far-target"
    shutil.copytree(paths["target"], paths["far-target"])
    sim_cluster.spread(paths["far-target"], target_holdings)
    shutil.rmtree(paths["far-target"])
    return paths


def _same(local: dict, remote: dict) -> dict:
    """The cluster section, after checking that it is the only difference."""
    cluster = remote.pop("cluster")
    assert json_text(remote) == json_text(local)
    return cluster


def _files_read(cluster: dict) -> dict[str, list[str]]:
    return {n["node"]: n["files"] for n in cluster["nodes"]}


def test_scan_headers_are_identical_and_each_shard_is_read_once(sim_cluster, data):
    local = scan(data["broken"]).to_dict()
    remote = scan(data["broken"], ray=sim_cluster.address, ray_path_map=sim_cluster.path_map)
    cluster = _same(local, remote.to_dict())
    large, middle, small = shards_by_size(data["broken"])
    assert _files_read(cluster) == {"n0": [], "n1": [large], "n2": sorted([middle, small])}
    assert cluster["nodes"][0]["address"] and all(n["alive"] for n in cluster["nodes"])


@pytest.mark.parametrize("whole", [False, True])
def test_stats_and_hashes_are_bit_identical_in_pieces_and_at_any_thread_count(
    sim_cluster, data, monkeypatch, whole
):
    one = scan(data["broken"], stats=True, hashes=True, threads=1).to_dict()
    two = scan(data["broken"], stats=True, hashes=True, threads=2).to_dict()
    assert json_text(one) == json_text(two)
    # Small tasks: every shard's tensors are split over several tasks and merged back; or (whole)
    # every shard came whole with the listing and is passed over on the driver.
    monkeypatch.setattr(cluster_checkpoint, "TASK_BYTES", 64 << 10)
    if whole:
        monkeypatch.setattr(discover_module, "WHOLE_CAP", WHOLE_CAP)
    seen: list[tuple[int, int]] = []
    remote = scan(
        data["broken"],
        stats=True,
        hashes=True,
        ray=sim_cluster.address,
        ray_path_map=sim_cluster.path_map,
        progress=lambda done, total: seen.append((done, total)),
    ).to_dict()
    cluster = _same(one, remote)
    tasks = sum(n["tasks"] for n in cluster["nodes"])
    assert tasks == 0 if whole else tasks > 3  # pieces (headers come with the listing)
    read = {n["node"]: n["bytes_read"] for n in cluster["nodes"]}
    assert read["n0"] == 0 and read["n1"] > 0 and read["n2"] > 0
    assert all(t["stats"]["hash"] for t in remote["tensors"])
    # Progress counts the bytes finished on all nodes together, up to every tensor's bytes.
    total = sum(t["nbytes"] for t in remote["tensors"])
    assert seen[-1] == (total, total) and all(t == total for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


@pytest.mark.parametrize("target", ["target", "far-target"])
def test_validate_with_target_and_engine_is_identical(sim_cluster, data, target):
    """The target is read where the nodes see it: also one this machine does not have."""
    options = {"engine": "sglang@0.5.11", "target": str(data["target"])}
    local = validate(data["broken"], **options)
    remote = validate(
        data["broken"],
        **{**options, "target": str(data[target])},
        ray=sim_cluster.address,
        ray_path_map=sim_cluster.path_map,
    )
    assert not local.ok and remote.ok == local.ok
    assert {f.code for f in local.findings} >= {"VM006", "E3009"}
    assert remote.target is not None and remote.target.embed_shape == local.target.embed_shape
    expected = local.to_dict()
    expected["target"] = str(data[target])
    _same(expected, remote.to_dict())


def test_a_target_on_no_node_or_as_a_loose_json_is_one_error(sim_cluster, data, tmp_path):
    options = {"ray": sim_cluster.address, "ray_path_map": sim_cluster.path_map}
    with pytest.raises(FileNotFoundError, match="target not found on any node"):
        validate(data["broken"], target=str(tmp_path / "nowhere"), **options)
    with pytest.raises(InvalidArgumentError, match="give its directory"):
        validate(data["broken"], target=str(tmp_path / "target-config.json"), **options)


@pytest.mark.parametrize("whole", [False, True])
def test_diff_is_identical(sim_cluster, data, monkeypatch, whole):
    if whole:
        monkeypatch.setattr(discover_module, "WHOLE_CAP", WHOLE_CAP)
    local = diff(data["correct"], data["broken"]).to_dict()
    remote = diff(
        data["correct"],
        data["broken"],
        ray=sim_cluster.address,
        ray_path_map=sim_cluster.path_map,
    ).to_dict()
    cluster = _same(local, remote)
    assert set(cluster) == {"a", "b"}
    # Hashes and pair comparisons ran on the nodes holding side A's shards (pairs: also when
    # the shards came whole, comparisons run where side A is).
    assert sum(n["tasks"] for n in cluster["a"]["nodes"] if n["node"] != "n0") >= 2 + 2 * (
        not whole
    )
    assert local["renamed"] and local["changed"]  # the comparison had something to find


def test_a_shard_on_no_node_is_the_missing_shard_finding(sim_cluster, data):
    local = scan(data["gap"], stats=True).to_dict()
    remote = scan(
        data["gap"], stats=True, ray=sim_cluster.address, ray_path_map=sim_cluster.path_map
    ).to_dict()
    _same(local, remote)
    assert "IX001" in {f["code"] for f in local["findings"]}


def test_hub_and_http_paths_are_refused_with_ray(sim_cluster):
    with pytest.raises(InvalidArgumentError, match="without --ray"):
        scan("hf://org/drafter", ray=sim_cluster.address)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "eagle3_inspect", *args], capture_output=True, text=True
    )


def test_the_cli_prints_the_local_json_plus_the_cluster_and_exits_alike(sim_cluster, data):
    ray_args = ["--ray", sim_cluster.address]
    for entry in sim_cluster.path_map:
        ray_args += ["--ray-path-map", entry]
    local = _cli("validate", "--json", str(data["broken"]))
    remote = _cli("validate", "--json", *ray_args, str(data["broken"]))
    assert remote.returncode == local.returncode == 1, remote.stderr
    _same(json.loads(local.stdout), json.loads(remote.stdout))


@pytest.mark.parametrize("command", ["scan", "diff"])
def test_the_human_formats_end_with_what_each_node_read(sim_cluster, data, command):
    """The `--json` twin: the concise report is the local one plus a line per cluster section."""
    from click.testing import CliRunner

    from eagle3_inspect.cli.main import main

    ray_args = ["--ray", sim_cluster.address]
    for entry in sim_cluster.path_map:
        ray_args += ["--ray-path-map", entry]
    paths = (
        [str(data["broken"])]
        if command == "scan"
        else [str(data[k]) for k in ("correct", "broken")]
    )
    args = [command, "--format", "concise", *(["--stats"] if command == "scan" else []), *paths]
    local = CliRunner().invoke(main, args)
    remote = CliRunner().invoke(main, [*args, *ray_args])
    assert remote.exit_code == local.exit_code == (command == "diff"), remote.output
    extra = remote.output.splitlines()[len(local.output.splitlines()) :]
    assert remote.output.startswith(local.output)
    prefixes = ("a: ", "b: ") if command == "diff" else ("",)
    assert [line.split("cluster (")[0] for line in extra] == list(prefixes)
    last = extra[-1]
    assert f"cluster ({sim_cluster.address}): " in last and "n0 read nothing" in last
    assert (
        "n1 read" in last
        and " of 1 file in " in last
        and "n2 read" in last
        and " of 2 files in " in last
    )
    # The HTML report carries the same lines; a local one has no such section.
    page = CliRunner().invoke(main, [*args, "--format", "html", *ray_args]).output
    assert "Where the bytes were read" in page and "n0 read nothing" in page
    local_page = CliRunner().invoke(main, [*args, "--format", "html"]).output
    assert "<html" in local_page and "Where the bytes were read" not in local_page


def test_many_checkpoints_as_json_lines_and_resume(sim_cluster, data, tmp_path):
    ray_args = ["--ray", sim_cluster.address]
    for entry in sim_cluster.path_map:
        ray_args += ["--ray-path-map", entry]
    out = tmp_path / "audit.jsonl"
    first = _cli("scan", *ray_args, str(data["correct"]), str(data["broken"]), "--resume", str(out))
    assert first.returncode == 0, first.stderr
    again = _cli(
        "scan",
        *ray_args,
        "--stats",
        str(data["correct"]),
        str(data["broken"]),
        str(data["gap"]),
        "--resume",
        str(out),
    )
    assert again.returncode == 1  # gap has an error
    records = [json.loads(line) for line in out.read_text().splitlines()]
    reports = [r for r in records if r["schema"] == "eagle3-inspect/scan/1"]
    assert sorted(r["path"] for r in reports) == sorted(
        str(data[k]) for k in ("correct", "broken", "gap")
    )
    summaries = [r for r in records if r["schema"] == "eagle3-inspect/audit-summary/1"]
    assert [(s["scanned"], s["skipped"]) for s in summaries] == [(2, 0), (1, 2)]
    gap = next(r for r in reports if r["path"] == str(data["gap"]))
    cluster = gap.pop("cluster")
    assert json_text(gap) == json_text(scan(data["gap"], stats=True).to_dict())
    assert {n["node"] for n in cluster["nodes"]} == {"n0", "n1", "n2"}


def test_an_audit_gets_small_files_statistics_computed_at_discovery(sim_cluster, data, monkeypatch):
    """An audit asks the nodes for the statistics of small files with their listing: no file
    travels, no data task runs, and every report is the local one."""
    monkeypatch.setattr(discover_module, "WHOLE_CAP", WHOLE_CAP)
    session = connect(sim_cluster.address, sim_cluster.path_map)
    records: list[dict] = []
    paths = [str(data[k]) for k in ("correct", "broken", "gap", "damaged")]
    audit(paths, records.append, ray=session, stats=True, hashes=True)
    reports = {r["path"]: r for r in records if r["schema"] == "eagle3-inspect/scan/1"}
    assert sorted(reports) == sorted(paths)
    for path, report in reports.items():
        cluster = _same(scan(path, stats=True, hashes=True).to_dict(), report)
        assert sum(n["tasks"] for n in cluster["nodes"]) == 0
        read = {n["node"]: n["bytes_read"] for n in cluster["nodes"]}
        assert read["n1"] > 0 and read["n2"] > 0  # the holders read the data, not the driver


@pytest.mark.parametrize("asked", ["other-pass", "one-missing"])
def test_statistics_computed_at_discovery_fall_back_to_tasks(sim_cluster, data, monkeypatch, asked):
    """Computed for another pass (without hashes), or missing a tensor (its file changed under
    the discovery's pass): those tensors are read by a task on the holder, with the same result."""
    monkeypatch.setattr(discover_module, "WHOLE_CAP", WHOLE_CAP)
    session = connect(sim_cluster.address, sim_cluster.path_map)
    path = str(data["broken"])
    session.prefetch([path], {"hashes": asked == "one-missing"})
    ckpt = open_checkpoint(path, ray=session)
    computed = [f for f in ckpt.placement.files if f.computed is not None]
    assert len(computed) == 3
    assert all(len(f.head) < f.size for f in computed)  # headers travelled, not the files
    if asked == "one-missing":
        name = next(iter(computed[0].computed["results"]))
        del computed[0].computed["results"][name]
    found = ckpt.stats(hashes=True)
    assert found == Checkpoint(path).stats(hashes=True)
    tasks = sum(n["tasks"] for n in ckpt.cluster_summary()["nodes"])
    assert tasks == (1 if asked == "one-missing" else 3)  # a task per shard (holders differ)


def _sleep(seconds: float) -> dict:
    time.sleep(seconds)
    return {"bytes": 0, "seconds": seconds}


@pytest.mark.usefixtures("sigint_handler")
def test_ctrl_c_cancels_the_outstanding_tasks(sim_cluster):
    import ray

    session = connect(sim_cluster.address)
    sleeper = ray.remote(num_cpus=0, max_retries=0)(_sleep)
    refs = []

    def submit(node, path):
        refs.append(session.pinned(sleeper, node).remote(60))
        return refs[-1]

    node = session.nodes[0]
    job = Job(0, "f", [node], {node.node_id: "f"}, submit, 1)
    threading.Timer(1.0, _thread.interrupt_main).start()
    started = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        session.run([job], session.new_usage())
    assert time.perf_counter() - started < 30
    with pytest.raises(ray.exceptions.TaskCancelledError):
        ray.get(refs[0], timeout=30)


def test_a_link_leaving_the_directory_is_ix010_on_the_nodes_as_locally(sim_cluster, data, tmp_path):
    """Issue 22's containment rule holds on the nodes too: discovery never reads a file whose
    link leads outside the directory, and the driver reports it as a local run does. It runs
    before the two tests that remove n2 and n1: it needs n1 alive."""
    outside = tmp_path / "outside.safetensors"
    outside.write_bytes((data["correct"] / shards_by_size(data["correct"])[0]).read_bytes())
    folder = tmp_path / "linked"
    folder.mkdir()
    small = shards_by_size(data["correct"])[-1]
    shutil.copy(data["correct"] / small, folder / small)
    (folder / "model-escape.safetensors").symlink_to(outside)
    sim_cluster.spread(folder, {"n1": [small]})
    for label in ("n1", "n2"):
        view = Path(str(sim_cluster.roots[label]) + str(folder))
        view.mkdir(parents=True, exist_ok=True)
        (view / "model-escape.safetensors").symlink_to(outside)
    local = scan(folder).to_dict()
    assert [f["code"] for f in local["findings"]].count("IX010") == 1
    remote = scan(folder, ray=sim_cluster.address, ray_path_map=sim_cluster.path_map)
    cluster = _same(local, remote.to_dict())
    assert _files_read(cluster) == {"n0": [], "n1": [small], "n2": []}


def test_a_node_killed_during_the_data_pass_means_retry_elsewhere_or_a_finding(
    sim_cluster, data, monkeypatch
):
    """Removes n2 (the next test removes n1): n2 reads the middle shard (only it has it) and the
    small one (n1 has a copy), one tensor per task. The first progress report (a task has
    finished, the others are queued) kills n2: the small shard's pieces are then read on n1, the
    middle shard's unfinished ones become an IX001 naming n2. Whatever finished before the kill
    keeps its (identical) statistics; nothing is wrong, nothing hangs."""
    monkeypatch.setattr(cluster_checkpoint, "TASK_BYTES", 1)
    ckpt = open_checkpoint(
        data["broken"], ray=sim_cluster.address, ray_path_map=sim_cluster.path_map
    )
    killed = []

    def kill_n2(done: int, total: int) -> None:
        if not killed:
            killed.append(done)
            sim_cluster.cluster.remove_node(sim_cluster.handles["n2"])

    remote = scan(ckpt, stats=True, progress=kill_n2).to_dict()
    assert killed and killed[0] < sum(t["nbytes"] for t in remote["tensors"])
    local = {t["name"]: t for t in scan(data["broken"], stats=True).to_dict()["tensors"]}
    middle, small = shards_by_size(data["broken"])[1:]
    lost = [f for f in remote["findings"] if f["code"] == "IX001"]
    for row in remote["tensors"]:
        if "stats" in row or not row["file"].endswith(middle):
            assert row == local[row["name"]]  # the small shard: all of it, n1 took over
        else:
            assert any(f["file"] == row["file"] and "node n2" in f["message"] for f in lost)
    assert all(f["file"].endswith(middle) for f in lost)
    nodes = {n["node"]: n for n in remote["cluster"]["nodes"]}
    if lost:  # n2 died with work queued: it is reported dead, and n1 read the small shard
        assert not nodes["n2"]["alive"] and small in nodes["n1"]["files"]


def test_a_node_killed_before_the_data_pass_means_findings_for_what_it_alone_held(
    sim_cluster, data
):
    """Runs after n2 was removed: n1 holds the large and the small shard (n2's copy is gone),
    the middle shard is held by no alive node. n1 dies after the checkpoint is opened: every
    shard is then an IX001 (from the index for the middle one, naming n1 for the others) and the
    scan still ends with exit code 1, not a hang."""
    ckpt = open_checkpoint(
        data["broken"], ray=sim_cluster.address, ray_path_map=sim_cluster.path_map
    )
    sim_cluster.cluster.remove_node(sim_cluster.handles["n1"])
    remote = scan(ckpt, stats=True)
    assert not remote.ok
    rows = remote.to_dict()["tensors"]
    assert rows and all("stats" not in row for row in rows)
    large, middle, small = shards_by_size(data["broken"])
    lost = [f for f in remote.findings if f.code == "IX001"]
    for shard in (large, small):  # their task failed on n1
        assert any(f.file.endswith(shard) and "node n1" in f.message for f in lost)
    assert any(f.file.endswith(INDEX) and middle in f.message for f in lost)  # the index names it
