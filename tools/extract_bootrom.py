"""Keep the RP2040's boot ROM (revision B1) as a binary for the emulated chip.

The RP2040 starts from its mask ROM, which MicroPython calls into (flash access, fast floats,
memcpy). Raspberry Pi publishes its source (raspberrypi/pico-bootrom, BSD-3-Clause); rp2040js's
repository carries the B1 image as a TypeScript array (demo/bootrom.ts). This reads that array
from a git repository of rp2040js and writes firmware_bridge/boards/rp2040/bootrom-b1.bin, the
16 KB the emulated chip loads. Run only to remake it:

    python tools/extract_bootrom.py RP2040JS_GIT [COMMIT]
"""

from __future__ import annotations

import hashlib
import re
import struct
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "firmware_bridge/boards/rp2040/bootrom-b1.bin"
SIZE = 16 * 1024


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    repo, commit = argv[0], argv[1] if len(argv) > 1 else "HEAD"
    source = subprocess.run(["git", "-C", repo, "show", f"{commit}:demo/bootrom.ts"],
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    body = source[source.index("Uint32Array([") :]
    words = [int(word, 16) for word in re.findall(r"0x[0-9a-fA-F]{1,8}", body)]
    data = struct.pack(f"<{len(words)}I", *words)
    if len(data) != SIZE:
        print(f"extract_bootrom: {len(data)} bytes, not {SIZE}", file=sys.stderr)
        return 1
    OUT.write_bytes(data)
    print(f"{OUT} sha256 {hashlib.sha256(data).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
