"""The draw game's rules of change (RULES.md section 4) for :class:`companion.follow.Follower`."""

from __future__ import annotations

import numpy as np

from companion.follow.base import _check_sync, _GameFollow, _order_note, _read_line
from engine.tiles import Tile
from vision.types import TileDetection

# --- the draw game ---------------------------------------------------------------------------

#: A loose face-up tile closer than this many tile lengths to a tile of the line is taken as a
#: play (flagged when it matches nothing); farther away it is a hand shown at the end.
NEAR_LINE = 1.6
#: Tiles each player draws at a hand's start (RULES.md section 4). A hand ends when a player
#: lays their last tile (so at least this many are down) or blocked (every tile of an open
#: number down, more still): a followed line shorter than this is a hand still in play.
HAND_TILES = 5
#: The highest number of the set: the game is played with a double-six set (RULES.md section 4).
TOP_PIP = 6
#: Views in a row that read a new value where a followed tile lies, that tile not seen, after
#: which the new value is taken as the tile's (the first reading was the misread), when they
#: are more than the views that read the tile.
REREAD_VIEWS = 2
#: Share of the smaller box's area two boxes of a view cover together from which one lies on
#: the other (a box drawn across two tiles covers about half of each); boxes of tiles lying
#: side by side overlap by a fifth at most (box noise).
OVERLAP = 0.4


