"""``farkle replay FILE``: where a saved game was won and lost, decision by decision.

Every decision of every player is compared with optimal play (:mod:`solver.analysis.game`): the
win probability before, after the choice made and after the best choice, the loss, and a
mark (inaccuracy, mistake, blunder). A game of three or more players is judged by the exact
three-player optimum when its solve is cached, else by the approximation built on the
two-player solve; the output names the strategy that judged it. The rules come from the record itself; if their
strategy is not cached yet it is solved once, with a progress bar on stderr. A record that
cannot be read or does not replay is an error (exit status 2), never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from optimal_farkle.engine import FarkleError, RecordError
from optimal_farkle.engine.record import load_record, replay

from ..widgets.words import MARK_STYLES
from .common import add_cache_dir, emit_json, fail
from .output import console
from .progress import add_floor, check_floor, obtain_strategy

if TYPE_CHECKING:
    from optimal_farkle.solver.analysis.game import GameAnalysis

SPARKS = "▁▂▃▄▅▆▇█"
#: The line width when stdout is not a terminal: wide enough that no column is ever cut.
PIPE_WIDTH = 1000


def register(subparsers: Any) -> None:
    """Add the ``replay`` subcommand."""
    parser = subparsers.add_parser(
        "replay",
        help="analyse a saved game move by move against optimal play",
        description=(
            "Replay a saved game record and judge every decision of both players against the "
            "optimal strategy: the win probability before and after, what the best choice was, "
            "and the win probability lost. The rules are those of the record."
        ),
        epilog=(
            "Marks (inaccuracy, mistake, blunder) grade the win probability a decision lost; the "
            "output states the thresholds. --json prints one object: rules, players, first, start_scores, "
            "winner, strategy (which strategy judged the game), exact (whether it is provably "
            "optimal), outside_model (null, or decisions and reason: the decisions not judged, "
            "at scores below the floor the strategy was solved for, where it has no exact "
            "figure), decisions (turn, player, state, choice, best, win_before, win_after_choice, "
            "win_after_best, loss, mark), summary (per player: decisions, total_loss, "
            "mean_loss, inaccuracies, mistakes, blunders, accuracy) and win_curve (turn, win: "
            "the first player's win probability at the start of each turn, then the result)."
        ),
    )
    parser.add_argument("file", type=Path, metavar="FILE", help="a saved game (.json record)")
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    add_floor(parser)
    add_cache_dir(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Read the record, get the strategy, analyse, print."""
    try:
        record = load_record(args.file)
    except (RecordError, FarkleError) as exc:
        fail(str(exc))  # names the file and what is wrong with it
    from optimal_farkle.solver.analysis.game import AnalysisError, analyse
    from optimal_farkle.solver.duel.model import unsupported

    reason = unsupported(record.rules)
    if reason is not None:
        fail(f"this game cannot be analysed: {reason}")
    check_floor(args.floor)
    try:
        replay(record)
    except FarkleError as exc:
        fail(f"cannot replay {args.file}: {exc}")
    strategy, _loaded = obtain_strategy(
        record.rules, args.floor, args.cache_dir, allow_long=args.allow_long
    )
    exact = None
    if len(record.players) > 2:
        from optimal_farkle.solver.table.advice import load_exact_table

        exact = load_exact_table(record.rules, len(record.players), args.cache_dir)
    try:
        analysis = analyse(record, strategy, exact)
    except AnalysisError as exc:
        fail(f"{args.file}: {exc}")
    if args.json:
        emit_json(analysis.to_json())
    else:
        print_analysis(analysis)
    return 0


def sparkline(values: list[float]) -> str:
    """Probabilities in [0, 1] as block characters, one per value."""
    top = len(SPARKS) - 1
    return "".join(SPARKS[max(0, min(top, round(v * top)))] for v in values)


def short(choice: str) -> str:
    """``keep 5666`` for ``set aside 5 6 6 6 (650)``: a narrow table cell."""
    if not choice.startswith("set aside "):
        return choice
    dice = choice.removeprefix("set aside ").partition(" (")[0]
    return f"keep {dice.replace(' ', '')}"


