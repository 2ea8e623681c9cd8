"""Live reading: camera frames in, plays, flags and automatic scores out to every phone.

One :class:`companion.follow.Follower` per table is kept in the process (:class:`LiveHub`, in
``app.extensions["live"]``). The filming phone (or the laptop webcam of ``serve --camera N``)
posts frames, downscaled JPEGs, to ``POST /api/tables/<id>/live/frames`` and sends the next
one when the answer is back (no queue); each frame is validated and decoded like every upload
(``vision.image_io`` through ``services.decode_upload``), read by ``services.detect`` and fed to
the follower. What the follower says becomes the table's *change feed*:

- ``play``, ``flag`` (an illegal play, not accepted: "6-3 does not match the 5 it touches"),
  ``question`` (a change the rules cannot explain; the players settle it), ``hand_end``,
  ``hand_scored``, ``progress``, ``result``, ``turn``, ``note``;
- ``score``: each automatic score event is stored at once as an ordinary entry of the score
  sheet with source ``camera`` (``store.record_camera_round``; undo works on it), and the
  record carries ``round_id`` and the table (totals, history) after it; a solitaire's
  ``result`` (won or lost, tiles removed and left) is stored the same way
  (``store.record_camera_result``);
- ``view``: the camera's view turned steady or moving;
- ``table`` / ``photo``: another phone recorded or undid an entry, or sent a photo; after a
  change on the table the frame itself becomes the table's photo (:func:`keep_photo`), so
  every phone shows the new position's tiles and its own hint.

Every phone at the table reads the feed by long polling: ``GET /api/tables/<id>/live/events
?after=SEQ`` answers at once when records newer than ``SEQ`` exist, else waits up to
:data:`LONG_POLL_S` seconds for one. A waiting request holds one server thread; at most
``LIVE_MAX_WAITERS`` (config; ``serve`` sets it from ``--threads``) wait at once, beyond that a
request is answered at once with ``retry_ms`` so frame posts and other requests always find a
free thread.

Only one camera films a table at a time: frames from another client (``camera`` form field)
within :data:`CAMERA_HOLD_S` seconds of the last frame are refused (409).
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, current_app, jsonify, request

from engine import GAMES

from .. import services, store
from ..db import close_db, get_db, transaction
from ..follow import FOLLOW_GAMES, Follower

bp = Blueprint("live", __name__)

#: Largest frame accepted, bytes (the page sends JPEGs of at most 960 px: about 100-200 kB; a
#: 1440 x 2560 JPEG of quality 95 from a phone is 1-3 MB).
MAX_FRAME_BYTES = 4 * 1024 * 1024
#: Largest frame accepted, pixels, checked from the file's header before decoding: a frame of
#: 1440 px on its short side from a 16:9 camera (1440 x 2560).
MAX_FRAME_PIXELS = 1440 * 2560
#: Longest wait of one long-polling request, seconds.
LONG_POLL_S = 20.0
#: Records kept per table for phones that join or fall behind.
KEEP_RECORDS = 300
#: Seconds a table's camera is kept for the client that filmed last.
CAMERA_HOLD_S = 10.0
#: Follower records the feed does not carry (the follower's own bookkeeping).
_QUIET = frozenset({"stable"})


@dataclass
class TableLive:
    """One table's follower and its change feed."""

    table_id: int
    follower: Follower | None  # None: a feed of score sheet changes only, nothing followed yet
    lock: threading.Lock = field(default_factory=threading.Lock)
    records: list[dict] = field(default_factory=list)
    seq: int = 0
    camera: str | None = None
    camera_at: float = 0.0
    steady: bool | None = None
    #: a frame waiting to become the table's photo (JPEG bytes and its detections), and
    #: whether one is being stored
    photo_next: tuple[bytes, list[dict]] | None = None
    photo_busy: bool = False

    @property
    def followed(self) -> Follower:
        """The follower (:meth:`LiveHub.table` always makes one)."""
        if self.follower is None:
            raise store.ApiError(409, "this table is not followed yet; send a frame first")
        return self.follower


