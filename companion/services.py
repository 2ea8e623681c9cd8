"""The one thin layer between the web code and the rest of the project.

Every call into ``vision/`` (tile detector, pip counter, layout reader) and ``engine/`` goes
through this module, so the blueprints never import them. Parts that another module has not
delivered yet (or that fail to import, e.g. a missing model file) do not crash the page:
:func:`availability` says what is missing and the analysis carries a ``message`` that the page
shows instead of tiles or moves.

Data passed to the web code is plain JSON (dicts, lists, numbers, strings).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from importlib import import_module
from typing import Any

import numpy as np

from . import hints

# --- the five games -----------------------------------------------------------------------


@dataclass(frozen=True)
class GameInfo:
    """What the table form needs to know about a game (rules: ../shared/RULES.md)."""

    name: str  # engine registry name (engine.GAMES)
    label: str  # for people
    scored: bool  # True: draw to 100 and Tableaux keep a score sheet
    min_players: int
    max_players: int
    sets: tuple[int, ...]  # allowed max_pip values (double-N sets)
    default_target: int | None
    variants: tuple[str, ...] = ()
    hint_module: str = ""  # module with hint(state) -> engine.game.Hint


GAMES: dict[str, GameInfo] = {
    "draw100": GameInfo(
        "draw100", "Double-six draw to 100", True, 2, 4, (6,), 100, hint_module="engine.draw100"
    ),
    "tableaux": GameInfo(
        "tableaux", "Tableaux", True, 2, 2, (6, 9), 121, hint_module="engine.tableaux"
    ),
    "good-neighbors": GameInfo(
        "good-neighbors",
        "Good Neighbors (solitaire)",
        False,
        1,
        1,
        (12, 9, 6),
        None,
        hint_module="engine.good_neighbors",
    ),
    "big-clock": GameInfo(
        "big-clock",
        "The Big Clock (solitaire)",
        False,
        1,
        1,
        (12, 9, 6),
        None,
        hint_module="engine.big_clock",
    ),
    "luzon": GameInfo(
        "luzon",
        "Luzon (solitaire)",
        False,
        1,
        1,
        (6,),
        None,
        ("", "sixes"),
        hint_module="engine.luzon",
    ),
}

#: Games whose reading takes the player's own tiles: the hand (draw to 100, Tableaux) or the tile
#: just drawn from the stock (The Big Clock).
HAND_GAMES = ("draw100", "tableaux", "big-clock")

#: Tableaux target by set (RULES.md section 5): double-6 to 121, double-9 to 361.
TABLEAUX_TARGETS = {6: 121, 9: 361}


def default_target(game: str, max_pip: int | None) -> int | None:
    """The usual winning score for ``game`` with a double-``max_pip`` set (points), or None."""
    if game == "tableaux":
        return TABLEAUX_TARGETS.get(max_pip or 6, 121)
    return GAMES[game].default_target


def engine_params(game: str, max_pip: int | None, variant: str | None) -> dict[str, Any]:
    """The keyword parameters for ``engine.make_game(game, **params)``.

    Raises:
        ValueError: unknown game, a set the game is not played with, or an unknown variant.
    """
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
    info = GAMES[game]
    params: dict[str, Any] = {}
    if max_pip is not None:
        if max_pip not in info.sets:
            raise ValueError(
                f"{info.label} is played with a double-"
                f"{'/'.join(map(str, info.sets))} set, not double-{max_pip}"
            )
        if len(info.sets) > 1:
            params["max_pip"] = max_pip
    if variant:
        if variant not in info.variants:
            raise ValueError(f"{info.label} has no variant {variant!r}")
        params["variant"] = variant
    return params


# --- availability of the other modules -------------------------------------------------------


class Unavailable(RuntimeError):
    """A part of the pipeline is not there (yet); the message says which, for the page."""


_import_lock = threading.Lock()
_modules: dict[str, Any] = {}


def _module(name: str):
    """Import ``name`` once; raise :class:`Unavailable` with the reason if that fails."""
    with _import_lock:
        if name in _modules:
            mod = _modules[name]
        else:
            try:
                mod = import_module(name)
            except Exception as exc:  # noqa: BLE001 - any import failure means "not available"
                mod = exc
            _modules[name] = mod
    if isinstance(mod, Exception):
        raise Unavailable(f"{name} is not available: {type(mod).__name__}: {mod}")
    return mod


def reset_cache() -> None:
    """Forget imported modules (tests; or after another module lands while serving)."""
    with _import_lock:
        _modules.clear()


def availability() -> dict[str, dict[str, Any]]:
    """``{part: {"ok": bool, "message": str}}`` for the detector, the layout reader and each engine."""
    out: dict[str, dict[str, Any]] = {}
    for part, mod, attr in [
        ("detector", "vision.pipeline", "detect"),
        ("layout", "vision.layout", "read"),
    ]:
        try:
            getattr(_module(mod), attr)
            out[part] = {"ok": True, "message": ""}
        except (Unavailable, AttributeError) as exc:
            out[part] = {"ok": False, "message": str(exc)}
    for name, info in GAMES.items():
        try:
            _ = _module(info.hint_module).hint  # AttributeError when the module has none
            out[f"engine:{name}"] = {"ok": True, "message": ""}
        except (Unavailable, AttributeError) as exc:
            out[f"engine:{name}"] = {"ok": False, "message": str(exc)}
    return out


# --- images ------------------------------------------------------------------------------


class ImageError(ValueError):
    """The upload is not a usable photo (not an image, corrupt, truncated, too large)."""


class Busy(RuntimeError):
    """The server is busy right now (decode slots or the database); the client should retry.

    ``retry_after``: seconds to wait before retrying (sent as the ``Retry-After`` header).
    """

    def __init__(self, message: str, retry_after: int = 2):
        super().__init__(message)
        self.retry_after = retry_after


#: Largest accepted photo (pixels, width x height); checked on the declared size before decoding.
MAX_PIXELS = 40_000_000
#: Longest wait for a free decode slot before answering 503 (seconds).
DECODE_WAIT_S = 20.0


def load_image(data: bytes) -> np.ndarray:
    """Decode an uploaded JPEG or PNG to a ``(H, W, 3) uint8`` BGR image (``vision.image_io``).

    The declared size is checked before decoding (decompression bombs cost nothing), at most
    two decodes run at once, EXIF orientation is applied, greyscale, 16-bit and transparent
    images are converted.

    Raises:
        ImageError: empty data, not JPEG/PNG, a corrupt or truncated file, too many pixels.
        Busy: every decode slot stayed taken for 20 s.
    """
    image_io = _module("vision.image_io")
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
    import cv2

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
    import cv2

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


def detect(image: np.ndarray, game: str | None = None, options: dict | None = None) -> list[dict]:
    """Find tiles and count pips: ``vision.pipeline.detect`` -> list of ``TileDetection.to_json()``.

    Runs one photo at a time (the detector uses all CPU cores; queueing keeps latency even).
    ``game``: the table's game; detected with ``vision.layout.detect_options(game)`` (for the
    games laid out face up boxes the detector calls face down are read too, ``read_backs``; for
    tight layouts boxes lying on other boxes are kept for the layout reader, ``keep_covered``);
    ``options`` given replace those.

    Raises:
        Unavailable: the vision pipeline is not there or failed on this photo.
    """
    fn = getattr(_module("vision.pipeline"), "detect", None)
    if fn is None:
        raise Unavailable("vision.pipeline has no detect() yet")
    try:
        if options is None:
            options = getattr(_module("vision.layout"), "detect_options", lambda g: {})(game)
        with _detect_lock:
            dets = fn(image, **options)
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
        Unavailable: the vision pipeline is not there or failed on this photo.
    """
    return detect(image, None, {"read_backs": True})


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


