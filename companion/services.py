"""The companion's adapter over ``vision/`` and ``engine/``: plain JSON in, plain JSON out.

The blueprints call this module for every photo, detection, table reading and hint, so they
never handle numpy arrays, ``TileDetection`` records or engine states: a photo's tiles are
``TileDetection.to_json()`` dicts, a reading is :func:`read_table`'s dict. Errors the page must
show become :class:`ImageError` (400), :class:`Busy` (503, retry) or :class:`Unavailable`
(503: the detector model is missing or failed); the game facts come from ``engine.GAMES``.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import cv2
import numpy as np

from engine import GameType, Hand, Hint, Shape, State, get_game_type
from engine.tiles import Tile
from vision import image_io
from vision.detector import load_detector
from vision.layout import DetectOptions, ParameterError, detect_options, read, reader_params
from vision.pipeline import detect as detect_tiles
from vision.types import TileDetection, TileFlag

from . import hints


def reader_takes(game: str, name: str) -> bool:
    """True when ``game``'s layout reader takes the parameter ``name`` (e.g. the draw game's
    ``players``; ``vision.layout.reader_params``)."""
    return name in reader_params(game)


# --- errors for the page -----------------------------------------------------------------


class Unavailable(RuntimeError):
    """A part of the pipeline cannot run (no detector model, a failing camera); the message
    says which, for the page."""


def availability() -> dict[str, dict[str, Any]]:
    """``{"detector": {"ok": bool, "message": str}}``: whether the tile detector's model loads
    (``vision.detector.load_detector``; without it photos give no tiles)."""
    try:
        load_detector()
    except Exception as exc:  # noqa: BLE001 - a missing or broken model file: say which
        return {"detector": {"ok": False, "message": f"{type(exc).__name__}: {exc}"}}
    return {"detector": {"ok": True, "message": ""}}


class ImageError(ValueError):
    """The upload is not a usable photo (not an image, corrupt, truncated, too large)."""


class Busy(RuntimeError):
    """The server is busy right now (decode slots or the database); the client should retry.

    ``retry_after``: seconds to wait before retrying (sent as the ``Retry-After`` header).
    """

    def __init__(self, message: str, retry_after: int = 2):
        super().__init__(message)
        self.retry_after = retry_after


# --- images ------------------------------------------------------------------------------

#: Largest accepted photo (pixels, width x height); checked on the declared size before decoding.
MAX_PIXELS = image_io.DEFAULT_MAX_PIXELS
#: Longest wait for a free decode slot before answering 503 (seconds).
DECODE_WAIT_S = 20.0


def decode_upload(data: bytes) -> np.ndarray:
    """An uploaded JPEG or PNG -> ``(H, W, 3) uint8`` BGR image, by ``vision.image_io.decode``
    (declared size checked before decoding, EXIF orientation applied, at most two decodes at
    once), its errors turned into the page's.

    Raises:
        ImageError: empty data, not JPEG/PNG, a corrupt or truncated file, too many pixels.
        Busy: every decode slot stayed taken for :data:`DECODE_WAIT_S`.
    """
    try:
        return image_io.decode(data, "the upload", max_pixels=MAX_PIXELS, wait_s=DECODE_WAIT_S)
    except image_io.DecoderBusy as exc:
        raise Busy(f"the server is decoding other photos: {exc}", retry_after=5) from None
    except ValueError as exc:
        raise ImageError(f"{exc}; take the photo again as a JPEG or PNG") from None


def encode_jpeg(image: np.ndarray, quality: int = 88) -> bytes:
    """``(H, W, 3)`` BGR image -> JPEG bytes with no metadata (no EXIF, no GPS position).

    Stored photos are always re-encoded from the decoded pixels, so nothing the phone put in the
    file's metadata is kept, and the orientation is already applied to the pixels.
    """
    ok, buf = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), quality])
    if not ok:
        raise ImageError("could not encode the image as JPEG")
    return buf.tobytes()


_camera_lock = threading.Lock()


def grab_camera(index: int) -> bytes:
    """One JPEG frame from the laptop webcam ``index`` (``cv2.VideoCapture``).

    Raises:
        Unavailable: the camera cannot be opened or gives no frame.
    """
    with _camera_lock:
        cap = cv2.VideoCapture(index)
        try:
            if not cap.isOpened():
                raise Unavailable(f"camera {index} cannot be opened on the server")
            frame = None
            for _ in range(5):  # the first frames of many webcams are dark
                ok, f = cap.read()
                if ok:
                    frame = f
            if frame is None:
                raise Unavailable(f"camera {index} gave no picture")
        finally:
            cap.release()
    return encode_jpeg(frame)


# --- detection and reading ---------------------------------------------------------------

_detect_lock = threading.Lock()


def detect(
    image: np.ndarray, game: str | None = None, options: DetectOptions | None = None
) -> list[dict]:
    """Find tiles and count pips: ``vision.pipeline.detect`` -> list of ``TileDetection.to_json()``.

    Runs one photo at a time (the detector uses all CPU cores; queueing keeps latency even).
    ``game``: the table's game; detected with ``vision.layout.detect_options(game)`` (for the
    games laid out face up boxes the detector calls face down are read too, ``read_backs``; boxes
    lying on other boxes are kept for the layout reader, ``keep_covered``); ``options`` given
    replace those.

    Raises:
        Unavailable: no detector model, or the detector failed on this photo.
    """
    if options is None:
        options = detect_options(game)
    try:
        with _detect_lock:
            dets = detect_tiles(image, **options)
    except Exception as exc:  # noqa: BLE001 - keep the page alive, report the failure
        raise Unavailable(
            f"the tile detector failed on this photo: {type(exc).__name__}: {exc}"
        ) from None
    return [d.to_json() for d in dets]


#: Corrections other than a value: the box is no tile (dropped before reading), or a tile lying
#: face down (read as such).
NOT_A_TILE, FACE_DOWN = "not_tile", "face_down"


def detect_hand(image: np.ndarray) -> list[dict]:
    """The tiles of a photo of one player's hand: :func:`detect` with ``read_backs`` alone (as
    ``vision.layout.detect_options`` says for hand photos).

    Raises:
        Unavailable: no detector model, or the detector failed on this photo.
    """
    return detect(image, None, {"read_backs": True, "keep_covered": False})


def tile_box_at(tiles: list[dict], at: tuple[float, float], width: int, height: int) -> dict:
    """A tile record (``TileDetection.to_json()`` shape, added by hand) centred at ``at`` px: the
    size and turn of the nearest tile of ``tiles``, else an upright box 1/8 of the photo tall."""
    c = np.asarray(at, float)
    if tiles:
        near = min(
            tiles,
            key=lambda t: float(np.linalg.norm(np.asarray(t["corners"], float).mean(axis=0) - c)),
        )
        box = np.asarray(near["corners"], float)
        box = box - box.mean(axis=0) + c
    else:
        h = max(height, width) / 8
        box = c + np.array([[-h / 4, -h / 2], [h / 4, -h / 2], [h / 4, h / 2], [-h / 4, h / 2]])
    return {
        "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in box],
        "confidence": 1.0,
        "face_down": False,
        "pips": None,
        "pip_confidence": None,
        "note": "added by hand",
        "alt_pips": None,
        "added": True,
    }


def _to_detections(tiles: list[dict], corrections: dict[str, Any]) -> list[TileDetection]:
    """JSON tiles (+ corrections ``{index: [a, b] | "not_tile" | "face_down"}``) ->
    ``list[vision.types.TileDetection]``; boxes marked not a tile are left out."""
    return _detections_and_index(tiles, corrections)[0]


def _detections_and_index(
    tiles: list[dict], corrections: dict[str, Any]
) -> tuple[list[TileDetection], list[int]]:
    """:func:`_to_detections` and the photo index of each detection."""
    out: list[TileDetection] = []
    index: list[int] = []
    for i, t in enumerate(tiles):
        pips = t.get("pips")
        face_down = bool(t.get("face_down"))
        pip_conf = t.get("pip_confidence")
        note = t.get("note", "")
        alt = t.get("alt_pips")
        flag = TileFlag.parse(t.get("flag"))
        fix = corrections.get(str(i))
        if fix == NOT_A_TILE:
            continue
        if fix is not None:
            flag = TileFlag.NONE
        if fix == FACE_DOWN:
            pips, face_down, pip_conf, note, alt = (
                None,
                True,
                None,
                "face down (set by hand)",
                None,
            )
        elif fix is not None:
            pips, face_down, pip_conf, note, alt = (
                tuple(fix),
                False,
                1.0,
                "corrected by hand",
                None,
            )
        out.append(
            TileDetection(
                np.asarray(t["corners"], np.float32),
                float(t.get("confidence", 1.0)),
                face_down,
                _pair(pips),
                pip_conf,
                note,
                _pair(alt),
                flag=flag,
                at_edge=bool(t.get("at_edge", False)),
            )
        )
        index.append(i)
    return out, index


def _pair(values: Any) -> tuple[int, int] | None:
    """``[a, b]`` (JSON) -> ``(a, b)`` ints; None stays None."""
    return None if values is None else (int(values[0]), int(values[1]))


def apply_corrections(tiles: list[dict], corrections: dict[str, Any]) -> list[dict]:
    """The tiles as the page shows them: corrected values replace the detector's, marked
    (``corrected``; ``not_tile`` for a box marked no tile, ``face_down`` for one turned over)."""
    out = []
    for i, t in enumerate(tiles):
        t = dict(t)
        fix = corrections.get(str(i))
        if fix == NOT_A_TILE:
            t.update(
                pips=None,
                face_down=False,
                corrected=True,
                not_tile=True,
                note="not a tile (set by hand)",
            )
        elif fix == FACE_DOWN:
            t.update(pips=None, face_down=True, corrected=True, note="face down (set by hand)")
        elif fix is not None:
            t.update(
                pips=list(fix),
                face_down=False,
                pip_confidence=1.0,
                corrected=True,
                note="corrected by hand",
            )
        out.append(t)
    return out


def label_text(tile: dict) -> str | None:
    """What the photo shows on a tile: its value "a-b" (as read, first half first), "?" when
    unread, a square when face down, None for a box marked "not a tile" (drawn as removed)."""
    if tile.get("not_tile") is True:  # a probability from the verifier otherwise
        return None
    if tile.get("face_down"):
        return "\u25a0"
    pips = tile.get("pips")
    return f"{pips[0]}-{pips[1]}" if pips else "?"


def problem_tiles(analysis: dict) -> list[int]:
    """The photo tiles (0-based) the reading's problems name (a hand problem may name the
    table tile it clashes with, in ``tiles``)."""
    out: set[int] = set()
    for p in analysis.get("problems") or []:
        if not isinstance(p, dict):
            continue
        named = p.get("tiles")
        if named is None and p.get("source") != "hand" and isinstance(p.get("tile_index"), int):
            named = [p["tile_index"]]
        out.update(i for i in named or [] if isinstance(i, int))
    return sorted(out)


def tile_labels(tiles: list[dict], analysis: dict, width: int, height: int) -> list[dict]:
    """The value labels and problem badges of a photo's tiles, placed so none overlaps another
    (:func:`vision.labels.place_labels`; photo px). ``tiles`` as the page shows them
    (:func:`apply_corrections`)."""
    from vision.labels import place_labels

    labels = place_labels(
        [t["corners"] for t in tiles],
        [label_text(t) for t in tiles],
        width,
        height,
        problem_tiles(analysis),
    )
    return [lab.to_json() for lab in labels]


def _remap(value: Any, index: list[int]) -> Any:
    """Every ``tile_index`` (and draw100 ``joins`` pair) of a reading from the reader's
    numbering (tiles left after dropping "not a tile" boxes) back to the photo's."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if k == "tile_index" and isinstance(v, int) and 0 <= v < len(index):
                out[k] = index[v]
            elif k == "joins" and isinstance(v, list):
                out[k] = [
                    [index[a] if isinstance(a, int) and 0 <= a < len(index) else a for a in pair]
                    if isinstance(pair, list)
                    else pair
                    for pair in v
                ]
            else:
                out[k] = _remap(v, index)
        return out
    if isinstance(value, list):
        return [_remap(v, index) for v in value]
    return value


