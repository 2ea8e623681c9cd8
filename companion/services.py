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

# --- the five games -----------------------------------------------------------------------

@dataclass(frozen=True)
class GameInfo:
    """What the table form needs to know about a game (rules: /work/shared/RULES.md)."""

    name: str                 # engine registry name (engine.GAMES)
    label: str                # for people
    scored: bool              # True: draw to 100 and Tableaux keep a score sheet
    min_players: int
    max_players: int
    sets: tuple[int, ...]     # allowed max_pip values (double-N sets)
    default_target: int | None
    variants: tuple[str, ...] = ()
    hint_module: str = ""     # module with hint(state) -> engine.game.Hint


GAMES: dict[str, GameInfo] = {
    "draw100": GameInfo("draw100", "Double-six draw to 100", True, 2, 4, (6,), 100,
                        hint_module="engine.draw100"),
    "tableaux": GameInfo("tableaux", "Tableaux", True, 2, 2, (6, 9), 121,
                         hint_module="engine.tableaux"),
    "good-neighbors": GameInfo("good-neighbors", "Good Neighbors (solitaire)", False, 1, 1,
                               (12, 9, 6), None, hint_module="engine.good_neighbors"),
    "big-clock": GameInfo("big-clock", "The Big Clock (solitaire)", False, 1, 1, (12, 9, 6), None,
                          hint_module="engine.big_clock"),
    "luzon": GameInfo("luzon", "Luzon (solitaire)", False, 1, 1, (6,), None, ("", "sixes"),
                      hint_module="engine.luzon"),
}

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
            raise ValueError(f"{info.label} is played with a double-"
                             f"{'/'.join(map(str, info.sets))} set, not double-{max_pip}")
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
    for part, mod, attr in [("detector", "vision.pipeline", "detect"),
                            ("layout", "vision.layout", "read")]:
        try:
            getattr(_module(mod), attr)
            out[part] = {"ok": True, "message": ""}
        except (Unavailable, AttributeError) as exc:
            out[part] = {"ok": False, "message": str(exc)}
    for name, info in GAMES.items():
        try:
            getattr(_module(info.hint_module), "hint")
            out[f"engine:{name}"] = {"ok": True, "message": ""}
        except (Unavailable, AttributeError) as exc:
            out[f"engine:{name}"] = {"ok": False, "message": str(exc)}
    return out


# --- images ------------------------------------------------------------------------------

class ImageError(ValueError):
    """The upload is not a usable photo (not an image, corrupt, truncated, too large)."""


MAX_PIXELS = 40_000_000  # refuse decoded images above 40 megapixels (decompression bombs)


def load_image(data: bytes) -> np.ndarray:
    """Decode uploaded bytes to a ``(H, W, 3) uint8`` BGR image.

    Uses ``vision.pipeline.load_image`` when it exists (it may fix EXIF orientation), else
    OpenCV. A JPEG without its end-of-image marker counts as corrupt (cut off in transfer).

    Raises:
        ImageError: empty data, not an image, a corrupt or truncated JPEG, too many pixels.
    """
    if not data:
        raise ImageError("the upload is empty; choose a photo")
    is_jpeg = data[:3] == b"\xff\xd8\xff"
    is_png = data[:8] == b"\x89PNG\r\n\x1a\n"
    if not (is_jpeg or is_png or data[:4] in (b"RIFF", b"GIF8") or data[:2] == b"BM"):
        raise ImageError("the upload is not an image (JPEG or PNG expected)")
    if is_jpeg and data.rfind(b"\xff\xd9") < 4:
        raise ImageError("the JPEG is corrupt or cut off (no end-of-image marker); take the photo again")
    image = None
    try:
        loader = getattr(_module("vision.pipeline"), "load_image")
    except (Unavailable, AttributeError):
        loader = None
    try:
        if loader is not None:
            image = loader(data)
        else:
            import cv2
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except ImageError:
        raise
    except Exception as exc:  # noqa: BLE001 - any decoder failure is a bad upload
        what = "the JPEG is corrupt and" if is_jpeg else "the image"
        raise ImageError(f"{what} could not be decoded ({exc}); take the photo again") from None
    if image is None or getattr(image, "size", 0) == 0:
        raise ImageError("the image is corrupt and could not be decoded; take the photo again")
    if image.ndim == 2:
        image = np.repeat(image[:, :, None], 3, axis=2)
    if image.shape[0] * image.shape[1] > MAX_PIXELS:
        raise ImageError(f"the image has {image.shape[1]}x{image.shape[0]} pixels; "
                         f"at most {MAX_PIXELS // 1_000_000} megapixels are accepted")
    return image


def encode_jpeg(image: np.ndarray, quality: int = 88) -> bytes:
    """``(H, W, 3)`` BGR image -> JPEG bytes (to store what the phone sent, re-encoded)."""
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