class _Draw100Follow(_GameFollow):
    """The double-six draw game (RULES.md section 4): plays on open ends, the end of a hand
    (the remaining tiles shown apart from the line), the hand's points."""

    @classmethod
    def create(cls, g, players, max_pip, first_player, variant):
        return cls(players, first_player)

    def read(self, stable, game):
        return _read_line(stable, game)

    def __init__(self, players: int, first_player: int | None):
        from engine.draw100.line import LineOfPlay

        if not isinstance(players, int) or not 2 <= players <= 4:
            raise ValueError(f"the draw game is for 2 to 4 players, got {players!r}")
        if first_player is not None and not (
            isinstance(first_player, int) and 0 <= first_player < players
        ):
            raise ValueError(f"first player must be a seat 0..{players - 1}, got {first_player!r}")
        self.n = players
        self.target = 100
        self._Line = LineOfPlay
        self.scores = [0] * players
        #: the seat to move; None: not known (seat 0 leads a hand seen from its start, and a
        #: hand joined in progress asks)
        self.player: int | None = first_player
        self.last_player: int | None = None
        self.hand_number = 0
        self.winner: int | None = None
        #: waiting for a ``player`` tap: joined a hand in progress without knowing who moves
        self.asking = False
        #: the last stable view ``(reading, stable, frame)``, taken again once the answer comes
        self.last_view: tuple | None = None
        self._reset()

    @property
    def over(self) -> bool:
        return self.winner is not None

    def sync_scores(self, totals, winner):
        _check_sync(self.n, totals, winner)
        self.scores = list(totals)
        self.winner = winner

    def _reset(self):
        self.line = self._Line()
        self.node: dict[Tile, int] = {}
        self.phase = "play"
        self.groups: list[list[Tile]] = []
        self.group: set[Tile] = set()
        #: flags standing: tile -> message (withdrawn when a later view explains the tile)
        self.flagged: dict[Tile, str] = {}
        #: followed tiles asked about as not seen in a view of this hand (once a hand: a tile
        #: under a hand comes and goes; it stays in the line meanwhile)
        self.asked_missing: set[Tile] = set()
        #: followed tiles not seen in the last view the line was matched in (a tile is asked
        #: about only when a second view in a row misses it: a hand passing over is no question)
        self.unseen_last: set[Tile] = set()
        #: ``(value read, followed tile it was read on)`` asked about as a misread this hand
        self.asked_misread: set[tuple[Tile, Tile | None]] = set()
        #: where each followed tile lies in the last view's pixels (centre ``(2,)``; a tile
        #: hidden then: where it was last seen, moved as the camera moved since)
        self.seen_at: dict[Tile, np.ndarray] = {}
        #: each followed tile's box corners ``(4, 2)`` as :attr:`seen_at` keeps its centre
        #: (tiles seen in a view that tracked the camera)
        self.box_at: dict[Tile, np.ndarray] = {}
        #: followed tiles seen in the last view more than a tile length away from where they
        #: were seen before: that place (this view's pixels)
        self.left_at: dict[Tile, np.ndarray] = {}
        #: ``(followed tile read on a tile shown, value taken or None)`` noted this hand
        #: (:meth:`_misread_shown`)
        self.noted_shown: set[tuple[Tile, Tile | None]] = set()
        #: views that read each followed tile
        self.seen_views: dict[Tile, int] = {}
        #: ``(followed tile, tile read where it lies)`` -> views in a row that read so
        self.reread_votes: dict[tuple[Tile, Tile], int] = {}
        #: each followed tile's play: ``(seat, action text)``
        self.played: dict[Tile, tuple[int, str]] = {}
        #: single tiles lying apart from the line: seen now, and groups of them taken back
        #: since the last play (each maybe a hand of one shown)
        self.apart_now: set[Tile] = set()
        self.apart_groups: list[list[Tile]] = []
        self.asked_apart: set[Tile] = set()
        #: tiles seen apart from the line or shown with their box at the picture's border
        #: (``TileDetection.at_edge``): their hand may hold a tile beyond the picture
        self.cut_shown: set[Tile] = set()
        #: the frame of the first view that read each new value still read or lying apart
        #: (:meth:`_note_first_seen`)
        self.first_seen: dict[Tile, int] = {}
        #: the last view showed an empty table while a line was followed (kept, not ended)
        self.emptied = False
        #: a view sharing no tile with a line too short to end was asked about (once a run)
        self.foreign_asked = False
        #: a box without a value lay apart from the line in a view of this hand
        self.back_apart = False
        #: ... and a play came after it: the table holds a boneyard (or a tile put aside), so
        #: no box without a value is taken as a tile shown in this hand (:meth:`_back_shown`)
        self.boneyard = False
        #: the question that such a box was taken as 0-0 was asked (:meth:`_blank_note`)
        self.blank_noted = False

    def on_stable(self, reading, stable, frame):
        self.last_view = (reading, stable, frame)
        # a value outside the double-six set (a 7 read on a half) is a misread: the box is
        # taken as unread, never as a tile of the game
        twins = _value_boxes(stable)
        dets = {t: ds[-1] for t, ds in twins.items()}
        twins = {t: ds for t, ds in twins.items() if len(ds) > 1}
        # boxes without a value (face down, unread, outside the set): on a table during a hand
        # a face-up tile does not turn face down, so such a box where a followed tile lies is
        # that tile (the blank double 0-0 without divider bars reads as a plain back)
        valued = {id(d) for d in dets.values()}
        backs = [d for d in stable if id(d) not in valued]
        foreign = (
            bool(self.node)
            and not any(t in dets for t in self.node)
            and not self._kept_at(backs, dets)
        )
        if (
            stable
            and foreign
            and self.phase == "play"
            and not self.emptied
            and 1 < len(self.node) < HAND_TILES
        ):
            # boxes on the table (face down or not) but no tile of a line too short for the hand
            # to be over, and no empty table seen between: the line hidden or misread as a whole
            # (a camera moved, a hand over it), not a new hand nor hands shown; the view waits
            # for one that reads the line
            if self.foreign_asked:
                return []
            self.foreign_asked = True
            return [
                {
                    "type": "question",
                    "message": f"no tile of the line ({len(self.node)} tiles) is seen: a hand "
                    f"cannot be over before a player has laid {HAND_TILES} tiles (RULES.md "
                    "section 4); the view is taken as misread",
                }
            ]
        self.foreign_asked = False
        if reading is None or not dets:
            return self._cleared()
        out: list[dict] = []
        lay = reading.layout
        line_tiles = {Tile.parse(it["tile"]) for it in lay["line"]}
        # a line that shares nothing with ours: a new hand begun without an empty table between
        # a line that shares nothing with ours, or a lone double after a view of an empty table
        # (the hand ended unseen): a new hand begun
        lone_double = len(dets) == 1 and next(iter(dets)).is_double
        if (
            len(self.node) == 1
            and lone_double
            and self.phase == "play"
            and not any(t in dets for t in self.node)
            and self.last_player is not None
        ):
            # a hand cannot be over with only its lead down (every player still holds tiles and
            # the boneyard is not empty, RULES.md section 4): the lead was misread
            old, new = next(iter(self.node)), next(iter(dets))
            from engine.draw100.line import LineOfPlay

            self.line = LineOfPlay()
            self.node = {new: self.line.place_first(new)}
            self.player = self.last_player
            self.emptied = False
            self.seen_at.pop(old, None)
            self.box_at.pop(old, None)
            _, before = self.played.pop(old, (0, f"lead {old}"))
            return [
                {
                    "type": "play_withdrawn",
                    "tile": str(old),
                    "action": before,
                    "message": f"{old} re-read as {new}: the lead was misread",
                },
                self._play(new, f"lead {new} (read as {old} before)"),
            ]
        if self.node and (
            (
                not any(t in dets for t in self.node)
                and len(line_tiles) == 1
                and not self._kept_at(backs, dets)
            )
            or (self.emptied and lone_double and len(self.node) > 1)
        ):
            out += self._cleared(new_hand=True)
        self.emptied = False
        if not self.node and self.phase == "play":
            return out + self._begin(lay, dets, line_tiles)
        if self.asking:
            return out  # who is to move is not known yet: the view waits for the answer
        length = float(np.median([d.size[0] for d in stable]))
        if self.phase == "play":
            out += self._plays(lay, dets, length, backs, twins)
        if self.phase == "reveal":
            out += self._shown(dets, length, backs, twins)
        return out

    def _begin(self, lay, dets, line_tiles) -> list[dict]:
        """The first view of a hand: a lead, or a hand in progress (the line taken as seen)."""
        out: list[dict] = []
        if len(dets) == 1:
            t = next(iter(dets))
            if not t.is_double:
                return self._flag(
                    t, f"{t} cannot lead: the highest double leads (RULES.md section 4)"
                )
            self.hand_number += 1
            self.node[t] = self.line.place_first(t)
            self.player = 0 if self.player is None else self.player
            return [self._play(t, f"lead {t}")]
        if not line_tiles:
            return out
        from engine.draw100.line import LineOfPlay

        try:
            self.line = LineOfPlay.from_json(
                [{k: it[k] for k in ("tile", "parent", "direction")} for it in lay["line"]]
            )
        except ValueError as e:
            return [{"type": "question", "message": f"the line seen is not a line of play: {e}"}]
        self.hand_number += 1
        self.node = {n.tile: n.id for n in self.line.nodes}
        out.append(
            {
                "type": "note",
                "message": f"joined a hand in progress: {len(self.node)} tiles in the line",
            }
        )
        if self.player is None:
            self.asking = True
            out.append(
                {
                    "type": "question",
                    "ask": "player",
                    "message": "joined a hand in progress: who is to move? (tap the player)",
                }
            )
        # tiles of the view that the line does not hold are taken as the next view's would be
        return out + ([] if self.asking else self._plays(lay, dets, None))

    def _partners(self, lay, dets) -> dict[Tile, list[Tile]]:
        """Tiles each tile of the view touches with equal numbers: the reader's joins and its
        touching pairs (``touch``: every pair whose nearest ends match, in the line or not)."""
        index_tile = {}
        for it in list(lay.get("line", [])) + list(lay.get("loose", [])):
            if it.get("tile"):
                index_tile[it["tile_index"]] = Tile.parse(it["tile"])
        out: dict[Tile, list[Tile]] = {}
        for i, j in list(lay.get("joins", [])) + list(lay.get("touch", [])):
            a, b = index_tile.get(i), index_tile.get(j)
            if a is None or b is None or a == b:
                continue
            out.setdefault(a, []).append(b)
            out.setdefault(b, []).append(a)
        return out

    def _plays(self, lay, dets, length: float | None, backs=(), twins=None) -> list[dict]:
        """New tiles of the view joined to the followed line (each an open end of a tile it
        touches, in an order that works); the rest flagged (near the line) or kept apart
        (farther: maybe a hand shown), but for those within 1.1 tile lengths of a followed
        tile not seen, which wait. Followed tiles not seen are a question, not a stall.
        ``backs``: the view's boxes without a value (:meth:`_backs`): a followed tile read as a
        back where it lies stays seen there, and when new tiles join nothing, a back they touch
        may be where a followed tile not read lies (:meth:`_doubt`). ``twins``: the values read
        on several boxes of the view (:meth:`_twin_apart`)."""
        out: list[dict] = []
        if length is None:
            length = float(np.median([d.size[0] for d in dets.values()]))
        backs, _ = self._settle(dets, backs, twins or {})
        read = set(dets)
        free = self._backs(dets, list(backs))
        missing = [t for t in self.node if t not in dets]
        fresh_missing = [
            t for t in missing if t in self.unseen_last and t not in self.asked_missing
        ]
        self.unseen_last = set(missing)
        if fresh_missing:
            self.asked_missing |= set(fresh_missing)
            out.append(
                {
                    "type": "question",
                    "tile": " ".join(map(str, fresh_missing)),
                    "message": f"{', '.join(map(str, fresh_missing))} no longer seen in the line "
                    "(kept in it; a hand over it?)",
                }
            )
        shown = {t for g in self.groups for t in g}
        partners = self._partners(lay, dets)
        new = [t for t in dets if t not in self.node and t not in shown]
        self._note_first_seen(new)
        # a new value read where a followed tile not read lies (not seen, or seen as a back):
        # that tile misread, not a play
        unread = [t for t in self.node if t not in read]
        under = {t: self._under(t, dets, unread) for t in new}
        # a new value read on a box over a followed tile read in this view: a second box drawn
        # on that tile (tiles of the line never lie on one another), not a play
        seen = [u for u in self.node if u in read]
        on = {t: _lies_on(dets[t], [dets[u] for u in seen]) for t in new}
        over = {t: seen[k] for t, k in on.items() if k is not None}
        misread = [t for t in new if under[t] is not None]
        # only a reading of the whole tile can overturn a followed value: a box cut by the
        # picture's border shows part of a tile (its missing half reads as another number)
        votes = {
            (under[t], t): self.reread_votes.get((under[t], t), 0) + 1
            for t in misread
            if not dets[t].at_edge
        }
        self.reread_votes = votes
        reread = []
        for (u, t), n in votes.items():
            if u is None:
                continue
            # a tile seen now away from where it was read before (tiles lie still once laid):
            # its first reading there was a misread of the tile read there now
            moved = u in read
            if moved or (n >= REREAD_VIEWS and n > self.seen_views.get(u, 0)):
                rec = self._reread(u, t, dets)
                if rec:
                    reread.append(t)
                    out += rec
                    if moved:  # the tile where it lies now: a new play of this view
                        new.append(u)
                        under[u] = None
        misread = [t for t in misread if t not in reread]
        lies = {t: under[t] or over.get(t) for t in under}
        misread += [t for t in new if under[t] is None and over.get(t) is not None]
        # each misread asked about once a hand (a second box over a tile stays view after view)
        ask = [t for t in misread if (t, lies[t]) not in self.asked_misread]
        self.asked_misread |= {(t, lies[t]) for t in ask}
        if ask:
            out.append(
                {
                    "type": "question",
                    "message": f"{', '.join(map(str, ask))} read where "
                    f"{', '.join(str(lies[t]) for t in ask)} lies: a misread? (not taken)",
                }
            )
        new = [t for t in new if under[t] is None and over.get(t) is None]
        placed = self._join(new, partners, dets)
        blank = self._blank(dets, free, shown)
        if blank:
            placed.append(blank)
            placed += self._join(new, partners, dets)
        if new and free:
            doubt = self._doubt(new, partners, dets, free)
            if doubt:
                out.append(doubt)
                placed += self._join(new, partners, dets)
        self.seen_at.update({t: dets[t].centre for t, _ in placed})
        self.seen_views.update({t: 1 for t, _ in placed})  # the view that took it read it
        if placed:  # tiles seen apart before the plays lay down were no hand shown
            since = min(self.first_seen.get(t, self.last_view[2]) for t, _ in placed)
            self.apart_groups = [
                g for g in self.apart_groups if all(self.first_seen.get(t, -1) > since for t in g)
            ]
            self.apart_now = {t for t in self.apart_now if self.first_seen.get(t, -1) > since}
        out += _order_note("tiles", [str(t) for t, _ in placed])
        for t, text in placed:
            if t in self.flagged:
                out.append(self._withdraw(t, "it joins the line now"))
            out += self.flush(t)
            out.append(self._play(t, text))
        # flags the view explains: the tile taken back
        for t in list(self.flagged):
            if t not in dets and t not in self.node:
                out.append(self._withdraw(t, "taken back"))
        # the line where it lies in this view's pixels, its tiles hidden now where they were
        # kept (as in the reveal, :meth:`_shown`): a tile near a hidden tile lies at the line
        centres = [
            dets[t].centre if t in dets else self.seen_at[t]
            for t in self.node
            if t in dets or t in self.seen_at
        ]
        apart: list[Tile] = []
        # tiles laid off a standing flag (a chain of illegal tiles) are plays too, flagged in
        # turn, however far from the line they reach
        chained = [t for t in self.flagged if t in dets and t not in self.node]
        # a flagged tile now lying apart from the line, touching no other flagged tile, was
        # moved there (a set holds one of each tile: its value read near the line earlier was
        # a misread, such as a box across two tiles of the line, or the tile was taken back and
        # laid apart, as a hand shown): the flag is withdrawn and the tile is one apart
        for t in list(chained) if centres else []:
            if _nearest(dets[t].centre, centres) >= NEAR_LINE * length and not any(
                _touch(dets[t], dets[u]) for u in chained if u != t
            ):
                chained.remove(t)  # taken apart (or not) with the view's other new tiles below
                out.append(self._withdraw(t, "it lies apart from the line now"))
        # a tile against a followed tile not read in this view (a hand over it, a misread) may
        # join it: that cannot be checked now, so it waits for a view that reads that tile
        hidden = [self.seen_at[u] for u in self.node if u not in dets and u in self.seen_at]
        new = [t for t in new if _nearest(dets[t].centre, hidden) > 1.1 * length]
        for t in sorted(new, key=lambda t: _nearest(dets[t].centre, centres)):
            c = dets[t].centre
            dist = _nearest(c, centres)
            if dist < NEAR_LINE * length or any(_touch(dets[t], dets[u]) for u in chained):
                if t not in self.flagged:
                    out += self._flag(t, self._why_not(t, dets))
                chained.append(t)
            else:
                apart.append(t)
        apart = [t for t in apart if t not in chained]
        kept = [self.seen_at[u] for u in self.node if u in self.seen_at]
        taken = shown | self._apart_taken()
        blank = self._back_shown(free, dets, kept, length, taken, bool(placed))
        if blank is not None:
            dets[Tile(0, 0)] = blank
            apart.append(Tile(0, 0))
            out += self._blank_note()
        out += self._apart(apart, dets, length, set(misread), any(t in dets for t in self.node))
        return out

    def _apart_taken(self) -> set[Tile]:
        """The tiles of :attr:`apart_groups` (seen apart from the line, taken back since)."""
        return {t for g in self.apart_groups for t in g}

    def _note_first_seen(self, new: list[Tile]) -> None:
        """Keep in :attr:`first_seen` the frame of the first view that read each value of
        ``new`` (values of the view not followed nor shown), while it is read or lies apart
        (a tile of :attr:`apart_groups`, taken back): a play that waited for a view reading
        the tile it joins was on the table since then, before tiles shown apart later."""
        frame = self.last_view[2]
        kept = set(new) | self.apart_now | self._apart_taken()
        self.first_seen = {t: v for t, v in self.first_seen.items() if t in kept}
        for t in new:
            self.first_seen.setdefault(t, frame)

    def _back_shown(self, backs, dets, line, length: float, taken, played: bool):
        """The blank double 0-0 shown at a hand's end but read as a plain back (a set without
        divider bars shows no mark on it): the one face-down box of ``backs`` (boxes without a
        value, not where a followed tile lies) lying ``NEAR_LINE`` tile lengths (``length``
        pixels) or more from every tile of the line (``line``: their centres, hidden ones where
        they were kept), while 0-0 is neither followed, read (``dets``) nor shown (``taken``),
        and every tile of the line is read in the view (in ``dets``, or a box of ``backs`` where
        it lies: a line read only in part, after a zoom, leaves its kept places stale and misread
        boxes about). A face-down box apart from the line before a play of the hand (``played``:
        this view took one) is the boneyard of a real table, or a tile put aside: then none is
        taken for the rest of the hand. Returns the box, or None."""
        far = [b for b in backs if b.face_down and _nearest(b.centre, line) >= NEAR_LINE * length]
        self.back_apart |= bool(far)
        if played and self.back_apart:
            self.boneyard = True
        blank = Tile(0, 0)
        if self.boneyard or len(far) != 1 or blank in self.node or blank in dets or blank in taken:
            return None
        read = all(
            u in dets or (u in self.seen_at and any(self._lies_at(u, b) for b in backs))
            for u in self.node
        )
        return far[0] if read else None

    def _join(self, new: list[Tile], partners, dets) -> list[tuple[Tile, str]]:
        """Attach to the followed line the tiles of ``new`` that join it in this view (each on
        an open end of a tile it touches, :meth:`_host`), in an order that works, removing them
        from ``new``. Returns ``(tile, action text)`` in that order."""
        placed: list[tuple[Tile, str]] = []
        progress = True
        while new and progress:
            progress = False
            for t in list(new):
                host_end = self._host(t, partners.get(t, []), dets)
                if host_end is None:
                    continue
                host, e = host_end
                self.node[t] = self.line.attach(t, e.id)
                placed.append((t, f"play {t} on the {e.number} of {host}"))
                new.remove(t)
                progress = True
        return placed

    def _kept_at(self, backs, dets) -> list[Tile]:
        """Followed tiles not read in this view (``dets``) whose kept place (:attr:`seen_at`,
        the last view's pixels) holds a box of ``backs`` (within half its width)."""
        return [
            u
            for u in self.node
            if u not in dets and u in self.seen_at and any(self._lies_at(u, b) for b in backs)
        ]

    def _lies_at(self, u: Tile, b) -> bool:
        """Whether the box ``b`` lies at the followed tile ``u``'s kept place (:attr:`seen_at`):
        its centre within half the box's width of it (:func:`_within`)."""
        return _within(self.seen_at[u], b)

    def _backs(self, dets, backs: list) -> list:
        """A followed tile not read in this view whose kept place (:attr:`seen_at`, already in
        this view's pixels) holds a box without a value (within half its width; the nearest) is
        that tile read as a back: a face-up tile does not turn face down on the table during a
        hand. Adds it to ``dets`` under the followed tile (the box keeps no value: only its
        place counts) and its place to :attr:`seen_at`. Returns the boxes left over."""
        free = list(backs)
        for u in self.node:
            if u in dets or u not in self.seen_at or not free:
                continue
            _, k = min(
                (float(np.hypot(*(b.centre - self.seen_at[u]))), k) for k, b in enumerate(free)
            )
            if self._lies_at(u, free[k]):
                dets[u] = free.pop(k)
                self.seen_at[u] = dets[u].centre
        return free

    def _blank(self, dets, free: list, shown) -> tuple[Tile, str] | None:
        """The blank double 0-0 played but read as a plain back (a set without divider bars
        shows no mark on it, the reason the layout reader takes a lone bare box of a face-up
        layout as 0-0): a box of ``free`` (without a value, not a followed tile) that joins an
        open end of 0 of the followed line (:meth:`_host`, as 0-0), while 0-0 is neither
        followed, read nor shown, no other such box does, and no tile read face up lies apart
        from the line (:attr:`apart_now`, :attr:`apart_groups`: a hand may be being shown, and
        a shown tile read as a back may lie at the line as well as a played 0-0). Attaches it,
        adds it to ``dets`` and removes it from ``free``. Returns ``(0-0, action text)``, or
        None."""
        blank = Tile(0, 0)
        if blank in self.node or blank in dets or blank in shown or not free:
            return None
        if (self.apart_now | self._apart_taken()) - {blank}:
            return None
        if 0 not in self.line.open_numbers():
            return None
        fits = []
        for k, b in enumerate(free):
            trial = dict(dets)
            trial[blank] = TileDetection(b.corners, b.confidence, pips=(0, 0), pip_confidence=0.0)
            host_end = self._host(blank, [], trial)
            if host_end is not None:
                fits.append((k, trial[blank], host_end))
        if len(fits) != 1:
            return None
        k, d, (host, e) = fits[0]
        free.pop(k)
        dets[blank] = d
        self.node[blank] = self.line.attach(blank, e.id)
        return blank, f"play {blank} on the {e.number} of {host} (read as a back)"

    def _doubt(self, new: list[Tile], partners, dets, free: list) -> dict | None:
        """New tiles of the view that join nothing, while a followed tile is not read and a
        box without a value lies on the table: before the players, the follower doubts its own
        place of that tile (a camera moved while it was hidden or read as a back, so its kept
        place is stale). A second box of a value the view reads elsewhere does not count
        (:func:`_read_elsewhere`: a misread, maybe across two tiles, not a tile read as a back).
        The followed tile not read and the back that, taken as it, make the most new tiles join
        it (at least one, no other pair as many) are taken: the back is
        that tile (added to ``dets``, its place kept). Returns a note saying so, or None."""
        opens = {e.node_id for e in self.line.open_ends()}
        best: list[tuple[int, Tile, int]] = []
        for u in self.node:
            if u in dets or self.node[u] not in opens:
                continue
            for k, b in enumerate(free):
                if _read_elsewhere(b, dets):
                    continue  # a second box of a value read elsewhere: a misread, no back
                trial = dict(dets)
                trial[u] = b
                n = 0
                for t in new:
                    host_end = self._host(t, partners.get(t, []), trial)
                    n += host_end is not None and host_end[0] == u
                if n:
                    best.append((n, u, k))
        if not best:
            return None
        top = max(n for n, _, _ in best)
        picks = [(u, k) for n, u, k in best if n == top]
        if len(picks) != 1:
            return None
        u, k = picks[0]
        dets[u] = free.pop(k)
        self.seen_at[u] = dets[u].centre
        return {
            "type": "note",
            "tile": str(u),
            "message": f"{u} taken where a box without a value lies: the new tiles join it there "
            "(read as a back, its place lost as the camera moved)",
        }

    def _twin_apart(self, dets, twins: dict[Tile, list[TileDetection]]) -> None:
        """A value not followed read on several boxes of the view (``twins``, none lying on
        another box: :func:`_value_boxes`): a box where a followed tile not read in this view
        lies (:meth:`_under`, :attr:`seen_at` already in this view's pixels) is that tile
        misread (tiles lie still once laid), so the value is the box that lies at no such
        place, the last of them, a set holding one of each tile (a tile shown apart from the
        line while a line tile at the frame's edge reads as it). Sets ``dets`` to that box; left
        as it is (the last box) when every box or none lies at such a place."""
        unread = [u for u in self.node if u not in dets]
        for t, ds in twins.items():
            if t in self.node:
                continue
            clear = []
            for d in ds:
                dets[t] = d
                # two tiles laid flat lie a tile width apart or more, centre to centre: a box
                # within a width of a hidden tile's kept place is that tile (its place kept
                # through a camera move is only near where it lies now)
                if self._under(t, dets, unread, reach=1.0) is None:
                    clear.append(d)
            dets[t] = clear[-1] if clear else ds[-1]

    def _under(self, t: Tile, dets, missing: list[Tile], reach: float = 0.5) -> Tile | None:
        """The followed tile not seen in this view that lies where ``t`` is read (its centre,
        :attr:`seen_at`, within ``reach`` tile widths of ``t``'s, ``t``'s box giving the width
        in pixels), or one seen now away from where it lay (:attr:`left_at`), the nearest if
        several; None if none: ``t`` read there is a misread of it, or it was the misread."""
        d = dets[t]
        near = [
            (float(np.hypot(*(d.centre - self.seen_at[u]))), u)
            for u in missing
            if u in self.seen_at
        ]
        near += [(float(np.hypot(*(d.centre - c))), u) for u, c in self.left_at.items()]
        near = [x for x in near if x[0] < reach * min(d.size)]
        return min(near)[1] if near else None

    def _reread(self, u: Tile, t: Tile, dets) -> list[dict]:
        """Take ``t`` as the value of the followed tile ``u``: ``t`` has been read where ``u``
        lies, ``u`` not seen, for ``REREAD_VIEWS`` views in a row and in more views than ever
        read ``u``, so the reading that made ``u`` a play was the misread. Done only when ``t``
        joins the line where ``u`` does (the number ``u`` joins its tile with, and the numbers
        of the tiles joined to ``u``);
        the play stays its seat's, the turn does not move. Returns the ``play_withdrawn`` and
        ``play`` records, or none when ``t`` cannot stand there."""
        from engine.draw100.line import LineOfPlay

        items = self.line.to_json()
        k = self.node[u]
        items[k]["tile"] = str(t)
        try:
            line = LineOfPlay.from_json(items)
        except ValueError:
            return []
        self.line = line
        self.node = {n.tile: n.id for n in line.nodes}
        self.seen_at.pop(u, None)
        self.box_at.pop(u, None)
        self.seen_at[t] = dets[t].centre
        self.seen_views[t] = self.reread_votes.get((u, t), 0)
        self.asked_missing.discard(u)
        seat, before = self.played.pop(u, (0, str(u)))
        node = line.node(k)
        where = (
            f"lead {t}"
            if node.parent is None
            else f"play {t} on the {node.inner} of {line.node(node.parent).tile}"
        )
        why = f"{t} read where {u} lies in {REREAD_VIEWS} views: {u} was a misread"
        return [
            {"type": "play_withdrawn", "tile": str(u), "action": before, "message": why},
            self._play(t, where, seat),
        ]

    def _settle(self, dets, backs, twins: dict[Tile, list[TileDetection]]):
        """Take the view into the followed line's pixels and settle each value read on several
        boxes (``twins``): :meth:`_track_camera`, then :meth:`_twin_apart` (``dets`` set to the
        boxes taken). Returns ``(backs, misread)``: the boxes taken as no tile's value
        (:func:`_unchosen`), and ``(followed tile, box)`` for each box read as a followed tile
        that lies, read, where it is kept (another tile misread as it)."""
        misread = self._track_camera(dets, twins)
        self._twin_apart(dets, twins)
        return _unchosen(backs, dets, twins), misread

    def _track_camera(
        self, dets, twins: dict[Tile, list[TileDetection]]
    ) -> list[tuple[Tile, TileDetection]]:
        """Bring :attr:`seen_at` into this view's pixels: the camera's motion since the views
        before (``vision.tracking.camera_motion``, fitted on the followed tiles seen then and
        now, each on one box) moves every position kept, so a followed tile hidden now is
        looked for where it lies in this view; the tiles seen now take their positions from it,
        those seen more than a tile length away from where they lay keeping that place in
        :attr:`left_at`. A followed value read on several boxes (``twins``) is the box nearest
        its kept place (tiles lie still once laid; ``dets`` is set to it): the others are
        other tiles misread as it (such as a tile of a hand shown), returned as
        ``(followed tile, box)``."""
        from vision.tracking import apply_motion, box_motion, motion_since

        doubled = [t for t in self.node if len(twins.get(t, [])) > 1 and t in self.seen_at]
        both = [t for t in self.node if t in dets and t in self.seen_at and t not in doubled]
        if both:
            boxed = [t for t in both if t in self.box_at]
            # one or two tiles: their boxes carry the camera's zoom and turn
            m = (
                box_motion(self.box_at, dets, boxed)
                if len(both) < 3 and boxed
                else motion_since(self.seen_at, dets, both)
            )
            self.seen_at = {t: apply_motion(m, c)[0] for t, c in self.seen_at.items()}
            self.box_at = {t: apply_motion(m, c) for t, c in self.box_at.items()}
        misread: list[tuple[Tile, TileDetection]] = []
        for t in doubled:
            ds = twins[t]
            k = min(
                range(len(ds)), key=lambda j: float(np.hypot(*(ds[j].centre - self.seen_at[t])))
            )
            dets[t] = ds[k]
            misread += [(t, d) for j, d in enumerate(ds) if j != k]
        both += doubled
        self.left_at = {
            t: self.seen_at[t]
            for t in both
            if float(np.hypot(*(dets[t].centre - self.seen_at[t]))) > max(dets[t].size)
        }
        if len(both) < 3 or 4 * len(self.left_at) > len(both):
            # no camera motion most tiles agree on (a zoom misread, a view read badly): no
            # tile is taken as seen away from its place
            self.left_at = {}
        self.seen_at.update({t: dets[t].centre for t in self.node if t in dets})
        self.box_at.update({t: dets[t].corners for t in self.node if t in dets})
        for t in self.node:
            if t in dets:
                self.seen_views[t] = self.seen_views.get(t, 0) + 1
        return misread

    def _host(self, t: Tile, partners: list[Tile], dets) -> tuple[Tile, object] | None:
        """``(host tile, open end)`` of the followed line that ``t`` joins in this view: a tile
        it touches with an open end of the number on ``t``'s touching half; None if none."""
        d = dets[t]
        hosts = [h for h in partners if h in self.node and h in dets]
        # tiles touching end to end or against a double's side: a half within 1.3 widths
        w = min(d.size)
        for h in self.node:
            if h in hosts or h not in dets:
                continue
            gap = min(float(np.hypot(*(a - b))) for a in d.halves for b in dets[h].halves)
            if gap <= 1.3 * w:
                hosts.append(h)
        for h in hosts:
            near = int(
                np.argmin(
                    [min(float(np.hypot(*(a - b))) for b in dets[h].halves) for a in d.halves]
                )
            )
            number = int(d.pips[near]) if d.pips is not None else None
            ends = [
                e
                for e in self.line.open_ends()
                if e.node_id == self.node[h]
                and t.has(e.number)
                and (number is None or e.number == number or t.is_double)
                # against the half of a non-double already joined (a cross through a
                # non-spinner), or off a double's corner: no join
                and _meets_end(d.halves[near], dets[h], h.is_double, e.number)
            ]
            if ends:
                return h, ends[0]
        return None

    def _apart(
        self, apart: list[Tile], dets, length: float, misread: set[Tile], line_seen: bool
    ) -> list[dict]:
        """Face-up tiles lying apart from the line. A group of two or more lying together
        cannot be plays: the hand is over and the players show their tiles; but only in a view
        that reads a tile of the line (``line_seen``): with none read, the line's place in this
        view is the one kept from earlier views, which a camera moved since leaves wrong, and
        the group may be the line itself misread (a lead 6-6 read 0-6 after a zoom, the next
        play with it), so its tiles are taken one by one, as below, until a view reads the
        line. A single tile may be a hand of one shown, or a tile put down: a question; it
        counts as a shown hand only when the hand's end comes (a group, a tap, the table
        cleared) before the next play.
        A tile seen apart is taken back when a view no longer reads it, or reads its value only
        where a followed tile lies (``misread``: that tile misread, which says nothing of the
        tile shown). A tile of a group taken back that lies apart again was never taken back
        (a hand hid it, a view misread it): that group is dropped, a set holding one of each
        tile."""
        out: list[dict] = []
        self.cut_shown |= {t for t in apart if dets[t].at_edge}
        again = set(apart)
        self.apart_groups = [g for g in self.apart_groups if not again & set(g)]
        groups = _clusters(apart, dets, 1.5 * length)
        if line_seen and any(len(g) >= 2 for g in groups):
            self.apart_now = set()
            return out + self._hand_over()
        for t in apart:
            if t not in self.apart_now and t not in self.asked_apart:
                self.asked_apart.add(t)
                out.append(  # a note: most often a hand of one shown, confirmed by what follows
                    {
                        "type": "note",
                        "tile": str(t),
                        "message": f"{t} lies apart from the line: taken as a hand shown if the "
                        "hand ends before the next play (tap 'hand over' to say so)",
                    }
                )
        back = [t for t in self.apart_now if t not in dets or t in misread]
        if back and not apart:  # taken back: maybe a hand of one shown
            self.apart_groups.append(sorted(back))
        self.apart_now = set(apart)
        return out

    def _hand_over(self) -> list[dict]:
        """The end of the hand is seen: the shown groups follow (those seen apart before, taken
        back since, first)."""
        if self.phase != "play":
            return []
        self.phase = "reveal"
        out: list[dict] = [
            {"type": "hand_end", "hand": self.hand_number, "last_player": self.last_player}
        ]
        for t in list(self.flagged):  # no longer plays: the tiles shown
            out.append(self._withdraw(t, "the hand is over"))
        earlier, self.apart_groups = self.apart_groups, []
        for g in earlier:
            self.group = set(g)
            out += self._close_group()
            if self.phase != "reveal":
                break
        return out

    def _blank_note(self) -> list[dict]:
        """A question, once a hand, when a box without a value shown apart from the line is
        taken as 0-0 (:meth:`_back_shown`): a shown tile the detector reads as a back looks the
        same (the box's size and the detector's face-down score are those of a tile; what the
        players hold is not counted, draws from the boneyard being unseen), so the hand is
        scored with 0-0 and the players are asked to check it."""
        if self.blank_noted:
            return []
        self.blank_noted = True
        return [
            {
                "type": "question",
                "tile": "0-0",
                "message": "a box without a value lies apart from the line after the last play: "
                "taken as 0-0 shown, 0 pips (a blank double without divider bars reads as a "
                "plain back; 0-0 is neither in the line nor shown); if it is another tile read "
                "as a back, correct the score",
            }
        ]

    def _shown(self, dets, length: float, backs=(), twins=None) -> list[dict]:
        """A view of the reveal: the tiles apart from the line (``NEAR_LINE`` tile lengths or
        more from every tile of the line, ``length`` pixels a tile; a tile hidden now where
        :attr:`seen_at` puts it) are the current group, and a lone box without a value there
        (``backs``) is 0-0 read as a plain back (:meth:`_back_shown`); a new value nearer the
        line, or where a hidden tile of the line lies, is a tile of the line misread, not a tile
        shown; of a value read on several boxes (``twins``), the box where no hidden tile of the
        line lies is taken (:meth:`_twin_apart`). A view without them closes the group (the
        player took them back)."""
        out: list[dict] = []
        earlier = {t for g in self.groups for t in g}
        missing = [t for t in self.node if t not in dets]
        backs, misread = self._settle(dets, backs, twins or {})
        # the line where it lies in this view's pixels, its tiles hidden now included
        centres = [self.seen_at[t] for t in self.node if t in self.seen_at]
        out += self._misread_shown(dets, misread, centres, length, earlier)
        shown = {
            t
            for t in dets
            if t not in self.node
            and t not in earlier
            and _nearest(dets[t].centre, centres) >= NEAR_LINE * length
            and self._under(t, dets, missing) is None
        }
        blank = self._back_shown(
            list(backs), dets, centres, length, earlier | self.group | shown, False
        )
        if blank is not None:
            shown.add(Tile(0, 0))
            out += self._blank_note()
        if shown:
            self.cut_shown |= {t for t in shown if t in dets and dets[t].at_edge}
            if blank is not None and blank.at_edge:  # 0-0 read as a back at the border
                self.cut_shown.add(Tile(0, 0))
            self.group |= shown
        elif self.group:
            out += self._close_group()
        return out

    def _misread_shown(
        self, dets, misread, centres, length: float, earlier: set[Tile]
    ) -> list[dict]:
        """In the reveal, a box read as a followed tile that also lies, read, where it is kept
        (``misread``: ``(followed tile, box)``, :meth:`_track_camera`), ``NEAR_LINE`` tile
        lengths (``length`` pixels) or more from the line (``centres``), is a tile of a hand
        shown misread (a set holds one of each tile). Its value is taken as the one tile that
        differs from the reading by one pip on one half and is nowhere else (not in the line,
        not shown before (``earlier``) nor now, not read in this view); with none or several,
        the box is left out and the players are asked.
        Adds the value taken to ``dets`` (that box). Returns the notes and questions, each once
        a hand."""
        out: list[dict] = []
        taken = set(self.node) | earlier | self.group | set(dets)
        for u, d in misread:
            if _nearest(d.centre, centres) < NEAR_LINE * length:
                continue
            a, b = u.low, u.high
            pairs = [(x, b) for x in (a - 1, a + 1)] + [(a, y) for y in (b - 1, b + 1)]
            near = {Tile(x, y) for x, y in pairs if 0 <= min(x, y) and max(x, y) <= TOP_PIP}
            fits = sorted(t for t in near if t not in taken)
            if len(fits) == 1:
                dets[fits[0]] = d
                taken.add(fits[0])
            key = (u, fits[0] if len(fits) == 1 else None)
            if key in self.noted_shown:
                continue
            self.noted_shown.add(key)
            if len(fits) == 1:
                message = (
                    f"{u} read on a tile shown, but {u} lies in the line: taken as {fits[0]}, "
                    "the one tile one pip off not seen elsewhere (correct the score if not)"
                )
                out.append({"type": "note", "tile": str(fits[0]), "message": message})
            else:
                message = (
                    f"{u} read on a tile shown, but {u} lies in the line: which tile is it? "
                    "(left out of the hand shown; correct the score)"
                )
                out.append({"type": "question", "tile": str(u), "message": message})
        return out

    def _flag(self, t: Tile, message: str) -> list[dict]:
        self.flagged[t] = message
        return [{"type": "flag", "tile": str(t), "message": message}]

    def _withdraw(self, t: Tile, why: str) -> dict:
        message = self.flagged.pop(t)
        return {"type": "flag_withdrawn", "tile": str(t), "message": f"{message}: {why}"}

    def _play(self, t: Tile, text: str, seat: int | None = None) -> dict:
        """The record of ``t`` played (``text``: the action) by the seat to move, who passes
        the turn on; ``seat``: a play re-read (:meth:`_reread`), that seat's, the turn kept."""
        if seat is None:
            p = self.player if self.player is not None else 0
            self.last_player = p
            self.player = (p + 1) % self.n
        else:
            p = seat
        self.played[t] = (p, text)
        return {"type": "play", "player": p, "tile": str(t), "action": text, "points": 0}

    def _why_not(self, t: Tile, dets) -> str:
        """Why ``t`` joins nothing, naming the number of the followed line's open end nearest to
        it and ``t``'s half nearest that end first: "6-3 does not match the 5 it touches"; or
        that it lies across the side of a non-double of the line ("2-5 lies across the side of
        4-5, not on an open end"), or is laid off a flagged tile and not off the line."""
        d = dets[t]

        def gap(u: Tile) -> float:
            return min(float(np.hypot(*(a - b))) for a in d.halves for b in dets[u].halves)

        near_line = min((u for u in self.node if u in dets), key=gap, default=None)
        near_flag = min(
            (u for u in self.flagged if u in dets and u != t and u not in self.node),
            key=gap,
            default=None,
        )
        if near_flag is not None and _touch(d, dets[near_flag]):
            if near_line is None or gap(near_flag) < gap(near_line):
                return f"{t} is laid off {near_flag}, which is no play of the line"
        if near_line is not None and not near_line.is_double and _touch(d, dets[near_line]):
            h = dets[near_line]
            half = min(d.halves, key=lambda a: min(float(np.hypot(*(a - b))) for b in h.halves))
            opens = [e.number for e in self.line.open_ends() if e.node_id == self.node[near_line]]
            if not any(_meets_end(half, h, False, n) for n in opens):
                return (
                    f"{t} lies across the side of {near_line}, not on an open end (only a "
                    "double takes tiles on its sides, RULES.md section 4)"
                )
        ends = []
        for e in self.line.open_ends():
            host = self.line.node(e.node_id).tile
            if host in dets:
                gap = min(float(np.hypot(*(a - b))) for a in d.halves for b in dets[host].halves)
                ends.append((gap, e.number, host))
        if not ends:
            return f"{t} touches no open end of the line"
        _, number, host = min(ends, key=lambda x: x[0])
        text = str(t)
        if d.pips is not None:
            hd = dets[host]
            near = int(
                np.argmin([min(float(np.hypot(*(a - b))) for b in hd.halves) for a in d.halves])
            )
            text = f"{d.pips[near]}-{d.pips[1 - near]}"
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

    def _blank_unseen(self) -> bool:
        """Whether 0-0 is neither in the line, nor shown this hand, nor seen apart from the line
        (:meth:`_apart_taken`): a shown 0-0 of a set without divider bars may have been missed."""
        blank = Tile(0, 0)
        shown = {t for g in self.groups for t in g}
        return blank not in self.node and blank not in shown and blank not in self._apart_taken()

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
        cut = sorted(t for g in self.groups for t in g if t in self.cut_shown)
        if cut:
            out.append(
                {
                    "type": "question",
                    "tile": " ".join(map(str, cut)),
                    "message": f"{', '.join(map(str, cut))} shown at the picture's edge: a tile "
                    "of that hand lying beyond the picture is not counted; if one was, correct "
                    "the score",
                }
            )
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

    def _cleared(self, new_hand: bool = False) -> list[dict]:
        """The table seen empty (or, ``new_hand``, a new lead on it). A line cleared before any
        hand was shown is asked about and kept until a new hand shows (a lead tile under a
        hand for a while looks like an empty table)."""
        out: list[dict] = self.flush()  # taps made before the table was cleared
        if self.phase == "reveal":
            if self.group:
                out += self._close_group()
            if self.phase == "reveal":
                if len(self.groups) == self.n - 1:
                    out += self._score_hand("domino")
                elif self.groups and len(self.groups) == self.n - 2 and self._blank_unseen():
                    out.append(
                        {
                            "type": "question",
                            "tile": "0-0",
                            "message": f"the table was cleared after {len(self.groups)} hand(s) "
                            f"shown; {self.n - 1} were expected: the hand not seen is taken as "
                            "0-0 alone, 0 pips (a blank double without divider bars may not be "
                            "seen at all; 0-0 is neither in the line nor shown); if it held "
                            "other tiles, correct the score",
                        }
                    )
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
            if self.apart_now:
                self.apart_groups.append(sorted(self.apart_now))
                self.apart_now = set()
            if self.apart_groups:  # tiles shown apart one by one, then the table cleared
                out += self._hand_over()
                if self.phase == "reveal":
                    return out + self._cleared()
            else:
                if not self.emptied:
                    out.append(
                        {
                            "type": "question",
                            "message": "the line was cleared before the hands were shown "
                            "(or it is hidden); it is kept until a new lead shows",
                        }
                    )
                if not new_hand:
                    self.emptied = True
                    return out
        self._reset()
        return out

    def check_tap(self, kind, player):
        if kind == "player" and not (isinstance(player, int) and 0 <= player < self.n):
            raise ValueError(f"seats are 0..{self.n - 1}, got {player!r}")
        if kind == "done" and not self.node:
            raise ValueError(
                "no hand is being followed: 'done' (hand over) ends a hand in progress"
            )

    def on_tap(self, kind, player):
        if kind == "player":
            self.player = player
            out = [{"type": "turn", "player": player}]
            if self.asking:  # the answer: the view that waited is taken now
                self.asking = False
                if self.last_view is not None:
                    reading, stable, frame = self.last_view
                    out += self.on_stable(reading, stable, frame)
            return out
        if kind == "done":  # hand over: the players show their tiles next
            if self.phase != "play":
                return []
            if self.apart_now:
                self.apart_groups.append(sorted(self.apart_now))
                self.apart_now = set()
            return self._hand_over()
        if kind == "pass":
            if self.player is None:
                return [
                    {
                        "type": "question",
                        "ask": "player",
                        "message": "who passed? (tap the player to move)",
                    }
                ]
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


