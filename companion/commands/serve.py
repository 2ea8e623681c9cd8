"""``domino-companion serve``: the companion web server for phones.

With no arguments it listens on every interface (``0.0.0.0``), so phones on the same network
can join: the console prints this computer's LAN address and a QR code of it. It serves plain
HTTP on ``--port`` (default 5000) and, at the same time, HTTPS on ``--https-port`` (default
5443) with a self-signed certificate kept in the instance folder (made with the
``cryptography`` package if importable, else the ``openssl`` command): phones allow the live
camera preview (getUserMedia) only on a secure page, and warn once about the certificate.
``--local`` serves this computer only (127.0.0.1); ``--no-https`` serves HTTP alone;
``--https`` serves HTTPS alone on ``--port`` (the session cookie is then marked ``Secure``).

It uses ``<project>/instance`` for its data and, on first run, creates one demo table per game
with a photo analysed: the draw game on a bundled real photo (``sample_images/``), the
solitaires and Tableaux on photos rendered by ``vision/render`` (``sample_images/rendered/``,
marked as rendered on the page) until real photos of those layouts exist.

HTTP is served by waitress, HTTPS by cheroot (waitress has no TLS); both are production WSGI
servers in pure Python with ``--threads`` worker threads (default 16). Idle, slow and silent
connections are handled as ``companion.connections`` describes: at most 1,000 open connections
per server and 32 per client address, closed after 30 s without a byte; a connection gets a
worker only once it has sent something, and a TLS handshake must finish within 10 s (one log
line when it fails). The TLS handshake is done in a worker when the connection's first bytes
are read, never in the accepting thread (:class:`LazyHandshakeAdapter`). Phones following a table live wait on its
change feed by long polling, one worker thread each while they wait; at most ``--threads``
minus :data:`FREE_THREADS` of them wait at once, so frames, photos and score entries always
find a free thread (``companion.blueprints.live``). ``--debug`` runs Werkzeug's development
server instead (tracebacks in the console, never for phones). ``--camera N`` lets the page
grab photos from the laptop's webcam N (OpenCV ``VideoCapture``) and follow a table live from
it (a background thread, :func:`start_laptop_camera`); a camera that cannot be opened is a
message in the console, and the server runs on without it.

Only the Host names this computer answers to are served (DNS rebinding protection):
localhost, 127.0.0.1, the LAN address, the computer's name (and ``<name>.local``), ``--host``
and any ``--trusted-host NAME``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import socket
import subprocess
import threading
from pathlib import Path

from cheroot.ssl.builtin import BuiltinSSLAdapter

from companion.connections import CHANNEL_TIMEOUT_S, CONNECTION_LIMIT, LimitedServer, cap_waitress
from engine.catalog import BIG_CLOCK, DRAW100, GOOD_NEIGHBORS, LUZON, TABLEAUX

SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"

#: demo table per game: (game, players, photo under sample_images/, engine set, hand of the
#: first seat, or the Big Clock's drawn tile, or None). The draw game is a real photo of a line of play; the solitaires and
#: Tableaux are rendered layouts (scripts/render_demo_photos.py prints the Tableaux hand).
DEMOS = [
    (
        DRAW100,
        ["Ana", "Ben", "Cleo"],
        "vintage-games-game-night.jpg",
        None,
        ["6-6", "2-6", "1-2", "0-3"],
    ),
    (TABLEAUX, ["Ana", "Ben"], "rendered/tableaux.jpg", 6, ["1-1", "6-6", "3-6", "2-6"]),
    (GOOD_NEIGHBORS, ["You"], "rendered/good-neighbors.jpg", 6, None),
    (BIG_CLOCK, ["You"], "rendered/big-clock.jpg", 6, ["0-3"]),  # the tile drawn from the stock
    (LUZON, ["You"], "rendered/luzon.jpg", None, None),
]


#: Worker threads per server (HTTP and HTTPS each): phones at a live table wait on the change
#: feed by long polling, one thread each, and :data:`FREE_THREADS` stay for everything else.
DEFAULT_THREADS = 16
#: Threads never taken by long-polling phones (frame posts, photos, score entries).
FREE_THREADS = 4


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--host",
        default="0.0.0.0",
        help="address to listen on (default 0.0.0.0: phones on the network can join)",
    )
    p.add_argument(
        "--local",
        action="store_true",
        help="this computer only: listen on 127.0.0.1 (same as --host 127.0.0.1)",
    )
    p.add_argument("--port", type=int, default=5000, help="TCP port for HTTP (default 5000)")
    p.add_argument(
        "--https-port",
        type=int,
        default=5443,
        metavar="PORT",
        help="TCP port for HTTPS beside HTTP, for the live camera on phones (default 5443)",
    )
    p.add_argument(
        "--no-https", action="store_true", help="serve plain HTTP only (no live camera on phones)"
    )
    p.add_argument(
        "--https",
        action="store_true",
        help="serve HTTPS only, on --port (self-signed certificate; session cookie Secure)",
    )
    p.add_argument(
        "--camera",
        type=int,
        default=None,
        metavar="N",
        help="the laptop's webcam N (cv2.VideoCapture index): 'grab from laptop camera' and "
        "live following of a table from it",
    )
    p.add_argument(
        "--instance",
        default=None,
        metavar="DIR",
        help="folder for the database and photos (default <project>/instance)",
    )
    p.add_argument("--no-demo", action="store_true", help="do not create the demo tables")
    p.add_argument(
        "--threads",
        type=int,
        default=DEFAULT_THREADS,
        metavar="N",
        help=f"worker threads answering requests (default {DEFAULT_THREADS}; phones following "
        "a table live each hold one while they wait for news)",
    )
    p.add_argument(
        "--trusted-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another Host name phones use to reach this computer (e.g. mylaptop.local); repeatable",
    )
    p.add_argument(
        "--debug",
        action="store_true",
        help="Werkzeug's development server with the debugger off but tracebacks in the console",
    )


def lan_address() -> str | None:
    """This computer's address on the local network (no packet is sent), or None."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()