def parse_hand(hand: Any, max_pip: int) -> list[str]:
    """The player's hand as canonical tile texts, from ``"3-5 6-6"`` or ``["3-5", [6, 6]]``.

    Raises:
        ValueError: a tile that does not parse, lies outside the double-``max_pip`` set, or
            appears twice.
    """
    if hand is None:
        return []
    if isinstance(hand, str):
        if len(hand) > 1000:
            raise ValueError("a hand has at most 30 tiles")
        items = hand.replace(",", " ").split()
    elif isinstance(hand, (list, tuple)):
        items = list(hand)
    else:
        raise ValueError(
            f'the hand must be text like "3-5 6-6" or a list of tiles, not {type(hand).__name__}'
        )
    if len(items) > 30:
        raise ValueError("a hand has at most 30 tiles")
    out: list[str] = []
    for item in items:
        shown = repr(item) if len(repr(item)) <= 40 else repr(item)[:40] + "..."
        try:
            if isinstance(item, (list, tuple)):
                if len(item) != 2 or not all(
                    isinstance(v, int) and not isinstance(v, bool) for v in item
                ):
                    raise ValueError("two whole numbers expected")
                t = Tile(*item)
            elif isinstance(item, str) and len(item) <= 10:
                t = Tile.parse(item)
            else:
                raise ValueError("a tile is text like 3-5 or a pair like [3, 5]")
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"bad hand tile {shown}: write tiles like 3-5") from exc
        if t.high > max_pip:
            raise ValueError(f"{t} is not in a double-{max_pip} set")
        if str(t) in out:
            raise ValueError(f"{t} is twice in the hand")
        out.append(str(t))
    if len(out) > 30:
        raise ValueError("a hand has at most 30 tiles")
    return out