def _value_boxes(stable: list[TileDetection]) -> dict[Tile, list[TileDetection]]:
    """The view's boxes with a value of the double-six set (a value outside it, such as a 7 read
    on a half, is a misread: no tile), per value; one box a value is the tile, a set holding one
    of each tile. Of several boxes read with one value, those lying on another box of the view
    (:func:`_lies_on`: a second box drawn over a tile, which tiles laid on a table never are)
    are no tile (all are kept when every one lies on another). The caller takes the last box
    of a value, or the one at no followed tile's place (:meth:`_Draw100Follow._twin_apart`)."""
    boxes: dict[Tile, list[TileDetection]] = {}
    for d in stable:
        t = _set_value(d)
        if t is not None:
            boxes.setdefault(t, []).append(d)
    out: dict[Tile, list[TileDetection]] = {}
    for t, ds in boxes.items():
        if len(ds) > 1:
            others = [o for o in stable if all(o is not d for d in ds)]
            ds = [d for d in ds if _lies_on(d, others) is None] or ds
        out[t] = ds
    return out


def _unchosen(backs, dets, twins: dict[Tile, list[TileDetection]]) -> list[TileDetection]:
    """The view's boxes taken as no tile's value: ``backs`` (boxes without a value, and the
    boxes of a value read on several that the view did not take at first) less those now taken
    for a value (``dets``), with the boxes of ``twins`` not taken (a value read on several boxes
    is one box once :meth:`_Draw100Follow._track_camera` and
    :meth:`_Draw100Follow._twin_apart` chose it)."""
    chosen = {id(d) for d in dets.values()}
    out = [b for b in backs if id(b) not in chosen]
    have = {id(b) for b in out}
    out += [d for ds in twins.values() for d in ds if id(d) not in chosen and id(d) not in have]
    return out


