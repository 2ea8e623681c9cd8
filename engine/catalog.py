"""The catalog of games: one :class:`GameType` record per game, the one source of game facts.

In the spirit of OpenSpiel's ``GameType``: a record says what a game is (names, sets, players,
targets, variants, what the table shows, whether the player's own tiles are needed, whether a
score sheet is kept) so that the command line, the web page, the OpenAPI description, the layout
reader and the renderer derive everything from it instead of keeping lists of game names.
Rules: ``../shared/RULES.md`` (the section is named in :attr:`GameType.rules`).

``GAMES`` maps the short name (``GameType.name``) to its record, in the order the page lists
them. :func:`get_game_type` looks a name up; ``GameType.make(**params)`` builds the engine's
:class:`engine.game.Game` and ``GameType.hint(state, **kw)`` asks its hint.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import import_module
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game import Game, Hint, State


class Hand(enum.Enum):
    """Which of the player's own tiles (not on the table) a reading of the game needs."""

    NONE = "none"
    """Everything is on the table (Good Neighbors, Luzon)."""
    HAND = "hand"
    """The player's hand, photographed apart or typed: no state without it (draw game, Tableaux)."""
    DRAWN = "drawn"
    """The one tile just drawn from the stock: the state stands without it, the hint needs it
    (The Big Clock)."""


class Table(enum.Enum):
    """What lies on the table in a photo of the game."""

    FACE_UP = "face-up"
    """Face-up tiles only (Good Neighbors' grid, Luzon's columns, a Tableaux tableau); a
    face-down box can only be a 0-0 read as a back."""
    FACE_UP_AND_STOCK = "face-up-and-stock"
    """A face-up layout and a face-down stock beside it (The Big Clock's ring)."""
    LINE_AND_BONEYARD = "line-and-boneyard"
    """A line of play and a face-down boneyard beside it (the draw game)."""

    @property
    def face_down(self) -> bool:
        """Face-down tiles (a stock or boneyard) may lie on the table."""
        return self is not Table.FACE_UP

    @property
    def layout_face_up(self) -> bool:
        """The layout itself is face up, so a box read as a back may be a face-up tile misread
        (every game but the draw game, whose face-down boneyard lies beside the line)."""
        return self is not Table.LINE_AND_BONEYARD


class Shape(enum.Enum):
    """The shape of the layout on the table (what the layout reader rebuilds)."""

    LINE = "line"
    """A line of play with open ends and spinners (the draw game)."""
    TABLEAU = "tableau"
    """Tiles on a square grid of cells, placed flush (Tableaux)."""
    GRID = "grid"
    """Rows of tiles; neighbours are removed in pairs (Good Neighbors)."""
    RING = "ring"
    """Piles on the hour positions of a clock face (The Big Clock)."""
    COLUMNS = "columns"
    """Overlapping columns and a reserve (Luzon)."""