def read_table(
    tiles: list[dict],
    corrections: dict[str, Any],
    game: str,
    params: dict[str, Any],
    hand: list[str] | None = None,
) -> dict[str, Any]:
    """Rebuild the game from the tiles (``vision.layout.read``) and ask the engine for its hint
    (``engine.GAMES[game].hint``).

    ``hand`` (tile texts) is the player's own tiles for the games that take them
    (``GameType.takes_hand``: the hand of the draw game and Tableaux, the tile drawn in the Big
    Clock). Returns the reader's JSON (``ok``, ``layout``, ``problems`` [{tile_index, kind,
    message, blocking, tiles}], ``legal_moves`` [{text, json, words}]) plus ``hint`` (see
    ``engine.game.Hint.to_json``, or None), ``advice`` and ``message`` (why there are no moves, for the
    page) and ``elapsed_ms``. A photo that cannot be read as the game, or a failure of the
    reader or the engine, becomes ``ok=False`` with a message.

    Raises:
        ParameterError: ``params`` holds a name the game's reader does not take.
    """
    started = time.perf_counter()
    gt = get_game_type(game)
    data: dict[str, Any]
    try:
        dets, index = _detections_and_index(tiles, corrections)
        result = read(dets, gt.name, list(hand) if hand and gt.takes_hand else None, **params)
        hint = hint_for(gt, result.state) if result.legal_moves else None
        raw = result.to_json()
        raw["hint"] = None if hint is None or result.state is None else hint.to_json(result.state)
        data = json.loads(json.dumps(raw, default=_json_default))
        if index != list(range(len(tiles))):
            data = _remap(data, index)
        shown = apply_corrections(tiles, corrections)
        places = (
            hints.pile_places(data.get("layout") or {}, shown) if gt.shape is Shape.RING else {}
        )
        labels = [label_text(t) for t in shown]  # as the photo's labels write the tiles
        for p in data["problems"]:
            p["message"], named = hints.plain_problem(p["message"], index, places, labels)
            on_table = isinstance(p.get("tile_index"), int) and p.get("source") != "hand"
            p["tiles"] = sorted(set(named) | ({p["tile_index"]} if on_table else set()))
            p["plain"] = hints.problem_in_words(p)
        data["message"] = "" if data["ok"] else _why_not(data, gt, hand)
        # the reading waits for the player's own tiles (the page asks in its own words)
        data["asks_hand"] = not data["ok"] and _asks_hand(data, gt, hand)
        data["advice"] = hints.present(gt.name, data, shown)
        data["legal_moves"] = _moves_in_words(gt, data, shown, hand)
    except ParameterError:
        raise
    except ValueError as exc:
        data = _no_reading(f"The photo could not be read as a {gt.label} table: {exc}", [str(exc)])
    except Exception as exc:  # noqa: BLE001 - a bug elsewhere must not take the page down
        data = _no_reading(f"Reading the table failed: {type(exc).__name__}: {exc}", [])
    data["elapsed_ms"] = round((time.perf_counter() - started) * 1000.0, 1)
    return data