def follower_for(row) -> Follower:
    """A new :class:`Follower` for the table ``row`` (its game, players and set).

    Raises:
        store.ApiError(400): a game the camera does not follow (none of the five today; a
            game whose layout shape has no rules in ``companion.follow``).
    """
    game = row["game"]
    if game not in FOLLOW_GAMES:
        label = GAMES[game].label
        raise store.ApiError(
            400,
            f"{label} is not followed live; take photos instead",
        )
    g = GAMES[game]
    params = json.loads(row["params_json"])
    # the seats when the game has a player range; the set when it is played with several
    n = len(store.players(get_db(), row["id"])) if g.min_players < g.max_players else 2
    return Follower(
        game,
        players=n,
        max_pip=params.get("max_pip") if len(g.sets) > 1 else None,
        variant=params.get("variant"),
    )


class LiveHub:
    """Every table's :class:`TableLive` and the long-polling waits (thread-safe).

    Args:
        max_waiters: long-polling requests allowed to wait at once (the others are answered
            at once with ``retry_ms``).
    """

    def __init__(self, max_waiters: int = 64):
        self._cond = threading.Condition()
        self._tables: dict[int, TableLive] = {}
        self.max_waiters = max(0, int(max_waiters))
        self.waiters = 0

    def get(self, table_id: int) -> TableLive | None:
        with self._cond:
            return self._tables.get(table_id)

    def table(self, row, fresh: bool = False) -> TableLive:
        """The table's :class:`TableLive`, made on first use (``fresh``: a new follower, the
        feed kept). Raises store.ApiError(400) for a game not followed."""
        with self._cond:
            live = self._tables.get(row["id"])
            if live is not None and live.follower is not None and not fresh:
                return live
        follower = follower_for(row)
        with self._cond:
            old = self._tables.get(row["id"])
            if old is None or old.follower is None or fresh:
                live = TableLive(row["id"], follower)
                if old is not None:
                    live.records, live.seq = old.records, old.seq
                self._tables[row["id"]] = live
            return self._tables[row["id"]]

    def forget(self, table_id: int) -> None:
        """Drop a deleted table's follower and feed; its waiting phones are answered."""
        with self._cond:
            self._tables.pop(table_id, None)
            self._cond.notify_all()

    def publish(self, table_id: int, records: list[dict], received: float | None = None) -> int:
        """Append ``records`` to the table's feed (numbered ``seq``, stamped ``at`` and, for a
        frame, ``received``: server times in s) and wake every waiting phone. Returns the last
        ``seq``. A table never followed gets a feed too (score sheet changes)."""
        with self._cond:
            live = self._tables.get(table_id)
            if live is None:
                live = self._tables[table_id] = TableLive(table_id, None)
            now = time.time()
            for r in records:
                live.seq += 1
                r["seq"] = live.seq
                r["at"] = now
                if received is not None:
                    r["received"] = received
                live.records.append(r)
            del live.records[:-KEEP_RECORDS]
            self._cond.notify_all()
            return live.seq

    def _after(self, table_id: int, after: int) -> tuple[list[dict], int, bool]:
        live = self._tables.get(table_id)
        if live is None:
            return [], 0, after > 0
        reset = after > live.seq  # the server restarted: send what is kept
        if reset:
            after = 0
        return [r for r in live.records if r["seq"] > after], live.seq, reset

    def wait(self, table_id: int, after: int, timeout: float) -> dict:
        """Records of the table newer than ``after``, waiting up to ``timeout`` s for one:
        ``{"records", "last", "reset"}`` plus ``retry_ms`` when too many phones wait already."""
        deadline = time.monotonic() + max(0.0, timeout)
        with self._cond:
            got, last, reset = self._after(table_id, after)
            if got or reset or timeout <= 0:
                return {"records": got, "last": last, "reset": reset}
            if self.waiters >= self.max_waiters:
                return {"records": [], "last": last, "reset": False, "retry_ms": 1000}
            self.waiters += 1
            try:
                while True:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    self._cond.wait(left)
                    got, last, reset = self._after(table_id, after)
                    if got or reset or table_id not in self._tables:
                        break
            finally:
                self.waiters -= 1
            return {"records": got, "last": last, "reset": reset}


def hub() -> LiveHub:
    """The application's :class:`LiveHub` (made on first use)."""
    ext = current_app.extensions
    if "live" not in ext:
        ext["live"] = LiveHub(current_app.config.get("LIVE_MAX_WAITERS", 64))
    return ext["live"]


