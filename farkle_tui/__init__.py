"""The Textual game and the ``farkle`` command line. Composes :mod:`optimal_farkle.engine` and
:mod:`optimal_farkle.solver`; neither knows it exists."""

from importlib.metadata import version

#: The distribution's version, defined once in ``pyproject.toml``.
__version__ = version("optimal-farkle")