@dataclass(frozen=True)
class GameType:
    """One game of the catalog (rules: ``../shared/RULES.md``, section :attr:`rules`).

    Attributes:
        name: short id used everywhere (``engine.make_game``, URLs, the CLI), e.g. ``"draw100"``.
        label: the name for people.
        factory: ``"module:Class"`` of the engine's :class:`engine.game.Game`.
        hint_module: module whose ``hint(state, **kw) -> engine.game.Hint`` gives the hint.
        rules: the section of RULES.md, e.g. ``"RULES.md section 4"``.
        sets: the sets it is played with, as ``max_pip`` values (double-N), the default first.
        min_players, max_players: player range (1 and 1 for a solitaire).
        targets: points to win by set (``{max_pip: points}``); empty for an unscored game.
        variants: names of rule variants (``""`` is the standard rules).
        hand: which of the player's own tiles a reading needs (:class:`Hand`).
        table: what a photo of the table shows (:class:`Table`).
        shape: the shape of the layout (:class:`Shape`).
        scored: True when the table keeps a score sheet over rounds.
        perfect_information: nothing is hidden from the player (Luzon's whole set lies open).
        whole_set_on_table: every tile of the set is on the table or already removed, so the
            tiles missing from a photo are known (Luzon).
        round_name: what one entry of the score sheet is called ("hand", "turn"; "" unscored).
        round_kinds: the kinds of score-sheet entry (the first is the usual one).
        pass_penalty: points a pass costs (Tableaux: 3, RULES.md section 5); 0 where a pass is
            free.
        scores_pips_left: a round's winner scores the pips left in the other hands (the draw
            game, RULES.md section 4), so the page counts them from the tiles left.
    """

    name: str
    label: str
    factory: str
    hint_module: str
    rules: str
    sets: tuple[int, ...]
    min_players: int
    max_players: int
    hand: Hand
    table: Table
    shape: Shape
    targets: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    variants: tuple[str, ...] = ()
    scored: bool = False
    perfect_information: bool = False
    whole_set_on_table: bool = False
    round_name: str = ""
    round_kinds: tuple[str, ...] = ()
    pass_penalty: int = 0
    scores_pips_left: bool = False

    # --- derived traits ----------------------------------------------------------------
    @property
    def solitaire(self) -> bool:
        """A one-player game (won or lost, no score sheet)."""
        return self.max_players == 1

    @property
    def needs_hand(self) -> bool:
        """A state of the game cannot be rebuilt from the table alone (:attr:`Hand.HAND`)."""
        return self.hand is Hand.HAND

    @property
    def takes_hand(self) -> bool:
        """The reading takes the player's own tiles: a hand or the tile just drawn."""
        return self.hand is not Hand.NONE

    @property
    def default_set(self) -> int:
        """The set used when none is named (``max_pip``)."""
        return self.sets[0]

    @property
    def module(self) -> str:
        """The engine module that holds the Game class (e.g. ``"engine.luzon"``)."""
        return self.factory.partition(":")[0]

    def to_json(self) -> dict[str, Any]:
        """The record as JSON for the page and the API: every field but the engine's module
        names, enums as their text, ``targets`` keyed by set text, plus the derived
        ``solitaire``, ``needs_hand`` and ``takes_hand``."""
        return {
            "name": self.name,
            "label": self.label,
            "rules": self.rules,
            "sets": list(self.sets),
            "min_players": self.min_players,
            "max_players": self.max_players,
            "targets": {str(k): v for k, v in self.targets.items()},
            "variants": list(self.variants),
            "hand": self.hand.value,
            "table": self.table.value,
            "shape": self.shape.value,
            "scored": self.scored,
            "perfect_information": self.perfect_information,
            "whole_set_on_table": self.whole_set_on_table,
            "round_name": self.round_name,
            "round_kinds": list(self.round_kinds),
            "pass_penalty": self.pass_penalty,
            "scores_pips_left": self.scores_pips_left,
            "solitaire": self.solitaire,
            "needs_hand": self.needs_hand,
            "takes_hand": self.takes_hand,
        }

    def default_target(self, max_pip: int | None = None) -> int | None:
        """Points to win with a double-``max_pip`` set (None: the default set); None when the
        game is not scored or not played with that set."""
        return self.targets.get(self.default_set if max_pip is None else max_pip)

    def params(self, max_pip: int | None = None, variant: str | None = None) -> dict[str, Any]:
        """The keyword parameters of :meth:`make` for a set and a variant.

        ``max_pip`` is passed only for a game played with more than one set; ``variant`` only
        when it is not the standard rules (``None`` or ``""``).

        Raises:
            ValueError: a set the game is not played with, or an unknown variant.
        """
        out: dict[str, Any] = {}
        if max_pip is not None:
            if max_pip not in self.sets:
                raise ValueError(
                    f"{self.label} is played with a double-"
                    f"{'/'.join(map(str, self.sets))} set, not double-{max_pip}"
                )
            if len(self.sets) > 1:
                out["max_pip"] = max_pip
        if variant:
            if variant not in self.variants:
                raise ValueError(f"{self.label} has no variant {variant!r}")
            out["variant"] = variant
        return out

    def make(self, **params: Any) -> Game:
        """The engine's Game with ``params`` (e.g. ``max_pip=9``).

        Raises:
            ValueError: bad parameters (the Game class says which).
        """
        module_name, _, cls_name = self.factory.partition(":")
        cls = getattr(import_module(module_name), cls_name)
        game: Game = cls(**params)
        return game

    @property
    def hint(self) -> Callable[..., Hint]:
        """The hint function of the game: ``hint(state, **kw) -> engine.game.Hint``."""
        fn: Callable[..., Hint] = import_module(self.hint_module).hint
        return fn

    def hint_for(self, state: State, **kw: Any) -> Hint:
        """The engine's hint for ``state`` (``kw``: the hint function's own settings)."""
        return self.hint(state, **kw)


