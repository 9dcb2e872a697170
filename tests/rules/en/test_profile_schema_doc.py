"""The profile schema is written once (the field specs of rules/en/profile.py): the README's
tables are its rendering, and every key the parser accepts is documented there."""

from __future__ import annotations

from pathlib import Path

from eagle3_inspect.rules.en.fields import schema_fields, toml_key
from eagle3_inspect.rules.en.profile import EngineProfile, FamilyProfile
from eagle3_inspect.rules.en.schema_doc import BEGIN, END, TABLES, render_schema

README = Path(__file__).resolve().parents[3] / "python/eagle3_inspect/rules/en/profiles/README.md"


def test_readme_schema_tables_are_the_rendering_of_the_field_specs() -> None:
    text = README.read_text()
    section = text[text.index(BEGIN) : text.index(END) + len(END)]
    assert section == render_schema(), "run: python tools/gen_profile_schema.py --write"


def test_every_schema_key_has_a_documented_row() -> None:
    rendered = render_schema()
    for cls in (EngineProfile, FamilyProfile, *TABLES):
        for f in schema_fields(cls):
            assert f"| `{toml_key(f)}` |" in rendered, (cls.__name__, f.name)
            assert str(f.metadata["doc"]).strip(), (cls.__name__, f.name)