def _kind(game: str, rec: dict) -> str:
    """The score-sheet kind (``GameType.round_kinds``) of a camera ``score`` record: the kind
    its reason is (``"pass"``) or names in brackets (``"hand 3 (blocked)"``), else the usual
    kind (the first)."""
    reason = str(rec.get("reason", ""))
    kinds = GAMES[game].round_kinds
    return next((k for k in kinds if reason == k or f"({k})" in reason), kinds[0])


def store_scores(db, row, records: list[dict]) -> None:
    """Store every ``score`` record of ``records`` as a camera entry of the score sheet, and a
    solitaire's ``result`` as a camera entry of its history (``store.record_camera_result``),
    one transaction each; the record gets ``round_id`` and ``table`` (the table after it), or
    ``stored: False`` and ``error`` when the sheet refused it (a finished game)."""
    solitaire = not GAMES[row["game"]].scored
    for rec in records:
        kind = rec.get("type")
        if kind != "score" and not (kind == "result" and solitaire):
            continue
        try:
            with transaction(db) as conn:
                if kind == "result":
                    t = store.record_camera_result(
                        conn, row["id"], bool(rec["won"]), int(rec["removed"]), int(rec["left"])
                    )
                else:
                    t = store.record_camera_round(
                        conn,
                        row["id"],
                        int(rec["player"]),
                        int(rec["points"]),
                        _kind(row["game"], rec),
                        f"camera: {rec.get('reason', '')}",
                    )
            rec["stored"] = True
            rec["round_id"] = t.pop("round_id")
            rec["table"] = t
        except store.ApiError as exc:
            rec["stored"] = False
            rec["error"] = exc.message


#: Records after which the frame becomes the table's photo (the table changed).
_PHOTO_AFTER = frozenset({"play", "hand_start", "hand_scored", "progress", "result"})


