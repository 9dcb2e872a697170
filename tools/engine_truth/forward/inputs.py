"""The inputs every forward comparison shares: token ids, and the tiny verifier's residual stream
at every layer boundary, from running the verifier itself (transformers' own model, the one the
producers read: tests/corpus/verifiers/).

`stream[i]` is the hidden state entering decoder layer i (`stream[0]` the embeddings) and
`stream[N]` the state after the last layer, before the final norm: what the engines capture
(`hidden_states + residual` before a layer; vLLM's id N after the last). Forward pre/post hooks on
the verifier's decoder layers read them; nothing in the model is changed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

ROWS = 128  # positions drafted from; speculators' flex attention needs a multiple of 128
STEPS = 3  # draft tokens per position (the producers' default TTT length is 3)
SEED = 0


@dataclass
class VerifierRun:
    """tokens [ROWS + STEPS]; stream[i]: [ROWS + STEPS, H]; the verifier's embed and head."""

    path: Path
    tokens: torch.Tensor
    stream: list[torch.Tensor]
    embed: torch.Tensor
    head: torch.Tensor

    @property
    def num_layers(self) -> int:
        return len(self.stream) - 1

    def aux(self, boundaries: list[int]) -> torch.Tensor:
        """[ROWS, K * H]: the stream at these boundaries, concatenated in order."""
        return torch.cat([self.stream[i][:ROWS] for i in boundaries], dim=-1)


def run_verifier(path: Path, seed: int = SEED) -> VerifierRun:
    """Runs the verifier at `path` (float32, CPU) over seeded random token ids."""
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(str(path), dtype=torch.float32).eval()
    vocab = model.config.vocab_size
    tokens = torch.randint(0, vocab, (ROWS + STEPS,), generator=torch.Generator().manual_seed(seed))
    layers = model.model.layers
    stream: list[torch.Tensor | None] = [None] * (len(layers) + 1)

    def before(i: int):
        def hook(module, args, kwargs):
            x = kwargs["hidden_states"] if "hidden_states" in kwargs else args[0]
            stream[i] = x[0].detach().clone()

        return hook

    def after(module, args, kwargs, output):
        x = output if isinstance(output, torch.Tensor) else output[0]
        stream[len(layers)] = x[0].detach().clone()

    handles = [
        layer.register_forward_pre_hook(before(i), with_kwargs=True)
        for i, layer in enumerate(layers)
    ]
    handles.append(layers[-1].register_forward_hook(after, with_kwargs=True))
    with torch.no_grad():
        model(tokens[None])
    for h in handles:
        h.remove()
    assert all(s is not None for s in stream)
    embed = model.get_input_embeddings().weight.detach().clone()
    head = model.get_output_embeddings().weight.detach().clone()
    return VerifierRun(path, tokens, [s for s in stream if s is not None], embed, head)
