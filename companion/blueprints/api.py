"""The JSON API under ``/api`` (documented in docs/api.md and at ``/api/openapi.json``).

The table page uses only these endpoints. Changing a table needs its code in the
``X-Table-Code`` header (or a ``code`` field in the JSON or form body); reading needs none.
Errors are ``{"error": {"status": int, "message": str}}`` with the matching HTTP status.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from pathlib import Path

import segno
from flask import Blueprint, Response, current_app, jsonify, request, send_from_directory, url_for

from engine import GAMES, Shape, get_game_type

from .. import guard, services, store
from ..db import get_db, storage_status, transaction
from .openapi import openapi_document
from .pages import (
    announce,
    clear_seat_cookie,
    held_seat,
    known_code,
    public_join_url,
    remember_code,
    seat_cookie_value,
    set_seat_cookie,
)

bp = Blueprint("api", __name__)


def request_code() -> str | None:
    """The table code sent with this request: header, then JSON body, then form field."""
    code = request.headers.get("X-Table-Code")
    if not code and request.is_json:
        body = request.get_json(silent=True)
        if isinstance(body, dict):
            code = body.get("code")
    if not code:
        code = request.form.get("code")
    return code if isinstance(code, str) else None


def editable_table(table_id: int):
    """The table row, after checking the code (403 otherwise, 404 for no such table).

    A client that sent too many wrong codes lately gets 429, and so does a phone that did not
    join the table before (no code in its session, no seat) while the table got too many wrong
    codes lately (``guard.CodeAttempts``).
    """
    row = store.table_row(get_db(), table_id)
    known = known_code(table_id)
    trusted = (known is not None and store.normalise_code(known) == row["code"]) or (
        seat_cookie_value(table_id)[0] is not None and held_seat(row) is not None
    )
    guard.check_code_attempts(table_id, trusted)
    try:
        store.check_code(row, request_code())
    except store.ApiError:
        if store.normalise_code(request_code()):
            guard.wrong_code(table_id)
        raise
    return row


def idempotency_key() -> str | None:
    """The request's ``Idempotency-Key`` header (400 when malformed), or None."""
    return store.idempotency_key(request.headers.get("Idempotency-Key"))


def json_body() -> dict:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise store.ApiError(400, "send a JSON object (Content-Type: application/json)")
    return body


def join_url(code: str) -> str:
    """The link phones open to join a table (``PUBLIC_URL`` if set, else this request's host)."""
    return public_join_url(code)


# --- meta --------------------------------------------------------------------------------


@bp.get("/openapi.json")
def openapi():
    return jsonify(openapi_document())


@bp.get("/status")
def status():
    """Whether the tile detector can run, and whether the server has a laptop camera."""
    return jsonify(
        {
            "parts": services.availability(),
            "camera": current_app.config.get("CAMERA_INDEX") is not None,
        }
    )


@bp.get("/games")
def games():
    return jsonify(
        [
            {
                "name": g.name,
                "label": g.label,
                "scored": g.scored,
                "min_players": g.min_players,
                "max_players": g.max_players,
                "sets": list(g.sets),
                "default_target": g.default_target(),
                "variants": [v for v in g.variants if v],
            }
            for g in GAMES.values()
        ]
    )


# --- tables ------------------------------------------------------------------------------


@bp.get("/tables")
def list_tables():
    return jsonify(store.list_tables(get_db()))


@bp.post("/tables")
def create_table():
    body = json_body()
    guard.check_table_creation()
    with transaction() as db:
        out = store.create_table(
            db,
            body.get("game", ""),
            body.get("players") or [],
            body.get("max_pip"),
            body.get("variant") or None,
            body.get("target"),
        )
    guard.table_made()
    out["join_url"] = join_url(out["code"])
    announce(out, out["join_url"])
    return jsonify(out), 201


@bp.get("/tables/<int:table_id>")
def get_table(table_id: int):
    return jsonify(store.table_json(get_db(), table_id))


