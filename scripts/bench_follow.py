"""Follow whole rendered games and score the follower (docs/follow.md).

Each game is played by the engine (``vision.render.games.play_game``), turned into a camera
stream (``vision.render.games.frames``) and fed, frame by frame with the players' taps, to
``companion.follow.Follower``, the code behind ``domino-companion follow``. With ``--render``
the frames are photos and go through ``vision.pipeline.detect`` first, as in ``follow``; without
it they are the renderer's labels with a hand over the table, shaken frames, missed and misread
tiles modelled (fast).

Per game kind it reports: games whose final score the follower got exactly right (Tableaux and
the draw game: every seat's total; solitaires: won or lost and the tiles removed or doubles
home), plays missed and invented per game (a play the follower withdrew later, `play_withdrawn`,
is not counted), the delay from a play's first steady frame to its event (frames, the
first steady frame counting 1; 0 or less when the change was read through the frames with a
hand over the table), flags and questions per game, frames per second, and, for the draw game,
the games whose score is wrong without a question on a wrong hand ("wrong unasked": the players
were not told to check it).

Usage::

    python scripts/bench_follow.py --games 50                    # labels, 50 games per kind
    python scripts/bench_follow.py --games 2 --render --kinds luzon   # photos through detect
    python scripts/bench_follow.py --real           # sequences rebuilt from real photos
    python scripts/bench_follow.py --real --size 4032 3024   # the same, sent as 12 MP JPEGs
"""

from __future__ import annotations

import argparse
import gzip
import json
import pickle
import random
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.follow import Follower  # noqa: E402
from engine.catalog import GAMES  # noqa: E402
from vision.render.games import (  # noqa: E402
    FRAME_SIZE,
    GAME_KINDS,
    KEEP_IN_FRAME,
    Unlayable,
    frames,
    play_game,
    play_key,
)
from vision.types import at_picture_edge  # noqa: E402

#: The solitaires among the kinds, benchmarked together as "solitaires".
SOLITAIRES = [g for g in GAME_KINDS if GAMES[g].solitaire]


def follow_game(
    script,
    rng: np.random.Generator,
    render: bool,
    steady_frames: int,
    model=None,
    save: Path | None = None,
    stream: list[tuple] | None = None,
    keep_in_frame: float | None = KEEP_IN_FRAME,
) -> dict:
    """Feed one script's stream to a Follower; return the game's measures.

    ``save`` (with ``render``): write the stream as read by the detector to this file (gzipped
    pickle of ``{"script", "stream"}``), so :func:`replay` follows the game again without
    drawing or detecting. ``stream``: such a saved stream, fed instead of drawing frames.
    ``keep_in_frame``: the camera's margin (``vision.render.games.frames``; None: tiles may be
    cut by the picture's border).
    """
    detect = None
    kept: list[tuple] = []
    if render and stream is None:
        from vision.layout import detect_options
        from vision.pipeline import detect as _detect

        opts = detect_options(script.game)
        detect = lambda img: _detect(img, model=model, **opts)  # noqa: E731
    f = Follower(script.game, steady_frames=steady_frames, **script.params)
    truth: list[tuple[str, int, int]] = []  # (key, first steady frame, first frame on the table)
    start: dict[str, int] = {}
    got: list[tuple[str, int]] = []
    hand_recs: list[dict] = []
    n_frames, busy = 0, 0.0
    items = (
        (it + (0.0,) for it in stream)
        if stream is not None
        else _items(script, rng, render, detect, keep_in_frame)
    )
    for kind, index, tap, player, dets, plays, shown, secs in items:
        busy += secs
        if save is not None:
            kept.append((kind, index, tap, player, dets, plays, shown))
        if kind == "tap":
            f.tap(tap, player)
            continue
        start.update({k: index for k in shown})
        truth += [(k, index, start.get(k, index)) for k in plays]
        t0 = time.perf_counter()
        recs = f.feed(dets)
        busy += time.perf_counter() - t0
        n_frames += 1
        hand_recs += recs
        for r in recs:
            key = play_key(script.game, r) if r["type"] in ("play", "play_withdrawn") else None
            if key is None:
                continue
            if r["type"] == "play":
                got.append((key, r["frame"]))
            else:  # a play the follower took back (a misread): no longer claimed
                k = max((i for i, (g, _) in enumerate(got) if g == key), default=None)
                if k is not None:
                    del got[k]
    used = [False] * len(got)
    delays, missed = [], 0
    for j, (key, at, on_table) in enumerate(truth):
        # the event of this play: the first unused one for the same key from the frame the play
        # is on the table (maybe under a hand) to that key's next play (the draw game plays every
        # tile again each hand)
        until = next((a for kk, _, a in truth[j + 1 :] if kk == key), float("inf"))
        k = next(
            (
                i
                for i, (g, fa) in enumerate(got)
                if not used[i] and g == key and on_table <= fa < until
            ),
            None,
        )
        if k is None:
            missed += 1
            continue
        used[k] = True
        delays.append(got[k][1] - at + 1)
    if save is not None:
        with gzip.open(save, "wb") as fh:
            pickle.dump({"script": script, "stream": kept}, fh)
    s = f.summary()
    if GAMES[script.game].scored:
        right = s["scores"] == script.final["scores"]
    else:
        # won or lost and the game's progress (tiles removed, or doubles home on the clock)
        right = all(s.get(k) == v for k, v in script.final.items())
    return {
        "game": script.game,
        "params": script.params,
        "plays": len(truth),
        "missed": missed,
        "invented": used.count(False),
        "delays": delays,
        "right": bool(right),
        "unasked": None if right else _unasked(script.final, hand_recs),
        "flags": s["flags"],
        "questions": s["questions"],
        "final": script.final,
        "followed": {k: s.get(k) for k in ("scores", "won", "removed", "home")},
        "frames": n_frames,
        "seconds": busy,
    }


