"""Load benchmark of the club view: N simulated boards against one Mosquitto and one club view.

1. Records real payloads: ``board-referee demo --mqtt`` plays the scripted games through the
   emulator, pty and daemon, publishing as a real board does; every state and event message
   is kept with its topic.
2. Starts a real Mosquitto and a real ``board-referee club`` (its own process), with one page's
   worth of stream open on it (the club's Server-Sent Events, read as a browser would).
3. N boards, each its own MQTT connection with a last will, replay those payloads at human
   pace: one move every 2-6 s per board, and now and then a burst of three moves at once.
   Each payload carries the time it was sent (``at``), so the club view measures delivery.

Prints delivery delay median/p99/max (publisher -> broker -> club view), messages per second,
and the club view's CPU and RSS.

    python tools/bench_club.py --boards 200 --seconds 60
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.mosquitto import Mosquitto, free_port  # noqa: E402

PREFIX = "board-referee/v1"
AT = "-4242.25"  # stands for the send time in a recorded payload


def record(broker: Mosquitto, games: list[str]) -> list[list[tuple[str, str]]]:
    """Real payloads of real boards, cut into moves: [(topic kind, payload template)] each."""
    messages: list[tuple[str, dict[str, Any]]] = []
    client = paho.Client(CallbackAPIVersion.VERSION2)
    client.on_message = lambda c, u, m: messages.append((m.topic, json.loads(m.payload)))
    client.connect("127.0.0.1", broker.port)
    client.subscribe(f"{PREFIX}/#", qos=1)
    client.loop_start()
    command = [sys.executable, "-m", "firmware_bridge.cli", "demo", "--pace", "0.02",
               "--mqtt", broker.url]  # fmt: skip
    for game in games:
        command += ["--game", game]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    client.loop_stop()
    for topic, _ in messages:  # forget the demo boards' retained messages
        if topic.endswith(("/state", "/status")):
            client.publish(topic, b"", retain=True)
    client.disconnect()
    moves: list[list[tuple[str, str]]] = [[]]
    for topic, body in messages:
        kind = topic.rsplit("/", 1)[1]
        if kind not in ("state", "events") or body.get("schema") != 1:
            continue
        body["at"] = float(AT)
        moves[-1].append((kind, json.dumps(body, separators=(",", ":"))))
        if kind == "events" and body.get("type") == "move":
            moves.append([])
    return [m for m in moves if m]


class Board:
    def __init__(self, name: str, port: int, moves: list[list[tuple[str, str]]]) -> None:
        self.name = name
        self.moves = moves
        self.sent = 0
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-{name}")
        self.client.will_set(
            f"{PREFIX}/{name}/status",
            json.dumps({"schema": 1, "board": name, "state": "offline", "reason": "lost"}),
            retain=True,
        )
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        self.client.publish(f"{PREFIX}/{name}/status", json.dumps(
            {"schema": 1, "board": name, "state": "online", "reason": "connected",
             "at": time.time()}), qos=1, retain=True)  # fmt: skip

    def play(self, stop: threading.Event, rng: random.Random) -> None:
        index = rng.randrange(len(self.moves))
        burst = 0
        stop.wait(rng.uniform(0, 4))
        while not stop.is_set():
            for kind, template in self.moves[index % len(self.moves)]:
                text = template.replace(AT, repr(time.time())).replace(
                    '"board":"demo-', f'"board":"{self.name}","was":"demo-'
                )
                self.client.publish(f"{PREFIX}/{self.name}/{kind}", text, qos=1,
                                    retain=kind == "state")  # fmt: skip
                self.sent += 1
                stop.wait(rng.uniform(0.05, 0.3))  # lift, place, settle: a hand's pace
            index += 1
            if burst:
                burst -= 1
                continue
            if rng.random() < 0.1:
                burst = 2  # three moves back to back
                continue
            stop.wait(rng.uniform(2.0, 6.0))

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def proc_times(pid: int) -> tuple[float, int, int]:
    """(CPU seconds, RSS bytes, peak RSS bytes) of a process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    status = Path(f"/proc/{pid}/status").read_text()
    values = {line.split(":")[0]: line.split()[1] for line in status.splitlines()
              if line.startswith(("VmRSS:", "VmHWM:"))}  # fmt: skip
    return cpu, int(values.get("VmRSS", 0)) * 1024, int(values.get("VmHWM", 0)) * 1024


