"""How long a solve or an exact match takes, and how much memory it needs, before it starts.

The work grows fast with the goal and the floor: the start-of-turn table has ``NB² F²``
entries (``NB = (goal - floor) / 50`` score steps, ``F`` farkle counts), and each of them
solves a whole turn, ``top(b) x 6`` in-turn states, so a solve costs about ``NB³``. The
full facebook game (goal 10,000, floor -2,500) takes under half a minute; goal 100,000 with floor
-20,000 would take most of a day and tens of GB. So the command line and the app estimate
first and refuse (or ask) above a limit, saying what the estimate is.

The model is linear in the work of :func:`solve_work` (the in-turn rows one full pass
computes, counting the rows past the goal that the final-turn endgames of ``patch`` and
``zilch`` add and the padding of the lane blocks) and in the start states of
:class:`solver.duel.model.Model`::

    seconds ≈ full_pass_seconds(model) x pass_units(model)
    full_pass_seconds(model) = PASS_SECONDS_PER_ROW x solve_work(model) x options / 823
    bytes   ≈ BASE_BYTES + SOLVE_BYTES_PER_START_STATE x start_states

(a row costs in proportion to the keep options its roll groups compare: 823 under
``facebook``, 576 under ``neller-busche``, 1,112 under ``patch``; a plain pass's time per
row follows that ratio, ``docs/benchmarks.md``)

where :func:`pass_units` is the whole solve in full passes: its passes weighted by what each
costs (certificates skip most of the later ones), the warm start, the layer iterations of rules
without a penalty. The solver's progress bar uses the same model, pass by pass
(:mod:`solver.duel.valueiter`), so its estimate of the time left holds steady; it first times a
sample of a pass, which replaces ``full_pass_seconds`` (the rules' own cost per row on this
machine under its present load, which also takes up what the keep options miss of a rule
set's cost), and without a penalty a second sample on one thread,
for the layered first pass (:func:`layered_cost`). The exact match
evaluation is modelled likewise. The constants are measured by ``bench/estimate.py`` and
``bench/solve.py`` on the reference machine (2 cores), which print fresh values and how far each
estimate was from the measured figure; update them when the solver changes (the figures behind
the present values are in ``docs/benchmarks.md``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..core.endgame import needs_final_turn
from ..core.layout import LANES
from .model import Model, mirror_first

#: One full pass (every cell computed, two threads), per row of solve_work, at the reference
#: number of keep options per row.
PASS_SECONDS_PER_ROW = 8e-9
#: The keep options the roll groups of one row compare under ``facebook`` (the reference).
REFERENCE_OPTIONS = 823
#: Compiling the solver's kernel (once per machine: numba caches it), on one core.
COMPILE_SECONDS = 4.2
#: Rules with a farkle penalty: what each pass costs relative to a full pass, in order (the
#: first two take the warm start's guessed choices; the third verifies them, computing
#: everything and certifying every keep it compares, about 30% more than comparing alone;
#: from then on the certificates skip most cells, the more the smaller the changes), then
#: LATE_PASS_COST for every further pass but the last, which costs LAST_PASS_COST. Chosen
#: between facebook's and zilch's measured costs (the clock's pace, measured on the passes
#: done, takes up what is common to a rule set's passes).
PENALTY_PASS_COSTS = (0.3, 0.3, 1.3, 0.55, 0.65, 0.38, 0.32)
LATE_PASS_COST = 0.28
#: The last pass solves only the blocks whose inputs still move (:mod:`solver.duel.valueiter`,
#: kept blocks): about a quarter of a late pass.
LAST_PASS_COST = 0.07
#: Rules with a farkle penalty: the passes a solve takes (facebook 11, zilch 10).
PENALTY_PASSES = 11
#: Rules without a penalty: the first pass iterates each layer group to 1e-14, about this
#: many times, their overheads included (between neller-busche's and patch's, with
#: :func:`layered_cost`), then one plain pass confirms.
LAYER_ITERATIONS = 8.4
#: A pass on one thread against two, on the reference machine.
THREAD_SPEEDUP = 1.8
#: Before a solve has its schedule: the share of the layered pass's work in batches of one
#: block (between the presets' shares; building the schedule to know it would take the
#: memory a refused solve must not).
SINGLE_SHARE = 0.25
#: The warm start of rules with a penalty: such a first pass of the game without the penalty
#: to 1e-3, on guessed choices after each group's first iteration, in full passes of that
#: game.
WARM_ITERATIONS = 2.8
#: Peak memory above the interpreter's own, per start-of-turn state, during a solve.
SOLVE_BYTES_PER_START_STATE = 650
#: The exact match evaluation with the optimal player, per row of solve_work (it solves each turn).
MATCH_SECONDS_PER_ROW = 6e-7
#: How many times the match evaluation's sweeps of rules with a farkle penalty those without
#: one take.
MATCH_NO_PENALTY_SWEEPS = 2.0
#: Peak memory of the exact match evaluation, per start-of-turn state.
MATCH_BYTES_PER_START_STATE = 1200
#: The exact match evaluation between the simpler players, per start state (no turn solves).
SIMPLE_MATCH_SECONDS_PER_START_STATE = 1e-5
#: What the Python process with numpy and numba loaded takes before any of the above.
BASE_BYTES = 150 * 1024 * 1024

#: Work estimated to take longer than this is refused (or, in the app, asked about).
LIMIT_SECONDS = 15 * 60.0
#: The share of the machine's memory work may be estimated to need, ``--allow-long`` or not:
#: the rest is the margin for the system, the other programs and the estimate's own error
#: (a solve estimated at 23.0 GB must not start on a 23.5 GB machine).
USABLE_MEMORY = 0.8


@dataclass(frozen=True)
class Estimate:
    """The expected cost of one piece of work: what it is, wall-clock seconds, peak bytes."""

    what: str
    seconds: float
    bytes: int

    def words(self) -> str:
        """``about 2 min and 340 MB of memory``."""
        return f"about {duration(self.seconds)} and {size(self.bytes)} of memory"

    def refusal(
        self, limit_seconds: float = LIMIT_SECONDS, memory: int | None = None
    ) -> str | None:
        """Why this work should not start unasked (too long or too big), or None.

        ``memory``: the bytes the machine has (default :func:`machine_memory`).
        """
        memory = machine_memory() if memory is None else memory
        if self.too_big(memory):
            return (
                f"{self.what} would need {size(self.bytes)} of memory (and about "
                f"{duration(self.seconds)}); this machine has {size(memory or 0)}, and work "
                f"may use at most {USABLE_MEMORY:.0%} of it"
            )
        if self.seconds > limit_seconds:
            return f"{self.what} would take {self.words()}: more than the {duration(limit_seconds)} limit"
        return None

    def too_big(self, memory: int | None = None) -> bool:
        """True when the work needs more than :data:`USABLE_MEMORY` of the machine's memory
        (then no one should ask to go on)."""
        memory = machine_memory() if memory is None else memory
        return memory is not None and self.bytes > USABLE_MEMORY * memory


def full_pass_seconds(model: Model) -> float:
    """One pass that computes every cell of ``model``, on the reference machine."""
    options = int(model.options.option_start[-1])
    return PASS_SECONDS_PER_ROW * solve_work(model) * options / REFERENCE_OPTIONS


def solve_estimate(model: Model) -> Estimate:
    """The cost of solving ``model`` (see :func:`solver.duel.model.build_model`), compile aside."""
    return Estimate(
        what=f"solving {_describe(model)}",
        seconds=full_pass_seconds(model) * pass_units(model),
        bytes=BASE_BYTES + SOLVE_BYTES_PER_START_STATE * model.start_states,
    )


def warm_units(model: Model) -> float:
    """The warm start of rules with a penalty, in full passes: the game without the penalty
    (one farkle count), its layers iterated, at its size."""
    return WARM_ITERATIONS / (model.nf * model.nf)


def layered_cost(single: float, speedup: float = THREAD_SPEEDUP) -> float:
    """The layered first pass of rules without a penalty, in full passes (on every thread).

    It solves one layer group at a time, each group's two batches in turn, and a batch of one
    block runs on one thread while the others share the threads as a full pass does. So one
    iteration over every group costs, in full passes,

        single x speedup + (1 - single)

    where ``single`` is the share of the work in batches of one block
    (:attr:`solver.duel.model.Schedule.single_share`) and ``speedup`` what a pass takes on one thread against all of the solve's
    (:data:`THREAD_SPEEDUP` for two on the reference machine). On a machine with a busy
    core the shared batches slow down and the others do not, so a timed sample of a full pass
    alone would misjudge such rules.
    """
    return LAYER_ITERATIONS * (single * speedup + 1.0 - single)


def pass_costs(
    model: Model, passes: int | None = None, layered: float | None = None
) -> list[float]:
    """What each of a solve's passes costs, in full passes (``passes``: how many to expect).

    ``layered``: the layered first pass of rules without a penalty, in full passes, as the
    solve measured it (:func:`layered_cost`); by default as on the reference machine.
    """
    if not model.rules.has_penalty:
        return [layered_cost(SINGLE_SHARE) if layered is None else layered, 1.0]
    count = PENALTY_PASSES if passes is None else passes
    if count <= 0:
        return []
    costs = list(PENALTY_PASS_COSTS[: count - 1])
    return costs + [LATE_PASS_COST] * (count - 1 - len(costs)) + [LAST_PASS_COST]


def pass_units(model: Model) -> float:
    """The whole solve in full passes: the warm start and every pass by its cost."""
    warm = warm_units(model) if model.rules.has_penalty else 0.0
    return warm + sum(pass_costs(model))


def solve_work(model: Model) -> int:
    """In-turn rows one pass of the solver computes: ``lane rows x 6 x padding``.

    A lane (a start state ``(b, d, ...)``) is solved from its *exact cut* down
    (:mod:`solver.duel.kernel`): the cut is at least the goal, ``NB - b`` rows, or the bank
    minimum; under the final-turn endgames it is also at least ``K* - (b - d + 1)``, where
    ``K*`` is the lead over the opponent past which banking is provably best, the smallest
    ``K`` with ``R(K) <= p_min (1 - x)`` (:mod:`solver.core.endgame`), taken at ``x = 1/2``.
    Every row holds 6 dice counts. Lanes run in blocks of :data:`~solver.duel.model.LANES`, a
    batch's last block padded (:func:`padded_lanes`), so the rows are scaled by
    ``padded_lanes / start_states``.
    """
    nb = model.nb
    k_star = _k_star(model)
    d = np.arange(nb)
    rows = 0
    for u in range(model.ne):
        floor_rows = model.bank_minimum(u)
        for b in range(nb):
            lead = b - d + 1
            rows += int(np.maximum(max(nb - b, floor_rows), k_star - lead).sum())
    per_flag = model.start_states // (nb * nb * model.ne)  # f, e, o, r: the same rows
    lane_rows = rows * per_flag
    return round(6 * lane_rows * padded_lanes(model) / model.start_states)


def _match_passes(model: Model) -> float:
    """The match evaluation's sweeps relative to rules with a farkle penalty: without one a
    farkle leads to the mirror state in the same layer, and the sweeps take about twice as
    many (MATCH_NO_PENALTY_SWEEPS)."""
    return 1.0 if model.rules.has_penalty else MATCH_NO_PENALTY_SWEEPS


def _k_star(model: Model) -> int:
    """``K*`` of :func:`solve_work` (0 when reaching the goal wins outright)."""
    if not needs_final_turn(model.rules):
        return 0
    final = model.final
    need = final.p_min * 0.5
    best = 0
    for reach in final.reach[1:]:
        settled = np.nonzero(reach <= need)[0]
        best = max(best, int(settled[0]) if len(settled) else len(reach) - 1)
    return best


def padded_lanes(model: Model) -> int:
    """Lanes one pass runs: every batch of :func:`solver.duel.model.build_schedule` padded to LANES.

    The same batches as the schedule, counted instead of built (the schedule of a huge model
    would itself take minutes and gigabytes); ``tests/test_unbreakable.py`` checks that the
    two agree.
    """
    nb, nf = model.nb, model.nf
    flags = model.ne * model.ne * model.ns
    # Without a penalty each group is split into the states that sort above their mirror and
    # the rest (solver.duel.model.mirror_first): every flag of b > d, and of b == d those flags.
    flag_states = np.indices((1, 1, 1, 1, model.ne, model.ne, model.ns)).reshape(7, -1)
    first_flags = int(mirror_first(model, flag_states).sum())
    group = max(1, min(model.bank_min))
    total = 0
    for s_high in range(2 * nb - 2, -1, -group):
        layers = range(s_high, max(-1, s_high - group), -1)
        spans = [(max(0, s - nb + 1), min(nb - 1, s), s) for s in layers]
        states = sum(hi - lo + 1 for lo, hi, _ in spans) * flags
        above = sum(max(0, hi - max(lo, s // 2 + 1) + 1) for lo, hi, s in spans) * flags
        above += sum(first_flags for lo, hi, s in spans if s % 2 == 0 and lo <= s // 2 <= hi)
        for c in range(2 * nf - 2, -1, -1):
            pairs = sum(1 for f in range(nf) if 0 <= c - f < nf)
            parts = [above, states - above] if nf == 1 else [states]
            total += sum(-(-(n * pairs) // LANES) * LANES for n in parts if n)
    return total


def match_estimate(model: Model, optimal: bool) -> Estimate:
    """The cost of the exact match evaluation on ``model`` (``optimal``: one side is optimal)."""
    if optimal:
        seconds = MATCH_SECONDS_PER_ROW * solve_work(model) * _match_passes(model)
    else:
        seconds = SIMPLE_MATCH_SECONDS_PER_START_STATE * model.start_states
    return Estimate(
        what=f"the exact odds of {_describe(model)}",
        seconds=seconds,
        bytes=BASE_BYTES + MATCH_BYTES_PER_START_STATE * model.start_states,
    )


def _describe(model: Model) -> str:
    rules = model.rules
    return f"{rules.name} (goal {rules.goal:,}, floor {model.floor:,}, {model.start_states:,} start states)"


def machine_memory() -> int | None:
    """The bytes of memory this machine has (physical), or None where the OS does not say."""
    try:
        pages = os.sysconf("SC_PHYS_PAGES")
        page = os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    if pages <= 0 or page <= 0:
        return None
    return int(pages) * int(page)


def duration(seconds: float) -> str:
    """``40 s``, ``12 min``, ``3.5 h``, ``2.1 days``: the unit a person would use."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    if seconds < 36 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def size(n: int) -> str:
    """``340 MB``, ``31 GB``."""
    if n < 1024**3:
        return f"{max(1, round(n / 1024**2))} MB"
    return f"{n / 1024**3:.1f} GB"
