"""From detected tiles to game state, for all five games.

One entry point::

    from vision.layout import read
    result = read(detections, game, hand=hand_detections)   # game: a name of engine.GAMES
    result.state        # engine State, or None when the photo leaves a blocking problem
    result.legal_moves  # [{"text", "json"}] of the state
    result.to_json()    # {game, ok, terminal, returns, layout, hand, problems, legal_moves, state_text}

``detections`` are ``vision.types.TileDetection`` (from ``vision.pipeline.detect`` or the
renderer's labels). The game's record in ``engine.GAMES`` says what its table shows and which
reader rebuilds it: one module per layout shape (see docs/layout.md for the layout
conventions): :mod:`.draw100` (a line of play), :mod:`.tableaux` (a tableau of cells),
:mod:`.good_neighbors` (a grid), :mod:`.big_clock` (a ring), :mod:`.luzon` (columns);
:mod:`.common` holds the shared geometry and the checks. The reader asks the engine for no
hint: the caller does (``engine.GAMES[game].hint(result.state)``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, TypedDict

from engine import GAMES, GameType, Hand, Shape, State, Table, games_where, get_game_type
from engine.tiles import Tile
from vision.types import TileDetection, boxes_on_better_boxes

from .big_clock import read_big_clock
from .common import (
    MAX_OVERLAP,
    GameReading,
    Problem,
    Seen,
    assume_blank_double,
    check_set,
    to_seen,
)
from .draw100 import read_draw100
from .good_neighbors import read_good_neighbors
from .luzon import read_luzon
from .tableaux import read_tableaux


class ParameterError(ValueError):
    """A parameter the game's reader does not take (a misspelt name, or another game's)."""


@dataclass(frozen=True)
class ShapeReader:
    """How one layout shape (``engine.Shape``) is read, and which repairs :func:`read` tries
    when a reading is blocked.

    Attributes:
        read: the per-shape reader ``(seen, problems, **params) -> GameReading``.
        infers_set: with no ``max_pip`` given, the reader infers the set from the photo
            (otherwise the game's default set is used).
        reread_when: problem kinds after which a tile's second reading is tried
            (:func:`_second_readings`).
        deduce: a table box without a value may be deduced from the layout
            (:func:`_deduce_unknown`): the line of play names the tile where it breaks.
        one_half: :func:`_deduce_unknown` also tries one other number on one half of each read
            tile, and each tile both ways round (the line cares which half is where).
        drop_covering: :func:`_drop_covering_box` runs (tight layouts where a box across two
            touching tiles can push out the true box of a tile).
    """

    read: Callable[..., GameReading]
    infers_set: bool = False
    reread_when: frozenset[str] = frozenset()
    deduce: bool = False
    one_half: bool = False
    drop_covering: bool = False


#: The reader of each layout shape. The repairs per shape were chosen on the rendered layouts
#: of ``scripts/bench_layout.py`` (docs/layout.md): a repair that settled no position of a shape,
#: or took wrong tiles there, is not run for it. The draw game's line breaks where one tile was
#: misread, and the joins say which reading fits; in a tableau (and in Luzon's columns) a misread
#: tile shows as a tile seen twice or as a layout that no order of legal plays builds
#: (``engine.tableaux.board.can_be_built``, ``engine.luzon.removable_in_pairs``).
SHAPE_READERS: dict[Shape, ShapeReader] = {
    Shape.LINE: ShapeReader(
        read_draw100,
        reread_when=frozenset({"not_joined"}),
        deduce=True,
        one_half=True,
        drop_covering=True,
    ),
    Shape.TABLEAU: ShapeReader(
        read_tableaux, reread_when=frozenset({"duplicate", "impossible"}), drop_covering=True
    ),
    Shape.GRID: ShapeReader(read_good_neighbors, infers_set=True),
    Shape.RING: ShapeReader(read_big_clock, infers_set=True),
    Shape.COLUMNS: ShapeReader(read_luzon, reread_when=frozenset({"duplicate", "impossible"})),
}

#: Game name -> its shape's reader (every game of ``engine.GAMES``).
READERS: dict[str, ShapeReader] = {name: SHAPE_READERS[g.shape] for name, g in GAMES.items()}


@dataclass
class ReadResult:
    """What a photo says about a game.

    Attributes:
        game: the game name (a key of ``engine.GAMES``).
        state: the engine State rebuilt from the photo, or None when a blocking problem stands
            (or, for a game that needs the player's hand, when no hand was given).
        layout: JSON-ready description of the layout (per game, see docs/layout.md).
        problems: every problem found (:class:`Problem`: tile index, kind, message).
        legal_moves: ``[{"text": ..., "json": ...}, ...]`` of the state (empty without state or
            when the position is over).
        hand: the tiles of the player's hand as text (when a hand was given).
    """

    game: str
    state: State | None
    layout: dict
    problems: list[Problem] = field(default_factory=list)
    legal_moves: list[dict] = field(default_factory=list)
    hand: list[str] | None = None

    @property
    def ok(self) -> bool:
        """True when a state was built and no blocking problem stands."""
        return self.state is not None and not any(p.blocking for p in self.problems)

    def to_json(self) -> dict:
        """JSON-ready dict: game, ok, terminal (the position is over: no moves; None without
        state), returns (the engine's returns when over, e.g. ``[1.0]`` a won solitaire),
        layout, hand, problems, legal_moves, state_text."""
        st = self.state
        over = None if st is None else bool(st.is_terminal())
        return {
            "game": self.game,
            "ok": self.ok,
            "terminal": over,
            "returns": list(st.returns()) if st is not None and over else None,
            "layout": self.layout,
            "hand": self.hand,
            "problems": [p.to_json() for p in self.problems],
            "legal_moves": self.legal_moves,
            "state_text": None if st is None else str(st),
        }


#: Games whose table shows face-up tiles only: a lone bare face-down box may be their 0-0
#: (:func:`.common.assume_blank_double`).
FACE_UP_GAMES = games_where(lambda g: g.table is Table.FACE_UP)

#: Games whose table photos are detected with ``read_backs=True`` (every box the detector calls
#: face down is read, and turned face up when it reads clearly): those whose layout is face up
#: (a stock aside stays face down). The draw game's boneyard lies face down beside the line, so
#: its photos are detected without it (docs/layout.md gives the benchmark numbers).
READ_BACKS_GAMES = games_where(lambda g: g.table.layout_face_up)

#: Games whose table photos are detected with ``keep_covered=True`` (all of them): boxes lying
#: mostly on other boxes are kept for :func:`read`, whose ``overlapping_box`` rule
#: (``common.to_seen``) drops the less confident of two face-up boxes sharing more than
#: ``common.MAX_OVERLAP`` of the smaller one. In tight layouts the detector's own coverage rule
#: (``vision.detector.suppress_covered``) could drop the true box of a tile and keep a box across
#: the halves of two touching tiles.
KEEP_COVERED_GAMES = frozenset(GAMES)

#: Problems after which :func:`read` tries the second reading of each tile (``alt_pips``), per
#: game (:attr:`ShapeReader.reread_when`).
REREAD_WHEN: dict[str, frozenset[str]] = {
    name: r.reread_when for name, r in READERS.items() if r.reread_when
}

#: Games where the table says enough to deduce one unread tile (:func:`_deduce_unknown`): those
#: whose whole set is on the table (Luzon's missing tiles must pair off in 12s,
#: ``engine.luzon.removable_in_pairs``) and those whose layout names it (the draw game's line,
#: where it breaks).
DEDUCE_GAMES = games_where(lambda g: g.whole_set_on_table or SHAPE_READERS[g.shape].deduce)
#: Games where :func:`_deduce_unknown` also tries one other number on one half of each read
#: tile: the draw game, whose line names the tile at a break from both sides.
ONE_HALF_GAMES = games_where(lambda g: SHAPE_READERS[g.shape].one_half)
#: Games where :func:`_drop_unsure_box` runs: those whose whole set is accounted for (a real
#: tile left out breaks the pairs); in the draw game leaving out the last tile of a line would
#: also make it join.
DROP_GAMES = games_where(lambda g: g.whole_set_on_table)
#: Games where :func:`_drop_covering_box` runs (:attr:`ShapeReader.drop_covering`).
COVER_GAMES = games_where(lambda g: SHAPE_READERS[g.shape].drop_covering)
#: Games where :func:`_deduce_unknown` also tries the less sure box of two read as the same
#: tile: those whose whole set is on the table (a tile can be there once only).
TWIN_GAMES = games_where(lambda g: g.whole_set_on_table)


class DetectOptions(TypedDict):
    """Keyword arguments of ``vision.pipeline.detect`` that depend on the game photographed."""

    read_backs: bool
    keep_covered: bool


def detect_options(game: str | None) -> DetectOptions:
    """Keyword arguments for ``vision.pipeline.detect`` on a table photo of ``game``:
    ``read_backs`` (:data:`READ_BACKS_GAMES`) and ``keep_covered`` (:data:`KEEP_COVERED_GAMES`);
    for None or an unknown game, neither. A hand photo is read with ``read_backs=True`` alone."""
    return {"read_backs": game in READ_BACKS_GAMES, "keep_covered": game in KEEP_COVERED_GAMES}


#: Parameters :func:`read` fills itself from its own arguments (never passed through
#: ``**params``).
_OWN_PARAMS = frozenset({"seen", "problems", "hand", "max_pip"})


def reader_params(game: str) -> list[str]:
    """The names of the extra parameters :func:`read` takes for ``game`` (``**params``): the
    game reader's keyword parameters, e.g. ``["variant", "seed"]`` for Luzon.

    Raises:
        ValueError: unknown game.
    """
    fn = READERS[get_game_type(game).name].read
    return [n for n in inspect.signature(fn).parameters if n not in _OWN_PARAMS]


def check_params(game: str, params: Iterable[str]) -> None:
    """Refuse a parameter ``game``'s reader does not take.

    Raises:
        ParameterError: a name that is not one of :func:`reader_params` (the message names the
            ones it takes).
        ValueError: unknown game.
    """
    known = reader_params(game)
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ParameterError(
            f"{get_game_type(game).label} takes no parameter "
            f"{', '.join(repr(n) for n in unknown)}; it takes {', '.join(known)}"
        )


def _read_hand(
    hand: Sequence, max_pip: int, problems: list[Problem], min_pip_confidence: float
) -> tuple[list[Tile], list]:
    """The hand as tiles, from detections (a hand photo) or from Tiles / "a-b" strings.

    Returns ``(tiles, seen)``: ``seen[k]`` is the detection record of ``tiles[k]`` (empty when
    the hand was given as tiles). Unreadable hand tiles are reported, not guessed."""
    if all(isinstance(h, TileDetection) for h in hand):
        seen = to_seen(hand, max_pip, problems, min_pip_confidence, source="hand")
        usable = [s for s in seen if s.value is not None]
        return [s.known for s in usable], usable
    tiles: list[Tile] = []
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


#: A second reading is taken only when it leaves none of these (nor any blocking problem).
CONFLICTS = frozenset({"not_joined", "duplicate", "ambiguous", "outside_set"})


#: Builds the table's reading from (changed) detections, leaving out the indices in ``skip``.
Build = Callable[..., GameReading]


def _only_fit(trials: Iterable[tuple[Any, Any, Callable[[], GameReading]]]) -> tuple | None:
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


def _second_readings(
    detections: list[TileDetection], build: Build, first: GameReading
) -> GameReading:
    """Try each table tile's other reading (``TileDetection.alt_pips``: the pip counter and the
    half classifier disagreed) in place of the one that won. When exactly one tile's other
    reading leaves no blocking problem and none of :data:`CONFLICTS`, that reading is taken and
    reported (``reread``, not blocking); otherwise the first reading stands with its problems."""

    def make(k: int) -> GameReading:
        d = detections[k]
        return build(
            detections[:k] + [replace(d, pips=d.alt_pips, alt_pips=d.pips)] + detections[k + 1 :]
        )

    fit = _only_fit(
        (k, None, partial(make, k))
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


#: At most this many boxes without a value are tried by :func:`_deduce_unknown` (each costs one
#: reading per tile of the set).
MAX_UNKNOWN_TRIED = 6


def _deduce_unknown(
    detections: list[TileDetection],
    build: Build,
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
            if k in unknown or d.pips is None:  # every box without pips is in ``unknown``
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

    fit = _only_fit(((k, Tile(*ab)), ab, partial(make, k, ab)) for k, ab in trials)
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


#: :func:`_less_sure_twins` needs the two pip confidences this far apart (chosen on the Luzon
#: positions of ``scripts/bench_layout.py``; docs/layout.md).
TWIN_MARGIN = 0.02


def _less_sure_twins(detections: list[TileDetection]) -> list[int]:
    """Of each two face-up boxes read as the same tile, the one read with the lower pip
    confidence, by at least :data:`TWIN_MARGIN` (none otherwise): of two readings of one tile
    the less sure one is more often the misread one."""
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
#: detector's sure boxes are left alone).
UNSURE_BOX = 0.5


def _drop_unsure_box(
    detections: list[TileDetection], build: Build, first: GameReading
) -> GameReading:
    """Try leaving out each box the detector is unsure of (confidence < :data:`UNSURE_BOX`).
    When exactly one such box, left out, leaves no blocking problem and none of
    :data:`CONFLICTS`, it is taken for a false find (a patch of table or a box across two
    tiles) and reported (``dropped``, not blocking); otherwise the first reading stands."""
    fit = _only_fit(
        (k, None, partial(build, detections, skip=frozenset({k})))
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


def _drop_covering_box(
    detections: list[TileDetection], build: Build, first: GameReading
) -> GameReading:
    """Try leaving out each box that made another box be taken for a tile found twice (the
    ``overlapping_box`` rule keeps the more confident of two boxes on one place, but a box
    shifted across two touching tiles can be the surer one and push out the true box of a
    tile). When exactly one such box, left out, lets the boxes under it back and leaves no
    blocking problem and none of :data:`CONFLICTS`, it is taken for a box across two tiles and
    reported (``dropped``, not blocking); otherwise the first reading stands."""
    pushed_out = boxes_on_better_boxes(detections, MAX_OVERLAP)  # as common.to_seen judges them
    covering = sorted({j for j, _ in pushed_out.values()})
    fit = _only_fit((k, None, partial(build, detections, skip=frozenset({k}))) for k in covering)
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
            f"{', '.join(f'table tile {u}' for u in under)} under it, but the table fits only "
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
    **params: Any,
) -> ReadResult:
    """Rebuild the game on the table from a photo's detections.

    Args:
        detections: the table photo's tiles (``TileDetection``: pixel corners, pips).
        game: a name of ``engine.GAMES`` ("_" for "-" and any case accepted).
        hand: the player's own tiles (``engine.GameType.hand``), photographed apart (their
            detections) or as tiles (``Tile`` or "3-5" strings): the hand a draw game or
            Tableaux state needs; for the Big Clock the one tile drawn (the hint needs it).
        max_pip: the set (a value of the game's ``sets``); None: the game's default set, or
            inferred from the photo by the readers that can (Good Neighbors, the Big Clock).
        min_pip_confidence: pip readings below this are reported ``doubtful`` and not used.
        **params: the game reader's own parameters (:func:`reader_params`): ``seed``; draw
            game: ``players``, ``opponent_hand_counts``, ``boneyard_count``, ``scores``;
            Tableaux: ``scores``, ``player``, ``opponent_hand_count``, ``continuing``; Good
            Neighbors: ``stock`` or ``removed`` (tile texts); the Big Clock: ``drawn`` (the
            drawn tile; ``hand`` with one tile gives it too); Luzon: ``variant``.
    Returns:
        :class:`ReadResult` (state, layout, problems, legal moves; the hint is the engine's to
        give: ``engine.GAMES[game].hint(result.state)``).
    Raises:
        ParameterError: a parameter the game's reader does not take (a misspelt name).
        ValueError: unknown game, a detection that is not a TileDetection, a bad hand tile,
            or a max_pip the game is not played with.

    In a game whose tiles all lie face up (:data:`FACE_UP_GAMES`) a lone bare face-down box is
    taken as the 0-0 and reported (:func:`.common.assume_blank_double`). When a reading is
    blocked, the repairs of the game's shape (:class:`ShapeReader`) are tried in turn: a tile's
    second reading (:func:`_second_readings`, reported ``reread``), one unread tile deduced from
    the set (:func:`_deduce_unknown`, reported ``deduced`` or ``corrected``), one unsure box
    left out (:func:`_drop_unsure_box`, reported ``dropped``) and one sure box that pushed out
    the true box of a tile left out (:func:`_drop_covering_box`, reported ``dropped``).
    """
    gt: GameType = get_game_type(game)
    name = gt.name
    check_params(name, params)
    shape = READERS[name]
    if max_pip is not None and max_pip not in gt.sets:
        raise ValueError(
            f"{gt.label} is played with a double-{'/'.join(map(str, gt.sets))} set, "
            f"not double-{max_pip}"
        )
    pip_limit = max_pip or (max(gt.sets) if shape.infers_set else gt.default_set)
    detections = list(detections)

    # the hand does not change between the table's readings (:func:`_second_readings`): read it
    # once; its problems keep their place after the table's
    hand_tiles: list[Tile] | None = None
    hand_seen: list[Seen] = []
    hand_problems: list[Problem] = []
    hand_set_problems: list[Problem] = []
    if hand is not None:
        hand_tiles, hand_seen = _read_hand(list(hand), pip_limit, hand_problems, min_pip_confidence)
        if hand_seen:
            check_set([("hand", hand_seen)], pip_limit, hand_set_problems)
    blank_elsewhere = _blank_in_hand(hand)
    kwargs = dict(params)
    if gt.hand is Hand.HAND:
        kwargs["hand"] = hand_tiles
    if gt.hand is Hand.DRAWN and hand_tiles is not None:  # the tile drawn, photographed or typed
        if len(hand_tiles) != 1:
            raise ValueError(
                f"{gt.label}: the hand is the one tile you drew; {len(hand_tiles)} tiles were read"
            )
        kwargs["drawn"] = hand_tiles[0]
    if len(gt.sets) > 1:
        kwargs["max_pip"] = max_pip if shape.infers_set else pip_limit

    def build(dets: list[TileDetection], skip: frozenset[int] = frozenset()) -> GameReading:
        problems: list[Problem] = []
        if name in FACE_UP_GAMES:
            dets = assume_blank_double(dets, problems, blank_elsewhere, min_pip_confidence)
        seen = to_seen(
            dets,
            pip_limit,
            problems,
            min_pip_confidence,
            face_down_ok=gt.table.face_down,
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
                            f"{t} is both in the hand and on the table, as table tile "
                            f"{table_tiles[t]}",
                            "hand",
                        )
                    )
            problems += hand_set_problems
        return shape.read(seen, problems, **kwargs)

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
            both_ways=name in ONE_HALF_GAMES,
            one_half=name in ONE_HALF_GAMES,
            less_sure_twin=name in TWIN_GAMES,
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
    return result


__all__ = [
    "read",
    "reader_params",
    "check_params",
    "ParameterError",
    "ReadResult",
    "Problem",
    "READERS",
    "SHAPE_READERS",
    "ShapeReader",
    "FACE_UP_GAMES",
    "READ_BACKS_GAMES",
    "KEEP_COVERED_GAMES",
    "detect_options",
    "DetectOptions",
]
