#!/usr/bin/env bash
# Installs everything the test suite needs: the package with its test extras in .venv,
# Debian's Chromium for the browser tests, redis-server for the Redis tests, and nginx for
# the compose topology run natively (tests/deploy).
set -euo pipefail
cd "$(dirname "$0")/.."
apt_install() {
    if command -v apt-get >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ]; then apt-get install -y -q "$@"; else sudo apt-get install -y -q "$@"; fi
    else
        echo "please install: $*" >&2
        return 1
    fi
}
command -v chromium >/dev/null 2>&1 || apt_install chromium || { apt-get update -q && apt_install chromium; }
command -v redis-server >/dev/null 2>&1 || apt_install redis-server || { apt-get update -q && apt_install redis-server; }
{ command -v nginx || [ -x /usr/sbin/nginx ]; } >/dev/null 2>&1 || apt_install nginx-light || { apt-get update -q && apt_install nginx-light; }
python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
# The runtime dependencies at the versions the image installs (constraints.txt).
.venv/bin/pip install -q -e '.[test]' -c constraints.txt
