"""Luzon's rules of change (RULES.md section 3) for :class:`companion.follow.Follower`."""

from __future__ import annotations

from companion.follow.base import MAX_DEPTH, _order_note, _search, _tile, _unsure
from companion.follow.solitaire import _SolitaireFollow


def _on_table(columns, reserve) -> list:
    """Every tile of ``columns`` (lists of tiles) and ``reserve``, sorted."""
    return sorted([t for c in columns for t in c] + list(reserve))


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
            out = [{"type": "note", "message": "following Luzon"}]
            # a first view with no legal play left (a deal that blocks at once, or a game
            # joined at its end): the result is known now (RULES.md section 3)
            return out + (self._progress() if self.state.is_terminal() else [])
        st = self.state
        seen = _on_table(cols, res)
        followed = _on_table(st.columns, st.reserve)
        gone = set(followed) - set(seen)

        def removes_gone(a) -> bool:  # a move, or a removal of two tiles no longer seen
            return not hasattr(a, "a") or {a.a, a.b} <= gone

        # which end of the columns is the top is the reader's guess when nothing on the table
        # marks it (the reserve gone, the layout photographed from any side): the view turned
        # half round is the same table, tried when the view as read is no legal change
        path = None
        followed_key = _luzon_key(st.columns, st.reserve)
        for view in (cols, [c[::-1] for c in cols]):
            want = _luzon_key(view, res)
            if followed_key == want:
                return []
            path = _search(
                st,
                lambda c, want=want: _luzon_key(c.columns, c.reserve) == want,
                removes_gone,
                MAX_DEPTH,
            )
            if path is not None:
                break
        # which tiles are the reserve, and how the columns group, is the reader's guess when
        # few tiles are left (two reserve tiles alone read as a column, a short column as the
        # reserve); reserve tiles never join a column, so the tiles seen are enough: removals of
        # the gone ones, with moves where a removal needs a tile freed, that leave exactly them
        if path is None and gone:
            path = _search(
                st,
                lambda c: _on_table(c.columns, c.reserve) == seen,
                removes_gone,
                MAX_DEPTH,
            )
        if path is None and seen == followed:
            return []  # the same tiles grouped otherwise: nothing removed, kept as followed
        if path is None:
            from engine.luzon import tiles_pair

            if len(gone) == 2:
                a, b = sorted(gone)
                if not gone <= set(st.free_tiles()) | set(st.reserve):
                    return []  # a tile under one still seen is hidden (a hand), not removed
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