def self_signed_certificate(folder: Path, host: str) -> tuple[str, str]:
    """``(cert.pem, key.pem)`` in ``folder``, made once and reused (valid 825 days).

    Raises:
        OSError: neither the ``cryptography`` package nor the ``openssl`` command is there.
    """
    cert, key = folder / "cert.pem", folder / "key.pem"
    if cert.exists() and key.exists():
        return str(cert), str(key)
    names = sorted(
        {"localhost", "127.0.0.1", host, *(a for a in [lan_address()] if a)} - {"0.0.0.0"}
    )
    try:
        import ipaddress

        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        from cryptography.x509.oid import NameOID
    except ImportError:
        openssl = shutil.which("openssl")
        if openssl is None:
            raise OSError(
                "--https needs the 'cryptography' package (pip install cryptography) "
                "or the openssl command"
            ) from None
        san = ",".join(f"IP:{n}" if n[0].isdigit() else f"DNS:{n}" for n in names)
        subprocess.run(
            [
                openssl,
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "825",
                "-subj",
                "/CN=domino-companion",
                "-addext",
                f"subjectAltName={san}",
                "-keyout",
                str(key),
                "-out",
                str(cert),
            ],
            check=True,
            capture_output=True,
        )
        from companion.guard import private_file

        private_file(key)
        return str(cert), str(key)
    pkey = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "domino-companion")])
    alt = [
        x509.IPAddress(ipaddress.ip_address(n)) if n[0].isdigit() else x509.DNSName(n)
        for n in names
    ]
    now = dt.datetime.now(dt.timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(pkey.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=825))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .sign(pkey, hashes.SHA256())
    )
    from companion.guard import write_private

    write_private(
        key,
        pkey.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        ),
    )
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return str(cert), str(key)


def create_demo_tables(app, log=print) -> int:
    """One table per game with a sample photo analysed, unless demo tables exist. Returns how many made."""
    import time

    from companion import store
    from companion.blueprints.api import add_photo
    from companion.db import get_db, transaction

    made = 0
    with app.test_request_context("/"):
        if store.has_demo_table(get_db()):
            return 0
        for game, names, sample, max_pip, hand in DEMOS:
            with transaction() as db:
                t = store.create_table(db, game, names, max_pip=max_pip, demo=True)
            path = SAMPLES / sample
            if path.exists():
                started = time.perf_counter()
                first = t["players"][0]["id"]
                photo, _ = add_photo(
                    store.table_row(get_db(), t["id"]),
                    path.read_bytes(),
                    started,
                    hand,
                    player_id=first,
                    rendered=sample.startswith("rendered/"),
                )
                log(
                    f"  demo table {t['id']}: {t['game_label']}, code {t['code']} ({len(photo['tiles'])} tiles "
                    f"in {sample}, {photo['elapsed_ms']:.0f} ms)"
                )
            made += 1
    return made


