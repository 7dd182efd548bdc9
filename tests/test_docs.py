"""The documentation stays true: its links, its commands and its figures.

- Every link in the README and ``docs/`` points at a file in the repository, and every
  ``#anchor`` at a heading of its page (GitHub's rule for heading ids).
- Every ``farkle`` command shown is accepted: a synopsis (with ``[...]``, ``|`` or a
  placeholder such as ``FILE``) names only options its subcommand has; a concrete command is
  run in this process, with the work that would take seconds to hours (a solve, the exact
  3-player solve) replaced by a sentinel, so the command is checked up to the moment it would
  start computing: its arguments, the rules, the estimate's limit. The game and the web server
  are only parsed. Every other command shown names a script or test file that exists, and a
  bench script's options are the script's own. Every repository path a page names exists,
  and every import line of a ``python`` block imports.
- The README stays at most 200 lines, its Quick start two commands (the second is CI's), and
  it links every page of ``docs/``.
- Every figure a page states (a decimal, a percentage, a time or a size) is backed: produced
  by a command this test runs, written in a named test or in the code, or a dated measurement
  in ``docs/benchmarks.md`` whose section names its command (and its load, for a time).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import json
import re
import shlex
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BENCHMARKS = ROOT / "docs" / "benchmarks.md"
DOCS = [README, *sorted((ROOT / "docs").rglob("*.md"))]
#: ``[text](target)`` and ``![alt](target)``, the only link forms the docs use.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.MULTILINE)
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
#: A code span; it may wrap onto the next line (read it with its line breaks as spaces).
CODE_SPAN = re.compile(r"`([^`]+)`")
#: What counts as a figure: a decimal, a percentage, a time or a size.
FIGURE = re.compile(
    r"(?<![\w.])(?:"
    r"\d[\d,]*(?:\.\d+)?\s?%"
    r"|\d[\d,]*(?:\.\d+)?\s(?:ms|s|MB|GB|KB|min|minutes|hours?|h|days?)\b"
    r"|\d+(?:\.\d+)?e-\d+"
    r"|\d+\.\d+"
    r")(?![\w.])"
)
DATED = re.compile(r"\b20\d\d-\d\d-\d\d\b")
TIME = re.compile(r"\d\s(?:ms|s|min|minutes|hours?|h|days?)\b")


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def text_of(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def without_code_blocks(text: str) -> str:
    return FENCE.sub("", text)


# -- links and anchors -------------------------------------------------------------------------
def slug(heading: str) -> str:
    """GitHub's id for a heading: lower case, markup and punctuation dropped, spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").replace("*", "").lower().strip()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading id of a page, with GitHub's -1, -2 ... for repeats."""
    seen: dict[str, int] = {}
    ids = set()
    for _level, title in HEADING.findall(without_code_blocks(text_of(path))):
        base = slug(title)
        n = seen.get(base, 0)
        seen[base] = n + 1
        ids.add(base if n == 0 else f"{base}-{n}")
    return ids


@pytest.mark.parametrize("doc", DOCS, ids=rel)
def test_every_link_stays_inside_the_repository(doc: Path) -> None:
    for target in LINK.findall(without_code_blocks(text_of(doc))):
        path, _, anchor = target.partition("#")
        assert not re.match(r"[a-z][a-z0-9+.-]*:", path), f"{doc.name}: {target} leaves the repo"
        resolved = (doc.parent / path).resolve() if path else doc
        assert resolved.is_relative_to(ROOT), f"{doc.name}: {target} points outside the repo"
        assert resolved.exists(), f"{doc.name}: {target} does not exist"
        if anchor:
            assert resolved.suffix == ".md", f"{doc.name}: {target}: an anchor in a non-page"
            assert anchor in anchors(resolved), f"{doc.name}: {target}: no such heading"


def test_the_slug_is_githubs() -> None:
    assert (
        slug("2026-11-26: the card's go-for-it search") == "2026-11-26-the-cards-go-for-it-search"
    )
    assert slug("Playing in a web browser") == "playing-in-a-web-browser"
    assert slug("The `farkle` command") == "the-farkle-command"


# -- the README --------------------------------------------------------------------------------
def quick_start_commands() -> list[str]:
    section = text_of(README).split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [body.strip() for lang, body in FENCE.findall(section) if lang == "sh"]


def test_the_readme_fits_on_a_screen_or_two() -> None:
    assert len(text_of(README).splitlines()) <= 200


def test_the_quick_start_is_two_commands_and_ci_runs_the_second() -> None:
    play, test = quick_start_commands()
    assert play == "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/farkle"
    assert test == (
        "python3 -m venv .venv && .venv/bin/pip install '.[test]' && .venv/bin/python -m pytest"
    )
    ci = text_of(ROOT / ".ci" / "run")
    assert all(part.strip() in ci for part in test.split("&&")), "CI no longer runs it"


def test_the_readme_says_where_the_command_is() -> None:
    """Issue 35: "run `farkle`" failed on a fresh machine, where the command is in the venv."""
    section = text_of(README).split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "`.venv/bin/farkle`" in section and "`source .venv/bin/activate`" in section


def test_the_readme_links_every_docs_page() -> None:
    linked = {
        (README.parent / t.partition("#")[0]).resolve() for t in LINK.findall(text_of(README))
    }
    for page in DOCS[1:]:
        assert page.resolve() in linked, f"README does not link {rel(page)}"


#: A code span naming a file or folder of the repository (``solver/kernel.py``, ``docs/``).
REPO_PATH = re.compile(
    r"(?:engine|solver|farkle_tui|assets|tests|bench|scripts|docs|constraints|\.ci)/[\w./-]*"
)


@pytest.mark.parametrize("doc", DOCS, ids=rel)
def test_every_file_named_exists(doc: Path) -> None:
    """A page that names ``solver/kernel.py`` sends a reader there: the file must be there."""
    for raw in CODE_SPAN.findall(without_code_blocks(text_of(doc))):
        span = " ".join(raw.split())
        for word in span.split():
            if REPO_PATH.fullmatch(word):
                assert (ROOT / word).exists(), f"{rel(doc)}: `{span}` names {word}, which is gone"


# -- commands ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Shown:
    """A command as a page shows it."""

    page: str
    text: str

    def __str__(self) -> str:
        return f"{self.page}: {self.text}"


def shown_commands() -> list[Shown]:
    """Every command in a ``sh`` block, and every code span that starts like a command."""
    found: list[Shown] = []
    starts = ("farkle", ".venv/bin/farkle", "python", ".venv/bin/python", "FARKLE_", "scripts/")
    starts += ("bash ", ".venv/bin/pip", ".venv/bin/ruff")
    for doc in DOCS:
        text = text_of(doc)
        for lang, body in FENCE.findall(text):
            if lang in ("sh", ""):
                for line in body.splitlines():
                    command = line.split("#", 1)[0].strip()
                    for part in command.split("&&"):
                        if part.strip():
                            found.append(Shown(rel(doc), part.strip()))
        for raw in CODE_SPAN.findall(without_code_blocks(text)):
            span = " ".join(raw.replace("\\|", "|").split())  # \| is a pipe in a table cell
            if (span.startswith(starts) and " " in span) or span.startswith("scripts/"):
                found.append(Shown(rel(doc), span))
    return found


COMMANDS = shown_commands()
#: The options of a synopsis: ``--x``, and both ``--x`` and ``--no-x`` for ``--[no-]x``.
OPTION = re.compile(r"--(\[no-\])?([a-z][a-z-]*)")
#: A placeholder of a synopsis: an upper-case word (FILE, N, A,B[,C...], OLD_PYTHON).
PLACEHOLDER = re.compile(r"(?<![\w-])[A-Z][A-Z_]*(?![\w=])")


class WouldCompute(BaseException):
    """Raised where a command would start a solve: its input was all accepted."""


#: The functions that start hours of work, replaced by the sentinel wherever they are defined.
HEAVY = ("load_or_solve", "solve_exact_table", "run_app")


#: The repository's folders and the names they import as (pyproject.toml's package-dir).
PACKAGES = {"engine": "optimal_farkle.engine", "solver": "optimal_farkle.solver"}
PACKAGES["farkle_tui"] = "optimal_farkle.tui"


@functools.cache
def heavy_modules() -> tuple[str, ...]:
    """The modules that define a HEAVY function, found by their source (wherever they live)."""
    names = []
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            if any(f"def {name}(" in source for name in HEAVY):
                parts = path.relative_to(ROOT / folder).with_suffix("").parts
                names.append(".".join((package, *parts)).removesuffix(".__init__"))
    return tuple(names)


@pytest.fixture
def dry(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Empty caches and data, and every heavy function a sentinel."""
    monkeypatch.setenv("FARKLE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FARKLE_DATA_DIR", str(tmp_path / "data"))

    def stop(*_args: object, **_kwargs: object) -> Any:
        raise WouldCompute

    for name in heavy_modules():
        module = importlib.import_module(name)
        for heavy in HEAVY:
            if hasattr(module, heavy):
                monkeypatch.setattr(module, heavy, stop)


