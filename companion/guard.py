"""What keeps hostile or clumsy requests out: JSON depth limit, trusted hosts, security
headers, the start form's CSRF token, the wrong-code and table-creation rate limits, the
photos held in memory at once and owner-only files.

Everything here is installed by :func:`companion.app.create_app`; the blueprints call
:func:`check_code_attempts`, :func:`wrong_code` and :func:`check_csrf`.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from flask import Request, current_app, request, session
from flask.json.provider import DefaultJSONProvider
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import BadSignature
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.formparser import FormDataParser, MultiPartParser

from .store import ApiError

#: Deepest JSON nesting accepted in a request body (the API's bodies are 3 levels deep).
MAX_JSON_DEPTH = 32


_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def json_depth(text: str) -> int:
    """Deepest bracket nesting in a JSON text, strings skipped (regex and numpy: no Python loop
    per character, so a 20 MB body costs milliseconds)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if not brackets:
        return 0
    codes = np.frombuffer(brackets.encode("ascii"), np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(np.cumsum(steps).max())


class SafeJSONProvider(DefaultJSONProvider):
    """Flask's JSON with request bodies limited to :data:`MAX_JSON_DEPTH` levels.

    Deeper input (``[[[[...`` 50,000 deep would exhaust Python's recursion limit) and anything
    the parser rejects raise ``ValueError``, which ``request.get_json`` turns into 400.
    """

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        if isinstance(s, (bytes, bytearray)):
            s = s.decode("utf-8", "replace")
        if s.count("[") + s.count("{") > MAX_JSON_DEPTH and json_depth(s) > MAX_JSON_DEPTH:
            raise ValueError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
        try:
            return json.loads(s, **kwargs)
        except RecursionError:  # pragma: no cover - the depth check comes first
            raise ValueError("JSON nested too deep") from None


#: Largest request body that is not a multipart upload (JSON bodies, the start form), bytes.
MAX_BODY_BYTES = 256 * 1024


def limit_body_size() -> None:
    """Only photo uploads (multipart) may use ``MAX_CONTENT_LENGTH``; other bodies (JSON, forms)
    are limited to :data:`MAX_BODY_BYTES` (413 beyond), so nobody makes the server parse 20 MB
    of JSON."""
    if request.mimetype != "multipart/form-data":
        request.max_content_length = min(
            MAX_BODY_BYTES, current_app.config["MAX_CONTENT_LENGTH"] or MAX_BODY_BYTES
        )


#: Bytes Werkzeug's multipart parser reads from the body at a time (its ``buffer_size``).
MULTIPART_READ_BYTES: int = inspect.signature(MultiPartParser).parameters["buffer_size"].default


class FormLimitRequest(Request):
    """Flask's request with ``MAX_FORM_MEMORY_SIZE`` applied to text fields only.

    Werkzeug 3.1 checks ``max_form_memory_size`` twice while parsing ``multipart/form-data``:
    against each text field (meant), and against its read buffer (a chunk of
    :data:`MULTIPART_READ_BYTES` plus the bytes kept from the last chunk), file parts included.
    With a 64 kB limit the second check refuses a 2-5 MB phone photo (413) whenever a chunk
    ends near a line break, which is most photos over 64 kB. So the parser gets the limit plus
    one read buffer and 4 kB of part headers (a file part passes; a text field is still stopped
    while it streams in), and after parsing every text field, multipart or urlencoded, is held
    to the configured limit itself (413, :class:`~werkzeug.exceptions.RequestEntityTooLarge`).
    File parts are limited only by ``MAX_CONTENT_LENGTH``.
    """

    def make_form_data_parser(self) -> FormDataParser:
        parser = super().make_form_data_parser()
        if parser.max_form_memory_size is not None:
            parser.max_form_memory_size += MULTIPART_READ_BYTES + 4096
        return parser

    def _load_form_data(self) -> None:
        super()._load_form_data()
        limit = self.max_form_memory_size
        if limit is None:
            return
        for _name, values in self.form.lists():
            if any(len(v.encode("utf-8", "surrogateescape")) > limit for v in values):
                raise RequestEntityTooLarge()


# --- security headers, cookies, hosts --------------------------------------------------------


def security_headers(response):
    """No framing by other sites, no MIME sniffing, no table code leaked in a Referer."""
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Content-Security-Policy", "frame-ancestors 'none'")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


def default_trusted_hosts() -> list[str]:
    """Host names a phone or this computer may use: localhost, 127.0.0.1, the LAN address and
    this computer's own name (also as ``<name>.local``, the mDNS name) with its IPv4 addresses."""
    import socket

    from .commands.serve import lan_address

    hosts = ["localhost", "127.0.0.1", lan_address() or ""]
    try:
        name = socket.gethostname()
        hosts += [name, f"{name}.local"]
        hosts += [str(a[4][0]) for a in socket.getaddrinfo(name, None, socket.AF_INET)]
    except OSError:  # pragma: no cover - no name service
        pass
    out: list[str] = []
    for h in hosts:
        h = h.lower()
        if h and h not in out:
            out.append(h)
    return out


def untrusted_host_message(exc: Exception) -> str:
    """What a request with a Host header the server does not answer to is told (400)."""
    host = request.environ.get("HTTP_HOST", "")[:100]
    return (
        f"this server does not answer to the host name {host!r}; open the address the server printed, "
        "or start it with --trusted-host NAME"
    )


# --- cookies per scheme: Secure under HTTPS, even beside HTTP ------------------------------------

#: Name prefix of a cookie set under HTTPS: browsers take such a cookie only with ``Secure``
#: from a secure page, and never send it over plain HTTP.
SECURE_PREFIX = "__Secure-"


def scheme_cookie_name(name: str, secure: bool) -> str:
    """The cookie ``name`` under HTTP, ``__Secure-<name>`` under HTTPS (``secure``)."""
    return SECURE_PREFIX + name if secure else name


def read_scheme_cookie(req: Request, name: str) -> tuple[str | None, bool]:
    """The value of the cookie ``name`` for this request's scheme, and whether it was carried.

    Cookies do not keep to a port or a scheme: with HTTP and HTTPS side by side (``serve``'s
    default) a cookie set over HTTPS would also be sent over plain HTTP. So each scheme has its
    own cookie: under HTTP only ``name`` is read; under HTTPS ``__Secure-<name>``, and only
    while this phone has none, the HTTP cookie ``name`` (a phone that comes to HTTPS from
    HTTP for the live camera brings it along). The caller writes a carried value into the
    secure cookie with this answer, so it is carried once; nothing set under HTTPS goes back.

    Returns:
        ``(value, carried)``: value None when this scheme has no such cookie; ``carried`` True
        when the value is the HTTP cookie's, read under HTTPS.
    """
    if not req.is_secure:
        return req.cookies.get(name), False
    val = req.cookies.get(SECURE_PREFIX + name)
    if val:
        return val, False
    val = req.cookies.get(name)
    return (val, True) if val else (None, False)


class SchemeSessionInterface(SecureCookieSessionInterface):
    """Flask's signed cookie session with one cookie per scheme (:func:`read_scheme_cookie`).

    Under HTTPS the session is the cookie ``__Secure-session``, marked ``Secure``, and under
    HTTP the plain ``session``. A phone that comes to HTTPS from HTTP brings the codes of its
    HTTP session along, once, into the secure cookie; nothing learned over HTTPS goes back.
    """

    def get_cookie_name(self, app) -> str:
        return scheme_cookie_name(super().get_cookie_name(app), request.is_secure)

    def get_cookie_secure(self, app) -> bool:
        return request.is_secure or super().get_cookie_secure(app)

    def open_session(self, app, request):
        serializer = self.get_signing_serializer(app)
        if serializer is None:
            return None
        val, carried = read_scheme_cookie(request, app.config["SESSION_COOKIE_NAME"])
        if not val:
            return self.session_class()
        try:
            data = serializer.loads(
                val, max_age=int(app.permanent_session_lifetime.total_seconds())
            )
        except BadSignature:
            return self.session_class()
        session_ = self.session_class(data)
        session_.modified = carried  # written as the secure cookie with this answer
        return session_


# --- Origin check of state-changing requests ---------------------------------------------------

#: Methods that change something: their requests must come from the companion's own pages.
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def _origin(url: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of a URL (default port filled in), None when it has none."""
    try:
        u = urlsplit(url)
        port = u.port or {"http": 80, "https": 443}.get(u.scheme.lower(), 0)
    except ValueError:
        return None
    if not u.scheme or not u.hostname:
        return None
    return u.scheme.lower(), u.hostname.lower(), port


def check_origin() -> None:
    """A state-changing request (POST, PUT, PATCH, DELETE) that carries ``Origin`` (every
    browser sends it on such requests), or else ``Referer``, must come from the companion
    itself: this request's own scheme, host and port, or ``PUBLIC_URL``/``SECURE_URL`` (the
    HTTP and HTTPS addresses ``serve`` prints). Another site's page, or ``Origin: null``, gets
    403. Clients without either header (scripts, curl, phones' API clients) pass: they carry
    no cookies of a browser, so the code they send is their own.

    Raises:
        ApiError(403): the request came from another site.
    """
    if request.method not in UNSAFE_METHODS:
        return
    sent = request.headers.get("Origin")
    what = "Origin"
    if sent is None:
        sent, what = request.headers.get("Referer"), "Referer"
        if sent is None:
            return
    given = _origin(sent)
    allowed = {_origin(request.host_url)}
    for key in ("PUBLIC_URL", "SECURE_URL"):
        if current_app.config.get(key):
            allowed.add(_origin(current_app.config[key]))
    if given is None or given not in allowed:
        raise ApiError(
            403,
            f"this request came from another site ({what} {sent[:80]!r}); changes are only "
            "taken from the companion's own pages: open its address and try again",
        )


# --- CSRF token of HTML forms ----------------------------------------------------------------


def csrf_token() -> str:
    """This browser's form token (kept in the signed session cookie), made on first use."""
    token = session.get("csrf")
    if not isinstance(token, str) or len(token) != 43:
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def check_csrf() -> None:
    """The posted ``csrf_token`` field must match the session's token.

    Raises:
        ApiError(400): missing or different token (an old page, or a form on another site).
    """
    sent = request.form.get("csrf_token", "")
    mine = session.get("csrf")
    if not isinstance(mine, str) or not secrets.compare_digest(sent.encode(), mine.encode()):
        raise ApiError(
            400, "this form has expired or came from another site; reload the page and try again"
        )


# --- wrong table codes: a rate limit per client ---------------------------------------------------


class CodeAttempts:
    """Wrong table codes per client address, and per table, in a sliding window (in memory,
    per process).

    A client with ``limit`` wrong codes in the last ``window_s`` seconds gets 429 on every
    code check until the oldest of them ages out; so does a table (key ``"table N"``) for
    phones that did not join it before, and the join form (key ``"join"``), so that many
    addresses together guess no faster. docs/api.md gives the numbers.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wrong: dict[str, deque] = {}

    def _recent(self, client: str, window_s: float, now: float) -> deque:
        q = self._wrong.get(client)
        if q is None:
            return deque()
        while q and q[0] <= now - window_s:
            q.popleft()
        if not q:
            del self._wrong[client]
        return q

    def check(
        self,
        client: str,
        limit: int,
        window_s: float,
        message: str = "too many wrong table codes from this device; try again in {wait} s",
    ) -> None:
        """Raises ApiError(429) with ``retry_after`` while ``client`` (an address, or a table's
        key) is over the limit; ``message`` may name ``{wait}`` (seconds)."""
        now = time.monotonic()
        with self._lock:
            q = self._recent(client, window_s, now)
            if len(q) >= limit:
                wait = max(1, int(q[0] + window_s - now + 1))
                raise ApiError(429, message.format(wait=wait), retry_after=wait)

    def wrong(self, client: str) -> None:
        """Count one event (a wrong code, a table made) for ``client`` (an address or a key)."""
        with self._lock:
            if len(self._wrong) > 10_000:  # many clients: forget the oldest first
                self._wrong.pop(next(iter(self._wrong)))
            self._wrong.setdefault(client, deque()).append(time.monotonic())


def _attempts() -> CodeAttempts:
    return current_app.extensions.setdefault("code_attempts", CodeAttempts())


def _table_key(table_id: int | None) -> str:
    return f"table {table_id}" if table_id is not None else "join"


def check_code_attempts(table_id: int | None = None, trusted: bool = False) -> None:
    """Raise ApiError(429) if this client sent too many wrong codes lately, or, unless
    ``trusted``, if table ``table_id`` got too many wrong codes from anyone lately (None: the
    join form, where a code is tried against every table). See :class:`CodeAttempts`.

    ``trusted``: this phone proved it knows the table before (its signed session holds the
    code, or it holds a seat): a flood of wrong codes at a table never locks out its players.
    """
    attempts = _attempts()
    attempts.check(
        request.remote_addr or "?", int(current_app.config["CODE_TRIES_PER_MINUTE"]), 60.0
    )
    if trusted:
        return
    if table_id is None:
        limit = int(current_app.config["JOIN_CODE_TRIES_PER_MINUTE"])
        message = (
            "too many wrong table codes were tried here in the last minute; try again in "
            "{wait} s (phones that joined a table already keep working)"
        )
    else:
        limit = int(current_app.config["TABLE_CODE_TRIES_PER_MINUTE"])
        message = (
            "this table got too many wrong codes in the last minute, so new phones must wait "
            "{wait} s; phones that joined it already keep working"
        )
    attempts.check(_table_key(table_id), limit, 60.0, message)


def wrong_code(table_id: int | None = None) -> None:
    """Count one wrong table code from this client, and at table ``table_id`` (None: the join
    form)."""
    attempts = _attempts()
    attempts.wrong(request.remote_addr or "?")
    attempts.wrong(_table_key(table_id))


# --- table creation: a rate limit per client and overall ------------------------------------

#: The window of the table-creation limits, seconds.
TABLES_WINDOW_S = 600.0


def _tables_made() -> CodeAttempts:
    return current_app.extensions.setdefault("tables_made", CodeAttempts())


def check_table_creation() -> None:
    """Refuse a new table (ApiError 429, ``Retry-After``) when this client made
    ``TABLES_PER_CLIENT`` tables (default 20) in the last 10 minutes, or all clients together
    ``TABLES_PER_SERVER`` (default 200): nobody floods the start page. :func:`table_made`
    counts the tables made."""
    made = _tables_made()
    client = request.remote_addr or "?"
    made.check(
        client,
        int(current_app.config["TABLES_PER_CLIENT"]),
        TABLES_WINDOW_S,
        "this device started many tables in the last 10 minutes; use one of them or try "
        "again in {wait} s",
    )
    made.check(
        "all",
        int(current_app.config["TABLES_PER_SERVER"]),
        TABLES_WINDOW_S,
        "many tables were started on this server in the last 10 minutes; try again in {wait} s",
    )


def table_made() -> None:
    """Count one table made by this client (see :func:`check_table_creation`)."""
    made = _tables_made()
    made.wrong(request.remote_addr or "?")
    made.wrong("all")


# --- photos held in memory at once ---------------------------------------------------------


@contextmanager
def photo_slot() -> Iterator[None]:
    """Hold one of ``PHOTO_SLOTS`` (default 4) places for a photo in memory, from reading the
    upload to the answer: a decoded photo is up to 30 MB (``vision.image_io.READ_MIN_SIDE``)
    and the detector makes working copies of it, so the number of photos in memory bounds the
    server's memory. Waits up to ``PHOTO_WAIT_S`` seconds (default 10) for a place.

    Raises:
        ApiError(503) with ``retry_after`` (5 s): every place stayed taken.
    """
    slots = current_app.extensions.get("photo_slots")
    if slots is None:
        slots = current_app.extensions.setdefault(
            "photo_slots", threading.BoundedSemaphore(int(current_app.config["PHOTO_SLOTS"]))
        )
    if not slots.acquire(timeout=float(current_app.config["PHOTO_WAIT_S"])):
        raise ApiError(
            503,
            "the server is reading other photos right now; nothing was stored, "
            "send the photo again in a few seconds",
            retry_after=5,
        )
    try:
        yield
    finally:
        slots.release()


# --- owner-only files -------------------------------------------------------------------------


def private_file(path: str | os.PathLike, create: bool = False) -> None:
    """Make ``path`` readable and writable by its owner only (0600); create it empty if asked.

    Errors of file systems without Unix permissions are ignored.
    """
    path = Path(path)
    if create and not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    try:
        if path.exists():
            os.chmod(path, 0o600)
    except OSError:  # pragma: no cover - e.g. some network file systems
        pass


def write_private(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to a new file created with mode 0600 (never readable by others, not even briefly)."""
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