def _lies_on(d: TileDetection, boxes: list[TileDetection]) -> int | None:
    """The index of the first of ``boxes`` that ``d`` lies on (its centre within half ``d``'s
    width of that box's centre, pixels, or sharing :data:`OVERLAP` of the smaller box's area,
    :meth:`TileDetection.overlap`), None when none: tiles laid on a table lie side by side, their
    centres a tile width apart or more, so such a box is a second box drawn on a tile, or
    one drawn across two tiles."""
    for k, o in enumerate(boxes):
        if o is not d and (_within(o.centre, d) or o.overlap(d) >= OVERLAP):
            return k
    return None


def _set_value(d: TileDetection) -> Tile | None:
    """The tile of the double-six set a face-up box reads, or None (face down, unread, or a
    value outside the set such as a 7 read on a half: a misread)."""
    if d.face_down or d.pips is None or max(int(v) for v in d.pips) > TOP_PIP:
        return None
    return Tile(*(int(v) for v in d.pips))


def _read_elsewhere(b: TileDetection, dets: dict[Tile, TileDetection]) -> bool:
    """Whether ``b`` is a face-up box read as a value of the set that ``dets`` (the view's
    tiles) holds on another box: a second box of that value (a set holds one of each)."""
    t = _set_value(b)
    return t is not None and t in dets and dets[t] is not b