@bp.get("/tables/<int:table_id>/qr.svg")
def qr_svg(table_id: int):
    """The join QR code as SVG (needs the code: the QR carries it)."""
    row = editable_table(table_id)
    svg = segno.make(join_url(row["code"]), error="m").svg_inline(scale=6, border=2, omitsize=True)
    return Response(svg, mimetype="image/svg+xml")


# --- scores ------------------------------------------------------------------------------


@bp.post("/tables/<int:table_id>/rounds")
def record_round(table_id: int):
    """One score entry. With an ``Idempotency-Key`` a retry gets the first answer, nothing twice."""
    editable_table(table_id)
    key = idempotency_key()
    body = json_body()
    with transaction() as db:
        first = store.stored_answer(db, table_id, key, "rounds")
        if first is not None:  # answered again from the table as it is now
            body = first[1] if isinstance(first[1], dict) else store.table_json(db, table_id)
            return jsonify(body), first[0]
        out = store.record_round(
            db,
            table_id,
            body.get("scores"),
            body.get("kind", "manual"),
            body.get("source", "hand"),
            body.get("photo_id"),
            body.get("note", ""),
        )
        if GAMES[out["game"]].shape is Shape.LINE:  # a hand is scored: the next one starts
            store.new_hand(db, table_id)
            out = store.table_json(db, table_id)
        last = out["rounds"][-1]["id"] if out["rounds"] else None
        store.store_answer(db, table_id, key, "rounds", 201, last)
    return jsonify(out), 201


@bp.post("/tables/<int:table_id>/undo")
def undo(table_id: int):
    """Undo the entry ``{"round_id": id}``; it must be the latest one not undone (409 otherwise)."""
    editable_table(table_id)
    body = json_body()
    with transaction() as db:
        out = store.undo_round(db, table_id, body.get("round_id"))
    return jsonify(out)


@bp.get("/tables/<int:table_id>/rounds")
def history(table_id: int):
    db = get_db()
    store.table_row(db, table_id)
    return jsonify(store.rounds(db, table_id))


# --- photos ------------------------------------------------------------------------------


def table_hand(row, raw) -> list[str]:
    """The hand sent with a request, checked against the table's set (400 when bad)."""
    try:
        return services.parse_hand(raw, store.table_set(row))
    except ValueError as exc:
        raise store.ApiError(400, str(exc)) from None


def request_player(row) -> int | None:
    """The player whose own hand this request may read or set, or None (a watcher).

    That is the seat this phone holds (its seat cookie); at a table of one player, that player
    (the table code is enough: nobody else has a hand to hide). ``X-Player`` (or ``player_id``
    in the body) may name the seat; naming one this phone does not hold is refused (403): the
    table code and a player id never give away a hand.
    """
    db = get_db()
    seats = store.players(db, row["id"])
    held = seats[0]["id"] if len(seats) == 1 else held_seat(row)
    claimed = request.headers.get("X-Player")
    if claimed in (None, ""):
        body = request.get_json(silent=True) if request.is_json else None
        claimed = body.get("player_id") if isinstance(body, dict) else request.form.get("player_id")
    if claimed not in (None, ""):
        pid = store.player_of(db, row["id"], claimed)
        if pid != held:
            raise store.ApiError(
                403,
                f"this phone does not hold {store.player_name(db, pid)}'s seat; take the seat "
                "first (only the phone in a seat sees its hand)",
            )
    return held


def seated_player(row) -> int:
    """:func:`request_player`, which must be a seat this phone holds (403 otherwise)."""
    pid = request_player(row)
    if pid is None:
        raise store.ApiError(
            403, "choose who you are first: your hand belongs to the seat this phone takes"
        )
    return pid


