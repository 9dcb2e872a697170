"""Bytes and requests each command costs on remote checkpoints, against the local Hub stand-in
that the tests use (127.0.0.1, no internet), plus the ranged-read client comparison.

    python benchmarks/remote_bytes.py [--reads N] [--threads N] [--json FILE]

Publishes the demo drafters and target, a 3-shard drafter and a sparse target declaring 288 GiB,
then runs scan / validate / diff on hf:// paths and prints, per command, what the JSON `remote`
section says (response body bytes, HTTP requests, redirects included), what the server counted,
and the share of the bytes the checkpoints declare. Then times N ranged 4 KiB reads from T
threads through our http.client transport and through an httpx client (when installed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' Hub server

from tests.reader.remote.checkpoints import Published, write_huge_target
from tests.reader.remote.hub_server import HubServer

import eagle3_inspect
from eagle3_inspect.reader.remote import Traffic, resolve
from eagle3_inspect.synthetic.demo import ENGINE


def publish(base: Path) -> tuple[HubServer, Published]:
    from eagle3_inspect.synthetic.demo import DIMS, write_demo
    from eagle3_inspect.synthetic.drafters import build_drafter

    demo = write_demo(base / "demo")
    sharded = build_drafter(dialect="midlayer", config_style="sglang", **DIMS).write(
        base / "sharded", shards=3
    )
    huge = write_huge_target(base / "huge")
    published = Published(demo.correct, demo.broken, sharded, demo.target, huge, {})
    server = HubServer(base / "hub").start()
    for repo, folder in (
        ("demo/drafter", demo.correct),
        ("demo/sharded", sharded),
        ("demo/target", demo.target),
        ("big/target", huge),
    ):
        server.add_repo(repo, folder)
    return server, published


def size_of(*folders: Path) -> int:
    return sum(p.stat().st_size for folder in folders for p in folder.iterdir())


def commands(p: Published) -> list[tuple[str, Any, int]]:
    """(label, run, declared bytes of the remote checkpoints read)."""
    d, s, t, big = "hf://demo/drafter", "hf://demo/sharded", "hf://demo/target", "hf://big/target"
    return [
        ("scan drafter (1 file)", lambda: eagle3_inspect.scan(d), size_of(p.drafter)),
        ("scan drafter (3 shards)", lambda: eagle3_inspect.scan(s), size_of(p.sharded)),
        ("scan target 288 GiB (2 shards)", lambda: eagle3_inspect.scan(big), size_of(p.huge)),
        (
            "validate --no-stats drafter + target 288 GiB",
            lambda: eagle3_inspect.validate(d, target=big, engine=ENGINE, stats=False),
            size_of(p.drafter, p.huge),
        ),
        (
            "validate --no-stats drafter + small target",
            lambda: eagle3_inspect.validate(d, target=t, engine=ENGINE, stats=False),
            size_of(p.drafter, p.target),
        ),
        (
            "validate (stats) drafter",
            lambda: eagle3_inspect.validate(d, engine=ENGINE),
            size_of(p.drafter),
        ),
        ("scan --stats drafter", lambda: eagle3_inspect.scan(d, stats=True), size_of(p.drafter)),
        (
            "diff --structure-only local vs remote",
            lambda: eagle3_inspect.diff(p.drafter, d, structure_only=True),
            size_of(p.drafter),
        ),
        ("diff local vs remote", lambda: eagle3_inspect.diff(p.drafter, d), size_of(p.drafter)),
    ]


def measure_commands(server: HubServer, published: Published) -> list[dict[str, Any]]:
    rows = []
    for label, run, declared in commands(published):
        server.clear()
        report = run()
        section = report.remote()["remote"]
        rows.append(
            {
                "command": label,
                "bytes_fetched": section["bytes_fetched"],
                "requests": section["requests"],
                "server_bytes": server.bytes_served(),
                "server_requests": len(server.requests()),
                "declared_bytes": declared,
                "share": section["bytes_fetched"] / declared,
            }
        )
    return rows


def measure_clients(server: HubServer, reads: int, threads: int) -> list[dict[str, Any]]:
    """N ranged 4 KiB reads of the big shard through each client, from `threads` threads."""
    listing = resolve("hf://big/target", Traffic("bench"))
    shard = listing.files[0]
    offsets = [(i * 7919 * 4096) % (shard.size - 4096) for i in range(reads)]
    rows = []

    def timed(name: str, read: Any) -> None:
        started = time.perf_counter()
        with ThreadPoolExecutor(threads) as pool:
            assert all(len(b) == 4096 for b in pool.map(read, offsets))
        seconds = time.perf_counter() - started
        rows.append({"client": name, "reads": reads, "threads": threads, "seconds": seconds})

    timed("http.client (ours)", lambda o: shard.read(o, 4096))
    try:
        import httpx2 as httpx  # what huggingface_hub 2.x ships
    except ImportError:
        try:
            import httpx
        except ImportError:
            return rows
    commit = next(iter(server.repos["big/target"].commits))
    url = f"{server.cdn}/cdn/big/target/{commit}/{shard.name}"
    with httpx.Client() as client:

        def read(offset: int) -> bytes:
            headers = {"Range": f"bytes={offset}-{offset + 4095}"}
            reply = client.get(url, headers=headers)
            assert reply.status_code == 206
            return reply.content

        timed(f"{httpx.__name__} Client (shared)", read)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=400)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HF_HUB_CACHE"] = str(Path(tmp) / "empty-cache")
        os.environ.pop("HF_TOKEN", None)
        server, published = publish(Path(tmp))
        os.environ["HF_ENDPOINT"] = server.url
        try:
            rows = measure_commands(server, published)
            clients = measure_clients(server, args.reads, args.threads)
        finally:
            server.stop()
    print(
        f"{'command':46} {'bytes':>10} {'requests':>8} {'server saw':>18} "
        f"{'declared':>16} {'share':>9}"
    )
    for r in rows:
        seen = f"{r['server_bytes']}/{r['server_requests']}"
        print(
            f"{r['command']:46} {r['bytes_fetched']:>10} {r['requests']:>8} {seen:>18} "
            f"{r['declared_bytes']:>16} {r['share']:>9.2e}"
        )
        # What we count is what the server saw: no request goes uncounted.
        assert (r["bytes_fetched"], r["requests"]) == (r["server_bytes"], r["server_requests"])
    print()
    for c in clients:
        rate = c["reads"] / c["seconds"]
        print(f"{c['client']:32} {c['reads']} reads, {c['threads']} threads: {rate:8.0f} reads/s")
    if args.json:
        args.json.write_text(json.dumps({"commands": rows, "clients": clients}, indent=2) + "\n")


if __name__ == "__main__":
    main()
