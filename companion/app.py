"""The companion web application: ``create_app(test_config=None)`` (Flask application factory).

Run it with ``domino-companion serve`` (see ``companion/commands/serve.py``) or, for
development, ``flask --app companion.app run``. State lives in the instance folder:
``companion.sqlite`` (tables, players, rounds, scored events, photos), ``photos/`` (the
uploaded images) and ``secret_key`` (signs the session cookie that remembers table codes),
so a restart loses nothing.

Configuration keys (``test_config`` or ``instance/config.py``): ``DATABASE``, ``PHOTO_DIR``,
``MAX_CONTENT_LENGTH`` (bytes, default 20 MiB), ``CAMERA_INDEX`` (laptop webcam for
``cv2.VideoCapture`` or None), ``PUBLIC_URL`` (base URL phones use for the join link; default
the URL of the request), ``TRUSTED_HOSTS`` (Host names served; default localhost, 127.0.0.1,
this computer's LAN address and name), ``DB_BUSY_TIMEOUT`` (seconds a write waits for the database
lock before answering 503, default 5), ``DB_MAX_MB`` (the database's largest size; writes
beyond it are refused as on a full disk, 507; default None), ``CODE_TRIES_PER_MINUTE`` (wrong table codes a client
may send per minute before 429, default 10), ``TABLE_CODE_TRIES_PER_MINUTE`` (wrong codes one
table takes per minute from all clients together before phones that did not join it get 429,
default 30), ``JOIN_CODE_TRIES_PER_MINUTE`` (the same for the join form, default 60),
``TABLES_PER_CLIENT`` and ``TABLES_PER_SERVER`` (tables one client, and all together, may start
in 10 minutes before 429; default 20 and 200), ``PHOTO_SLOTS`` (photos held in memory at once,
default 4) and ``PHOTO_WAIT_S`` (seconds a photo waits for one before 503, default 10).

At start-up the photo folder is swept (:func:`companion.store.sweep_photo_dir`): a crash
between writing a photo and committing its row leaves no orphan file. The database, the
secret key and the photos are readable by the owner only.
"""

from __future__ import annotations

import secrets
import sqlite3
from pathlib import Path
from typing import Any

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, SecurityError

from . import db, guard, store
from .services import Busy, ImageError, ParameterError, Unavailable
from .store import ApiError

MAX_UPLOAD_BYTES = 20 * 1024 * 1024


def _secret_key(instance: Path) -> str:
    """The session signing key, created once in the instance folder and kept across restarts."""
    path = instance / "secret_key"
    if path.exists():
        guard.private_file(path)
        return path.read_text().strip()
    key = secrets.token_hex(32)
    guard.write_private(path, key.encode())
    return key


def create_app(
    test_config: dict[str, Any] | None = None, instance_path: str | None = None
) -> Flask:
    """Build the application.

    Args:
        test_config: settings that override the defaults (tests pass DATABASE, PHOTO_DIR, ...).
        instance_path: the instance folder (absolute); default Flask's ``<project>/instance``.
    Raises:
        OSError: the instance folder cannot be created.
    """
    app = Flask(__name__, instance_path=instance_path, instance_relative_config=True)
    app.request_class = guard.FormLimitRequest
    app.json = guard.SafeJSONProvider(app)
    instance = Path(app.instance_path)
    instance.mkdir(parents=True, exist_ok=True, mode=0o700)
    app.config.from_mapping(
        DATABASE=str(instance / "companion.sqlite"),
        PHOTO_DIR=str(instance / "photos"),
        MAX_CONTENT_LENGTH=MAX_UPLOAD_BYTES,
        MAX_FORM_MEMORY_SIZE=64 * 1024,
        MAX_FORM_PARTS=50,
        CAMERA_INDEX=None,
        PUBLIC_URL=None,
        JSON_SORT_KEYS=False,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        # the session cookie (the table codes this browser joined) is sent again only when it
        # changes: a long-polling request that started before a join or rematch would
        # otherwise answer with the older cookie and drop the new table's code
        SESSION_REFRESH_EACH_REQUEST=False,
        TRUSTED_HOSTS=guard.default_trusted_hosts(),
        DB_BUSY_TIMEOUT=5.0,
        CODE_TRIES_PER_MINUTE=10,
        TABLE_CODE_TRIES_PER_MINUTE=30,
        JOIN_CODE_TRIES_PER_MINUTE=60,
        TABLES_PER_CLIENT=20,
        TABLES_PER_SERVER=200,
        PHOTO_SLOTS=4,
        PHOTO_WAIT_S=10.0,
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(instance)
    Path(app.config["PHOTO_DIR"]).mkdir(parents=True, exist_ok=True, mode=0o700)

    db.init_app(app)
    conn = db.connect(app.config["DATABASE"])
    try:
        with db.transaction(conn):
            app.config["PHOTO_SWEEP"] = store.sweep_photo_dir(conn, app.config["PHOTO_DIR"])
            store.forget_old_answers(conn)
    finally:
        conn.close()
    app.session_interface = guard.SchemeSessionInterface()
    app.before_request(guard.check_origin)
    app.before_request(guard.limit_body_size)
    app.after_request(guard.security_headers)
    app.jinja_env.globals["csrf_token"] = guard.csrf_token

    from .blueprints import api, live, pages

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp, url_prefix="/api")
    app.register_blueprint(live.bp, url_prefix="/api")
    _register_error_handlers(app)
    return app


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


