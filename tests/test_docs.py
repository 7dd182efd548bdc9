"""The documentation stands on its own: every link in it points at a file in the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: ``[text](target)`` and ``![alt](target)``, the only link forms the docs use.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_stays_inside_the_repository(doc: Path) -> None:
    for target in LINK.findall(doc.read_text(encoding="utf-8")):
        path, _, _anchor = target.partition("#")
        assert not re.match(r"[a-z][a-z0-9+.-]*:", path), f"{doc.name}: {target} leaves the repo"
        if not path:
            continue  # an anchor in the same page
        resolved = (doc.parent / path).resolve()
        assert resolved.is_relative_to(ROOT), f"{doc.name}: {target} points outside the repo"
        assert resolved.exists(), f"{doc.name}: {target} does not exist"
