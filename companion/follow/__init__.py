"""Follow a game from the camera: stable table states -> plays -> score events.

One :class:`Follower` per table. Each camera frame's detections go in
(:meth:`Follower.feed`); the tracker (``vision.tracking``) says when the table holds a new
stable state; the layout reader (``vision.layout.read``) turns it into the game's layout; the
difference to the last accepted state becomes engine actions, checked by the rules. What comes
out is a list of plain records (JSON-ready dicts), in order:

- ``{"type": "stable", "frame", "tiles"}``: a new stable state (number of tiles seen);
- ``{"type": "play", "frame", "player", "action", "tile", "points"}``: a play accepted;
- ``{"type": "play_withdrawn", "frame", "action", "tile", "message"}``: a play taken earlier that
  a later view shows was not made (The Big Clock: a misread top taken as a placement);
- ``{"type": "flag", "frame", "tile", "message"}``: an illegal play, not accepted
  ("6-3 does not match the 5 it touches");
- ``{"type": "flag_withdrawn", "frame", "tile", "message"}``: a flag a later view explained
  (the draw game: the tile taken back, joining the line after all, or the hand over);
- ``{"type": "question", "frame", "message"}``: a change the rules cannot explain in any order
  (a tile gone, several tiles that fit no legal order); the players settle it. ``"ask":
  "player"``: who is to move is asked (a game joined in progress), answered by a ``player`` tap;
- ``{"type": "score", "source": "camera", "frame", "player", "points", "reason"}``: an
  ordinary score event (Tableaux: each play's points and the pass penalty; draw game: a hand's
  points);
- ``{"type": "hand_end", ...}``, ``{"type": "progress", ...}`` (solitaires: tiles removed and
  left), ``{"type": "result", "frame", "winner" and "scores", or "won", "removed" and "left"}`` (the
  game is over).

What the camera cannot see comes from the players as taps (:meth:`Follower.tap`): ``"pass"``
(the player to move passes), ``"done"`` (a Tableaux turn that could go on stops; the draw
game: the hand is over) and
``("player", p)`` (who is to move: the coin toss, who leads a draw-game hand). The table
conventions (how the draw game's remaining tiles are shown) are in docs/follow.md.

Games: every game of the catalog (:data:`FOLLOW_GAMES`). The Big Clock's drawn tile and stock
are not on the table: the tile that appears on a pile is the drawn one, and a set-aside or
giving up comes as a tap (``"pass"``, ``"done"``).

Modules: this one holds :class:`Follower` (tracking to records, shared by every game);
``base`` the per-game base class and shared checks; ``tableaux``, ``draw100``,
``good_neighbors``, ``luzon`` and ``big_clock`` each game's rules of change; ``solitaire`` the
solitaires' shared bookkeeping.
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.follow.base import UNSURE_KINDS, _GameFollow
from companion.follow.big_clock import _BigClockFollow
from companion.follow.draw100 import _Draw100Follow
from companion.follow.good_neighbors import _GoodNeighborsFollow
from companion.follow.luzon import _LuzonFollow
from companion.follow.tableaux import _TableauxFollow
from engine.catalog import GAMES, Shape
from vision.tracking import STEADY_FRAMES, Tracker
from vision.types import TileDetection


class Follower:
    """Follows one game at one table from camera frames and players' taps.

    Args:
        game: one of :data:`FOLLOW_GAMES`.
        players: draw game: 2-4 seats (Tableaux is always 2; solitaires 1).
        max_pip: the set (Tableaux 6 or 9; Good Neighbors 6, 9 or 12; None: the game's default,
            Good Neighbors read from the table).
        first_player: seat to move first (Tableaux: the coin toss; draw game: who leads);
            None (the default): seat 0 for a game seen from its start, and a game joined in
            progress (tiles already on the table at the first view) asks who is to move (a
            ``question`` with ``"ask": "player"``) and holds its plays until a ``player`` tap.
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
        first_player: int | None = None,
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
    def feed(self, detections: Sequence[TileDetection], still: bool = False) -> list[dict]:
        """One camera frame's detections in; the records it caused out (often none).

        Args:
            detections: the frame's tiles (``vision.pipeline.detect``).
            still: the frame is a photo the players took as one view of the table (photo mode:
                one photo after each play): it is a stable view at once, with no wait for
                steady frames.
        Raises:
            ValueError: an item that is not a ``TileDetection``.
        """
        up = self.tracker.update(detections, still=still)
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
        coming = self.tracker.coming - self._rules.followed()
        if (self.tracker.settled and not coming and not self._rules.holding) or self.frame < 0:
            out = self._rules.on_tap(kind, player)
        else:  # a change is on the table (or a new tile read in most of the last frames) but
            # not steady yet: the tap comes after it
            self._rules.pending.append(
                (kind, player, self.tracker.last_values, self.tracker.last_places)
            )
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
            "plays": sum(e["type"] == "play" for e in ev)
            - sum(e["type"] == "play_withdrawn" for e in ev),
            "flags": sum(e["type"] == "flag" for e in ev),
            "questions": sum(e["type"] == "question" for e in ev),
            **self._rules.summary(),
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

__all__ = ["Follower", "FOLLOW_GAMES", "UNSURE_KINDS"]