def player_reading(db, row, prow, player_id: int | None, keep: bool = True) -> dict | None:
    """``{"player_id", "hand", "analysis"}``: the photo read with the player's own tiles (the
    games that take them, ``GameType.takes_hand``; kept in ``hands`` until the hand, the photo or
    a tile changes, unless ``keep`` is False), else None."""
    if player_id is None or not GAMES[row["game"]].takes_hand:
        return None
    hand = store.player_hand(db, player_id)
    public = json.loads(prow["analysis_json"])
    analysis = store.cached_reading(db, player_id, prow["id"])
    if not hand or public.get("unavailable"):  # nothing of the player's own to add
        analysis = public
    elif analysis is None:
        analysis = services.read_table(
            json.loads(prow["detections_json"]),
            json.loads(prow["corrections_json"]),
            row["game"],
            read_params(row),
            hand,
        )
        latest = store.latest_photo(db, row["id"])
        if keep and latest is not None and latest["id"] == prow["id"]:
            store.keep_reading(db, row["id"], player_id, prow["id"], analysis)
    return {"player_id": player_id, "hand": hand, "analysis": analysis}


def read_params(row) -> dict:
    """The table's engine parameters for the layout reader, plus the player count for a reader
    that takes it (:func:`companion.services.reader_takes`)."""
    params: dict = json.loads(row["params_json"])
    if services.reader_takes(row["game"], "players"):
        params["players"] = len(store.players(get_db(), row["id"]))
    return params


def add_photo(
    row,
    data: bytes,
    started: float,
    hand: list[str] | None = None,
    key: str | None = None,
    player_id: int | None = None,
    rendered: bool = False,
    tiles: list[dict] | None = None,
) -> tuple[dict, int]:
    """Decode, detect, read, then store the file and the row together (all or nothing).

    The JPEG (re-encoded: no EXIF or GPS data is kept) is written as ``<name>.part``, the row is
    committed, then the file is renamed; ``store.sweep_photo_dir`` finishes or removes what a
    crash left half way. With an idempotency ``key`` a retry gets the first answer.
    The table reading is stored without any hand (what every phone sees); ``hand`` (when
    given) becomes ``player_id``'s hand, and the answer carries that player's own reading.
    ``rendered``: the picture is a rendering (demo tables), shown marked as such.
    ``tiles``: the picture's detections when already made (a live frame), else detected here.
    Returns ``(photo_json, status)``.

    Raises:
        ImageError (-> 400): not an image, corrupt or truncated, too many pixels.
        Busy (-> 503): every decode slot is taken.
        ParameterError (-> 400): the table's parameters hold one its game's reader does not take.
    """
    if key is not None:
        with transaction() as db:
            first = store.stored_answer(db, row["id"], key, "photos")
            if first is not None:
                return photo_answer(db, row, first[1], player_id), first[0]
    image = services.decode_upload(data)
    h, w = image.shape[:2]
    params = read_params(row)
    try:
        if tiles is None:
            tiles = services.detect(image, row["game"])
        analysis = services.read_table(tiles, {}, row["game"], params, [])
    except services.Unavailable as exc:
        tiles = []
        analysis = {
            "ok": False,
            "message": f"Tiles cannot be found yet: {exc}",
            "state": None,
            "problems": [],
            "legal_moves": [],
            "hint": None,
            "unavailable": True,
        }
    elapsed_ms = round((time.perf_counter() - started) * 1000.0, 1)
    photo_dir = Path(current_app.config["PHOTO_DIR"])
    name = f"t{row['id']}-{uuid.uuid4().hex}.jpg"
    part = photo_dir / (name + store.PART_SUFFIX)
    try:
        guard.write_private(part, services.encode_jpeg(image))
        with transaction() as db:
            first = store.stored_answer(db, row["id"], key, "photos")
            if first is not None:  # a retry finished first: keep its photo, drop this one
                part.unlink(missing_ok=True)
                return photo_answer(db, row, first[1], player_id), first[0]
            prow = store.add_photo(db, row["id"], name, w, h, tiles, analysis, elapsed_ms, rendered)
            mine = None
            if player_id is not None:
                if hand:
                    store.set_hand(db, row["id"], player_id, hand)
                mine = player_reading(db, row, prow, player_id)
            out = store.photo_json(prow, row["game"], mine)
            store.store_answer(db, row["id"], key, "photos", 201, prow["id"])
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    os.replace(part, photo_dir / name)
    return out, 201


