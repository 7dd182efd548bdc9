"""A hostile user's campaign against the ``farkle`` command line, run as real processes.

Rules files, game records, caches and cache dirs, and argument lists of the kinds issue 9
found breaking things, each run as a separate ``farkle`` process with a time limit. Every
run is checked: no traceback, an exit status of 0 or one ``farkle: error:`` line, no hang,
the right answer where one is known, and nothing that was on disk lost. Prints the counts::

    python bench/hostile_cli.py            # about 150 runs, a few minutes
    python bench/hostile_cli.py --verbose  # every run's command and verdict

A real read-only folder needs a read-only bind mount (root on Linux); without one that case
is skipped and said so.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

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


def farkle(args: list[str], stdout: int | None = subprocess.PIPE) -> tuple[int, str, str, bool]:
    """Run ``farkle ARGS``: (status, stdout, stderr, hung)."""
    code = "import sys; from optimal_farkle.tui.cli import main; sys.exit(main())"
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, *args],
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.PIPE,
            timeout=LIMIT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return -1, "", "", True
    out = done.stdout.decode("utf-8", "replace") if isinstance(done.stdout, bytes) else ""
    return done.returncode, out, done.stderr.decode("utf-8", "replace"), False


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


class Campaign:
    def __init__(self, root: Path, verbose: bool) -> None:
        self.root = root
        self.verbose = verbose
        self.counts: Counter[str] = Counter()
        self.problems: list[str] = []

    def run(self, args: list[str], check: Check | None = None, stdout: int | None = None) -> None:
        before = snapshot(self.root)
        code, out, err, hung = farkle(args, stdout if stdout is not None else subprocess.PIPE)
        after = snapshot(self.root)
        self.counts["runs"] += 1
        verdict = None
        if hung:
            self.counts["hangs"] += 1
            verdict = "hang"
        elif "Traceback" in err:
            self.counts["tracebacks"] += 1
            verdict = "traceback"
        elif code != 0 and not (
            code in (1, 2)
            and err.strip().splitlines()[-1:]
            and ": error: " in err.strip().splitlines()[-1]
        ):
            self.counts["bad exits"] += 1
            verdict = f"status {code} without one error line"
        elif code == 0 and "--json" in args and stdout is None:
            try:
                if not isinstance(json.loads(out), dict):
                    raise ValueError
            except ValueError:
                self.counts["wrong answers"] += 1
                verdict = "--json did not print one JSON object"
        if verdict is None and check is not None:
            wrong = check(code, out, err)
            if wrong:
                self.counts["wrong answers"] += 1
                verdict = wrong
        missing = [name for name, content in before.items() if content not in after.values()]
        if missing:
            self.counts["files lost"] += len(missing)
            verdict = (verdict or "") + f" lost {missing}"
        self.counts["ok" if verdict is None else "failed"] += 1
        self.counts["refused" if code else "answered"] += 1
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
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="farkle-hostile-"))
    os.environ["FARKLE_CACHE_DIR"] = str(root / "cache")
    os.environ["FARKLE_DATA_DIR"] = str(root / "data")
    c = Campaign(root, options.verbose)
    started = time.monotonic()
    try:
        play(c, root)
    finally:
        for fifo in root.rglob("*"):
            if fifo.is_fifo():
                with contextlib.suppress(OSError):  # nobody reads it: nothing to release
                    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        subprocess.run(["umount", str(root / "ro-mount")], capture_output=True, check=False)
        shutil.rmtree(root, ignore_errors=True)
    for problem in c.problems:
        print(problem)
    n = c.counts
    print(
        f"{n['runs']} runs in {time.monotonic() - started:.0f} s: {n['answered']} answered, "
        f"{n['refused']} refused; tracebacks {n['tracebacks']}, hangs {n['hangs']}, "
        f"wrong answers {n['wrong answers']}, bad exits {n['bad exits']}, files lost {n['files lost']}"
    )
    sys.exit(1 if c.problems else 0)


def play(c: Campaign, root: Path) -> None:
    cache = root / "cache"
    small = root / "small.toml"
    small.write_text(rules_text(goal="600", name='"small"'))
    nopen = root / "nopen.toml"
    nopen.write_text(rules_text(goal="600", name='"nopen"', farkles="0", points="0"))

    # -- rules files ------------------------------------------------------------------------------
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
    from optimal_farkle.engine import preset
    from optimal_farkle.engine.dice import SeededDice
    from optimal_farkle.engine.game import Player
    from optimal_farkle.engine.record import GameSession, save_record
    from optimal_farkle.solver.players.computer import make_player

    rules = preset("facebook").with_goal(600)
    session = GameSession.start(
        rules, (Player("Ann[/b]"), Player("Coach", "coach")), dice=SeededDice(3)
    )
    ai = make_player("coach", rules, None)
    while not session.is_over:
        session.act(ai.act(session.state))
    good = root / "good.json"
    save_record(good, session.record)
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
        c.counts["wrong answers"] += 1
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
    c.counts["runs"] += 2
    if (
        sorted(r["loaded"] for r in results) != [False, True]
        or results[0]["first_player_win"] != results[1]["first_player_win"]
    ):
        c.counts["wrong answers"] += 1
        c.problems.append(
            f"concurrent solves: {[(r['loaded'], r['first_player_win']) for r in results]}"
        )

    # -- arguments --------------------------------------------------------------------------------
    base = ["--rules", str(small), "--cache-dir", str(cache)]
    c.run(
        ["strategy", *base, "--score", "-50000"],
        expect(2, "--score must be a multiple of 50 from -2,500"),
    )
    c.run(
        ["strategy", "--rules", str(nopen), "--cache-dir", str(cache), "--opponent", "-5000"],
        expect(2, "from 0 to 550"),
    )
    c.run(["strategy", *base, "--score", "-2500", "--json"], expect(0, '"score": -2500'))
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


if __name__ == "__main__":
    main()
