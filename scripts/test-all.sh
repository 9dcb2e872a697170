#!/usr/bin/env bash
# Every check the project has: Rust lints and tests, Python lints, types (mypy --strict) and tests.
# Installs the package (building the extension) and the dev dependencies first.
set -euo pipefail
cd "$(dirname "$0")/.."
# A build from before the abi3 switch (_native.cpython-3XX-*.so) would shadow the abi3 extension
# built next: Python prefers the version-tagged file.
rm -f python/eagle3_inspect/_native.cpython-*.so
python -m pip install -q -e '.[dev]'
# The HTML report's browser test needs headless Chromium (Debian's package); a fresh CI machine
# has none. Installed only as root and only when missing, so the test never skips for lack of it.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace
ruff check .
ruff format --check .
mypy
python -m pytest
