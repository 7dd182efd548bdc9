"""Subcommands of ``farkle``; see :mod:`farkle_tui.cli`."""