def farkle_argv(command: str) -> list[str] | None:
    """The arguments of a ``farkle`` command, or None for another program."""
    words = shlex.split(command)
    if words and words[0] in ("farkle", ".venv/bin/farkle"):
        return words[1:]
    return None


@functools.cache
def subcommands() -> dict[str, Any]:
    """Every subcommand's parser, by name."""
    from optimal_farkle.tui.cli import build_parser

    parser = build_parser()
    found: dict[str, Any] = {}
    for action in parser._subparsers._group_actions if parser._subparsers else []:
        found.update(getattr(action, "choices", None) or {})
    return found


def subcommand_options(argv: list[str]) -> tuple[str, set[str]]:
    """The subcommand named and every option string its parser (and the top one) accepts."""
    from optimal_farkle.tui.cli import build_parser

    options = set(build_parser()._option_string_actions)
    name = next((w for w in argv if not w.startswith("-")), "")
    if name in subcommands():
        options |= set(subcommands()[name]._option_string_actions)
    return name, options


def is_synopsis(command: str) -> bool:
    return "..." in command or any(c in command for c in "[]|") or bool(PLACEHOLDER.search(command))


@pytest.mark.parametrize(
    "shown",
    [c for c in COMMANDS if farkle_argv(c.text) is not None and is_synopsis(c.text)],
    ids=str,
)
def test_every_synopsis_names_real_options(shown: Shown) -> None:
    words = shown.text.split()
    name, options = subcommand_options([w for w in words[1:] if w.islower()])
    if words[1:] and not words[1].startswith("-") and words[1].islower():
        assert name == words[1], f"{shown}: no subcommand {words[1]!r}"
    for negated, option in OPTION.findall(shown.text):
        assert f"--{option}" in options, f"{shown}: {name} has no --{option}"
        if negated:
            assert f"--no-{option}" in options, f"{shown}: {name} has no --no-{option}"


