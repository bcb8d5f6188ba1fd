"""One UF2 file that installs everything on a Pico: MicroPython, the firmware, board.json.

A Pico held in BOOTSEL mode shows a USB drive; a UF2 file dropped on it is written to flash, a
512-byte block at a time, each block naming its address (the format: github.com/microsoft/uf2).
MicroPython's own UF2 fills the start of flash; its filesystem is a littlefs image at the end
(on a 2 MB Pico: 0xA0000, 1408 KB, 4 KB blocks, written with 256-byte pages). So the project's
UF2 is MicroPython's blocks followed by blocks holding a littlefs image that already contains
the compiled firmware and board.json: the Pico boots straight into the referee's board. The
emulated RP2040 (``rp2040.py``) runs the very same file.
"""

from __future__ import annotations

import json
import re
import struct
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import ConfigError
from firmware_bridge.boards.firmware_files import firmware_dir, install

MAGIC_START0 = 0x0A324655  # "UF2\n"
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
FLAG_FAMILY = 0x00002000
FAMILY_RP2040 = 0xE48BFF56
FLAG_NOT_MAIN_FLASH = 0x00000001
BLOCK = 512
PAYLOAD = 256
FLASH_START = 0x10000000
# MicroPython's filesystem on a 2 MB Pico (ports/rp2: MICROPY_HW_FLASH_STORAGE_BYTES 1408 KB at
# the end of flash; os.VfsLfs2(bdev, progsize=256) in its _boot.py).
FS_OFFSET = 0xA0000
FS_BLOCK_SIZE = 4096
FS_BLOCK_COUNT = 352
FS_PROG_SIZE = 256
FS_READ_SIZE = 32
FS_LOOKAHEAD = 32
# mpy-cross writes .mpy version 6.3, which MicroPython loads from v1.23 on.
OLDEST = (1, 23)


class Uf2Error(ConfigError):
    """A UF2 file that cannot be used (the message says why)."""


@dataclass(frozen=True)
class Block:
    address: int
    data: bytes
    family: int


def read_blocks(data: bytes, source: str = "the UF2 file") -> list[Block]:
    """The blocks of a UF2 file, checked."""
    if not data or len(data) % BLOCK:
        raise Uf2Error(f"{source} is not a UF2 file ({len(data)} bytes, not 512-byte blocks)")
    blocks = []
    for offset in range(0, len(data), BLOCK):
        raw = data[offset : offset + BLOCK]
        start0, start1, flags, address, size, _number, _total, family = struct.unpack_from(
            "<8I", raw
        )
        (end,) = struct.unpack_from("<I", raw, BLOCK - 4)
        if (start0, start1, end) != (MAGIC_START0, MAGIC_START1, MAGIC_END):
            raise Uf2Error(f"{source}: block {offset // BLOCK} is not a UF2 block")
        if flags & FLAG_NOT_MAIN_FLASH:
            continue
        if size > 476:
            raise Uf2Error(f"{source}: block {offset // BLOCK} claims {size} bytes")
        blocks.append(Block(address, bytes(raw[32 : 32 + size]), family))
    return blocks


def write_blocks(blocks: Iterable[Block]) -> bytes:
    """``blocks`` as one UF2 file, numbered in order."""
    items = list(blocks)
    out = bytearray()
    for number, block in enumerate(items):
        header = struct.pack(
            "<8I",
            MAGIC_START0,
            MAGIC_START1,
            FLAG_FAMILY,
            block.address,
            len(block.data),
            number,
            len(items),
            block.family,
        )
        body = block.data.ljust(476, b"\0")
        out += header + body + struct.pack("<I", MAGIC_END)
    return bytes(out)


