#!/usr/bin/env bash
# Every check the project has: Rust lints and tests, Python lints and tests.
# Installs the package (building the extension) and the dev dependencies first.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q -e '.[dev]'
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace
ruff check .
ruff format --check .
python -m pytest