#: Shown commands that are only parsed: the game, the web server.
PARSE_ONLY = ("serve",)


def is_name(argv: list[str]) -> bool:
    """``farkle match`` in a sentence names the subcommand; it is not a command to run."""
    return len(argv) == 1 and not argv[0].startswith("-")


@pytest.mark.parametrize(
    "shown",
    [c for c in COMMANDS if farkle_argv(c.text) is not None and not is_synopsis(c.text)],
    ids=str,
)
def test_every_farkle_command_shown_is_accepted(shown: Shown, dry: None) -> None:
    from optimal_farkle.tui.cli import build_parser, join_signed_values, main

    argv = farkle_argv(shown.text)
    assert argv is not None
    err = io.StringIO()
    if is_name(argv):
        assert argv[0] in subcommands(), f"{shown}: no such subcommand"
        return
    if not argv or argv[0] in PARSE_ONLY:
        with contextlib.redirect_stderr(err):
            try:
                build_parser().parse_args(join_signed_values(argv))
            except SystemExit as exc:
                pytest.fail(f"{shown}: refused ({exc.code}): {err.getvalue().strip()}")
        return
    _name, options = subcommand_options(argv)
    try:
        if "--json" in options and "--json" not in argv:
            farkle_json(*argv)  # the run the figures below read, made once
            return
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code: object = main(argv)
    except WouldCompute:
        return  # every check passed; the work would start here
    except Refused as exc:
        code, err = exc.args[0], io.StringIO(exc.args[1])
    except SystemExit as exc:
        code = exc.code
    assert code in (0, None), f"{shown}: refused ({code}): {err.getvalue().strip()}"