#: Connections accepted by cheroot and waiting for a worker thread.
MAX_PENDING = 100


class LazyHandshakeAdapter(BuiltinSSLAdapter):
    """cheroot's builtin TLS adapter with the handshake moved off the accepting thread.

    ``BuiltinSSLAdapter.wrap`` handshakes in cheroot's accepting thread, so one client that
    connects and says nothing would hold up every other connection for the whole timeout.
    Here the socket is wrapped with ``do_handshake_on_connect=False``: OpenSSL does the
    handshake on the first read, in the worker thread that serves the connection, under the
    connection timeout (a client that sends nothing holds one worker until then, never the
    accepting thread).

    Raises (constructor): ssl.SSLError, OSError: the certificate or key cannot be loaded.
    """

    ENVIRON = {"wsgi.url_scheme": "https", "HTTPS": "on"}

    def wrap(self, sock):
        return self.context.wrap_socket(
            sock, do_handshake_on_connect=False, server_side=True
        ), dict(self.ENVIRON)

    def get_environ(self, sock):  # the cipher is not known before the handshake
        return dict(self.ENVIRON)


def https_server(
    app,
    host: str,
    port: int,
    certfile: str,
    keyfile: str,
    threads: int = 8,
    timeout_s: float = CHANNEL_TIMEOUT_S,
    max_pending: int = MAX_PENDING,
):
    """A cheroot HTTPS server for ``app`` (call ``.start()`` or ``.safe_start()``; ``.stop()``).

    ``threads`` worker threads (fixed), at most ``max_pending`` accepted connections waiting
    for a worker, ``timeout_s`` seconds on a silent or slow connection, the connection limits
    of :class:`companion.connections.LimitedServer`.
    """
    server = LimitedServer(
        (host, port),
        app,
        numthreads=threads,
        max=threads,
        timeout=int(timeout_s),
        server_name="domino-companion",
        accepted_queue_size=max_pending,
        request_queue_size=64,
    )
    server.ssl_adapter = LazyHandshakeAdapter(certfile, keyfile)
    return server


def trusted_hosts(args: argparse.Namespace, public_host: str) -> list[str]:
    """Host names to serve: the defaults (localhost, 127.0.0.1, LAN address) plus --host and --trusted-host."""
    from companion.guard import default_trusted_hosts

    hosts = default_trusted_hosts()
    for h in [args.host, public_host, *args.trusted_host]:
        if h and h not in ("0.0.0.0", "::", "") and h not in hosts:
            hosts.append(h)
    return hosts


def start_laptop_camera(app, index: int, capture=None) -> bool:
    """Start the webcam's live feeder (``companion.blueprints.live.CameraFeeder``) after
    checking that camera ``index`` opens; prints what it found. Never raises: without a camera
    the server runs on with a clear message (phones' own cameras work). Returns True when the
    camera opened."""
    from companion.blueprints.live import start_camera_feeder

    try:
        if capture is None:
            import cv2

            capture = cv2.VideoCapture
        cap = capture(index)
        ok = bool(cap.isOpened())
        cap.release()
    except Exception as exc:  # noqa: BLE001 - a broken camera driver must not stop the server
        print(f"Laptop camera {index}: cannot be used ({type(exc).__name__}: {exc}).")
        ok = False
    if not ok:
        print(
            f"Laptop camera {index} cannot be opened: no laptop camera (check --camera N; "
            "phones' cameras work)."
        )
        app.config["CAMERA_INDEX"] = None
        return False
    start_camera_feeder(app, index, capture)
    print(f"Laptop camera {index}: 'Follow with laptop camera' on a table page reads it live.")
    return True


