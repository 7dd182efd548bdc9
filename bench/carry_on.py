"""Carry-on (piggyback): how big its exact model would be, per preset, against this machine.

Under carry-on the player after a bank may take over the banker's turn total and dice left
instead of rolling fresh dice. A start of turn then carries the offer ``(t, n)`` of the bank
just made, and its value is ``max(W(0, 6), W(t, n))`` of the taker's turn: the value of an
*in-turn* state. So the exits of a turn read in-turn values of other start states, and the
solver has to store every in-turn value ``W(t, n, s)`` between passes, not only ``W0(s)``
(:meth:`solver.duel.model.Model.in_turn_states` counts them), and the bank exits differ per dice
count, which breaks the lanes that share a turn's structure (:mod:`solver.duel.kernel`).

Prints, per preset at its goal: the start states the solver stores today and their bytes,
the in-turn states carry-on would store and their bytes (float64, two copies for a
convergence check), and the machine's memory.

Usage::

    python bench/carry_on.py
"""

from __future__ import annotations

from optimal_farkle.engine import PRESETS, preset
from optimal_farkle.solver.duel.estimate import machine_memory, size
from optimal_farkle.solver.duel.model import build_model


def main() -> int:
    memory = machine_memory()
    print(f"machine memory: {size(memory) if memory else 'unknown'}")
    print(f"{'rules':<15}{'W0 states':>14}{'W0':>10}{'carry-on states':>18}{'carry-on x2':>13}")
    for name in PRESETS:
        model = build_model(preset(name))
        w0, full = model.start_states, model.in_turn_states
        print(f"{name:<15}{w0:>14,}{size(8 * w0):>10}{full:>18,}{size(16 * full):>13}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
