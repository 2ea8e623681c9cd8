"""Follow a game from the camera: stable table states -> plays -> score events.

One :class:`Follower` per table. Each camera frame's detections go in
(:meth:`Follower.feed`); the tracker (``vision.tracking``) says when the table holds a new
stable state; the layout reader (``vision.layout.read``) turns it into the game's layout; the
difference to the last accepted state becomes engine actions, checked by the rules. What comes
out is a list of plain records (JSON-ready dicts), in order:

- ``{"type": "stable", "frame", "tiles"}``: a new stable state (number of tiles seen);
- ``{"type": "play", "frame", "player", "action", "tile", "points"}``: a play accepted;
- ``{"type": "flag", "frame", "tile", "message"}``: an illegal play, not accepted
  ("6-3 does not match the 5 it touches");
- ``{"type": "question", "frame", "message"}``: a change the rules cannot explain in any order
  (a tile gone, several tiles that fit no legal order); the players settle it;
- ``{"type": "score", "source": "camera", "frame", "player", "points", "reason"}``: an
  ordinary score event (Tableaux: each play's points and the pass penalty; draw game: a hand's
  points);
- ``{"type": "hand_end", ...}``, ``{"type": "progress", ...}`` (solitaires: tiles removed and
  left), ``{"type": "result", "frame", "winner" and "scores", or "won", "removed" and "left"}`` (the
  game is over).

What the camera cannot see comes from the players as taps (:meth:`Follower.tap`): ``"pass"``
(the player to move passes), ``"done"`` (a Tableaux turn that could go on stops) and
``("player", p)`` (who is to move: the coin toss, who leads a draw-game hand). The table
conventions (how the draw game's remaining tiles are shown) are in docs/follow.md.

Games: every game of the catalog (:data:`FOLLOW_GAMES`). The Big Clock's drawn tile and stock
are not on the table: the tile that appears on a pile is the drawn one, and a set-aside or
giving up comes as a tap (``"pass"``, ``"done"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations
from typing import Any

import numpy as np

from engine.big_clock.rules import GIVE_UP, SET_ASIDE, Move, Place
from engine.catalog import GAMES, GameType, Shape
from engine.tiles import Tile
from vision.tracking import STEADY_FRAMES, Tracker
from vision.types import TileDetection

#: Problem kinds after which a stable state is not used (the reading is unsure); the follower
#: waits for the next stable state.
UNSURE_KINDS = frozenset(
    {
        "unreadable",
        "doubtful",
        "duplicate",
        "outside_set",
        "too_many",
        "overlap",
        "ambiguous",
        "gap",
        "mid_turn",
    }
)


def _tile(x: Any) -> Tile:
    return x if isinstance(x, Tile) else Tile.parse(str(x))


class Follower:
    """Follows one game at one table from camera frames and players' taps.

    Args:
        game: one of :data:`FOLLOW_GAMES`.
        players: draw game: 2-4 seats (Tableaux is always 2; solitaires 1).
        max_pip: the set (Tableaux 6 or 9; Good Neighbors 6, 9 or 12; None: the game's default,
            Good Neighbors read from the table).
        first_player: seat to move first (Tableaux: the coin toss; draw game: who leads).
        steady_frames: frames a reading must hold to become the stable state.
        variant: Luzon variant (None or "sixes").
    Raises:
        ValueError: an unknown game or a bad parameter.
    """

    def __init__(
        self,
        game: str,
        players: int = 2,
        max_pip: int | None = None,
        first_player: int = 0,
        steady_frames: int = STEADY_FRAMES,
        variant: str | None = None,
    ):
        name = str(game).strip().lower().replace("_", "-")
        if name not in FOLLOW_GAMES:
            raise ValueError(f"cannot follow {game!r}; one of {list(FOLLOW_GAMES)}")
        self.game = name
        self.tracker = Tracker(steady_frames=steady_frames)
        self.events: list[dict] = []
        self.frame = -1
        #: the tracker's answer to the latest frame (``vision.tracking.TrackUpdate``: ``steady``
        #: and the per-tile ``tracks`` for drawing outlines on a live picture), None before one
        self.last_update = None
        self._rules: _GameFollow = _FOLLOWS[GAMES[name].shape].create(
            GAMES[name], players, max_pip, first_player, variant
        )

    # --- input ---------------------------------------------------------------------------
    def feed(self, detections: Sequence[TileDetection]) -> list[dict]:
        """One camera frame's detections in; the records it caused out (often none).

        Raises:
            ValueError: an item that is not a ``TileDetection``.
        """
        up = self.tracker.update(detections)
        self.last_update = up
        self.frame = up.frame
        if not up.changed or self._rules.over:
            out = self._rules.flush() if up.steady and self.tracker.settled else []
            self._stamp(out, up.frame)
            return out
        stable = up.stable or []
        out = [{"type": "stable", "frame": up.frame, "tiles": len(stable)}]
        reading = self._rules.read(stable, self.game) if stable else None
        try:
            out += self._rules.on_stable(reading, stable, up.frame)
        except ValueError as e:  # a position the rules refuse: asked, never a crash
            out.append(
                {"type": "question", "message": f"the table cannot be taken as a position: {e}"}
            )
        out += self._rules.flush()
        self._stamp(out, up.frame)
        return out

    def _stamp(self, out: list[dict], frame: int) -> None:
        for r in out:
            r.setdefault("frame", frame)
        self.events += out

    def tap(self, kind: str, player: int | None = None) -> list[dict]:
        """A player's tap: ``"pass"``, ``"done"`` (end a Tableaux turn that could go on) or
        ``"player"`` with ``player`` (who is to move). The Big Clock: ``"pass"`` sets the drawn
        tile aside (it fits nowhere), ``"done"`` gives up (a drawn double cannot come home).

        Raises:
            ValueError: an unknown tap or seat.
        """
        if kind not in ("pass", "done", "player"):
            raise ValueError(f"unknown tap {kind!r}; one of pass, done, player")
        self._rules.check_tap(kind, player)
        if self.tracker.settled or self.frame < 0:
            out = self._rules.on_tap(kind, player)
        else:  # a change is on the table but not steady yet: the tap comes after it
            self._rules.pending.append((kind, player, self.tracker.last_values))
            out = []
        self._stamp(out, self.frame)
        return out

    def sync_scores(self, totals: Sequence[int], winner: int | None) -> None:
        """Take the score sheet's running totals as the follower's tally: ``totals[seat]``
        (points, every entry not undone) and ``winner`` (the seat of the sheet's winner, None
        while the game is open). Called after an entry is typed or undone on a phone: the
        sheet is what counts, so an undone camera score is taken back here too and a game the
        sheet reopens is followed again. Tableaux: the difference per seat also goes to the
        current hand's tally (which decides who starts the next hand). A solitaire keeps no
        tally: nothing changes.

        Raises:
            ValueError: ``totals`` does not have one entry per seat, or ``winner`` is no seat.
        """
        self._rules.sync_scores([int(x) for x in totals], winner)

    # --- output --------------------------------------------------------------------------
    def summary(self) -> dict:
        """JSON-ready: game, frames seen, plays, flags, questions, scores (per seat, or the
        solitaire's progress), player to move, over."""
        ev = self.events
        return {
            "game": self.game,
            "frames": self.frame + 1,
            "plays": sum(e["type"] == "play" for e in ev),
            "flags": sum(e["type"] == "flag" for e in ev),
            "questions": sum(e["type"] == "question" for e in ev),
            **self._rules.summary(),
        }


def _read_line(stable: list[TileDetection], game: str):
    """The draw game's line as ``vision.layout.read`` reads it, without its repairs (trying
    other values for tiles that do not join): the tracker already outvotes passing misreads, the
    remaining tiles shown apart at the end of a hand would set off a search over the whole set at
    every steady view, and a tile that does not join is a play to flag, not to mend."""
    from vision.layout import ReadResult
    from vision.layout.common import to_seen
    from vision.layout.draw100 import read_draw100

    problems: list = []
    seen = to_seen(stable, 6, problems, 0.5, face_down_ok=True)
    got = read_draw100(seen, problems)
    return ReadResult(game, got.state, got.layout, got.problems)


class _GameFollow:
    """Per-game rules of :class:`Follower` (subclasses)."""

    over = False

    @classmethod
    def create(
        cls,
        g: GameType,
        players: int,
        max_pip: int | None,
        first_player: int,
        variant: str | None,
    ) -> _GameFollow:
        """The rules for game ``g`` from :class:`Follower`'s arguments (each game takes those
        it is played with).

        Raises:
            ValueError: a bad parameter.
        """
        raise NotImplementedError

    def read_params(self) -> dict[str, Any]:
        """Keyword parameters of ``vision.layout.read`` for this game (the set, the variant)."""
        return {"max_pip": None}

    def read(self, stable: list[TileDetection], game: str):
        """The layout reader's ``ReadResult`` of the stable tiles of the table of ``game``."""
        from vision.layout import read

        return read(stable, game, **self.read_params())

    @property
    def pending(self) -> list:
        """Taps waiting for the change on the table to settle: ``(kind, player, values seen
        when tapped)``."""
        if not hasattr(self, "_pending"):
            self._pending = []
        return self._pending

    def flush(self, tile: Tile | None = None) -> list[dict]:
        """Apply the waiting taps: all of them (``tile`` None), or, before a play of ``tile``,
        those tapped while ``tile`` was not yet on the table."""
        out: list[dict] = []
        while self.pending and (tile is None or tile not in self.pending[0][2]):
            kind, player, _ = self.pending.pop(0)
            out += self.on_tap(kind, player)
        return out

    def check_tap(self, kind: str, player: int | None) -> None:
        """Raise ValueError for a tap this game cannot take."""

    def on_stable(self, reading, stable: list[TileDetection], frame: int) -> list[dict]:
        raise NotImplementedError

    def on_tap(self, kind: str, player: int | None) -> list[dict]:
        return [{"type": "question", "message": f"a {kind!r} tap means nothing in this game"}]

    def sync_scores(self, totals: list[int], winner: int | None) -> None:
        """See :meth:`Follower.sync_scores` (games without a tally: nothing to do)."""

    def summary(self) -> dict:
        return {}


def _check_sync(seats: int, totals: list[int], winner: int | None) -> None:
    if len(totals) != seats:
        raise ValueError(f"the sheet's totals name {len(totals)} seats, this game has {seats}")
    if winner is not None and not 0 <= winner < seats:
        raise ValueError(f"the winner must be a seat 0..{seats - 1}, got {winner!r}")


def _order_note(what: str, items: list[str], sep: str = ", ") -> list[dict]:
    """``[note]`` naming the order several ``what`` ("tiles", "plays") seen at once were taken
    in, or ``[]`` for one."""
    if len(items) < 2:
        return []
    return [
        {
            "type": "note",
            "message": f"several {what} at once, taken in the order " + sep.join(items),
        }
    ]


def _unsure(reading) -> list[str]:
    return [p.message for p in reading.problems if p.kind in UNSURE_KINDS and p.source == "table"]


# --- Tableaux --------------------------------------------------------------------------------

#: The 8 rotations/reflections of the grid, as (swap, sign of row, sign of col).
_SYMMETRIES = [(sw, sr, sc) for sw in (False, True) for sr in (1, -1) for sc in (1, -1)]


def _sym(cell, s) -> tuple[int, int]:
    sw, sr, sc = s
    r, c = cell
    if sw:
        r, c = c, r
    return (r * sr, c * sc)


def _register(ours: dict[Tile, tuple], seen: dict[Tile, tuple]):
    """The map from the reading's cells to ours: ``f(cell) -> cell`` using the tiles both show,
    or None when no rotation/reflection plus shift fits them all.

    ``ours`` / ``seen``: ``{tile: ((cell, number), (cell, number))}``."""
    common = [t for t in seen if t in ours]
    if not common:
        return None
    for s in _SYMMETRIES:
        offsets = None
        ok = True
        for t in common:
            (ca, na), (cb, nb) = seen[t]
            (oa, ma), (ob, mb) = ours[t]
            cand = set()
            for (x, nx), (y, ny) in (((ca, na), (cb, nb)), ((cb, nb), (ca, na))):
                if nx != ma or ny != mb:
                    continue
                sx, sy = _sym(x, s), _sym(y, s)
                d1 = (oa[0] - sx[0], oa[1] - sx[1])
                d2 = (ob[0] - sy[0], ob[1] - sy[1])
                if d1 == d2:
                    cand.add(d1)
            offsets = cand if offsets is None else offsets & cand
            if not offsets:
                ok = False
                break
        if ok and offsets:
            d = min(offsets)
            return lambda cell, s=s, d=d: (_sym(cell, s)[0] + d[0], _sym(cell, s)[1] + d[1])
    return None


def _why_not_tableaux(board, tile: Tile, c0, n0: int, c1, n1: int) -> str:
    """One sentence: why ``tile`` (``n0`` on cell ``c0``, ``n1`` on ``c1``) is not a legal play
    on ``board`` (RULES.md section 5: side, corner and centre plays)."""

    touch = []
    for c, n, other in ((c0, n0, c1), (c1, n1, c0)):
        nbrs = [(c[0] + dr, c[1] + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))]
        nums = [board.num[m] for m in nbrs if m in board.num and m != other]
        if nums:
            touch.append((n, nums))
    if not touch:
        return f"{tile} does not touch the tableau"
    if len(touch) == 2:
        return f"{tile} touches the tableau with both halves; only one half may touch"
    n, nums = touch[0]
    if len(nums) == 1:
        if n != nums[0]:
            return f"{tile} does not match the {nums[0]} it touches"
        return f"{tile} touches the {nums[0]} end to end or crosswise; a side play lies alongside"
    total = sum(nums)
    if n != total and not (len(nums) == 3 and tile.pips == total):
        return f"{tile}: its {n} touches halves adding up to {total}"
    return f"{tile} is not a side, corner or centre play there"


