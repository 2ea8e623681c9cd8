#!/usr/bin/env python
"""Load test of the companion: N phones (threads) post photos to T tables at once.

Starts a real server process (``python -m companion.commands.serve``) on 127.0.0.1 with a
fresh instance folder, creates T draw-to-100 tables, then each phone loops for ``--seconds``:
post a sample photo to its table (phone i -> table i mod T), read the answer (tiles, moves,
hint), and after every 3rd photo record a 1-point hand for its table's first player.
Afterwards it checks that every request got an answer with the expected status and that each
table's running total equals the points the phones recorded.

``--think S`` makes each phone wait S seconds after an answer (people look at the hint before
the next photo); the default 0 posts back to back, the saturating worst case.

Every photo and score entry carries an ``Idempotency-Key``; a phone whose request fails
(connection refused or cut, or 503) sends it again with the same key until it is answered,
as the page does. ``--kill N`` kills the server with SIGKILL (``kill -9``) N times during the
run and restarts it on the same instance folder: afterwards every acknowledged entry and photo
must be stored exactly once, every photo row must have its file and no file may lack a row.

Reports: requests, errors, the time from upload to hints as the phone sees it (client round
trip, ms: median, p95, max) and as the server measured it (``elapsed_ms``), and photos/s.

    .venv/bin/python scripts/load_test.py                 # 8 phones, 4 tables, 60 s
    .venv/bin/python scripts/load_test.py --phones 2 --seconds 10 --json
    .venv/bin/python scripts/load_test.py --phones 4 --seconds 30 --kill 5

Loopback only (127.0.0.1): it never talks to another machine.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from engine.catalog import DRAW100  # noqa: E402 - the game of every table made

PHOTOS = sorted((ROOT / "sample_images").glob("*.jpg"))
HOST = "127.0.0.1"
HAND = (
    "4-6 1-2 0-0 3-5 2-6"  # sent with each photo so a readable line gets moves and the engine hint
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def call(
    base: str,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict | None = None,
    timeout: float = 60.0,
) -> tuple[int, dict]:
    """One HTTP request; returns (status, JSON body). Network failures raise OSError."""
    req = urllib.request.Request(base + path, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def take_seat(base: str, table: dict, index: int) -> dict:
    """Sit a phone in ``table``'s seat ``index``: the headers its requests carry from then on
    (the table code and the seat cookie the answer set; a hand needs the seat)."""
    pid = table["players"][index]["id"]
    req = urllib.request.Request(
        f"{base}/api/tables/{table['id']}/seats/{pid}",
        method="POST",
        headers={"X-Table-Code": table["code"]},
    )
    with urllib.request.urlopen(req, timeout=60) as r:
        cookie = r.headers["Set-Cookie"].split(";", 1)[0]
    return {"X-Table-Code": table["code"], "Cookie": cookie}


def multipart(field: str, filename: str, data: bytes, hand: str = "") -> tuple[bytes, str]:
    """A multipart body with the photo file and the ``hand`` text field."""
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="hand"\r\n\r\n{hand}\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'
            f"Content-Type: image/jpeg\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return body, f"multipart/form-data; boundary={boundary}"


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in [0, 100]) of a non-empty list."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(q / 100.0 * len(s) + 0.5)) - 1))
    return s[k]


def start_server(
    port: int, instance: str, https_port: int | None = None, wait_s: float = 60
) -> subprocess.Popen:
    """The server as its own process; its console (one line per request) goes to instance/server.log.

    Plain HTTP on ``port`` only, or with ``https_port`` HTTPS beside it (then it is ready when
    both ports answer). Raises ``SystemExit`` when the process exits or does not answer within
    ``wait_s`` seconds.
    """
    https = ["--no-https"] if https_port is None else ["--https-port", str(https_port)]
    log = open(Path(instance) / "server.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.commands.serve", "--host", HOST, "--port", str(port)]
        + ["--instance", instance, "--no-demo"]
        + https,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    log.close()
    base = f"http://{HOST}:{port}"
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("the server exited:\n" + (Path(instance) / "server.log").read_text())
        try:
            call(base, "GET", "/api/status", timeout=30)
            if https_port is not None:
                socket.create_connection((HOST, https_port), timeout=2).close()
            return proc
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise SystemExit(f"the server did not answer within {wait_s:.0f} s")


def call_until_answered(
    base: str,
    method: str,
    path: str,
    body: bytes | None,
    headers: dict,
    deadline: float,
    counts: dict,
    lock: threading.Lock,
) -> tuple[int, dict]:
    """``call`` repeated with the same request (and Idempotency-Key) while the server is down
    or answers 503; raises OSError when ``deadline`` (monotonic s) passes first."""
    while True:
        try:
            st, out = call(base, method, path, body, headers)
            if st != 503:
                return st, out
        except (OSError, ValueError, http.client.HTTPException) as exc:  # refused, reset, cut off
            if time.monotonic() > deadline:
                raise OSError(f"no answer before the deadline: {exc}") from None
        if time.monotonic() > deadline:
            raise OSError("the server answered 503 until the deadline")
        with lock:
            counts["retries"] += 1
        time.sleep(0.3)


def check_files(instance: str) -> list[str]:
    """Photo rows without their file, files without a row, and leftover ``.part`` files."""
    conn = sqlite3.connect(Path(instance) / "companion.sqlite")
    try:
        rows = {r[0] for r in conn.execute("SELECT filename FROM photos")}
    finally:
        conn.close()
    files = {p.name for p in (Path(instance) / "photos").iterdir()}
    problems = [f"row without file: {n}" for n in sorted(rows - files)]
    problems += [f"file without row: {n}" for n in sorted(files - rows)]
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--phones", type=int, default=8)
    ap.add_argument("--tables", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument(
        "--think",
        type=float,
        default=0.0,
        metavar="S",
        help="seconds each phone waits after an answer before its next photo "
        "(0: back to back, the saturating worst case)",
    )
    ap.add_argument(
        "--kill",
        type=int,
        default=0,
        metavar="N",
        help="kill -9 the server N times during the run and restart it (see above)",
    )
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = ap.parse_args(argv)
    if not PHOTOS:
        raise SystemExit("no sample photos in sample_images/")
    photos = [(p.name, p.read_bytes()) for p in PHOTOS]
    port = free_port()
    base = f"http://{HOST}:{port}"
    load_before = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory(prefix="companion-load-") as inst:
        proc = start_server(port, inst)
        server = {"proc": proc}
        try:
            status, parts = call(base, "GET", "/api/status")
            tables = []
            for i in range(args.tables):
                st, t = call(
                    base,
                    "POST",
                    "/api/tables",
                    json.dumps({"game": DRAW100, "players": [f"P{i}a", f"P{i}b"]}).encode(),
                    {"Content-Type": "application/json"},
                )
                assert st == 201, t
                tables.append(t)
            lock = threading.Lock()
            latencies: list[float] = []
            server_ms: list[float] = []
            errors: list[str] = []
            recorded = {t["id"]: 0 for t in tables}
            uploads = {t["id"]: set() for t in tables}
            counts = {
                "photos": 0,
                "rounds": 0,
                "tiles": 0,
                "with_moves": 0,
                "with_hint": 0,
                "retries": 0,
                "kills": 0,
            }
            stop_at = time.monotonic() + args.seconds
            deadline = stop_at + 120  # a request pending at the end is retried until answered

            # each phone takes a seat of its table (a hand needs one); phones beyond the seats watch
            seat_headers = [
                take_seat(base, tables[i % len(tables)], i // len(tables))
                if i // len(tables) < 2
                else {"X-Table-Code": tables[i % len(tables)]["code"]}
                for i in range(args.phones)
            ]

            def phone(i: int) -> None:
                t = tables[i % len(tables)]
                hdr = seat_headers[i]
                hand = HAND if "Cookie" in hdr else ""
                n = 0
                while time.monotonic() < stop_at:
                    name, data = photos[(i + n) % len(photos)]
                    body, ctype = multipart("photo", name, data, hand)
                    t0 = time.perf_counter()
                    try:
                        st, p = call_until_answered(
                            base,
                            "POST",
                            f"/api/tables/{t['id']}/photos",
                            body,
                            {**hdr, "Content-Type": ctype, "Idempotency-Key": uuid.uuid4().hex},
                            deadline,
                            counts,
                            lock,
                        )
                    except OSError as exc:
                        with lock:
                            errors.append(f"phone {i}: upload: {exc}")
                        return
                    dt_ms = (time.perf_counter() - t0) * 1000.0
                    with lock:
                        if st != 201:
                            errors.append(f"phone {i}: upload -> {st} {p}")
                        else:
                            latencies.append(dt_ms)
                            server_ms.append(float(p.get("elapsed_ms") or 0.0))
                            counts["photos"] += 1
                            uploads[t["id"]].add(p["id"])
                            counts["tiles"] += len(p.get("tiles", []))
                            counts["with_moves"] += bool(p.get("analysis", {}).get("legal_moves"))
                            counts["with_hint"] += bool(p.get("analysis", {}).get("hint"))
                    n += 1
                    if args.think > 0:
                        time.sleep(args.think)
                    if n % 3 == 0:
                        try:
                            st, r = call_until_answered(
                                base,
                                "POST",
                                f"/api/tables/{t['id']}/rounds",
                                json.dumps(
                                    {"scores": {str(t["players"][0]["id"]): 1}, "kind": "domino"}
                                ).encode(),
                                {
                                    **hdr,
                                    "Content-Type": "application/json",
                                    "Idempotency-Key": uuid.uuid4().hex,
                                },
                                deadline,
                                counts,
                                lock,
                            )
                        except OSError as exc:
                            with lock:
                                errors.append(f"phone {i}: round: {exc}")
                            return
                        with lock:
                            # 201 recorded; 409 once the table reached its target (100): both are answers
                            if st == 201:
                                recorded[t["id"]] += 1
                                counts["rounds"] += 1
                            elif st != 409:
                                errors.append(f"phone {i}: round -> {st} {r}")

            def killer() -> None:
                for _k in range(args.kill):
                    time.sleep(args.seconds / (args.kill + 1))
                    server["proc"].send_signal(signal.SIGKILL)
                    server["proc"].wait()
                    counts["kills"] += 1
                    server["proc"] = start_server(port, inst)

            started = time.monotonic()
            threads = [threading.Thread(target=phone, args=(i,)) for i in range(args.phones)]
            if args.kill:
                threads.append(threading.Thread(target=killer))
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            wall = time.monotonic() - started
            consistent = True
            for t in tables:
                st, got = call(base, "GET", f"/api/tables/{t['id']}")
                total = got["players"][0]["total"]
                if total != recorded[t["id"]] or got["photo_count"] != len(uploads[t["id"]]):
                    consistent = False
                    errors.append(
                        f"table {t['id']}: total {total} vs recorded {recorded[t['id']]}, "
                        f"photos {got['photo_count']} vs {len(uploads[t['id']])}"
                    )
                for pid in uploads[t["id"]]:
                    req = urllib.request.Request(f"{base}/api/tables/{t['id']}/photos/{pid}/image")
                    try:
                        with urllib.request.urlopen(req, timeout=30) as r:
                            r.read()
                    except (OSError, urllib.error.HTTPError) as exc:
                        consistent = False
                        errors.append(f"photo {pid}: image not served: {exc}")
            file_problems = check_files(inst)
            if file_problems:
                consistent = False
                errors.extend(file_problems[:10])
        finally:
            server["proc"].terminate()
            server["proc"].wait(10)
    summary = {
        "phones": args.phones,
        "tables": args.tables,
        "think_s": args.think,
        "seconds": round(wall, 1),
        "cpus": os.cpu_count(),
        "load_average_before": load_before,
        "photos": counts["photos"],
        "rounds": counts["rounds"],
        "errors": len(errors),
        "kills": counts["kills"],
        "retries": counts["retries"],
        "photos_per_s": round(counts["photos"] / wall, 2) if wall else 0.0,
        "tiles_per_photo": round(counts["tiles"] / max(1, counts["photos"]), 2),
        "photos_with_moves": counts["with_moves"],
        "photos_with_hint": counts["with_hint"],
        "upload_to_hint_ms": {
            "median": round(statistics.median(latencies), 1) if latencies else None,
            "p95": round(percentile(latencies, 95), 1) if latencies else None,
            "max": round(max(latencies), 1) if latencies else None,
        },
        "server_ms": {
            "median": round(statistics.median(server_ms), 1) if server_ms else None,
            "p95": round(percentile(server_ms, 95), 1) if server_ms else None,
        },
        "totals_consistent": consistent,
        "pipeline": {k: v["ok"] for k, v in parts["parts"].items() if k in ("detector", "layout")},
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for k, v in summary.items():
            print(f"{k:>20}: {v}")
        for e in errors[:10]:
            print("  error:", e)
    return 0 if not errors else 1


if __name__ == "__main__":
    raise SystemExit(main())
