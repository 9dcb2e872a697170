"""The validate page's target section: the target model's facts (architecture, model type,
layers, hidden size, vocabulary, dtype, embeddings) and, per engine version checked, the aux
layer ids it reads from the drafter's config and the target layers they capture
(`rules/en/captured.py`); plus a one-line summary for the page's header."""

from __future__ import annotations

from eagle3_inspect.commands.validate import ValidateReport
from eagle3_inspect.html.markup import Markup, definitions, join, note, table, tag
from eagle3_inspect.reader.target import TargetInfo
from eagle3_inspect.rules.en.captured import AuxCapture, aux_captures
from eagle3_inspect.units import shape_text


def _or_unknown(value: object) -> object:
    return "unknown" if value is None else value


def target_facts(target: TargetInfo) -> Markup:
    """The target's config and embedding facts as a key/value table."""
    text = f" (from {target.text_config_key})" if target.text_config_key else ""
    items: list[tuple[object, object]] = [
        ("path", tag("span", target.path, class_="path")),
        ("architecture", ", ".join(target.architectures) or "unknown"),
        ("model type", _or_unknown(target.model_type)),
        (f"decoder layers{text}", _or_unknown(target.num_hidden_layers)),
        (f"hidden size{text}", _or_unknown(target.hidden_size)),
        (f"vocabulary{text}", _or_unknown(target.vocab_size)),
        ("dtype", _or_unknown(target.torch_dtype)),
        (
            "tied embeddings",
            {None: "unknown", True: "yes", False: "no"}[target.tie_word_embeddings],
        ),
    ]
    if target.embed_name is not None:
        shape = shape_text(target.embed_shape) if target.embed_shape is not None else "?"
        items.append(("embedding", f"{target.embed_name} {shape}"))
    if target.lm_head_name is not None:
        shape = shape_text(target.lm_head_shape) if target.lm_head_shape is not None else "?"
        items.append(("lm_head", f"{target.lm_head_name} {shape}"))
    return definitions(items)


def _ids(capture: AuxCapture) -> str:
    if capture.ids is None:
        return f"none read: {capture.default or 'the engine default'}"
    where = f" from {capture.read_from}" if capture.read_from else ""
    return f"{capture.ids}{where}"


def _layers(capture: AuxCapture) -> Markup | str:
    if capture.layers is None:
        return "-"
    text = ", ".join(map(str, capture.layers))
    if capture.top is not None and any(i < 0 or i > capture.top for i in capture.layers):
        return tag("span", f"{text} (outside 0..{capture.top})", class_="sev-error")
    return text


def _captures(value: bool | None) -> Markup | str:
    if value is None:
        return "not checked"
    if value:
        return "yes"
    return tag("span", "no: the drafter gets no aux states (EN006)", class_="sev-error")


def capture_table(captures: list[AuxCapture]) -> Markup:
    """Per engine version: the ids it reads, its convention, the layers captured, and whether the
    target's class can capture at all."""
    rows = [
        [c.engine, _ids(c), c.convention, _layers(c), _captures(c.target_captures)]
        for c in captures
    ]
    headers = ("engine", "aux layer ids read", "convention", "layers captured", "target captures")
    return table(headers, rows, class_="captures")


def target_view(report: ValidateReport) -> Markup:
    """The target's facts (or how to give one) and the aux capture per engine version."""
    facts = (
        target_facts(report.target)
        if report.target is not None
        else note(
            "No target given: validate with --target (or target=) to cross-check hidden size, "
            "vocabulary, aux layer ids and whether the engine captures this target's states."
        )
    )
    if not report.engines or not report.family.is_drafter:
        return facts
    config = report.checkpoint.config if report.checkpoint is not None else None
    captures = aux_captures(
        report.engines, report.family.name, report.family.variant, config, report.target
    )
    if not captures:
        return facts
    return join(
        [
            facts,
            tag("h3", "Aux hidden states each engine version captures"),
            capture_table(captures),
        ]
    )


def target_line(target: TargetInfo) -> Markup:
    """`target: PATH (Arch, 61 layers, hidden 7168, vocab 163840)` for the page's header."""
    facts = [
        ", ".join(target.architectures) or None,
        f"{target.num_hidden_layers} layers" if target.num_hidden_layers is not None else None,
        f"hidden {target.hidden_size}" if target.hidden_size is not None else None,
        f"vocab {target.vocab_size}" if target.vocab_size is not None else None,
    ]
    known = ", ".join(f for f in facts if f)
    return tag(
        "p",
        "target: ",
        tag("span", target.path, class_="path"),
        f" ({known})" if known else "",
        class_="target-line",
    )