def _to_detections(tiles: list[dict], corrections: dict[str, Any]) -> list:
    """JSON tiles (+ corrections ``{index: [a, b] | "not_tile" | "face_down"}``) ->
    ``list[vision.types.TileDetection]``; boxes marked not a tile are left out."""
    return _detections_and_index(tiles, corrections)[0]


def _detections_and_index(tiles: list[dict], corrections: dict[str, Any]) -> tuple[list, list[int]]:
    """:func:`_to_detections` and the photo index of each detection."""
    from vision.types import TileDetection, TileFlag

    out, index = [], []
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
                tuple(pips) if pips is not None else None,
                pip_conf,
                note,
                tuple(int(x) for x in alt) if alt is not None else None,
                flag=flag,
            )
        )
        index.append(i)
    return out, index


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


def _remap(value: Any, index: list[int]) -> Any:
    """Every ``tile_index`` (and draw100 ``joins`` pair) of a reading from the reader's
    numbering (tiles left after dropping "not a tile" boxes) back to the photo's."""
    if isinstance(value, dict):
        out = {}
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
    from engine.tiles import Tile

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
    corrections: dict[str, list[int]],
    game: str,
    params: dict[str, Any],
    hand: list[str] | None = None,
) -> dict[str, Any]:
    """Rebuild the game from the tiles and ask the engine: ``vision.layout.read(...).to_json()``.

    ``hand`` (tile texts) is the player's own hand for draw100 and Tableaux (their states need
    it). Returns the reader's JSON (``ok``, ``layout``, ``problems`` [{tile_index, kind,
    message, blocking}], ``legal_moves`` [{text, json}], ``hint`` {action, action_json,
    win_chance, explanation, ranking}) plus ``message`` (why there are no moves, for the page).
    Never raises for a missing or failing reader: that becomes ``ok=False`` with a message.
    """
    started = time.perf_counter()
    try:
        read = getattr(_module("vision.layout"), "read", None)
        if read is None:
            raise Unavailable("vision.layout has no read() yet")
        dets, index = _detections_and_index(tiles, corrections)
        kwargs = dict(params)
        if hand and game in HAND_GAMES:
            kwargs["hand"] = list(hand)
        result = read(dets, game, **kwargs)
        data = result.to_json() if hasattr(result, "to_json") else dict(result)
        data = json.loads(json.dumps(data, default=_json_default))
        if index != list(range(len(tiles))):
            data = _remap(data, index)
        data.setdefault("problems", [])
        data.setdefault("legal_moves", [])
        data.setdefault("hint", None)
        data["ok"] = bool(data.get("ok", True))
        for p in data["problems"]:
            if isinstance(p, dict) and isinstance(p.get("message"), str):
                p["message"], named = hints.plain_problem(p["message"], index)
                on_table = isinstance(p.get("tile_index"), int) and p.get("source") != "hand"
                p["tiles"] = sorted(set(named) | ({p["tile_index"]} if on_table else set()))
        data["message"] = "" if data["ok"] else _why_not(data, game, hand)
        shown = apply_corrections(tiles, corrections)
        data["advice"] = hints.present(game, data, shown)
        for m in data["legal_moves"][:60]:
            if isinstance(m, dict) and "json" in m:
                m["words"] = hints.move_words(game, data, shown, m)
    except Unavailable as exc:
        data = {
            "ok": False,
            "message": f"Moves and hints are not available yet ({exc}).",
            "state": None,
            "problems": [],
            "legal_moves": [],
            "hint": None,
        }
    except ValueError as exc:
        data = {
            "ok": False,
            "message": f"The photo could not be read as a {GAMES[game].label} table: {exc}",
            "state": None,
            "problems": [str(exc)],
            "legal_moves": [],
            "hint": None,
        }
    except Exception as exc:  # noqa: BLE001 - a bug elsewhere must not take the page down
        data = {
            "ok": False,
            "message": f"Reading the table failed: {type(exc).__name__}: {exc}",
            "state": None,
            "problems": [],
            "legal_moves": [],
            "hint": None,
        }
    data["elapsed_ms"] = round((time.perf_counter() - started) * 1000.0, 1)
    return data


