"""``domino-companion follow FRAME... | VIDEO --game NAME``: follow a game through a sequence of
photos or a video file.

Every frame goes through ``vision.pipeline.detect`` and a :class:`companion.follow.Follower`
(tracking, plays checked by the rules, automatic scores). Photos given as separate files are
each a stable view (a player snaps one photo after each play); a video's frames, or photos given
with ``--frames``, count once a reading holds for ``--steady-frames`` frames. Prints the stable states, the plays,
the flags (illegal plays), the questions and the score events (``--json``: one JSON object with
``events`` and ``summary``). What the camera cannot see is given with ``--tap FRAME:KIND[:SEAT]``
(after frame FRAME, 0-based: ``pass``, ``done`` or ``player:SEAT``).

Exit status: 0 done, 1 bad file or argument.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from companion.follow import FOLLOW_GAMES

#: File endings read as a video (OpenCV ``VideoCapture``); anything else is a photo.
VIDEO_SUFFIXES = frozenset({".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v", ".mpg", ".mpeg"})
#: At most this many frames are read from one video (``--max-frames``).
MAX_FRAMES = 20000


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``follow``."""
    p.add_argument(
        "frames_in", nargs="+", metavar="FRAME", help="photos in order, or one video file"
    )
    p.add_argument("--game", required=True, choices=FOLLOW_GAMES, help="which game is on the table")
    p.add_argument("--players", type=int, default=2, help="draw100: seats at the table (2-4)")
    p.add_argument(
        "--first-player",
        "--to-move",
        dest="to_move",
        default=None,
        metavar="SEAT|NAME",
        help="who is to move at the first photo: a seat (0-based) or a name of --names "
        "(default: seat 0 for a game seen from its start; a game joined in progress asks, "
        "and its plays wait for the answer)",
    )
    p.add_argument(
        "--names",
        default=None,
        help="comma list of the players' names in seat order (for --to-move NAME)",
    )
    p.add_argument("--max-pip", type=int, default=None, choices=(6, 9, 12), help="the set")
    p.add_argument(
        "--steady-frames",
        type=int,
        default=3,
        help="frames a reading must hold to count (default 3)",
    )
    p.add_argument(
        "--frames",
        action="store_true",
        help="photos are consecutive frames of a camera: a reading counts once it holds for "
        "--steady-frames photos (default: each photo is one stable view, as when a player "
        "snaps one photo after each play)",
    )
    p.add_argument("--every", type=int, default=1, help="video: read every Nth frame (default 1)")
    p.add_argument(
        "--max-frames", type=int, default=MAX_FRAMES, help="video: stop after this many frames read"
    )
    p.add_argument(
        "--tap",
        action="append",
        default=[],
        metavar="FRAME:KIND[:SEAT]",
        help="a tap after frame FRAME: pass, done, or player:SEAT (repeatable)",
    )
    p.add_argument("--model", default=None, help="ONNX detector (default models/tiles-obb.onnx)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def seat_of(value: str | None, names: str | None, players: int) -> int | None:
    """``--to-move``: a seat number, or a name of ``--names``, as a 0-based seat (None: not
    given).

    Raises:
        ValueError: an unknown name, or a name without ``--names``.
    """
    if value is None:
        return None
    text = str(value).strip()
    if text.lstrip("-").isdigit():
        return int(text)
    seats = [n.strip() for n in (names or "").split(",") if n.strip()]
    low = [n.lower() for n in seats]
    if text.lower() not in low:
        given = ", ".join(seats) if seats else "none (give --names A,B,...)"
        raise ValueError(
            f"--to-move {text!r} is no seat number and no player's name; names: {given}"
        )
    return low.index(text.lower())


def parse_taps(texts: list[str]) -> dict[int, list[tuple[str, int | None]]]:
    """``["3:pass", "7:player:1"]`` -> ``{3: [("pass", None)], 7: [("player", 1)]}``.

    Raises:
        ValueError: a malformed tap.
    """
    out: dict[int, list[tuple[str, int | None]]] = {}
    for text in texts:
        parts = str(text).split(":")
        try:
            frame = int(parts[0])
            kind = parts[1]
            seat = int(parts[2]) if len(parts) > 2 else None
        except (ValueError, IndexError):
            raise ValueError(
                f"bad --tap {text!r}; expected FRAME:KIND[:SEAT], e.g. 4:pass or 0:player:1"
            ) from None
        if (
            kind not in ("pass", "done", "player")
            or (kind == "player") != (seat is not None)
            or frame < 0
        ):
            raise ValueError(f"bad --tap {text!r}; KIND is pass, done or player:SEAT")
        out.setdefault(frame, []).append((kind, seat))
    return out


def read_frames(paths: list[str], every: int = 1, max_frames: int = MAX_FRAMES):
    """Yield ``(H, W, 3) uint8`` BGR frames from photos or from one video file.

    Raises:
        ValueError: a video among several files, a video OpenCV cannot open, bad ``every``.
        FileNotFoundError: a missing file.
    """
    import cv2

    from vision.pipeline import MAX_PIXELS, load_image

    if every < 1 or max_frames < 1:
        raise ValueError("--every and --max-frames must be at least 1")
    videos = [p for p in paths if Path(p).suffix.lower() in VIDEO_SUFFIXES]
    if not videos:
        for p in paths:
            yield load_image(p)
        return
    if len(paths) > 1:
        raise ValueError("give one video file, or photos only")
    path = Path(paths[0])
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise ValueError(f"{path}: cannot open the video")
    w, h = cap.get(cv2.CAP_PROP_FRAME_WIDTH), cap.get(cv2.CAP_PROP_FRAME_HEIGHT)
    if w * h > MAX_PIXELS:
        cap.release()
        raise ValueError(
            f"{path}: {int(w)}x{int(h)} frames are over {MAX_PIXELS / 1e6:.0f} megapixels"
        )
    try:
        k = read = 0
        while read < max_frames:
            ok, frame = cap.read()
            if not ok:
                break
            if k % every == 0:
                read += 1
                yield frame
            k += 1
    finally:
        cap.release()
    if read == 0:
        raise ValueError(f"{path}: no frame could be read")


def _line(e: dict) -> str:
    t = e["type"]
    where = f"frame {e['frame']:>4}: "
    if t == "stable":
        return where + f"steady view, {e['tiles']} tiles"
    if t == "play":
        pts = f" ({e['points']:+d} points)" if e.get("points") else ""
        return where + f"player {e['player']}: {e['action']}{pts}"
    if t == "score":
        return (
            where + f"SCORE player {e['player']} {e['points']:+d} ({e['reason']}, from the camera)"
        )
    if t == "flag":
        return where + f"ILLEGAL: {e['message']}"
    if t == "question":
        return where + f"QUESTION: {e['message']}"
    if t == "result":
        return (
            where
            + "GAME OVER: "
            + json.dumps({k: v for k, v in e.items() if k not in ("type", "frame")})
        )
    return where + t + " " + json.dumps({k: v for k, v in e.items() if k not in ("type", "frame")})


def run(args: argparse.Namespace) -> int:
    """Follow the frames; print the records. Raises ValueError / OSError for bad input."""
    from companion.follow import Follower
    from vision.layout import detect_options
    from vision.pipeline import detect

    taps = parse_taps(args.tap)
    follower = Follower(
        args.game,
        players=args.players,
        max_pip=args.max_pip,
        first_player=seat_of(args.to_move, args.names, args.players),
        steady_frames=args.steady_frames,
    )
    # photos given as separate files are each a stable view; a video's frames (or photos given
    # with --frames) vote over --steady-frames frames
    still = not args.frames and not any(
        Path(p).suffix.lower() in VIDEO_SUFFIXES for p in args.frames_in
    )
    t0 = time.perf_counter()
    n = 0
    for k, img in enumerate(read_frames(args.frames_in, args.every, args.max_frames)):
        follower.feed(detect(img, model=args.model, **detect_options(args.game)), still=still)
        for kind, seat in taps.get(k, []):
            follower.tap(kind, seat)
        n += 1
    elapsed = time.perf_counter() - t0
    summary = follower.summary()
    summary["frames_per_second"] = round(n / elapsed, 2) if elapsed > 0 else None
    if args.json:
        print(json.dumps({"events": follower.events, "summary": summary}, indent=1))
    else:
        for e in follower.events:
            print(_line(e))
        print("summary: " + json.dumps(summary))
    return 0