def _unasked(final: dict, recs: list[dict]) -> bool | None:
    """For a game whose final score is wrong: whether the players were left unwarned, that is
    some hand the follower scored otherwise than the truth (``final["hands"]``: ``[kind, winner,
    points]`` per hand, the draw game) got no ``question`` between its ``hand_end`` and the next
    play, or the hands agree and the totals still differ. None for games without hands."""
    if "hands" not in final:
        return None
    scored: dict[int, tuple] = {}
    asked: set[int] = set()
    hand, reveal = 0, False
    for r in recs:
        if r["type"] == "hand_end":
            hand, reveal = int(r["hand"]), True
        elif r["type"] == "play":
            reveal = False
        elif r["type"] == "question" and reveal:
            asked.add(hand)
        elif r["type"] == "hand_scored":
            scored[hand] = (r["winner"], r["points"])
    wrong = [
        n
        for n, (_, winner, points) in enumerate(final["hands"], 1)
        if scored.get(n, (None, 0)) != (winner, points)
    ]
    return not wrong or any(n not in asked for n in wrong)


def _items(script, rng: np.random.Generator, render: bool, detect, keep_in_frame: float | None):
    """The camera stream of ``script`` as ``(kind, index, tap, player, detections, plays,
    shown, seconds)`` tuples: the detector's reading of each photo with ``render`` (seconds:
    the time it took), else the labels."""
    for fr in frames(script, rng, render=render, keep_in_frame=keep_in_frame):
        if fr.kind == "tap":
            yield ("tap", fr.index, fr.tap, fr.player, None, fr.plays, fr.shown, 0.0)
            continue
        t0 = time.perf_counter()
        dets = detect(fr.image) if render else fr.labels
        yield ("frame", fr.index, None, None, dets, fr.plays, fr.shown, time.perf_counter() - t0)


def _edges(d):
    """``d`` (a saved ``TileDetection``) with ``at_edge`` set for a :data:`FRAME_SIZE` photo."""
    return replace(d, at_edge=at_picture_edge(d.corners, *FRAME_SIZE))


def replay(paths: list[str], steady_frames: int) -> dict[str, list[dict]]:
    """Follow again the games saved with ``--save-detections`` (the follower alone, on the
    detector's readings of the same photos); results grouped per kind as :func:`report` takes
    them."""
    results: dict[str, list[dict]] = {}
    for path in sorted(paths):
        with gzip.open(path, "rb") as fh:
            saved = pickle.load(fh)
        script = saved["script"]
        # the photos were drawn at FRAME_SIZE: boxes reaching their border (``at_edge``, which
        # streams saved before that field existed do not hold)
        stream = [
            it[:4] + ([_edges(d) for d in it[4]] if it[4] is not None else None,) + it[5:]
            for it in saved["stream"]
        ]
        r = follow_game(script, np.random.default_rng(0), False, steady_frames, stream=stream)
        r["saved"] = Path(path).name
        group = "solitaires" if script.game in SOLITAIRES else script.game
        results.setdefault(group, []).append(r)
        print(
            f"{Path(path).name}: plays {r['plays']} missed {r['missed']} invented "
            f"{r['invented']} right {r['right']} flags {r['flags']} questions {r['questions']}"
            + (" (wrong, not asked)" if r["unasked"] else ""),
            flush=True,
        )
    return results


