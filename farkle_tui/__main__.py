"""``python -m optimal_farkle.tui``: the ``farkle`` command (``farkle serve`` runs the game so)."""

import sys

from .cli import main

sys.exit(main())