#: Most legal moves put in words (and so told apart) per reading; the page lists 30.
MOVES_IN_WORDS = 200


def _moves_in_words(
    gt: GameType, data: dict[str, Any], shown: list[dict], hand: list[str] | None
) -> list[dict]:
    """The reading's legal moves, each with ``words`` (:func:`companion.hints.move_words`), each
    spelling once: moves a player cannot tell apart on the table (the same tile on the same
    number beside one spinner, say) are one entry, the first the engine listed. Without the
    Big Clock's drawn tile (``Hand.DRAWN``, no ``hand``) the moves that would handle it are left
    out: the reader stood in a tile of the stock for it, which the player does not hold.
    Moves past :data:`MOVES_IN_WORDS` are kept without words."""
    moves = data["legal_moves"]
    if gt.hand is Hand.DRAWN and not hand:
        moves = [m for m in moves if (m.get("json") or {}).get("type") == "move"]
    out: list[dict] = []
    spelt: set[str] = set()
    for k, m in enumerate(moves):
        if k < MOVES_IN_WORDS:
            m["words"] = hints.move_words(gt.name, data, shown, m)
            if m["words"] in spelt:
                continue
            spelt.add(m["words"])
        out.append(m)
    return out


def _no_reading(message: str, problems: list[Any]) -> dict[str, Any]:
    """The reading of a photo that gave no game: ``ok=False`` and ``message`` for the page."""
    return {
        "ok": False,
        "message": message,
        "state": None,
        "problems": problems,
        "legal_moves": [],
        "hint": None,
    }


