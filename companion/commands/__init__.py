"""One module per ``domino-companion`` subcommand (see companion/cli.py)."""
