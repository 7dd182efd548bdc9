"""The small Facebook rules as a rules file, for command-line tests (the CLI reads presets or files)."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data" / "facebook-1000.toml"


def small_rules_file(directory: Path, goal: int = 1000, name: str = "small") -> Path:
    """``tests/data/facebook-1000.toml`` with another goal and name, written to ``directory``.

    Naming it like ``preset("facebook").with_goal(goal)`` (``facebook-<goal>``) makes the CLI
    share the strategy cache file of that rule set.
    """
    text = DATA.read_text().replace("goal = 1000", f"goal = {goal}")
    path = directory / f"{name}.toml"
    path.write_text(text.replace('name = "small"', f'name = "{name}"'))
    return path
