"""``domino-companion serve``: the companion web server for phones.

With no arguments it listens on 127.0.0.1:5000, uses ``<project>/instance`` for its data and,
on first run, creates one demo table per game whose first photo is a bundled sample image
(``sample_images/``), so a new user sees tiles, moves and scores at once. ``--host 0.0.0.0``
(explicit) lets phones on the same network join; the join link and QR code are printed.

The server is waitress (a production WSGI server: pure Python, Linux, macOS and Windows) with
``--threads`` worker threads (default 8), at most 100 open connections and a 60 s timeout on
idle or slow connections. ``--debug`` runs Werkzeug's development server instead (tracebacks
in the console, never for phones).

``--https`` serves over TLS with a self-signed certificate kept in the instance folder (made
with the ``cryptography`` package if importable, else the ``openssl`` command); phones then
allow the live camera preview (getUserMedia needs a secure page). Waitress has no TLS, so
under ``--https`` the server is :class:`PooledTLSServer`: the same bounded worker threads and
timeouts, the TLS handshake done in a worker, never in the accepting thread. The session
cookie is then marked ``Secure``. ``--camera N`` lets the page grab photos from the laptop's
webcam N (OpenCV ``VideoCapture``).

Only the Host names this computer answers to are served (DNS rebinding protection):
localhost, 127.0.0.1, the LAN address, the computer's name (and ``<name>.local``), ``--host``
and any ``--trusted-host NAME``.
"""
from __future__ import annotations

import argparse
import datetime as dt
import shutil
import socket
import ssl
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"

#: demo table per game: (game, players, sample photo, engine set). The photo with the most
#: tiles is used for every game: a new user sees tiles outlined and the reader's verdict.
DEMOS = [
    ("draw100", ["Ana", "Ben", "Cleo"], "vintage-games-game-night.jpg", None),
    ("tableaux", ["Ana", "Ben"], "vintage-games-game-night.jpg", 6),
    ("good-neighbors", ["You"], "vintage-games-game-night.jpg", 6),
    ("big-clock", ["You"], "vintage-games-game-night.jpg", 6),
    ("luzon", ["You"], "vintage-games-game-night.jpg", None),
]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this computer only; "
                        "0.0.0.0 lets phones on the network join)")
    p.add_argument("--port", type=int, default=5000, help="TCP port (default 5000)")
    p.add_argument("--https", action="store_true",
                   help="serve over HTTPS with a self-signed certificate (live camera preview on phones)")
    p.add_argument("--camera", type=int, default=None, metavar="N",
                   help="offer 'grab from laptop camera' using webcam N (cv2.VideoCapture index)")
    p.add_argument("--instance", default=None, metavar="DIR",
                   help="folder for the database and photos (default <project>/instance)")
    p.add_argument("--no-demo", action="store_true", help="do not create the demo tables")
    p.add_argument("--threads", type=int, default=8, metavar="N",
                   help="worker threads answering requests (default 8)")
    p.add_argument("--trusted-host", action="append", default=[], metavar="NAME",
                   help="another Host name phones use to reach this computer (e.g. mylaptop.local); repeatable")
    p.add_argument("--debug", action="store_true",
                   help="Werkzeug's development server with the debugger off but tracebacks in the console")


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
    names = sorted({"localhost", "127.0.0.1", host, *(a for a in [lan_address()] if a)} - {"0.0.0.0"})
    try:
        import ipaddress

        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        from cryptography.x509.oid import NameOID
    except ImportError:
        openssl = shutil.which("openssl")
        if openssl is None:
            raise OSError("--https needs the 'cryptography' package (pip install cryptography) "
                          "or the openssl command") from None
        san = ",".join(f"IP:{n}" if n[0].isdigit() else f"DNS:{n}" for n in names)
        subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "825",
                        "-subj", "/CN=domino-companion", "-addext", f"subjectAltName={san}",
                        "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
        from companion.guard import private_file
        private_file(key)
        return str(cert), str(key)
    pkey = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "domino-companion")])
    alt = [x509.IPAddress(ipaddress.ip_address(n)) if n[0].isdigit() else x509.DNSName(n) for n in names]
    now = dt.datetime.now(dt.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
                   .public_key(pkey.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=825))
                   .add_extension(x509.SubjectAlternativeName(alt), critical=False)
                   .sign(pkey, hashes.SHA256()))
    from companion.guard import write_private
    write_private(key, pkey.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                          serialization.NoEncryption()))
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
        if get_db().execute("SELECT 1 FROM tables WHERE demo = 1").fetchone():
            return 0
        for game, names, sample, max_pip in DEMOS:
            with transaction() as db:
                t = store.create_table(db, game, names, max_pip=max_pip, demo=True)
            path = SAMPLES / sample
            if path.exists():
                started = time.perf_counter()
                photo, _ = add_photo(store.table_row(get_db(), t["id"]), path.read_bytes(), started)
                log(f"  demo table {t['id']}: {t['game_label']}, code {t['code']} ({len(photo['tiles'])} tiles "
                    f"in {sample}, {photo['elapsed_ms']:.0f} ms)")
            made += 1
    return made