def run(args: argparse.Namespace) -> int:
    from companion.app import create_app

    instance = str(Path(args.instance).resolve()) if args.instance else None
    host = "127.0.0.1" if args.local else args.host
    both = not args.https and not args.no_https and not args.debug  # HTTP and HTTPS side by side
    scheme = "https" if args.https else "http"
    app = create_app(None, instance_path=instance)
    if args.camera is not None:
        app.config["CAMERA_INDEX"] = args.camera
    public_host = host
    if host in ("0.0.0.0", "::", ""):
        public_host = lan_address() or "127.0.0.1"
    app.config["PUBLIC_URL"] = f"{scheme}://{public_host}:{args.port}"
    app.config["SECURE_URL"] = f"https://{public_host}:{args.https_port}" if both else None
    app.config["ANNOUNCE_TABLES"] = True
    args.host = host
    app.config["TRUSTED_HOSTS"] = trusted_hosts(args, public_host)
    app.config["SESSION_COOKIE_SECURE"] = bool(args.https)
    from companion import db

    # one connection open for the server's lifetime keeps the database's -wal and -shm files,
    # so reading tables needs no new file even when the disk is full
    app.extensions["db_keeper"] = db.connect(app.config["DATABASE"])
    print(f"Instance folder: {app.instance_path}")
    sweep = app.config.get("PHOTO_SWEEP") or {}
    if sweep.get("completed") or sweep.get("removed"):
        print(
            f"Photo folder tidied after an interrupted run: {sweep['completed']} photo(s) completed, "
            f"{sweep['removed']} orphan file(s) removed."
        )
    if not args.no_demo:
        n = create_demo_tables(app)
        if n:
            print(f"Created {n} demo tables from {SAMPLES}.")
    cert = None
    if args.https or both:
        try:
            cert = self_signed_certificate(Path(app.instance_path), public_host)
        except (OSError, subprocess.CalledProcessError) as exc:
            if args.https:
                raise
            print(f"No HTTPS ({exc}); the live camera needs it, photos work without.")
            app.config["SECURE_URL"] = None
            both = False
    url = app.config["PUBLIC_URL"] + "/"
    print(f"Open {url} (Ctrl+C stops).")
    if app.config.get("SECURE_URL"):
        print(
            f"Live camera on phones: {app.config['SECURE_URL']}/ (self-signed certificate: "
            "the phone warns once; accept it)."
        )
    elif args.https:
        print(
            "HTTPS with a self-signed certificate: phones warn once; accept it to get the live camera."
        )
    if host == "127.0.0.1":
        print(
            "Only this computer can connect (--local); leave it out so phones on the network can join."
        )
    else:
        try:
            import segno

            print("Phones on the same network: scan to open the start page")
            segno.make(url, error="m").terminal(compact=True)
        except Exception:  # noqa: BLE001 - a QR code in the console is a nicety
            pass
    import logging

    # one line per event (refused connections, failed TLS handshakes), no tracebacks
    logging.basicConfig(format="%(asctime)s %(name)s: %(message)s", level=logging.WARNING)
    threads = max(1, min(int(args.threads), 64))
    # both servers share the app: waiting phones on either leave FREE_THREADS free on each
    app.config["LIVE_MAX_WAITERS"] = max(0, threads - FREE_THREADS)
    if args.camera is not None:
        start_laptop_camera(app, args.camera)
    if args.debug:
        print("Development server (--debug): not for phones on a network.")
        app.run(
            host=host,
            port=args.port,
            ssl_context=cert if args.https else None,
            threaded=True,
            debug=False,
            use_reloader=False,
        )
        return 0
    tls = None
    if cert is not None:
        tls = https_server(
            app, host, args.port if args.https else args.https_port, *cert, threads=threads
        )
        tls.prepare()
        if args.https:
            try:
                tls.serve()
            finally:
                tls.stop()
            return 0
        threading.Thread(target=tls.serve, name="https", daemon=True).start()
    import waitress.server

    try:
        server = waitress.server.create_server(
            app,
            host=host,
            port=args.port,
            threads=threads,
            connection_limit=CONNECTION_LIMIT,
            channel_timeout=CHANNEL_TIMEOUT_S,
            cleanup_interval=5,
            asyncore_use_poll=True,
            max_request_body_size=app.config["MAX_CONTENT_LENGTH"] + 1024 * 1024,
            ident="domino-companion",
        )
        cap_waitress(server)
        server.run()
    finally:
        if tls is not None:
            tls.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m companion.commands.serve [...]``: the same as ``domino-companion serve``."""
    parser = argparse.ArgumentParser(
        prog="domino-companion serve", description=__doc__.splitlines()[0]
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
