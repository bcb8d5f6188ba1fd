#!/usr/bin/env bash
# What make pi-check needs on this machine, from Debian's packages: debootstrap (the Pi's
# system), systemd-nspawn (to boot it), qemu-user-static and binfmt-support (to run arm64
# programs). Installs what is missing; does nothing when all are there.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
missing=()
command -v debootstrap >/dev/null || missing+=(debootstrap)
command -v systemd-nspawn >/dev/null || missing+=(systemd-container)
command -v nsenter >/dev/null || missing+=(util-linux)
[ -e /usr/bin/qemu-aarch64-static ] || missing+=(qemu-user-static)
command -v update-binfmts >/dev/null || missing+=(binfmt-support)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]} for make pi-check (apt-get)..." >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
