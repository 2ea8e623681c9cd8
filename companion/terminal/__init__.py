"""Terminal front ends for ``domino-companion play`` (input() / print(), no camera)."""