def photo_answer(db, row, ref, player_id: int | None) -> dict:
    """The answer to a retried photo upload: the photo ``ref`` (its id, kept by
    ``store.store_answer``) with ``player_id``'s reading, as it is now (or the whole first answer
    an older release kept)."""
    if isinstance(ref, dict):
        return ref
    prow = store.photo_row(db, row["id"], int(ref))
    mine = player_reading(db, row, prow, player_id) if player_id is not None else None
    return store.photo_json(prow, row["game"], mine)


@bp.post("/tables/<int:table_id>/photos")
def upload_photo(table_id: int):
    started = time.perf_counter()
    row = editable_table(table_id)
    upload = request.files.get("photo")
    if upload is None:
        raise store.ApiError(400, "send the photo as the multipart form field 'photo'")
    hand = table_hand(row, request.form.get("hand", ""))
    key = idempotency_key()
    player = seated_player(row) if hand else request_player(row)
    with guard.photo_slot():
        out, status = add_photo(row, upload.read(), started, hand, key, player)
    return jsonify(out), status


@bp.post("/tables/<int:table_id>/camera")
def grab_camera(table_id: int):
    """Take a photo with the laptop webcam (``serve --camera N``) and analyse it."""
    started = time.perf_counter()
    row = editable_table(table_id)
    index = current_app.config.get("CAMERA_INDEX")
    if index is None:
        raise store.ApiError(404, "no laptop camera; start the server with `serve --camera N`")
    body = request.get_json(silent=True) or {}
    hand = table_hand(row, body.get("hand", "") if isinstance(body, dict) else "")
    key = idempotency_key()
    player = seated_player(row) if hand else request_player(row)
    with guard.photo_slot():
        out, status = add_photo(row, services.grab_camera(int(index)), started, hand, key, player)
    return jsonify(out), status


@bp.get("/tables/<int:table_id>/photos")
def list_photos(table_id: int):
    db = get_db()
    row = store.table_row(db, table_id)
    return jsonify([store.photo_json(r, row["game"]) for r in store.photos(db, table_id)])


@bp.get("/tables/<int:table_id>/photos/<int:photo_id>")
def get_photo(table_id: int, photo_id: int):
    """The photo and its reading; with the table code and a seat this phone holds, that
    player's own hand and reading (a watcher gets the table reading and no hand)."""
    db = get_db()
    row = store.table_row(db, table_id)
    prow = store.photo_row(db, table_id, photo_id)
    mine = None
    if request_code() and (
        request.headers.get("X-Player")
        or seat_cookie_value(table_id)[0]
        or len(store.players(db, table_id)) == 1
    ):
        row = editable_table(table_id)
        pid = request_player(row)
        try:
            with transaction() as db:
                mine = player_reading(db, row, prow, pid)
        except sqlite3.Error as exc:  # the reading could not be kept (a full disk): still answer
            if storage_status(exc) is None:
                raise
            mine = player_reading(get_db(), row, prow, pid, keep=False)
    return jsonify(store.photo_json(prow, row["game"], mine))


@bp.get("/tables/<int:table_id>/photos/<int:photo_id>/image")
def photo_image(table_id: int, photo_id: int):
    prow = store.photo_row(get_db(), table_id, photo_id)
    return send_from_directory(
        current_app.config["PHOTO_DIR"], prow["filename"], mimetype="image/jpeg", max_age=3600
    )


