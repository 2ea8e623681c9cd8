"""Blueprints of the companion: ``pages`` (HTML for phones) and ``api`` (JSON, under /api)."""
