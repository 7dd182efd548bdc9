"""``farkle match``: how often computer players beat each other, exactly or by simulation.

Two players: ``--exact`` (the default) evaluates both players' fixed policies over the
solver's state space (:mod:`solver.analysis.match`): no sampling, exact to 1e-12. For small goals it
takes a moment; for the full 10,000-point game the optimal player's 562,500 turns take a few
minutes, and the command says so before it starts. ``--games N`` plays N real games with the
engine instead (half with each player first) and reports standard errors.

Three to six players (:mod:`solver.analysis.table_match`): ``--exact`` (the default) for three of
``optimal`` (the exact 3-player optimum) and ``strong`` (the approximation) where the exact
3-player solve exists; ``--games N`` for any players, each seat first in turn.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from optimal_farkle.engine import STEP, FarkleError, Rules
from optimal_farkle.engine.game import check_start_scores

from .common import add_cache_dir, add_common, emit_json, fail, rules_from_args, warn
from .output import console
from .progress import add_floor, check_floor, check_score, check_work, model_of, obtain_strategy

if TYPE_CHECKING:
    from optimal_farkle.solver.analysis.match import MatchOdds
    from optimal_farkle.solver.core.choices import PlayerKind
    from optimal_farkle.solver.duel.strategy import Strategy

DEFAULT_SEED = 1
#: The most players at one table.
MAX_PLAYERS = 6
#: Above this many start states an exact evaluation with the optimal player takes minutes.
SLOW_STATES = 100_000
#: The most games --games simulates: a bound, so a mistyped number cannot start work without end.
MAX_GAMES = 10_000_000
#: The players' ids, for the help (without importing the solver, which takes a second; a test
#: checks them against :func:`solver.players.computer.table_player_ids`).
PLAYER_IDS = ("optimal", "card", "max-score", "coach", "cautious", "strong")
#: The player who plays only at tables of three or more (heads-up it is ``optimal``).
TABLE_ONLY = "strong"


def register(subparsers: Any) -> None:
    """Add the ``match`` subcommand."""
    parser = subparsers.add_parser(
        "match",
        help="the odds of one computer player against another",
        description=(
            "The probability that player A beats player B: with A moving first, with B moving "
            "first, and with the first player chosen at random. --exact (the default) computes "
            "it exactly by policy evaluation (a few minutes for the full 10,000-point game when "
            "the optimal player takes part); --games N simulates N games with the real engine."
        ),
        epilog=(
            "--json prints one object: players, first (P(A wins) when A moves first), second "
            "(when B moves first), overall (first player chosen at random), method (exact or "
            "simulation), rules, start_scores; exact adds sweeps and residual; simulation adds "
            "games, seed, stderr (of overall), stderr_first and stderr_second."
        ),
    )
    add_common(parser)
    add_cache_dir(parser)
    parser.add_argument(
        "--players",
        required=True,
        metavar="A,B[,C...]",
        help=f"two to six computer players, e.g. optimal,max-score or optimal,strong,optimal; "
        f"the players: {', '.join(PLAYER_IDS)} ({TABLE_ONLY} at three or more)",
    )
    how = parser.add_mutually_exclusive_group()
    how.add_argument(
        "--exact", action="store_true", help="exact odds by policy evaluation (default)"
    )
    how.add_argument("--games", type=int, metavar="N", help="simulate N games instead")
    parser.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        metavar="S",
        help=f"dice seed of the simulation (game k uses S + k; default {DEFAULT_SEED})",
    )
    add_floor(parser)
    parser.add_argument(
        "--start-scores",
        default=None,
        metavar="A,B",
        help="head starts (komi), one per player, multiples of 50 below the goal and not below "
        "the model's floor (0 for rules without a farkle penalty); the same range for --exact "
        "and --games (default 0 for everyone)",
    )
    parser.set_defaults(run=run)


def parse_pair(text: str, what: str) -> tuple[str, str]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(parts):
        fail(f"{what} takes two values separated by a comma, got {text!r}")
    return parts[0], parts[1]


def parse_players(text: str) -> list[str]:
    """The ids of ``--players``: two to six, separated by commas."""
    parts = [p.strip() for p in text.split(",")]
    if not 2 <= len(parts) <= MAX_PLAYERS or not all(parts):
        fail(f"--players takes two to {MAX_PLAYERS} players separated by commas, got {text!r}")
    return parts


def run(args: argparse.Namespace) -> int:
    """Validate, get the strategy if the optimal player plays, evaluate, print."""
    ids = parse_players(args.players)
    if len(ids) > 2:
        return run_table(args, ids)
    return run_pair(args)


def run_pair(args: argparse.Namespace) -> int:
    """Two players (:mod:`solver.analysis.match`)."""
    from optimal_farkle.solver.analysis.match import OPTIMAL, MatchError, exact_players
    from optimal_farkle.solver.core.choices import PlayerKind
    from optimal_farkle.solver.players.computer import ai_players

    names = parse_pair(args.players, "--players")
    known = [pid for pid, _, _ in ai_players()]
    for pid in names:
        if pid == TABLE_ONLY:
            fail(
                f"{TABLE_ONLY!r} plays at tables of three or more (it approximates the optimal "
                "player there); two players: use optimal"
            )
        if pid not in known:
            fail(
                f"unknown player {pid!r}; the players are: {', '.join(known)} "
                f"({TABLE_ONLY} at three or more)"
            )
    a, b = PlayerKind(names[0]), PlayerKind(names[1])
    rules = rules_from_args(args)
    check_floor(args.floor)
    floor = args.floor
    start = check_start(rules, floor, args.start_scores)
    simulate = args.games is not None
    if simulate and not 2 <= args.games <= MAX_GAMES:
        fail(f"--games must be from 2 to {MAX_GAMES:,}, got {args.games:,}")
    if not simulate:
        for name, pid in zip(names, (a, b)):
            if pid not in exact_players():
                fail(f"{name!r} has no exact evaluation; use --games N to simulate it")
        from optimal_farkle.solver.duel.estimate import match_estimate

        check_work(match_estimate(model_of(rules, floor), OPTIMAL in (a, b)), args.allow_long)
    strategy = None
    if OPTIMAL in (a, b):
        strategy, _loaded = obtain_strategy(
            rules, floor, args.cache_dir, allow_long=args.allow_long
        )
    try:
        if simulate:
            odds = _simulate(rules, a, b, args.games, args.seed, strategy, start)
        else:
            odds = _exact(rules, a, b, strategy, floor, start)
    except (MatchError, FarkleError, ValueError) as exc:
        fail(str(exc))
    return _report(args, odds, rules, start, simulate, print_odds)


def _report(
    args: argparse.Namespace,
    odds: Any,
    rules: Rules,
    start: tuple[int, ...],
    simulate: bool,
    printer: Any,
) -> int:
    """``--json``'s object (the odds, the rules, the start scores, the seed) or ``printer``'s table."""
    if args.json:
        data = odds.to_json()
        data["rules"] = rules.name
        data["start_scores"] = list(start)
        if simulate:
            data["seed"] = args.seed
        emit_json(data)
    else:
        printer(odds, rules, start, args.seed if simulate else None)
    return 0


def check_start(rules: Rules, floor: int, text: str | None) -> tuple[int, int]:
    """The head starts of ``--start-scores A,B``: one range whatever the method.

    Multiples of 50 below the goal, and not below the floor of the solver's model of these
    rules (0 without a farkle penalty), which is what the exact method can evaluate; rules
    the solver cannot model (only simulated) take the engine's range.
    """
    from optimal_farkle.solver.duel.model import unsupported

    mine, theirs = parse_pair("0,0" if text is None else text, "--start-scores")
    try:
        start = (int(mine), int(theirs))
    except ValueError:
        fail(f"--start-scores takes two whole numbers, got {text!r}")
    names = ("--start-scores A", "--start-scores B")
    if unsupported(rules) is not None:
        try:
            check_start_scores(rules, 2, start, names)
        except FarkleError as exc:
            fail(str(exc))
        return start
    model = model_of(rules, floor)
    for name, value in zip(names, start):
        # The engine also refuses a handicap of the whole goal or more.
        check_score(name, value, model, low=max(model.floor, STEP - rules.goal))
    return start


def _exact(
    rules: Rules,
    a: PlayerKind,
    b: PlayerKind,
    strategy: Strategy | None,
    floor: int,
    start: tuple[int, int],
) -> MatchOdds:
    from optimal_farkle.solver.analysis.match import OPTIMAL, exact_odds
    from optimal_farkle.solver.duel.model import build_model

    model = build_model(rules, strategy.floor if strategy is not None else floor)
    if OPTIMAL in (a, b) and model.start_states > SLOW_STATES:
        print(
            f"Evaluating {model.start_states:,} start states exactly; with the optimal player "
            "this takes a few minutes for a goal this large.",
            file=sys.stderr,
        )
    with ProgressBar("exact odds") as update:
        return exact_odds(rules, a, b, strategy, floor, start, progress=update)


def _simulate(
    rules: Rules,
    a: PlayerKind,
    b: PlayerKind,
    games: int,
    seed: int,
    strategy: Strategy | None,
    start: tuple[int, int],
) -> MatchOdds:
    from optimal_farkle.solver.analysis.match import simulate_odds
    from optimal_farkle.solver.players.computer import make_player

    def make(pid: PlayerKind, r: Rules) -> Any:
        return make_player(pid, r, strategy)

    with ProgressBar("simulating") as update:
        return simulate_odds(rules, a, b, games, seed, make, start, progress=update)


class ProgressBar:
    """A rich progress bar on stderr (only when stderr is a terminal): ``with ... as update``."""

    def __init__(self, label: str) -> None:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.console = console(stderr=True)
        self.enabled = self.console.is_terminal
        self.progress = Progress(
            TextColumn(f"[bold]{label}"),
            BarColumn(),
            TextColumn("{task.percentage:>3.0f}%"),
            TimeElapsedColumn(),
            TextColumn("{task.description}", markup=False),
            console=self.console,
            transient=True,
            disable=not self.enabled,
        )
        self.task = self.progress.add_task("", total=1.0)

    def __enter__(self) -> Any:
        self.progress.start()

        def update(fraction: float, message: str) -> None:
            self.progress.update(self.task, completed=fraction, description=message)

        return update

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def warn(self, message: str) -> None:
        """A warning (``farkle: <message>``) on its own line above the bar while it is drawn."""
        warn(message, self.console if self.enabled else None)


def print_odds(odds: MatchOdds, rules: Rules, start: tuple[int, int], seed: int | None) -> None:
    """A small table of the three probabilities, from A's point of view."""
    from rich import box
    from rich.table import Table

    from optimal_farkle.solver.core.choices import Method

    a, b = odds.players
    out = console()
    exact = odds.method is Method.EXACT
    if exact:
        how = f"exact (policy evaluation, {odds.sweeps} sweeps, {odds.seconds:.1f} s)"
    else:
        how = f"simulation of {odds.games:,} games, seed {seed} ({odds.seconds:.1f} s)"
    komi = f", head starts {start[0]:,} / {start[1]:,}" if any(start) else ""
    table = Table(
        title=f"{a} (A) vs {b} (B): {rules.name}, goal {rules.goal:,}{komi}",
        caption=how,
        box=box.SIMPLE_HEAD,
    )
    table.add_column("Who starts")
    table.add_column("P(A wins)", justify="right")
    table.add_column("P(B wins)", justify="right")
    errors = (odds.stderr_first, odds.stderr_second, odds.stderr)
    for (label, p), se in zip(
        (("A first", odds.first), ("B first", odds.second), ("random", odds.overall)), errors
    ):
        pm = "" if exact or se is None else f" ± {100 * se:.2f}"
        table.add_row(label, f"{100 * p:.4f}%{pm}", f"{100 * (1 - p):.4f}%{pm}")
    out.print(table)