def _reread(db, row, prow, tiles: list[dict], corrections: dict) -> dict:
    """Store new tiles/corrections of a photo, read the table again (every player's reading is
    made again on their next look) and answer the photo with this phone's own reading."""
    analysis = services.read_table(tiles, corrections, row["game"], read_params(row), [])
    store.set_photo_reading(db, prow["id"], tiles, corrections, analysis)
    store.forget_readings(db, row["id"])
    prow = store.photo_row(db, row["id"], prow["id"])
    return store.photo_json(prow, row["game"], player_reading(db, row, prow, request_player(row)))


@bp.route(
    "/tables/<int:table_id>/photos/<int:photo_id>/tiles/<int:index>", methods=["PUT", "DELETE"]
)
def correct_tile(table_id: int, photo_id: int, index: int):
    """Fix a misread tile: PUT ``{"pips": [a, b]}``, ``{"kind": "not_tile"}`` (the box is no
    tile: left out of the reading) or ``{"kind": "face_down"}``; DELETE drops the fix. Re-reads
    the table.

    The corrections are read, changed and written back in one ``BEGIN IMMEDIATE`` transaction,
    so two phones fixing two tiles of one photo at once both keep their fix.
    """
    row = editable_table(table_id)
    max_pip = store.table_set(row)
    fix = None
    if request.method == "PUT":
        body = json_body()
        kind = body.get("kind")
        if kind in (services.NOT_A_TILE, services.FACE_DOWN):
            fix = kind
        elif kind not in (None, "", "pips"):
            raise store.ApiError(
                400, "kind must be 'pips', 'not_tile' or 'face_down', got " + store.shown(kind)
            )
        else:
            pips = body.get("pips")
            if not isinstance(pips, list) or len(pips) != 2:
                raise store.ApiError(400, "pips must be a list of two numbers, e.g. [3, 5]")
            fix = [store.int_in_range(v, "each pip count", 0, max_pip) for v in pips]
    with transaction() as db:
        prow = store.photo_row(db, table_id, photo_id)
        tiles = json.loads(prow["detections_json"])
        if not 0 <= index < len(tiles):
            raise store.ApiError(404, f"photo {photo_id} has no tile {index} (it has {len(tiles)})")
        corrections = json.loads(prow["corrections_json"])
        if fix is not None:
            corrections[str(index)] = fix
        else:
            corrections.pop(str(index), None)
        out = _reread(db, row, prow, tiles, corrections)
    return jsonify(out)