def micropython_blocks(data: bytes, source: str) -> list[Block]:
    """MicroPython's blocks, checked to be for an RP2040 and to end before the filesystem."""
    blocks = read_blocks(data, source)
    families = {block.family for block in blocks}
    if families != {FAMILY_RP2040}:
        raise Uf2Error(
            f"{source} is not MicroPython for the RP2040 (a Pico or Pico W): family "
            + ", ".join(f"0x{family:08x}" for family in sorted(families))
        )
    end = max(block.address + len(block.data) for block in blocks)
    if end > FLASH_START + FS_OFFSET:
        raise Uf2Error(
            f"{source} reaches 0x{end:08x}, into the filesystem at 0x{FLASH_START + FS_OFFSET:08x}"
        )
    if not any(block.address == FLASH_START for block in blocks):
        raise Uf2Error(f"{source} does not start at the beginning of flash: not MicroPython")
    version = micropython_version(blocks)
    if version is None:
        raise Uf2Error(f"{source} does not say it is MicroPython")
    if version < OLDEST:
        raise Uf2Error(
            f"{source} is MicroPython v{version[0]}.{version[1]}: the firmware's compiled "
            f"modules need v{OLDEST[0]}.{OLDEST[1]} or newer (.mpy version 6.3)"
        )
    return blocks


def micropython_version(blocks: list[Block]) -> tuple[int, int] | None:
    """The version a MicroPython image names in its banner ("MicroPython v1.23.0 on ...")."""
    image = b"".join(block.data for block in sorted(blocks, key=lambda b: b.address))
    found = re.search(rb"MicroPython v(\d+)\.(\d+)", image)
    return (int(found.group(1)), int(found.group(2))) if found else None


# USB 2.0 gives a bus-powered device at most 500 mA, asked for in its configuration
# descriptor's bMaxPower (units of 2 mA). MicroPython asks for 250 mA (its
# USBD_MAX_POWER_MA); a board powered from USB asks for what its profile budgets, one with
# its own supply for the Pico's share only.
USB_MAX_MA = 500
USB_OWN_SUPPLY_MA = 100
# A configuration descriptor (USB 2.0, 9.6.3): bLength 9, CONFIGURATION, wTotalLength,
# bNumInterfaces, bConfigurationValue 1, iConfiguration 0, bmAttributes (bit 7 set), bMaxPower.
CONFIG_DESCRIPTOR = re.compile(rb"\x09\x02(..)([\x01-\x08])\x01\x00([\x80-\xff])", re.S)


def usb_milliamps(config: dict[str, Any]) -> int | None:
    """What the board asks of the USB host (None: no power figures in ``config``)."""
    power = config.get("power")
    if not isinstance(power, dict) or "supply_ma" not in power:
        return None
    supply = int(power["supply_ma"])
    if supply <= USB_MAX_MA:
        return supply
    return max(USB_OWN_SUPPLY_MA, int(power.get("pico_ma", 0)))


def declared_milliamps(blocks: list[Block]) -> int | None:
    """The current MicroPython's image asks of the USB host (bMaxPower), if it has one."""
    found = _config_descriptor(blocks)
    return None if found is None else found[1] * 2


def _config_descriptor(blocks: list[Block]) -> tuple[int, int] | None:
    """(address of bMaxPower, its value) of the one configuration descriptor in the image."""
    ordered = sorted(blocks, key=lambda b: b.address)
    start = ordered[0].address
    image = bytearray()
    for block in ordered:
        image[block.address - start : block.address - start + len(block.data)] = block.data
    hits = [m for m in CONFIG_DESCRIPTOR.finditer(bytes(image))
            if int.from_bytes(m.group(1), "little") >= 9 + 9]  # fmt: skip
    if len(hits) != 1:
        return None
    at = hits[0].start() + 8
    return start + at, image[at]


def declare_usb_current(blocks: list[Block], milliamps: int, source: str) -> list[Block]:
    """MicroPython's blocks asking the USB host for ``milliamps`` (bMaxPower)."""
    found = _config_descriptor(blocks)
    if found is None:
        raise Uf2Error(f"{source}: its USB configuration descriptor was not found, so the "
                       "current the board asks of the USB port cannot be set")  # fmt: skip
    address, _ = found
    value = min(USB_MAX_MA, milliamps + 1) // 2
    out = []
    for block in blocks:
        if block.address <= address < block.address + len(block.data):
            data = bytearray(block.data)
            data[address - block.address] = value
            out.append(Block(block.address, bytes(data), block.family))
        else:
            out.append(block)
    return out