def score_real(seq, events: list[dict], summary: dict) -> dict:
    """One real sequence's measures: plays right (tile and seat, in order), plays with the
    wrong seat, plays invented, flags right (a tile the sequence puts down illegally) and false,
    and whether every seat's final score is right (None when the hand does not end)."""
    got = [(e["tile"], e["player"]) for e in events if e["type"] == "play" and e.get("tile")]
    truth = list(seq.plays)
    right = sum(1 for x in got if x in truth)
    tiles = {t for t, _ in truth}
    wrong_seat = sum(1 for t, p in got if t in tiles and (t, p) not in truth)
    flags = [e["tile"] for e in events if e["type"] == "flag"]
    return {
        "sequence": seq.name,
        "plays": len(truth),
        "right": right,
        "wrong_seat": wrong_seat,
        "invented": sum(1 for t, _ in got if t not in tiles),
        "missed": len(truth) - right - wrong_seat,
        "flags_right": sum(1 for t in flags if t in seq.flags),
        "flags_false": sum(1 for t in flags if t not in seq.flags),
        "flags_wanted": len(seq.flags),
        "score": None if seq.scores is None else summary["scores"] == seq.scores,
        "scores": summary["scores"],
        "want_scores": seq.scores,
        "questions": summary["questions"],
    }


def bench_real(
    seed: int,
    model=None,
    photos: bool = False,
    layout=None,
    size: tuple[int, int] | None = None,
) -> list[dict]:
    """Follow the draw-game sequences rebuilt from real photos (``vision.render.real_sequences``)
    through ``vision.pipeline.detect``: as camera frames (3-6 per state, hands, a shaken frame
    now and then, turns, glare, JPEG), or with ``photos`` one photo per state taken as a stable
    view (photo mode).

    ``size`` ``(W, H)`` px: each picture (the same pictures as without it) is first sent as a
    phone or camera sends it at that size (``vision.render.real_sequences.as_sent``: quality 92
    for photos, 85 for frames) and decoded by ``vision.pipeline.load_image``, the
    way ``follow`` and the page read what a player sends; the row then gives the mean encoded
    size (``mb``, MB)."""
    from vision.layout import detect_options
    from vision.pipeline import detect, load_image
    from vision.render.real_layouts import VINTAGE
    from vision.render.real_sequences import as_sent, camera_frames, sequences

    rng = np.random.default_rng(seed)
    noise = np.random.default_rng(seed + 1)  # apart from rng: the same frames with --size
    out = []
    for seq in sequences(layout or VINTAGE, seed):
        f = Follower("draw100", players=seq.players, first_player=seq.to_move)
        t0, n, nbytes = time.perf_counter(), 0, 0
        for k, state in enumerate(seq.states):
            at = seq.change_at[k] if k < len(seq.change_at) else None
            shots = (
                camera_frames(state, rng, 1, None, p_hand=0.0)
                if photos
                else camera_frames(state, rng, int(rng.integers(3, 7)), at, p_shaken=0.15)
            )
            for img in shots:
                if size is not None:
                    data = as_sent(img, size, 92 if photos else 85, noise)
                    nbytes += len(data)
                    img = load_image(data)
                f.feed(detect(img, model=model, **detect_options("draw100")), still=photos)
                n += 1
        r = score_real(seq, f.events, f.summary())
        r["frames"], r["seconds"] = n, time.perf_counter() - t0
        r["mode"] = "photos" if photos else "frames"
        if size is not None:
            r["size"], r["mb"] = f"{size[0]}x{size[1]}", nbytes / max(n, 1) / 1e6
        out.append(r)
        print(json.dumps(r), flush=True)
    return out


