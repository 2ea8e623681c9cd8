"""Shared parts of the follower's per-game rules: the base class, the checks every game
uses, the draw game's line reading, the solitaires' search over runs of actions."""

from __future__ import annotations

from typing import Any

from engine.catalog import GameType
from engine.tiles import Tile
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


def _read_line(stable: list[TileDetection], game: str):
    """The draw game's line as ``vision.layout.read`` reads it, without its repairs (trying
    other values for tiles that do not join): the tracker already outvotes passing misreads, the
    remaining tiles shown apart at the end of a hand would set off a search over the whole set at
    every steady view, and a tile that does not join is a play to flag, not to mend."""
    from vision.layout import ReadResult
    from vision.layout.common import to_seen
    from vision.layout.draw100 import joins, read_draw100

    problems: list = []
    seen = to_seen(stable, 6, problems, 0.5, face_down_ok=True)
    got = read_draw100(seen, problems)
    # every pair of tiles whose nearest ends touch with equal numbers, in the line read or not
    # (the follower joins a new tile to the line it follows, not to the one this view reads)
    up = [s for s in seen if not s.det.face_down and s.value is not None]
    got.layout["touch"] = [[up[i].index, up[j].index] for i, j in joins(up)] if up else []
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
        first_player: int | None,
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

    #: the last stable view was not taken (a doubtful reading: a tile of it may be a play not
    #: followed yet): taps wait for a view that is taken, as they wait for a change under way
    holding = False

    @property
    def pending(self) -> list:
        """Taps waiting for the change on the table to settle: ``(kind, player, values seen
        when tapped, {value: (2,) pixel centre where it was read then})``."""
        if not hasattr(self, "_pending"):
            self._pending = []
        return self._pending

    def flush(self, tile: Tile | None = None) -> list[dict]:
        """Apply the waiting taps: all of them (``tile`` None; none while :attr:`holding`), or,
        before a play of ``tile``, those tapped while ``tile`` was not yet on the table."""
        out: list[dict] = []
        if tile is None and self.holding:
            return out
        while self.pending and (tile is None or tile not in self.pending[0][2]):
            out += self.on_waited_tap(*self.pending.pop(0)[:3])
        return out

    def on_waited_tap(self, kind: str, player: int | None, values: set[Tile]) -> list[dict]:
        """:meth:`on_tap` for a tap that waited (``values``: the tiles read when it was made)."""
        return self.on_tap(kind, player)

    def followed(self) -> set[Tile]:
        """Tiles this game follows on the table now (a tap is not held for one of them read
        again after a hand or a misread hid it); the base class: none."""
        return set()

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