class _TableauxFollow(_GameFollow):
    """Tableaux (RULES.md section 5): plays, each play's points, turn order, hands."""

    @classmethod
    def create(cls, g, players, max_pip, first_player, variant):
        return cls(max_pip or g.default_set, first_player)

    def read_params(self):
        return {"max_pip": self.max_pip}

    def __init__(self, max_pip: int, first_player: int):
        from engine.tableaux import TableauxGame
        from engine.tableaux.board import Board

        if first_player not in (0, 1):
            raise ValueError(f"Tableaux first player must be 0 or 1, got {first_player!r}")
        g = TableauxGame(max_pip)
        self.max_pip = max_pip
        self.target = g.target
        self._Board = Board
        self.board = Board()
        self.tiles: dict[Tile, tuple] = {}  # tile -> ((cell, number), (cell, number)) in our frame
        self.scores = [0, 0]
        self.hand_scores = [0, 0]
        self.player = first_player
        self.hand_starter = first_player
        self.hand_number = 0
        self.flagged: set[Tile] = set()
        self.winner: int | None = None

    @property
    def over(self) -> bool:
        return self.winner is not None

    def _score(self, p: int, points: int, reason: str) -> list[dict]:
        self.scores[p] += points
        self.hand_scores[p] += points
        out = [
            {"type": "score", "source": "camera", "player": p, "points": points, "reason": reason}
        ]
        if points > 0 and self.scores[p] >= self.target:
            self.winner = p
            out.append({"type": "result", "winner": p, "scores": list(self.scores)})
        return out

    def sync_scores(self, totals, winner):
        _check_sync(2, totals, winner)
        for p in (0, 1):
            self.hand_scores[p] += totals[p] - self.scores[p]
            self.scores[p] = totals[p]
        self.winner = winner

    def _end_hand(self) -> list[dict]:
        out = self.flush()  # taps made before the table was cleared
        a, b = self.hand_scores
        winner = 0 if a > b else 1 if b > a else 1 - self.hand_starter
        self.player = self.hand_starter = winner
        self.board = self._Board()
        self.tiles = {}
        self.flagged = set()
        return out + [
            {
                "type": "hand_end",
                "hand": self.hand_number,
                "hand_scores": [a, b],
                "next_starter": winner,
            }
        ]

    def _start(self, seen: dict[Tile, tuple]) -> list[dict]:
        self.hand_number += 1
        self.hand_scores = [0, 0]
        for _t, ((ca, na), (cb, nb)) in seen.items():
            self.board.place(ca, na, cb, nb)
        self.tiles = dict(seen)
        return [
            {
                "type": "hand_start",
                "hand": self.hand_number,
                "tiles": [str(t) for t in seen],
                "player": self.player,
            }
        ]

    def on_stable(self, reading, stable, frame):
        if reading is None or not reading.layout.get("placed"):
            return self._end_hand() if self.tiles else []
        unsure = _unsure(reading)
        if unsure:
            return []
        seen: dict[Tile, tuple] = {}
        for p in reading.layout["placed"]:
            a, b = p["pips"]
            seen[Tile(a, b)] = ((tuple(p["cells"][0]), a), (tuple(p["cells"][1]), b))
        if not self.tiles:
            return self._start(seen)
        f = _register(self.tiles, seen)
        if f is None:
            if len(seen) == 1:  # a new starter on a cleared table
                return self._end_hand() + self._start(seen)
            return [
                {
                    "type": "question",
                    "message": "the tableau seen does not line up with the "
                    "one followed so far; check the tiles",
                }
            ]
        gone = [t for t in self.tiles if t not in seen]
        if gone:
            if len(seen) == 1 and len(gone) == len(self.tiles):
                return self._end_hand() + self._start(seen)
            return [
                {
                    "type": "question",
                    "message": f"{', '.join(map(str, gone))} no longer seen on "
                    "the tableau; tiles stay where they are played",
                }
            ]
        moved = [t for t in self.tiles if {(f(c), n) for c, n in seen[t]} != set(self.tiles[t])]
        if moved:
            return [{"type": "question", "message": f"{', '.join(map(str, moved))} moved"}]
        new = {t: tuple((f(c), n) for c, n in seen[t]) for t in seen if t not in self.tiles}
        return self._plays(new)

    def _placement(self, board, t: Tile, cells):
        (c0, n0), (c1, n1) = cells
        low_cell, high_cell = (c0, c1) if n0 == t.low else (c1, c0)
        if t.is_double:
            low_cell, high_cell = min(c0, c1), max(c0, c1)
        for m in board.placements([t]):
            if (
                {m.low_cell, m.high_cell} == {c0, c1}
                and m.low_cell == low_cell
                and m.high_cell == high_cell
            ):
                return m
        return None

    def _plays(self, new: dict[Tile, tuple]) -> list[dict]:
        todo = [t for t in new if t not in self.flagged]
        if not todo:
            return []
        order = None
        if len(todo) <= 4:
            for perm in permutations(todo):
                b = self.board.copy()
                ok = True
                for t in perm:
                    m = self._placement(b, t, new[t])
                    if m is None:
                        ok = False
                        break
                    b.place(m.low_cell, t.low, m.high_cell, t.high)
                if ok:
                    order = list(perm)
                    break
        out: list[dict] = []
        if order is None:  # the largest part that is legal, one by one; the rest is flagged
            order, rest = [], list(todo)
            progress = True
            b = self.board.copy()
            while progress:
                progress = False
                for t in list(rest):
                    m = self._placement(b, t, new[t])
                    if m is not None:
                        order.append(t)
                        rest.remove(t)
                        b.place(m.low_cell, t.low, m.high_cell, t.high)
                        progress = True
            for t in rest:
                (c0, n0), (c1, n1) = new[t]
                self.flagged.add(t)
                out.append(
                    {
                        "type": "flag",
                        "tile": str(t),
                        "message": _why_not_tableaux(b, t, c0, n0, c1, n1),
                    }
                )
        out += _order_note("tiles", [str(t) for t in order])
        for t in order:
            m = self._placement(self.board, t, new[t])
            out += self.flush(t)
            self.board.place(m.low_cell, t.low, m.high_cell, t.high)
            self.tiles[t] = new[t]
            p = self.player
            out.append(
                {
                    "type": "play",
                    "player": p,
                    "tile": str(t),
                    "kind": m.kind,
                    "points": m.points,
                    "action": f"{t} at {list(m.low_cell)}={t.low} {list(m.high_cell)}={t.high}",
                    "continues": m.continues,
                }
            )
            if m.points:
                out += self._score(p, m.points, f"{m.kind} play {t}")
            if self.winner is not None:
                break
            if not m.continues:
                self.player = 1 - p
        return out

    def check_tap(self, kind, player):
        if kind == "player" and player not in (0, 1):
            raise ValueError(f"Tableaux seats are 0 and 1, got {player!r}")

    def on_tap(self, kind, player):
        if kind == "player":
            self.player = player
            if not self.tiles:
                self.hand_starter = player
            return [{"type": "turn", "player": player}]
        if kind == "done":
            self.player = 1 - self.player
            return [{"type": "turn", "player": self.player}]
        p = self.player
        out = [{"type": "play", "player": p, "action": "pass", "tile": None, "points": -3}]
        out += self._score(p, -3, "pass")
        self.player = 1 - p
        return out

    def summary(self):
        return {
            "scores": list(self.scores),
            "player": self.player,
            "hand": self.hand_number,
            "over": self.over,
            "winner": self.winner,
        }


