"""The Textual game and the ``farkle`` command line. Composes :mod:`engine` and :mod:`solver`."""

__version__ = "0.1.0"
