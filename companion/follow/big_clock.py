"""The Big Clock's rules of change (RULES.md section 2) for :class:`companion.follow.Follower`."""

from __future__ import annotations

from companion.follow.base import MAX_DEPTH, _order_note, _search, _tile, _unsure
from companion.follow.solitaire import _SolitaireFollow
from engine.big_clock.rules import GIVE_UP, SET_ASIDE, Move, Place
from engine.tiles import Tile

#: changes kept for taking back a placement that a later view shows was a misread
HISTORY = 8


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
        #: the last changes taken from the camera since the last tap (at most
        #: :data:`HISTORY`): ``(state before, plays)``, each play ``(action text, tile,
        #: action)`` (a later view that only an earlier state explains takes some of them back)
        self._history: list[tuple] = []
        #: the last steady view was one no play explains (not counting views with a slot blank)
        self._unexplained = False

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
            if swap is None and not ds.tiles[st._drawn].is_double:
                # no other tile left in the stock: the unseen stand-in for the drawn tile was
                # the one set aside
                st._set_aside[st._set_aside.index(i)] = st._drawn
                self.guessed = (self.guessed - {t}) | {ds.tiles[st._drawn]}
                st._drawn = i
                st._legal = None
                return True
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
        run = self._explain(st, tops)
        if run is not None:
            self._history = (self._history + [(st, run[1])])[-HISTORY:]
            return self._accept(*run)
        # a slot that reads blank: one move emptied it, or its top is hidden for a moment while
        # a tile is put on it (a hand, the vote between the two): wait for the next view
        new, hidden = self._read_change(st, tops)
        if not hidden:
            # the first such view may be a tile in a hand, half way through a move
            if self._unexplained and (back := self._take_back(tops)):
                return back
            self._unexplained = True
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

    @staticmethod
    def _read_change(st, tops: dict[int, Tile | None]) -> tuple[list[tuple[int, Tile]], bool]:
        """What a view's tops (``{slot: tile or None for a blank}``) change from ``st``: the
        tiles read that are on no pile, ``[(slot, tile)]`` by slot, and whether a slot reads
        blank where ``st`` has a top (hidden for a moment, or emptied)."""
        on_clock = {t for p in st.piles.values() for t in p}
        new = [(k, t) for k, t in sorted(tops.items()) if t is not None and t not in on_clock]
        return new, any(t is None and st.top(k) for k, t in tops.items())

    def _explain(self, st, tops: dict[int, Tile | None]):
        """The plays that turn ``st`` into a clock whose tops are ``tops`` (``{slot: tile or
        None for a blank}``): ``(state after, [(action, tile)])``, or None when no run of at
        most :data:`MAX_DEPTH` legal actions does (one when a slot reads blank: its top may be
        hidden for a moment)."""
        new, hidden = self._read_change(st, tops)
        if len(new) > 1:
            # placements missed between two stable views (the view that showed one of them was
            # never steady: a hand, a misread held over it): each new tile drawn and placed in
            # turn, with moves between
            return None if hidden else self._placements(st, new, tops)
        trial = st.clone()
        if new and not self._take(trial, new[0][1]):
            return None
        slot = new[0][0] if new else None
        trials = [trial]
        if not new:  # moves only: a rescue of the drawn double, which is not seen before placed
            for d in [t for t in st.stock if t.is_double]:
                c = st.clone()
                if self._take(c, d):
                    trials.append(c)
        for c in trials:
            path = _search(
                c,
                lambda c: self._tops(c) == tops,
                lambda a: isinstance(a, Move) or (isinstance(a, Place) and a.slot == slot),
                1 if hidden else MAX_DEPTH,
            )
            if path is not None:
                plays = []
                for a in path:
                    tile = c.drawn if isinstance(a, Place) else c.top(a.src)
                    plays.append((c.action_to_string(a), tile, a))
                    c.apply_action(a)
                self._stand_in(c)
                return c, plays
        return None

    def _take_back(self, tops: dict[int, Tile | None]) -> list[dict]:
        """A view no play explains from the state followed (the second in a row), but one from
        a state before the last changes taken from the camera (none before a tap): the plays of
        those changes that this view does not show were misreads or taken back. Two kinds of
        earlier state are tried, latest first: the state before one of the last
        :data:`MAX_DEPTH` changes, and the state after the changes since one placement with
        that placement left out, when the view reads its tile as the top of another pile (the
        tile placed was another one misread; later tiles covered it). Their ``play_withdrawn``
        records, then the plays of the new explanation not followed yet; ``[]`` when no earlier
        state explains the view."""
        for i in range(len(self._history) - 1, -1, -1):
            before = self._history[i][0]
            if i >= len(self._history) - MAX_DEPTH and (run := self._explain(before, tops)):
                return self._retake(i, before, *run)
            for j, (_, t, a) in enumerate(self._history[i][1]):
                if not isinstance(a, Place) or t not in tops.values():
                    continue
                if next(k for k, v in tops.items() if v == t) == a.slot:
                    continue
                later = [p for _, ps in self._history[i:] for p in ps]
                del later[j]
                if (again := self._replay(before, later)) is None:
                    continue
                c, replayed = again
                run = (c, []) if self._tops(c) == tops else self._explain(c, tops)
                if run is not None:
                    return self._retake(i, before, run[0], replayed + run[1])
        return []

    def _replay(self, st, plays: list[tuple]):
        """``st`` after ``plays`` (``(action text, tile, action)``) played again in order, each
        placement's tile taken as the drawn one: ``(state after, plays with their texts in the
        new state)``, or None when one is not legal there."""
        c = st.clone()
        replayed: list[tuple] = []
        for _, t, a in plays:
            if isinstance(a, Place) and not self._take(c, t):
                return None
            if a not in c.legal_actions():
                return None
            tile = c.drawn if isinstance(a, Place) else c.top(a.src)
            replayed.append((c.action_to_string(a), tile, a))
            c.apply_action(a)
            self._stand_in(c)
        return c, replayed

    def _retake(self, i: int, before, st, plays: list[tuple]) -> list[dict]:
        """Replace the changes from history entry ``i`` on by one, ``plays`` from ``before`` to
        ``st``: ``play_withdrawn`` records for the plays no longer in it, then the new ones."""
        kept = [p for _, ps in self._history[i:] for p in ps]
        redo = []
        for p in plays:
            if p in kept:
                kept.remove(p)
            else:
                redo.append(p)
        out = [
            {
                "type": "play_withdrawn",
                "action": a,
                "tile": str(t),
                "message": f"{a}: a later view shows the clock without it",
            }
            for a, t, _ in kept
        ]
        self._history = self._history[:i] + [(before, plays)]
        return out + self._accept(st, redo)

    def _accept(self, st, plays: list[tuple]) -> list[dict]:
        """Take ``st`` as the state after ``plays`` (``(action text, tile, action)``): their
        records."""
        self._flagged = None
        self._unexplained = False
        out: list[dict] = _order_note("plays", [a for a, _, _ in plays], "; ")
        out += [
            {"type": "play", "player": 0, "action": a, "tile": str(t), "points": 0}
            for a, t, _ in plays
        ]
        self.state = st
        return out + self._progress()

    def _placements(self, st, new: list[tuple[int, Tile]], tops: dict[int, Tile | None]):
        """The shortest run of at most :data:`MAX_DEPTH` actions in which each of the ``new``
        tiles (``(slot read on, tile)``) is drawn and placed on its slot, in some order, with
        moves between, after which the tops are ``tops``: ``(state after, [(action, tile)])``,
        or None."""
        frontier = [(st, [], frozenset())]
        for _ in range(MAX_DEPTH):
            nxt = []
            for s, plays, placed in frontier:
                steps = [(s, a) for a in s.legal_actions() if isinstance(a, Move)]
                for k, t in new:
                    c = s.clone()
                    if t not in placed and self._take(c, t) and Place(k) in c.legal_actions():
                        steps.append((c, Place(k)))
                for s0, a in steps:
                    tile = s0.drawn if isinstance(a, Place) else s0.top(a.src)
                    c = s0.clone()
                    c.apply_action(a)
                    self._stand_in(c)
                    got = plays + [(s0.action_to_string(a), tile, a)]
                    done = placed | ({tile} if isinstance(a, Place) else set())
                    if len(done) == len(new) and self._tops(c) == tops:
                        return c, got
                    nxt.append((c, got, done))
            frontier = nxt
        return None

    def _apply_unseen(self, want, what: str) -> list[dict]:
        """A tap's action (set aside, give up) on a drawn tile the camera never sees: the first
        unseen tile for which the engine allows it is taken as the drawn one; for a set-aside,
        when every unseen tile fits a pile, a tile taken for set aside unseen before that fits
        none now (an unseen tile goes to the set-aside in its place)."""
        st = self.state
        if st is None:
            return [{"type": "question", "message": f"no game to {what} in"}]
        if st.is_terminal():  # ended by the last set-aside or a stuck double: nothing to do
            won = "won" if st.is_won() else "lost"
            return [{"type": "note", "message": f"the game is over already ({won})"}]
        # a tile set aside unseen before may be this one, another unseen tile that one
        # (the stock's tiles left may all fit a pile now): tried last, swapped by _take
        later = sorted(self.guessed) if want is SET_ASIDE else []
        for t in [st.drawn] + st.stock + later:
            trial = st.clone()
            guessed = set(self.guessed)
            if t is None or not self._take(trial, t):
                self.guessed = guessed
                continue
            # a drawn double with no place and no move ends the game by itself
            stuck = want is GIVE_UP and trial.is_terminal() and not trial.is_won()
            if not (stuck or want in trial.legal_actions()):
                self.guessed = guessed
                continue
            if not stuck:
                trial.apply_action(want)
            if want is SET_ASIDE:
                self._stand_in(trial)
            self.state = trial
            self._history = []
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
