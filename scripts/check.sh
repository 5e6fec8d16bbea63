#!/usr/bin/env bash
# Every check in one command: format, lint, strict types, then the whole test suite, the
# Redis Cluster, Sentinel and deployment tests included (KC_TOPOLOGY_TESTS=0 leaves them out),
# in KC_TEST_WORKERS (3) processes: most tests wait on sockets, so three share two cores well.
# Extra arguments go to pytest. Uses .venv when it exists. When no REDIS_URL is given and
# nothing listens on 127.0.0.1:6379, a redis-server is started for the run and stopped after.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x .venv/bin/python ]; then PATH="$PWD/.venv/bin:$PATH"; fi
redis_up() { (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; }
if [ -z "${REDIS_URL:-}" ] && ! redis_up; then
    redis-server --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null &
    redis_pid=$!
    trap 'kill "$redis_pid" 2>/dev/null || true' EXIT
    for _ in $(seq 50); do redis_up && break; sleep 0.1; done
fi
ruff format --check kings_corner protocol server clients tests benchmarks
ruff check kings_corner protocol server clients tests benchmarks
mypy
export KC_TOPOLOGY_TESTS="${KC_TOPOLOGY_TESTS:-1}"
python -m pytest -n "${KC_TEST_WORKERS:-3}" --dist worksteal "$@"
