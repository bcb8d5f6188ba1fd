"""Build the pinned MicroPython for the Raspberry Pi Pico from source, and keep the UF2.

The board's firmware runs on exactly one MicroPython: v1.23.0 for RPI_PICO, built from its
sources with Debian's arm-none-eabi toolchain. A fresh clone cannot build it (the sources are
not in the project) and a club cannot build it at all, so the UF2 it makes is kept in
firmware/micropython/ with MicroPython's licence and the commit of every source it came from.
Run this only to remake it:

    python tools/build_micropython.py --micropython GIT --pico-sdk GIT --tinyusb GIT \
        --micropython-lib GIT --mbedtls GIT [--out firmware/micropython]

Each GIT is a git repository (a clone, or a bare mirror) holding the pinned commit below; the
sources are taken from it with ``git archive``, so nothing in it is changed. Needs
gcc-arm-none-eabi, libnewlib-arm-none-eabi, cmake, make and a host C compiler (apt-get).
Prints the UF2's SHA-256, which firmware/micropython/BUILD.json records.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERSION = "v1.23.0"
BOARD = "RPI_PICO"
UF2_NAME = f"{BOARD}-{VERSION}.uf2"
# The submodule commits MicroPython v1.23.0 pins (git ls-tree v1.23.0 lib/).
PINS = {
    "micropython": ("a61c446c0b34e82aeb54b9770250d267656f2b7f", ""),
    "pico-sdk": ("6a7db34ff63345a7badec79ebea3aaef1712f374", "lib/pico-sdk"),
    "tinyusb": ("1fdf29075d4e613eacfa881166015263797db0f6", "lib/tinyusb"),
    "micropython-lib": ("50ed36fbeb919753bcc26ce13a8cffd7691d06ef", "lib/micropython-lib"),
    "mbedtls": ("edb8fec9882084344a314368ac7fd957a187519c", "lib/mbedtls"),
}
LICENCES = {
    "micropython": "LICENSE",
    "pico-sdk": "lib/pico-sdk/LICENSE.TXT",
    "tinyusb": "lib/tinyusb/LICENSE",
    "mbedtls": "lib/mbedtls/LICENSE",
}
TOOLS = ("arm-none-eabi-gcc", "cmake", "make", "cc")
MIN_ELF = 200_000  # a link that silently dropped the SDK gives a 4 KB ELF


class BuildError(Exception):
    pass


def check_tools() -> dict[str, str]:
    """The toolchain's versions, or why it cannot build."""
    versions = {}
    for tool in TOOLS:
        if shutil.which(tool) is None:
            raise BuildError(
                f"{tool} is not installed: apt-get install gcc-arm-none-eabi "
                "libnewlib-arm-none-eabi cmake build-essential"
            )
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, check=False)
        versions[tool] = (out.stdout or out.stderr).splitlines()[0].strip()
    newlib = Path("/usr/lib/arm-none-eabi/include/newlib.h")
    if not newlib.is_file():
        raise BuildError(
            "newlib for arm-none-eabi is missing: apt-get install libnewlib-arm-none-eabi"
        )
    return versions


def extract(repo: Path, commit: str, into: Path) -> None:
    """The tree of ``commit`` from ``repo`` into ``into``. An archive cut short by a blob the
    repository lacks (mbedtls's mirror stops at a test file) keeps what came before it."""
    proc = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", commit],
        capture_output=True,
        check=False,
    )
    if not proc.stdout:
        raise BuildError(f"{repo}: no commit {commit}: {proc.stderr.decode().strip()}")
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(proc.stdout), mode="r|") as archive:
        try:
            for member in archive:
                archive.extract(member, into, filter="data")
        except (tarfile.ReadError, EOFError) as exc:
            print(f"  {repo}: archive cut short ({exc}); keeping what arrived", file=sys.stderr)


def build(sources: dict[str, Path], out: Path, work: Path) -> dict[str, object]:
    versions = check_tools()
    tree = work / "micropython"
    if tree.exists():
        shutil.rmtree(tree)  # a first configure that failed must not be reused
    for name, (commit, where) in PINS.items():
        print(f"extracting {name} {commit[:10]}", flush=True)
        extract(sources[name], commit, tree / where if where else tree)
    if not (tree / "lib/mbedtls/library/ssl_tls.c").is_file():
        raise BuildError("mbedtls's library/ did not arrive: the build needs it")
    jobs = str(os.cpu_count() or 2)
    env = {**os.environ, "LC_ALL": "C"}
    print("building mpy-cross", flush=True)
    subprocess.run(["make", "-C", str(tree / "mpy-cross"), "-j", jobs], check=True, env=env,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    print(f"building MicroPython {VERSION} for {BOARD}", flush=True)
    port = tree / "ports/rp2"
    subprocess.run(["make", "-C", str(port), f"BOARD={BOARD}", "-j", jobs], check=True, env=env,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    built = port / f"build-{BOARD}"
    elf = built / "firmware.elf"
    if not elf.is_file() or elf.stat().st_size < MIN_ELF:
        raise BuildError(f"{elf} is missing or too small: the link dropped the SDK")
    uf2 = (built / "firmware.uf2").read_bytes()
    out.mkdir(parents=True, exist_ok=True)
    (out / UF2_NAME).write_bytes(uf2)
    for name, licence in LICENCES.items():  # the UF2 holds code under each of these
        shutil.copyfile(tree / licence, out / f"LICENSE-{name}")
    digest = hashlib.sha256(uf2).hexdigest()
    header = (tree / "py/persistentcode.h").read_text(encoding="utf-8")
    mpy = ".".join(
        re.search(rf"#define MPY_{name} (\d+)", header).group(1)  # type: ignore[union-attr]
        for name in ("VERSION", "SUB_VERSION")
    )
    record: dict[str, object] = {
        "uf2": UF2_NAME,
        "sha256": digest,
        "micropython": VERSION,
        "board": BOARD,
        "mpy": mpy,  # the .mpy version it loads: what mpy-cross must write
        "commits": {name: commit for name, (commit, _) in PINS.items()},
        "toolchain": versions,
    }
    (out / "BUILD.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for name in PINS:
        parser.add_argument(f"--{name}", type=Path, required=True,
                            help=f"git repository holding {name} {PINS[name][0][:10]}")  # fmt: skip
    parser.add_argument("--out", type=Path, default=ROOT / "firmware/micropython")
    parser.add_argument("--work", type=Path, help="build folder (default: a temporary one)")
    args = parser.parse_args(argv)
    sources = {name: getattr(args, name.replace("-", "_")) for name in PINS}
    work = args.work or Path(tempfile.mkdtemp(prefix="micropython-build-"))
    try:
        record = build(sources, args.out, work)
    except BuildError as exc:
        print(f"build_micropython: {exc}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as exc:
        print(f"build_micropython: {' '.join(exc.cmd)} failed (exit {exc.returncode})",
              file=sys.stderr)  # fmt: skip
        return 1
    print(f"{args.out / UF2_NAME}")
    print(f"sha256 {record['sha256']}")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