# -- three to six players ---------------------------------------------------------------------------
def run_table(args: argparse.Namespace, names: list[str]) -> int:
    """Three to six players (:mod:`solver.analysis.table_match`)."""
    from optimal_farkle.solver.analysis.table_match import TABLE_EXACT
    from optimal_farkle.solver.core.choices import PlayerKind
    from optimal_farkle.solver.core.errors import MatchError
    from optimal_farkle.solver.players.computer import needs_strategy, table_player_ids

    known = table_player_ids()
    for name in names:
        if name not in known:
            fail(f"unknown player {name!r}; the players are: {', '.join(known)}")
    ids = [PlayerKind(name) for name in names]
    rules = rules_from_args(args)
    check_floor(args.floor)
    start = check_table_start(rules, args.floor, args.start_scores, len(ids))
    simulate = args.games is not None
    if simulate and not len(ids) <= args.games <= MAX_GAMES:
        fail(f"--games must be from {len(ids)} to {MAX_GAMES:,}, got {args.games:,}")
    exact = None
    if not simulate:
        if len(ids) != 3:
            fail(
                f"the exact odds exist for three players, not {len(ids)}; use --games N to simulate"
            )
        for name in names:
            if name not in TABLE_EXACT:
                fail(
                    f"{name!r} has no exact evaluation at a table of three (the exact one models "
                    f"{', '.join(TABLE_EXACT)}); use --games N to simulate it"
                )
        exact = obtain_exact_table(rules, args.floor, args.cache_dir, args.allow_long)
    elif len(ids) == 3:
        from optimal_farkle.solver.table.advice import load_exact_table

        exact = load_exact_table(rules, 3, args.cache_dir)
    strategy = None
    if any(needs_strategy(p) for p in ids) and (simulate or PlayerKind.STRONG in ids):
        strategy, _loaded = obtain_strategy(
            rules, args.floor, args.cache_dir, allow_long=args.allow_long
        )
    try:
        if simulate:
            odds = _simulate_table(rules, ids, args.games, args.seed, strategy, exact, start)
        else:
            from optimal_farkle.solver.analysis.table_match import table_exact_odds

            with ProgressBar("exact odds") as update:
                odds = table_exact_odds(rules, ids, exact, strategy, start, progress=update)
    except (MatchError, FarkleError, ValueError) as exc:
        fail(str(exc))
    return _report(args, odds, rules, start, simulate, print_table_odds)


