"""Child process: runs one `Checkpoint.stats()` pass and reports its time and memory as JSON.

Run as `python benchmarks/memprobe.py PATH [--threads N] [--hashes]`. Anonymous memory is what
the pass itself allocates; `VmHWM` (peak RSS) also counts file-backed pages of the memory map, so
a thread samples `RssAnon` from /proc/self/status every 50 ms and the peak is reported separately.
"""

from __future__ import annotations

import argparse
import json
import resource
import threading
import time


def status_kib(field: str) -> int:
    """A `kB` field of /proc/self/status, in KiB (0 when absent)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class AnonSampler(threading.Thread):
    """Samples RssAnon every `interval` seconds until stopped; keeps the peak."""

    def __init__(self, interval: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.interval = interval
        self.peak_kib = status_kib("RssAnon")
        self.samples = 0
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            self.peak_kib = max(self.peak_kib, status_kib("RssAnon"))
            self.samples += 1
            self._halt.wait(self.interval)

    def stop(self) -> None:
        self._halt.set()
        self.join()
        self.peak_kib = max(self.peak_kib, status_kib("RssAnon"))


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--hashes", action="store_true")
    args = parser.parse_args()

    import eagle3_inspect

    ckpt = eagle3_inspect.open(args.path)
    nbytes = sum(t.nbytes for n, t in ckpt.tensors.items() if n not in ckpt.unreadable)
    before = {f: status_kib(f) for f in ("RssAnon", "RssFile", "VmHWM")}
    sampler = AnonSampler()
    sampler.start()
    start, cpu = time.perf_counter(), cpu_seconds()
    stats = ckpt.stats(threads=args.threads, hashes=args.hashes)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    sampler.stop()
    after = {f: status_kib(f) for f in ("RssAnon", "RssFile", "VmHWM")}
    zeros = sum(s.zeros for s in stats.values())
    numel = sum(s.numel for s in stats.values())
    print(
        json.dumps(
            {
                "bytes": nbytes,
                "tensors": len(stats),
                "seconds": seconds,
                "cpu_seconds": cpu,
                "threads": args.threads,
                "zeros": zeros,
                "numel": numel,
                "before_kib": before,
                "after_kib": after,
                "peak_rss_anon_kib": sampler.peak_kib,
                "samples": sampler.samples,
            }
        )
    )


if __name__ == "__main__":
    main()