# --- the draw game ---------------------------------------------------------------------------

#: A loose face-up tile closer than this many tile lengths to a tile of the line is taken as a
#: play (flagged when it matches nothing); farther away it is a hand shown at the end.
NEAR_LINE = 1.6


class _Draw100Follow(_GameFollow):
    """The double-six draw game (RULES.md section 4): plays on open ends, the end of a hand
    (the remaining tiles shown apart from the line), the hand's points."""

    @classmethod
    def create(cls, g, players, max_pip, first_player, variant):
        return cls(players, first_player)

    def read(self, stable, game):
        return _read_line(stable, game)

    def __init__(self, players: int, first_player: int):
        from engine.draw100.line import LineOfPlay

        if not isinstance(players, int) or not 2 <= players <= 4:
            raise ValueError(f"the draw game is for 2 to 4 players, got {players!r}")
        if not 0 <= first_player < players:
            raise ValueError(f"first player must be a seat 0..{players - 1}, got {first_player!r}")
        self.n = players
        self.target = 100
        self._Line = LineOfPlay
        self.line = LineOfPlay()
        self.node: dict[Tile, int] = {}
        self.scores = [0] * players
        self.player = first_player
        self.last_player: int | None = None
        self.phase = "play"
        self.groups: list[list[Tile]] = []
        self.group: set[Tile] = set()
        self.flagged: set[Tile] = set()
        self.hand_number = 0
        self.winner: int | None = None

    @property
    def over(self) -> bool:
        return self.winner is not None

    def sync_scores(self, totals, winner):
        _check_sync(self.n, totals, winner)
        self.scores = list(totals)
        self.winner = winner

    def _reset(self):
        self.line = self._Line()
        self.node = {}
        self.phase = "play"
        self.groups = []
        self.group = set()
        self.flagged = set()

    def on_stable(self, reading, stable, frame):
        if reading is None or not any(not d.face_down for d in stable):
            return self._cleared()
        lay = reading.layout
        unsure = [p for p in reading.problems if p.kind in UNSURE_KINDS and p.source == "table"]
        if unsure:
            return []
        by_index = {d_i: d for d_i, d in enumerate(stable)}
        line_tiles = {Tile.parse(it["tile"]): it["tile_index"] for it in lay["line"]}
        loose = [
            (Tile.parse(it["tile"]), it["tile_index"]) for it in lay.get("loose", []) if it["tile"]
        ]
        length = float(np.median([d.size[0] for d in stable]))
        centres = {t: by_index[i].centre for t, i in line_tiles.items()}
        near, far = [], []
        for t, i in loose:
            c = by_index[i].centre
            dist = min((float(np.hypot(*(c - x))) for u, x in centres.items()), default=1e9)
            (near if dist < NEAR_LINE * length and self.phase == "play" else far).append((t, i))
        out: list[dict] = []
        # a line that does not contain ours: a new hand begun without an empty table between
        values = {
            Tile(*(int(v) for v in d.pips))
            for d in stable
            if not d.face_down and d.pips is not None
        }
        if self.node and not any(t in values for t in self.node) and len(line_tiles) == 1:
            out += self._cleared()
        gone = [t for t in self.node if t not in line_tiles]
        if gone and self.phase == "play":  # a tile of the line hidden or misread: wait
            return out + [
                {
                    "type": "question",
                    "message": f"{', '.join(map(str, gone))} no longer seen in the line",
                }
            ]
        if self.phase == "play" and not far:
            out += self._line_plays(lay, line_tiles, by_index, frame)
            for t, i in near:
                if t in self.flagged or t in self.node:
                    continue
                self.flagged.add(t)
                out.append(
                    {
                        "type": "flag",
                        "tile": str(t),
                        "message": self._why_not(
                            t, by_index[i].centre, lay, by_index, seen_det=by_index[i]
                        ),
                    }
                )
            return out
        # the end of the hand: the players show their remaining tiles apart from the line
        if self.phase == "play":
            self.phase = "reveal"
            out.append(
                {"type": "hand_end", "hand": self.hand_number, "last_player": self.last_player}
            )
        shown = {t for t, _ in loose if t not in self.node}
        if shown:
            self.group |= shown
        elif self.group:
            out += self._close_group()
        return out

    def _line_plays(self, lay, line_tiles, by_index, frame):
        out: list[dict] = []
        if not line_tiles:
            return out
        if not self.node:
            if len(line_tiles) == 1:
                t = next(iter(line_tiles))
                if not t.is_double:
                    if t not in self.flagged:
                        self.flagged.add(t)
                        out.append(
                            {
                                "type": "flag",
                                "tile": str(t),
                                "message": f"{t} cannot lead: the "
                                "highest double leads (RULES.md section 4)",
                            }
                        )
                    return out
                self.hand_number += 1
                self.node[t] = self.line.place_first(t)
                out.append(self._play(t, f"lead {t}"))
                return out
            # joined mid-hand: take the line as seen
            from engine.draw100.line import LineOfPlay

            try:
                self.line = LineOfPlay.from_json(
                    [{k: it[k] for k in ("tile", "parent", "direction")} for it in lay["line"]]
                )
            except ValueError as e:
                return [
                    {"type": "question", "message": f"the line seen is not a line of play: {e}"}
                ]
            self.hand_number += 1
            self.node = {n.tile: n.id for n in self.line.nodes}
            return [
                {
                    "type": "note",
                    "message": f"joined a hand in progress: {len(self.node)} tiles in the line",
                }
            ]
        gone = [t for t in self.node if t not in line_tiles]
        if gone:
            return [
                {
                    "type": "question",
                    "message": f"{', '.join(map(str, gone))} no longer seen in the line",
                }
            ]
        index_tile = {i: t for t, i in line_tiles.items()}
        partners: dict[Tile, list[Tile]] = {}
        for i, j in lay.get("joins", []):
            a, b = index_tile.get(i), index_tile.get(j)
            if a is None or b is None:
                continue
            partners.setdefault(a, []).append(b)
            partners.setdefault(b, []).append(a)
        new = [t for t in line_tiles if t not in self.node]
        placed = []
        progress = True
        while new and progress:
            progress = False
            for t in list(new):
                for host in partners.get(t, []):
                    if host not in self.node:
                        continue
                    ends = [
                        e
                        for e in self.line.open_ends()
                        if e.node_id == self.node[host] and t.has(e.number)
                    ]
                    if not ends:
                        continue
                    e = ends[0]
                    self.node[t] = self.line.attach(t, e.id)
                    placed.append((t, f"play {t} on the {e.number} of {host}"))
                    new.remove(t)
                    progress = True
                    break
        out += _order_note("tiles", [str(t) for t, _ in placed])
        for t, text in placed:
            out += self.flush(t)
            out.append(self._play(t, text))
        for t in new:
            if t not in self.flagged:
                self.flagged.add(t)
                out.append(
                    {
                        "type": "question",
                        "message": f"{t} joins the line where no open end takes it",
                    }
                )
        return out

    def _play(self, t: Tile, text: str) -> dict:
        p = self.player
        self.last_player = p
        self.player = (p + 1) % self.n
        return {"type": "play", "player": p, "tile": str(t), "action": text, "points": 0}

    def _why_not(
        self,
        t: Tile,
        centre,
        lay,
        by_index,
        exclude: int | None = None,
        seen_det: TileDetection | None = None,
    ) -> str:
        """The number of the open end of the followed line nearest to ``centre`` (pixels)."""
        index_of = {it["tile"]: it["tile_index"] for it in lay["line"]}
        ends = []
        for e in self.line.open_ends():
            i = index_of.get(str(self.line.node(e.node_id).tile))
            if i is not None and i != exclude:
                ends.append((float(np.hypot(*(by_index[i].centre - centre))), e.number, i))
        if not ends:
            return f"{t} touches no open end of the line"
        _, number, at = min(ends, key=lambda x: x[0])
        text = str(t)
        det = by_index.get(at) if isinstance(at, int) else None
        if det is not None and seen_det is not None and seen_det.pips is not None:
            # name the tile with the half that touches first, as the players see it
            near = int(np.argmin([float(np.hypot(*(h - det.centre))) for h in seen_det.halves]))
            text = f"{seen_det.pips[near]}-{seen_det.pips[1 - near]}"
        return f"{text} does not match the {number} it touches"

    def _close_group(self) -> list[dict]:
        seat = (
            (self.last_player if self.last_player is not None else -1) + 1 + len(self.groups)
        ) % self.n
        group = sorted(self.group)
        self.groups.append(group)
        self.group = set()
        out = [
            {
                "type": "hand_shown",
                "player": seat,
                "tiles": [str(t) for t in group],
                "pips": sum(t.pips for t in group),
            }
        ]
        if len(self.groups) == self.n:
            out += self._score_hand("blocked")
        elif len(self.groups) == self.n - 1 and self._surely_domino():
            out += self._score_hand("domino")
        return out

    def _surely_domino(self) -> bool:
        """After the other players showed their tiles: the last player cannot hold tiles when
        the line and the shown tiles are the whole set, or when a tile still unseen would fit an
        open end (a blocked hand leaves the boneyard empty and no tile playable)."""
        seen = set(self.node) | {t for g in self.groups for t in g}
        unseen = [Tile(a, b) for a in range(7) for b in range(a, 7) if Tile(a, b) not in seen]
        opens = set(self.line.open_numbers())
        return not unseen or any(t.low in opens or t.high in opens for t in unseen)

    def _score_hand(self, kind: str) -> list[dict]:
        n = self.n
        seat_of = [
            ((self.last_player if self.last_player is not None else -1) + 1 + k) % n
            for k in range(len(self.groups))
        ]
        pips = [0] * n
        for s, g in zip(seat_of, self.groups):
            pips[s] = sum(t.pips for t in g)
        if kind == "domino":
            winner, points = self.last_player, sum(pips)
        else:
            low = min(pips)
            lows = [p for p in range(n) if pips[p] == low]
            winner, points = (None, 0) if len(lows) > 1 else (lows[0], sum(pips) - 2 * low)
        out = [
            {
                "type": "hand_scored",
                "kind": kind,
                "winner": winner,
                "points": points,
                "hand_pips": pips,
            }
        ]
        if winner is not None:
            self.scores[winner] += points
            out.append(
                {
                    "type": "score",
                    "source": "camera",
                    "player": winner,
                    "points": points,
                    "reason": f"hand {self.hand_number} ({kind})",
                }
            )
            if self.scores[winner] >= self.target:
                self.winner = winner
                out.append({"type": "result", "winner": winner, "scores": list(self.scores)})
        self.phase = "scored"
        return out

    def _cleared(self) -> list[dict]:
        out: list[dict] = self.flush()  # taps made before the table was cleared
        if self.phase == "reveal":
            if self.group:
                out += self._close_group()
            if self.phase == "reveal":
                if len(self.groups) == self.n - 1:
                    out += self._score_hand("domino")
                else:
                    out.append(
                        {
                            "type": "question",
                            "message": f"the table was cleared after "
                            f"{len(self.groups)} hand(s) shown; {self.n - 1} or {self.n} were expected",
                        }
                    )
        elif self.phase == "play" and self.node:
            out.append(
                {"type": "question", "message": "the line was cleared before the hands were shown"}
            )
        self._reset()
        return out

    def check_tap(self, kind, player):
        if kind == "player" and not (isinstance(player, int) and 0 <= player < self.n):
            raise ValueError(f"seats are 0..{self.n - 1}, got {player!r}")
        if kind == "done":
            raise ValueError("the draw game has no 'done' tap: a turn is one play")

    def on_tap(self, kind, player):
        if kind == "player":
            self.player = player
            return [{"type": "turn", "player": player}]
        if kind == "pass":
            p = self.player
            self.player = (p + 1) % self.n
            return [{"type": "play", "player": p, "action": "pass", "tile": None, "points": 0}]
        return super().on_tap(kind, player)

    def summary(self):
        return {
            "scores": list(self.scores),
            "player": self.player,
            "hand": self.hand_number,
            "over": self.over,
            "winner": self.winner,
        }