def test_a_refused_command_is_caught(dry: None) -> None:
    """The check above fails a command its subcommand refuses, before any work (issue 35)."""
    from optimal_farkle.tui.cli import main

    for argv in (
        ["match", "--players", "optimal,max-score,coach"],
        ["match", "--players", "optimal,optimal,optimal", "--exact"],
    ):
        with contextlib.redirect_stderr(io.StringIO()), pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2, argv


#: Programs whose first argument (after ``-m pytest``, ``python``, ``bash``) is a repo file.
def named_files(command: str) -> Iterator[str]:
    words = [w for w in shlex.split(command) if "=" not in w.split("/")[0] or w.startswith(".")]
    for word in words:
        if re.fullmatch(r"\.?[\w./-]+\.(py|sh)|scripts/\w+|\.ci/\w+|tests/[\w/]+\.py", word):
            yield word


@pytest.mark.parametrize("shown", [c for c in COMMANDS if farkle_argv(c.text) is None], ids=str)
def test_every_other_command_names_files_that_exist(shown: Shown) -> None:
    for name in named_files(shown.text):
        if name.startswith(".venv/"):
            continue  # made by the Quick start
        assert (ROOT / name).exists(), f"{shown}: {name} does not exist"


@pytest.mark.parametrize(
    "shown", [c for c in COMMANDS if re.search(r"\bbench/\w+\.py", c.text)], ids=str
)
def test_every_bench_option_shown_is_the_scripts(shown: Shown) -> None:
    """``python bench/solve.py --before jit``: the script defines every option shown."""
    script = re.search(r"\bbench/\w+\.py", shown.text)
    assert script is not None
    source = text_of(ROOT / script.group(0))
    for _negated, option in OPTION.findall(shown.text):
        assert f'"--{option}"' in source, f"{shown}: {script.group(0)} has no --{option}"


def python_imports() -> list[Shown]:
    """The import lines of every ``python`` block: what a reader copies first."""
    return [
        Shown(rel(doc), line.strip())
        for doc in DOCS
        for lang, body in FENCE.findall(text_of(doc))
        if lang == "python"
        for line in body.splitlines()
        if re.match(r"\s*(from \S+ )?import ", line)
    ]


@pytest.mark.parametrize("shown", python_imports(), ids=str)
def test_every_import_shown_imports(shown: Shown) -> None:
    exec(shown.text, {})  # a line of our own docs, importing our own package


# -- figures -----------------------------------------------------------------------------------
class Refused(Exception):
    """A command ended with a nonzero status: (status, what it wrote on stderr)."""


@functools.cache
def farkle_json(*argv: str) -> Any:
    """What ``farkle ARGV --json`` prints (run in this process)."""
    from optimal_farkle.tui.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: object = main([*argv, "--json"])
        except SystemExit as exc:
            code = exc.code
    if code not in (0, None):
        raise Refused(code, err.getvalue())
    return json.loads(out.getvalue())


@functools.cache
def shipped_card(preset: str) -> Any:
    """The card ``farkle card --rules PRESET`` prints its odds from (``bench/card.py --write``)."""
    return json.loads(text_of(ROOT / "assets" / "cards" / f"{preset}.json"))


def pct(x: float, digits: int = 2) -> str:
    return f"{100 * x:.{digits}f}%"


