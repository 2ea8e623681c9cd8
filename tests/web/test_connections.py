"""Idle, slow and silent connections against the real server process (waitress for HTTP,
cheroot for HTTPS): a normal client is still answered quickly (``companion.connections``)."""

from __future__ import annotations

import socket
import ssl
import time
import urllib.request

import pytest

from companion.connections import PER_ADDRESS

from .test_serve import free_port, serve_process


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """``serve --local --no-demo --threads 4`` on free ports: ``(http_port, https_port, proc)``."""
    folder = tmp_path_factory.mktemp("served")
    port, https_port = free_port(), free_port()
    proc = serve_process(folder, port, https_port, "--no-demo", "--threads", "4")
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", https_port), timeout=1).close()
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail("serve did not start:\n" + (proc.stdout.read() if proc.stdout else ""))
            time.sleep(0.2)
    yield port, https_port, proc
    proc.terminate()
    proc.wait(timeout=10)


def answered_within(url: str) -> float:
    """Seconds a normal GET of ``url`` takes (fails the test if it is not answered 200)."""
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    started = time.monotonic()
    with urllib.request.urlopen(url, timeout=10, context=ctx) as r:
        assert r.status == 200
        r.read()
    return time.monotonic() - started


def connect_from(source: str, port: int) -> socket.socket:
    """A TCP connection to 127.0.0.1:``port`` from the loopback address ``source``."""
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    return s


#: The first bytes of a TLS ClientHello record (a client that stops half way through).
PARTIAL_HELLO = bytes.fromhex("16030100c8010000c40303")
#: Connections of this module's tests that began a TLS handshake and gave up (each is one
#: log line); those that closed before their first byte are not logged.
gave_up: list[int] = []


def test_idle_and_slow_connections_do_not_lock_out_a_normal_client(served):
    port, https_port, _proc = served
    held: list[socket.socket] = []
    try:
        # 150 idle HTTP connections from 10 addresses, a third of them half way through a request
        for i in range(150):
            s = connect_from(f"127.0.0.{2 + i % 10}", port)
            if i % 3 == 0:
                s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            held.append(s)
        # 40 on HTTPS: 20 silent, 20 stopped in the middle of their ClientHello
        for i in range(40):
            s = connect_from(f"127.0.0.{20 + i % 4}", https_port)
            if i % 2:
                s.sendall(PARTIAL_HELLO)
                gave_up.append(i)
            held.append(s)
        for _ in range(3):
            assert answered_within(f"http://127.0.0.1:{port}/api/status") < 3
            assert answered_within(f"https://127.0.0.1:{https_port}/api/status") < 3
            held[0].sendall(b"a")  # a byte now and then keeps a slow request going
            time.sleep(0.3)
        for s in held:  # the server kept them all open (none over the per-address cap)
            s.setblocking(False)
            with pytest.raises(BlockingIOError):
                s.recv(1)
    finally:
        for s in held:
            s.close()


@pytest.mark.parametrize("which", ["http", "https"])
def test_one_address_holds_at_most_its_share_of_connections(served, which):
    port, https_port, _proc = served
    target = port if which == "http" else https_port
    held = [connect_from("127.0.0.99", target) for _ in range(PER_ADDRESS + 5)]
    try:
        closed = 0
        deadline = time.monotonic() + 3
        for s in held[PER_ADDRESS:]:
            s.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                closed += s.recv(1) == b""
            except ConnectionResetError:
                closed += 1
            except TimeoutError:
                pass
        assert closed == 5  # the connections beyond the cap were closed at once
        assert answered_within(f"{which}://127.0.0.1:{target}/api/status") < 3  # others served
    finally:
        for s in held:
            s.close()


def test_https_clients_trickling_their_requests_do_not_take_every_worker(served):
    """12 TLS connections from one address (the server has 4 workers) send half a request
    and then a byte now and then: that address gets at most half the workers, so a normal
    client is still answered at once."""
    _port, https_port, _proc = served
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    held = []
    try:
        for _ in range(12):
            s = ctx.wrap_socket(connect_from("127.0.0.60", https_port))
            s.sendall(b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            held.append(s)
        for _ in range(4):
            for s in held:
                s.sendall(b"a")
            assert answered_within(f"https://127.0.0.1:{https_port}/api/status") < 3
            time.sleep(0.3)
    finally:
        for s in held:
            s.close()


def test_a_failed_tls_handshake_is_one_log_line_without_traceback(served):
    _port, https_port, proc = served
    with socket.create_connection(("127.0.0.1", https_port), timeout=5) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")  # plain HTTP to the TLS port
        s.settimeout(5)
        try:
            assert s.recv(100) == b""  # closed
        except ConnectionResetError:
            pass
    assert answered_within(f"https://127.0.0.1:{https_port}/api/status") < 3
    proc.terminate()
    out = proc.communicate(timeout=10)[0]
    assert out.count("TLS handshake with 127.0.0.1 failed: HTTP_REQUEST") == 1, out[-2000:]
    # the half-made handshakes are one line each; silent connections that closed, none
    assert out.count("TLS handshake with") == 1 + len(gave_up), out[-2000:]
    assert "Traceback" not in out  # nor for the half-made handshakes closed by earlier tests