def hint_for(gt: GameType, state: State | None) -> Hint | None:
    """The engine's hint for ``state`` (``gt.hint``), or None without a state."""
    return None if state is None else gt.hint(state)


def _why_not(data: dict, gt: GameType, hand: list[str] | None) -> str:
    """One sentence for the page: why the photo gave no game state (from the reader's problems)."""
    if _asks_hand(data, gt, hand):
        return "Type your hand in the 'Your hand' box to see your legal moves and the hint."
    blocking = [
        _sentence_part(p.get("plain") or p.get("message", ""))
        for p in data["problems"]
        if isinstance(p, dict) and p.get("blocking")
    ]
    if blocking:
        return (
            "No moves yet: "
            + blocking[0]
            + (f" (and {len(blocking) - 1} more)" if len(blocking) > 1 else "")
            + ". Tap a tile to fix it, or take the photo again."
        )
    return "No moves: the game on the photo is over or could not be rebuilt."


def _sentence_part(text: str) -> str:
    """A sentence made a part of another: first letter small, no closing full stop."""
    text = text.strip().rstrip(".")
    return text[:1].lower() + text[1:]


def _asks_hand(data: dict, gt: GameType, hand: list[str] | None) -> bool:
    """The reading needs the player's hand before it can give moves."""
    kinds = {p.get("kind") for p in data["problems"] if isinstance(p, dict)}
    return "no_hand" in kinds or (gt.needs_hand and not hand)


def _json_default(o: Any) -> Any:
    """JSON for what the reader's records hold besides JSON types: numpy arrays and numbers,
    tiles (``[low, high]``), records with ``to_json``; anything else as text."""
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if hasattr(o, "low") and hasattr(o, "high"):
        return [o.low, o.high]
    if hasattr(o, "to_json"):
        return o.to_json()
    return str(o)


def pips_in_view(tiles: list[dict], corrections: dict[str, Any]) -> int:
    """Sum of the pips of every face-up tile read in the photo (points).

    The score suggestion for a hand of draw to 100: photograph the tiles left in the losers'
    hands at the end of the hand (RULES.md section 4: the winner scores those pips).
    """
    total = 0
    for t in apply_corrections(tiles, corrections):
        if t.get("pips") and not t.get("face_down") and t.get("not_tile") is not True:
            total += int(t["pips"][0]) + int(t["pips"][1])
    return total
