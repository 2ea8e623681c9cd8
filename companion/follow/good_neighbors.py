"""Good Neighbors' rules of change (RULES.md section 1) for :class:`companion.follow.Follower`."""

from __future__ import annotations

from companion.follow.base import MAX_DEPTH, _search, _tile, _unsure
from companion.follow.solitaire import _SolitaireFollow
from engine.tiles import Tile


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
        #: the stock followed is a guess: a resync took the grid as seen, and tiles drawn and
        #: removed between two steady views are never seen, so some of it may be gone
        self._stock_unsure = False
        #: before the last grid taken as seen, while no change has been followed since:
        #: ``(state, tiles taken as removed unseen, stock unsure)`` (that view may have been a
        #: misread one, which the next view shows)
        self._before_resync: tuple | None = None

    def on_stable(self, reading, stable, frame):

        if reading is None:  # an empty table: every tile removed
            if self.state is None:
                return []
            lay = {"grid": [], "max_pip": self.max_pip}
        elif (filled := self._hidden_filled(reading)) is not None:
            lay = filled
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
        if (undo := self._undo_resync(st, grid)) is not None:
            return undo
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
        found = self._explained(st, grid)
        if found is None and len(grid) < st.game.cells:
            if (out := self._stock_out(st, reading, grid)) is not None:
                return out
        if found is None:
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
        path, guess = found
        self._before_resync = None  # a turn from the grid taken: that grid stands
        out = [] if len(path) == 1 else [{"type": "note", "message": f"{len(path)} turns at once"}]
        for a in path:
            guess.apply_action(a)
            out.append({"type": "play", "player": 0, "action": str(a), "tile": None, "points": 0})
        self.state = guess
        return out + self._progress()

    def _hidden_filled(self, reading) -> dict | None:
        """The view with its one empty cell filled by the followed tile missed there, or None.

        A view whose only doubt is one empty cell inside the grid while the stock still fills
        every cell (the detector missed a tile for a few frames): the cell holds a tile of the
        followed grid that the view does not show, when exactly one such tile makes the view a
        legal run of turns from the followed position."""
        st = self.state
        if reading is None or st is None or not st.stock:
            return None
        kinds = {p.kind for p in reading.problems if p.source == "table"}
        rows = reading.layout.get("grid")
        if not rows or not kinds or not kinds <= {"gap", "mid_turn"}:
            return None
        cells = [x for row in rows for x in row]
        holes = [k for k, x in enumerate(cells) if x is None]
        if len(holes) != 1 or holes[0] >= len(cells) - 1:
            return None
        seen = {_tile(x) for x in cells if x is not None}
        fits = []
        for t in st.grid:
            if t in seen:
                continue
            trial = [t if x is None else _tile(x) for x in cells]
            if self._explained(st, trial) is not None:
                fits.append(trial)
        if len(fits) != 1:
            return None
        cols = st.game.cols
        return {
            "grid": [fits[0][i : i + cols] for i in range(0, len(fits[0]), cols)],
            "max_pip": reading.layout.get("max_pip"),
        }

    @staticmethod
    def _explained(st, grid: list[Tile]):
        """``(path, guess)``: the shortest run of turns from ``st`` to ``grid``, or None. The
        stock order the table shows: the fresh tiles first (nothing unseen was removed)."""
        old = list(st.grid)
        gone = set(old) - set(grid)
        kept = [t for t in old if t not in gone]
        fresh = grid[len(kept) :]
        if grid[: len(kept)] != kept or any(t not in st.stock for t in fresh):
            return None
        guess = st.clone()
        guess.stock = list(fresh) + [t for t in st.stock if t not in set(fresh)]
        guess._legal = None
        path = _search(guess, lambda c: list(c.grid) == grid, lambda a: a.tiles <= gone, MAX_DEPTH)
        return None if path is None else (path, guess)

    def _stock_out(self, st, reading, grid: list[Tile]) -> list[dict] | None:
        """A grid read whole (no problem on the table) but short of tiles, after the stock
        was taken as seen: the grid is refilled while the stock lasts (RULES.md section 1), so
        the stock is out once the tiles this view shows are drawn, and what else the follower
        still held in it was drawn and removed between views it never saw steady. The records
        of the turns after that, with a note; None when the view is not such a grid or no
        turns explain it."""
        if not self._stock_unsure or reading is None or not st.stock:
            return None
        if any(p.source == "table" for p in reading.problems):
            return None
        trial = st.clone()
        unseen = [t for t in trial.stock if t not in set(grid)]
        trial.removed = list(trial.removed) + unseen
        trial.stock = [t for t in trial.stock if t in set(grid)]
        trial._legal = None
        found = self._explained(trial, grid)
        if found is None:
            return None
        self.guessed = getattr(self, "guessed", set()) | set(unseen)
        self._stock_unsure = False
        return self._take_turns(
            *found,
            f"the stock is out: {len(unseen)} tiles were drawn and removed while the camera "
            "saw no steady grid",
        )

    def _undo_resync(self, st, grid: list[Tile]) -> list[dict] | None:
        """The view after a grid taken as seen, when no turn explains it from that grid but
        turns explain it from the state before: the grid taken was misread (tiles of two turns
        mixed in one steady view), so that state comes back and the turns are taken from it,
        with a note. None otherwise."""
        if self._before_resync is None or self._explained(st, grid) is not None:
            return None
        before, guessed, unsure = self._before_resync
        found = self._explained(before, grid)
        if found is None:
            return None
        self._before_resync = None
        self.guessed, self._stock_unsure = guessed, unsure
        return self._take_turns(
            *found,
            "the grid taken as seen in the last view was misread; followed on from the grid "
            "before it",
        )

    def _take_turns(self, path, guess, note: str) -> list[dict]:
        """Apply ``path`` (turns) to ``guess`` and follow on from it: the ``note``, the turns'
        ``play`` records and the progress."""
        out = [{"type": "note", "message": note}]
        for a in path:
            guess.apply_action(a)
            out.append({"type": "play", "player": 0, "action": str(a), "tile": None, "points": 0})
        self.state = guess
        return out + self._progress()

    def _resync(self, st, grid, gone, fresh) -> None:
        from engine.good_neighbors import GoodNeighborsGame

        self._before_resync = (st, set(getattr(self, "guessed", set())), self._stock_unsure)
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
        self._stock_unsure = True


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