def detect(image: np.ndarray, game: str | None = None) -> list[dict]:
    """Find tiles and count pips: ``vision.pipeline.detect`` -> list of ``TileDetection.to_json()``.

    Runs one photo at a time (the detector uses all CPU cores; queueing keeps latency even).
    ``game``: the table's game; detected with ``vision.layout.detect_options(game)`` (for the
    games laid out face up boxes the detector calls face down are read too, ``read_backs``; for
    tight layouts boxes lying on other boxes are kept for the layout reader, ``keep_covered``).

    Raises:
        Unavailable: the vision pipeline is not there or failed on this photo.
    """
    fn = getattr(_module("vision.pipeline"), "detect", None)
    if fn is None:
        raise Unavailable("vision.pipeline has no detect() yet")
    try:
        options = getattr(_module("vision.layout"), "detect_options", lambda g: {})(game)
        with _detect_lock:
            dets = fn(image, **options)
    except Exception as exc:  # noqa: BLE001 - keep the page alive, report the failure
        raise Unavailable(f"the tile detector failed on this photo: {type(exc).__name__}: {exc}") from None
    return [d.to_json() for d in dets]


def _to_detections(tiles: list[dict], corrections: dict[str, list[int]]) -> list:
    """JSON tiles (+ hand corrections ``{index: [a, b]}``) -> ``list[vision.types.TileDetection]``."""
    from vision.types import TileDetection
    out = []
    for i, t in enumerate(tiles):
        pips = t.get("pips")
        face_down = bool(t.get("face_down"))
        pip_conf = t.get("pip_confidence")
        note = t.get("note", "")
        alt = t.get("alt_pips")
        fix = corrections.get(str(i))
        if fix is not None:
            pips, face_down, pip_conf, note, alt = (tuple(fix), False, 1.0, "corrected by hand", None)
        out.append(TileDetection(np.asarray(t["corners"], np.float32), float(t.get("confidence", 1.0)),
                                 face_down, tuple(pips) if pips is not None else None, pip_conf, note,
                                 tuple(int(x) for x in alt) if alt is not None else None))
    return out


def apply_corrections(tiles: list[dict], corrections: dict[str, list[int]]) -> list[dict]:
    """The tiles as the page shows them: corrected values replace the detector's, marked."""
    out = []
    for i, t in enumerate(tiles):
        t = dict(t)
        fix = corrections.get(str(i))
        if fix is not None:
            t.update(pips=list(fix), face_down=False, pip_confidence=1.0, corrected=True,
                     note="corrected by hand")
        out.append(t)
    return out


def parse_hand(hand: Any, max_pip: int) -> list[str]:
    """The player's hand as canonical tile texts, from ``"3-5 6-6"`` or ``["3-5", [6, 6]]``.

    Raises:
        ValueError: a tile that does not parse, lies outside the double-``max_pip`` set, or
            appears twice.
    """
    from engine.tiles import Tile
    if hand is None:
        return []
    items = hand.replace(",", " ").split() if isinstance(hand, str) else list(hand)
    out: list[str] = []
    for item in items:
        try:
            t = Tile(*item) if isinstance(item, (list, tuple)) else Tile.parse(str(item))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"bad hand tile {item!r}: write tiles like 3-5") from exc
        if t.high > max_pip:
            raise ValueError(f"{t} is not in a double-{max_pip} set")
        if str(t) in out:
            raise ValueError(f"{t} is twice in the hand")
        out.append(str(t))
    if len(out) > 30:
        raise ValueError("a hand has at most 30 tiles")
    return out


def read_table(tiles: list[dict], corrections: dict[str, list[int]], game: str,
               params: dict[str, Any], hand: list[str] | None = None) -> dict[str, Any]:
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
        dets = _to_detections(tiles, corrections)
        kwargs = dict(params)
        if hand and game in ("draw100", "tableaux", "big-clock"):  # big-clock: the drawn tile
            kwargs["hand"] = list(hand)
        result = read(dets, game, **kwargs)
        data = result.to_json() if hasattr(result, "to_json") else dict(result)
        data = json.loads(json.dumps(data, default=_json_default))
        data.setdefault("problems", [])
        data.setdefault("legal_moves", [])
        data.setdefault("hint", None)
        data["ok"] = bool(data.get("ok", True))
        data["message"] = "" if data["ok"] else _why_not(data, game, hand)
    except Unavailable as exc:
        data = {"ok": False, "message": f"Moves and hints are not available yet ({exc}).",
                "state": None, "problems": [], "legal_moves": [], "hint": None}
    except ValueError as exc:
        data = {"ok": False, "message": f"The photo could not be read as a {GAMES[game].label} table: {exc}",
                "state": None, "problems": [str(exc)], "legal_moves": [], "hint": None}
    except Exception as exc:  # noqa: BLE001 - a bug elsewhere must not take the page down
        data = {"ok": False, "message": f"Reading the table failed: {type(exc).__name__}: {exc}",
                "state": None, "problems": [], "legal_moves": [], "hint": None}
    data["elapsed_ms"] = round((time.perf_counter() - started) * 1000.0, 1)
    return data


def _why_not(data: dict, game: str, hand: list[str] | None) -> str:
    """One sentence for the page: why the photo gave no game state (from the reader's problems)."""
    kinds = {p.get("kind") for p in data["problems"] if isinstance(p, dict)}
    if "no_hand" in kinds or (game in ("draw100", "tableaux") and not hand):
        return "Type your hand in the 'Your hand' box to see your legal moves and the hint."
    blocking = [p.get("message", "") for p in data["problems"] if isinstance(p, dict) and p.get("blocking")]
    if blocking:
        return "No moves yet: " + blocking[0] + (f" (and {len(blocking) - 1} more)" if len(blocking) > 1 else "") \
            + ". Tap a tile to fix it, or take the photo again."
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
        if t.get("pips") and not t.get("face_down"):
            total += int(t["pips"][0]) + int(t["pips"][1])
    return total
