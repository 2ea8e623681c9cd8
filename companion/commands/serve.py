"""``domino-companion serve``: the companion web server for phones.

With no arguments it listens on 127.0.0.1:5000, uses ``<project>/instance`` for its data and,
on first run, creates one demo table per game whose first photo is a bundled sample image
(``sample_images/``), so a new user sees tiles, moves and scores at once. ``--host 0.0.0.0``
(explicit) lets phones on the same network join; the join link and QR code are printed.

``--https`` serves over TLS with a self-signed certificate kept in the instance folder (made
with the ``cryptography`` package if importable, else the ``openssl`` command); phones then
allow the live camera preview (getUserMedia needs a secure page). ``--camera N`` lets the
page grab photos from the laptop's webcam N (OpenCV ``VideoCapture``).
"""
from __future__ import annotations

import argparse
import datetime as dt
import shutil
import socket
import subprocess
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
    p.add_argument("--threads", action="store_true", default=True, help=argparse.SUPPRESS)


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
    key.write_bytes(pkey.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
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
                photo = add_photo(store.table_row(get_db(), t["id"]), path.read_bytes(), started)
                log(f"  demo table {t['id']}: {t['game_label']}, code {t['code']} ({len(photo['tiles'])} tiles "
                    f"in {sample}, {photo['elapsed_ms']:.0f} ms)")
            made += 1
    return made


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
    print(f"Instance folder: {app.instance_path}")
    if not args.no_demo:
        n = create_demo_tables(app)
        if n:
            print(f"Created {n} demo tables from {SAMPLES}.")
    ssl_context = None
    if args.https:
        ssl_context = self_signed_certificate(Path(app.instance_path), public_host)
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
    app.run(host=args.host, port=args.port, ssl_context=ssl_context, threaded=True, debug=False,
            use_reloader=False)
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m companion.commands.serve [...]``: the same as ``domino-companion serve``."""
    parser = argparse.ArgumentParser(prog="domino-companion serve", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
