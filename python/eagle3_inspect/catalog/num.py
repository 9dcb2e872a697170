"""NUM rules: what the tensor values say (from one statistics pass). Facts are errors; heuristic
verdicts such as "looks untrained" are warnings."""

from __future__ import annotations

from eagle3_inspect.catalog import RuleDoc
from eagle3_inspect.findings import Severity

E, W = Severity.ERROR, Severity.WARNING

RULES: tuple[RuleDoc, ...] = (
    RuleDoc(
        "NUM001",
        E,
        "NaN values in a weight",
        "Any NaN propagates through the layer and poisons every draft token: acceptance "
        "collapses without an error.",
        "midlayer.mlp.down_proj.weight: 12 NaN of 132M",
        "Find the training step that produced them (loss spike, bf16 overflow) and use an "
        "earlier checkpoint.",
    ),
    RuleDoc(
        "NUM002",
        E,
        "Infinite values in a weight",
        "Inf weights give Inf/NaN activations.",
        "fc.weight: 3 +Inf",
        "Use an earlier checkpoint; check for fp16 overflow when the weights were cast.",
    ),
    RuleDoc(
        "NUM003",
        E,
        "Weight is entirely NaN",
        "The speculators library fills a head it never loaded with NaN (lm_head "
        "initialisation from a missing verifier head); serving it gives garbage logits.",
        "lm_head.weight: 229M of 229M NaN",
        "Re-export with the trained weight, or initialise lm_head from the verifier's head "
        "rows selected by t2d before training.",
    ),
    RuleDoc(
        "NUM004",
        E,
        "Weight is all zeros",
        "An all-zero matrix or norm zeroes its layer's output: the tensor was never loaded or "
        "was saved from an uninitialised buffer.",
        "midlayer.hidden_norm.weight: all 0",
        "Re-export from the training checkpoint; check the saver includes the parameter.",
    ),
    RuleDoc(
        "NUM005",
        W,
        "Norm weight is exactly 1.0 everywhere",
        "RMSNorm weights start at 1.0; after training they almost never stay exactly 1. All "
        "ones means the norm was never trained or never saved (heuristic).",
        "norm.weight: all 7168 values == 1.0",
        "Check that the trainer updates and saves this norm (frozen? excluded from the "
        "state dict?).",
    ),
    RuleDoc(
        "NUM006",
        W,
        "Weight statistics look like untouched initialisation",
        "The values match a standard initialiser exactly: nn.Linear's kaiming-uniform "
        "U(-1/sqrt(in), 1/sqrt(in)) (std = bound/sqrt(3), nothing outside the bound) or "
        "normal(0, initializer_range=0.02). A trained weight rarely keeps these (heuristic).",
        "fc.weight: uniform within ±0.00682, std 0.00394 (= bound/sqrt 3)",
        "Check that this parameter was trained and saved (optimizer param groups, frozen "
        "flags, the export filter).",
    ),
)