# --- solitaires ------------------------------------------------------------------------------


class _SolitaireFollow(_GameFollow):
    """Shared bookkeeping: removed tiles, progress and the result."""

    total = 0

    def __init__(self):
        self.state = None
        self.won: bool | None = None

    @property
    def over(self) -> bool:
        return self.won is not None

    def _progress(self) -> list[dict]:
        st = self.state
        out = [
            {"type": "progress", "removed": len(st.removed), "left": self.total - len(st.removed)}
        ]
        if st.is_terminal():
            self.won = bool(st.returns()[0] == 1.0)
            out.append(
                {
                    "type": "result",
                    "won": self.won,
                    "removed": len(st.removed),
                    "left": self.total - len(st.removed),
                }
            )
        return out

    def summary(self):
        st = self.state
        return {
            "removed": None if st is None else len(st.removed),
            "over": self.over,
            "won": self.won,
        }


class _GoodNeighborsFollow(_SolitaireFollow):
    """Good Neighbors (RULES.md section 1): pairs removed, the grid closed up and refilled."""

    @classmethod
    def create(cls, g, players, max_pip, first_player, variant):
        return cls(max_pip)

    def read_params(self):
        # the set as given (None: read from the table), not the one learnt from the first view
        return {"max_pip": self._given_max_pip}

    def __init__(self, max_pip: int | None):
        super().__init__()
        self.max_pip = max_pip
        self._given_max_pip = max_pip

    def on_stable(self, reading, stable, frame):

        if reading is None:  # an empty table: every tile removed
            if self.state is None:
                return []
            lay = {"grid": [], "max_pip": self.max_pip}
        elif _unsure(reading) or not reading.layout.get("grid"):
            values = {
                Tile(*(int(v) for v in d.pips))
                for d in stable
                if not d.face_down and d.pips is not None
            }
            if self.state is None or self.state.stock or not values <= set(self.state.grid):
                return []
            # with the stock out, a few tiles left may not show the grid's shape; nothing new can
            # come, so the tiles still there keep their reading order
            lay = {"grid": [[t for t in self.state.grid if t in values]], "max_pip": self.max_pip}
        else:
            lay = reading.layout
        grid = [_tile(x) for row in lay["grid"] for x in row if x is not None]
        if self.state is None:  # the start of a game: a full grid, every other tile in the stock
            if reading.state is None or len(grid) != reading.state.game.cells:
                return []
            self.state = reading.state.game.state_from_position(_rows(grid, reading.state.game))
            self.total = len(self.state.game.domino_set)
            self.max_pip = self.state.game.max_pip
            return [{"type": "note", "message": f"following double-{self.max_pip} Good Neighbors"}]
        st = self.state
        if lay.get("max_pip") != self.max_pip:
            return []
        old = list(st.grid)
        if grid == old:
            return []
        gone = set(old) - set(grid)
        kept = [t for t in old if t not in gone]
        fresh = grid[len(kept) :]
        guessed = getattr(self, "guessed", set())
        back = [t for t in grid if t in set(st.removed) and t not in guessed]
        if back:
            return [
                {
                    "type": "question",
                    "message": f"{', '.join(map(str, back))} had been removed; it cannot come back",
                }
            ]
        for t in fresh:  # a tile taken for removed unseen shows up: another one was
            if t in guessed and t in st.removed:
                guessed.discard(t)
                st.removed.remove(t)
                swap = next((u for u in st.stock if u not in set(grid)), None)
                st.stock.append(t)
                if swap is not None:
                    st.stock.remove(swap)
                    st.removed.append(swap)
                    guessed.add(swap)
                st._legal = None
        if grid[: len(kept)] != kept or any(t not in st.stock for t in fresh):
            return [
                {
                    "type": "question",
                    "message": "the grid is not closed up in reading order: the "
                    "tiles left keep their order, the new ones come after them",
                }
            ]
        # the stock order the table shows: the fresh tiles first (nothing unseen was removed)
        guess = st.clone()
        guess.stock = list(fresh) + [t for t in st.stock if t not in set(fresh)]
        guess._legal = None
        path = _search(guess, lambda c: list(c.grid) == grid, lambda a: a.tiles <= gone, MAX_DEPTH)
        if path is None:
            if len(gone) <= 2 or not _pairs_off(sorted(gone)) and len(gone) % 2 == 0:
                return [
                    {
                        "type": "flag",
                        "tile": " ".join(map(str, sorted(gone))),
                        "message": f"{', '.join(map(str, sorted(gone)))} are not good-neighbour pairs "
                        "(touching tiles that share a number, RULES.md section 1)",
                    }
                ]
            if len(grid) < st.game.cells:
                # empty cells that no run of turns explains: tiles hidden, not gone; wait
                return [
                    {
                        "type": "question",
                        "message": "tiles missing from the grid that no turn "
                        "explains; the grid is filled after every turn while the stock lasts",
                    }
                ]
            self._resync(st, grid, gone, fresh)
            return [
                {
                    "type": "question",
                    "message": "the grid changed by more than the turns the camera "
                    "saw; taken as seen (check it)",
                }
            ] + self._progress()
        out = [] if len(path) == 1 else [{"type": "note", "message": f"{len(path)} turns at once"}]
        for a in path:
            guess.apply_action(a)
            out.append({"type": "play", "player": 0, "action": str(a), "tile": None, "points": 0})
        self.state = guess
        return out + self._progress()

    def _resync(self, st, grid, gone, fresh) -> None:
        from engine.good_neighbors import GoodNeighborsGame

        stock = [t for t in st.stock if t not in set(fresh)]
        removed = list(st.removed) + [t for t in st.grid if t in gone]
        # tiles drawn and removed between two steady views are never seen: tiles go in pairs,
        # so an odd count means at least one such tile (which one is not known)
        if len(removed) % 2 and stock:
            t = stock.pop()
            removed.append(t)
            self.guessed = getattr(self, "guessed", set()) | {t}
        new = GoodNeighborsGame(max_pip=self.max_pip).state_from_position(
            _rows(grid, st.game), stock=stock
        )
        new.removed = removed
        self.state = new


