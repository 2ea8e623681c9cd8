"""HTML pages for phones: start a table, join one with its code, the table page.

The table page is rendered once with its data; its JavaScript (static/table.js) then talks to
the JSON API only. The session cookie remembers the codes of the tables this browser joined,
so the page can hand the code to its own API calls (``X-Table-Code``); a cross-site form post
carries no such header, so it cannot change a table.
"""

from __future__ import annotations

import segno
from flask import (
    Blueprint,
    after_this_request,
    current_app,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from engine import GAMES

from .. import guard, services, store
from ..db import get_db, transaction
from ..follow import FOLLOW_GAMES

bp = Blueprint("pages", __name__)


def remember_code(table_id: int, code: str) -> None:
    """Keep ``code`` for ``table_id`` in the signed session cookie."""
    codes = dict(session.get("codes", {}))
    codes[str(table_id)] = code
    session["codes"] = codes
    session.permanent = True


def known_code(table_id: int) -> str | None:
    codes = session.get("codes", {})
    code = codes.get(str(table_id)) if isinstance(codes, dict) else None
    return code if isinstance(code, str) else None


#: The seat cookie lives this long (seconds): a game night, with room to spare.
SEAT_COOKIE_AGE = 7 * 24 * 3600


def seat_cookie(table_id: int) -> str:
    """The name of the cookie that holds this phone's seat token at ``table_id`` over HTTP;
    over HTTPS it is ``__Secure-`` and this name (:func:`guard.read_scheme_cookie`)."""
    return f"seat_{table_id}"


def seat_cookie_value(table_id: int) -> tuple[str | None, bool]:
    """This request's seat cookie at ``table_id`` (``<player id>.<token>``, None: none) and
    whether it is the HTTP cookie carried to HTTPS (:func:`guard.read_scheme_cookie`)."""
    return guard.read_scheme_cookie(request, seat_cookie(table_id))


def set_seat_cookie(resp, table_id: int, value: str) -> None:
    """Give this phone the seat cookie of ``table_id`` (``<player id>.<token>``): HttpOnly,
    SameSite=Lax, and under HTTPS ``__Secure-seat_<id>`` marked ``Secure`` (never sent over
    HTTP)."""
    resp.set_cookie(
        guard.scheme_cookie_name(seat_cookie(table_id), request.is_secure),
        value,
        max_age=SEAT_COOKIE_AGE,
        path="/",
        secure=request.is_secure,
        httponly=True,
        samesite="Lax",
    )


def clear_seat_cookie(resp, table_id: int) -> None:
    """Delete this phone's seat cookie of ``table_id``: under HTTPS both the secure and the
    HTTP one (it may have been carried over); under HTTP the HTTP one (a browser lets no plain
    page touch a ``__Secure-`` cookie; the stored token is gone, so it holds no seat)."""
    names = [seat_cookie(table_id)]
    if request.is_secure:
        names.append(guard.scheme_cookie_name(names[0], True))
    for name in names:
        resp.delete_cookie(name, path="/", secure=name != names[0], httponly=True, samesite="Lax")


def held_seat(row) -> int | None:
    """The player whose seat this phone holds at the table ``row`` (its seat cookie
    ``<player id>.<token>`` checked against the stored hash), or None. An HTTP seat cookie
    read under HTTPS is written into the secure cookie with this answer (carried once), unless
    the answer sets or clears the seat cookie itself."""
    raw, carried = seat_cookie_value(row["id"])
    pid, _, token = (raw or "").partition(".")
    if not pid.isdigit() or len(pid) > 19 or not token:
        return None
    player_id = int(pid)
    if not store.seat_holder(get_db(), row["id"], player_id, token):
        return None
    carried_here = g.setdefault("seats_carried", set())
    if carried and row["id"] not in carried_here:
        carried_here.add(row["id"])
        secure_name = guard.scheme_cookie_name(seat_cookie(row["id"]), True)

        @after_this_request
        def carry(resp):
            if not any(c.startswith(secure_name + "=") for c in resp.headers.getlist("Set-Cookie")):
                set_seat_cookie(resp, row["id"], f"{player_id}.{token}")
            return resp

    return player_id


def public_join_url(code: str) -> str:
    base = current_app.config.get("PUBLIC_URL") or request.host_url
    return base.rstrip("/") + url_for("pages.join", code=code)


def announce(table: dict, url: str) -> None:
    """Print a new table's join link and QR code in the server console (``serve`` turns it on)."""
    if not current_app.config.get("ANNOUNCE_TABLES"):
        return
    print(
        f"Table {table['id']} ({table['game_label']}, {', '.join(p['name'] for p in table['players'])}): "
        f"code {table['code']}, join {url}",
        flush=True,
    )
    try:
        segno.make(url, error="m").terminal(compact=True)
    except OSError:  # pragma: no cover - console gone
        pass


def my_tables() -> list[int]:
    """The tables this phone joined or started (codes in its session) or sits at (seat
    cookies): their ids."""
    ids = [int(k) for k in (session.get("codes") or {}) if str(k).isdigit() and len(k) < 19]
    prefixes = ["seat_"] + ([guard.SECURE_PREFIX + "seat_"] if request.is_secure else [])
    for name in request.cookies:
        for prefix in prefixes:
            rest = name[len(prefix) :]
            if name.startswith(prefix) and rest.isdigit() and len(rest) < 19:
                ids.append(int(rest))
    ids = list(dict.fromkeys(ids))
    return ids


def start_page(form: dict | None = None, error: str | None = None):
    """The start page; ``form`` (the values sent) and ``error`` when the start form was refused.

    It lists this phone's tables and the demo tables; the others (anybody can start one) are
    found by the search field (``?q=``: a player's name, the game or the table number)."""
    query = request.args.get("q", "")[:100]
    return render_template(
        "index.html",
        games=list(GAMES.values()),
        lists=store.start_page_tables(get_db(), my_tables()),
        query=query,
        found=store.search_tables(get_db(), query) if query else None,
        targets={g.name: {str(k): v for k, v in g.targets.items()} for g in GAMES.values()},
        form=form or {},
        error=error,
    )


@bp.get("/")
def index():
    return start_page()


@bp.post("/tables")
def create_table():
    """The start form: game, set, variant, players (one name a line or comma separated), target.

    A refused form (a bad variant, too many names, the same name twice ...) comes back with its
    values kept and the reason above it (status 400), never a bare error page.
    """
    f = request.form
    guard.check_csrf()
    info = GAMES.get(f.get("game", ""))
    names = [n.strip() for n in f.get("players", "").replace(",", "\n").splitlines() if n.strip()]
    # the form shows only what the chosen game takes: values of hidden fields are not its own
    variant = f.get("variant") if info and [v for v in info.variants if v] else None
    target = f.get("target") if info and info.scored else None
    try:
        guard.check_table_creation()
        with transaction() as db:
            out = store.create_table(
                db,
                f.get("game", ""),
                names,
                f.get("max_pip") or None,
                variant or None,
                target or None,
            )
    except store.ApiError as exc:
        if exc.status not in (400, 429):
            raise
        keep = {k: f.get(k, "")[:2000] for k in ("game", "max_pip", "variant", "players", "target")}
        return start_page(keep, exc.message), exc.status
    guard.table_made()
    remember_code(out["id"], out["code"])
    announce(out, public_join_url(out["code"]))
    return redirect(url_for("pages.table", table_id=out["id"]))


@bp.get("/join")
@bp.get("/join/<code>")
def join(code: str | None = None):
    """Join by code (the QR link or the form): remember it and open the table."""
    code = code or request.args.get("code", "")
    mine = [c for c in (session.get("codes") or {}).values() if isinstance(c, str)]
    guard.check_code_attempts(None, trusted=store.normalise_code(code) in mine)
    row = store.table_by_code(get_db(), code)
    if row is None:
        if store.normalise_code(code):
            guard.wrong_code(None)
        raise store.ApiError(
            403,
            f"no table has the code {store.normalise_code(code) or '(empty)'}; check it and try again",
        )
    remember_code(row["id"], row["code"])
    return redirect(url_for("pages.table", table_id=row["id"]))


@bp.get("/t/<int:table_id>")
def table(table_id: int):
    db = get_db()
    data = store.table_json(db, table_id)
    row = store.table_row(db, table_id)
    code = known_code(table_id)
    if code is not None and store.normalise_code(code) != row["code"]:
        code = None
    if code is None and row["demo"]:  # demo tables are open to everybody: try everything at once
        code = row["code"]
    qr_svg = join_url = None
    if code:
        join_url = public_join_url(code)
        qr_svg = segno.make(join_url, error="m").svg_inline(scale=5, border=2, omitsize=True)
    photo = None
    if data["latest_photo_id"] is not None:
        photo = store.photo_json(
            store.photo_row(db, table_id, data["latest_photo_id"]), row["game"]
        )
    max_pip = store.table_set(row)
    missing = [v["message"] for v in services.availability().values() if not v["ok"]]
    game = GAMES[row["game"]]
    boot = {
        "table": data,
        "game": game.to_json(),
        "code": code,
        "photo": photo,
        "max_pip": max_pip,
        "camera": current_app.config.get("CAMERA_INDEX") is not None,
        "max_upload": current_app.config["MAX_CONTENT_LENGTH"],
        "seat": held_seat(row) if code else None,
    }
    return render_template(
        "table.html",
        t=data,
        game=game,
        code=code,
        qr_svg=qr_svg,
        join_url=join_url,
        boot=boot,
        missing=missing,
        secure=request.is_secure,
        secure_url=None if request.is_secure else current_app.config.get("SECURE_URL"),
        camera=boot["camera"],
        followed=row["game"] in FOLLOW_GAMES,
    )


@bp.get("/api-docs")
def api_docs():
    return redirect(url_for("api.openapi"))


@bp.get("/favicon.ico")
def favicon():
    return redirect(url_for("static", filename="favicon.svg"), code=301)
