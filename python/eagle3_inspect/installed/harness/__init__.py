"""The engine load harness: runs an engine's own EAGLE-3 config and load code (SGLang, vLLM) over
a drafter checkpoint on CPU, with the engine's distributed, kernel and server machinery stubbed
(`stub_imports`, `stub_layers`, `stub_families`, `stubs`, `layers`), and records what it did:
LOADED / REFUSED / LOAD-ERROR / NOT-MODELLED with the tensors dropped and the parameters left at
init (`outcome`, `record`). The engine's source text comes from an `EngineSource` (`sources`: a
downloaded wheel, or the engine installed in this Python). `sglang_families.run` and
`vllm_families.run` are the per-engine dispatchers; `load.run_load` is the one entry point for a
drafter directory. The forward-pass harness in tools/engine_truth/forward/ shares `chain`,
`attention`, `sglang_eagle3` and `vllm_eagle3`.

Needs torch (and transformers, safetensors) at import of most modules: import it only in the
worker subprocess or in the truth tools (tools/engine_truth/), never from the CLI. Importing this
package itself imports nothing (not `_native`, not torch)."""
