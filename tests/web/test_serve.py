"""``domino-companion serve``: demo tables from the sample photos, HTTPS certificate, a real process."""

from __future__ import annotations

import json
import socket
import ssl
import subprocess
import sys
import time
import urllib.request

import pytest

from companion.app import create_app
from companion.commands import serve

from .conftest import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_process(folder, port: int, https_port: int, *extra: str) -> subprocess.Popen:
    """``serve --local`` as a child process on ``port`` (HTTP) and ``https_port`` (HTTPS), its
    output (text) in ``proc.stdout``."""
    return subprocess.Popen(
        [sys.executable, "-m", "companion.commands.serve", "--local", "--port", str(port)]
        + ["--https-port", str(https_port), "--instance", str(folder), *extra],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_demo_tables_one_per_game_with_a_sample_photo(tmp_path):
    app = create_app(
        {
            "SECRET_KEY": "t",
            "DATABASE": str(tmp_path / "d.sqlite"),
            "PHOTO_DIR": str(tmp_path / "p"),
        },
        instance_path=str(tmp_path),
    )
    lines: list[str] = []
    assert serve.create_demo_tables(app, log=lines.append) == len(serve.DEMOS)
    assert serve.create_demo_tables(app, log=lines.append) == 0  # only once per instance
    c = app.test_client()
    tables = c.get("/api/tables").json
    assert sorted(t["game"] for t in tables) == sorted(g for g, *_ in serve.DEMOS)
    for t in tables:
        full = c.get(f"/api/tables/{t['id']}").json
        assert full["demo"] and full["photo_count"] == 1
        assert c.get(f"/t/{t['id']}").status_code == 200
    assert len(lines) == len(serve.DEMOS)


def test_self_signed_certificate_loads_into_ssl(tmp_path):
    cert, key = serve.self_signed_certificate(tmp_path, "127.0.0.1")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)  # raises if the pair is broken
    assert serve.self_signed_certificate(tmp_path, "127.0.0.1") == (cert, key)  # reused


@pytest.mark.slow
def test_serve_process_starts_on_the_sample_photos(tmp_path):
    port, https_port = free_port(), free_port()
    proc = serve_process(tmp_path, port, https_port)
    try:
        deadline = time.monotonic() + 60
        tables = None
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables", timeout=2) as r:
                    tables = json.load(r)
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail("serve exited early:\n" + proc.stdout.read())
                time.sleep(0.3)
        assert tables is not None, "serve did not answer within 60 s"
        assert len([t for t in tables if t["demo"]]) == len(serve.DEMOS)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
            assert b"Start a table" in r.read()
            assert r.headers["Server"] == "domino-companion"  # waitress, not the development server
            assert "SameSite=Lax" in r.headers["Set-Cookie"]
        ctx = ssl.create_default_context()
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
        with urllib.request.urlopen(
            f"https://127.0.0.1:{https_port}/", timeout=10, context=ctx
        ) as r:
            assert b"Start a table" in r.read()  # HTTPS beside HTTP, for the live camera
    finally:
        proc.terminate()
        out = proc.communicate(timeout=10)[0]
    assert "Only this computer can connect (--local)" in out
    assert f"Live camera on phones: https://127.0.0.1:{https_port}/" in out
    assert (tmp_path / "companion.sqlite").exists()


def test_demo_tables_are_open_to_every_visitor(tmp_path):
    app = create_app(
        {
            "SECRET_KEY": "t",
            "DATABASE": str(tmp_path / "d.sqlite"),
            "PHOTO_DIR": str(tmp_path / "p"),
        },
        instance_path=str(tmp_path),
    )
    serve.create_demo_tables(app, log=lambda _line: None)
    page = app.test_client().get("/t/1").get_data(as_text=True)
    assert "Take a photo" in page and 'id="table-code"' in page


def test_https_server_has_a_bounded_pool_and_handshakes_off_the_accepting_thread(tmp_path):
    import threading

    app = create_app(
        {
            "SECRET_KEY": "t",
            "DATABASE": str(tmp_path / "d.sqlite"),
            "PHOTO_DIR": str(tmp_path / "p"),
        },
        instance_path=str(tmp_path),
    )
    cert, key = serve.self_signed_certificate(tmp_path, "127.0.0.1")
    port = free_port()
    server = serve.https_server(app, "127.0.0.1", port, cert, key, threads=2, timeout_s=5)
    server.prepare()
    threading.Thread(target=server.serve, daemon=True).start()
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    idle = [
        socket.create_connection(("127.0.0.1", port)) for _ in range(1)
    ]  # says nothing: no handshake
    try:
        started = time.monotonic()
        with urllib.request.urlopen(f"https://127.0.0.1:{port}/", timeout=10, context=ctx) as r:
            assert r.status == 200 and b"Start a table" in r.read()
            assert r.headers["X-Frame-Options"] == "DENY"
        assert (
            time.monotonic() - started < 4
        )  # the idle client did not hold up the accepting thread
        with pytest.raises(OSError):  # plain HTTP to the TLS port is refused, the server lives on
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=5).read()
        with urllib.request.urlopen(
            f"https://127.0.0.1:{port}/api/status", timeout=10, context=ctx
        ) as r:
            assert r.status == 200
    finally:
        for s in idle:
            s.close()
        server.stop()


def test_serve_listens_on_the_lan_by_default_and_local_is_loopback():
    import argparse

    p = argparse.ArgumentParser()
    serve.add_arguments(p)
    default = p.parse_args([])
    assert default.host == "0.0.0.0" and not default.local and default.https_port == 5443
    assert p.parse_args(["--local"]).local
