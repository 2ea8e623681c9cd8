#!/usr/bin/env python
"""Attacks on a real server process, measured: what ``docs/companion.md`` reports.

Starts ``python -m companion.commands.serve --local --no-demo`` (HTTP and HTTPS beside it) on
free ports with a fresh instance folder, runs the attacks asked for and prints one line per
attack (``--json``: a JSON object). Loopback only (127.0.0.x): it never talks to another machine.

- ``--big-photos N``: N photos of 40 megapixels (a sample photo scaled to 7296 x 5472, JPEG)
  posted at once over HTTP and N over HTTPS to one table. Reports every answer's status, whether
  each 503 carried ``Retry-After``, and the server's peak resident memory (``VmHWM`` of
  ``/proc/PID/status``, MB) before and after.
- ``--idle N,M``: N idle HTTP and M idle HTTPS connections held open (from 10 loopback
  addresses, a third of the HTTP ones stopped half way through a request, half of the HTTPS ones
  in their ClientHello) while a normal client asks ``/api/status`` on both ports for
  ``--seconds``; reports the slowest answer (s) and any failure.
- ``--keyed-entries N``: N score entries with an ``Idempotency-Key`` each, then every one sent
  again; reports the database's growth (MB) and whether a retry was stored twice.
- ``--wrong-codes N,A``: N wrong table codes from A loopback addresses at one table (a score
  entry each); reports how many were refused 403 (wrong code) and 429 (throttled).
- ``--tables N``: N tables created back to back by one client; reports how many were made
  and how many refused 429.
- ``--disk-full N``: the server restarted with its database capped below its size
  (``DB_MAX_MB``: SQLite then answers writes that need space "database or disk is full", as on
  a full disk); N score entries, photos and new tables, with reads between them; then
  restarted without the cap. Reports the statuses, the messages, ``PRAGMA integrity_check``,
  acknowledged against stored entries, photo files without rows (or rows without files), and
  a write once space is back.

    .venv/bin/python scripts/attack_test.py --big-photos 16
    .venv/bin/python scripts/attack_test.py --idle 150,40 --seconds 20
    .venv/bin/python scripts/attack_test.py --keyed-entries 300 --wrong-codes 1000,100 --tables 200
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import ssl
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
import load_test  # noqa: E402 - the sibling script's helpers
from load_test import free_port, multipart  # noqa: E402

HOST = "127.0.0.1"
#: The first bytes of a TLS ClientHello record (a client that stops half way through).
PARTIAL_HELLO = bytes.fromhex("16030100c8010000c40303")


def start_server(instance: str) -> tuple:
    """``serve --no-demo`` on 127.0.0.1 with HTTPS beside HTTP, on free ports
    (:func:`load_test.start_server`) -> ``(proc, http_port, https_port)``; its console goes to
    ``instance/server.log``."""
    port, https_port = free_port(), free_port()
    return load_test.start_server(port, instance, https_port, wait_s=90), port, https_port


def request(
    scheme: str,
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict | None = None,
    source: str | None = None,
    timeout: float = 120.0,
) -> tuple[int, dict, dict]:
    """One request -> ``(status, JSON body or {}, headers)``; ``source``: the loopback address
    to send from. Network failures raise OSError."""
    kw: dict = {"timeout": timeout, "source_address": (source, 0) if source else None}
    if scheme == "https":
        ctx = ssl.create_default_context()
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
        conn: http.client.HTTPConnection = http.client.HTTPSConnection(
            HOST, port, context=ctx, **kw
        )
    else:
        conn = http.client.HTTPConnection(HOST, port, **kw)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        raw = r.read()
        try:
            out = json.loads(raw or b"{}")
        except ValueError:
            out = {}
        return r.status, out, dict(r.getheaders())
    finally:
        conn.close()


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory so far (``VmHWM``), MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def new_table(port: int, source: str | None = None, target: int | None = None) -> dict:
    st, out, _ = request(
        "http",
        port,
        "POST",
        "/api/tables",
        json.dumps({"game": "draw100", "players": ["Ana", "Ben"], "target": target}).encode(),
        {"Content-Type": "application/json"},
        source=source,
    )
    if st != 201:
        raise SystemExit(f"could not create a table: {st} {out}")
    return out


def big_photo() -> bytes:
    """A sample photo scaled to 7296 x 5472 (40 megapixels) with a little noise, JPEG quality
    85 (about 9 MB, like a camera's)."""
    import cv2
    import numpy as np

    img = cv2.imread(str(ROOT / "sample_images" / "vintage-games-game-night.jpg"))
    if img is None:
        raise SystemExit("sample_images/vintage-games-game-night.jpg cannot be read")
    big = cv2.resize(img, (7296, 5472), interpolation=cv2.INTER_CUBIC)
    noise = np.random.default_rng(0).normal(0, 4, big.shape[:2]).astype(np.int16)[:, :, None]
    big = np.clip(big.astype(np.int16) + noise, 0, 255).astype(
        np.uint8
    )  # sensor noise: a real size
    return cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes()


def attack_big_photos(proc, port: int, https_port: int, n: int) -> dict:
    table = new_table(port)
    photo = big_photo()
    before = peak_rss_mb(proc.pid)
    statuses: list[int] = []
    without_retry_after = 0
    failures: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(2 * n)

    def post(scheme: str, p: int) -> None:
        nonlocal without_retry_after
        body, ctype = multipart("photo", "big.jpg", photo)
        headers = {"Content-Type": ctype, "X-Table-Code": table["code"]}
        start.wait()
        try:
            st, _out, h = request(
                scheme, p, "POST", f"/api/tables/{table['id']}/photos", body, headers
            )
        except OSError as exc:
            with lock:
                failures.append(f"{scheme}: {type(exc).__name__}: {exc}")
            return
        with lock:
            statuses.append(st)
            if st == 503 and "Retry-After" not in h:
                without_retry_after += 1

    threads = [threading.Thread(target=post, args=("http", port)) for _ in range(n)]
    threads += [threading.Thread(target=post, args=("https", https_port)) for _ in range(n)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    counts = {str(s): statuses.count(s) for s in sorted(set(statuses))}
    return {
        "photo_mb": round(len(photo) / 2**20, 1),
        "posted": 2 * n,
        "statuses": counts,
        "503_without_retry_after": without_retry_after,
        "failures": failures,
        "5xx_other_than_503": sum(1 for s in statuses if s >= 500 and s != 503),
        "peak_rss_mb_before": round(before, 1),
        "peak_rss_mb": round(peak_rss_mb(proc.pid), 1),
        "seconds": round(time.monotonic() - started, 1),
    }


def attack_idle(port: int, https_port: int, n_http: int, n_https: int, seconds: float) -> dict:
    held: list[socket.socket] = []
    worst, failures, asked = 0.0, [], 0
    try:
        for i in range(n_http):
            s = socket.create_connection(
                (HOST, port), timeout=5, source_address=(f"127.0.0.{2 + i % 10}", 0)
            )
            if i % 3 == 0:
                s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            held.append(s)
        for i in range(n_https):
            s = socket.create_connection(
                (HOST, https_port), timeout=5, source_address=(f"127.0.0.{20 + i % 4}", 0)
            )
            if i % 2:
                s.sendall(PARTIAL_HELLO)
            held.append(s)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for scheme, p in (("http", port), ("https", https_port)):
                t0 = time.monotonic()
                try:
                    st = request(scheme, p, "GET", "/api/status", timeout=10)[0]
                    if st != 200:
                        failures.append(f"{scheme} {st}")
                except OSError as exc:
                    failures.append(f"{scheme}: {type(exc).__name__}")
                worst = max(worst, time.monotonic() - t0)
                asked += 1
            for s in held[:n_http:3]:  # the slow ones send a byte now and then
                try:
                    s.sendall(b"a")
                except OSError:
                    pass
            time.sleep(0.5)
        still_open = 0
        for s in held:
            s.setblocking(False)
            try:
                s.recv(1)
            except BlockingIOError:
                still_open += 1
            except OSError:
                pass
    finally:
        for s in held:
            s.close()
    return {
        "idle_http": n_http,
        "idle_https": n_https,
        "held_open_at_end": still_open,
        "normal_requests": asked,
        "slowest_answer_s": round(worst, 3),
        "failures": failures,
    }


def attack_keyed_entries(instance: str, port: int, n: int) -> dict:
    table = new_table(port, target=10_000)
    db = Path(instance) / "companion.sqlite"

    def size() -> int:
        return sum(p.stat().st_size for p in Path(instance).glob("companion.sqlite*"))

    before = size()
    keys = [uuid.uuid4().hex for _ in range(n)]
    pid = table["players"][0]["id"]
    statuses = []
    for _sent in (1, 2):
        for k in keys:
            headers = {"X-Table-Code": table["code"], "Idempotency-Key": k}
            entry = {"scores": {str(pid): 1}, "kind": "manual"}
            statuses.append(post_entry(port, table["id"], entry, headers)[0])
    total = request("http", port, "GET", f"/api/tables/{table['id']}")[1]
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        rounds = conn.execute(
            "SELECT COUNT(*) FROM rounds WHERE table_id = ?", (table["id"],)
        ).fetchone()[0]
    finally:
        conn.close()
    return {
        "entries": n,
        "sent_twice": True,
        "statuses": {str(s): statuses.count(s) for s in sorted(set(statuses))},
        "rounds_stored": rounds,
        "db_growth_mb": round((size() - before) / 2**20, 3),
        "total_of_first_player": next(
            (p.get("total") for p in total.get("players", []) if p["id"] == pid), None
        ),
    }


def attack_wrong_codes(port: int, n: int, addresses: int) -> dict:
    table = new_table(port)
    statuses: list[int] = []
    lock = threading.Lock()
    per = max(1, n // addresses)

    def guess(a: int) -> None:
        source = f"127.0.{1 + a // 250}.{1 + a % 250}"
        for i in range(per):
            code = f"WRONG{a:03d}{i:03d}"
            entry = {"scores": {}, "kind": "manual"}
            try:
                st = post_entry(port, table["id"], entry, {"X-Table-Code": code}, source)[0]
            except OSError:
                st = -1
            with lock:
                statuses.append(st)

    threads = [threading.Thread(target=guess, args=(a,)) for a in range(addresses)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {
        "wrong_codes": len(statuses),
        "addresses": addresses,
        "statuses": {str(s): statuses.count(s) for s in sorted(set(statuses))},
        "seconds": round(time.monotonic() - started, 1),
    }


def post_entry(
    port: int, table_id: int, entry: dict, headers: dict, source: str | None = None
) -> tuple[int, dict]:
    """``POST /api/tables/{table_id}/rounds`` with ``entry`` as JSON -> ``(status, answer)``."""
    status, answer, _ = request(
        "http",
        port,
        "POST",
        f"/api/tables/{table_id}/rounds",
        json.dumps(entry).encode(),
        {"Content-Type": "application/json", **headers},
        source=source,
    )
    return status, answer


def post_table(port: int, source: str) -> int:
    """The status of one new draw-to-100 table asked for from ``source`` (-1: no answer)."""
    try:
        return request(
            "http",
            port,
            "POST",
            "/api/tables",
            json.dumps({"game": "draw100", "players": ["A", "B"]}).encode(),
            {"Content-Type": "application/json"},
            source=source,
        )[0]
    except OSError:
        return -1


def attack_tables(port: int, n: int) -> dict:
    statuses = [post_table(port, "127.0.0.77") for _ in range(n)]
    return {
        "created": statuses.count(201),
        "statuses": {str(s): statuses.count(s) for s in sorted(set(statuses))},
    }


def attack_disk_full(instance: str, proc, port: int, https_port: int, n: int) -> tuple:
    """Fill the database (the server restarted with ``DB_MAX_MB`` below its size: SQLite then
    answers every write that needs a new page "database or disk is full", as a full disk
    does), send ``n`` writes of each kind and reads between them, then restart without the
    cap: the database must be intact and writes work again. Returns ``(result, proc, port,
    https_port)`` (the server now running)."""
    import sqlite3

    table = new_table(port, target=10_000)
    pid = table["players"][0]["id"]
    code = {"X-Table-Code": table["code"]}
    photo = (ROOT / "sample_images" / "vintage-games-game-night.jpg").read_bytes()
    proc.terminate()
    proc.wait(timeout=30)
    (Path(instance) / "config.py").write_text("DB_MAX_MB = 0.001  # below any size: full\n")
    proc, port, https_port = start_server(instance)
    statuses: dict[str, list[int]] = {"entry": [], "photo": [], "table": [], "read": []}
    messages = set()
    for i in range(n):
        entry = {"scores": {str(pid): 1}, "kind": "manual", "note": "x" * 200}
        st, out = post_entry(port, table["id"], entry, code)
        statuses["entry"].append(st)
        messages.add(out.get("error", {}).get("message", ""))
        mp, ctype = multipart("photo", "p.jpg", photo)
        st, out, _ = request(
            "http",
            port,
            "POST",
            f"/api/tables/{table['id']}/photos",
            mp,
            {"Content-Type": ctype, **code},
        )
        statuses["photo"].append(st)
        statuses["table"].append(post_table(port, f"127.0.9.{1 + i}"))
        for path in ("/", f"/t/{table['id']}", f"/api/tables/{table['id']}", "/api/tables"):
            statuses["read"].append(request("http", port, "GET", path)[0])
    acknowledged = statuses["entry"].count(201)
    proc.terminate()
    proc.wait(timeout=30)
    (Path(instance) / "config.py").unlink()
    conn = sqlite3.connect(Path(instance) / "companion.sqlite")
    try:
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        rounds = conn.execute(
            "SELECT COUNT(*) FROM rounds WHERE table_id = ?", (table["id"],)
        ).fetchone()[0]
    finally:
        conn.close()
    from load_test import check_files

    problems = check_files(instance)
    proc, port, https_port = start_server(instance)
    after = post_entry(port, table["id"], {"scores": {str(pid): 1}, "kind": "manual"}, code)[0]
    result = {
        "writes_each_kind": n,
        "statuses": {k: {str(s): v.count(s) for s in sorted(set(v))} for k, v in statuses.items()},
        "messages": sorted(m for m in messages if m),
        "integrity_after": integrity,
        "entries_acknowledged": acknowledged,
        "entries_stored": rounds,
        "photo_file_problems": problems,
        "entry_after_space_returns": after,
    }
    return result, proc, port, https_port


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--big-photos", type=int, default=0, metavar="N")
    ap.add_argument("--idle", default="", metavar="N,M")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--keyed-entries", type=int, default=0, metavar="N")
    ap.add_argument("--wrong-codes", default="", metavar="N,A")
    ap.add_argument("--tables", type=int, default=0, metavar="N")
    ap.add_argument("--disk-full", type=int, default=0, metavar="N")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    results: dict = {}
    with tempfile.TemporaryDirectory() as instance:
        proc, port, https_port = start_server(instance)
        try:
            if args.idle:
                a, b = (int(x) for x in args.idle.split(","))
                results["idle"] = attack_idle(port, https_port, a, b, args.seconds)
            if args.keyed_entries:
                results["keyed_entries"] = attack_keyed_entries(instance, port, args.keyed_entries)
            if args.wrong_codes:
                a, b = (int(x) for x in args.wrong_codes.split(","))
                results["wrong_codes"] = attack_wrong_codes(port, a, b)
            if args.tables:
                results["tables"] = attack_tables(port, args.tables)
            if args.disk_full:
                results["disk_full"], proc, port, https_port = attack_disk_full(
                    instance, proc, port, https_port, args.disk_full
                )
            if args.big_photos:
                results["big_photos"] = attack_big_photos(proc, port, https_port, args.big_photos)
            results["server_5xx_tracebacks"] = (
                (Path(instance) / "server.log").read_text().count("Traceback")
            )
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for name, r in results.items():
            print(f"{name}: {r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
