"""Value iteration for the start-of-turn win probabilities ``W0`` (see :mod:`solver.duel.model`).

One *pass* solves every start state's turn once (:func:`solver.duel.kernel.solve_blocks`) in the
order of :class:`solver.duel.model.Schedule`: layers of equal ``b + d`` from the top down and,
inside a layer, from the highest combined farkle count down. Banking below the goal raises
``b + d`` and an unpenalised farkle keeps it while raising ``f + e``, so every state reads
values already updated in the same pass except across the three-farkle penalty (which
points to a lower layer) and, without a penalty, between a state and its mirror ``(d, b)``
that a farkle leads to.

**Rules without a penalty** have no link to a lower layer, so a pass that solves each layer
group exactly, given the groups above it, solves the whole game. Within a group a state and
its mirror read each other; solving the two halves in turn is a scalar iteration per state,
``y <- F(1 - G(1 - y))``, with ``F``, ``G`` the two turns as functions of their farkle value:
piecewise linear and increasing, so once the choices settle the iteration is affine and
Aitken's extrapolation ``y* = y2 - (y2 - y1)^2 / (y2 - 2 y1 + y0)`` lands on its fixed point.
A group is iterated (extrapolating every third step) until it changes no value by more than
:data:`LAYER_TOLERANCE`; on a cold start each group first takes, state by state, the value
one step of the opponent's score up (solved in an earlier group where the groups are one
score step apart), a far better guess than 0.5. One such pass and one plain pass to
confirm solve these rules (the plain passes of a Gauss-Seidel sweep took about 30, each
shrinking the change about twofold, since a farkle bounces between a state and its mirror).

**Rules with a penalty** converge by passes, each shrinking the largest change about
tenfold, because each pass carries the stale value behind one more three-farkle penalty:

1. **Warm start.** The same game without the penalty (one farkle count, a ninth of the
   states), solved roughly as above and broadcast to every farkle count. Unlike a flat 0.5
   it does not make a deliberate third farkle look attractive, which would nearly stall the
   passes. Each layer group's first iteration guesses its choices and the next ones take
   them (as the speculative passes below do): a starting point needs no more, and the warm
   start takes two thirds of the time.
2. **Two speculative passes.** A pass costs three to four times as much while it compares
   the keeps as once it knows which keep wins. The warm start's guesses become this game's
   (:meth:`Runner.take_guesses`: a block guesses what the warm blocks of its lanes' scores
   all chose), and the first two passes take them unchecked, at about a quarter of the cost
   of a full pass each. Their values are never final (:meth:`Runner.sweep`). The guesses
   are nearly all right: under ``facebook`` the pass after moved values by 3.8e-3 at most
   where they were not, against 3.4e-2 moved by the second speculative pass. (A solve from
   ``initial`` values starts instead with a pass that computes everything and guesses from
   this game's values: better guesses, at the cost of about three speculative passes.)
3. **Certifying passes** (below), then **Anderson mixing** of the last few once the first
   ones have left the warm start, until one more full pass changes no value by more than
   the tolerance (1e-12); that last pass's largest change is the reported residual. The
   first of them forgets the guesses, computes everything and certifies keeps already,
   with the margin :data:`VERIFY_MARGIN`. Once the policy has settled a pass is an affine
   map and mixing (Anderson acceleration, GMRES for a linear map) gains a little on the
   tenfold per pass. A mixed point is only ever a new starting point: the residual is
   always that of a full pass from it.

Everything is float64. (Storing the in-turn values in float32 gained little once their
sums had to be float64 too; with float32 sums the fixed point lay off the exact one, which the
float64 passes then had to remove; and a second precision doubles the compile a first run
pays: ``docs/benchmarks.md``.)

**Certified skipping.** Most cells of a turn bank, and by a wide margin, and most roll
groups have one clearly best keep. A pass can record, per block and dice count, the lowest
row from which banking beats rolling by at least a margin ``M`` in every lane, and per row
and roll group the keep every lane prefers by ``M`` (:mod:`solver.duel.kernel`); as long as no
value the later passes read has moved by ``M / 2`` since, those choices cannot change, and
the later passes skip the comparisons: the result is what the full computation gives
(``max(roll, bank) = bank``), up to the order of a sum. Every skipping pass checks this
afterwards, block by block, from the drift of the values each block's turns read (values
read in a pass are the values before or after it); where the check fails the certificates
are dropped and the pass cannot end the solve, so a residual is always that of a pass whose
every skip held. Once the changes are small every pass certifies for the next with a
margin a few times its own change, keeping what still holds, so the margins shrink with the
changes and ever more is skipped.

**Kept blocks.** A turn's value moves by no more than the values it reads, so a block whose
inputs have moved by a quarter of the tolerance (:data:`SETTLE`) since it was solved is that
close to what solving it again would give: it keeps its values, and the pass counts the bound
in its change (:meth:`Runner.sweep`'s ``settle``). Until the end the changes are spread over
nearly every block, but the last pass comes after one that moved values by a few times the
tolerance, mostly far less: it keeps most blocks and solves a fraction of the work
(``docs/benchmarks.md``). The pass before it is not mixed, since mixing moves every value
(:data:`MIX_UNTIL`).

Passes run on every core the process may use: a batch's blocks are independent, so the
threads (the kernels release the GIL) take them one at a time, each the next block when it
is done with the last, and a block of the next batch once every block of its own is written
(:meth:`Runner._batches`): the threads finish together however unequal the blocks are, and
the result is the same on any number of them.
"""

