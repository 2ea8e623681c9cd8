"""From detected tiles to game state, for all five games (issue 6).

One entry point::

    from vision.layout import read
    result = read(detections, "draw100", hand=hand_detections)
    result.state        # engine State, or None when the photo leaves a blocking problem
    result.to_json()    # {game, layout, problems, legal_moves, hint, state_ok}

``detections`` are ``vision.types.TileDetection`` (from ``vision.pipeline.detect`` or the
renderer's labels). One module per game reads the layout (see docs/layout.md for the layout
conventions): :mod:`.good_neighbors`, :mod:`.big_clock`, :mod:`.luzon`, :mod:`.draw100`,
:mod:`.tableaux`; :mod:`.common` holds the shared geometry and the checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.game import Hint
from engine.tiles import Tile
from vision.types import TileDetection, boxes_on_better_boxes

from .big_clock import read_big_clock
from .common import MAX_OVERLAP, GameReading, Problem, assume_blank_double, check_set, to_seen
from .draw100 import read_draw100
from .good_neighbors import read_good_neighbors
from .luzon import read_luzon
from .tableaux import read_tableaux

#: Game names (as in ``engine.make_game``) -> (reader, default max_pip or None = inferred).
READERS = {
    "draw100": (read_draw100, 6),
    "tableaux": (read_tableaux, 6),
    "good-neighbors": (read_good_neighbors, None),
    "big-clock": (read_big_clock, None),
    "luzon": (read_luzon, 6),
}


@dataclass
class ReadResult:
    """What a photo says about a game.

    Attributes:
        game: the game name (a key of :data:`READERS`).
        state: the engine State rebuilt from the photo, or None when a blocking problem stands
            (or, for draw100/tableaux, when no hand was given).
        layout: JSON-ready description of the layout (per game, see docs/layout.md).
        problems: every problem found (:class:`Problem`: tile index, kind, message).
        legal_moves: ``[{"text": ..., "json": ...}, ...]`` of the state (empty without state).
        hint: the engine's :class:`engine.game.Hint`, or None.
        hand: the tiles of the player's hand as text (when a hand was given).
    """

    game: str
    state: Any
    layout: dict
    problems: list[Problem] = field(default_factory=list)
    legal_moves: list[dict] = field(default_factory=list)
    hint: Hint | None = None
    hand: list[str] | None = None

    @property
    def ok(self) -> bool:
        """True when a state was built and no blocking problem stands."""
        return self.state is not None and not any(p.blocking for p in self.problems)

    def to_json(self) -> dict:
        """JSON-ready dict: game, ok, terminal (the position is over: no moves; None without
        state), returns (the engine's returns when over, e.g. ``[1.0]`` a won solitaire),
        layout, hand, problems, legal_moves, hint, state_text."""
        hint = None
        if self.hint is not None:
            h = self.hint
            hint = {
                "action": None if h.action is None else self.state.action_to_string(h.action),
                "action_json": None if h.action is None else self.state.action_to_json(h.action),
                "value_unit": h.value_unit,
                "win_chance": h.win_chance,
                "explanation": h.explanation,
                "elapsed_ms": h.elapsed_ms,
                "ranking": [
                    {"action": self.state.action_to_string(a), "value": v}
                    for a, v in (h.ranking or [])[:10]
                ],
            }
        over = None if self.state is None else bool(self.state.is_terminal())
        return {
            "game": self.game,
            "ok": self.ok,
            "terminal": over,
            "returns": list(self.state.returns()) if over else None,
            "layout": self.layout,
            "hand": self.hand,
            "problems": [p.to_json() for p in self.problems],
            "legal_moves": self.legal_moves,
            "hint": hint,
            "state_text": None if self.state is None else str(self.state),
        }


#: Games whose table shows face-up tiles only (a stock aside may lie face down): a lone bare
#: face-down box may be their 0-0 (:func:`.common.assume_blank_double`).
FACE_UP_GAMES = frozenset({"good-neighbors", "luzon", "tableaux"})

#: Games whose table photos the callers of ``vision.pipeline.detect`` read with
#: ``read_backs=True`` (every box the detector calls face down is read, and turned face up when
#: it reads clearly): the face-up games and The Big Clock, whose ring is face up too (its stock
#: aside stays face down). On the rendered layouts (round-5 detector, 200 positions) this took
#: Big Clock from 96.5% to 98.0%; for the draw game, whose boneyard lies face down beside the
#: line, it cost 93.5% -> 93.0%, so the draw game is read without it.
READ_BACKS_GAMES = FACE_UP_GAMES | {"big-clock"}

#: Games whose table photos are detected with ``keep_covered=True`` (all five): boxes lying
#: mostly on other boxes are kept for :func:`read`, whose ``overlapping_box`` rule
#: (``common.to_seen``) drops the less confident of two face-up boxes sharing more than
#: ``common.MAX_OVERLAP`` of the smaller one. In tight layouts the detector's own coverage rule
#: (``vision.detector.suppress_covered``) could drop the true box of a tile and keep a box across
#: the halves of two touching tiles. On 2 x 1 000 rendered positions (round-6 detector) this took
#: Luzon 186 -> 187 and 178 -> 181 of 200, the draw game 187 -> 188 and 185 -> 186, Tableaux
#: 186 -> 189 and 189 -> 191, Good Neighbors and the Big Clock unchanged (docs/layout.md).
KEEP_COVERED_GAMES = frozenset(READERS)


def detect_options(game: str | None) -> dict:
    """Keyword arguments for ``vision.pipeline.detect`` on a table photo of ``game``:
    ``read_backs`` (:data:`READ_BACKS_GAMES`) and ``keep_covered`` (:data:`KEEP_COVERED_GAMES`);
    for None or an unknown game, neither. A hand photo is read with ``read_backs=True`` alone."""
    return {"read_backs": game in READ_BACKS_GAMES, "keep_covered": game in KEEP_COVERED_GAMES}


def _hint_fn(game: str):
    if game == "draw100":
        from engine.draw100 import hint
    elif game == "tableaux":
        from engine.tableaux.hint import hint
    elif game == "good-neighbors":
        from engine.good_neighbors import hint
    elif game == "big-clock":
        from engine.big_clock import hint
    else:
        from engine.luzon import hint
    return hint


def _read_hand(
    hand: Sequence, max_pip: int, problems: list[Problem], min_pip_confidence: float
) -> tuple[list[Tile], list]:
    """The hand as tiles, from detections (a hand photo) or from Tiles / "a-b" strings.

    Returns ``(tiles, seen)``: ``seen[k]`` is the detection record of ``tiles[k]`` (empty when
    the hand was given as tiles). Unreadable hand tiles are reported, not guessed."""
    if all(isinstance(h, TileDetection) for h in hand):
        seen = to_seen(hand, max_pip, problems, min_pip_confidence, source="hand")
        usable = [s for s in seen if s.tile is not None]
        return [s.tile for s in usable], usable
    tiles = []
    for h in hand:
        try:
            tiles.append(h if isinstance(h, Tile) else Tile.parse(str(h)))
        except ValueError as e:
            raise ValueError(f"bad hand tile {h!r}: {e}") from None
    return tiles, []


def _blank_in_hand(hand: Sequence | None) -> list[Tile]:
    """``[Tile(0, 0)]`` when the hand (detections, Tiles or "a-b" texts) shows the 0-0, else [].
    Any face-up reading of 0-0 counts, however doubtful: it only stops a guess
    (:func:`.common.assume_blank_double`)."""
    for h in hand or ():
        if isinstance(h, TileDetection):
            if not h.face_down and h.pips is not None and tuple(h.pips) == (0, 0):
                return [Tile(0, 0)]
        elif str(h).strip() in ("0-0", "00"):
            return [Tile(0, 0)]
    return []


#: Problems after which :func:`read` tries the second reading of each tile (``alt_pips``), per
#: game: the draw game's line breaks where one tile was misread, and the joins say which reading
#: fits; in Luzon a misread tile shows as a tile seen twice or as missing tiles that cannot have
#: been removed in pairs of 12 pips (``engine.luzon.removable_in_pairs``), and that check says
#: which reading fits; in Tableaux as a tile seen twice or a tableau that no order of legal plays
#: builds (``engine.tableaux.board.can_be_built``).
REREAD_WHEN = {
    "draw100": frozenset({"not_joined"}),
    "luzon": frozenset({"duplicate", "impossible"}),
    "tableaux": frozenset({"duplicate", "impossible"}),
}
#: A second reading is taken only when it leaves none of these (nor any blocking problem).
CONFLICTS = frozenset({"not_joined", "duplicate", "ambiguous", "outside_set"})


def _only_fit(trials) -> tuple | None:
    """The one trial that settles the table, for the rules that try changes one at a time
    (:func:`_second_readings`, :func:`_deduce_unknown`, :func:`_drop_unsure_box`).

    Args:
        trials: iterable of ``(key, payload, make)``; ``make()`` builds the table's reading with
            that change. Trials sharing a key are one candidate (a tile either way round): once
            one of them settles, the others are skipped.
    Returns:
        ``(key, payload, reading)`` when exactly one key leaves no blocking problem and none of
        :data:`CONFLICTS`; None otherwise (the search stops at the second such key).
    """
    found = None
    for key, payload, make in trials:
        if found is not None and key == found[0]:
            continue
        got = make()
        if not any(p.blocking or p.kind in CONFLICTS for p in got.problems):
            if found is not None:
                return None
            found = (key, payload, got)
    return found


def _second_readings(detections: list[TileDetection], build, first: GameReading) -> GameReading:
    """Try each table tile's other reading (``TileDetection.alt_pips``: the pip counter and the
    half classifier disagreed) in place of the one that won. When exactly one tile's other
    reading leaves no blocking problem and none of :data:`CONFLICTS`, that reading is taken and
    reported (``reread``, not blocking); otherwise the first reading stands with its problems.
    On the rendered draw-game positions (2 x 200) this settled 3 broken lines, all right. In
    Luzon it is tried only since the engine checks that the missing tiles pair off into 12s
    (before that check, duplicates as the trigger took wrong tiles there; docs/layout.md)."""

    def make(k: int):
        d = detections[k]
        return build(
            detections[:k]
            + [replace(d, pips=tuple(d.alt_pips), alt_pips=tuple(d.pips))]
            + detections[k + 1 :]
        )

    fit = _only_fit(
        (k, None, lambda k=k: make(k))
        for k, d in enumerate(detections)
        if not (
            d.face_down
            or d.pips is None
            or d.alt_pips is None
            or tuple(d.alt_pips) == tuple(d.pips)
        )
    )
    if fit is None:
        return first
    k, _, got = fit
    a, b = detections[k].pips
    c, e = detections[k].alt_pips
    got.problems.append(
        Problem(
            k,
            "reread",
            f"read as {a}-{b}, which does not fit the layout; the "
            f"other reading of this tile, {c}-{e}, is the only one that does: "
            "taken (check it)",
        )
    )
    return got


#: Games where the table says enough to deduce one unread tile: Luzon's missing tiles must pair
#: off in 12s (``engine.luzon.removable_in_pairs``); the draw game's line names a tile where it
#: breaks.
DEDUCE_GAMES = frozenset({"luzon", "draw100"})
#: Games where :func:`_deduce_unknown` also tries one other number on one half of each read
#: tile: the draw game, whose line names the tile at a break from both sides.
ONE_HALF_GAMES = frozenset({"draw100"})
#: At most this many boxes without a value are tried by :func:`_deduce_unknown` (each costs one
#: reading per tile of the set).
MAX_UNKNOWN_TRIED = 6


def _deduce_unknown(
    detections: list[TileDetection],
    build,
    first: GameReading,
    max_pip: int,
    min_pip_confidence: float,
    both_ways: bool = False,
    one_half: bool = False,
    less_sure_twin: bool = False,
) -> GameReading:
    """Try every tile of the double-``max_pip`` set in place of each table box without a usable
    value (face down, unreadable, or read under ``min_pip_confidence``; none when there are more
    than :data:`MAX_UNKNOWN_TRIED`, a stock of backs) and, with ``one_half``, every other number on one half of
    each box that was read (a misread half). When exactly one (box, tile) leaves no blocking
    problem and none of :data:`CONFLICTS`, it is taken and reported (``deduced`` or
    ``corrected``, not blocking); otherwise the first reading stands. Luzon: the tiles missing
    from the table must pair off in 12s, which often leaves one tile while few pairs are gone.
    Draw game: a tile of the line seen as a back (a blank double without a divider), unread or
    misread, where the line breaks: the numbers on both sides name it; a back lying apart (the
    boneyard) joins nothing and stays a back; a tile at an open end fits many values and is left.
    ``both_ways``: try each tile both ways round (where the layout cares which half is where).
    ``less_sure_twin``: also try the less sure box of two read as the same tile
    (:func:`_less_sure_twins`)."""
    unknown = [
        k
        for k, d in enumerate(detections)
        if d.face_down
        or d.pips is None
        or (d.pip_confidence is not None and d.pip_confidence < min_pip_confidence)
    ]
    if less_sure_twin:
        unknown += [k for k in _less_sure_twins(detections) if k not in unknown]
    trials: list[tuple[int, tuple[int, int]]] = []
    for k in unknown if len(unknown) <= MAX_UNKNOWN_TRIED else []:
        for lo in range(max_pip + 1):
            for hi in range(lo, max_pip + 1):
                # the tile either way round (the draw game's line cares which half is where)
                trials += [
                    (k, ab) for ab in ((lo, hi), (hi, lo))[: 2 if both_ways and lo != hi else 1]
                ]
    if one_half:
        for k, d in enumerate(detections):
            if k in unknown:
                continue
            x, y = (int(v) for v in d.pips)
            trials += [(k, (x, v)) for v in range(max_pip + 1) if v != y]
            trials += [(k, (v, y)) for v in range(max_pip + 1) if v != x]

    def make(k: int, ab: tuple[int, int]):
        return build(
            detections[:k]
            + [replace(detections[k], face_down=False, pips=ab, pip_confidence=1.0, alt_pips=None)]
            + detections[k + 1 :]
        )

    fit = _only_fit(((k, Tile(*ab)), ab, lambda k=k, ab=ab: make(k, ab)) for k, ab in trials)
    if fit is None:
        return first
    (k, _), (a, b), got = fit
    d = detections[k]
    if k in unknown:
        seen = (
            "was seen face down"
            if d.face_down
            else (
                "could not be read"
                if d.pips is None
                else "was read with low confidence"
                if (d.pip_confidence or 0.0) < min_pip_confidence
                else f"was read as {d.pips[0]}-{d.pips[1]}, like another tile, and less surely"
            )
        )
        got.problems.append(
            Problem(
                k,
                "deduced",
                f"this tile {seen}; of the set's tiles only "
                f"{a}-{b} fits the rest of the table: taken (check it)",
            )
        )
    else:
        got.problems.append(
            Problem(
                k,
                "corrected",
                f"read as {d.pips[0]}-{d.pips[1]}, which breaks "
                f"the layout; only {a}-{b} (one half read differently) fits "
                "the tiles around it: taken (check it)",
            )
        )
    return got


#: :func:`_less_sure_twins` needs the two pip confidences this far apart. Chosen on the Luzon
#: benchmark positions themselves (docs/layout.md): the misread twin was 0.025-0.40 less sure in
#: the five pairs this settled, 0.009 *more* sure in the one it got wrong.
TWIN_MARGIN = 0.02


def _less_sure_twins(detections: list[TileDetection]) -> list[int]:
    """Of each two face-up boxes read as the same tile, the one read with the lower pip
    confidence, by at least :data:`TWIN_MARGIN` (none otherwise): on the rendered layouts of the
    benchmark (seed 1, all games) the less sure reading of such a pair was the misread one in 12
    of 13 pairs."""
    by_tile: dict[Tile, list[int]] = {}
    for k, d in enumerate(detections):
        if not d.face_down and d.pips is not None:
            by_tile.setdefault(Tile(*d.pips), []).append(k)
    out = []
    for ks in by_tile.values():
        if len(ks) == 2:
            a, b = ks
            ca, cb = (detections[a].pip_confidence or 0.0), (detections[b].pip_confidence or 0.0)
            if abs(ca - cb) >= TWIN_MARGIN:
                out.append(a if ca < cb else b)
    return out


#: Detector confidence under which :func:`_drop_unsure_box` may take a box for a false find (the
#: detector's sure boxes, >= 0.5, are left alone; on the rendered Luzon layouts the false finds
#: that broke a position had 0.34-0.36).
UNSURE_BOX = 0.5
#: Games where :func:`_drop_unsure_box` runs: Luzon, where the whole set is accounted for (a real
#: tile left out breaks the pairs); in the draw game leaving out the last tile of a line would
#: also make it join.
DROP_GAMES = frozenset({"luzon"})


def _drop_unsure_box(detections: list[TileDetection], build, first: GameReading) -> GameReading:
    """Try leaving out each box the detector is unsure of (confidence < :data:`UNSURE_BOX`).
    When exactly one such box, left out, leaves no blocking problem and none of
    :data:`CONFLICTS`, it is taken for a false find (a patch of table or a box across two
    tiles) and reported (``dropped``, not blocking); otherwise the first reading stands."""
    fit = _only_fit(
        (k, None, lambda k=k: build(detections, skip=frozenset({k})))
        for k, d in enumerate(detections)
        if d.confidence < UNSURE_BOX
    )
    if fit is None:
        return first
    k, _, got = fit
    d = detections[k]
    got.problems.append(
        Problem(
            k,
            "dropped",
            f"the detector was unsure of this box (confidence "
            f"{d.confidence:.2f}) and the table fits only without it: taken "
            "for a false find and left out (check it)",
        )
    )
    return got


#: Games where :func:`_drop_covering_box` runs. Tried in every game on the benchmark positions
#: (2 x 200 each, round-6 detector, docs/layout.md "seventh session"): Tableaux +2 / +1 (one taken wrong:
#: a misread tile's box left out for a less sure box that fitted), draw game +1 / +1; Luzon, Good
#: Neighbors and the Big Clock unchanged, so it is not run there.
COVER_GAMES = frozenset({"tableaux", "draw100"})


def _drop_covering_box(detections: list[TileDetection], build, first: GameReading) -> GameReading:
    """Try leaving out each box that made another box be taken for a tile found twice (the
    ``overlapping_box`` rule keeps the more confident of two boxes on one place, but a box
    shifted across two touching tiles can be the surer one and push out the true box of a
    tile). When exactly one such box, left out, lets the boxes under it back and leaves no
    blocking problem and none of :data:`CONFLICTS`, it is taken for a box across two tiles and
    reported (``dropped``, not blocking); otherwise the first reading stands."""
    pushed_out = boxes_on_better_boxes(detections, MAX_OVERLAP)  # as common.to_seen judges them
    covering = sorted({j for j, _ in pushed_out.values()})
    fit = _only_fit((k, None, lambda k=k: build(detections, skip=frozenset({k}))) for k in covering)
    if fit is None:
        return first
    k, _, got = fit
    under = sorted(i for i, (j, _) in pushed_out.items() if j == k)
    got.problems.append(
        Problem(
            k,
            "dropped",
            f"the detector was surer of this box (confidence "
            f"{detections[k].confidence:.2f}) than of the box(es) "
            f"{', '.join(map(str, under))} under it, but the table fits only "
            "without it: taken for a box across two tiles and left out (check it)",
        )
    )
    return got


def read(
    detections: Sequence[TileDetection],
    game: str,
    hand: Sequence[TileDetection] | Sequence[Tile | str] | None = None,
    *,
    max_pip: int | None = None,
    min_pip_confidence: float = 0.5,
    with_hint: bool = True,
    hint_kwargs: dict | None = None,
    **params: Any,
) -> ReadResult:
    """Rebuild the game on the table from a photo's detections.

    Args:
        detections: the table photo's tiles (``TileDetection``: pixel corners, pips).
        game: "draw100", "tableaux", "good-neighbors", "big-clock" or "luzon" ("_" for "-"
            accepted).
        hand: the player's own hand, photographed apart (its detections), or its tiles
            (``Tile`` or "3-5" strings); needed for a draw100 / tableaux state; for the Big
            Clock the one tile drawn (the hint needs it).
        max_pip: the set (6, 9, 12); None: the game's default or inferred from the photo.
        min_pip_confidence: pip readings below this are reported ``doubtful`` and not used.
        with_hint: compute the engine's hint (can take a second or more).
        hint_kwargs: extra arguments for the engine's hint function (e.g. ``samples``).
        **params: per-game extras passed to the reader: ``seed``; draw100: ``players``,
            ``opponent_hand_counts``, ``boneyard_count``, ``scores``; tableaux: ``scores``,
            ``player``, ``opponent_hand_count``, ``continuing``; good-neighbors: ``stock`` or
            ``removed`` (tile texts); big-clock: ``drawn`` (the drawn tile; ``hand`` with one
            tile gives it too);
            luzon: ``variant``.
    Returns:
        :class:`ReadResult`.
    Raises:
        ValueError: unknown game, a detection that is not a TileDetection, a bad hand tile,
            or a max_pip the game does not use.

    In a game whose tiles all lie face up (:data:`FACE_UP_GAMES`) a lone bare face-down box is
    taken as the 0-0 and reported (:func:`.common.assume_blank_double`). When the draw game's
    line breaks (``not_joined``), or Luzon shows a tile twice or missing tiles that cannot have
    been removed in pairs, a tile's second reading may be taken (:func:`_second_readings`,
    reported ``reread``); in Luzon one unread tile may be deduced from the set
    (:func:`_deduce_unknown`, reported ``deduced``) or one unsure box left out
    (:func:`_drop_unsure_box`, reported ``dropped``). In Tableaux and the draw game a blocked
    position may leave out the one sure box that pushed out the true box of a tile
    (:func:`_drop_covering_box`, reported ``dropped``).
    """
    name = str(game).strip().lower().replace("_", "-")
    if name not in READERS:
        raise ValueError(f"unknown game {game!r}; one of {sorted(READERS)}")
    reader, default_pip = READERS[name]
    if name in ("draw100", "luzon") and max_pip not in (None, 6):
        raise ValueError(f"{name} is played with a double-six set, not double-{max_pip}")
    if name == "tableaux" and max_pip not in (None, 6, 9):
        raise ValueError("tableaux is played with double-6 or double-9")
    if max_pip is not None and max_pip not in (6, 9, 12):
        raise ValueError(f"max_pip must be 6, 9 or 12, got {max_pip!r}")
    pip_limit = max_pip or default_pip or 12
    detections = list(detections)

    # the hand does not change between the table's readings (:func:`_second_readings`): read it
    # once; its problems keep their place after the table's
    hand_tiles, hand_seen, hand_problems, hand_set_problems = None, [], [], []
    if hand is not None:
        hand_tiles, hand_seen = _read_hand(list(hand), pip_limit, hand_problems, min_pip_confidence)
        check_set([("hand", hand_seen)], pip_limit, hand_set_problems) if hand_seen else None
    blank_elsewhere = _blank_in_hand(hand)
    kwargs = dict(params)
    if name in ("draw100", "tableaux"):
        kwargs["hand"] = hand_tiles
    if name == "big-clock" and hand_tiles is not None:  # the tile drawn, photographed or typed
        if len(hand_tiles) != 1:
            raise ValueError(
                f"the Big Clock's hand is the one tile you drew; {len(hand_tiles)} tiles were read"
            )
        kwargs["drawn"] = hand_tiles[0]
    if name in ("good-neighbors", "big-clock"):
        kwargs["max_pip"] = max_pip
    elif name == "tableaux":
        kwargs["max_pip"] = max_pip or 6

    def build(dets: list[TileDetection], skip: frozenset[int] = frozenset()) -> GameReading:
        problems: list[Problem] = []
        if name in FACE_UP_GAMES:
            dets = assume_blank_double(dets, problems, blank_elsewhere, min_pip_confidence)
        seen = to_seen(
            dets,
            pip_limit,
            problems,
            min_pip_confidence,
            face_down_ok=(name in ("big-clock", "draw100")),
            skip=skip,
        )
        if hand_tiles is not None:
            problems += hand_problems
            # a tile both on the table and in the hand
            table_tiles = {s.tile: s.index for s in seen if s.tile is not None}
            for k, t in enumerate(hand_tiles):
                if t in table_tiles:
                    problems.append(
                        Problem(
                            hand_seen[k].index if hand_seen else k,
                            "duplicate",
                            f"{t} is both in the hand and on the table (table tile "
                            f"{table_tiles[t]})",
                            "hand",
                        )
                    )
            problems += hand_set_problems
        return reader(seen, problems, **kwargs)

    got = build(detections)
    if any(p.kind in REREAD_WHEN.get(name, ()) and p.source == "table" for p in got.problems):
        got = _second_readings(detections, build, got)
    if name in DEDUCE_GAMES and any(p.blocking for p in got.problems):
        got = _deduce_unknown(
            detections,
            build,
            got,
            pip_limit,
            min_pip_confidence,
            both_ways=(name == "draw100"),
            one_half=(name in ONE_HALF_GAMES),
            less_sure_twin=(name == "luzon"),
        )
    if name in DROP_GAMES and any(p.blocking for p in got.problems):
        got = _drop_unsure_box(detections, build, got)
    if name in COVER_GAMES and any(p.blocking for p in got.problems):
        got = _drop_covering_box(detections, build, got)
    result = ReadResult(
        name,
        got.state,
        got.layout,
        got.problems,
        hand=None if hand_tiles is None else [str(t) for t in hand_tiles],
    )
    st = result.state
    if st is not None and not st.is_terminal():
        result.legal_moves = [
            {"text": st.action_to_string(a), "json": st.action_to_json(a)}
            for a in st.legal_actions()
        ]
        if with_hint and result.legal_moves:
            result.hint = _hint_fn(name)(st, **(hint_kwargs or {}))
    return result


__all__ = [
    "read",
    "ReadResult",
    "Problem",
    "READERS",
    "FACE_UP_GAMES",
    "READ_BACKS_GAMES",
    "KEEP_COVERED_GAMES",
    "detect_options",
]
