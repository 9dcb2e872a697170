"""The installed-engine worker: `python -m eagle3_inspect.installed.worker RESULT.json`, fed the
request on stdin by `judge` (engine name, mode, stand-in config, stand-in tensor shapes and
dtypes). It builds the stand-in tensors (seeded random values) with torch, runs the load harness
(or, in `forward` mode, a short draft chain) over the installed engine's own source files, and
writes `{"record": ...}` or `{"error": ..., "where": ...}` to RESULT.json: a file, because
engine code may print to stdout. Its own process, so the stub
modules it installs and any custom ops the engine registers never touch the caller's."""

from __future__ import annotations

import json
import sys
import tempfile
import traceback
import warnings
from pathlib import Path
from typing import Any

# safetensors dtype names -> torch dtype attribute names.
TORCH_DTYPES = {
    "BOOL": "bool",
    "U8": "uint8",
    "I8": "int8",
    "I16": "int16",
    "U16": "uint16",
    "I32": "int32",
    "U32": "uint32",
    "I64": "int64",
    "U64": "uint64",
    "F16": "float16",
    "BF16": "bfloat16",
    "F32": "float32",
    "F64": "float64",
    "F8_E4M3": "float8_e4m3fn",
    "F8_E5M2": "float8_e5m2",
    "F8_E8M0": "float8_e8m0fnu",
    "F8_E4M3FNUZ": "float8_e4m3fnuz",
    "F8_E5M2FNUZ": "float8_e5m2fnuz",
}


def run(request: dict[str, Any]) -> dict[str, Any]:
    """The harness's result for the request's stand-in drafter on the installed engine: the load
    record (`mode` "load") or the draft-forward result (`mode` "forward"). One mode per process:
    the load and forward harnesses each install their own import world."""
    import torch

    from eagle3_inspect.installed.harness.forward import run_forward
    from eagle3_inspect.installed.harness.load import run_load
    from eagle3_inspect.installed.harness.sources import InstalledSource

    # Distinct seeded values, not zeros: the harness finds a tensor an engine rebuilt before
    # loading (SGLang's MLA draft fuses q_a_proj and kv_a_proj_with_mqa) by its values.
    generator = torch.Generator().manual_seed(0)
    tensors = {}
    for name, (shape, dtype) in request["tensors"].items():
        if dtype not in TORCH_DTYPES:
            raise ValueError(f"tensor {name}: dtype {dtype} has no torch stand-in")
        torch_dtype = getattr(torch, TORCH_DTYPES[dtype])
        if torch_dtype.is_floating_point:
            values = torch.randn(shape, generator=generator).to(torch_dtype)
        elif torch_dtype == torch.bool:
            values = torch.rand(shape, generator=generator) < 0.5
        else:
            values = torch.randint(0, 64, shape, generator=generator).to(torch_dtype)
        tensors[name] = values
    with tempfile.TemporaryDirectory(prefix="e3-standin-") as folder:
        Path(folder, "config.json").write_text(json.dumps(request["config"]))
        source = InstalledSource(request["engine"])
        if request.get("mode") == "forward":
            return run_forward(Path(folder), source, tensors, int(request["aux_states"]))
        return run_load(Path(folder), source, tensors)


def main(argv: list[str]) -> int:
    """Reads the request, writes the result file; exit 0 whenever the result file was written."""
    result_path = Path(argv[0])
    warnings.filterwarnings("ignore")
    try:
        doc: dict[str, Any] = {"record": run(json.loads(sys.stdin.read()))}
    except Exception as exc:  # the harness's failure on this engine version is the result
        frames = traceback.extract_tb(exc.__traceback__)
        where = f"{frames[-1].filename}:{frames[-1].lineno} {frames[-1].name}" if frames else ""
        doc = {"error": f"{type(exc).__name__}: {exc}", "where": where}
    result_path.write_text(json.dumps(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