def check_table_start(rules: Rules, floor: int, text: str | None, players: int) -> tuple[int, ...]:
    """One head start per player (default 0), in the range of :func:`check_start`."""
    if text is None:
        return (0,) * players
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != players:
        fail(f"--start-scores takes one score per player ({players}), got {text!r}")
    try:
        start = tuple(int(p) for p in parts)
    except ValueError:
        fail(f"--start-scores takes whole numbers, got {text!r}")
    names = [f"--start-scores {chr(65 + i)}" for i in range(players)]
    model = model_of(rules, floor)
    for name, value in zip(names, start):
        check_score(name, value, model, low=max(model.floor, STEP - rules.goal))
    return start


def obtain_exact_table(rules: Rules, floor: int, cache_dir: Any, allow_long: bool) -> Any:
    """The exact 3-player solve: from the cache, or solved here with a progress bar."""
    from optimal_farkle.solver.table.advice import exact_table_supported, load_exact_table
    from optimal_farkle.solver.table.exact import solve_exact_table, table_estimate

    reason = exact_table_supported(rules, 3)
    if reason is not None:
        fail(f"no exact 3-player solve for {rules.name}: {reason}; use --games N to simulate")
    cached = load_exact_table(rules, 3, cache_dir)
    if cached is not None:
        return cached
    check_work(table_estimate(rules, 3, floor), allow_long)
    print(
        f"Computing the exact 3-player strategy for {rules.display_name} once; it is cached "
        "for every later run.",
        file=sys.stderr,
    )
    with ProgressBar("solving") as update:
        return solve_exact_table(rules, 3, progress=update, cache_dir=cache_dir, floor=floor)


