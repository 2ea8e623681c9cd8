#!/usr/bin/env python
"""Live latency: from a frame received by the server to every phone at the table updated.

Starts a real server process (``python -m companion.commands.serve``, waitress, fresh instance
folder, 127.0.0.1 only), makes one table, and runs ``--phones`` phones (threads) that follow
its change feed as the page does (long polling ``GET /api/tables/<id>/live/events``), while a
filming phone posts the frames of a rendered game (``vision.render.games``: engine self-play,
photos drawn by ``vision.render.scene`` with camera shake, hands over the table, lighting drift;
960x720 JPEGs as the page sends them) to ``POST /api/tables/<id>/live/frames``, each one when
the previous answer is back. Every frame goes through the real pipeline (``vision.pipeline
.detect``), the follower, the score sheet and the feed.

For every record a frame caused (a play, a flag, a score, the view turning steady or moving),
the latency is the time from the server receiving that frame (``received``, stamped by the
server) to the record reaching a phone (the phone's clock: the same machine); "every phone
updated" is the latest of the phones. Reports their median, p95 and max (ms), the part of it
from the record's publication (``at``: the frame read, followed and stored) to the last phone
(the fan-out), the filming
phone's round trip per frame and the frames per second, and the load average of the machine.

    python scripts/bench_live_latency.py                       # 4 phones, Tableaux, 60 frames
    python scripts/bench_live_latency.py --phones 8 --frames 120 --game draw100 --json

Loopback only: it never talks to another machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from load_test import call, free_port, multipart, percentile, start_server  # noqa: E402

from engine.catalog import GAMES, TABLEAUX  # noqa: E402


def rendered_frames(game: str, n: int, seed: int) -> list[bytes]:
    """The first ``n`` frames of a rendered ``game`` as 960x720 JPEGs (quality 80)."""
    import cv2
    import numpy as np

    from vision.render.games import frames, play_game

    script = play_game(game, random.Random(seed))
    out: list[bytes] = []
    for fr in frames(script, np.random.default_rng(seed), render=True, image_size=(960, 720)):
        if fr.kind != "frame" or fr.image is None:
            continue
        ok, buf = cv2.imencode(".jpg", fr.image, [int(cv2.IMWRITE_JPEG_QUALITY), 80])
        out.append(buf.tobytes())
        if len(out) >= n:
            break
    return out


class Phone(threading.Thread):
    """A phone following the feed: ``got[seq] = time.time()`` when a record arrived."""

    def __init__(self, base: str, table_id: int, stop: threading.Event):
        super().__init__(daemon=True)
        self.base, self.table_id, self.stop = base, table_id, stop
        self.got: dict[int, float] = {}
        self.records: dict[int, dict] = {}
        self.errors = 0

    def run(self) -> None:
        after = 0
        while not self.stop.is_set():
            try:
                status, data = call(
                    self.base, "GET", f"/api/tables/{self.table_id}/live/events?after={after}"
                )
            except OSError:
                self.errors += 1
                time.sleep(0.5)
                continue
            now = time.time()
            if status != 200:
                self.errors += 1
                time.sleep(0.5)
                continue
            for r in data["records"]:
                self.got.setdefault(r["seq"], now)
                self.records[r["seq"]] = r
            after = data["last"]
            if data.get("retry_ms"):
                time.sleep(data["retry_ms"] / 1000)


def live_games() -> list[str]:
    """The games a rendered stream is made of (``vision.render.games.GAME_KINDS``) but for a
    solitaire dealt on a set at random (Good Neighbors), which a table made with the default
    set would not match."""
    from vision.render.games import GAME_KINDS

    return [k for k in GAME_KINDS if not (GAMES[k].solitaire and len(GAMES[k].sets) > 1)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--phones", type=int, default=4, help="phones following the table")
    ap.add_argument("--frames", type=int, default=60, help="frames the filming phone sends")
    ap.add_argument("--game", default=TABLEAUX, choices=live_games())
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    jpegs = rendered_frames(args.game, args.frames, args.seed)
    render_s = time.perf_counter() - t0
    instance = tempfile.mkdtemp(prefix="live-latency-")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    load_before = os.getloadavg()
    proc = start_server(port, instance)
    try:
        g = GAMES[args.game]
        players = [] if g.solitaire else ["Ana", "Ben", "Cleo"][: g.max_players]
        status, table = call(
            base,
            "POST",
            "/api/tables",
            json.dumps({"game": args.game, "players": players}).encode(),
            {"Content-Type": "application/json"},
        )
        assert status == 201, table
        tid, code = table["id"], table["code"]
        stop = threading.Event()
        phones = [Phone(base, tid, stop) for _ in range(args.phones)]
        for p in phones:
            p.start()
        time.sleep(1.0)  # every phone is waiting on the feed
        round_trips, server_ms, failed = [], [], 0
        started = time.perf_counter()
        for k, data in enumerate(jpegs):
            body, ctype = multipart("frame", f"frame{k}.jpg", data)
            t = time.perf_counter()
            status, ans = call(
                base,
                "POST",
                f"/api/tables/{tid}/live/frames",
                body,
                {"Content-Type": ctype, "X-Table-Code": code},
            )
            round_trips.append((time.perf_counter() - t) * 1000)
            if status != 200:
                failed += 1
                continue
            server_ms.append(ans["elapsed_ms"])
        elapsed = time.perf_counter() - started
        time.sleep(2.0)  # the last records reach the phones
        stop.set()
        call(
            base,
            "POST",
            f"/api/tables/{tid}/live/reset",
            b"{}",
            {"X-Table-Code": code, "Content-Type": "application/json"},
        )  # wakes the waiting phones
        for p in phones:
            p.join(30)
    finally:
        proc.terminate()
        proc.wait(10)
    load_after = os.getloadavg()
    framed = sorted({s for p in phones for s, r in p.records.items() if "received" in r})
    every, each, fanout = [], [], []
    missing = 0
    for s in framed:
        times = [p.got.get(s) for p in phones]
        if any(t is None for t in times):
            missing += 1
            continue
        rec = next(p.records[s] for p in phones if s in p.records)
        lat = [(t - rec["received"]) * 1000 for t in times if t is not None]
        every.append(max(lat))
        each += lat
        fanout.append((max(t for t in times if t is not None) - rec["at"]) * 1000)
    kinds: dict[str, int] = {}
    for s in framed:
        rec = next(p.records[s] for p in phones if s in p.records)
        kinds[rec["type"]] = kinds.get(rec["type"], 0) + 1
    out: dict[str, object] = {
        "game": args.game,
        "phones": args.phones,
        "frames": len(jpegs),
        "frames_failed": failed,
        "frames_per_second": round(len(jpegs) / elapsed, 2),
        "records": len(framed),
        "record_kinds": kinds,
        "records_missing_on_a_phone": missing,
        "phone_errors": sum(p.errors for p in phones),
        "every_phone_updated_ms": _stats(every),
        "each_phone_ms": _stats(each),
        "published_to_every_phone_ms": _stats(fanout),
        "frame_round_trip_ms": _stats(round_trips),
        "frame_server_ms": _stats(server_ms),
        "cpu_count": os.cpu_count(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
        "render_s": round(render_s, 1),
    }
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        for name, value in out.items():
            print(f"{name}: {value}")
    return 0 if every and not failed and not missing else 1


def _stats(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "median": round(statistics.median(values), 1),
        "p95": round(percentile(values, 95), 1),
        "max": round(max(values), 1),
    }


if __name__ == "__main__":
    raise SystemExit(main())