def keep_photo(live: TableLive, data: bytes, tiles: list[dict]) -> None:
    """Store the frame ``data`` (JPEG; ``tiles``: its detections) as the table's latest photo
    in a background thread (``api.add_photo``: read with the hint, stored like an upload) and
    announce it (``photo`` record), so every phone shows the tiles and the hint of the new
    position. One at a time per table; a frame that comes meanwhile replaces the waiting one."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    with live.lock:
        live.photo_next = (data, tiles)
        if live.photo_busy:
            return
        live.photo_busy = True
    threading.Thread(target=_store_photos, args=(app, live), daemon=True).start()


def _store_photos(app, live: TableLive) -> None:
    from .api import add_photo

    while True:
        with live.lock:
            nxt, live.photo_next = live.photo_next, None
            if nxt is None:
                live.photo_busy = False
                return
        data, tiles = nxt
        try:
            with app.test_request_context("/"):
                try:
                    row = store.table_row(get_db(), live.table_id)
                    photo, _ = add_photo(row, data, time.perf_counter(), tiles=tiles)
                    hub().publish(
                        live.table_id,
                        [{"type": "photo", "photo_id": photo["id"], "from": "camera"}],
                    )
                finally:
                    close_db()
        except Exception:  # noqa: BLE001 - a frame not kept as a photo must not stop the feed
            app.logger.exception("could not keep a live frame of table %s", live.table_id)


def feed_frame(
    live_hub: LiveHub,
    db,
    row,
    image,
    client: str,
    received: float,
    jpeg: bytes | None = None,
    still: bool = False,
) -> dict:
    """One frame (``(H, W, 3) uint8`` BGR) of ``client``'s camera through the table's follower;
    its records stored (scores) and published. ``still``: a photo the players took as one view
    of the table (one photo per play): a stable view at once (``Follower.feed``). Returns the answer for the filming phone:
    ``{"frame", "steady", "tracks", "records", "last", "summary", "width", "height"}``.

    When the table changed (a play, a hand started or scored, a solitaire's progress), the frame
    (``jpeg``, else ``image`` encoded) becomes the table's photo (:func:`keep_photo`).

    Raises:
        store.ApiError(409): another client filmed this table within :data:`CAMERA_HOLD_S` s.
        store.ApiError(400): a game not followed.
        services.Unavailable: the detector is not there or failed.
    """
    live = live_hub.table(row)
    now = time.monotonic()
    if live.camera not in (None, client) and now - live.camera_at < CAMERA_HOLD_S:
        raise store.ApiError(
            409,
            "another phone is filming this table; one camera at a time (stop it there, or "
            f"wait {CAMERA_HOLD_S:.0f} s after its last frame)",
        )
    live.camera, live.camera_at = client, now
    tiles = services.detect(image, row["game"])
    dets = services._to_detections(tiles, {})
    with live.lock:
        records = live.followed.feed(dets, still=still)
        up = live.followed.last_update
        steady = bool(up.steady) if up is not None else False
        out = [r for r in records if r.get("type") not in _QUIET]
        if steady != live.steady:
            out.insert(0, {"type": "view", "steady": steady, "frame": live.followed.frame})
            live.steady = steady
        store_scores(db, row, out)
        summary = live.followed.summary()
        last = live_hub.publish(row["id"], out, received) if out else live.seq
    if current_app.config.get("LIVE_KEEP_PHOTOS", True) and any(
        r.get("type") in _PHOTO_AFTER for r in out
    ):
        keep_photo(live, jpeg if jpeg is not None else services.encode_jpeg(image), tiles)
    h, w = image.shape[:2]
    return {
        "frame": up.frame if up is not None else -1,
        "steady": steady,
        "tracks": up.tracks if up is not None else [],
        "records": out,
        "last": last,
        "summary": summary,
        "width": int(w),
        "height": int(h),
    }


def _editable(table_id: int):
    from .api import editable_table

    return editable_table(table_id)


_CLIENT = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@bp.post("/tables/<int:table_id>/live/frames")
def post_frame(table_id: int):
    """A frame of the live camera (multipart ``frame``: JPEG or PNG of at most 3.7 megapixels;
    ``camera``: the client's id for this session; ``still=1``: a photo taken as one view of the
    table, one per play, not a frame of a stream). Answers the follower's view of it."""
    received = time.time()
    started = time.perf_counter()
    row = _editable(table_id)
    upload = request.files.get("frame")
    if upload is None:
        raise store.ApiError(400, "send the frame as the multipart form field 'frame'")
    client = request.form.get("camera", "phone")
    if not _CLIENT.match(client):
        raise store.ApiError(400, "camera must be 1-64 letters, digits, '-' or '_'")
    data = upload.read(MAX_FRAME_BYTES + 1)
    if len(data) > MAX_FRAME_BYTES:
        raise store.ApiError(
            413, f"a live frame is at most {MAX_FRAME_BYTES // (1024 * 1024)} MB; shrink it first"
        )
    _check_frame_size(data)
    image = services.decode_upload(data)
    still = request.form.get("still", "0")
    if still not in ("0", "1"):
        raise store.ApiError(400, "still must be 0 (a frame of the stream) or 1 (a photo)")
    out = feed_frame(hub(), get_db(), row, image, client, received, data, still == "1")
    out["elapsed_ms"] = round((time.perf_counter() - started) * 1000.0, 1)
    return jsonify(out)


def _check_frame_size(data: bytes) -> None:
    """Refuse a frame whose header declares more than :data:`MAX_FRAME_PIXELS` (nothing is
    decoded); a file that is no JPEG/PNG is left to ``services.decode_upload`` to refuse."""
    from vision import image_io

    try:
        w, h, _ = image_io.declared_size(data)
    except ValueError:
        return
    if w * h > MAX_FRAME_PIXELS:
        raise store.ApiError(
            413,
            f"a live frame is at most {MAX_FRAME_PIXELS / 1e6:.1f} megapixels, this one declares "
            f"{w}x{h}; the page shrinks frames to 960 px",
        )


@bp.post("/tables/<int:table_id>/live/tap")
def tap(table_id: int):
    """What the camera cannot see: ``{"kind": "pass" | "done" | "player", "player": seat}``
    (the player to move passes; a Tableaux turn that could go on ends; who is to move).

    With an ``Idempotency-Key`` a retry of a tap is taken once: it is answered
    ``{"records": [], "last", "summary", "repeated": true}`` (the first tap's records went out on
    the change feed)."""
    row = _editable(table_id)
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise store.ApiError(400, "send a JSON object (Content-Type: application/json)")
    kind = body.get("kind")
    seat = body.get("player")
    if kind not in ("pass", "done", "player"):
        raise store.ApiError(400, f"kind must be pass, done or player, got {store.shown(kind)}")
    if kind == "player":
        seat = store.int_in_range(seat, "player (seat)", 0, 3)
    else:
        seat = None
    key = store.idempotency_key(request.headers.get("Idempotency-Key"))
    live_hub = hub()
    live = live_hub.table(row)
    with live.lock:  # a retry waits for its first try, then finds its answer
        first = store.stored_answer(get_db(), row["id"], key, "taps")
        if first is not None:  # taken already: its records went out on the change feed
            summary = live.followed.summary()
            last = first[1] if isinstance(first[1], int) else live.seq
            return jsonify({"records": [], "last": last, "summary": summary, "repeated": True})
        try:
            records = live.followed.tap(kind, seat)
        except ValueError as exc:
            raise store.ApiError(400, str(exc)) from None
        store_scores(get_db(), row, records)
        summary = live.followed.summary()
        last = live_hub.publish(row["id"], records) if records else live.seq
        if key is not None:
            with transaction() as db:
                store.store_answer(db, row["id"], key, "taps", 200, last)
    return jsonify({"records": records, "last": last, "summary": summary})


@bp.post("/tables/<int:table_id>/live/reset")
def reset(table_id: int):
    """Follow the table afresh (a new follower: the next steady view is the start); the score
    sheet and the feed stay."""
    row = _editable(table_id)
    live_hub = hub()
    live = live_hub.table(row, fresh=True)
    with live.lock:
        summary = live.followed.summary()
    last = live_hub.publish(row["id"], [{"type": "reset", "summary": summary}])
    return jsonify({"last": last, "summary": summary})


@bp.get("/tables/<int:table_id>/live/events")
def events(table_id: int):
    """The change feed: ``?after=SEQ`` (records newer than it; 0 for all that are kept) and
    ``wait`` (seconds to wait for one, at most 20, default 20). Answers ``{"records", "last",
    "reset", "summary"}`` (``retry_ms``: ask again after that long; ``reset``: the server
    restarted, the records are all it keeps). No code needed: watchers follow too."""
    row = store.table_row(get_db(), table_id)
    after = _int_arg("after", 0, 0, 2**53)
    wait_s = _int_arg("wait", int(LONG_POLL_S), 0, int(LONG_POLL_S))
    close_db()  # no database connection is held while waiting
    out = hub().wait(row["id"], after, float(wait_s))
    live = hub().get(row["id"])
    summary = None
    if live is not None and live.follower is not None:
        with live.lock:
            summary = live.follower.summary()
    out["summary"] = summary
    out["followed"] = row["game"] in FOLLOW_GAMES
    return jsonify(out)


def _int_arg(name: str, default: int, lo: int, hi: int) -> int:
    raw = request.args.get(name)
    if raw in (None, ""):
        return default
    return store.int_in_range(raw, name, lo, hi)


_TABLE_CHANGE = re.compile(
    r"^/api/tables/(\d+)/(rounds|undo|photos|camera|seats|new-hand|rematch)(?:/\d+)?$"
)


def _sync_follower(table_id: int) -> dict:
    """The table (``store.table_json``) after an entry was typed or undone; its follower, if
    any, takes the sheet's totals and winner (``Follower.sync_scores``). Read under the
    follower's lock, where camera scores are stored too, so the tally and the sheet agree."""
    live = hub().get(table_id)
    if live is None or live.follower is None:
        return store.table_json(get_db(), table_id)
    with live.lock:
        table = store.table_json(get_db(), table_id)
        if table["scored"]:
            by_seat = sorted(table["players"], key=lambda p: p["seat"])
            winner = table["winner"]["seat"] if table["winner"] else None
            try:
                live.follower.sync_scores([p["total"] for p in by_seat], winner)
            except ValueError as exc:  # seats the follower does not have: the notice still goes
                current_app.logger.warning("table %s: follower not synced: %s", table_id, exc)
    return table


@bp.after_app_request
def announce_changes(response):
    """Put other phones' changes into the feed: a score entry recorded or undone, a seat taken,
    left or freed, a new hand (``table`` with the table after it), a rematch (``moved`` with
    the new table's id: every phone moves on to it), a photo sent (``photo`` with its id), a table deleted."""
    if response.status_code >= 300 or request.method not in ("POST", "DELETE"):
        return response
    m = _TABLE_CHANGE.match(request.path)
    try:
        if request.method == "DELETE" and re.match(r"^/api/tables/\d+$", request.path):
            hub().forget(int(request.path.rsplit("/", 1)[1]))
        elif m:
            tid = int(m.group(1))
            if m.group(2) in ("rounds", "undo", "seats", "new-hand"):
                rec = {"type": "table", "table": _sync_follower(tid)}
            elif m.group(2) == "rematch":  # every phone moves on to the new table
                rec = {
                    "type": "moved",
                    "table_id": (response.get_json(silent=True) or {}).get("id"),
                }
            else:
                pid = (response.get_json(silent=True) or {}).get("id")
                rec = {"type": "photo", "photo_id": pid}
            hub().publish(tid, [rec])
    except Exception:  # noqa: BLE001 - the change is stored; a missed notice must not fail it
        current_app.logger.exception("could not announce a change of %s", request.path)
    return response


class CameraFeeder:
    """The laptop webcam (``serve --camera N``, OpenCV ``VideoCapture``) feeding one table's
    follower from a background thread, through :func:`feed_frame` like a phone's frames
    (shrunk to at most :data:`LAPTOP_SIDE` px). Idle until a table asks for it
    (``POST /api/tables/<id>/live/laptop``); the camera is opened while it follows a table.
    A camera that cannot be opened or stops giving frames ends the following with a ``note``
    in the table's feed and :attr:`error`; nothing is raised out of the thread.
    """

    def __init__(self, app, index: int, capture=None):
        self.app = app
        self.index = int(index)
        self.table_id: int | None = None
        self.error: str | None = None
        self.frames = 0
        self._capture = capture  # a factory like cv2.VideoCapture (tests pass a fake)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="laptop-camera", daemon=True)

    def start(self) -> CameraFeeder:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(5)

    def follow(self, table_id: int | None) -> None:
        """Follow ``table_id`` (None: stop)."""
        self.table_id = table_id
        self.error = None
        self._wake.set()

    def _open(self):
        if self._capture is not None:
            return self._capture(self.index)
        import cv2

        return cv2.VideoCapture(self.index)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(1.0)
            self._wake.clear()
            tid = self.table_id
            if tid is None:
                continue
            cap = self._open()
            try:
                if not cap.isOpened():
                    self._fail(tid, f"the laptop camera {self.index} cannot be opened")
                    continue
                misses = 0
                while self.table_id == tid and not self._stop.is_set():
                    ok, frame = cap.read()
                    if not ok or frame is None:
                        misses += 1
                        if misses >= 20:
                            self._fail(tid, f"the laptop camera {self.index} gives no picture")
                            break
                        time.sleep(0.05)
                        continue
                    misses = 0
                    self._feed(tid, frame)
            except store.ApiError as exc:  # another camera films it, the table was deleted
                self._fail(tid, f"the laptop camera stopped: {exc.message}")
            except Exception as exc:  # noqa: BLE001 - a camera or detector failure ends it
                self._fail(tid, f"the laptop camera stopped: {type(exc).__name__}: {exc}")
            finally:
                cap.release()

    def _feed(self, tid: int, frame) -> None:
        import cv2

        h, w = frame.shape[:2]
        k = LAPTOP_SIDE / max(h, w)
        if k < 1:
            frame = cv2.resize(frame, (round(w * k), round(h * k)), interpolation=cv2.INTER_AREA)
        with self.app.app_context():
            try:
                row = store.table_row(get_db(), tid)
                feed_frame(hub(), get_db(), row, frame, "laptop", time.time())
                self.frames += 1
            finally:
                close_db()

    def _fail(self, tid: int, message: str) -> None:
        """End following ``tid`` with ``message``: the note is in the table's feed before
        :attr:`table_id` says the camera stopped, so whoever sees it stopped finds the note."""
        self.error = message
        self.app.logger.warning("%s", message)
        with self.app.app_context():
            hub().publish(tid, [{"type": "note", "message": message}])
        if self.table_id == tid:
            self.table_id = None


#: Longest side of the laptop webcam's frames fed to the follower, px.
LAPTOP_SIDE = 960


def start_camera_feeder(app, index: int, capture=None) -> CameraFeeder:
    """Start the laptop webcam's feeder for ``app`` (kept in ``app.extensions["camera"]``)."""
    feeder = CameraFeeder(app, index, capture).start()
    app.extensions["camera"] = feeder
    return feeder


@bp.post("/tables/<int:table_id>/live/laptop")
def laptop(table_id: int):
    """Follow this table with the laptop webcam (``{"on": true}``) or stop (``{"on": false}``);
    404 without ``serve --camera N``. Answers ``{"on", "table_id", "error"}``."""
    row = _editable(table_id)
    feeder = current_app.extensions.get("camera")
    if feeder is None:
        raise store.ApiError(404, "no laptop camera; start the server with `serve --camera N`")
    body = request.get_json(silent=True)
    on = body.get("on", True) if isinstance(body, dict) else True
    if not isinstance(on, bool):
        raise store.ApiError(400, f"on must be true or false, got {store.shown(on)}")
    if on:
        hub().table(row)  # refuses a game that is not followed
        feeder.follow(row["id"])
    elif feeder.table_id == row["id"]:
        feeder.follow(None)
    return jsonify(
        {"on": feeder.table_id == row["id"], "table_id": feeder.table_id, "error": feeder.error}
    )


def openapi_paths() -> dict[str, Any]:
    """The OpenAPI entries of the live routes (merged into ``/api/openapi.json``)."""
    err = {
        "description": "error",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
    tid = {"name": "table_id", "in": "path", "required": True, "schema": {"type": "integer"}}
    code = {"name": "X-Table-Code", "in": "header", "required": True, "schema": {"type": "string"}}
    ok = {"description": "ok"}
    return {
        "/api/tables/{table_id}/live/frames": {
            "post": {
                "summary": "A frame of the live camera (multipart 'frame', JPEG/PNG up to 3.7 "
                "megapixels, 'camera', the client's id, and 'still=1' for a photo taken as one "
                "view, one per play): the follower's view of it "
                "(steady, tile outlines, the records it caused, the summary)",
                "parameters": [tid, code],
                "responses": {
                    "200": ok,
                    "400": err,
                    "403": err,
                    "404": err,
                    "409": err,
                    "413": err,
                    "503": err,
                },
            }
        },
        "/api/tables/{table_id}/live/tap": {
            "post": {
                "summary": "What the camera cannot see: {kind: pass|done|player, player: seat}; "
                "with an Idempotency-Key a retry is taken once (answered repeated: true)",
                "parameters": [
                    tid,
                    code,
                    {"name": "Idempotency-Key", "in": "header", "schema": {"type": "string"}},
                ],
                "responses": {"200": ok, "400": err, "403": err, "404": err, "409": err},
            }
        },
        "/api/tables/{table_id}/live/reset": {
            "post": {
                "summary": "Follow the table afresh (the score sheet stays)",
                "parameters": [tid, code],
                "responses": {"200": ok, "400": err, "403": err, "404": err},
            }
        },
        "/api/tables/{table_id}/live/laptop": {
            "post": {
                "summary": "Follow this table with the laptop webcam of `serve --camera N` "
                "({on: true}) or stop ({on: false})",
                "parameters": [tid, code],
                "responses": {"200": ok, "400": err, "403": err, "404": err},
            }
        },
        "/api/tables/{table_id}/live/events": {
            "get": {
                "summary": "The change feed by long polling: records newer than ?after=SEQ, "
                "waiting up to ?wait=S (<= 20) seconds for one",
                "parameters": [
                    tid,
                    {"name": "after", "in": "query", "schema": {"type": "integer"}},
                    {"name": "wait", "in": "query", "schema": {"type": "integer"}},
                ],
                "responses": {"200": ok, "400": err, "404": err},
            }
        },
    }
