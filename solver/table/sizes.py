"""How large and long the exact table solve of a rule set is, and whether it runs here.

:func:`table_estimate` (what the solver quotes before a solve, and what
:func:`exact_table_supported` refuses by) counts about twice the time per lane-check that a
whole solve takes on two idle cores, so that it still holds with other work beside it
(``bench/table3.py`` measures it; the measured sizes and times of every preset are in
docs/benchmarks.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from optimal_farkle.engine import Rules

from ..core.endgame import needs_final_turn
from ..core.floor import DEFAULT_FLOOR
from ..duel.estimate import BASE_BYTES, USABLE_MEMORY, Estimate, machine_memory
from .batches import reachable_states
from .model import TableModel, build_table_model

if TYPE_CHECKING:
    pass


#: The table sizes the exact strategy is offered for (2 players use the two-player solve).
EXACT_TABLE_PLAYERS = 3

#: Seconds per lane-check of one thread (a lane-check: one option of one cell of one turn).
SECONDS_PER_CHECK = 7e-10
#: Turn solves per start state: rules without a penalty (the exact layers)...
SWEEPS_NO_PENALTY = 3.3
#: ... and with one (the passes after the warm start).
SWEEPS_PENALTY = 11.0
#: Peak memory in copies of ``W``.
MEMORY_COPIES = 3.3
#: Solves estimated longer than this are refused (the limit of a long solve on one machine).
LIMIT_SECONDS = 24 * 3600.0


def turn_rows(model: TableModel, b0: np.ndarray, best: np.ndarray) -> np.ndarray:
    """About how many rows (turn totals) the turn solve of a state with the mover's score
    ``b0`` and the best other score ``best`` takes (score indices; arrays broadcast).

    A turn is solved from its cut down (:mod:`solver.table.kernel`): the goal, or under a
    final-turn endgame about ``K*`` steps past the best other score, ``K*`` the lead from
    which a bank is safe enough (``R(K*) <= P_min / 2``); at least the bank minimum.
    """
    k_star = 0
    if needs_final_turn(model.rules):
        reach = model.final.reach[2]
        settled = np.nonzero(reach <= model.final.p_min * 0.5)[0]
        k_star = int(settled[0]) if len(settled) else len(reach) - 1
    rows: np.ndarray = np.maximum(np.maximum(model.nb - b0, model.bank_min[1]), best - b0 + k_star)
    return rows


def table_work(model: TableModel) -> float:
    """Lane-checks of one sweep: every start state's rows (:func:`turn_rows`) times the
    option checks per row."""
    nb = model.nb
    b0 = np.arange(nb)[:, None]
    best = np.arange(nb)[None, :]
    others = model.players - 1
    # How many ways the others' scores have this maximum.
    ways = (best + 1) ** others - best**others
    rows = float((ways * turn_rows(model, b0, best)).sum())
    per_state = reachable_states(model) / nb**model.players  # solver.table.batches.reachable
    return float(rows * per_state * model.checks_per_turn_total)


def table_estimate(rules: Rules, players: int = 3, floor: int = DEFAULT_FLOOR) -> Estimate:
    """The time and memory of the exact table solve of ``rules`` on this machine (2 threads)."""
    model = build_table_model(rules, players, floor)
    sweeps = SWEEPS_PENALTY if model.penalty_count else SWEEPS_NO_PENALTY
    seconds = sweeps * table_work(model) * SECONDS_PER_CHECK / 2
    size = int(model.start_states * model.comps * 8 * MEMORY_COPIES)
    return Estimate(
        what=(
            f"the exact {players}-player solve of {rules.name} (goal {rules.goal:,}, "
            f"{model.start_states:,} start states)"
        ),
        seconds=seconds,
        bytes=BASE_BYTES + size,
    )


def table_house_rule(rules: Rules) -> str | None:
    """A house rule the exact table solve does not model, in words (None: it models them all).

    Its kernel (:mod:`solver.table.kernel`) lets every dice count bank past the goal and
    counts every turn total there as reaching it; hot dice that must be rolled and an exact
    goal change both, so a table under them plays the approximation instead.
    """
    if rules.must_roll_hot_dice:
        return (
            "hot dice that must be rolled are not in the exact 3-player solve (past the goal "
            "its turns bank six fresh dice); a table plays them with the approximation"
        )
    if rules.exact_goal:
        return (
            "an exact goal is not in the exact 3-player solve (past the goal its turns win or "
            "start the final round, never bust); a table plays it with the approximation"
        )
    if rules.shares_ties:
        return (
            "shared ties are not in the exact 3-player solve (its final round gives a tie to "
            "the first to reach the goal); a table plays them with the approximation"
        )
    if rules.six_of_a_kind_wins:
        return (
            "six of a kind that wins the game at once is not in the exact 3-player solve (its "
            "turns end by a bank or a farkle only); a table plays it with the approximation"
        )
    return None


def exact_table_supported(rules: Rules, players: int) -> str | None:
    """None when the exact solve of ``players`` seats under ``rules`` can run here, else why not."""
    if players == 2:
        return "two players use the two-player solve"
    if players != EXACT_TABLE_PLAYERS:
        return f"the exact solve exists for 3 players; {players} would not fit any one machine"
    from ..duel.model import unsupported

    reason = unsupported(rules) or table_house_rule(rules)
    if reason is not None:
        return reason
    estimate = table_estimate(rules, players)
    memory = machine_memory()
    if memory is not None and estimate.too_big(memory):
        return (
            f"too large for this machine: {estimate.what} needs {_gb(estimate.bytes)} of memory "
            f"(this machine has {_gb(memory)}, and work may use at most {USABLE_MEMORY:.0%} of it)"
        )
    if estimate.seconds > LIMIT_SECONDS:
        return f"too long for this machine: {estimate.what} would take {estimate.words()}"
    return None


def _gb(n: int) -> str:
    return f"{n / 1024**3:.1f} GB"
