#!/usr/bin/env python
"""Fuzz the companion: mutated requests over every route against a real server process.

Starts ``python -m companion.commands.serve`` (waitress) on 127.0.0.1 with a fresh instance
folder, makes a few tables and photos, then sends ``--requests`` requests in batches from
``--clients`` threads. Each request takes a route (every API route and page) and mutates
it: odd ids (0, -1, 20 digits, ``1e400``, ``٣``), odd or missing table codes (non-ASCII,
5,000 characters, numbers in the JSON body), JSON with wrong types, ``Infinity``/``NaN``/
``1e400``/huge integers, lone surrogates, nesting up to 50,000 deep, truncated or
non-UTF-8 bodies, and for uploads: decompression bombs (PNG and JPEG headers declaring
30000 x 30000 pixels, 16-bit RGBA PNGs, a legal 36-megapixel grey PNG of 36 kB), GIF/BMP/WebP
headers, truncated and bit-flipped
JPEGs and PNGs, empty files, noise and broken multipart bodies, plus odd Host and
Idempotency-Key headers, ``Origin``/``Referer`` of other sites (or ``null``), live taps with
idempotency keys and start-page searches (LIKE wildcards, SQL, surrogates). Slow and idle
connections, big photos, keyed entries, wrong codes from many addresses, table spam and a
full database are measured by ``scripts/attack_test.py``.

After every batch the server must still answer ``/api/status`` and its process must be
running; its peak resident memory (``VmHWM`` from ``/proc/<pid>/status``, Linux) is read.
Reports the status codes seen (overall and per route), the number of 5xx answers, the
peak RSS (MB) and whether the server stayed up. Exit code 0 only when there was no 5xx,
no dropped connection, the peak RSS stayed under ``--max-rss-mb`` and the server survived.

The wrong-code rate limit (429) is raised to ``--code-tries`` a minute in the instance's
``config.py`` so that mutated requests reach the code behind it; the limit itself is tested
in tests/web/test_hardening.py.

    .venv/bin/python scripts/fuzz_api.py                       # 10,000 requests
    .venv/bin/python scripts/fuzz_api.py --requests 2000 --json

Loopback only (127.0.0.1): it never talks to another machine.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zlib
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))
import load_test  # noqa: E402 - the server starter shared with the load test

from engine.catalog import BIG_CLOCK, DRAW100, LUZON, TABLEAUX  # noqa: E402

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


# --- image mutations ------------------------------------------------------------------------


def _png(width: int, height: int, depth: int = 8, colour: int = 2, rows: bytes = b"") -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows or b"\0" * 64, 9))
        + chunk(b"IEND", b"")
    )


class Images:
    """Sample photos shrunk to at most 320 px (so valid uploads are cheap) and their mutations."""

    def __init__(self) -> None:
        import cv2
        import numpy as np

        self.valid: list[bytes] = []
        for p in sorted((ROOT / "sample_images").glob("*.jpg"))[:4]:
            img = cv2.imread(str(p))
            s = 320 / max(img.shape[:2])
            small = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
            self.valid.append(cv2.imencode(".jpg", small)[1].tobytes())
            self.valid.append(cv2.imencode(".png", small)[1].tobytes())
        rgba16 = np.zeros((48, 64, 4), np.uint16)
        rgba16[..., 3] = 30000
        self.valid.append(cv2.imencode(".png", rgba16)[1].tobytes())
        jpg = bytearray(cv2.imencode(".jpg", np.full((8, 8, 3), 90, np.uint8))[1].tobytes())
        i = jpg.index(b"\xff\xc0")
        jpg[i + 5 : i + 9] = struct.pack(">HH", 30000, 30000)
        self.bombs = [
            _png(30000, 30000, rows=b"\0" * (30000 * 3 + 1) * 2),
            _png(65535, 65535),
            _png(6000, 6000, 16, 6),
            _png(100000, 1, 8, 0),
            _png(
                6000, 6000, 8, 0, rows=b"\0" * (6000 + 1) * 6000
            ),  # 36 MP of grey: legal, decoded in full
            bytes(jpg),
            b"GIF89a\x30\x75\x30\x75\x80\x00\x00" + b"\0" * 22,
            b"BM" + b"\0" * 16 + struct.pack("<ii", 30000, 30000) + b"\0" * 30,
            b"RIFF\x24\0\0\0WEBPVP8X" + b"\0" * 4 + b"\xff\xff\x01\xff\xff\x01" + b"\0" * 20,
        ]

    def pick(self, rnd: random.Random) -> tuple[str, bytes]:
        kind = rnd.choice(
            [
                "valid",
                "valid",
                "valid",
                "bomb",
                "bomb",
                "truncated",
                "flipped",
                "flipped",
                "empty",
                "noise",
                "header_only",
            ]
        )
        base = rnd.choice(self.valid)
        if kind == "valid":
            return kind, base
        if kind == "bomb":
            return kind, rnd.choice(self.bombs)
        if kind == "truncated":
            return kind, base[: rnd.randrange(1, len(base))]
        if kind == "flipped":
            data = bytearray(base)
            for _ in range(rnd.choice([1, 3, 20, 200])):
                j = rnd.randrange(len(data))
                data[j] ^= 1 << rnd.randrange(8)
            return kind, bytes(data)
        if kind == "empty":
            return kind, b""
        if kind == "noise":
            return kind, rnd.randbytes(rnd.choice([1, 100, 5000]))
        return kind, base[: rnd.choice([3, 8, 30, 200])]


# --- value mutations ------------------------------------------------------------------------------

ODD_TEXT = [
    "Infinity",
    "-Infinity",
    "NaN",
    "1e400",
    "-1e400",
    "1" * 30,
    "9" * 400,
    "true",
    "false",
    "null",
    "[]",
    "{}",
    '""',
    '"²"',
    '"٣"',
    '"\\ud800"',
    '"\\u0000"',
    '"' + "x" * 3000 + '"',
    "-0",
    "0.5",
    '"12"',
    "[1, 2]",
    '{"a": [1]}',
    "2147483648",
    "-9223372036854775809",
]
ODD_IDS = [
    "0",
    "-1",
    "9" * 20,
    "1e400",
    "abc",
    "%C2%B3",
    "%D9%A3",
    "1.0",
    "",
    "00001",
    "18446744073709551616",
]
ODD_CODES = [
    "",
    "ZZZZZZ",
    "ÄÖÜ²³",
    "a" * 5000,
    "\x00\x01",
    "AB CD-EF",
    "😀",
    "ab-cd-ef",
    "1",
    "٣٣٣٣٣٣",
]


def deep_json(rnd: random.Random) -> str:
    n = rnd.choice([40, 1000, 50_000])
    return "[" * n + "]" * n if rnd.random() < 0.5 else '{"a":' * n + "1" + "}" * n


def odd_json_value(rnd: random.Random) -> str:
    return deep_json(rnd) if rnd.random() < 0.05 else rnd.choice(ODD_TEXT)


def mutate_body(rnd: random.Random, template: dict) -> bytes:
    """JSON text of ``template`` with some values replaced by odd JSON (raw text, so Infinity etc. survive)."""
    r = rnd.random()
    if r < 0.05:
        return deep_json(rnd).encode()
    if r < 0.10:
        text = json.dumps(template)
        return text[: rnd.randrange(len(text) + 1)].encode()
    if r < 0.13:
        return b'{"game": "\xff\xfe", "players": ["\xed\xa0\x80"]}'
    if r < 0.16:
        return rnd.choice([b"", b"null", b"[]", b"42", b'"text"'])
    parts = []
    odd = set(rnd.sample(sorted(template), k=min(len(template), rnd.choice([0, 0, 1, 1, 2]))))
    for k, v in template.items():
        if k in odd:
            parts.append(f"{json.dumps(k)}: {odd_json_value(rnd)}")
        else:
            parts.append(f"{json.dumps(k)}: {json.dumps(v)}")
    if rnd.random() < 0.2:
        parts.append(f'"code": {odd_json_value(rnd)}')
    return ("{" + ", ".join(parts) + "}").encode()


def multipart(rnd: random.Random, data: bytes, hand: str) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    field = "photo" if rnd.random() > 0.05 else rnd.choice(["image", "photo[]", ""])
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="hand"\r\n\r\n{hand}\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="p.jpg"\r\n'
            f"Content-Type: image/jpeg\r\n\r\n"
        ).encode("utf-8", "surrogatepass")
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    if rnd.random() < 0.05:
        body = body[: rnd.randrange(len(body))]
    ctype = f"multipart/form-data; boundary={boundary}"
    if rnd.random() < 0.03:
        ctype = rnd.choice(
            ["multipart/form-data", "multipart/form-data; boundary=", "image/jpeg", "text/plain"]
        )
    return body, ctype


# --- the server -----------------------------------------------------------------------------


def start_server(port: int, instance: str, code_tries: int) -> subprocess.Popen:
    """``load_test.start_server`` (a real ``serve`` process on a fresh instance) with the
    wrong-code limits (per client, per table, at the join form) and the table-creation limits
    raised to ``code_tries`` (never below their defaults; the instance's ``config.py``)."""
    n = int(code_tries)
    (Path(instance) / "config.py").write_text(
        f"CODE_TRIES_PER_MINUTE = {n}\nTABLE_CODE_TRIES_PER_MINUTE = {max(n, 30)}\n"
        f"JOIN_CODE_TRIES_PER_MINUTE = {max(n, 60)}\nTABLES_PER_CLIENT = {max(n, 20)}\n"
        f"TABLES_PER_SERVER = {max(n, 200)}\n"
    )
    return load_test.start_server(port, instance)


def alive(port: int) -> bool:
    try:
        c = http.client.HTTPConnection(HOST, port, timeout=30)
        c.request("GET", "/api/status")
        ok = c.getresponse().status == 200
        c.close()
        return ok
    except OSError:
        return False


def peak_rss_mb(pid: int) -> float | None:
    """The process's peak resident set size (VmHWM), MB; None where /proc is missing."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def call(
    port: int, method: str, path: str, body: bytes | None = None, headers: dict | None = None
) -> tuple[int, bytes]:
    c = http.client.HTTPConnection(HOST, port, timeout=120)
    try:
        c.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        hdrs = {"Host": f"{HOST}:{port}", **(headers or {})}
        if body is not None:
            hdrs.setdefault("Content-Length", str(len(body)))
        for k, v in hdrs.items():
            c.putheader(k, v.encode("utf-8", "surrogatepass") if isinstance(v, str) else v)
        c.endheaders(body)
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


class Fuzzer:
    """Builds one mutated request at a time from the tables and photos made at the start."""

    def __init__(self, port: int, images: Images) -> None:
        self.port = port
        self.images = images
        self.tables: list[dict] = []
        self.photos: dict[int, list[int]] = defaultdict(list)

    def setup(self) -> None:
        for game, players, extra in [
            (DRAW100, ["A", "B", "C"], {}),
            (TABLEAUX, ["A", "B"], {"max_pip": 9}),
            (LUZON, ["Solo"], {}),
            (BIG_CLOCK, [], {"max_pip": 12}),
        ]:
            st, body = call(
                self.port,
                "POST",
                "/api/tables",
                json.dumps({"game": game, "players": players, **extra}).encode(),
                {"Content-Type": "application/json"},
            )
            assert st == 201, body
            self.tables.append(json.loads(body))
        for t in self.tables:
            for data in self.images.valid[:2]:
                body, ctype = multipart(random.Random(0), data, "")
                st, out = call(
                    self.port,
                    "POST",
                    f"/api/tables/{t['id']}/photos",
                    body,
                    {"Content-Type": ctype, "X-Table-Code": t["code"]},
                )
                if st == 201:
                    self.photos[t["id"]].append(json.loads(out)["id"])

    def request(self, rnd: random.Random) -> tuple[str, str, str, bytes | None, dict]:
        """``(route name, method, path, body, headers)`` of one mutated request."""
        t = rnd.choice(self.tables)
        tid = str(t["id"]) if rnd.random() > 0.15 else rnd.choice(ODD_IDS)
        pids = self.photos.get(t["id"]) or [1]
        pid = str(rnd.choice(pids)) if rnd.random() > 0.15 else rnd.choice(ODD_IDS)
        code = t["code"] if rnd.random() > 0.2 else rnd.choice(ODD_CODES)
        headers: dict = {}
        if code and rnd.random() > 0.05:
            headers["X-Table-Code"] = code
        if rnd.random() < 0.02:
            headers["Host"] = rnd.choice(["evil.example", "", "127.0.0.1:99999", "[::1", "a" * 300])
        if rnd.random() < 0.1:
            headers["Idempotency-Key"] = rnd.choice(
                [uuid.uuid4().hex, "short", "x y", "k" * 200, "ÄÖÜÄÖÜÄÖ", "fixed-key-0000"]
            )
        if rnd.random() < 0.1:  # another site's page, or a sandboxed one, posting here
            which = rnd.choice(["Origin", "Referer"])
            headers[which] = rnd.choice(
                ["http://evil.example", "null", f"http://{HOST}:{self.port}", "http://[::1", "é"]
            )
        player = str(rnd.choice(t["players"])["id"])
        route = rnd.choice(
            [
                "status",
                "games",
                "openapi",
                "tables_get",
                "tables_post",
                "table_get",
                "qr",
                "rounds_post",
                "rounds_get",
                "undo",
                "photos_post",
                "photos_post",
                "photos_get",
                "photo_get",
                "photo_image",
                "tile_put",
                "tile_delete",
                "hand_put",
                "camera",
                "tap",
                "search",
                "index",
                "form_post",
                "join",
                "join_query",
                "table_page",
                "api_docs",
                "favicon",
                "static",
                "unknown",
            ]
        )
        jhdr = {
            **headers,
            "Content-Type": "application/json" if rnd.random() > 0.05 else "text/plain",
        }
        if route == "status":
            return route, "GET", "/api/status", None, headers
        if route == "games":
            return route, "GET", "/api/games", None, headers
        if route == "openapi":
            return route, "GET", "/api/openapi.json", None, headers
        if route == "tables_get":
            return route, "GET", "/api/tables", None, headers
        if route == "tables_post":
            body = mutate_body(
                rnd,
                {
                    "game": rnd.choice([DRAW100, TABLEAUX, LUZON, "chess"]),
                    "players": ["A", "B"],
                    "max_pip": 6,
                    "variant": "",
                    "target": 100,
                },
            )
            return route, "POST", "/api/tables", body, jhdr
        if route == "table_get":
            return route, "GET", f"/api/tables/{tid}", None, headers
        if route == "qr":
            return route, "GET", f"/api/tables/{tid}/qr.svg", None, headers
        if route == "rounds_post":
            body = mutate_body(
                rnd,
                {
                    "scores": {player: rnd.choice([0, 1, 5, 30])},
                    "kind": rnd.choice(["domino", "play", "pass", "x"]),
                    "source": "hand",
                    "photo_id": None,
                    "note": "n",
                },
            )
            return route, "POST", f"/api/tables/{tid}/rounds", body, jhdr
        if route == "rounds_get":
            return route, "GET", f"/api/tables/{tid}/rounds", None, headers
        if route == "undo":
            return (
                route,
                "POST",
                f"/api/tables/{tid}/undo",
                mutate_body(rnd, {"round_id": rnd.randrange(1, 50)}),
                jhdr,
            )
        if route in ("photos_post", "camera"):
            _kind, data = self.images.pick(rnd)
            hand = rnd.choice(["", "1-2 3-4", "banana", "9-9", "1-2 1-2", "x" * 3000])
            body, ctype = multipart(rnd, data, hand)
            if route == "camera":
                return (
                    route,
                    "POST",
                    f"/api/tables/{tid}/camera",
                    mutate_body(rnd, {"hand": hand}),
                    jhdr,
                )
            return (
                route,
                "POST",
                f"/api/tables/{tid}/photos",
                body,
                {**headers, "Content-Type": ctype},
            )
        if route == "photos_get":
            return route, "GET", f"/api/tables/{tid}/photos", None, headers
        if route == "photo_get":
            return route, "GET", f"/api/tables/{tid}/photos/{pid}", None, headers
        if route == "photo_image":
            return route, "GET", f"/api/tables/{tid}/photos/{pid}/image", None, headers
        index = str(rnd.randrange(0, 6)) if rnd.random() > 0.1 else rnd.choice(ODD_IDS)
        if route == "tile_put":
            body = mutate_body(rnd, {"pips": [rnd.randrange(0, 13), rnd.randrange(0, 13)]})
            return route, "PUT", f"/api/tables/{tid}/photos/{pid}/tiles/{index}", body, jhdr
        if route == "tile_delete":
            return route, "DELETE", f"/api/tables/{tid}/photos/{pid}/tiles/{index}", None, headers
        if route == "hand_put":
            body = mutate_body(rnd, {"hand": rnd.choice(["1-2 3-4", ["1-2", [3, 4]], "", "6-6"])})
            return route, "PUT", f"/api/tables/{tid}/photos/{pid}/hand", body, jhdr
        if route == "tap":
            body = mutate_body(
                rnd, {"kind": rnd.choice(["pass", "done", "player", "x"]), "player": 1}
            )
            h = {**jhdr, "Idempotency-Key": rnd.choice([uuid.uuid4().hex, "tap-fixed-0001"])}
            return route, "POST", f"/api/tables/{tid}/live/tap", body, h
        if route == "search":
            q = rnd.choice(
                ["A", "%", "_", "#1", "%25%25", "%ED%A0%80", "x" * 300, "%27%20OR%201=1%20--"]
            )
            return route, "GET", "/?q=" + q, None, headers
        if route == "index":
            return route, "GET", "/", None, headers
        if route == "form_post":
            fields = {
                "game": rnd.choice([DRAW100, TABLEAUX, "x"]),
                "max_pip": rnd.choice(["6", "9", "²", "1e400", "٣"]),
                "players": rnd.choice(["A\nB", "", "x" * 100]),
                "target": rnd.choice(["", "100", "Infinity", "²"]),
                "csrf_token": rnd.choice(["", "x" * 43]),
            }
            from urllib.parse import urlencode

            body = urlencode(fields).encode()
            if rnd.random() < 0.1:
                body = b"game=%ED%A0%80&players=%FF%FE&max_pip=%C2%B2"
            return (
                route,
                "POST",
                "/tables",
                body,
                {**headers, "Content-Type": "application/x-www-form-urlencoded"},
            )
        if route == "join":
            c = rnd.choice([t["code"], *ODD_CODES[1:], "%C2%B2", "%FF"])
            from urllib.parse import quote

            return route, "GET", "/join/" + quote(c, safe="%"), None, headers
        if route == "join_query":
            return (
                route,
                "GET",
                "/join?code=" + rnd.choice(["", "%FF%FE", "ABC", "%C2%B2" * 100]),
                None,
                headers,
            )
        if route == "table_page":
            return route, "GET", f"/t/{tid}", None, headers
        if route == "api_docs":
            return route, "GET", "/api-docs", None, headers
        if route == "favicon":
            return route, "GET", "/favicon.ico", None, headers
        if route == "static":
            return (
                route,
                "GET",
                rnd.choice(
                    [
                        "/static/table.js",
                        "/static/../companion.sqlite",
                        "/static/%2e%2e/secret_key",
                        "/static/style.css",
                    ]
                ),
                None,
                headers,
            )
        return (
            route,
            rnd.choice(["GET", "POST", "PATCH"]),
            rnd.choice(
                [
                    "/api/nothing",
                    "/api/tables/1/photos/1/tiles",
                    "/%FF",
                    "/t/",
                    "/api/tables/1/rounds/1",
                ]
            ),
            None,
            headers,
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--requests", type=int, default=10_000, help="how many mutated requests (default 10,000)"
    )
    ap.add_argument(
        "--batch", type=int, default=500, help="requests between liveness and memory checks"
    )
    ap.add_argument("--clients", type=int, default=4, help="threads sending at once (default 4)")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument(
        "--max-rss-mb",
        type=float,
        default=1024.0,
        help="fail when the server's peak RSS passes this",
    )
    ap.add_argument(
        "--code-tries",
        type=int,
        default=1_000_000,
        help="wrong codes a minute before 429 (see above)",
    )
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = ap.parse_args(argv)
    images = Images()
    port = free_port()
    statuses: Counter = Counter()
    per_route: dict[str, Counter] = defaultdict(Counter)
    failures: list[str] = []
    batches: list[dict] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="companion-fuzz-") as inst:
        proc = start_server(port, inst, args.code_tries)
        survived = True
        try:
            fuzz = Fuzzer(port, images)
            fuzz.setup()
            lock = threading.Lock()
            sent = 0
            batch_no = 0
            while sent < args.requests:
                n = min(args.batch, args.requests - sent)
                plan = []
                rnd = random.Random(args.seed * 100_003 + batch_no)
                for _ in range(n):
                    plan.append(fuzz.request(rnd))
                queue = list(enumerate(plan))

                def worker() -> None:
                    while True:
                        with lock:
                            if not queue:
                                return
                            _, (route, method, path, body, headers) = queue.pop()
                        try:
                            st, out = call(port, method, path, body, headers)
                        except (OSError, http.client.HTTPException) as exc:
                            st, out = 0, str(exc).encode()
                        with lock:
                            statuses[st] += 1
                            per_route[route][st] += 1
                            if st >= 500 or st == 0:
                                failures.append(f"{method} {path[:80]} -> {st} {out[:200]!r}")

                threads = [threading.Thread(target=worker) for _ in range(args.clients)]
                for th in threads:
                    th.start()
                for th in threads:
                    th.join()
                sent += n
                batch_no += 1
                up = proc.poll() is None and alive(port)
                rss = peak_rss_mb(proc.pid)
                batches.append(
                    {
                        "sent": sent,
                        "alive": up,
                        "peak_rss_mb": round(rss, 1) if rss else None,
                        "elapsed_s": round(time.monotonic() - started, 1),
                    }
                )
                if not args.json:
                    print(
                        f"  {sent:>6} requests  alive={up}  peak RSS {rss or 0:.0f} MB  "
                        f"{time.monotonic() - started:.0f} s",
                        flush=True,
                    )
                if not up:
                    survived = False
                    failures.append(f"server down after {sent} requests")
                    break
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
            log_tail = (Path(inst) / "server.log").read_text(errors="replace")[-2000:]
    peak = max((b["peak_rss_mb"] or 0.0) for b in batches) if batches else None
    n5xx = sum(v for k, v in statuses.items() if k >= 500)
    summary = {
        "requests": sum(statuses.values()),
        "clients": args.clients,
        "seed": args.seed,
        "seconds": round(time.monotonic() - started, 1),
        "cpus": os.cpu_count(),
        "status_codes": {str(k): v for k, v in sorted(statuses.items())},
        "responses_5xx": n5xx,
        "connection_errors": statuses.get(0, 0),
        "peak_rss_mb": peak,
        "max_rss_mb": args.max_rss_mb,
        "server_survived_every_batch": survived,
        "batches": len(batches),
        "per_route": {
            r: {str(k): v for k, v in sorted(c.items())} for r, c in sorted(per_route.items())
        },
        "failures": failures[:20],
    }
    ok = (
        n5xx == 0
        and not statuses.get(0)
        and survived
        and peak is not None
        and peak < args.max_rss_mb
    )
    summary["ok"] = ok
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for k, v in summary.items():
            if k not in ("per_route", "failures"):
                print(f"{k:>28}: {v}")
        for r, c in summary["per_route"].items():
            print(f"{r:>28}: {c}")
        for f in failures[:20]:
            print("  failure:", f)
        if not ok:
            print("server log tail:\n" + log_tail)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
