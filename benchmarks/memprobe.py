"""Child process: runs one data pass and reports its time and memory as JSON.

Run as `python benchmarks/memprobe.py PATH [--threads N] [--hashes]` for a `Checkpoint.stats()`
pass, `--diff OTHER` for `eagle3_inspect.diff(PATH, OTHER)`, or `--fix OUT` for `fix` of PATH for
speculators into OUT (replaced). Anonymous memory is what the pass itself allocates; `VmHWM`
(peak RSS) also counts file-backed pages of the memory map, so a thread samples `RssAnon` from
/proc/self/status every 50 ms and the peak is reported separately. Only the public API is used,
so the same probe measures any build.
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
    parser.add_argument("--diff", metavar="OTHER", help="diff PATH against OTHER instead")
    parser.add_argument("--fix", metavar="OUT", help="fix PATH for speculators into OUT instead")
    args = parser.parse_args()

    import eagle3_inspect

    ckpt = eagle3_inspect.open(args.path)
    nbytes = sum(t.nbytes for n, t in ckpt.tensors.items() if n not in ckpt.unreadable)
    if args.diff:
        import eagle3_inspect.commands.diff  # imported before the baseline is taken

        def run():
            return eagle3_inspect.diff(args.path, args.diff, threads=args.threads)
    elif args.fix:
        from eagle3_inspect import fix

        def run():
            return fix(args.path, engine="speculators@0.9.0", out=args.fix, force=True)
    else:

        def run():
            return ckpt.stats(threads=args.threads, hashes=args.hashes)

    before = {f: status_kib(f) for f in ("RssAnon", "RssFile", "VmHWM")}
    sampler = AnonSampler()
    sampler.start()
    start, cpu = time.perf_counter(), cpu_seconds()
    result = run()
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    sampler.stop()
    after = {f: status_kib(f) for f in ("RssAnon", "RssFile", "VmHWM")}
    stats = result if not (args.diff or args.fix) else {}
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
                "op": "diff" if args.diff else "fix" if args.fix else "stats",
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