#: The games' short names, for code that means one game in particular (a script's default game,
#: a demo table); code that treats games alike reads their traits from :data:`GAMES` instead.
DRAW100 = "draw100"
TABLEAUX = "tableaux"
GOOD_NEIGHBORS = "good-neighbors"
BIG_CLOCK = "big-clock"
LUZON = "luzon"


def _frozen(d: dict[int, int]) -> Mapping[int, int]:
    return MappingProxyType(dict(d))


_CATALOG = (
    GameType(
        name=DRAW100,
        label="Double-six draw to 100",
        factory="engine.draw100:Draw100Game",
        hint_module="engine.draw100",
        rules="RULES.md section 4",
        sets=(6,),
        min_players=2,
        max_players=4,
        hand=Hand.HAND,
        table=Table.LINE_AND_BONEYARD,
        shape=Shape.LINE,
        targets=_frozen({6: 100}),
        scored=True,
        round_name="hand",
        round_kinds=("domino", "blocked", "manual"),
        scores_pips_left=True,
    ),
    GameType(
        name=TABLEAUX,
        label="Tableaux",
        factory="engine.tableaux:TableauxGame",
        hint_module="engine.tableaux.hint",
        rules="RULES.md section 5",
        sets=(6, 9),
        min_players=2,
        max_players=2,
        hand=Hand.HAND,
        table=Table.FACE_UP,
        shape=Shape.TABLEAU,
        targets=_frozen({6: 121, 9: 361}),
        scored=True,
        round_name="turn",
        round_kinds=("play", "pass", "manual"),
        pass_penalty=3,
    ),
    GameType(
        name=GOOD_NEIGHBORS,
        label="Good Neighbors (solitaire)",
        factory="engine.good_neighbors:GoodNeighborsGame",
        hint_module="engine.good_neighbors",
        rules="RULES.md section 1",
        sets=(12, 9, 6),
        min_players=1,
        max_players=1,
        hand=Hand.NONE,
        table=Table.FACE_UP,
        shape=Shape.GRID,
    ),
    GameType(
        name=BIG_CLOCK,
        label="The Big Clock (solitaire)",
        factory="engine.big_clock:BigClockGame",
        hint_module="engine.big_clock",
        rules="RULES.md section 2",
        sets=(12, 9, 6),
        min_players=1,
        max_players=1,
        hand=Hand.DRAWN,
        table=Table.FACE_UP_AND_STOCK,
        shape=Shape.RING,
    ),
    GameType(
        name=LUZON,
        label="Luzon (solitaire)",
        factory="engine.luzon:LuzonGame",
        hint_module="engine.luzon",
        rules="RULES.md section 3",
        sets=(6,),
        min_players=1,
        max_players=1,
        hand=Hand.NONE,
        table=Table.FACE_UP,
        shape=Shape.COLUMNS,
        variants=("", "sixes"),
        perfect_information=True,
        whole_set_on_table=True,
    ),
)

#: Short name -> :class:`GameType`, in the order the page lists the games. Read-only.
GAMES: Mapping[str, GameType] = MappingProxyType({g.name: g for g in _CATALOG})


def get_game_type(name: str) -> GameType:
    """The record of the game called ``name`` (``"_"`` accepted for ``"-"``, any case).

    Raises:
        ValueError: unknown game name (the message lists the known ones).
    """
    key = str(name).strip().lower().replace("_", "-")
    try:
        return GAMES[key]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(GAMES)}") from None


@cache
def name_of(cls: type) -> str:
    """The catalog name of the Game class ``cls`` (its record's ``factory`` names the class, or
    the package that re-exports it); ``""`` when no record does."""
    for g in GAMES.values():
        module, _, cls_name = g.factory.partition(":")
        if cls.__name__ == cls_name and (
            cls.__module__ == module or cls.__module__.startswith(module + ".")
        ):
            return g.name
    return ""


def games_where(pred: Callable[[GameType], bool]) -> frozenset[str]:
    """The names of the games whose record satisfies ``pred`` (e.g. ``lambda g: g.needs_hand``)."""
    return frozenset(g.name for g in GAMES.values() if pred(g))