from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import replace

import numpy as np

from ..core.errors import SolveCancelled, SolveFailedError
from .acceleration import Anderson
from .certificates import CERTIFY_FACTOR
from .clock import Clock, Progress
from .estimate import (
    layered_cost,
    pass_costs,
    warm_units,
)
from .jitcache import cached, compile_lock
from .kernel import (
    solve_blocks,
)
from .model import Model, Schedule, build_schedule
from .passes import PLAIN, PassMode, Runner
from .result import SolveResult

TOLERANCE = 1e-12
#: A layer group of rules without a penalty is iterated until it changes no more than this.
LAYER_TOLERANCE = 1e-14
#: The warm start's layers are solved only this far (it is a starting point).
WARM_TOLERANCE = 1e-3
#: The largest margin a pass certifies with (a pass after one that changed values by 0.06).
FIRST_MARGIN = 0.3
#: A certifying pass (margins :data:`solver.duel.certificates.CERTIFY_FACTOR` times the last
#: change) certifies keep choices too once that change is below this (before, too few keeps
#: are certain for the certifying comparison to pay: on a pass that compares every keep it
#: costs about 30% more than the plain maximum).
KEEPS_AT = 1e-3
#: ... until the change is below this: by then every keep that will ever be certain is, and
#: the comparison only costs each later pass (``docs/benchmarks.md``).
KEEPS_UNTIL = 1e-7
#: The progress predicts the passes left from the rate of the changes once the last change is
#: below this; until then, from the pass costs of :mod:`solver.duel.estimate` (while the
#: guesses are corrected the rate swings too much to predict from: ``docs/benchmarks.md``).
SETTLED = 1e-5
#: Passes that run before Anderson mixing starts (the first ones leave the warm start, and
#: mixing them only slows the convergence down).
PLAIN_PASSES = 4
#: A block whose values are this share of the tolerance or less from what its turns would give
#: keeps them (see :meth:`Runner.sweep`); the passes' changes are bounded accordingly.
SETTLE = 0.25
#: No mixing once a pass changed values by this little: mixing moves every value a little,
#: and the next pass, likely the last, would then have to solve every block (unmixed it
#: solves only the blocks whose inputs still move, see SETTLE).
MIX_UNTIL = 1e-10
#: Rules with a penalty: the passes after the first that take guessed choices (see
#: :meth:`Runner.sweep`) before the certifying passes verify them. The first takes the
#: warm start's guesses too, or, from ``initial`` values, computes everything and guesses.
SPECULATIVE_PASSES = 1
#: The first certifying pass after the speculative ones certifies keeps with this margin.
#: It corrects the guesses and the next pass still moves values, so a certificate must outlast
#: drifts of that size: with 1e-3 passes found some failed (``docs/benchmarks.md``).
VERIFY_MARGIN = 1e-2