def _within(point, box: TileDetection) -> bool:
    """Whether ``point`` (``(2,)`` pixels) lies within half ``box``'s width (its short side) of
    the box's centre: at that box's place, not beside it."""
    return float(np.hypot(*(box.centre - point))) < 0.5 * min(box.size)


def _clusters(tiles: list[Tile], dets, reach: float) -> list[list[Tile]]:
    """``tiles`` split into groups lying together: chains of tiles whose centres (pixels,
    ``dets[t].centre``) lie within ``reach`` pixels of each other."""
    left = list(tiles)
    out: list[list[Tile]] = []
    while left:
        group = [left.pop(0)]
        k = 0
        while k < len(group):
            c = dets[group[k]].centre
            near = [u for u in left if float(np.hypot(*(dets[u].centre - c))) <= reach]
            for u in near:
                left.remove(u)
            group += near
            k += 1
        out.append(group)
    return out


def _nearest(c: np.ndarray, centres: list[np.ndarray]) -> float:
    """Pixels from ``c`` to the nearest of ``centres`` (1e9 when there are none)."""
    return min((float(np.hypot(*(c - x))) for x in centres), default=1e9)


def _touch(a, b) -> bool:
    """Whether detections ``a`` and ``b`` touch: a half of one within 1.3 tile widths of a half
    of the other (the reach :meth:`_Draw100Follow._host` takes for a join)."""
    w = min(min(a.size), min(b.size))
    return min(float(np.hypot(*(p - q))) for p in a.halves for q in b.halves) <= 1.3 * w