def read_stream(url: str, stop: threading.Event, counts: list[int]) -> None:
    """A page's stream, read as a browser would (bytes and events counted)."""
    with urllib.request.urlopen(url, timeout=30) as stream:
        for line in stream:
            counts[0] += len(line)
            if line.startswith(b"event:"):
                counts[1] += 1
            if stop.is_set():
                return


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--game", action="append", help="demo games whose payloads are replayed (default: all)"
    )
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="bench-club-") as tmp:
        broker = Mosquitto(Path(tmp) / "broker")
        try:
            return run(args, rng, broker, Path(tmp))
        finally:
            broker.stop()


def run(args: argparse.Namespace, rng: random.Random, broker: Mosquitto, tmp: Path) -> int:
    games = args.game or []
    print(f"recording real payloads: board-referee demo --mqtt {' '.join(games)}", flush=True)
    moves = record(broker, games)
    sizes = [len(t) for move in moves for k, t in move if k == "state"]
    print(
        f"  {len(moves)} moves, {sum(len(m) for m in moves)} messages, state payloads "
        f"{min(sizes)}-{max(sizes)} B (median {sorted(sizes)[len(sizes) // 2]} B)"
    )
    port = free_port()
    env = dict(os.environ, XDG_STATE_HOME=str(tmp))
    club = subprocess.Popen([sys.executable, "-m", "firmware_bridge.cli", "club", "--mqtt",
                             broker.url, "--listen", f"127.0.0.1:{port}"], env=env,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        return measure(args, rng=rng, broker=broker, moves=moves, club=club, port=port)
    finally:
        if club.poll() is None:
            club.terminate()
            club.wait(10)


def measure(
    args: argparse.Namespace,
    *,
    rng: random.Random,
    broker: Mosquitto,
    moves: list[list[tuple[str, str]]],
    club: subprocess.Popen[str],
    port: int,
) -> int:
    assert club.stderr is not None
    for line in club.stderr:
        if "connected to" in line:
            break
    threading.Thread(target=lambda: [None for _ in club.stderr or []], daemon=True).start()
    url = f"http://127.0.0.1:{port}"
    stop = threading.Event()
    counts = [0, 0]
    threading.Thread(target=read_stream, args=(f"{url}/api/events", stop, counts),
                     daemon=True).start()  # fmt: skip
    boards = [Board(f"table{n + 1}", broker.port, moves) for n in range(args.boards)]
    time.sleep(1.0)
    cpu0, _, _ = proc_times(club.pid)
    with urllib.request.urlopen(f"{url}/api/stats") as answer:
        before = json.loads(answer.read())
    started = time.monotonic()
    threads = [threading.Thread(target=b.play, args=(stop, random.Random(rng.random())),
                                daemon=True) for b in boards]  # fmt: skip
    for thread in threads:
        thread.start()
    samples = []
    while time.monotonic() - started < args.seconds:
        time.sleep(1.0)
        samples.append(proc_times(club.pid)[1])
    stop.set()
    elapsed = time.monotonic() - started
    cpu1, rss, peak = proc_times(club.pid)
    time.sleep(0.5)
    with urllib.request.urlopen(f"{url}/api/stats") as answer:
        stats = json.loads(answer.read())
    sent = sum(b.sent for b in boards)
    for board in boards:
        board.close()
    print(f"{args.boards} boards for {elapsed:.0f} s on {os.cpu_count()} cores")
    print(
        f"  published   {sent} messages, {sent / elapsed:.1f}/s "
        f"({sum(1 for m in moves for _ in m) / len(moves):.1f} per move)"
    )
    received = stats["received"] - before["received"]
    print(
        f"  club view   received {received}, {received / elapsed:.1f}/s; page stream "
        f"{counts[1]} updates, {counts[0] / elapsed / 1024:.0f} KiB/s"
    )
    delay = stats["delay_ms"]
    print(
        f"  delivery    median {delay['median']} ms, p99 {delay['p99']} ms, "
        f"max {delay['max']} ms ({stats['delays']} live messages)"
    )
    print(
        f"  club view   CPU {100 * (cpu1 - cpu0) / elapsed:.1f}% of one core, RSS "
        f"{rss / 2**20:.1f} MB (peak {peak / 2**20:.1f} MB)"
    )
    ok = delay["p99"] is not None and delay["p99"] < 250
    print(f"  target p99 < 250 ms: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