def default_threads() -> int:
    """The cores this process may run on (``os.sched_getaffinity``; ``os.cpu_count`` elsewhere)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def busy(threads: int) -> bool:
    """Whether the machine runs more than ``threads`` jobs at a time already (the load
    average of the last minute; never where the OS does not say)."""
    try:
        return os.getloadavg()[0] > threads
    except (AttributeError, OSError):  # pragma: no cover - not on Unix
        return False


def _passes_left(tolerance: float, history: list[float]) -> int | None:
    """Passes still to come once the first ones have settled the choices (the last change is
    below :data:`SETTLED`), from the changes so far (the rate of the last two, never faster
    than 1/50 or slower than 1/3); None before.
    """
    if len(history) < 2 or history[-1] > SETTLED:
        return None
    last = history[-1]
    if last <= tolerance:
        return 1
    rate = min(1 / 3, max(1 / 50, history[-1] / history[-2]))
    return max(1, math.ceil(math.log(tolerance / last) / math.log(rate)))


def compile_kernels(
    model: Model, schedule: Schedule, cancel: threading.Event | None = None
) -> float:
    """Compile (or load from numba's cache) every kernel a solve of ``model`` runs; seconds.

    Calling them on no blocks is enough: numba compiles for the argument types. A solve
    runs one kernel, the pass solver. Another farkle process compiling it (the game's
    :mod:`solver.aot.launch`) is waited for, then its code is loaded
    (:func:`solver.duel.jitcache.compile_lock`).
    """
    started = time.perf_counter()
    with compile_lock(solve_blocks, cancel):
        if cancel is not None and cancel.is_set():
            raise SolveCancelled()
        runner = Runner(model, 1, schedule)
        w0 = np.full(model.start_states, 0.5)
        runner.run_kernel(w0, 0, 0, 1, 0, runner.margins)
        runner.close()
    return time.perf_counter() - started


def value_iteration(
    model: Model,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    tolerance: float = TOLERANCE,
    threads: int | None = None,
    max_passes: int = 200,
    initial: np.ndarray | None = None,
) -> SolveResult:
    """Solve ``W0`` until one more full pass changes no value by more than ``tolerance``.

    ``initial`` skips the warm start (a good guess, such as the solution for a nearby
    floor). Progress is reported as a share of predicted time (see :class:`Clock`), after
    a first stage that compiles the kernels (only the very first solve on a machine pays
    for it: numba caches them on disk).
    """
    threads = default_threads() if threads is None else threads
    started = time.perf_counter()
    compiling = not cached(solve_blocks)
    if progress is not None:
        progress(
            0.0,
            "compiling the solver (once for this machine)" if compiling else "loading the solver",
        )
    schedule = build_schedule(model)
    clock = Clock(progress, model)
    runner = Runner(model, threads, schedule)
    if not schedule.mirrored:
        runner.reserve_plans()  # on an idle core while the compile or the warm start runs
    plain = replace(model, nf=1, penalty_count=0, penalty_steps=0)
    history: list[float] = []
    warm: list[float] = []
    mirrored = schedule.mirrored

    def run(
        runner: Runner,
        flat: np.ndarray,
        stage: str,
        mode: PassMode = PLAIN,
    ) -> float:
        if len(history) + len(warm) >= max_passes:
            raise SolveFailedError(f"value iteration did not converge in {max_passes} passes")
        # A pass's progress follows its time, except in the layered pass (rules without a
        # penalty), whose layer groups iterate unevenly; the warm start sets no pace.
        paced = runner.model is model
        even = paced and mode.layers <= 0
        change = runner.sweep(flat, lambda x: clock.report(x, stage, even), cancel, mode=mode)
        clock.finished(pace=paced)
        return change

    passes = pass_costs(model)
    mixer = Anderson()
    skipped: list[float] = []
    stage = "solving" if mirrored else "passes"
    try:
        clock.compiled(compile_kernels(model, schedule, cancel))
        middle = np.full(model.start_states, 0.5)

        def sample() -> None:
            """The clock's unit: a timed sample of a pass, as the passes run (each batch's
            blocks shared among the threads). Rules without a penalty spend nearly all their
            time in the layered first pass, whose batches of one block run on one thread: a
            second sample on one thread tells what those cost here and now
            (estimate.layered_cost)."""
            nonlocal passes
            both = runner.timed_sample(middle)
            clock.measured(both)
            if mirrored and both > 0:
                speedup = runner.timed_sample(middle, threads=1) / both
                passes = pass_costs(model, layered=layered_cost(schedule.single_share, speedup))

        warm_start = initial is None and model.nf > 1
        early = compiling or not warm_start or busy(threads)
        if early:
            # Sampled at once after a compile: a warm start would otherwise run on the
            # compile's pace, which a compile on one core foretells poorly; and on a machine
            # busier than its cores, where the reference machine's pace foretells nothing.
            sample()
        if initial is not None:
            clock.plan(passes)
            x = np.ascontiguousarray(initial, dtype=np.float64).reshape(-1).copy()
        elif warm_start:
            clock.plan([warm_units(model), *passes])
            warm_runner = Runner(plain, threads)
            warm_runner.seed = True
            warm_runner.guess_layers = True
            try:
                flat = np.full(plain.start_states, 0.5)
                warm.append(
                    run(
                        warm_runner,
                        flat,
                        "warm start: the game without the farkle penalty",
                        PassMode(layers=WARM_TOLERANCE),
                    )
                )
                # Without a compile (on a machine not busier than its cores), sampled only
                # now, before the guesses (which it would skip by): in a process's first
                # seconds the machine is often slower (docs/benchmarks.md), and the plans'
                # first writes would slow it too. The warm start then runs on the model's
                # estimate.
                if not compiling:
                    runner.wait_for_plans()
                if not early:
                    sample()
                    clock.report(0.0, stage)  # seconds of work: the bar moves on
                runner.take_guesses(warm_runner)  # in place of a guessing pass
                clock.report(0.0, stage)
                clock.between()
            finally:
                warm_runner.close()
            x = np.broadcast_to(flat.reshape(plain.shape), model.shape).reshape(-1).copy()
        else:
            clock.plan(passes)
            x = np.full(model.start_states, 0.5)
        while True:
            gx = x.copy()
            skipped.append(runner.skipped_share())
            if mirrored:
                runner.seed = initial is None and not history  # a cold first pass
                run(runner, gx, stage, PassMode(layers=LAYER_TOLERANCE))
            elif len(history) <= SPECULATIVE_PASSES:
                # These passes take the warm start's guesses (from ``initial``: the first
                # pass guesses, computing everything), unchecked (Runner.sweep).
                run(runner, gx, stage, PassMode(guess=True))
            else:
                # Then every pass certifies for the next; the first of them verifies the
                # guesses, computing everything, and certifies keeps already.
                last = history[-1]
                verifying = runner.guessed
                certify = VERIFY_MARGIN if verifying else min(FIRST_MARGIN, CERTIFY_FACTOR * last)
                keeps = verifying or KEEPS_UNTIL < last <= KEEPS_AT
                mode = PassMode(certify=certify, keeps=keeps, settle=SETTLE * tolerance)
                run(runner, gx, stage, mode)
            history.append(max(float(np.abs(gx - x).max()), runner.kept))
            if history[-1] <= tolerance and runner.exact:
                break
            left = 1 if mirrored else _passes_left(tolerance, history)
            if left is not None:
                clock.plan(pass_costs(model, len(history) + left)[len(history) :])
            elif not clock.ahead:
                clock.plan(pass_costs(model, len(history) + 1)[len(history) :])
            mixing = not mirrored and len(history) > PLAIN_PASSES and history[-1] > MIX_UNTIL
            x = mixer.next_point(x, gx) if mixing else gx
    finally:
        runner.close()
    if progress is not None:
        progress(1.0, "solved")
    return SolveResult(
        w0=gx.reshape(model.shape),
        passes=len(history),
        cheap_passes=len(warm) * plain.start_states / model.start_states,
        residual=history[-1],
        seconds=time.perf_counter() - started,
        history=tuple(history),
        skipped=float(np.mean(skipped)) if skipped else 0.0,
    )