def _meets_end(half: np.ndarray, host, double: bool, number: int | None = None) -> bool:
    """Whether a tile whose touching half has its centre at ``half`` (pixels) meets ``host``
    (a detection) where a play on its open end of ``number`` may join it (RULES.md section 4):
    for a non-double, beside or past its half showing ``number`` (a turn at a corner lays the
    next tile's end against that half's side), never beside its other half, which the line
    already joins (a cross through a non-spinner); for a double, on a long side or past a short
    end, not off a corner (more than 0.6 of its length along it and 0.75 of its width across
    at once)."""
    h0, h1 = (np.asarray(x, np.float64) for x in host.halves)
    rel = np.asarray(half, np.float64) - np.asarray(host.centre, np.float64)
    length, width = host.size
    if not double:
        if host.pips is None or number is None or int(host.pips[0]) == int(host.pips[1]):
            return True
        open_half = h1 if int(host.pips[1]) == number else h0
        axis = open_half - np.asarray(host.centre, np.float64)
        norm = float(np.linalg.norm(axis))
        return norm < 1e-6 or float(rel @ axis) / norm > 0.0
    axis = h1 - h0
    norm = float(np.linalg.norm(axis))
    if norm < 1e-6:
        return True
    axis /= norm
    along = abs(float(rel @ axis))
    across = abs(float(rel[0] * -axis[1] + rel[1] * axis[0]))
    return not (along > 0.6 * length and across > 0.75 * width)