def go_for_it(card: Any) -> str:
    """``B: 4 8,800, 3 9,300; D: 5 7,350`` (the thresholds that are set, most dice first)."""
    parts = []
    for letter, side in (("B", "score"), ("D", "opponent")):
        set_ = [(n, v) for n, v in sorted(card["go_for_it"][side].items(), reverse=True) if v]
        if set_:
            parts.append(f"{letter}: " + ", ".join(f"{n} {v:,}" for n, v in set_))
    return "; ".join(parts)


#: The rows of the card page's table: each shipped card's preset, as the row names it.
CARD_ROWS = {p: f"`{p}`" for p in ("neller-busche", "facebook", "patch", "zilch")}
CARD_ROWS["greed"] = "`greed` (five dice)"


def test_the_card_table_has_every_shipped_card() -> None:
    assert sorted(CARD_ROWS) == sorted(p.stem for p in (ROOT / "assets" / "cards").glob("*.json"))


def card_figures() -> list[str]:
    """The card page's table and sentences, from the shipped cards."""
    rows = []
    for preset, label in CARD_ROWS.items():
        card = shipped_card(preset)
        win, plain = card["win"], card["plain"]
        scores = "Table 4" if card["source"] == "paper" else go_for_it(card)
        rows.append(
            f"| {label} | {scores} | **{pct(win['overall'])}** | "
            f"{pct(win['first'])} / {pct(win['second'])} | {pct(plain['overall'])} |"
        )
    paper = shipped_card("neller-busche")
    edge = 100 * (1 - 2 * paper["win"]["overall"])
    start = {
        p: pct(shipped_card(p)["search"]["start_win"]["overall"])
        for p in ("facebook", "patch", "zilch")
    }
    zilch = shipped_card("zilch")
    return [
        *rows,
        f"wins {pct(paper['win']['overall'])} against the optimal player (a gap of {edge:.2f}",
        f"alone wins\n{pct(paper['plain']['overall'])}",
        f"From Table 4 the card wins {start['facebook']} under `facebook`, {start['patch']} under "
        f"`patch` and\n{start['zilch']} under `zilch`",
        f"({pct(zilch['win']['overall'], 5)} against {pct(zilch['plain']['overall'], 5)} for the",
    ]


def command_line_figures() -> list[str]:
    """The analysis commands' figures, from the commands."""
    patch = farkle_json("distribution", "--rules", "patch")
    tail = sum(p for x, p in zip(patch["points"], patch["probability"], strict=True) if x > 3000)
    zilch = farkle_json("expected", "--long-run", "--rules", "zilch")
    facebook = farkle_json("expected", "--long-run")  # the default rules
    entry = farkle_json("expected", "--entry", "--rules", "patch")
    return [
        f"long tail to {patch['max_points']:,} points, {pct(tail)} above 3,000 (mean "
        f"{patch['mean']:.2f}, farkle {pct(patch['farkle_probability'])})",
        f"{zilch['average']:.3f} points per turn",
        f"(the max-score strategy everywhere: {zilch['max_score_average']:.2f})",
        f"`facebook`: {facebook['average']:.2f} ({facebook['max_score_average']:.2f})",
        f"{entry['expected']:.2f} points on average, on the board with\nprobability "
        f"{pct(1 - entry['farkle_probability'])}",
    ]


@dataclass(frozen=True)
class InFile:
    """A figure written, as ``literal``, in a test or data file that checks it."""

    path: str
    literal: str


@dataclass(frozen=True)
class InCode:
    """A figure that is a constant of the code (any module of the package)."""

    literal: str


@dataclass(frozen=True)
class Measured:
    """A figure that is a dated measurement in docs/benchmarks.md, quoted as ``literal``."""

    literal: str