PICO_W = b"Raspberry Pi Pico W with RP2040"


def is_pico_w(blocks: list[Block]) -> bool:
    """Is this MicroPython's build for the Pico W (its banner names the board)?"""
    return any(PICO_W in block.data for block in blocks)


def filesystem_image(files: dict[str, bytes]) -> bytes:
    """A littlefs image of MicroPython's filesystem holding ``files``."""
    try:
        from littlefs import LittleFS
    except ImportError:
        raise Uf2Error("littlefs-python is not installed: pip install littlefs-python") from None
    fs = LittleFS(
        block_size=FS_BLOCK_SIZE,
        block_count=FS_BLOCK_COUNT,
        prog_size=FS_PROG_SIZE,
        read_size=FS_READ_SIZE,
        lookahead_size=FS_LOOKAHEAD,
    )
    for name, content in files.items():
        with fs.open(name, "wb") as handle:
            handle.write(content)
    return bytes(fs.context.buffer)


def image_blocks(image: bytes, offset: int) -> list[Block]:
    """``image`` at flash ``offset`` as blocks, erased pages left out (a UF2 writes only what
    it names, and the rest of the filesystem is erased flash to littlefs)."""
    return [
        Block(FLASH_START + offset + at, image[at : at + PAYLOAD], FAMILY_RP2040)
        for at in range(0, len(image), PAYLOAD)
        if image[at : at + PAYLOAD] != b"\xff" * PAYLOAD  # erased flash needs no block
    ]


def pinned_micropython() -> Path:
    """The MicroPython UF2 the project keeps (firmware/micropython/, BUILD.json names it)."""
    folder = firmware_dir() / "micropython"
    try:
        record = json.loads((folder / "BUILD.json").read_text(encoding="utf-8"))
        return folder / str(record["uf2"])
    except (OSError, ValueError, KeyError) as exc:
        raise Uf2Error(f"the pinned MicroPython is not installed ({folder}: {exc})") from None


def flash_files(config: dict[str, Any], extra: dict[str, bytes] | None = None) -> dict[str, bytes]:
    """The compiled firmware and board.json, as ``firmware flash`` puts them on a Pico."""
    with tempfile.TemporaryDirectory(prefix="board-referee-uf2-") as folder:
        path = Path(folder)
        names = install(path, config, compiled=True)
        files = {name: (path / name).read_bytes() for name in names}
    files.update(extra or {})
    return files


def build_uf2(
    config: dict[str, Any],
    micropython: Path | None = None,
    extra: dict[str, bytes] | None = None,
) -> bytes:
    """MicroPython (the pinned build, or ``micropython``) plus a filesystem holding the
    firmware and ``config`` as board.json (and ``extra`` files, as a calibration)."""
    source = micropython or pinned_micropython()
    try:
        data = source.read_bytes()
    except OSError as exc:
        raise Uf2Error(f"cannot read {source}: {exc.strerror}") from None
    blocks = micropython_blocks(data, str(source))
    want_w = config.get("pico") == "pico-w"
    if want_w != is_pico_w(blocks):
        raise Uf2Error(
            f"{source} is MicroPython for the {'Pico W' if is_pico_w(blocks) else 'Pico'}, and "
            f"the profile's board is a {'Pico W' if want_w else 'Pico'} (pico: board:): on a "
            "Pico W, GP25 is the radio's select line, so the plain Pico's build never lights "
            "its LED. For a Pico W, download MicroPython's RPI_PICO_W build (v1.23 or newer, "
            "micropython.org/download/RPI_PICO_W) and give it with --micropython FILE"
            if want_w else
            f"{source} is MicroPython for the Pico W: set the profile's pico: board: pico-w"
        )  # fmt: skip
    milliamps = usb_milliamps(config)
    if milliamps is not None:
        blocks = declare_usb_current(blocks, milliamps, str(source))
    image = filesystem_image(flash_files(config, extra))
    return write_blocks([*blocks, *image_blocks(image, FS_OFFSET)])
