#!/usr/bin/env bash
# The emulated RP2040 the tests run the board's UF2 on: Node.js (Debian's nodejs, with npm)
# and rp2040js at the version firmware_bridge/boards/rp2040/package-lock.json pins, installed
# beside chip.mjs with `npm ci` (from the npm registry). Installs what is missing, so
# `make test` passes on a fresh machine; does nothing when both are there.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
chip="$here/firmware_bridge/boards/rp2040"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "installing nodejs npm for the emulated RP2040 (apt-get)..." >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null
fi
wanted="$(sed -n 's/.*"rp2040js": "\(.*\)".*/\1/p' "$chip/package.json")"
have="$(sed -n 's/.*"version": "\(.*\)".*/\1/p' "$chip/node_modules/rp2040js/package.json" 2>/dev/null || true)"
if [ "$have" != "$wanted" ]; then
    echo "installing rp2040js $wanted for the emulated RP2040 (npm ci)..." >&2
    (cd "$chip" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