def error_response(status: int, message: str):
    """A JSON ``{"error": {"status", "message"}}`` for the API, an HTML page otherwise."""
    if _wants_json():
        return jsonify({"error": {"status": status, "message": message}}), status
    try:
        return render_template("error.html", status=status, message=message), status
    except Exception:  # noqa: BLE001 - e.g. an untrusted Host: no URLs can be built for the page
        return jsonify({"error": {"status": status, "message": message}}), status


def _register_error_handlers(app: Flask) -> None:
    """Clear messages and the right status codes; never a stack trace to a user."""

    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError):
        response, status = error_response(exc.status, exc.message)
        if exc.retry_after is not None:
            response = app.make_response((response, status))
            response.headers["Retry-After"] = str(exc.retry_after)
        return response, status

    @app.errorhandler(ImageError)
    def _image_error(exc: ImageError):
        return error_response(400, str(exc))

    @app.errorhandler(ParameterError)
    def _bad_parameter(exc: ParameterError):
        return error_response(400, str(exc))

    @app.errorhandler(Unavailable)
    def _unavailable(exc: Unavailable):
        return error_response(503, str(exc))

    @app.errorhandler(Busy)
    def _busy(exc: Busy):
        return _api_error(ApiError(503, str(exc), retry_after=exc.retry_after))

    def _storage(status: int):
        if status == 507:
            return error_response(507, db.FULL_MESSAGE)
        return _api_error(ApiError(503, db.STORAGE_MESSAGE, retry_after=30))

    @app.errorhandler(OSError)
    def _os_error(exc: OSError):
        status = db.storage_status(exc)
        if not status:
            return _unexpected(exc)
        app.logger.warning("storage error on %s %s: %s", request.method, request.path, exc)
        return _storage(status)

    @app.errorhandler(sqlite3.DatabaseError)
    def _locked(exc: sqlite3.DatabaseError):
        status = db.storage_status(exc)
        if status:
            app.logger.warning("storage error on %s %s: %s", request.method, request.path, exc)
            return _storage(status)
        if db.is_busy(exc):
            return _api_error(
                ApiError(
                    503,
                    "the server is busy writing other changes; nothing was "
                    "stored, try again in a moment",
                    retry_after=2,
                )
            )
        return _unexpected(exc)

    @app.errorhandler(413)
    def _too_large(_exc):
        limit = app.config["MAX_CONTENT_LENGTH"] // (1024 * 1024)
        if request.mimetype != "multipart/form-data":
            return error_response(
                413,
                f"the request body is too large; at most {guard.MAX_BODY_BYTES // 1024} kB "
                "are accepted (only photos may be larger)",
            )
        if (request.content_length or 0) <= app.config["MAX_CONTENT_LENGTH"]:
            fields = app.config["MAX_FORM_MEMORY_SIZE"] // 1024
            return error_response(
                413,
                f"a form field is too large or the form has too many parts; at most "
                f"{fields} kB of text per field are accepted",
            )
        return error_response(
            413,
            f"the upload is too large; at most {limit} MB are accepted "
            "(the page shrinks photos before sending them)",
        )

    @app.errorhandler(SecurityError)
    def _untrusted_host(exc: SecurityError):
        return error_response(400, guard.untrusted_host_message(exc))

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        return error_response(exc.code or 500, exc.description or exc.name)

    @app.errorhandler(Exception)
    def _unexpected(exc: BaseException):
        app.logger.exception("unhandled error on %s %s", request.method, request.path)
        return error_response(500, "something went wrong on the server; the error was logged")