Backing = InFile | InCode | Measured
PUBLISHED = "tests/test_solver_published.py"
#: Each page's figures that no command here computes: (as written, what backs it).
BACKED: dict[str, list[tuple[str, Backing]]] = {
    "README.md": [("Python 3.11", InFile("pyproject.toml", 'requires-python = ">=3.11"'))],
    "docs/table-solve.md": [
        ("about 1.9 times as fast", Measured("**1.94x**")),
        ("a median of 1.94x", Measured("**1.94x**")),
        ("1.88 to 2.01", Measured("1.88 to 2.01")),
        ("through the object store 1.71x", Measured("**1.71x**")),
        ("1.65 to 1.77", Measured("1.65 to 1.77")),
        ("about 0.3 GB", InCode("WORKER_BASE_BYTES = 300 * 1024**2")),
        ("within 1.5 times the duel kernel", Measured("**1.42x**")),
    ],
    "docs/command-line.md": [
        ("exact to\n1e-12", InCode("TOLERANCE = 1e-12")),
        ("over 15\nminutes", InCode("LIMIT_SECONDS = 15 * 60")),
        *[
            (figure, Measured(figure))
            for figure in ("50.40%, 53.70%", "50.31%, 53.49%", "50.23%, 52.89%", "50.13%, 53.34%")
        ],
    ],
    "docs/contributing.md": [
        ("1.8%", InFile("tests/test_card_published.py", "PAPER_GAP = 1.8")),
        ("numpy 2.4", InFile(".ci/lowest", "2.4 on")),
    ],
    "docs/learning.md": [
        ("above 1e-10", InCode("TIE = 1e-10")),
        ("the paper's 1.8 to its", InFile("tests/test_card_published.py", "PAPER_GAP = 1.8")),
        ('"within about 1.8%"', InFile("tests/test_card_published.py", "PAPER_GAP = 1.8")),
        ("inaccuracy from 0.5", InCode('("inaccuracy", 0.005)')),
    ],
    "docs/playing.md": [("inaccuracy from 0.5", InCode('("inaccuracy", 0.005)'))],
    "docs/rules.md": [
        ("53.487%", InFile(PUBLISHED, "== 0.534870")),
        ("0.534870", InFile(PUBLISHED, "== 0.534870")),
        *[(f, InFile(PUBLISHED, f'== "{f}"')) for f in ("0.511005", "0.506680", "0.509711")],
    ],
    "docs/solver.md": [
        ("1e-14", InCode("LAYER_TOLERANCE = 1e-14")),
        ("1e-3", InCode("WARM_TOLERANCE = 1e-3")),
        ("1e-12", InCode("TOLERANCE = 1e-12")),
        ("below 1e-17", InCode("REACH_EPSILON = 1e-17")),
        ("most 1e-17", InCode("REACH_EPSILON = 1e-17")),
        ("wins 0.534870", InFile(PUBLISHED, "== 0.534870")),
        ("5e-8", InFile(PUBLISHED, "5e-7 + 5e-8")),
        ("4e-8", InFile(PUBLISHED, "within 4e-8")),
    ],
    "docs/three-players.md": [
        ("268 s here", Measured("268 s wall")),
        ("507 s of CPU", Measured("507 s CPU")),
        ("`patch`'s took 591 s", Measured("591 s wall")),
        ("in 591 s", Measured("591 s wall")),
        ("300 s here (15 passes)", Measured("300 s wall (189 s CPU), 15 passes")),
        ("2,858 s (18 passes)", Measured("**2,858 s wall (48 min)**")),
        *[(f, Measured(f)) for f in ("40.6444 %", "32.6089 %", "26.7467 %")],
        ("2,671 s (14 passes)", Measured("**2,671 s wall (45 min)**")),
        *[(f, Measured(f)) for f in ("41.2058 %", "32.0183 %", "26.7759 %")],
        *[
            (f, Measured(f))
            for f in ("43.1751 %", "32.0851 %", "24.7398 %", "66 to 82 min", "5.4 h", "20.9 GB")
        ],
        ("15 minutes", InCode("LIMIT_SECONDS = 15 * 60")),
        ("more than 1e-12", InCode("TOLERANCE = 1e-12")),
        ("to 2e-12", InFile("tests/test_table_solver.py", "< 2e-12")),
        (
            "to\n1e-12 (`tests/test_table_solver.py`)",
            InFile("tests/test_table_solver.py", "AGREE = 1e-12"),
        ),
        *[(f, Measured(f)) for f in ("37.1610 %", "33.1218 %", "29.7172 %", "0.536953032")],
        *[(f, Measured(f)) for f in ("36.2984 %", "33.2028 %", "30.4988 %", "3,198 MB")],
    ],
}
#: Each page's figures that a command here computes.
COMPUTED: dict[str, Callable[[], list[str]]] = {
    "docs/learning.md": card_figures,
    "docs/command-line.md": command_line_figures,
}


