"""Case generators and judges for the JSON documents beside the weights or from servers, the
attack surfaces of issue 22: `config.json` (scan and validate read it), `--resume` files, and the
Hub's model-info answer, served by the local fixture Hub (started once per worker).

Each judge holds the code to an independent oracle, Python's `json` with the documented rules:
- config: a config that `json` parses into an object nesting at most 127 levels gives no IX009;
  any other gives exactly one IX009 naming config.json; no other exception, no message longer
  than the echo cap;
- resume: `ResumeFile` accepts a file exactly when every line is a record of this tool or the
  start of one, no complete record has a path that is not a string, and no line is too long;
  then `done` is exactly the paths of the complete records (UTF-8 JSON objects; summaries
  aside); a refusal is one line naming the file;
- modelinfo: `resolve` returns a listing or raises one RemoteSourceError of one line naming a
  URL; when the answer is well typed (40-hex sha, a list of objects with string names and sizes
  in 0..2**64-1) the error, if any, is not about the model info.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

from tests.fuzz import mutate, oracle

KINDS = ("config", "resume", "modelinfo")
SUFFIX = {"config": ".json", "resume": ".jsonl", "modelinfo": ".json"}
ECHO = "message longer than the echo cap"
RECORD_PREFIX = '{"schema": "eagle3-inspect/'
NESTING = 127

BASE_CONFIG: dict[str, Any] = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "hidden_size": 64,
    "vocab_size": 1000,
    "draft_vocab_size": 256,
    "num_hidden_layers": 1,
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 2, 3], "use_aux_hidden_state": True},
    "torch_dtype": "bfloat16",
}
HOSTILE_VALUES = [
    "A" * 50_000,
    12345,
    None,
    True,
    [],
    {"x": [1, {"y": None}]},
    -1,
    2**70,
    1.5,
    "",
    "\u00e9\u0000",
]
RAW_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e999", "-0", "1e308", "00", "1.", "+1"]


def _nested(rng: random.Random) -> str:
    depth = rng.choice([NESTING - 1, NESTING, NESTING + 1, rng.randint(128, 3000), 100_000])
    open_, close = rng.choice([("[", "]"), ('{"k":', "}")])
    return open_ * depth + "0" + close * depth


def _mutate_json(rng: random.Random, doc: dict[str, Any]) -> bytes:
    """`doc` with one to three hostile changes (a value replaced, deep nesting, raw number
    tokens, a non-object top level), then sometimes byte-level damage."""
    pieces: dict[str, str] = {k: json.dumps(v) for k, v in doc.items()}
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(5)
        key = rng.choice(list(pieces) or ["k"])
        if op == 0:
            pieces[key] = json.dumps(rng.choice(HOSTILE_VALUES))
        elif op == 1:
            pieces[key] = _nested(rng)
        elif op == 2:
            pieces[key] = rng.choice(RAW_NUMBERS)
        elif op == 3:
            pieces.pop(key, None)
        else:
            pieces[rng.choice(["extra", key])] = json.dumps(rng.choice(HOSTILE_VALUES))
    text = "{" + ",".join(f"{json.dumps(k)}: {v}" for k, v in pieces.items()) + "}"
    if rng.random() < 0.05:
        text = rng.choice(["[1, 2]", '"text"', "3", "null", ""])
    blob = text.encode("utf-8", "surrogatepass")
    return mutate.byte_level(rng, blob) if rng.random() < 0.3 else blob


def config_case(rng: random.Random) -> bytes:
    return _mutate_json(rng, dict(BASE_CONFIG))


def _record(path: object, schema: str = "eagle3-inspect/scan/1") -> str:
    return json.dumps({"schema": schema, "path": path, "summary": {"errors": 0}})


def resume_case(rng: random.Random) -> bytes:
    """A `--resume` file: a few records of this tool, then hostile changes."""
    paths = ["/ckpt/a", "/ckpt/caf\u00e9", "hf://org/x", "/ckpt/\udcff"]
    lines = [_record(p) for p in rng.sample(paths, rng.randint(0, len(paths)))]
    if rng.random() < 0.5:
        lines.append(json.dumps({"schema": "eagle3-inspect/audit-summary/1", "checkpoints": 2}))
    for _ in range(rng.randint(0, 3)):
        op = rng.randrange(7)
        at = rng.randint(0, len(lines))
        if op == 0:
            lines.insert(at, _record(rng.choice([["a"], {"x": 1}, 3, None, True])))
        elif op == 1:
            lines.insert(at, rng.choice(["not json", '{"a": 1}', "\x00\x01", "{", "{}", "  "]))
        elif op == 2:
            lines.insert(at, RECORD_PREFIX + 'scan/1", "path": "/x", "d": ' + _nested(rng) + "}")
        elif op == 3:
            lines.insert(at, RECORD_PREFIX + 'scan/1", "other": 1, "path": "/y"}')
        elif op == 4:
            lines.insert(at, _record("/z" + "q" * rng.randint(1000, 200_000)))
        elif op == 5:
            lines.insert(at, RECORD_PREFIX + rng.choice(["scan/1", "x"]) + '"')
        else:
            lines.insert(at, _record("/w", schema=rng.choice(["other/1", "eagle3-inspect/x"])))
    text = "\n".join(lines) + ("\n" if lines and rng.random() < 0.7 else "")
    blob = text.encode("utf-8", "surrogateescape" if "\udcff" in text else "strict")
    if rng.random() < 0.4 and blob:
        blob = blob[: rng.randint(0, len(blob))]  # torn anywhere, mid-character too
    if rng.random() < 0.1:
        blob = rng.choice([b"\x93NUMPY", b"\x08\x00\x00\x00\x00\x00\x00\x00{}", os.urandom(64)])
    return mutate.byte_level(rng, blob) if rng.random() < 0.15 else blob


def modelinfo_case(rng: random.Random) -> bytes:
    siblings: list[dict[str, Any]] = [
        {"rfilename": "config.json", "size": 2},
        {"rfilename": "model.safetensors", "size": 80, "lfs": {"size": 80}},
    ]
    info: dict[str, Any] = {"sha": "0" * 40, "siblings": siblings}
    if rng.random() < 0.5:
        sibling = rng.choice(siblings)
        sibling[rng.choice(["rfilename", "size"])] = rng.choice(
            [*HOSTILE_VALUES, "600432", 1e308, -5, "../../x.safetensors"]
        )
    return _mutate_json(rng, info)


def generate(kind: str, rng: random.Random) -> bytes:
    return {"config": config_case, "resume": resume_case, "modelinfo": modelinfo_case}[kind](rng)


# --- judges ---------------------------------------------------------------------------------
def _json_object(blob: bytes) -> tuple[bool, Any]:
    """(True, value) when `blob` is UTF-8 text that Python's json parses into a value nesting at
    most 127 levels (decoded first, as engines read config.json: a BOM is then not JSON)."""
    try:
        value = json.loads(blob.decode("utf-8"))
    except (ValueError, RecursionError):
        return False, None
    return _depth(value) <= NESTING, value


def _depth(value: Any) -> int:
    stack, deepest = [(value, 1)], 0
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _echo_ok(messages: list[str]) -> bool:
    from eagle3_inspect.echo import MAX_ECHO

    return all(len(m) <= MAX_ECHO + 100 for m in messages)


_DRAFTERS: dict[Path, Path] = {}


def _drafter(workdir: Path) -> Path:
    """A valid demo drafter in `workdir` (written once); cases replace its config."""
    if workdir not in _DRAFTERS:
        from eagle3_inspect.synthetic.demo import write_demo

        _DRAFTERS[workdir] = write_demo(workdir / "demo").correct
    return _DRAFTERS[workdir]


def judge_config(blob: bytes, workdir: Path) -> tuple[str, bool, tuple[str, ...]]:
    import eagle3_inspect
    from eagle3_inspect.errors import InspectError

    drafter = _drafter(workdir)
    (drafter / "config.json").write_bytes(blob)
    parses, value = _json_object(blob)
    accepted = parses and isinstance(value, dict)
    try:
        scanned = eagle3_inspect.scan(drafter).findings
        validated = eagle3_inspect.validate(drafter, engine="sglang@0.5.11", stats=False).findings
    except InspectError:
        return oracle.RAISED, accepted, ()
    codes = tuple(sorted({f.code for f in validated if f.severity.value == "error"}))
    ix009 = [f for f in (*scanned, *validated) if f.code == "IX009"]
    if any(not f.file or not f.file.endswith("config.json") for f in ix009):
        return oracle.UNLOCATED, accepted, codes
    if not _echo_ok([f.message for f in (*scanned, *validated)]):
        return ECHO, accepted, codes
    if accepted == bool(ix009):
        return oracle.MISSED if not accepted else oracle.STRICTER, accepted, codes
    return oracle.OK, accepted, codes


def _expected_resume(blob: bytes) -> set[str] | None:
    """The oracle: the paths `done` must hold, or None when the file must be refused."""
    prefix = RECORD_PREFIX.encode()
    done: set[str] = set()
    lines = blob.split(b"\n")
    for line in (raw.rstrip(b"\r") for raw in lines):
        if not line:
            continue
        if len(line) > (1 << 30) or not (line.startswith(prefix) or prefix.startswith(line)):
            return None
        try:
            record = json.loads(line.decode("utf-8"))
        except (ValueError, RecursionError):
            continue  # torn (a record of this tool is ASCII; other bytes mean it is not whole)
        if not isinstance(record, dict) or _depth(record) > NESTING:
            continue
        path = record.get("path")
        if path is not None and not isinstance(path, str):
            return None
        if record.get("schema") != "eagle3-inspect/audit-summary/1" and path is not None:
            done.add(path)
    return done


def judge_resume(blob: bytes, workdir: Path) -> tuple[str, bool, tuple[str, ...]]:
    from eagle3_inspect.commands.resume import ResumeFile
    from eagle3_inspect.errors import InvalidArgumentError

    path = workdir / "out.jsonl"
    path.write_bytes(blob)
    expected = _expected_resume(blob)
    try:
        resume = ResumeFile(str(path), append=False)
    except InvalidArgumentError as exc:
        message = str(exc)
        if "\n" in message or str(path) not in message:
            return oracle.UNLOCATED, False, ("refused",)
        return (oracle.OK if expected is None else oracle.STRICTER), False, ("refused",)
    resume.close()
    if expected is None:
        return oracle.MISSED, True, ()
    if resume.done != expected:
        return oracle.STRICTER if resume.done < expected else oracle.MISSED, True, ("done",)
    return oracle.OK, True, ()


def _well_typed(blob: bytes) -> bool:
    parses, info = _json_object(blob)
    if not parses or not isinstance(info, dict):
        return False
    sha, siblings = info.get("sha"), info.get("siblings")
    if not (isinstance(sha, str) and len(sha) == 40 and all(c in "0123456789abcdef" for c in sha)):
        return False
    if siblings is not None and not isinstance(siblings, list):
        return False
    for s in siblings or []:
        if not isinstance(s, dict) or not isinstance(s.get("rfilename"), str) or not s["rfilename"]:
            return False
        size = s.get("size")
        typed = isinstance(size, int) and not isinstance(size, bool) and 0 <= size < 2**64
        if size is not None and not typed:
            return False
    # The listing asks ?blobs=true, which the Hub answers with every file's size; a file the
    # reader would fetch without one is refused in one line (reader/remote/hub.py).
    unsized = {s["rfilename"] for s in siblings or [] if s.get("size") is None}
    return not unsized & _fetched({s["rfilename"] for s in siblings or []})


def _fetched(names: set[str]) -> set[str]:
    """The repo files the Hub reader fetches, by the package's own rule: the top-level weights
    and index it chooses (reader/weight_files.py) and the config."""
    from eagle3_inspect.reader.weight_files import choose_weight_files

    top = sorted(n for n in names if "/" not in n)
    weights, index, _ = choose_weight_files(top)
    return {*weights, *([index] if index else []), "config.json"}


_HUB: Any = None
_SAVED_ENV: dict[str, str | None] = {}


def _hub(workdir: Path) -> Any:
    """The local fixture Hub of this process, serving the demo drafter as `fuzz/drafter`, and the
    environment pointing huggingface_hub at it (restored by `cleanup`)."""
    global _HUB
    if _HUB is None:
        from tests.reader.remote.hub_server import HubServer

        root = Path(tempfile.mkdtemp(prefix="e3fuzz-hub-", dir=workdir))
        _HUB = HubServer(root).start()
        _HUB.add_repo("fuzz/drafter", _drafter(workdir))
        env = {
            "HF_ENDPOINT": _HUB.url,
            "HF_HUB_CACHE": str(root / "cache"),
            "HF_TOKEN_PATH": str(root / "no-token"),
            "HF_HUB_DISABLE_TELEMETRY": "1",
            "E3_REMOTE_RETRIES": "1",
            "E3_REMOTE_TIMEOUT": "10",
            "HF_TOKEN": None,
        }
        for name, value in env.items():
            _SAVED_ENV[name] = os.environ.get(name)
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return _HUB


def judge_modelinfo(blob: bytes, workdir: Path) -> tuple[str, bool, tuple[str, ...]]:
    from eagle3_inspect.errors import RemoteSourceError
    from eagle3_inspect.reader.remote import resolve

    hub = _hub(workdir)
    hub.clear()
    hub.inject("/api/models/", "answer", data=blob)
    typed = _well_typed(blob)
    try:
        resolve("hf://fuzz/drafter")
    except RemoteSourceError as exc:
        message = str(exc)
        if "\n" in message or not message.startswith("http"):
            return oracle.UNLOCATED, typed, ("remote-error",)
        about_info = "/api/models/" in message.split(": ", 1)[0]
        if typed and about_info and "no weights files" not in message:
            return oracle.STRICTER, typed, ("remote-error",)
        return oracle.OK, typed, ("remote-error",)
    return (oracle.OK if typed else oracle.MISSED), typed, ()


def judge(kind: str, blob: bytes, workdir: Path) -> tuple[str, bool, tuple[str, ...]]:
    """One case of a document kind, judged; an unexpected exception is RAISED."""
    judges = {"config": judge_config, "resume": judge_resume, "modelinfo": judge_modelinfo}
    try:
        return judges[kind](blob, workdir)
    except Exception as exc:  # anything but our own errors is a failure of the tool
        if os.environ.get("E3_FUZZ_DEBUG"):
            raise
        return oracle.RAISED, False, (type(exc).__name__,)


def cleanup() -> None:
    """Stops the fixture Hub and puts the environment back (after an in-process replay)."""
    global _HUB
    if _HUB is not None:
        _HUB.stop()
        shutil.rmtree(_HUB.root, ignore_errors=True)
        _HUB = None
    for name, value in _SAVED_ENV.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    _SAVED_ENV.clear()
    _DRAFTERS.clear()
