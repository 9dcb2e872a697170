"""`python -m eagle3_inspect` runs the CLI."""

from eagle3_inspect.cli import run

run()