#: Connection limits of the server: open connections, idle/slow connection timeout (s).
CONNECTION_LIMIT = 100
CHANNEL_TIMEOUT_S = 60


class PooledTLSServer:
    """An HTTPS WSGI server with a fixed pool of worker threads (``--https``; waitress has no TLS).

    The accepting thread only accepts; each connection is handed to one of ``threads``
    workers, which sets a ``timeout_s`` socket timeout, does the TLS handshake and serves the
    connection's requests with Werkzeug's request handler. Connections beyond
    ``max_pending`` waiting for a worker are closed at once.
    """

    def __init__(self, app, host: str, port: int, certfile: str, keyfile: str, threads: int = 8,
                 timeout_s: float = CHANNEL_TIMEOUT_S, max_pending: int = CONNECTION_LIMIT):
        from werkzeug.serving import BaseWSGIServer
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(certfile, keyfile)
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="https")
        self.slots = threading.BoundedSemaphore(max_pending)
        self.timeout_s = timeout_s
        outer = self

        class _Server(BaseWSGIServer):
            def process_request(self, request, client_address):
                if not outer.slots.acquire(blocking=False):
                    self.shutdown_request(request)
                    return
                outer.pool.submit(outer._serve, self, request, client_address)

        self.server = _Server(host, port, app)
        self.server.ssl_context = self.context  # wsgi.url_scheme = https; wrapping is done per connection

    def _serve(self, server, request, client_address) -> None:
        try:
            request.settimeout(self.timeout_s)
            tls = self.context.wrap_socket(request, server_side=True)
            try:
                server.finish_request(tls, client_address)
            finally:
                server.shutdown_request(tls)
        except (OSError, ssl.SSLError):  # handshake failed, timeout, client gone
            server.shutdown_request(request)
        finally:
            self.slots.release()

    def serve_forever(self) -> None:
        try:
            self.server.serve_forever()
        finally:
            self.pool.shutdown(wait=False, cancel_futures=True)


def trusted_hosts(args: argparse.Namespace, public_host: str) -> list[str]:
    """Host names to serve: the defaults (localhost, 127.0.0.1, LAN address) plus --host and --trusted-host."""
    from companion.guard import default_trusted_hosts
    hosts = default_trusted_hosts()
    for h in [args.host, public_host, *args.trusted_host]:
        if h and h not in ("0.0.0.0", "::", "") and h not in hosts:
            hosts.append(h)
    return hosts


def run(args: argparse.Namespace) -> int:
    from companion.app import create_app
    instance = str(Path(args.instance).resolve()) if args.instance else None
    scheme = "https" if args.https else "http"
    app = create_app(None, instance_path=instance)
    if args.camera is not None:
        app.config["CAMERA_INDEX"] = args.camera
    public_host = args.host
    if args.host in ("0.0.0.0", "::", ""):
        public_host = lan_address() or "127.0.0.1"
    app.config["PUBLIC_URL"] = f"{scheme}://{public_host}:{args.port}"
    app.config["ANNOUNCE_TABLES"] = True
    app.config["TRUSTED_HOSTS"] = trusted_hosts(args, public_host)
    app.config["SESSION_COOKIE_SECURE"] = bool(args.https)
    print(f"Instance folder: {app.instance_path}")
    sweep = app.config.get("PHOTO_SWEEP") or {}
    if sweep.get("completed") or sweep.get("removed"):
        print(f"Photo folder tidied after an interrupted run: {sweep['completed']} photo(s) completed, "
              f"{sweep['removed']} orphan file(s) removed.")
    if not args.no_demo:
        n = create_demo_tables(app)
        if n:
            print(f"Created {n} demo tables from {SAMPLES}.")
    cert = None
    if args.https:
        cert = self_signed_certificate(Path(app.instance_path), public_host)
        print("HTTPS with a self-signed certificate: phones warn once; accept it to get the live camera.")
    url = app.config["PUBLIC_URL"] + "/"
    print(f"Open {url} (Ctrl+C stops).")
    if args.host == "127.0.0.1":
        print("Only this computer can connect; use --host 0.0.0.0 so phones on the network can join.")
    else:
        try:
            import segno
            print("Phones: scan to open the start page")
            segno.make(url, error="m").terminal(compact=True)
        except Exception:  # noqa: BLE001 - a QR code in the console is a nicety
            pass
    threads = max(1, min(int(args.threads), 64))
    if args.debug:
        print("Development server (--debug): not for phones on a network.")
        app.run(host=args.host, port=args.port, ssl_context=cert, threaded=True, debug=False, use_reloader=False)
    elif cert is not None:
        PooledTLSServer(app, args.host, args.port, *cert, threads=threads).serve_forever()
    else:
        import waitress
        waitress.serve(app, host=args.host, port=args.port, threads=threads, connection_limit=CONNECTION_LIMIT,
                       channel_timeout=CHANNEL_TIMEOUT_S, cleanup_interval=10,
                       max_request_body_size=app.config["MAX_CONTENT_LENGTH"] + 1024 * 1024,
                       ident="domino-companion", _quiet=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m companion.commands.serve [...]``: the same as ``domino-companion serve``."""
    parser = argparse.ArgumentParser(prog="domino-companion serve", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
