"""The move prompt shared by the two-player terminal games (draw game, Tableaux).

Numbered actions, ``h`` for the hint, ``q`` to quit, optional extra keys (Tableaux: ``e`` ends
the turn); bad input gets a message and the prompt again; end of input quits cleanly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TextIO


def choose_action(
    actions: Sequence,
    hint_text: Callable[[], str],
    inp: TextIO,
    out: TextIO,
    extra: Mapping[str, tuple[str, object]] | None = None,
):
    """Ask the human for one of ``actions`` until a valid answer.

    Args:
        actions: the numbered choices (shown by the caller as ``1.`` ... ``n.``).
        hint_text: called for ``h`` / ``hint`` / ``?``; its text is printed and the prompt repeats.
        inp, out: the terminal's input and output streams.
        extra: more keys, ``{"e": ("end turn", END_TURN)}``: key -> (label in the prompt, action).
    Returns:
        the chosen action, or None when the player quit (``q``) or the input ended (message printed).
    """
    extra = extra or {}
    more = "".join(f", {k} = {label}" for k, (label, _) in extra.items())
    while True:
        print(f"your move (1-{len(actions)}{more}, h = hint, q = quit): ", end="", file=out)
        out.flush()
        line = inp.readline()
        if not line:
            print("\nend of input: game left unfinished.", file=out)
            return None
        text = line.strip().lower()
        if text in ("q", "quit", "exit"):
            print("bye.", file=out)
            return None
        if text in ("h", "hint", "?"):
            print(hint_text(), file=out)
            continue
        if text in extra:
            return extra[text][1]
        if text.isdigit() and 1 <= int(text) <= len(actions):
            return actions[int(text) - 1]
        print(
            f"please type a number from 1 to {len(actions)}{''.join(', ' + k for k in extra)}, h or q",
            file=out,
        )
