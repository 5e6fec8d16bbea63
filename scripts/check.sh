#!/usr/bin/env bash
# Every check in one command: format, lint, strict types, then the whole test suite.
# Extra arguments go to pytest. Uses .venv when it exists.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x .venv/bin/python ]; then PATH="$PWD/.venv/bin:$PATH"; fi
ruff format --check protocol server clients tests benchmarks
ruff check protocol server clients tests benchmarks
mypy
python -m pytest "$@"