def _why_not(data: dict, game: str, hand: list[str] | None) -> str:
    """One sentence for the page: why the photo gave no game state (from the reader's problems)."""
    kinds = {p.get("kind") for p in data["problems"] if isinstance(p, dict)}
    if "no_hand" in kinds or (game in ("draw100", "tableaux") and not hand):
        return "Type your hand in the 'Your hand' box to see your legal moves and the hint."
    blocking = [
        p.get("message", "") for p in data["problems"] if isinstance(p, dict) and p.get("blocking")
    ]
    if blocking:
        return (
            "No moves yet: "
            + blocking[0]
            + (f" (and {len(blocking) - 1} more)" if len(blocking) > 1 else "")
            + ". Tap a tile to fix it, or take the photo again."
        )
    return "No moves: the game on the photo is over or could not be rebuilt."


def _json_default(o: Any) -> Any:
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


def pips_in_view(tiles: list[dict], corrections: dict[str, list[int]]) -> int:
    """Sum of the pips of every face-up tile read in the photo (points).

    The score suggestion for a hand of draw to 100: photograph the tiles left in the losers'
    hands at the end of the hand (RULES.md section 4: the winner scores those pips).
    """
    total = 0
    for t in apply_corrections(tiles, corrections):
        if t.get("pips") and not t.get("face_down") and not t.get("not_tile"):
            total += int(t["pips"][0]) + int(t["pips"][1])
    return total