#: Longest run of turns looked for between two stable states (solitaires).
MAX_DEPTH = 3


def _search(state, done, allowed, depth: int, limit: int = 5000):
    """The shortest run of legal actions (at most ``depth``, each passing ``allowed``) after
    which ``done(state)`` holds, or None."""
    frontier = [(state, [])]
    for _ in range(depth):
        nxt = []
        for s, path in frontier:
            for a in s.legal_actions():
                if not allowed(a):
                    continue
                c = s.clone()
                c.apply_action(a)
                if done(c):
                    return path + [a]
                nxt.append((c, path + [a]))
                if len(nxt) >= limit:
                    break
        frontier = nxt
    return None


def _pairs_off(tiles: list[Tile]) -> bool:
    """True when ``tiles`` split into pairs that share a number (at most 16 tiles are checked;
    more are taken as splitting)."""
    if len(tiles) % 2:
        return False
    if len(tiles) > 16:
        return True

    def rec(rest: tuple) -> bool:
        if not rest:
            return True
        a = rest[0]
        return any(
            a.shares_number(b) and rec(rest[1:k] + rest[k + 1 :]) for k, b in enumerate(rest[1:], 1)
        )

    return rec(tuple(tiles))


def _rows(grid: list[Tile], game) -> list[list[Tile | None]]:
    cells = list(grid) + [None] * (game.cells - len(grid))
    return [cells[i * game.cols : (i + 1) * game.cols] for i in range(game.rows)]