def _coordinate(value, what: str, limit: int) -> float:
    """A pixel coordinate in ``[0, limit]`` (400 otherwise)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= limit:
        raise store.ApiError(
            400, f"{what} must be a number of pixels from 0 to {limit}, got {store.shown(value)}"
        )
    return float(value)


#: Most tiles a photo may hold (detected plus added by hand).
MAX_TILES = 200


@bp.post("/tables/<int:table_id>/photos/<int:photo_id>/tiles")
def add_tile(table_id: int, photo_id: int):
    """Add a tile the detector missed: ``{"at": [x, y], "pips": [a, b]}`` (photo pixels). The box
    is the size and turn of the photo's tile nearest to the spot (a 2:1 upright box on a photo
    without tiles). Re-reads the table; the new tile is the last of ``tiles``."""
    row = editable_table(table_id)
    max_pip = store.table_set(row)
    body = json_body()
    at, pips = body.get("at"), body.get("pips")
    if not isinstance(pips, list) or len(pips) != 2:
        raise store.ApiError(400, "pips must be a list of two numbers, e.g. [3, 5]")
    pips = [store.int_in_range(v, "each pip count", 0, max_pip) for v in pips]
    if not isinstance(at, list) or len(at) != 2:
        raise store.ApiError(400, "at must be the spot [x, y] in photo pixels")
    with transaction() as db:
        prow = store.photo_row(db, table_id, photo_id)
        x, y = (_coordinate(at[0], "x", prow["width"]), _coordinate(at[1], "y", prow["height"]))
        tiles = json.loads(prow["detections_json"])
        if len(tiles) >= MAX_TILES:
            raise store.ApiError(400, f"a photo holds at most {MAX_TILES} tiles")
        tiles.append(services.tile_box_at(tiles, (x, y), prow["width"], prow["height"]))
        corrections = json.loads(prow["corrections_json"])
        corrections[str(len(tiles) - 1)] = pips
        out = _reread(db, row, prow, tiles, corrections)
    return jsonify(out), 201


@bp.put("/tables/<int:table_id>/photos/<int:photo_id>/hand")
def set_hand(table_id: int, photo_id: int):
    """Set this phone's player's own hand (``{"hand": "3-5 6-6"}`` or a list; ``X-Player`` or
    ``player_id``, default the first seat) and read the photo with it. Other players' hands are
    untouched; the answer carries only this player's hand and reading.

    Read and written in one ``BEGIN IMMEDIATE`` transaction (a tile fixed at the same moment is
    kept).
    """
    row = editable_table(table_id)
    hand = table_hand(row, json_body().get("hand", ""))
    with transaction() as db:
        pid = seated_player(row)
        prow = store.photo_row(db, table_id, photo_id)
        store.set_hand(db, table_id, pid, hand)
        mine = player_reading(db, row, prow, pid)
    return jsonify(store.photo_json(prow, row["game"], mine))


def store_player_hand(row, hand: list[str]) -> tuple[int, dict | None]:
    """Keep ``hand`` as this phone's player's hand (one transaction) -> ``(player_id, photo)``:
    the table's latest photo with this player's reading, or None before any photo."""
    with transaction() as db:
        pid = seated_player(row)
        store.set_hand(db, row["id"], pid, hand)
        latest = store.hand_photo(db, store.table_row(db, row["id"]))
        photo = (
            store.photo_json(latest, row["game"], player_reading(db, row, latest, pid))
            if latest
            else None
        )
    return pid, photo


@bp.put("/tables/<int:table_id>/hand")
def set_table_hand(table_id: int):
    """Set this phone's player's own hand before any photo (or for the latest photo):
    answers ``{"player_id", "hand", "photo"}`` (``photo`` with this player's reading, or None)."""
    row = editable_table(table_id)
    hand = table_hand(row, json_body().get("hand", ""))
    pid, photo = store_player_hand(row, hand)
    return jsonify({"player_id": pid, "hand": hand, "photo": photo})


@bp.get("/tables/<int:table_id>/hand")
def get_hand(table_id: int):
    """This phone's player's own hand: ``{"player_id", "hand"}`` (needs the code and ``X-Player``)."""
    row = editable_table(table_id)
    pid = seated_player(row)
    return jsonify({"player_id": pid, "hand": store.player_hand(get_db(), pid)})


def photo_tiles(row, upload) -> tuple[list[str], int]:
    """The face-up tiles read on an uploaded photo of tiles in a hand: ``(tile texts, number of
    tiles not read)``; nothing is stored. Raises ImageError (400), Unavailable (503)."""
    with guard.photo_slot():
        tiles = services.detect_hand(services.decode_upload(upload.read()))
    max_pip = store.table_set(row)
    names, unread = [], 0
    for t in tiles:
        p = t.get("pips")
        if p is None or t.get("face_down") or max(p) > max_pip:
            unread += 1
            continue
        name = f"{min(p)}-{max(p)}"
        if name not in names:
            names.append(name)
    return names, unread


@bp.post("/tables/<int:table_id>/read-tiles")
def read_tiles(table_id: int):
    """Read the tiles on a photo of one hand at the end of a hand (multipart ``photo``), for the
    score sheet's "tiles left": answers ``{"tiles": ["3-5", ...], "unread": n}``. Nothing is
    stored: the table's photo, its reading and every hand stay as they are."""
    row = editable_table(table_id)
    upload = request.files.get("photo")
    if upload is None:
        raise store.ApiError(400, "send the photo as the multipart form field 'photo'")
    names, unread = photo_tiles(row, upload)
    return jsonify({"tiles": names, "unread": unread})


@bp.post("/tables/<int:table_id>/hand-photo")
def hand_photo(table_id: int):
    """A photo of this phone's player's own hand (multipart ``photo``): its tiles become the
    player's hand; the table's photo and reading stay as they are. Answers ``{"player_id",
    "hand", "photo", "message"}`` (``message`` names tiles that could not be read)."""
    row = editable_table(table_id)
    game = get_game_type(row["game"])
    if not game.takes_hand:
        raise store.ApiError(400, f"{game.label} has no hand to photograph")
    upload = request.files.get("photo")
    if upload is None:
        raise store.ApiError(400, "send the photo as the multipart form field 'photo'")
    hand, unread = photo_tiles(row, upload)
    drawn = game.hand.value == "drawn"  # the Big Clock: the one tile just drawn
    if not hand:
        raise store.ApiError(
            400,
            "the tile you drew could not be read on this photo; lay it face up and take it "
            "again, or type it"
            if drawn
            else "no tile of a hand could be read on this photo; lay the tiles face up "
            "side by side and take it again, or type them",
        )
    if drawn and len(hand) > 1:
        raise store.ApiError(
            400,
            f"this photo shows {len(hand)} tiles ({', '.join(hand)}); photograph only the "
            "tile you drew, or type or pick it",
        )
    pid, photo = store_player_hand(row, hand)
    message = (
        f"Read the tile you drew: {hand[0]}."
        if drawn
        else f"Read {len(hand)} tile(s) of your hand: {' '.join(hand)}."
    )
    if unread and drawn:
        message += f" {unread} more tile(s) could not be read: photograph only the tile you drew."
    elif unread:
        message += f" {unread} tile(s) could not be read: add them to the box by hand."
    return jsonify({"player_id": pid, "hand": hand, "photo": photo, "message": message})


def seat_answer(row, player_id: int | None) -> dict:
    """``{"player_id", "hand", "table"}``: the seat this phone holds now (None: none), its hand
    and the table (``players[].held`` says which seats phones hold)."""
    db = get_db()
    hand = store.player_hand(db, player_id) if player_id is not None else []
    return {"player_id": player_id, "hand": hand, "table": store.table_json(db, row["id"])}


@bp.get("/tables/<int:table_id>/seat")
def my_seat(table_id: int):
    """The seat this phone holds at the table (``player_id`` None: none) and its hand."""
    row = editable_table(table_id)
    return jsonify(seat_answer(row, held_seat(row)))


@bp.post("/tables/<int:table_id>/seats/<int:player_id>")
def take_seat(table_id: int, player_id: int):
    """Sit this phone in ``player_id``'s seat: the answer sets its seat cookie (HttpOnly; the
    token's hash is stored). A seat held by another phone is refused (409) until its holder
    leaves it or a code holder frees it; a seat this phone held before is left."""
    row = editable_table(table_id)
    db = get_db()
    pid = store.player_of(db, table_id, player_id)
    before = held_seat(row)
    if before == pid:
        return jsonify(seat_answer(row, pid))
    with transaction() as db:
        token = store.take_seat(db, row, pid)
        if before is not None:
            store.release_seat(db, row, before)
    resp = jsonify(seat_answer(row, pid))
    set_seat_cookie(resp, table_id, f"{pid}.{token}")
    return resp, 201


@bp.delete("/tables/<int:table_id>/seats/<int:player_id>")
def free_seat(table_id: int, player_id: int):
    """Leave the seat this phone holds, or free another phone's seat (a lost phone; any holder
    of the table code may). The seat's hand is cleared. Answers ``{"freed", "left",
    "player_id", "hand", "table"}``."""
    row = editable_table(table_id)
    pid = store.player_of(get_db(), table_id, player_id)
    mine = held_seat(row)
    with transaction() as db:
        store.release_seat(db, row, pid)
    left = mine == pid
    body = {"freed": pid, "left": left, **seat_answer(row, None if left else mine)}
    resp = jsonify(body)
    if left:
        clear_seat_cookie(resp, table_id)
    return resp


@bp.post("/tables/<int:table_id>/new-hand")
def new_hand(table_id: int):
    """Start the next hand for every phone at the table: the photo, its hints and every player's
    hand are cleared (the photos stay in the history; a demo table keeps its sample). A draw
    game's recorded hand does the same by itself. Answers the table."""
    editable_table(table_id)
    with transaction() as db:
        store.new_hand(db, table_id)
        out = store.table_json(db, table_id)
    return jsonify(out)


def move_on(old, new_id: int) -> dict:
    """This phone moves from the table ``old`` to its rematch ``new_id``: it gets the new code
    (session) and, when it held a seat, the same seat at the new table (unless another phone
    took it first). Answers the new table with its ``code``, ``join_url`` and ``url``."""
    db = get_db()
    new = store.table_row(db, new_id)
    remember_code(new["id"], new["code"])
    out = store.table_json(db, new_id)
    out.update(code=new["code"], join_url=join_url(new["code"]))
    out["url"] = url_for("pages.table", table_id=new_id)
    held = held_seat(old)
    seat = next((p["seat"] for p in store.players(db, old["id"]) if p["id"] == held), None)
    pid = next((p["id"] for p in store.players(db, new_id) if p["seat"] == seat), None)
    out["seat_token"] = None
    if pid is not None and pid not in store.held_seats(db, new_id):
        with transaction() as db:
            out["seat_token"] = f"{pid}.{store.take_seat(db, new, pid)}"
    return out


def moved_answer(out: dict, status: int):
    """The answer of :func:`move_on`, setting the new table's seat cookie when a seat moved."""
    token = out.pop("seat_token", None)
    resp = jsonify(out)
    if token:
        set_seat_cookie(resp, out["id"], token)
    return resp, status


@bp.post("/tables/<int:table_id>/rematch")
def rematch(table_id: int):
    """A new table of the same game, set, variant, target and players (in the same seats), made
    once: every phone at the table moves on to it (the change feed tells them; a Rematch
    pressed on a second phone joins the same one). Answers it with its code, ``join_url`` and
    ``url`` (the table page); this phone keeps its seat there."""
    row = editable_table(table_id)
    db = get_db()
    if row["next_id"] is not None and store.table_by_id(db, row["next_id"]) is not None:
        return moved_answer(move_on(row, row["next_id"]), 200)
    names = [p["name"] for p in store.players(db, table_id)]
    params = json.loads(row["params_json"])
    guard.check_table_creation()
    with transaction() as db:
        made = store.create_table(
            db, row["game"], names, params.get("max_pip"), params.get("variant"), row["target"]
        )
        store.set_next_table(db, table_id, made["id"])
    guard.table_made()
    out = move_on(store.table_row(get_db(), table_id), made["id"])
    announce(out, out["join_url"])
    return moved_answer(out, 201)


@bp.post("/tables/<int:table_id>/next")
def next_table(table_id: int):
    """Move this phone on to the table's rematch (after another phone pressed Rematch): the
    new table with its code, ``join_url`` and ``url``; this phone keeps its seat there.
    404 when there is no rematch yet."""
    row = editable_table(table_id)
    if row["next_id"] is None or store.table_by_id(get_db(), row["next_id"]) is None:
        raise store.ApiError(404, "no rematch of this table has started")
    return moved_answer(move_on(row, row["next_id"]), 200)


@bp.delete("/tables/<int:table_id>")
def delete_table(table_id: int):
    """Delete a table with its players, photos (files too), hands and score sheet (needs the code)."""
    editable_table(table_id)
    with transaction() as db:
        names = store.photo_files(db, table_id)
        store.delete_table(db, table_id)
    for name in names:
        (Path(current_app.config["PHOTO_DIR"]) / name).unlink(missing_ok=True)
    return jsonify({"deleted": table_id})