def _simulate_table(
    rules: Rules,
    ids: list[PlayerKind],
    games: int,
    seed: int,
    strategy: Strategy | None,
    exact: Any,
    start: tuple[int, ...],
) -> Any:
    from optimal_farkle.solver.analysis.table_match import table_simulate_odds
    from optimal_farkle.solver.players.computer import make_player

    def make(pid: PlayerKind, r: Rules, n: int) -> Any:
        return make_player(pid, r, strategy, players=n, exact=exact)

    with ProgressBar("simulating") as update:
        return table_simulate_odds(
            rules, ids, games, seed, make, start, update, exact_available=exact is not None
        )


def print_table_odds(odds: Any, rules: Rules, start: tuple[int, ...], seed: int | None) -> None:
    """Every player's chance with each of them first and with a random first mover.

    Fits 80 columns whole at six players: rows are named ``A optimal``, columns by letter,
    one space between columns, and a simulation's figures carry two decimals (its standard
    error is tenths of a point), the exact ones four.
    """
    from rich import box
    from rich.table import Table

    from optimal_farkle.solver.core.choices import Method

    out = console()
    letters = [chr(65 + i) for i in range(len(odds.players))]
    names = [f"{letter} ({pid})" for letter, pid in zip(letters, odds.players)]
    exact = odds.method is Method.EXACT
    if exact:
        how = f"exact (policy evaluation, {odds.seconds:.1f} s)"
    else:
        how = f"simulation of {odds.games:,} games, seed {seed} ({odds.seconds:.1f} s)"
    places = 4 if exact else 2
    komi = f", head starts {' / '.join(f'{s:,}' for s in start)}" if any(start) else ""
    table = Table(
        title=f"{', '.join(names)}: {rules.name}, goal {rules.goal:,}{komi}",
        caption=how,
        box=box.SIMPLE_HEAD,
        padding=(0, 0),  # the box's blank divider is the space between columns
        show_edge=False,
    )
    table.add_column("P(wins)", no_wrap=True)
    for letter in letters:
        table.add_column(f"{letter} first", justify="right", no_wrap=True)
    table.add_column("random", justify="right", no_wrap=True)
    for i, (letter, pid) in enumerate(zip(letters, odds.players)):
        pm = "" if odds.stderr is None else f" ± {100 * odds.stderr[i]:.2f}"
        table.add_row(
            f"{letter} {pid}",
            *(f"{100 * row[i]:.{places}f}%" for row in odds.by_first),
            f"{100 * odds.overall[i]:.{places}f}%{pm}",
        )
    out.print(table)
    for pid, label in odds.strategies.items():
        if label != pid:
            out.print(f"{pid}: {label}", style="dim")
