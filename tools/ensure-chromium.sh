#!/usr/bin/env bash
# The browser tests need Debian's chromium (Playwright drives it; it never downloads a browser).
# Installs it with apt-get when it is missing, so `make test` passes on a fresh machine.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
echo "installing Debian's chromium for the browser tests (apt-get)..." >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
