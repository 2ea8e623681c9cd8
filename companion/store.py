"""Tables, players, photos and scores in the companion database (no Flask request code here).

Every function takes an open ``sqlite3.Connection``; writers are called inside
``companion.db.transaction`` so an error leaves nothing stored half way. Errors a user can
cause raise :class:`ApiError` with the HTTP status and a message for people.

Scoring follows ../shared/RULES.md: draw to 100 (section 4) records one entry per hand
(the winner's points; a blocked hand with a tie for fewest pips scores nothing), Tableaux
(section 5) one entry per turn (the turn's points, -3 for a pass). The first player whose
running total reaches the table's target wins and the table is finished; undoing the entry
that decided it reopens the table.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import GAMES, GameType, Shape, get_game_type

from . import services

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud across a table
CODE_LENGTH = 8  # 40 bits; tables made before with 6 characters keep their codes
MAX_POINTS = 999  # one entry's points; more is a typing mistake
MAX_ID = 2**63 - 1  # largest SQLite INTEGER: row ids in URLs above it do not exist


@dataclass(frozen=True)
class ScoreSheet:
    """How a scored game's sheet is kept (RULES.md sections 4 and 5).

    Attributes:
        kinds: the kinds of entry (``manual``: typed without a photo).
        min_points: the fewest points one entry may give a player (a Tableaux pass: -3).
        pips_in_view: a photo suggests the entry's points: the pips of the face-up tiles on it
            (the draw game: the winner of a hand scores the pips left in the losers' hands).
    """

    kinds: tuple[str, ...]
    min_points: int = 0
    pips_in_view: bool = False


#: The score sheet of a scored game, by the shape of its layout (``engine.GameType.shape``): a
#: line of play is scored per hand (won by a domino or blocked), a tableau per turn (a play, or a
#: pass for -3).
SCORE_SHEETS = {
    Shape.LINE: ScoreSheet(("domino", "blocked", "manual"), pips_in_view=True),
    Shape.TABLEAU: ScoreSheet(("play", "pass", "manual"), min_points=-3),
}


def score_sheet(gt: GameType) -> ScoreSheet | None:
    """The score sheet of a game, None for a game that keeps none (a solitaire)."""
    return SCORE_SHEETS.get(gt.shape) if gt.scored else None


class ApiError(Exception):
    """A request the companion refuses: ``status`` (HTTP code) and ``message`` (for people).

    ``retry_after`` (seconds) is sent as the ``Retry-After`` header with 429 and 503 answers.
    """

    def __init__(self, status: int, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


def new_code() -> str:
    """A random table code of :data:`CODE_LENGTH` characters (8 of 32: 40 bits; from
    :data:`CODE_ALPHABET`)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(code: Any) -> str:
    """Upper-case ASCII letters and digits only (people type codes loosely); "" for a non-string.

    At most 32 characters are looked at; anything else (spaces, dashes, other scripts) is dropped.
    """
    if not isinstance(code, str):
        return ""
    return "".join(ch for ch in code[:64].upper() if ch.isascii() and ch.isalnum())[:32]


def shown(value: Any, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def clean_text(value: Any, limit: int) -> str:
    """``value`` as a printable string of at most ``limit`` characters (for names and notes).

    Control characters and lone surrogates (which SQLite cannot store as UTF-8) are dropped.
    """
    text = value if isinstance(value, str) else str(value)
    text = text[: limit * 4].encode("utf-8", "ignore").decode("utf-8")
    return "".join(ch for ch in text if ch.isprintable()).strip()[:limit]


def int_in_range(value: Any, what: str, lo: int, hi: int) -> int:
    """``value`` as an int in ``[lo, hi]``. Raises ApiError(400) naming ``what`` otherwise.

    Accepts ints, integral floats and digit strings; refuses booleans, fractions, NaN,
    infinities (JSON ``Infinity``, ``1e400``) and strings of more than 30 characters.
    """
    try:
        if isinstance(value, bool) or (isinstance(value, str) and len(value) > 30):
            raise TypeError
        n = int(value)
        if isinstance(value, float) and value != n:
            raise TypeError
    except (TypeError, ValueError, OverflowError):
        raise ApiError(400, f"{what} must be a whole number, got {shown(value)}") from None
    if not lo <= n <= hi:
        raise ApiError(400, f"{what} must be between {lo} and {hi}, got {shown(n)}")
    return n


# --- tables ------------------------------------------------------------------------------


def create_table(
    db: sqlite3.Connection,
    game: str,
    players: list[str],
    max_pip: int | None = None,
    variant: str | None = None,
    target: int | None = None,
    demo: bool = False,
) -> dict:
    """Store a new table and its players; returns ``table_json`` plus the secret ``code``.

    Raises:
        ApiError(400): unknown game, wrong number of players, bad set, variant or target.
    """
    if not isinstance(game, str) or game not in GAMES:
        raise ApiError(400, f"unknown game {shown(game)}; choose one of {', '.join(GAMES)}")
    info = GAMES[game]
    if variant is not None and not isinstance(variant, str):
        raise ApiError(400, f"variant must be a name, got {shown(variant)}")
    if max_pip is not None:
        max_pip = int_in_range(max_pip, "the set (max pip)", 0, 18)
    try:
        params = info.params(max_pip, variant or None)
    except ValueError as exc:
        raise ApiError(400, str(exc)) from None
    if not isinstance(players, list):
        raise ApiError(400, "players must be a list of names")
    if len(players) > 100:
        raise ApiError(
            400, f"{info.label} is for at most {info.max_players} player(s), got {len(players)}"
        )
    names = [n for n in (clean_text(p, 40) for p in players) if n]
    seen: set[str] = set()
    for n in names:
        if n.casefold() in seen:
            raise ApiError(400, f"two players are called {n}; give each player a different name")
        seen.add(n.casefold())
    if not names:
        names = [f"Player {i + 1}" for i in range(info.min_players)]
    if not info.min_players <= len(names) <= info.max_players:
        want = (
            f"{info.min_players}"
            if info.min_players == info.max_players
            else f"{info.min_players} to {info.max_players}"
        )
        raise ApiError(400, f"{info.label} is for {want} player(s), got {len(names)}")
    if info.scored:
        target = (
            int_in_range(target, "the target", 1, 10_000)
            if target not in (None, "")
            else info.default_target(max_pip)
        )
    else:
        target = None
    for _ in range(20):
        code = new_code()
        try:
            cur = db.execute(
                "INSERT INTO tables (code, game, params_json, target, demo) VALUES (?,?,?,?,?)",
                (code, game, json.dumps(params), target, int(demo)),
            )
            break
        except sqlite3.IntegrityError:  # code collision: draw again
            continue
    else:  # pragma: no cover - 2^30 codes
        raise ApiError(500, "could not find a free table code")
    table_id = cur.lastrowid
    assert table_id is not None  # set by the INSERT just made
    db.executemany(
        "INSERT INTO players (table_id, seat, name) VALUES (?,?,?)",
        [(table_id, i, n) for i, n in enumerate(names)],
    )
    out = table_json(db, table_id)
    out["code"] = code
    return out


def has_demo_table(db: sqlite3.Connection) -> bool:
    """True when the database holds a demo table (``serve`` made them on an earlier start)."""
    return db.execute("SELECT 1 FROM tables WHERE demo = 1").fetchone() is not None


def delete_table(db: sqlite3.Connection, table_id: int) -> None:
    """Delete a table and everything of it (players, photos rows, hands, rounds, score events,
    idempotency answers). Photo files are the caller's to remove. Call inside a transaction."""
    rounds_of = "SELECT id FROM rounds WHERE table_id = ?"
    db.execute(f"DELETE FROM score_events WHERE round_id IN ({rounds_of})", (table_id,))
    for name in ("rounds", "hands", "seats", "idempotency", "photos"):
        db.execute(f"DELETE FROM {name} WHERE table_id = ?", (table_id,))
    db.execute("UPDATE tables SET winner_id = NULL WHERE id = ?", (table_id,))
    db.execute("DELETE FROM players WHERE table_id = ?", (table_id,))
    db.execute("DELETE FROM tables WHERE id = ?", (table_id,))


def table_set(row: sqlite3.Row) -> int:
    """The set of the table ``row`` (``max_pip``): its own, else the largest of its game."""
    max_pip: int = json.loads(row["params_json"]).get("max_pip", max(GAMES[row["game"]].sets))
    return max_pip


def table_row(db: sqlite3.Connection, table_id: int) -> sqlite3.Row:
    """The ``tables`` row. Raises ApiError(404) when there is no such table."""
    row = None
    if 0 < table_id <= MAX_ID:  # SQLite integers are 64-bit: a 20-digit id is simply not there
        row = db.execute("SELECT * FROM tables WHERE id = ?", (table_id,)).fetchone()
    if row is None:
        raise ApiError(404, f"there is no table {table_id}")
    return row


def table_by_id(db: sqlite3.Connection, table_id: int) -> sqlite3.Row | None:
    """The ``tables`` row, or None (a table deleted since)."""
    r: sqlite3.Row | None = db.execute("SELECT * FROM tables WHERE id = ?", (table_id,)).fetchone()
    return r


def table_by_code(db: sqlite3.Connection, code: str) -> sqlite3.Row | None:
    """The table whose join code is ``code`` (case and dashes ignored), or None."""
    return db.execute("SELECT * FROM tables WHERE code = ?", (normalise_code(code),)).fetchone()


def check_code(row: sqlite3.Row, code: str | None) -> None:
    """Only holders of the table code may change a table.

    Raises:
        ApiError(403): no code or the wrong one.
    """
    given = normalise_code(code)
    if not given:
        raise ApiError(403, "this table can only be changed with its table code; join it first")
    if not secrets.compare_digest(given.encode(), row["code"].encode()):
        raise ApiError(403, "wrong table code for this table")


def players(db: sqlite3.Connection, table_id: int) -> list[sqlite3.Row]:
    return db.execute(
        "SELECT * FROM players WHERE table_id = ? ORDER BY seat", (table_id,)
    ).fetchall()


def totals(db: sqlite3.Connection, table_id: int) -> dict[int, int]:
    """Running total per player id over the entries not undone (points)."""
    out = {p["id"]: 0 for p in players(db, table_id)}
    for r in db.execute(
        """SELECT e.player_id, SUM(e.points) AS pts FROM score_events e
                           JOIN rounds r ON r.id = e.round_id
                           WHERE r.table_id = ? AND r.undone = 0 GROUP BY e.player_id""",
        (table_id,),
    ):
        out[r["player_id"]] = int(r["pts"])
    return out


def rounds(db: sqlite3.Connection, table_id: int) -> list[dict]:
    """The history: every entry, oldest first, undone ones included (marked)."""
    events: dict[int, dict[str, int]] = {}
    for e in db.execute(
        """SELECT e.round_id, e.player_id, e.points FROM score_events e
                           JOIN rounds r ON r.id = e.round_id WHERE r.table_id = ?""",
        (table_id,),
    ):
        events.setdefault(e["round_id"], {})[str(e["player_id"])] = e["points"]
    return [
        {
            "id": r["id"],
            "number": r["number"],
            "kind": r["kind"],
            "source": r["source"],
            "photo_id": r["photo_id"],
            "note": r["note"],
            "undone": bool(r["undone"]),
            "created": r["created"],
            "scores": events.get(r["id"], {}),
        }
        for r in db.execute("SELECT * FROM rounds WHERE table_id = ? ORDER BY number", (table_id,))
    ]


def table_json(db: sqlite3.Connection, table_id: int) -> dict:
    """Everything the table page shows except the secret code."""
    row = table_row(db, table_id)
    info = GAMES[row["game"]]
    sheet = score_sheet(info)
    tot = totals(db, table_id)
    held = held_seats(db, table_id)
    ps = [
        {
            "id": p["id"],
            "seat": p["seat"],
            "name": p["name"],
            "total": tot.get(p["id"], 0),
            "held": p["id"] in held,
        }
        for p in players(db, table_id)
    ]
    last_photo = hand_photo(db, row)
    n_photos = db.execute("SELECT COUNT(*) FROM photos WHERE table_id = ?", (table_id,)).fetchone()[
        0
    ]
    winner = next((p for p in ps if p["id"] == row["winner_id"]), None)
    return {
        "id": row["id"],
        "game": row["game"],
        "game_label": info.label,
        "scored": info.scored,
        "params": json.loads(row["params_json"]),
        "target": row["target"],
        "status": row["status"],
        "winner": winner,
        "players": ps,
        "rounds": rounds(db, table_id),
        "round_kinds": list(sheet.kinds) if sheet else [],
        "demo": bool(row["demo"]),
        "latest_photo_id": last_photo["id"] if last_photo else None,
        "next_id": row["next_id"],
        "photo_count": n_photos,
        "created": row["created"],
    }


def _short_row(db: sqlite3.Connection, r: sqlite3.Row) -> dict:
    return {
        "id": r["id"],
        "game": r["game"],
        "game_label": GAMES[r["game"]].label,
        "players": [p["name"] for p in players(db, r["id"])],
        "status": r["status"],
        "demo": bool(r["demo"]),
    }


def list_tables(db: sqlite3.Connection, limit: int = 50) -> list[dict]:
    """Short rows (``id, game, game_label, players, status, demo``), demo tables first, then
    the newest, at most ``limit``."""
    rows = db.execute("SELECT * FROM tables ORDER BY demo DESC, id DESC LIMIT ?", (int(limit),))
    return [_short_row(db, r) for r in rows]


def start_page_tables(db: sqlite3.Connection, mine: list[int]) -> dict[str, list[dict]]:
    """The start page's lists: ``{"mine": this phone's tables (ids ``mine``, newest first),
    "demo": the demo tables, "others": how many more there are}`` (short rows as
    :func:`list_tables`; ``others`` is a count: the rest are found by :func:`search_tables`)."""
    ids = sorted({int(i) for i in mine}, reverse=True)[:100]
    marks = ",".join("?" * len(ids))
    mine_rows = (
        db.execute(f"SELECT * FROM tables WHERE id IN ({marks}) ORDER BY id DESC", ids).fetchall()
        if ids
        else []
    )
    demo_rows = [
        r
        for r in db.execute("SELECT * FROM tables WHERE demo = 1 ORDER BY id")
        if r["id"] not in ids
    ]
    total = db.execute("SELECT COUNT(*) FROM tables").fetchone()[0]
    return {
        "mine": [_short_row(db, r) for r in mine_rows],
        "demo": [_short_row(db, r) for r in demo_rows],
        "others": max(0, total - len(mine_rows) - len(demo_rows)),
    }


def search_tables(db: sqlite3.Connection, query: str, limit: int = 20) -> list[dict]:
    """Tables whose number (``12`` or ``#12``), game or a player's name matches ``query``
    (case-insensitive, part of a word), newest first, at most ``limit`` short rows."""
    q = clean_text(query, 40).lstrip("#").strip()
    if not q:
        return []
    like = "%" + q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    games = [g.name for g in GAMES.values() if q.casefold() in g.label.casefold()]
    marks = ",".join("?" * len(games)) or "NULL"
    rows = db.execute(
        f"""SELECT * FROM tables WHERE id = ? OR game IN ({marks}) OR id IN
               (SELECT table_id FROM players WHERE name LIKE ? ESCAPE '\\')
            ORDER BY id DESC LIMIT ?""",
        [int(q) if q.isdigit() and len(q) < 19 else -1, *games, like, int(limit)],
    )
    return [_short_row(db, r) for r in rows]


# --- scores ------------------------------------------------------------------------------


def record_round(
    db: sqlite3.Connection,
    table_id: int,
    scores: Any,
    kind: str = "manual",
    source: str = "hand",
    photo_id: Any = None,
    note: str = "",
) -> dict:
    """Store one hand (draw to 100) or turn (Tableaux) with each player's points.

    ``scores`` maps player id (int or str) -> points; players left out score 0. Call inside a
    transaction. Returns ``table_json``.

    Raises:
        ApiError(400): a solitaire table, bad points, unknown player, kind or photo.
        ApiError(409): the game is already finished.
    """
    row = table_row(db, table_id)
    sheet = _sheet_of(row)
    if row["status"] == "finished":
        raise ApiError(409, "this game is finished; undo the last entry or start a new table")
    if kind not in sheet.kinds:
        raise ApiError(400, f"kind must be one of {', '.join(sheet.kinds)}, got {shown(kind)}")
    if source not in ("hand", "photo"):
        raise ApiError(400, "source must be 'hand' or 'photo'")
    if not isinstance(scores, dict) or not scores or len(scores) > 20:
        raise ApiError(400, "scores must be an object {player id: points} with 1 to 20 players")
    names = {p["id"]: p["name"] for p in players(db, table_id)}
    clean: dict[int, int] = {}
    for pid, pts in scores.items():
        p = int_in_range(pid, "player id", 0, 2**31)
        if p not in names:
            raise ApiError(400, f"player {p} does not sit at this table")
        clean[p] = int_in_range(pts, f"points for {names[p]}", sheet.min_points, MAX_POINTS)
    if photo_id not in (None, ""):
        photo_id = int_in_range(photo_id, "photo id", 0, 2**31)
        if (
            db.execute(
                "SELECT 1 FROM photos WHERE id = ? AND table_id = ?", (photo_id, table_id)
            ).fetchone()
            is None
        ):
            raise ApiError(400, f"photo {photo_id} is not a photo of this table")
    else:
        photo_id = None
    number = db.execute(
        "SELECT COALESCE(MAX(number), 0) + 1 FROM rounds WHERE table_id = ?", (table_id,)
    ).fetchone()[0]
    cur = db.execute(
        "INSERT INTO rounds (table_id, number, kind, source, photo_id, note) VALUES (?,?,?,?,?,?)",
        (table_id, number, kind, source, photo_id, clean_text(note or "", 200)),
    )
    db.executemany(
        "INSERT INTO score_events (round_id, player_id, points) VALUES (?,?,?)",
        [(cur.lastrowid, p, pts) for p, pts in clean.items()],
    )
    _settle(db, row)
    return table_json(db, table_id)


def undo_round(db: sqlite3.Connection, table_id: int, round_id: Any) -> dict:
    """Mark the entry ``round_id`` undone (kept in the history); reopens a finished game.

    The entry must be the table's latest one not yet undone: a page that has not seen a newer
    entry (another phone recorded it) cannot undo that one by mistake. Call inside a
    transaction. Returns ``table_json``.

    Raises:
        ApiError(400): ``round_id`` is not a whole number.
        ApiError(404): the table has no such entry (a solitaire's entries are the camera's
            results, :func:`record_camera_result`).
        ApiError(409): the entry is undone already, or a newer entry exists (reload the page).
    """
    row = table_row(db, table_id)
    if round_id in (None, ""):
        raise ApiError(400, "say which entry to undo: round_id (the id of the latest entry)")
    rid = int_in_range(round_id, "round_id", 1, MAX_ID)
    target = db.execute(
        "SELECT * FROM rounds WHERE id = ? AND table_id = ?", (rid, table_id)
    ).fetchone()
    if target is None:
        raise ApiError(404, f"table {table_id} has no entry {rid}")
    if target["undone"]:
        raise ApiError(409, f"entry {target['number']} is undone already")
    last = db.execute(
        "SELECT id, number FROM rounds WHERE table_id = ? AND undone = 0 ORDER BY number DESC LIMIT 1",
        (table_id,),
    ).fetchone()
    if last["id"] != rid:
        raise ApiError(
            409,
            f"entry {target['number']} is not the latest any more (entry {last['number']} "
            "was recorded since); reload the page to see it",
        )
    db.execute("UPDATE rounds SET undone = 1 WHERE id = ?", (rid,))
    _settle(db, row)
    return table_json(db, table_id)


def _sheet_of(row: sqlite3.Row) -> ScoreSheet:
    """The score sheet of the table ``row``. Raises ApiError(400) for a game that keeps none."""
    info = GAMES[row["game"]]
    sheet = score_sheet(info)
    if sheet is None:
        raise ApiError(400, f"{info.label} keeps no score sheet")
    return sheet


def _settle(db: sqlite3.Connection, row: sqlite3.Row) -> None:
    """Set status and winner from the running totals: reaching the target wins (RULES.md 4, 5)."""
    tot = totals(db, row["id"])
    reached = [
        (pts, pid) for pid, pts in tot.items() if row["target"] is not None and pts >= row["target"]
    ]
    if reached:
        winner = max(reached)[1]
        db.execute(
            "UPDATE tables SET status = 'finished', winner_id = ? WHERE id = ?", (winner, row["id"])
        )
    else:
        db.execute(
            "UPDATE tables SET status = 'playing', winner_id = NULL WHERE id = ?", (row["id"],)
        )


# --- photos ------------------------------------------------------------------------------


def add_photo(
    db: sqlite3.Connection,
    table_id: int,
    filename: str,
    width: int,
    height: int,
    tiles: list[dict],
    analysis: dict,
    elapsed_ms: float,
    rendered: bool = False,
) -> sqlite3.Row:
    """Store a photo's row: its file name, size (px), tiles, reading and time taken (ms).

    Call inside a transaction; the file itself is the caller's. Returns the new row.
    """
    cur = db.execute(
        """INSERT INTO photos (table_id, filename, width, height, detections_json,
                        analysis_json, elapsed_ms, rendered) VALUES (?,?,?,?,?,?,?,?)""",
        (
            table_id,
            filename,
            width,
            height,
            json.dumps(tiles),
            json.dumps(analysis),
            elapsed_ms,
            int(rendered),
        ),
    )
    row: sqlite3.Row = db.execute("SELECT * FROM photos WHERE id = ?", (cur.lastrowid,)).fetchone()
    return row


def set_photo_reading(
    db: sqlite3.Connection, photo_id: int, tiles: list[dict], corrections: dict, analysis: dict
) -> None:
    """Replace a photo's tiles, corrections and table reading (after a tile was fixed or added)."""
    db.execute(
        "UPDATE photos SET detections_json = ?, corrections_json = ?, analysis_json = ? WHERE id = ?",
        (json.dumps(tiles), json.dumps(corrections), json.dumps(analysis), photo_id),
    )


def photos(db: sqlite3.Connection, table_id: int, limit: int = 50) -> list[sqlite3.Row]:
    """The table's latest ``limit`` photo rows, newest first."""
    return db.execute(
        "SELECT * FROM photos WHERE table_id = ? ORDER BY id DESC LIMIT ?", (table_id, limit)
    ).fetchall()


def latest_photo(db: sqlite3.Connection, table_id: int) -> sqlite3.Row | None:
    """The table's newest photo row, or None before any photo."""
    rows = photos(db, table_id, 1)
    return rows[0] if rows else None


def hand_photo(db: sqlite3.Connection, row: sqlite3.Row) -> sqlite3.Row | None:
    """The newest photo of the hand being played at the table ``row`` (None before its first
    photo: a recorded hand or "new hand" leaves the old photo in the history only)."""
    r: sqlite3.Row | None = db.execute(
        "SELECT * FROM photos WHERE table_id = ? AND id > ? ORDER BY id DESC LIMIT 1",
        (row["id"], row["hand_from"]),
    ).fetchone()
    return r


def new_hand(db: sqlite3.Connection, table_id: int) -> None:
    """Start the next hand at the table: its photos so far, their hints and every player's hand
    are the last hand's (the photos stay in the history). A demo table keeps its sample photo
    and hand. Call inside a transaction."""
    row = table_row(db, table_id)
    if row["demo"]:
        return
    db.execute(
        "UPDATE tables SET hand_from = (SELECT COALESCE(MAX(id), 0) FROM photos WHERE table_id = ?)"
        " WHERE id = ?",
        (table_id, table_id),
    )
    db.execute("DELETE FROM hands WHERE table_id = ?", (table_id,))


def set_next_table(db: sqlite3.Connection, table_id: int, next_id: int) -> None:
    """Remember the rematch table the players moved on to."""
    db.execute("UPDATE tables SET next_id = ? WHERE id = ?", (next_id, table_id))


def photo_files(db: sqlite3.Connection, table_id: int | None = None) -> list[str]:
    """The file names (in the photo folder) of every photo of the table, or of every table
    when ``table_id`` is None."""
    if table_id is None:
        return [r["filename"] for r in db.execute("SELECT filename FROM photos")]
    return [
        r["filename"]
        for r in db.execute("SELECT filename FROM photos WHERE table_id = ?", (table_id,))
    ]


def photo_row(db: sqlite3.Connection, table_id: int, photo_id: int) -> sqlite3.Row:
    """The ``photos`` row. Raises ApiError(404) when the table has no such photo."""
    row = None
    if 0 < photo_id <= MAX_ID and 0 < table_id <= MAX_ID:
        row = db.execute(
            "SELECT * FROM photos WHERE id = ? AND table_id = ?", (photo_id, table_id)
        ).fetchone()
    if row is None:
        raise ApiError(404, f"table {table_id} has no photo {photo_id}")
    return row


def photo_json(row: sqlite3.Row, game: str, mine: dict | None = None) -> dict:
    """What the page draws: the image URL and size, the tiles (corrections applied), the reading.

    ``mine``: ``{"player_id", "hand", "analysis"}`` of the phone's own seat: its hand and the
    reading with that hand replace the public ones (a watcher sees no hand: ``hand`` is []).
    """
    tiles = json.loads(row["detections_json"])
    corrections = json.loads(row["corrections_json"])
    analysis = json.loads(row["analysis_json"])
    suggestion = None
    sheet = score_sheet(get_game_type(game))
    if sheet is not None and sheet.pips_in_view:
        suggestion = {
            "points": services.pips_in_view(tiles, corrections),
            "why": "pips of the face-up tiles in the photo (photograph the losers' hands)",
        }
    # No suggestion for a Tableaux turn: the hint's ranking values are turn points minus a
    # threat penalty (engine/tableaux/hint.py), not the score of the turn; its explanation
    # names the turn's points and players type them.
    shown = services.apply_corrections(tiles, corrections)
    reading = mine["analysis"] if mine else analysis
    return {
        "id": row["id"],
        "table_id": row["table_id"],
        "image_url": f"/api/tables/{row['table_id']}/photos/{row['id']}/image",
        "width": row["width"],
        "height": row["height"],
        "created": row["created"],
        "tiles": shown,
        "labels": services.tile_labels(shown, reading, row["width"], row["height"]),
        "corrections": corrections,
        "hand": mine["hand"] if mine else [],
        "player_id": mine["player_id"] if mine else None,
        "analysis": reading,
        "suggestion": suggestion,
        "elapsed_ms": row["elapsed_ms"],
        "rendered": bool(row["rendered"]) if "rendered" in row.keys() else False,
    }


# --- players' own hands ----------------------------------------------------------------------


def player_of(db: sqlite3.Connection, table_id: int, player_id: Any) -> int:
    """``player_id`` checked to sit at the table; None or "" means the first seat.

    Raises:
        ApiError(400): not a whole number, or no such player at this table.
    """
    seats = players(db, table_id)
    if player_id in (None, ""):
        return seats[0]["id"]
    pid = int_in_range(player_id, "player", 1, MAX_ID)
    if pid not in {p["id"] for p in seats}:
        raise ApiError(400, f"player {pid} does not sit at this table")
    return pid


def player_hand(db: sqlite3.Connection, player_id: int) -> list[str]:
    """The hand ``player_id`` entered (tile texts), [] when none."""
    row = db.execute("SELECT hand_json FROM hands WHERE player_id = ?", (player_id,)).fetchone()
    return json.loads(row["hand_json"]) if row else []


def set_hand(db: sqlite3.Connection, table_id: int, player_id: int, hand: list[str]) -> None:
    """Store ``player_id``'s hand (replacing theirs only); their reading is made again."""
    db.execute(
        """INSERT INTO hands (player_id, table_id, hand_json, photo_id) VALUES (?,?,?,NULL)
                  ON CONFLICT(player_id) DO UPDATE SET hand_json = excluded.hand_json, photo_id = NULL,
                  updated = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')""",
        (player_id, table_id, json.dumps(hand)),
    )


def cached_reading(db: sqlite3.Connection, player_id: int, photo_id: int) -> dict | None:
    """``player_id``'s stored reading of ``photo_id`` with their hand, or None (none or stale)."""
    row = db.execute(
        "SELECT photo_id, analysis_json FROM hands WHERE player_id = ?", (player_id,)
    ).fetchone()
    if row is None or row["photo_id"] != photo_id:
        return None
    return json.loads(row["analysis_json"])


def keep_reading(
    db: sqlite3.Connection, table_id: int, player_id: int, photo_id: int, analysis: dict
) -> None:
    """Remember ``player_id``'s reading of ``photo_id`` (the table's latest photo)."""
    db.execute(
        """INSERT INTO hands (player_id, table_id, photo_id, analysis_json) VALUES (?,?,?,?)
                  ON CONFLICT(player_id) DO UPDATE SET photo_id = excluded.photo_id,
                  analysis_json = excluded.analysis_json""",
        (player_id, table_id, photo_id, json.dumps(analysis)),
    )


def forget_readings(db: sqlite3.Connection, table_id: int) -> None:
    """Every player's reading is stale (a tile of the photo was fixed)."""
    db.execute("UPDATE hands SET photo_id = NULL WHERE table_id = ?", (table_id,))


# --- seats held by one phone ------------------------------------------------------------------
#
# Taking a seat gives the phone a random token (kept in its HttpOnly cookie); the database keeps
# only its SHA-256. While a seat is held, only the phone with the token may read or set the
# seat's hand, and no other phone may take the seat. The holder may leave it; a holder of the
# table code may free it (a lost phone). Releasing a seat clears its hand, so the next phone in
# that seat never sees the last one's tiles. Demo tables are open to every visitor: there a
# held seat may be taken over and the demo hand stays.


def token_hash(token: str) -> str:
    """The SHA-256 (hex) of a seat token, as stored."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def held_seats(db: sqlite3.Connection, table_id: int) -> set[int]:
    """The player ids whose seat a phone holds at this table."""
    return {
        r["player_id"]
        for r in db.execute("SELECT player_id FROM seats WHERE table_id = ?", (table_id,))
    }


def seat_holder(db: sqlite3.Connection, table_id: int, player_id: int, token: str) -> bool:
    """True when ``token`` is the token of the phone holding ``player_id``'s seat."""
    row = db.execute(
        "SELECT token_hash FROM seats WHERE player_id = ? AND table_id = ?", (player_id, table_id)
    ).fetchone()
    return row is not None and secrets.compare_digest(row["token_hash"], token_hash(token))


def take_seat(db: sqlite3.Connection, row: sqlite3.Row, player_id: int) -> str:
    """Give ``player_id``'s seat to a phone; returns its new token (32 random bytes, URL-safe).

    Call inside a transaction.

    Raises:
        ApiError(409): another phone holds the seat (a demo table lets it be taken over).
    """
    if player_id in held_seats(db, row["id"]) and not row["demo"]:
        name = player_name(db, player_id)
        raise ApiError(
            409,
            f"{name}'s seat is taken by another phone. If that phone is lost, free the seat "
            "first (anyone with the table code can).",
        )
    token = secrets.token_urlsafe(32)
    db.execute(
        """INSERT INTO seats (player_id, table_id, token_hash) VALUES (?,?,?)
           ON CONFLICT(player_id) DO UPDATE SET token_hash = excluded.token_hash,
           taken = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')""",
        (player_id, row["id"], token_hash(token)),
    )
    return token


def release_seat(db: sqlite3.Connection, row: sqlite3.Row, player_id: int) -> bool:
    """Free ``player_id``'s seat and clear its hand (a demo table keeps its demo hand).
    Returns whether a phone held it. Call inside a transaction."""
    gone = db.execute(
        "DELETE FROM seats WHERE player_id = ? AND table_id = ?", (player_id, row["id"])
    ).rowcount
    if not row["demo"]:
        db.execute("DELETE FROM hands WHERE player_id = ?", (player_id,))
    return bool(gone)


def player_name(db: sqlite3.Connection, player_id: int) -> str:
    """The name of ``player_id`` ("?" when there is none)."""
    r = db.execute("SELECT name FROM players WHERE id = ?", (player_id,)).fetchone()
    return r["name"] if r else "?"


# --- idempotency keys --------------------------------------------------------------------------

IDEMPOTENCY_KEY_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.:")


def idempotency_key(value: Any) -> str | None:
    """The ``Idempotency-Key`` header checked: None when absent, else 8 to 100 of [A-Za-z0-9-_.:].

    Raises:
        ApiError(400): a key of another form.
    """
    if value in (None, ""):
        return None
    if (
        not isinstance(value, str)
        or not 8 <= len(value) <= 100
        or not set(value) <= IDEMPOTENCY_KEY_CHARS
    ):
        raise ApiError(
            400, "Idempotency-Key must be 8 to 100 letters, digits or -_.: (e.g. a UUID)"
        )
    return value


#: Hours an idempotency key is remembered (a retry comes within minutes; a day is plenty).
IDEMPOTENCY_TTL_HOURS = 24


def stored_answer(
    db: sqlite3.Connection, table_id: int, key: str | None, route: str
) -> tuple[int, Any] | None:
    """``(status, ref)`` of the first answer to ``key`` at this table, or None: ``ref`` is the
    id :func:`store_answer` kept (a round's or photo's id), from which the caller answers again.
    A record of an older release holds the whole first answer: ``ref`` is then that body (a
    dict). Records older than :data:`IDEMPOTENCY_TTL_HOURS` are forgotten.

    Raises:
        ApiError(409): the key was used for a different kind of request.
    """
    if key is None:
        return None
    row = db.execute(
        "SELECT route, status, body_json FROM idempotency WHERE table_id = ? AND key = ? "
        "AND created >= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?)",
        (table_id, key, f"-{IDEMPOTENCY_TTL_HOURS} hours"),
    ).fetchone()
    if row is None:
        return None
    if row["route"] != route:
        raise ApiError(409, "this Idempotency-Key was already used for another kind of request")
    body = json.loads(row["body_json"])
    if isinstance(body, dict) and set(body) == {"ref"}:
        return row["status"], body["ref"]
    return row["status"], body


def store_answer(
    db: sqlite3.Connection, table_id: int, key: str | None, route: str, status: int, ref: Any
) -> None:
    """Keep the answer to ``key`` (inside the transaction that made the change it reports):
    its status and ``ref``, the id of what it made (a round, a photo; a small JSON value),
    never the answer's body, which grows with the game. The table's records older than
    :data:`IDEMPOTENCY_TTL_HOURS` are deleted at the same time."""
    if key is not None:
        db.execute(
            "DELETE FROM idempotency WHERE table_id = ? "
            "AND created < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?)",
            (table_id, f"-{IDEMPOTENCY_TTL_HOURS} hours"),
        )
        db.execute(
            "INSERT INTO idempotency (table_id, key, route, status, body_json) VALUES (?,?,?,?,?)",
            (table_id, key, route, status, json.dumps({"ref": ref})),
        )


def forget_old_answers(db: sqlite3.Connection, hours: int = IDEMPOTENCY_TTL_HOURS) -> int:
    """Delete idempotency records older than ``hours``; returns how many."""
    return db.execute(
        "DELETE FROM idempotency WHERE created < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?)",
        (f"-{int(hours)} hours",),
    ).rowcount


# --- photo files -------------------------------------------------------------------------------

PHOTO_NAME = re.compile(r"^t\d+-[0-9a-f]{32}\.jpg$")
PART_SUFFIX = ".part"


def sweep_photo_dir(db: sqlite3.Connection, photo_dir: str | Path) -> dict[str, int]:
    """Tidy the photo folder after a crash (run at start-up, one server per instance folder).

    Photos are written as ``<name>.part`` and renamed to ``<name>`` after their row is
    committed. A ``.part`` file whose row exists is renamed (the crash came after the commit);
    one without a row is deleted, and so is a photo file no row names. Files that are not the
    companion's (other names) are left alone. Returns ``{"completed": n, "removed": n}``.
    """
    folder = Path(photo_dir)
    known = set(photo_files(db))
    out = {"completed": 0, "removed": 0}
    for path in folder.iterdir() if folder.is_dir() else []:
        name = path.name
        if name.endswith(PART_SUFFIX) and PHOTO_NAME.match(name[: -len(PART_SUFFIX)]):
            final = name[: -len(PART_SUFFIX)]
            if final in known:
                os.replace(path, folder / final)
                out["completed"] += 1
            else:
                path.unlink(missing_ok=True)
                out["removed"] += 1
        elif PHOTO_NAME.match(name) and name not in known:
            path.unlink(missing_ok=True)
            out["removed"] += 1
    return out


# --- entries recorded by the live camera (companion/follow/) --------------------------------


def record_camera_round(
    db: sqlite3.Connection, table_id: int, seat: int, points: int, kind: str, note: str = ""
) -> dict:
    """Store one score event the live camera made (``companion.follow`` ``score`` record) as an
    ordinary entry of the score sheet: ``points`` to the player in ``seat`` (0-based), ``kind``
    one of the game's round kinds (Tableaux ``play``/``pass``, draw to 100 ``domino``/``blocked``),
    ``source`` ``"camera"``. Undo works on it like on any entry. Call inside a transaction.
    Returns ``table_json`` with ``round_id``, the new entry's id.

    Raises:
        ApiError(400): no player in ``seat``, a bad kind or points (as :func:`record_round`).
        ApiError(409): the game is already finished.
    """
    ids = {p["seat"]: p["id"] for p in players(db, table_id)}
    if seat not in ids:
        raise ApiError(400, f"no player sits in seat {shown(seat)} at table {table_id}")
    record_round(db, table_id, {ids[seat]: points}, kind, "hand", None, note)
    rid = db.execute(
        "SELECT id FROM rounds WHERE table_id = ? ORDER BY number DESC LIMIT 1", (table_id,)
    ).fetchone()["id"]
    db.execute("UPDATE rounds SET source = 'camera' WHERE id = ?", (rid,))
    out = table_json(db, table_id)
    out["round_id"] = rid
    return out


#: The kinds of a solitaire's entry: the game's result, as the live camera saw it.
RESULT_KINDS = ("won", "lost")


def record_camera_result(
    db: sqlite3.Connection, table_id: int, won: bool, removed: int, left: int
) -> dict:
    """Store a solitaire's result the live camera saw (``companion.follow`` ``result`` record)
    as an entry of the table's history: kind ``won`` or ``lost``, source ``"camera"``, the tiles
    removed as the points of the player (seat 0) and ``"<removed> removed, <left> left"`` as
    its note. Undo works on it like on any entry. Call inside a transaction. Returns
    ``table_json`` with ``round_id``, the new entry's id.

    Raises:
        ApiError(400): a scored game (its entries are score events, :func:`record_camera_round`),
            or tile counts out of range.
    """
    row = table_row(db, table_id)
    info = GAMES[row["game"]]
    if info.scored:
        raise ApiError(400, f"{info.label} records score events, not a solitaire's result")
    removed = int_in_range(removed, "tiles removed", 0, MAX_POINTS)
    left = int_in_range(left, "tiles left", 0, MAX_POINTS)
    first = players(db, table_id)[0]["id"]
    number = db.execute(
        "SELECT COALESCE(MAX(number), 0) + 1 FROM rounds WHERE table_id = ?", (table_id,)
    ).fetchone()[0]
    cur = db.execute(
        "INSERT INTO rounds (table_id, number, kind, source, note) VALUES (?,?,?,'camera',?)",
        (table_id, number, RESULT_KINDS[0 if won else 1], f"{removed} removed, {left} left"),
    )
    db.execute(
        "INSERT INTO score_events (round_id, player_id, points) VALUES (?,?,?)",
        (cur.lastrowid, first, removed),
    )
    out = table_json(db, table_id)
    out["round_id"] = cur.lastrowid
    return out
