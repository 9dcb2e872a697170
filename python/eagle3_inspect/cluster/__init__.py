"""Fleet scale on Ray (`--ray`, `ray=`): checkpoints whose shards live on several machines.

Each node reports the checkpoint files it can read locally (`discover`), every shard is given to
one holder (`placement`), the driver opens the checkpoint through the byte-source seam with reads
served by tasks pinned to the holders (`checkpoint`), and data passes (statistics, hashes, diff
pairs) run as per-shard tasks on the holders (`tasks`, `session`). Results merge into exactly the
structures a local run builds, plus a `"cluster"` section. `ray` is imported only here and only
when a cluster is asked for (`require`).
"""

from __future__ import annotations