def print_analysis(analysis: GameAnalysis) -> None:
    """The decisions, the per-player summary and the win curve, with rich (honours NO_COLOR)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    record = analysis.record
    # Piped (``| head``, a file): no terminal width to fit, so every column is written whole.
    out = console(width=None if sys.stdout.isatty() else PIPE_WIDTH)
    names = [p.name for p in record.players]
    winner = names[analysis.winner] if analysis.winner is not None else "nobody yet"
    start = (
        f", head starts {' / '.join(f'{s:,}' for s in record.start_scores)}"
        if record.start_scores
        else ""
    )
    # Names are the players' own text: plain Text, never markup.
    out.print(
        Text.assemble(
            (" vs ".join(names), "bold"),
            f" · {record.rules.name} (goal {record.rules.goal:,}){start} · "
            f"{names[record.first]} went first · winner: {winner}",
        )
    )
    out.print(
        f"Judged by the {analysis.label}" + ("" if analysis.exact else " (not provably optimal)"),
        style="dim",
    )
    if analysis.outside:
        count, reason = len(analysis.outside), next(iter(analysis.outside.values()))
        out.print(
            f"{count:,} decision{'s' if count > 1 else ''} not judged: {reason}.",
            style="yellow",
            markup=False,
        )
    table = Table(box=box.SIMPLE_HEAD, padding=(0, 1))
    for column, justify in (
        ("Turn", "right"),
        ("Player", "left"),
        ("Position", "left"),
        ("Choice", "left"),
        ("Best", "left"),
        ("Win → after", "right"),
        ("Loss", "right"),
        ("Mark", "left"),
    ):
        table.add_column(
            column,
            justify=justify,  # type: ignore[arg-type]
            no_wrap=True,
            max_width=10 if column == "Player" else None,
            overflow="ellipsis",
        )
    for d in analysis.decisions:
        state = d.state
        position = (
            f"{state.turn_total:,}: {''.join(map(str, state.roll))}"
            if state.roll
            else f"{state.turn_total:,}, {state.dice_left}d"
        )
        style = MARK_STYLES.get(d.mark, "")
        table.add_row(
            str(d.turn),
            Text(names[d.player]),
            position,
            short(d.choice),
            "" if d.mark == "best" else short(d.best),
            f"{100 * d.win_before:.1f}→{100 * d.win_after_choice:.1f}",
            f"{100 * d.loss:.2f}",
            Text(d.mark, style=style),
        )
    out.print(table)
    summary = Table(title="Summary", box=box.SIMPLE_HEAD)
    for column in (
        "Player",
        "Decisions",
        "Best",
        "Accuracy",
        "Loss",
        "Mean",
        "Inacc.",
        "Mist.",
        "Blund.",
    ):
        summary.add_column(column, justify="left" if column == "Player" else "right")
    for s in analysis.summary:
        summary.add_row(
            Text(s.name),
            str(s.decisions),
            str(s.best),
            f"{100 * s.accuracy:.0f}%",
            f"{100 * s.total_loss:.2f}",
            f"{100 * s.mean_loss:.2f}",
            str(s.inaccuracies),
            str(s.mistakes),
            str(s.blunders),
        )
    out.print(summary)
    from optimal_farkle.solver.analysis.game import THRESHOLDS

    marks = ", ".join(f"{name} from {100 * limit:g}" for name, limit in reversed(THRESHOLDS))
    out.print(
        f"Marks: {marks} points lost. "
        "Position: turn total and the dice showing (or dice to roll). Win → after: the "
        "mover's win chance in % before deciding and after the choice made. Loss, Mean: "
        "percentage points of win probability lost.",
        style="dim",
    )
    curve = [p.win for p in analysis.win_curve]
    if curve:
        out.print(
            Text(
                f"{names[record.first]}'s win chance by turn: {sparkline(curve)} "
                f"({100 * curve[0]:.1f}% → {100 * curve[-1]:.0f}%)"
            )
        )
