"""Bookkeeping shared by the solitaires (removed tiles, progress, the result)."""

from __future__ import annotations

from companion.follow.base import _GameFollow

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
