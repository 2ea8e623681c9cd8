"""Looks of domino sets people own: body colour, pips, divider bar, spinner pin, backs.

A :class:`TileStyle` fixes how every tile of one set is drawn. :func:`random_style` draws one of
the preset families (ivory + black pips, coloured pips by number, white-on-black, pink/coloured
bodies with raised pips, wood/bamboo) with random variation. Colours are BGR tuples 0..255.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

Colour = tuple[int, int, int]

#: Pip colours by number used by coloured-pip sets (BGR): 1 light blue, 2 green, 3 red,
#: 4 brown/olive, 5 dark blue, 6 yellow/orange, 7 purple, 8 dark green, 9 black,
#: 10 red, 11 blue, 12 orange.
COLOURED_PIPS: dict[int, Colour] = {
    1: (225, 180, 90),
    2: (60, 150, 40),
    3: (40, 40, 200),
    4: (40, 110, 120),
    5: (140, 60, 20),
    6: (20, 170, 230),
    7: (140, 40, 120),
    8: (40, 90, 20),
    9: (30, 30, 30),
    10: (60, 60, 220),
    11: (200, 100, 40),
    12: (30, 120, 240),
}

FAMILIES = ("ivory", "coloured", "white_on_black", "raised_colour", "wood")
BACK_PATTERNS = ("plain", "logo", "stripes", "dots", "frame")


@dataclass(frozen=True)
class TileStyle:
    """How the tiles of one set look.

    Attributes:
        family: one of :data:`FAMILIES`.
        max_pip: 6, 9 or 12 (double-N set; sets the pip size).
        body: face colour (BGR).
        back: colour of the tile's back (BGR); usually equal to ``body``.
        side: colour of the tile's edge seen in perspective (BGR).
        pip_colour: colour of all pips, used when ``pip_colours`` is empty.
        pip_colours: per-number pip colour (coloured-pip sets).
        pip_look: "flat", "engraved" (dark rim, lighter centre) or "raised" (highlight dot).
        pip_scale: multiplier on the standard pip radius.
        divider: "line", "groove" or "none".
        divider_colour: colour of the divider bar.
        divider_len: length of the bar as a fraction of the tile's width.
        spinner: draw a brass spinner pin at the centre of the bar.
        back_pattern: one of :data:`BACK_PATTERNS`.
        back_ink: ink colour of the printed back pattern.
        logo: text printed on logo backs.
        corner: corner radius as a fraction of the tile's width.
        thickness: visible tile thickness as a fraction of the tile's width.
        six_across: 6 drawn as rows across the tile.
        gloss: strength of the specular highlight on the faces (0..1).
        length: tile length in tile widths (2.0 = the standard 2:1 tile; some sets, and tiles
            seen with their thick edge, look squatter).
    """

    family: str = "ivory"
    max_pip: int = 6
    body: Colour = (200, 235, 245)
    back: Colour = (200, 235, 245)
    side: Colour = (150, 190, 205)
    pip_colour: Colour = (20, 20, 20)
    pip_colours: dict[int, Colour] = field(default_factory=dict)
    pip_look: str = "flat"
    pip_scale: float = 1.0
    divider: str = "line"
    divider_colour: Colour = (25, 25, 25)
    divider_len: float = 0.8
    spinner: bool = False
    back_pattern: str = "plain"
    back_ink: Colour = (60, 50, 40)
    logo: str = "RO"
    corner: float = 0.12
    thickness: float = 0.18
    six_across: bool = False
    gloss: float = 0.3
    length: float = 2.0

    def pip_colour_of(self, n: int) -> Colour:
        """Colour of the pips of the number ``n`` (1..12)."""
        return self.pip_colours.get(n, self.pip_colour)


def _jitter(rng: np.random.Generator, c: Colour, amount: float) -> Colour:
    return tuple(int(np.clip(v + rng.normal(0, amount), 0, 255)) for v in c)  # type: ignore[return-value]


def _darker(c: Colour, f: float) -> Colour:
    return tuple(int(v * f) for v in c)  # type: ignore[return-value]


def random_style(
    rng: np.random.Generator, family: str | None = None, max_pip: int | None = None
) -> TileStyle:
    """A random set style.

    Args:
        rng: numpy random generator.
        family: one of :data:`FAMILIES`, or None for a random one (ivory is the most likely).
        max_pip: 6, 9 or 12, or None for random (6 most likely).
    Returns:
        A :class:`TileStyle`.
    Raises:
        ValueError: unknown family or max_pip.
    """
    if family is None:
        family = str(rng.choice(FAMILIES, p=[0.45, 0.22, 0.12, 0.13, 0.08]))
    if family not in FAMILIES:
        raise ValueError(f"unknown style family {family!r}; use one of {FAMILIES}")
    if max_pip is None:
        max_pip = int(rng.choice([6, 9, 12], p=[0.6, 0.25, 0.15]))
    if max_pip not in (6, 9, 12):
        raise ValueError(f"max_pip must be 6, 9 or 12, got {max_pip}")
    ivory = _jitter(
        rng, (int(rng.uniform(170, 235)), int(rng.uniform(215, 250)), int(rng.uniform(225, 255))), 6
    )
    kw: dict = {}
    if family == "ivory":
        body = ivory if rng.random() < 0.8 else _jitter(rng, (240, 240, 240), 8)
        kw = dict(
            body=body,
            pip_colour=_jitter(rng, (25, 25, 25), 10),
            pip_look=str(rng.choice(["flat", "engraved"])),
        )
    elif family == "coloured":
        body = ivory if rng.random() < 0.6 else _jitter(rng, (238, 240, 240), 8)
        cols = {k: _jitter(rng, v, 15) for k, v in COLOURED_PIPS.items()}
        kw = dict(
            body=body, pip_colours=cols, pip_look=str(rng.choice(["flat", "engraved", "engraved"]))
        )
    elif family == "white_on_black":
        body = _jitter(rng, (25, 25, 25), 8)
        kw = dict(
            body=body,
            pip_colour=_jitter(rng, (235, 235, 235), 10),
            divider_colour=(220, 220, 220),
            pip_look="flat",
        )
    elif family == "raised_colour":
        body = _jitter(
            rng,
            tuple(
                int(v)
                for v in rng.choice(
                    [
                        (180, 130, 240),
                        (200, 160, 250),
                        (220, 140, 60),
                        (80, 180, 80),
                        (60, 60, 200),
                        (40, 200, 230),
                        (230, 200, 130),
                        (160, 80, 160),
                    ]
                )
            ),
            15,
        )
        pip = (245, 245, 245) if rng.random() < 0.6 else _jitter(rng, (30, 30, 30), 10)
        kw = dict(body=body, pip_colour=pip, divider_colour=pip, pip_look="raised")
    else:  # wood / bamboo
        body = _jitter(rng, (110, 170, 215), 20)
        kw = dict(body=body, pip_colour=_jitter(rng, (20, 30, 40), 8), pip_look="flat")
    body = kw["body"]
    back_pattern = str(rng.choice(BACK_PATTERNS, p=[0.4, 0.25, 0.1, 0.1, 0.15]))
    back = (
        body
        if rng.random() < 0.8
        else _jitter(rng, tuple(int(v) for v in rng.integers(30, 230, 3)), 5)
    )
    spinner = bool(rng.random() < 0.35) and family != "white_on_black"
    divider = str(rng.choice(["line", "groove", "none"], p=[0.7, 0.22, 0.08]))
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    logo = "".join(rng.choice(list(letters), size=int(rng.integers(1, 5))))
    kw.setdefault("divider_colour", _jitter(rng, (25, 25, 25), 10))
    return TileStyle(
        family=family,
        max_pip=max_pip,
        back=back,
        side=_darker(body, rng.uniform(0.6, 0.85)),
        pip_scale=float(rng.uniform(0.85, 1.2)),
        divider=divider,
        divider_len=float(rng.uniform(0.6, 0.95)),
        spinner=spinner,
        back_pattern=back_pattern,
        back_ink=_jitter(
            rng,
            tuple(
                int(v)
                for v in rng.choice([(60, 40, 30), (30, 30, 160), (120, 60, 20), (20, 20, 20)])
            ),
            15,
        ),
        logo=logo,
        corner=float(rng.uniform(0.04, 0.2)),
        thickness=float(rng.uniform(0.08, 0.35)),
        six_across=bool(rng.random() < 0.3),
        gloss=float(rng.uniform(0.0, 0.6)),
        length=2.0 if rng.random() < 0.6 else float(rng.uniform(1.6, 2.0)),
        **kw,
    )


def preset_style(name: str, max_pip: int = 6) -> TileStyle:
    """A fixed, non-random style: "ivory" (black pips, divider line, brass spinner), "coloured",
    "white_on_black", "raised_colour" or "wood". Used by tests and demos.

    Raises:
        ValueError: unknown name.
    """
    base = TileStyle(max_pip=max_pip)
    if name == "ivory":
        return replace(base, spinner=True)
    if name == "coloured":
        return replace(base, family=name, pip_colours=dict(COLOURED_PIPS), pip_look="engraved")
    if name == "white_on_black":
        return replace(
            base,
            family=name,
            body=(25, 25, 25),
            back=(25, 25, 25),
            side=(15, 15, 15),
            pip_colour=(235, 235, 235),
            divider_colour=(220, 220, 220),
        )
    if name == "raised_colour":
        return replace(
            base,
            family=name,
            body=(180, 130, 240),
            back=(180, 130, 240),
            side=(130, 90, 180),
            pip_colour=(245, 245, 245),
            divider_colour=(245, 245, 245),
            pip_look="raised",
        )
    if name == "wood":
        return replace(
            base,
            family=name,
            body=(110, 170, 215),
            back=(110, 170, 215),
            side=(70, 120, 160),
            pip_colour=(20, 30, 40),
        )
    raise ValueError(f"unknown style {name!r}; use one of {FAMILIES}")
