"""A hostile user's campaign against the ``farkle`` command line.

Rules files, game records, caches and cache dirs, and argument lists of the kinds issues 9
and 35 found breaking things: every command with every kind of bad value of its options,
hostile files (markup and huge numbers in rules, long paths), closed and full standard
streams, output encodings without the characters drawn. Every run is checked: no traceback
(nor the command line's last-resort "internal error" line), an exit status of 0 or one
``farkle: error:`` line, no hang, the right answer where one is known, and nothing that was
on disk lost. Prints the counts::

    python bench/hostile_cli.py            # about 830 runs, tens of minutes
    python bench/hostile_cli.py --fast     # the fast part: about 280 runs, a minute or two
    python bench/hostile_cli.py --verbose  # every run's command and verdict

The counts come per class (:data:`CLASSES`): every command x bad values, hostile files, long
paths, markup, closed and full stdout, encodings, rules files, records, caches, arguments,
two instances on one data dir (two windows' storages interleaved at random: no game lost),
and a hostile websocket client of ``farkle serve`` (the whole campaign only: it starts a
server). Each class must show 0 tracebacks, 0 hangs, 0 silent no-ops (or wrong answers),
0 bad exits and 0 lost files or games.

The fast part runs in the test suite (tests/test_cli_hostile.py): the argument matrix, the
markup titles, the encodings and the closed stdout in this process (``main()`` with the
streams replaced), one real process for each kind of closed or full stream, and 40 rounds of
two instances; the whole campaign in the slow suite. The rest runs each case as a separate
``farkle`` process with a time limit.

A real read-only folder needs a read-only bind mount (root on Linux); without one that case
is skipped and said so.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PRESET = ROOT / "tests" / "data" / "facebook-1000.toml"
LIMIT = 120.0  # seconds before a run counts as a hang


def _too_big() -> bool:
    """Whether goal 100,000 at floor -20,000 needs more memory than this machine has (then
    the refusal names the memory first, and the time in brackets)."""
    from optimal_farkle.engine import preset
    from optimal_farkle.solver.duel.estimate import solve_estimate
    from optimal_farkle.solver.duel.model import build_model

    return solve_estimate(build_model(preset("facebook").with_goal(100_000), -20_000)).too_big()


TOO_BIG = _too_big()

Check = Callable[[int, str, str], str | None]  # (status, stdout, stderr) -> what is wrong, or None


Outcome = tuple[int, str, str, bool]  # status, stdout, stderr, hung
#: How a stream of the process is set up: the real closed descriptor, or an encoding.
CLOSED = "closed"


def farkle(
    args: list[str],
    stdout: int | None = subprocess.PIPE,
    env: dict[str, str] | None = None,
    close: tuple[int, ...] = (),
) -> Outcome:
    """Run ``farkle ARGS`` as a process (``close``: descriptors closed in it, 0 or 1)."""
    code = "import sys; from optimal_farkle.tui.cli import main; sys.exit(main())"

    def closing() -> None:
        for fd in close:
            os.close(fd)

    try:
        done = subprocess.run(
            [sys.executable, "-c", code, *args],
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.PIPE,
            timeout=LIMIT,
            check=False,
            env={**os.environ, **(env or {})},
            preexec_fn=closing if close else None,  # the campaign starts no threads
        )
    except subprocess.TimeoutExpired:
        return -1, "", "", True
    out = done.stdout.decode("utf-8", "replace") if isinstance(done.stdout, bytes) else ""
    return done.returncode, out, done.stderr.decode("utf-8", "replace"), False


def in_process(args: list[str], stdout: str | None = None) -> Outcome:
    """Run ``farkle ARGS`` in this process, its streams replaced: ``stdout`` is None (text),
    :data:`CLOSED` (``sys.stdout`` is None, as Python sets it for ``>&-``) or an encoding.
    An exception that escapes ``main`` is written to stderr as a traceback."""
    from optimal_farkle.tui.cli import main

    raw = io.BytesIO()
    out: Any = (
        None
        if stdout == CLOSED
        else io.TextIOWrapper(raw, encoding=stdout or "utf-8", write_through=True)
    )
    err = io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = main(args)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # what the campaign counts
        err.write(traceback.format_exc())
        code = 1
    finally:
        if out is not None:
            with contextlib.suppress(Exception):
                out.flush()
        sys.stdout, sys.stderr = saved
    text = raw.getvalue().decode(stdout if stdout not in (None, CLOSED) else "utf-8", "replace")
    return code, text, err.getvalue(), False


def snapshot(folder: Path) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            out[str(path)] = f"link {os.readlink(path)}"
        elif path.is_fifo():
            out[str(path)] = "fifo"
        elif path.is_dir():
            out[str(path)] = "dir"
        elif path.suffix not in (".w0", ".tmp") and not path.name.endswith(".lock"):
            # caches may be rebuilt; orphan temporary files are meant to go
            out[str(path)] = path.read_bytes()
    return out


#: The campaign's classes, in the order it reports them (issue 35's list).
CLASSES = (
    "every command x bad values",
    "hostile files",
    "long paths",
    "markup",
    "closed/full stdout",
    "encodings",
    "rules files",
    "records",
    "caches",
    "arguments",
    "two instances on one data dir",
    "hostile websocket client",
)
#: The verdicts the acceptance counts: each must be 0 in every class.
BAD = ("tracebacks", "hangs", "silent no-ops", "bad exits", "lost")


class Campaign:
    def __init__(self, root: Path, verbose: bool) -> None:
        self.root = root
        self.verbose = verbose
        self.counts: Counter[str] = Counter()
        self.problems: list[str] = []
        self.kind = CLASSES[0]  # the class of the cases run now
        self.by_class: dict[str, Counter[str]] = {}

    def count(self, verdict: str, n: int = 1) -> None:
        """Count ``verdict`` in the whole campaign and in the class under way."""
        self.counts[verdict] += n
        self.by_class.setdefault(self.kind, Counter())[verdict] += n

    def run(
        self,
        args: list[str],
        check: Check | None = None,
        stdout: int | None = None,
        outcome: Callable[[], Outcome] | None = None,
    ) -> None:
        """Run one case (``outcome``: how, default a process) and judge it."""
        before = snapshot(self.root)
        if outcome is None:
            code, out, err, hung = farkle(args, stdout if stdout is not None else subprocess.PIPE)
        else:
            code, out, err, hung = outcome()
        after = snapshot(self.root)
        self.count("runs")
        verdict = None
        if hung:
            self.count("hangs")
            verdict = "hang"
        elif "Traceback" in err or "internal error (" in err:
            self.count("tracebacks")
            verdict = "traceback"
        elif code != 0 and not (
            code in (1, 2)
            and err.strip().splitlines()[-1:]
            and ": error: " in err.strip().splitlines()[-1]
        ):
            self.count("bad exits")
            verdict = f"status {code} without one error line"
        elif code == 0 and "--json" in args and stdout is None:
            try:
                if not isinstance(json.loads(out), dict):
                    raise ValueError
            except ValueError:
                self.count("silent no-ops")
                verdict = "--json did not print one JSON object"
        if verdict is None and check is not None:
            wrong = check(code, out, err)
            if wrong:
                self.count("silent no-ops")
                verdict = wrong
        missing = [name for name, content in before.items() if content not in after.values()]
        if missing:
            self.count("lost", len(missing))
            verdict = (verdict or "") + f" lost {missing}"
        self.count("ok" if verdict is None else "failed")
        self.count("refused" if code else "answered")
        line = f"{'ok ' if verdict is None else 'BAD'} {code:>3} farkle {' '.join(args)[:150]}"
        if verdict:
            self.problems.append(f"{line}\n    {verdict}\n    {err.strip()[-300:]}")
        if self.verbose:
            print(line + (f"  <- {verdict}" if verdict else ""), flush=True)
            if err.strip():
                print(f"      {err.strip().splitlines()[-1][:300]}", flush=True)


def expect(status: int, words: str = "") -> Check:
    def check(code: int, out: str, err: str) -> str | None:
        if code != status:
            return f"expected status {status}, got {code}"
        if words and words not in out + err:
            return f"expected {words!r} in the output"
        return None

    return check


def rules_text(**changes: str) -> str:
    text = PRESET.read_text()
    for key, value in changes.items():
        lines = text.splitlines()
        text = (
            "\n".join(f"{key} = {value}" if ln.split("=")[0].strip() == key else ln for ln in lines)
            + "\n"
        )
    return text


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--fast", action="store_true", help="the fast part only")
    options = parser.parse_args()
    c = campaign(options.fast, options.verbose)
    sys.exit(1 if c.problems else 0)


def campaign(fast_only: bool, verbose: bool = False) -> Campaign:
    """Run the campaign (or its fast part) in a fresh folder and print the counts."""
    root = Path(tempfile.mkdtemp(prefix="farkle-hostile-"))
    saved = {key: os.environ.get(key) for key in ("FARKLE_CACHE_DIR", "FARKLE_DATA_DIR")}
    os.environ["FARKLE_CACHE_DIR"] = str(root / "cache")
    os.environ["FARKLE_DATA_DIR"] = str(root / "data")
    c = Campaign(root, verbose)
    started = time.monotonic()
    try:
        fast(c, root)
        two_instances(c, root / "shared", rounds=40 if fast_only else 400)
        if not fast_only:
            play(c, root)
            websocket(c, root / "served")
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        for fifo in root.rglob("*"):
            if fifo.is_fifo():
                with contextlib.suppress(OSError):  # nobody reads it: nothing to release
                    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        subprocess.run(["umount", str(root / "ro-mount")], capture_output=True, check=False)
        shutil.rmtree(root, ignore_errors=True)
    for problem in c.problems:
        print(problem)
    print(report(c, time.monotonic() - started))
    return c


def report(c: Campaign, seconds: float) -> str:
    """The counts per class, then the whole campaign's: runs, answered, refused, and the
    verdicts the acceptance wants at 0 (silent no-ops include wrong answers)."""
    heads = ("runs", "answered", "refused", *BAD)
    width = max(len(k) for k in CLASSES)

    def row(name: str, cells: list[str]) -> str:
        return f"{name:<{width}}  " + "  ".join(
            f"{x:>{max(8, len(h))}}" for x, h in zip(cells, heads, strict=True)
        )

    lines = [row("class", list(heads))]
    for kind in [*CLASSES, *(k for k in c.by_class if k not in CLASSES)]:
        n = c.by_class.get(kind)
        if n:
            lines.append(row(kind, [str(n[h]) for h in heads]))
    lines.append(row("all", [str(c.counts[h]) for h in heads]))
    n = c.counts
    lines.append(
        f"{n['runs']} runs in {seconds:.0f} s: {n['answered']} answered, {n['refused']} "
        f"refused; tracebacks {n['tracebacks']}, hangs {n['hangs']}, silent no-ops or wrong "
        f"answers {n['silent no-ops']}, bad exits {n['bad exits']}, lost {n['lost']}"
    )
    return "\n".join(lines)


MARKUP = "Bad [/] [b]x [link=https://evil.example]y[/link] :smile: Café ±→"
#: Bad values for the options every analysis command shares.
BAD_RULES = ["", "nonesuch", "a" * 300 + ".toml", "a" * 100_000, "\x1b[2J", "/dev/zero"]
BAD_FLOORS = ["1", "-333", "-20050", str(10**50), "x", ""]
BAD_FOLDERS = ["", " "]


def finished_record(path: Path, names: tuple[str, str] = ("Ann[/b]", "Zoë")) -> Path:
    """A finished 600-point game of ``names[0]`` against the coach, saved at ``path``."""
    from optimal_farkle.engine import preset
    from optimal_farkle.engine.dice import SeededDice
    from optimal_farkle.engine.game import Player
    from optimal_farkle.engine.record import GameSession, save_record
    from optimal_farkle.solver.players.computer import make_player

    rules = preset("facebook").with_goal(600)
    session = GameSession.start(
        rules, (Player(names[0]), Player(names[1], "coach")), dice=SeededDice(3)
    )
    ai = make_player("coach", rules, None)
    while not session.is_over:
        session.act(ai.act(session.state))
    save_record(path, session.record)
    return path


def argument_matrix(small: str, record: str) -> list[list[str]]:
    """Every command with every kind of bad value of its options: each must be refused."""
    rules = ["--rules", small]
    cases: list[list[str]] = []
    solving = ("solve", "strategy", "komi", "card", "distribution")
    for command in ("solve", "strategy", "expected", "distribution", "komi", "match", "card"):
        extra = ["--players", "max-score,cautious"] if command == "match" else []
        cases += [[command, *extra, "--rules", value] for value in BAD_RULES]
        if command != "expected":
            cases += [[command, *extra, *rules, "--cache-dir", value] for value in BAD_FOLDERS]
        if command in solving or command == "match":
            cases += [[command, *extra, *rules, f"--floor={value}"] for value in BAD_FLOORS]
    for command in ("strategy", "distribution"):
        more = ["--strategy", "optimal"] if command == "distribution" else []
        for option, values in (
            ("--score", ["75", str(10**50), "-50000", "600", "x"]),
            ("--opponent", ["x", "-50000"]),
            ("--farkles", ["-1", "3", "x"]),
            ("--opponent-farkles", ["9"]),
        ):
            cases += [[command, *more, *rules, f"{option}={value}"] for value in values]
        cases += [
            [command, *more, *rules, flag] for flag in ("--no-entered", "--no-opponent-entered")
        ]
        cases += [[command, *more, "--rules", "patch", "--farkles", "1"]]
    cases += [["expected", f"--penalty={v}"] for v in ("nan", "inf", "-1", "1e308", "x")]
    cases += [["expected", f"--max-turn={v}"] for v in ("75", "-50", "1000000000", "x")]
    cases += [["expected", "--long-run", "--penalty", "5"], ["expected", "--long-run", "--entry"]]
    cases += [["distribution", f"--band={v}"] for v in ("0", "75", "-500", "x")]
    cases += [["distribution", f"--penalty={v}"] for v in ("nan", "-1")]
    cases += [
        ["distribution", "--strategy", "bogus"],
        ["distribution", "--score", "100"],
        ["distribution", "--strategy", "optimal", "--penalty", "5"],
        ["distribution", "--strategy", "optimal", "--entry"],
    ]
    cases += [["komi", *rules, f"--around={v}"] for v in ("-1", "41", "x")]
    cases += [["replay", value] for value in ("", "/nonexistent/x.json", "a" * 5000, "/")]
    cases += [["replay", record, f"--floor={v}"] for v in BAD_FLOORS]
    cases += [["replay", record, "--cache-dir", v] for v in BAD_FOLDERS]
    match = ["match", *rules]
    cases += [
        [*match, "--players", v]
        for v in ("", "a", "optimal", "nobody,optimal", "strong,optimal", "a,b,c,d,e,f,g", ",")
    ]
    pair = [*match, "--players", "max-score,cautious"]
    cases += [[*pair, f"--games={v}"] for v in ("0", "1", "x", str(10**9))]
    cases += [[*pair, f"--seed={v}"] for v in ("x", "")]
    cases += [[*pair, f"--start-scores={v}"] for v in ("", " ", "x,0", "590,0", "1,2,3", "0,")]
    cases += [[*pair, "--exact", "--games", "4"]]
    cases += [["card", *rules, f"--window={v}"] for v in ("75", "0", "-50", "x")]
    cases += [["card", *rules, "--window", "150"], ["card", *rules, "--allow-long"]]
    cases += [["serve", f"--port={v}"] for v in ("-1", "70000", "x")]
    cases += [["bogus"], ["--bogus"], ["solve", "--rules"], ["replay"], ["match"]]
    return cases


def analyses(small: str, record: str) -> list[list[str]]:
    """One run of every command that answers, on the small rules."""
    rules = ["--rules", small]
    return [
        ["expected", *rules],
        ["expected", *rules, "--long-run"],
        ["distribution", *rules],
        ["distribution", *rules, "--strategy", "optimal"],
        ["komi", *rules, "--around", "1"],
        ["solve", *rules],
        ["strategy", *rules],
        ["card", *rules],
        ["replay", record],
        ["match", *rules, "--players", "max-score,cautious", "--games", "4"],
        ["match", *rules, "--players", "max-score,cautious,coach", "--games", "6"],
    ]


def fast(c: Campaign, root: Path) -> None:
    """The fast part (module doc): in this process, and one process per kind of stream."""
    small = root / "small.toml"
    small.write_text(rules_text(goal="600", name='"small"'))
    titled = root / "titled.toml"
    titled.write_text(rules_text(goal="600", name='"small"', title=json.dumps(MARKUP)))
    record = str(finished_record(root / "game.json"))

    def here(args: list[str], stdout: str | None = None) -> Callable[[], Outcome]:
        return lambda: in_process(args, stdout)

    # -- every command x bad values -------------------------------------------------------------
    c.kind = "every command x bad values"
    for args in argument_matrix(str(small), record):
        c.run(args, expect(2), outcome=here(args))
    # -- hostile files: markup titles, huge numbers, long paths ------------------------------------
    c.kind = "markup"
    for args in analyses(str(titled), record):
        shown = MARKUP if args[0] != "replay" else "Ann[/b] vs Zoë"

        def as_written(code: int, out: str, err: str, shown: str = shown) -> str | None:
            if code != 0:
                return f"expected status 0, got {code}"
            return None if shown in " ".join(out.split()) else f"{shown!r} not printed as written"

        if args[0] != "match":  # match names the rules by name, not title
            c.run(args, as_written, outcome=here(args))
    c.kind = "hostile files"
    for goal in ("0x" + "f" * 5000, "9" * 5000, "1e999999"):
        path = root / "huge.toml"
        path.write_text(rules_text(goal=goal))
        args = ["expected", "--rules", str(path)]
        c.run(args, expect(2), outcome=here(args))
    c.kind = "long paths"
    for name in ("a" * 300 + ".toml", "a" * 5000 + ".toml", "b" * 100_000):
        args = ["expected", "--rules", str(root / name)]

        def short(code: int, out: str, err: str) -> str | None:
            return None if code == 2 and len(err) < 600 else f"status {code}, {len(err):,} bytes"

        c.run(args, short, outcome=here(args))
    deep = str(root / ("d" * 200) / ("e" * 200) / ("f" * 5000))
    args = ["solve", "--rules", str(small), "--json", "--cache-dir", deep]
    c.run(args, expect(0, '"cached": false'), outcome=here(args))
    # -- closed stdout and short encodings, every command -----------------------------------------
    for args in analyses(str(small), record):
        c.kind = "closed/full stdout"
        c.run(args, expect(1, "stdout is closed"), outcome=here(args, CLOSED))
        c.kind = "encodings"
        for encoding in ("ascii", "latin-1"):

            def plain(code: int, out: str, err: str) -> str | None:
                if code != 0 or not out.strip():
                    return f"expected an answer, got status {code}"
                return "a character replaced by ?" if "?" in out else None

            c.run([*args, f"({encoding})"], plain, outcome=here(args, encoding))
    # -- real processes: a closed stdout and stdin, a full device, an ASCII encoding -------------
    c.kind = "closed/full stdout"
    c.run(
        ["expected"],
        expect(1, "stdout is closed"),
        outcome=lambda: farkle(["expected"], close=(1,)),
    )
    c.run([], expect(2, "needs a terminal"), outcome=lambda: farkle([], close=(0,)))
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            c.run(["--help"], expect(1, "No space left on device"), stdout=full.fileno())
    ascii_card = ["card", "--rules", str(small)]
    c.kind = "encodings"
    c.run(
        ascii_card,
        expect(0, "The card - "),
        outcome=lambda: farkle(ascii_card, env={"PYTHONIOENCODING": "ascii"}),
    )


def two_instances(c: Campaign, data: Path, rounds: int) -> None:
    """Two farkle windows on one data dir (issue 35, defect 2: a game was lost between them):
    each round, two windows' storages play, start new games and finish games in a random
    order, and every game that has a move must be in some file afterwards, at its last move;
    a window whose game was put aside is told so (a silent move of a game counts as a silent
    no-op). Each round is a run; the TUI's own handling is tested in tests/test_tui_issue35.py.
    """
    import random

    from optimal_farkle.engine import preset
    from optimal_farkle.engine.dice import SeededDice
    from optimal_farkle.engine.game import Bank, Phase, Player, Roll, SetAside
    from optimal_farkle.engine.record import GameSession
    from optimal_farkle.tui.storage import Storage

    c.kind = "two instances on one data dir"
    rules = preset("facebook").with_goal(600)

    def step(session: GameSession) -> None:
        state = session.state
        if state.phase is Phase.CHOOSE:
            session.act(SetAside(state.options()[0].dice))
        else:
            session.act(Bank() if state.can_bank() and state.turn_total >= 300 else Roll())

    for n in range(rounds):
        rng = random.Random(n)
        folder = data / str(n)
        windows = [Storage(folder), Storage(folder)]
        games: list[GameSession | None] = [None, None]
        played: list[GameSession] = []
        said: list[str] = []
        problem = ""
        for _ in range(rng.randrange(4, 24)):
            w = rng.randrange(2)
            kind = rng.choice(("move", "move", "move", "new", "finish"))
            session = games[w]
            try:
                if session is None or kind == "new":
                    who = (Player(f"W{w}-{len(played)}"), Player("Bob"))
                    session = GameSession.start(rules, who, dice=SeededDice(rng.randrange(99)))
                    games[w] = session
                    played.append(session)
                if kind == "finish":
                    while not session.is_over:
                        step(session)
                    windows[w].archive(session.record)
                    games[w] = None
                    continue
                if not session.is_over:
                    step(session)
                kept = windows[w].save_current(session.record)
                if kept:
                    said.append(kept)
            except Exception as exc:  # what the run counts
                problem = f"traceback: {type(exc).__name__}: {exc}"
                break
        texts = {path.read_text(encoding="utf-8") for path in folder.rglob("*.json")}
        lost = [g for g in played if g.record.events and g.record.to_json() not in texts]
        c.count("runs")
        c.count("answered")
        if problem:
            c.count("tracebacks")
        elif lost:
            c.count("lost", len(lost))
            problem = f"{len(lost)} game(s) in no file at their last move"
        c.count("failed" if problem else "ok")
        if problem:
            c.problems.append(f"BAD two instances, round {n}: {problem}")
        if c.verbose:
            print(f"{'BAD' if problem else 'ok '} two instances round {n}: {len(said)} told")


def websocket(c: Campaign, root: Path) -> None:
    """A hostile websocket client of ``farkle serve`` (issue 35, defect 5): tests/test_serve.py's
    tabs, one after another (a 100,000 x 100,000 resize, a stopped game, a 2 MB message, four
    messages that are not the page's, Ctrl+C while a game does not answer). Each tab is a run;
    a game that outlives its tab is a hang, a traceback on the server's console one too."""
    import asyncio
    import importlib.util

    c.kind = "hostile websocket client"
    path = ROOT / "tests" / "test_serve.py"
    spec = importlib.util.spec_from_file_location("serve_tests", path)
    assert spec is not None and spec.loader is not None
    serve_tests = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(serve_tests)
    root.mkdir(parents=True, exist_ok=True)
    served = serve_tests.Served(root)
    tabs = 8
    problem = verdict = ""
    try:
        asyncio.run(asyncio.wait_for(serve_tests.hostile_tabs(served), 600))
        out = served.output()
        if not served.games_end():
            problem, verdict = "a game outlived the server", "hangs"
        elif "Traceback" in out:
            problem, verdict = f"the server printed a traceback: {out[-500:]}", "tracebacks"
        elif served.process.returncode != 0:
            problem, verdict = f"the server stopped with {served.process.returncode}", "bad exits"
    except (AssertionError, TimeoutError) as exc:
        problem, verdict = f"{type(exc).__name__}: {exc}", "hangs"
    finally:
        served.close()
    c.count("runs", tabs)
    c.count("refused", tabs)  # every tab is closed by the server, its game ended
    if problem:
        c.count(verdict)
        c.count("failed")
        c.problems.append(f"BAD hostile websocket client: {problem}")
    else:
        c.count("ok", tabs)
    if c.verbose:
        print(f"{'BAD' if problem else 'ok '} {tabs} hostile tabs of farkle serve {problem}")


def streams(c: Campaign, root: Path) -> None:
    """Every command as a real process with stdout closed or full, and in short encodings."""
    small = str(root / "small.toml")
    record = str(root / "game.json")
    for args in analyses(small, record):
        c.kind = "closed/full stdout"
        c.run(args, expect(1, "stdout is closed"), outcome=lambda a=args: farkle(a, close=(1,)))
        if os.path.exists("/dev/full"):
            with open("/dev/full", "w") as full:
                c.run(args, expect(1, "No space left on device"), stdout=full.fileno())
        c.kind = "encodings"
        for encoding in ("ascii", "latin-1"):
            env = {"PYTHONIOENCODING": encoding}
            c.run(args, expect(0), outcome=lambda a=args, e=env: farkle(a, env=e))
    c.kind = "hostile files"
    explode = root / "explode.toml"
    explode.write_text(
        rules_text(goal="100", min_bank="0", singles="{ 1 = 100000, 5 = 50 }", name='"explode"')
    )
    c.run(["card", "--rules", str(explode)], expect(2, "far more than anyone could learn"))
    c.run(["card", "--rebuild"], expect(2, "pass --allow-long"))
    c.run(["card", "--rebuild", "--window", "150"], expect(2, "pass --allow-long"))


def play(c: Campaign, root: Path) -> None:
    cache = root / "cache"
    small = root / "small.toml"
    small.write_text(rules_text(goal="600", name='"small"'))
    nopen = root / "nopen.toml"
    nopen.write_text(rules_text(goal="600", name='"nopen"', farkles="0", points="0"))

    # -- rules files ------------------------------------------------------------------------------
    c.kind = "rules files"
    bad_rules = {
        "markup title": rules_text(goal="600", title='"[/] [b]x [link=https://e.x]y[/link]"'),
        "escape title": rules_text(title='"a\\u001b[2Jb"'),
        "01 face": rules_text(singles='{ 1 = 100, "01" = 1000 }'),
        "space face": rules_text(singles='{ " 1" = 100, 5 = 50 }'),
        "7 face": rules_text(singles="{ 7 = 100 }"),
        "deep": "a = " + "[" * 3000 + "]" * 3000,
        "long int": rules_text(goal="9" * 5000),
        "empty": "",
        "not toml": "= = =",
        "min bank above goal": rules_text(min_bank="1500"),
        "half penalty": rules_text(points="0"),
        "unknown key": rules_text() + "\n[extra]\nx = 1\n",
        "goal 0": rules_text(goal="0"),
        "negative": rules_text(straight="-1500"),
        "float": rules_text(goal="1000.0"),
        "string goal": rules_text(goal='"1000"'),
        "huge title": rules_text(title='"' + "x" * 5000 + '"'),
        "newline in title": rules_text(title='"a\\nb"'),
        "surrogate": rules_text(title='"\\ud800"'),
    }
    files: dict[str, Path] = {}
    for name, text in bad_rules.items():
        path = root / f"rules-{name.replace(' ', '-')}.toml"
        path.write_text(text, encoding="utf-8")
        files[name] = path
    (root / "binary.toml").write_bytes(os.urandom(2000))
    (root / "utf16.toml").write_bytes(rules_text().encode("utf-16"))
    (root / "bom.toml").write_bytes(b"\xef\xbb\xbf" + rules_text(goal="600", name='"bom"').encode())
    (root / "big.toml").write_text(rules_text() + "#" * 100_000)
    os.mkfifo(root / "fifo.toml")
    (root / "dir.toml").mkdir()
    odd = [
        root / "binary.toml",
        root / "utf16.toml",
        root / "big.toml",
        root / "fifo.toml",
        root / "dir.toml",
        root / "missing.toml",
    ]
    for path in [*files.values(), *odd]:
        c.run(["expected", "--rules", str(path), "--json"])
    c.run(["expected", "--rules", "/dev/zero"], expect(2, "a device"))
    c.run(["expected", "--rules", str(root / "bom.toml"), "--json"], expect(0))
    c.run(["expected", "--rules", str(files["01 face"])], expect(2, "must be one of 1, 2"))
    c.run(["expected", "--rules", str(files["space face"])], expect(2, "must be one of 1, 2"))
    c.run(
        ["solve", "--rules", str(files["markup title"]), "--cache-dir", str(cache)],
        expect(0, "[/] [b]x"),
    )
    c.run(
        ["strategy", "--rules", str(files["markup title"]), "--cache-dir", str(cache)],
        expect(0, "[/] [b]x"),
    )

    # -- records ----------------------------------------------------------------------------------
    c.kind = "records"
    good = finished_record(root / "good.json", ("Ann[/b]", "Coach"))
    text = good.read_text()
    data = json.loads(text)

    def variant(name: str, content: str) -> Path:
        path = root / f"record-{name}.json"
        path.write_text(content, encoding="utf-8")
        return path

    def changed(**keys: object) -> str:
        copy = json.loads(text)
        copy.update(keys)
        return json.dumps(copy)

    records = [
        variant(f"cut{n}", text[:n]) for n in (0, 1, 10, 100, 500, len(text) // 2, len(text) - 3)
    ]
    records += [
        variant("version2", changed(version=2)),
        variant("version-big", changed(version=10**40)),
        variant("deep", "[" * 100_000 + "]" * 100_000),
        variant("digits", changed(seed=int("9" * 60)).replace("9" * 60, "9" * 5000)),
        variant("dup", text.replace('"first": ', '"first": 0, "first": ', 1)),
        variant("nan", changed(seed=0).replace('"seed": 0', '"seed": NaN')),
        variant("escape-name", text.replace('"Ann[/b]"', '"\\u001b]8;;http://e\\u001b\\\\x"', 1)),
        variant("surrogate-name", text.replace('"Ann[/b]"', '"\\ud800"', 1)),
        variant("blank-name", text.replace('"Ann[/b]"', '"  "', 1)),
        variant("bad-event", text.replace('"dice": [', '"dice": [9, ', 1)),
        variant("first9", changed(first=9)),
        variant("players0", changed(players=[])),
        variant("meta-list", changed(meta=[1] * 1000)),
        variant(
            "huge-goal",
            json.dumps(
                {
                    **data,
                    "events": [],
                    "rules": {**data["rules"], "game": {**data["rules"]["game"], "goal": 100_000}},
                }
            ),
        ),
    ]
    os.mkfifo(root / "fifo.json")
    records += [root / "fifo.json", root / "dir.toml", root / "missing.json"]
    c.run(["replay", str(good), "--cache-dir", str(cache)], expect(0, "Ann[/b] vs Coach"))
    c.run(["replay", str(good), "--cache-dir", str(cache), "--json"], expect(0))
    for path in records:
        c.run(["replay", str(path), "--cache-dir", str(cache), "--json"])
    c.run(
        ["replay", str(root / "record-huge-goal.json"), "--floor", "-20000"],
        expect(2, "of memory (and about" if TOO_BIG else "would take about"),
    )

    # -- caches and cache dirs ----------------------------------------------------------------------
    c.kind = "caches"
    from optimal_farkle.engine.rules import load_rules
    from optimal_farkle.solver.duel.cache import cache_path

    solve = ["solve", "--rules", str(small), "--json"]
    c.run([*solve, "--cache-dir", str(cache)], expect(0))
    path = cache_path(load_rules(small), -2500, cache)
    original = path.read_bytes()
    damage = {
        "garbage": b"garbage",
        "empty": b"",
        "magic only": original[:10],
        "huge length": original[:10] + b"\xff\xff\xff\x7f" + original[14:],
        "header cut": original[:40],
        "payload cut": original[:-100],
        "flipped": original[:-9] + bytes([original[-9] ^ 0xFF]) + original[-8:],
        "header json": original.replace(b'"passes": ', b'"passes": "x", "y": ', 1),
        "nan values": original[: len(original) - 8] + b"\x00\x00\x00\x00\x00\x00\xf8\x7f",
    }
    for content in damage.values():
        path.write_bytes(content)
        c.run([*solve, "--cache-dir", str(cache)], expect(0))
        c.run([*solve, "--cache-dir", str(cache)], expect(0, '"loaded": true'))  # rebuilt and kept
    path.unlink()
    os.mkfifo(path)
    c.run([*solve, "--cache-dir", str(cache)], expect(0, '"cached": false'))
    path.unlink()
    path.mkdir()
    c.run([*solve, "--cache-dir", str(cache)], expect(0, '"cached": false'))
    path.rmdir()
    blocker = root / "blocker"
    blocker.write_text("x")
    c.run([*solve, "--cache-dir", str(blocker)], expect(0, '"cached": false'))
    c.run([*solve, "--cache-dir", str(blocker / "sub")], expect(0, '"cached": false'))
    c.run([*solve, "--cache-dir", str(root / "fifo.json")], expect(0, '"cached": false'))
    mount = root / "ro-mount"
    (root / "ro-src").mkdir()
    mount.mkdir()
    bound = subprocess.run(
        ["mount", "--bind", str(root / "ro-src"), str(mount)], capture_output=True, check=False
    )
    if (
        bound.returncode == 0
        and subprocess.run(
            ["mount", "-o", "remount,ro,bind", str(mount)], capture_output=True, check=False
        ).returncode
        == 0
    ):
        c.run([*solve, "--cache-dir", str(mount)], expect(0, '"cached": false'))
    else:
        print("(no read-only bind mount here: that case is covered by tests/test_data_dirs.py)")
    orphan = cache / f".{path.name}.999999999.0123abcd.tmp"
    orphan.write_text("half")
    path.unlink(missing_ok=True)
    c.run([*solve, "--cache-dir", str(cache)], expect(0))
    if orphan.exists():
        c.count("silent no-ops")
        c.problems.append("an orphan temporary file was not removed")

    # Two solvers at once: one solves, the other waits and loads.
    fresh = root / "fresh"
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from optimal_farkle.tui.cli import main; sys.exit(main())",
                "solve",
                "--rules",
                str(small),
                "--cache-dir",
                str(fresh),
                "--json",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        for _ in range(2)
    ]
    results = [json.loads(p.communicate(timeout=LIMIT)[0]) for p in procs]
    c.count("runs", 2)
    if (
        sorted(r["loaded"] for r in results) != [False, True]
        or results[0]["first_player_win"] != results[1]["first_player_win"]
    ):
        c.count("silent no-ops")
        c.problems.append(
            f"concurrent solves: {[(r['loaded'], r['first_player_win']) for r in results]}"
        )

    # -- arguments --------------------------------------------------------------------------------
    c.kind = "arguments"
    base = ["--rules", str(small), "--cache-dir", str(cache)]
    c.run(
        ["strategy", *base, "--score", "-50000"],
        expect(2, "--score must be a multiple of 50 from -2,500"),
    )
    c.run(
        ["strategy", "--rules", str(nopen), "--cache-dir", str(cache), "--opponent", "-5000"],
        expect(2, "from 0 to 550"),
    )
    # Inside the model, but no game starts there (the engine's start-score rule).
    c.run(["strategy", *base, "--score", "-2500", "--json"], expect(2, "strictly between -600"))
    c.run(["strategy", *base, "--score", "-550", "--json"], expect(0, '"score": -550'))
    c.run(["strategy", *base, "--score", "600"], expect(2, "already reached the goal"))
    c.run(["strategy", *base, "--score", "75"], expect(2, "multiple of 50"))
    c.run(["strategy", *base, "--farkles", "3"], expect(2, "between 0 and 2"))
    c.run(["strategy", *base, "--score", str(10**50)], expect(2))
    match = ["match", *base, "--players", "max-score,cautious", "--json"]
    for method in ([], ["--games", "4"]):
        c.run(
            [*match, *method, "--start-scores", "590,0"],
            expect(2, "--start-scores A must be a multiple of 50 from -550 to 550"),
        )
        c.run([*match, *method, "--start-scores", "-100,0"], expect(0, "-100"))
        c.run([*match, *method, "--start-scores", "0,-600"], expect(2, "--start-scores B"))
        c.run([*match, *method, "--start-scores", "x,0"], expect(2, "two whole numbers"))
    c.run([*match, "--games", str(10**9)], expect(2, "--games must be from 2"))
    c.run([*match, "--games", "1"], expect(2))
    c.run(["match", *base, "--players", "optimal,optimal,optimal"], expect(2))
    c.run(["match", *base, "--players", "nobody,optimal"], expect(2, "unknown player"))
    c.run(["expected", "--max-turn", "1000000000"], expect(2, "--max-turn must be"))
    c.run(["expected", "--max-turn", "100000", "--json"], expect(0))
    c.run(["expected", "--penalty", "inf"], expect(2))
    c.run(["expected", "--penalty", "nan"], expect(2))
    c.run(["expected", "--penalty", "1e308"], expect(2))
    c.run(["expected", "--penalty", "-1"], expect(2))
    for floor in ("1", "-333", "-20050", str(10**50), "x", "-0"):
        c.run(["solve", *base, "--floor", floor])
    c.run(["solve", "--rules", str(root / "rules-long-int.toml")], expect(2, "longer than"))
    big = root / "goal100k.toml"
    big.write_text(rules_text(goal="100000"))
    c.run(
        ["solve", "--rules", str(big), "--floor", "-20000"],
        expect(2, "of memory (and about" if TOO_BIG else "would take about"),
    )
    c.run(["match", "--rules", str(big), "--players", "max-score,cautious"], expect(2, "would "))
    for junk in (
        ["bogus"],
        ["--bogus"],
        ["solve", "--rules"],
        ["replay"],
        ["strategy", "--score", "\x1b[2J"],
        ["solve", "--rules", "\x1b]8;;x\x07y"],
    ):
        c.run(junk, expect(2))
    c.run([], expect(2, "needs a terminal"))
    with open(os.devnull, "w") as null:
        c.run(["expected", "--json"], expect(0), stdout=null.fileno())
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            c.run(
                ["expected", "--json"], expect(1, "No space left on device"), stdout=full.fileno()
            )
            c.run(["expected"], expect(1, "No space left on device"), stdout=full.fileno())
    streams(c, root)


if __name__ == "__main__":
    main()