def _luzon_key(columns, reserve) -> tuple:
    return (tuple(sorted(tuple(c) for c in columns if c)), tuple(sorted(reserve)))


class _LuzonFollow(_SolitaireFollow):
    """Luzon (RULES.md section 3): pairs of 12 removed, tiles moved to a new column."""

    total = 28
    #: Longest run of actions looked for between two stable states.
    MAX_DEPTH = 3

    @classmethod
    def create(cls, g, players, max_pip, first_player, variant):
        return cls(variant)

    def read_params(self):
        return {"max_pip": None, **({"variant": self.variant} if self.variant else {})}

    def __init__(self, variant: str | None):
        super().__init__()
        self.variant = variant

    def on_stable(self, reading, stable, frame):
        if reading is None:  # an empty table: every tile removed
            if self.state is None:
                return []
            lay = {"columns": [], "reserve": []}
        elif _unsure(reading):
            return []
        else:
            lay = reading.layout
        cols = [[_tile(x["tile"]) for x in col] for col in lay.get("columns", [])]
        res = [_tile(x["tile"]) for x in lay.get("reserve", [])]
        if self.state is None:
            if reading.state is None:
                return []
            self.state = reading.state
            return [{"type": "note", "message": "following Luzon"}]
        want = _luzon_key(cols, res)
        st = self.state
        if _luzon_key(st.columns, st.reserve) == want:
            return []
        gone = (set(t for c in st.columns for t in c) | set(st.reserve)) - (
            set(t for c in cols for t in c) | set(res)
        )
        path = _search(
            st,
            lambda c: _luzon_key(c.columns, c.reserve) == want,
            lambda a: not hasattr(a, "a") or {a.a, a.b} <= gone,
            MAX_DEPTH,
        )
        if path is None:
            from engine.luzon import tiles_pair

            if len(gone) == 2:
                a, b = sorted(gone)
                if not tiles_pair(a, b, self.variant):
                    return [
                        {
                            "type": "flag",
                            "tile": f"{a} {b}",
                            "message": f"{a} and {b} do not "
                            f"total 12 pips" + (" end to end" if self.variant else ""),
                        }
                    ]
            if reading is None or reading.state is None:
                return [
                    {
                        "type": "question",
                        "message": "the columns changed in a way no legal play explains",
                    }
                ]
            # Luzon has no stock: every tile not on the table was removed
            self.state = reading.state
            return [
                {
                    "type": "question",
                    "message": "the columns changed by more than the plays the "
                    "camera saw; taken as seen (check it)",
                }
            ] + self._progress()
        out: list[dict] = _order_note("plays", [str(a) for a in path], sep="; ")
        for a in path:
            st.apply_action(a)
            out.append({"type": "play", "player": 0, "action": str(a), "tile": None, "points": 0})
        return out + self._progress()


