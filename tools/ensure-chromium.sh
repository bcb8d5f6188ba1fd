#!/usr/bin/env bash
# Real programs the tests start: Debian's chromium (Playwright drives it; it never downloads a
# browser), systemd-analyze (the unit files are verified with it) and Mosquitto (the MQTT
# broker the club tests and the club benchmark run), and a C compiler (the engine's compiled
# build is tested beside the pure Python one) with the Python headers (python3-dev), and
# ngspice (the boards' sensor lines are simulated in it, tests/test_circuit.py), and iproute2
# (the tests' "other machine" is a network namespace of their own, tests/netns.py), and KiCad 6
# with its footprints (firmware pcb builds and checks the board's PCB in it; without its
# recommends, which would bring gigabytes of 3D models). Installs
# what is missing with apt-get, so `make test` passes on a fresh machine.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium fonts-dejavu-core)
command -v systemd-analyze >/dev/null || missing+=(systemd)
[ -x /usr/sbin/mosquitto ] || command -v mosquitto >/dev/null || missing+=(mosquitto)
command -v cc >/dev/null || missing+=(gcc)
command -v ngspice >/dev/null || missing+=(ngspice)
command -v ip >/dev/null || [ -x /usr/sbin/ip ] || [ -x /sbin/ip ] || missing+=(iproute2)
"${PYTHON:-python3}" -c 'import os, sys, sysconfig
sys.exit(not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
    || missing+=(python3-dev)
kicad=()
/usr/bin/python3 -c 'import pcbnew' 2>/dev/null || kicad+=(kicad)
[ -d /usr/share/kicad/footprints/LED_SMD.pretty ] || kicad+=(kicad-footprints)
if [ ${#missing[@]} -eq 0 ] && [ ${#kicad[@]} -eq 0 ]; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
if [ ${#kicad[@]} -ne 0 ]; then
    echo "installing ${kicad[*]} for the tests (apt-get, no recommends)..." >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        "${kicad[@]}" >/dev/null
fi
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
echo "installing ${missing[*]} for the tests (apt-get)..." >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