def report_real(rows: list[dict]) -> None:
    """Print the per-sequence table of :func:`bench_real` results."""
    print()
    print(
        "| sequence | mode | plays right | wrong seat | invented | flags (right/false/wanted) | score |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        score = "-" if r["score"] is None else ("right" if r["score"] else f"wrong {r['scores']}")
        mode = r["mode"] + (f", {r['size']} {r['mb']:.1f} MB" if "size" in r else "")
        print(
            f"| {r['sequence']} | {mode} | {r['right']}/{r['plays']} | {r['wrong_seat']} | "
            f"{r['invented']} | {r['flags_right']}/{r['flags_false']}/{r['flags_wanted']} | "
            f"{score} |"
        )


def report(results: dict[str, list[dict]]) -> None:
    """Print the per-kind table of :func:`follow_game` results."""
    print()
    print(
        f"{'kind':<12} {'games':>5} {'score right':>12} {'plays':>6} {'missed/game':>11} "
        f"{'invented/game':>13} {'median delay':>12} {'p90 delay':>9} {'flags/game':>10} "
        f"{'questions/game':>14} {'frames/s':>8} {'wrong unasked':>13}"
    )
    for group, rs_ in results.items():
        n = len(rs_)
        right = sum(r["right"] for r in rs_)
        delays = [d for r in rs_ for d in r["delays"]]
        fps = sum(r["frames"] for r in rs_) / max(sum(r["seconds"] for r in rs_), 1e-9)
        print(
            f"{group:<12} {n:>5} {right:>5} ({right / n:6.1%}) {sum(r['plays'] for r in rs_):>6} "
            f"{sum(r['missed'] for r in rs_) / n:>11.3f} {sum(r['invented'] for r in rs_) / n:>13.3f} "
            f"{(np.median(delays) if delays else float('nan')):>12.1f} "
            f"{(np.percentile(delays, 90) if delays else float('nan')):>9.1f} "
            f"{sum(r['flags'] for r in rs_) / n:>10.3f} {sum(r['questions'] for r in rs_) / n:>14.3f} "
            f"{fps:>8.1f} {_count_unasked(rs_):>13}"
        )


def _count_unasked(rs_: list[dict]) -> str:
    """Games of ``rs_`` whose wrong score came with no question on a wrong hand (``-`` for
    kinds without hands)."""
    flags = [r.get("unasked") for r in rs_ if not r["right"]]
    if any(u is None for u in flags) or "hands" not in (rs_[0].get("final") or {}):
        return "-"
    return str(sum(bool(u) for u in flags))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--games",
        type=int,
        default=50,
        help="games per kind (solitaires: split between the solitaires)",
    )
    ap.add_argument(
        "--kinds",
        default=",".join([g for g in GAME_KINDS if g not in SOLITAIRES] + ["solitaires"]),
        help=f"comma list of {', '.join(GAME_KINDS)}, solitaires",
    )
    ap.add_argument("--render", action="store_true", help="photos through the detector (slow)")
    ap.add_argument("--steady-frames", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--model", default=None)
    ap.add_argument("--out", default=None, help="write one JSON line per game here")
    ap.add_argument(
        "--first",
        type=int,
        default=0,
        help="start at this game of each kind (the games before it are dealt, not followed)",
    )
    ap.add_argument(
        "--save-detections",
        default=None,
        metavar="DIR",
        help="with --render: save each game's stream as the detector read it to "
        "DIR/<game>-s<seed>-<n>.pkl.gz (for --replay)",
    )
    ap.add_argument(
        "--replay",
        nargs="+",
        metavar="PKL",
        help="follow again games saved with --save-detections (the follower alone, on the "
        "same readings of the same photos)",
    )
    ap.add_argument(
        "--summarize",
        nargs="+",
        metavar="JSONL",
        help="only print the table of "
        "games saved with --out (solitaire games count as 'solitaires')",
    )
    ap.add_argument(
        "--doubles-in-line",
        action="store_true",
        help="draw game: lay the doubles lengthwise in the line (a house habit) instead of "
        "crosswise (RULES.md section 4)",
    )
    ap.add_argument(
        "--loose-camera",
        action="store_true",
        help="rendered games: the camera's perspective may cut tiles at the layout's edge "
        "(shown hands included) instead of keeping every tile of a position inside the picture",
    )
    ap.add_argument(
        "--real",
        action="store_true",
        help="the draw-game sequences rebuilt from real photos, through the detector, as "
        "camera frames and as one photo per state",
    )
    ap.add_argument(
        "--real-layout",
        default=None,
        metavar="JSON",
        help="with --real: another real layout photo, {photo, boxes: [[x0, y0, x1, y1, [a, b]], "
        "...]} (default: sample_images/vintage-games-game-night.jpg)",
    )
    ap.add_argument(
        "--size",
        type=int,
        nargs=2,
        default=None,
        metavar=("W", "H"),
        help="with --real: enlarge each picture to W x H px and send it as a JPEG file, the "
        "size a player sends (e.g. 4032 3024 for a 12 MP phone photo, 1440 1080 for a live frame)",
    )
    args = ap.parse_args(argv)
    if args.size is not None:
        from vision.pipeline import MAX_PIXELS

        if not args.real or min(args.size) < 64 or args.size[0] * args.size[1] > MAX_PIXELS:
            ap.error(
                f"--size needs --real and W x H of 64 px a side or more, "
                f"{MAX_PIXELS / 1e6:.0f} megapixels at most"
            )
    if args.real:
        from vision.render.real_layouts import load
        from vision.render.real_sequences import check

        try:  # a layout that is no line of play is said in words, not as a trace
            layout = load(args.real_layout) if args.real_layout else None
            if layout is not None:
                check(layout)
        except (ValueError, OSError) as e:
            ap.error(f"--real-layout {args.real_layout}: {e}")
        rows = bench_real(args.seed, args.model, layout=layout, size=args.size) + bench_real(
            args.seed, args.model, photos=True, layout=layout, size=args.size
        )
        report_real(rows)
        print(f"\nreal sequences, seed {args.seed}")
        return 0
    if args.replay:
        report(replay(args.replay, args.steady_frames))
        return 0
    if args.save_detections and not args.render:
        ap.error("--save-detections needs --render")
    if args.summarize:
        saved: dict[str, list[dict]] = {}
        for path in args.summarize:
            for line in Path(path).read_text().splitlines():
                r = json.loads(line)
                group = "solitaires" if r["game"] in SOLITAIRES else r["game"]
                saved.setdefault(group, []).append(r)
        report(saved)
        return 0
    kinds = []
    for k in args.kinds.split(","):
        k = k.strip()
        if k == "solitaires":
            kinds += [("solitaires", g) for g in SOLITAIRES]
        elif k in GAME_KINDS:
            kinds.append((k, k))
        else:
            ap.error(f"unknown kind {k!r}")
    out = open(args.out, "a") if args.out else None
    results: dict[str, list[dict]] = {}
    unlayable: dict[str, int] = {}
    for group, game in kinds:
        n = (
            args.games
            if group == game
            else (args.games + 1) // 2
            if game == SOLITAIRES[0]
            else args.games // 2
        )
        g = tries = 0
        n += args.first
        while g < n:
            rs = random.Random(f"{args.seed}-{game}-{tries}")
            tries += 1
            try:
                script = play_game(game, rs, doubles_in_line=args.doubles_in_line)
            except Unlayable as e:  # counted and reported; another deal is played
                unlayable[game] = unlayable.get(game, 0) + 1
                print(f"{game}: skipped a deal: {e}", flush=True)
                continue
            g += 1
            if g <= args.first:
                continue
            save = None
            if args.save_detections:
                Path(args.save_detections).mkdir(parents=True, exist_ok=True)
                save = Path(args.save_detections) / f"{game}-s{args.seed}-{g - 1}.pkl.gz"
            r = follow_game(
                script,
                np.random.default_rng(rs.randrange(2**32)),
                args.render,
                args.steady_frames,
                args.model,
                save=save,
                keep_in_frame=None if args.loose_camera else KEEP_IN_FRAME,
            )
            r["seed"], r["index"] = args.seed, g - 1
            results.setdefault(group, []).append(r)
            if out:
                out.write(json.dumps(r) + "\n")
                out.flush()
            print(
                f"{game} {g - 1}: plays {r['plays']} missed {r['missed']} invented {r['invented']} "
                f"right {r['right']} flags {r['flags']} questions {r['questions']} "
                f"frames {r['frames']} ({r['frames'] / max(r['seconds'], 1e-9):.1f}/s)",
                flush=True,
            )
    report(results)
    if unlayable:
        print(f"deals skipped because the line could not be laid flat: {unlayable}")
    print(
        f"\nmode: {'photos through vision.pipeline.detect' if args.render else 'renderer labels'}, "
        f"steady frames {args.steady_frames}, seed {args.seed}"
        + (", loose camera" if args.render and args.loose_camera else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