class _BigClockFollow(_SolitaireFollow):
    """The Big Clock (RULES.md section 2): the drawn tile appears on a pile (a placement), a
    double's rescue moves top tiles between piles. The tile that appears is the drawn one; the
    stock and the drawn tile are not on the table, so the follower's stock holds every unseen
    tile and a set-aside (the drawn tile fits nowhere) or giving up comes as a tap (``"pass"``,
    ``"done"``)."""

    @classmethod
    def create(cls, g, players, max_pip, first_player, variant):
        return cls(max_pip)

    def read_params(self):
        return {"max_pip": self.max_pip}

    def __init__(self, max_pip: int | None):
        super().__init__()
        self.max_pip = max_pip
        #: tiles taken as set aside without being seen (any stock tile that fit nowhere)
        self.guessed: set[Tile] = set()
        self._flagged: tuple | None = None

    @staticmethod
    def _tops(st) -> dict[int, Tile | None]:
        return {k: st.top(k) for k in st.game.slots}

    def _take(self, st, t: Tile) -> bool:
        """Make ``t`` the drawn tile of ``st`` (the stand-in goes back to the stock); False when
        ``t`` cannot be the drawn tile (on the clock already, or the game is over)."""
        ds = st.game.domino_set
        i = ds.index(t)
        if st._drawn < 0:
            return False
        if st._drawn == i:
            return True
        if i in st._set_aside and t in self.guessed:  # taken for set aside unseen: another was
            swap = next((j for j in st._stock if not ds.tiles[j].is_double), None)
            if swap is None:
                return False
            st._set_aside[st._set_aside.index(i)] = swap
            st._stock[st._stock.index(swap)] = i
            self.guessed = (self.guessed - {t}) | {ds.tiles[swap]}
        if i not in st._stock:
            return False
        st._stock[st._stock.index(i)] = st._drawn
        st._drawn = i
        st._legal = None
        return True

    def _stand_in(self, st) -> None:
        """The drawn tile is unseen until placed: when the engine's stand-in would end the game
        (a double with nowhere to go), take another stock tile for it; only the last tile, or a
        ``"done"`` tap, ends the game."""
        if st.drawn is None or not st.is_terminal() or st.is_won():
            return
        for t in sorted(st.stock, key=lambda t: t.is_double):
            trial = st.clone()
            if self._take(trial, t) and not trial.is_terminal():
                self._take(st, t)
                return

    @staticmethod
    def _why_not(st, t: Tile, k: int) -> str:
        top = st.top(k)
        blanks = st.blank_slots()
        if top is None:
            return f"{t} cannot fill blank slot {k}: only {Tile(k, k)} goes there"
        if blanks and not t.is_double:
            return f"{t} must fill a blank slot first ({', '.join(map(str, blanks))})"
        if top.is_double:
            return f"{t} cannot cover the double {top} on slot {k}"
        if not t.shares_number(top):
            return f"{t} does not match {top} on slot {k}"
        return f"{t} cannot go on slot {k} now"

    def on_stable(self, reading, stable, frame):
        if reading is None or _unsure(reading) or not reading.layout.get("slots"):
            return []
        n = reading.layout.get("max_pip")
        tops = {
            int(k): None if v.get("blank") or v.get("tile") is None else _tile(v["tile"])
            for k, v in reading.layout["slots"].items()
        }
        if self.state is None:  # the deal: a tile on every slot
            if reading.state is None or None in tops.values():
                return []
            self.state = reading.state.game.state_from_position(tops, seed=0)
            self.max_pip = n
            self.total = self._left(self.state)
            return [{"type": "note", "message": f"following double-{n} The Big Clock"}]
        st = self.state
        if n != self.max_pip or tops == self._tops(st):
            return []
        on_clock = {t for p in st.piles.values() for t in p}
        new = [(k, t) for k, t in sorted(tops.items()) if t is not None and t not in on_clock]
        if len(new) > 1:
            return [
                {
                    "type": "question",
                    "message": "several new tiles at once ("
                    + ", ".join(str(t) for _, t in new)
                    + "): one tile is drawn and placed at a time",
                }
            ]
        trial = st.clone()
        if new and not self._take(trial, new[0][1]):
            return [{"type": "question", "message": f"{new[0][1]} cannot be the drawn tile"}]
        slot = new[0][0] if new else None
        # a slot that reads blank: one move emptied it, or its top is hidden for a moment while
        # a tile is put on it (a hand, the vote between the two); longer runs are not taken
        hidden = any(t is None and st.top(k) for k, t in tops.items())
        trials = [trial]
        if not new:  # moves only: a rescue of the drawn double, which is not seen before placed
            for d in [t for t in st.stock if t.is_double]:
                c = st.clone()
                if self._take(c, d):
                    trials.append(c)
        path = None
        for c in trials:
            path = _search(
                c,
                lambda c: self._tops(c) == tops,
                lambda a: isinstance(a, Move) or (isinstance(a, Place) and a.slot == slot),
                1 if hidden else MAX_DEPTH,
            )
            if path is not None:
                trial = c
                break
        if path is None:
            if hidden:
                return []  # wait for the next stable state
            key = tuple(sorted(tops.items()))
            if new and Place(new[0][0]) not in trial.legal_actions():
                if key == self._flagged:
                    return []
                self._flagged = key
                k, t = new[0]
                return [{"type": "flag", "tile": str(t), "message": self._why_not(trial, t, k)}]
            return [
                {"type": "question", "message": "the piles changed in a way no legal play explains"}
            ]
        self._flagged = None
        out: list[dict] = _order_note("plays", [trial.action_to_string(a) for a in path], "; ")
        for a in path:
            tile = str(trial.drawn) if isinstance(a, Place) else str(trial.top(a.src))
            out.append(
                {
                    "type": "play",
                    "player": 0,
                    "action": trial.action_to_string(a),
                    "tile": tile,
                    "points": 0,
                }
            )
            trial.apply_action(a)
        self._stand_in(trial)
        self.state = trial
        return out + self._progress()

    def _apply_unseen(self, want, what: str) -> list[dict]:
        """A tap's action (set aside, give up) on a drawn tile the camera never sees: the first
        unseen tile for which the engine allows it is taken as the drawn one."""
        st = self.state
        if st is None or st.is_terminal():
            return [{"type": "question", "message": f"no game to {what} in"}]
        for t in [st.drawn] + st.stock:
            trial = st.clone()
            if t is None or not self._take(trial, t):
                continue
            # a drawn double with no place and no move ends the game by itself
            stuck = want is GIVE_UP and trial.is_terminal() and not trial.is_won()
            if stuck or want in trial.legal_actions():
                if not stuck:
                    trial.apply_action(want)
                if want is SET_ASIDE:
                    self._stand_in(trial)
                self.state = trial
                if want is SET_ASIDE:
                    self.guessed.add(t)
                return [{"type": "note", "message": f"the drawn tile: {what}"}] + self._progress()
        return [
            {
                "type": "flag",
                "tile": None,
                "message": f"cannot {what}: every tile not on the table fits a pile"
                if want is SET_ASIDE
                else f"cannot {what}: no drawn double could be in trouble",
            }
        ]

    def on_tap(self, kind, player):
        if kind == "pass":
            return self._apply_unseen(SET_ASIDE, "set it aside")
        if kind == "done":
            return self._apply_unseen(GIVE_UP, "give up")
        return super().on_tap(kind, player)

    @staticmethod
    def _left(st) -> int:
        return len(st.stock) + (st.drawn is not None)

    def _progress(self) -> list[dict]:
        st = self.state
        # removed: tiles drawn from the stock and played (placed or set aside); left: the stock
        # and the drawn tile
        counts = {
            "home": len(st.home_slots()),
            "removed": self.total - self._left(st),
            "left": self._left(st),
        }
        out = [{"type": "progress", **counts}]
        if st.is_terminal():
            self.won = st.is_won()
            out.append({"type": "result", "won": self.won, **counts})
        return out

    def summary(self):
        st = self.state
        return {
            "home": None if st is None else len(st.home_slots()),
            "removed": None if st is None else self.total - self._left(st),
            "over": self.over,
            "won": self.won,
        }


#: The rules :class:`Follower` follows a game with, by the shape of its layout.
_FOLLOWS: dict[Shape, type[_GameFollow]] = {
    Shape.LINE: _Draw100Follow,
    Shape.TABLEAU: _TableauxFollow,
    Shape.GRID: _GoodNeighborsFollow,
    Shape.COLUMNS: _LuzonFollow,
    Shape.RING: _BigClockFollow,
}

#: Games :class:`Follower` can follow (catalog names), in the catalog's order.
FOLLOW_GAMES = tuple(g.name for g in GAMES.values() if g.shape in _FOLLOWS)

__all__ = ["Follower", "FOLLOW_GAMES"]