@functools.cache
def code_text() -> str:
    return "\n".join(
        text_of(p)
        for folder in ("engine", "solver", "farkle_tui")
        for p in (ROOT / folder).rglob("*.py")
    )


def dated_sections() -> list[tuple[str, str]]:
    """benchmarks.md cut at its headings: (the nearest dated heading, the text under it)."""
    text = text_of(BENCHMARKS)
    marks = list(HEADING.finditer(text))
    out = []
    dated: list[tuple[int, str]] = []  # the open dated headings: (level, title)
    for i, mark in enumerate(marks):
        level, title = len(mark.group(1)), mark.group(2)
        body = text[mark.end() : marks[i + 1].start() if i + 1 < len(marks) else len(text)]
        dated = [(lv, t) for lv, t in dated if lv < level]
        if DATED.search(title):
            dated.append((level, title))
        out.append((dated[-1][1] if dated else "", body))
    return out


def benchmarks_dated_text() -> str:
    return "\n".join(body for heading, body in dated_sections() if heading)


def check_backing(page: str, written: str, backing: Backing) -> None:
    if isinstance(backing, InFile):
        source = text_of(ROOT / backing.path)
        assert backing.literal in source, f"{page}: {written!r}: {backing.path} no longer checks it"
    elif isinstance(backing, InCode):
        assert backing.literal in code_text(), (
            f"{page}: {written!r}: no {backing.literal!r} in the code"
        )
    else:
        assert backing.literal in benchmarks_dated_text(), (
            f"{page}: {written!r}: not a dated measurement in docs/benchmarks.md"
        )


def flat(text: str) -> str:
    """Line breaks as spaces, so a figure reads the same wherever the page wraps."""
    return re.sub(r"\s+", " ", text)


PAGES = [d for d in DOCS if d != BENCHMARKS]


@pytest.mark.parametrize("doc", PAGES, ids=rel)
def test_every_figure_is_backed(doc: Path) -> None:
    page = rel(doc)
    text = flat(text_of(doc))
    claims = [(flat(w), b) for w, b in BACKED.get(page, [])]
    computed = [flat(c) for c in COMPUTED[page]()] if page in COMPUTED else []
    for written, backing in claims:
        assert written in text, f"{page}: {written!r} is no longer written (update BACKED)"
        check_backing(page, written, backing)
    for written in computed:
        assert written in text, f"{page}: the command gives {written!r}, which the page lacks"
    for written in sorted([w for w, _ in claims] + computed, key=len, reverse=True):
        text = text.replace(written, " ")
    left = FIGURE.findall(text)
    assert not left, f"{page}: figures with nothing behind them: {left} (see this test's docstring)"


def test_every_measurement_is_dated_with_its_command_and_load() -> None:
    """benchmarks.md: a figure under a dated heading whose section shows the command that
    measured it (and the load, for a time); the summaries above quote only dated figures."""
    sections = dated_sections()
    dated = benchmarks_dated_text()
    groups: dict[str, str] = {}
    for heading, body in sections:
        if heading:
            groups[heading] = groups.get(heading, "") + body
    for heading, body in groups.items():
        assert re.search(r"`(python bench/|farkle |\.venv/bin/farkle|bash \.ci/)", body), (
            f"{heading}: no command"
        )
        if TIME.search(body):
            assert "load" in body.lower(), f"{heading}: times without the machine's load"
    for heading, body in sections:
        if not heading:
            for figure in FIGURE.findall(flat(body)):
                assert figure in flat(dated), f"undated figure {figure!r} in benchmarks.md"
