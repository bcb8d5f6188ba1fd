"""The club view's memory against a hostile publisher: a 10 MB retained state, then thousands of
fake boards in a few seconds, then the boards cleared. Prints the club view's RSS after each
step and whether it still answers. Real Mosquitto and a real ``board-referee club``.

Run: ``python tools/bench_club_hostile.py [--boards N]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.mosquitto import Mosquitto, free_port

PREFIX = "board-referee/v1"


def state(name: str, notice: str = "") -> dict[str, object]:
    cells = [{"name": f"c{i}", "x": i % 9, "y": i // 9, "shape": "square", "zone": None,
              "region": None, "blocked": False} for i in range(81)]  # fmt: skip
    return {"schema": 1, "at": time.time(), "game_number": 1, "status": "White to move",
            "notice": notice,
            "game": {"id": "three-dragons", "title": "Three Dragons", "options": {},
                     "players": ["White", "Black"], "profile": "three-dragons"},
            "board": {"key": f"fake-{name}", "cells": cells, "links": []},
            "pieces": [], "signals": {}, "moves": [],
            "connection": {"state": "connected"}}  # fmt: skip


def rss(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=2000, help="fake boards to publish")
    parser.add_argument("--rounds", type=int, default=3, help="floods of fake boards, each cleared")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="board-referee-hostile-") as tmp:
        broker = Mosquitto(Path(tmp) / "broker")
        port = free_port()
        club = subprocess.Popen(
            [sys.executable, "-m", "firmware_bridge.cli", "club", "--mqtt", broker.url,
             "--listen", f"127.0.0.1:{port}", "--results", f"{tmp}/results.jsonl"],
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        client = paho.Client(CallbackAPIVersion.VERSION2)
        client.connect("127.0.0.1", broker.port)
        client.loop_start()
        url = f"http://127.0.0.1:{port}/api/club"

        def boards() -> int:
            with urllib.request.urlopen(url, timeout=10) as answer:
                return len(json.loads(answer.read())["boards"])

        def send(name: str, body: bytes | str) -> None:
            client.publish(f"{PREFIX}/{name}/state", body, qos=1, retain=True).wait_for_publish(30)

        try:
            time.sleep(2)
            for name in ("table1", "table2"):
                send(name, json.dumps(state(name)))
            time.sleep(1)
            print(f"two boards:                  RSS {rss(club.pid):6.1f} MB, "
                  f"{boards()} boards shown")  # fmt: skip
            send("huge", json.dumps(state("huge", "x" * 10_000_000)))
            time.sleep(2)
            print(f"a 10 MB retained state:      RSS {rss(club.pid):6.1f} MB, "
                  f"{boards()} boards shown")  # fmt: skip
            for round_ in range(1, args.rounds + 1):
                started = time.monotonic()
                for n in range(args.boards):
                    client.publish(f"{PREFIX}/fake{n}/state", json.dumps(state(f"fake{n}")),
                                   qos=0, retain=True)  # fmt: skip
                client.publish(f"{PREFIX}/last/state", "", qos=1).wait_for_publish(30)
                took = time.monotonic() - started
                time.sleep(3)
                print(f"round {round_}: {args.boards} fake boards in {took:.1f} s: RSS "
                      f"{rss(club.pid):6.1f} MB, {boards()} boards shown")  # fmt: skip
                for n in range(args.boards):
                    client.publish(f"{PREFIX}/fake{n}/state", "", qos=0, retain=True)
                send("huge", "")
                client.publish(f"{PREFIX}/last/state", "", qos=1).wait_for_publish(30)
                time.sleep(3)
                print(f"round {round_}: boards cleared: RSS {rss(club.pid):6.1f} MB, "
                      f"{boards()} boards shown")  # fmt: skip
        finally:
            client.loop_stop()
            club.terminate()
            _, errors = club.communicate(timeout=10)
            broker.stop()
        warnings = [line for line in errors.splitlines() if "<4>" in line or "Traceback" in line]
        print(f"club view's warnings: {len(warnings)}")
        for line in warnings:
            print("   ", line[:160])
    return 0


if __name__ == "__main__":
    sys.exit(main())
