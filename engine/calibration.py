"""Win chances a player can trust: the calibration of the solitaire hints' quotes.

A solitaire hint (``engine.solitaire.determinized_hint``) measures a **raw rate**: the share of
sampled stock orders, among those where the search finished, in which its best action still
wins when the order is known. For a game with hidden tiles that rate is optimistic (the
search knows the sampled order; the player does not). What the phone shows is therefore not the
raw rate but what hints quoting that raw rate led to on benchmark deals:

- ``scripts/bench_solitaires.py`` plays the hint on seeded deals and records every hint's raw
  rate and whether the game was then won; ``scripts/calibrate_solitaires.py`` groups the hints
  by tenth of the raw rate (0-10%, ..., 90-100%) and writes :data:`TABLE_PATH`. Deals with an
  even seed **fit** the chance of each tenth (its realised win rate); deals with an odd seed
  **check** it. A tenth is *shown* only when both halves hold at least :data:`MIN_HINTS` hints
  from at least :data:`MIN_DEALS` deals and the checked rate lies within :data:`TOLERANCE`
  (5 points) of the fitted one.
- :func:`shown_chance` maps a raw rate to the fitted chance of its tenth when that tenth is
  shown, else None: the hint then says how the search went but quotes no chance.

Perfect-information games (Luzon) need no table: the solver's answer is exact when it finished.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

#: The calibration tables written by ``scripts/calibrate_solitaires.py``.
TABLE_PATH = Path(__file__).resolve().parent / "data" / "calibration.json"
#: Fewest hints a tenth needs in each half (fit, check) before its chance is shown.
MIN_HINTS = 40
#: Fewest deals those hints must come from in each half (the hints of one deal share its
#: outcome, so they are far from independent).
MIN_DEALS = 20
#: Largest gap (as a fraction, 0.05 = 5 points) between the fitted and checked realised rate.
TOLERANCE = 0.05
#: Number of bins of the raw rate.
BINS = 10


class Chance(NamedTuple):
    """A shown win chance: ``chance`` in [0, 1] (the realised win rate of the fit hints of this
    tenth), a 95% Wilson interval ``low``/``high`` taken over ``deals`` (the number of fit deals
    those ``hints`` came from: hints of one deal share its outcome, so counting deals rather
    than hints keeps the interval from being too narrow)."""

    chance: float
    low: float
    high: float
    hints: int
    deals: int


def bin_of(raw: float) -> int:
    """The tenth (0..9) of a raw rate in [0, 1] (1.0 falls in the last tenth).

    Raises:
        ValueError: ``raw`` outside [0, 1].
    """
    if not 0.0 <= raw <= 1.0:
        raise ValueError(f"a rate lies in [0, 1], got {raw}")
    return min(BINS - 1, int(raw * BINS))


@lru_cache(maxsize=4)
def _load(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return {}


def table(key: str, path: Path | None = None) -> dict | None:
    """The calibration entry of ``key`` (``"<game>/<size>"``, e.g. ``"big-clock/double-6"``), or
    None when it was never measured. Its ``bins`` hold, per tenth, ``fit_n``/``fit_won``,
    ``check_n``/``check_won`` and ``shown``; ``settings`` the hint settings it was measured with.
    """
    return _load(path or TABLE_PATH).get(key)


def shown_chance(
    key: str, raw: float | None, settings: str | None = None, path: Path | None = None
) -> Chance | None:
    """The chance to show for a hint of ``key`` with raw rate ``raw``, or None.

    None when ``raw`` is None (no search finished), the table has no entry for ``key``, the
    entry was measured with other hint ``settings`` (when given), or the tenth is not shown.
    """
    if raw is None:
        return None
    entry = table(key, path)
    if entry is None or (settings is not None and entry.get("settings") != settings):
        return None
    b = entry["bins"][bin_of(raw)]
    if not b.get("shown"):
        return None
    return bin_chance(b)


def bin_chance(b: dict) -> Chance:
    """The chance a tenth ``b`` of a calibration table stands for: its fit rate, with a 95%
    Wilson interval over its fit deals.

    Raises:
        ZeroDivisionError: the tenth has no fit hints."""
    from .game import wilson_interval

    n, k, d = b["fit_n"], b["fit_won"], b["fit_deals"]
    lo, hi = wilson_interval(round(d * k / n), d)
    return Chance(k / n, lo, hi, n, d)


def quote(
    key: str | None,
    won: int,
    finished: int,
    tried: int,
    settings: str | None = None,
    exact: bool = False,
    path: Path | None = None,
) -> tuple[float | None, str]:
    """What a solitaire hint says about its best action: ``(win chance or None, reason)``.

    ``won`` of ``finished`` searches (out of ``tried``; the rest hit their node limit) found a
    win with the sampled stock order known. ``exact``: nothing is hidden, so a finished search
    is the answer (chance 1.0 or 0.0). Otherwise the chance is :func:`shown_chance` of the raw
    rate ``won / finished`` (None without ``key``, or where that tenth is not calibrated), and
    the reason says how the search went and how sure the chance is.
    """
    raw = won / finished if finished else None
    if exact:
        why = (
            "this move keeps a winning line"
            if raw == 1.0
            else "no move wins from here any more (this one follows the simple rule)"
            if raw == 0.0
            else "the search was cut short: win chance unknown"
        )
        return raw, why
    if raw is None:
        why = (
            f"no search finished on its {tried} sampled stock orders "
            "(the node limit cut them): win chance unknown"
        )
        return None, why
    unknown = tried - finished
    why = f"with the stock order known it would win in {won} of {finished} sampled orders"
    if unknown:
        why += f" ({unknown} more search{'es' if unknown > 1 else ''} unfinished)"
    shown = shown_chance(key, raw, settings, path) if key else None
    if shown is None:
        return None, why + "; win chance not shown: quotes like this are not calibrated"
    why += (
        f"; hints like this led to a win {100 * shown.chance:.0f}% of the time "
        f"(95% interval {100 * shown.low:.0f}-{100 * shown.high:.0f}%, "
        f"{shown.hints} hints on {shown.deals} benchmark deals)"
    )
    return shown.chance, why


__all__ = [
    "Chance",
    "TABLE_PATH",
    "MIN_HINTS",
    "MIN_DEALS",
    "TOLERANCE",
    "BINS",
    "bin_of",
    "table",
    "shown_chance",
    "bin_chance",
    "quote",
]
