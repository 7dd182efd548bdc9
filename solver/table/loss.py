"""What the approximations lose against the exact optimum at a table of three, by exact policy
evaluation (:mod:`solver.table.evaluate`): ``bench/table3.py loss``.

Seat by seat, an approximation in one seat and the exact optimum in the others, and the
approximation in all three, against all three exact: the first-to-move chances at the
opening.
"""

from __future__ import annotations

import numpy as np

from ..core.choices import Decider
from ..core.errors import SolverInputError
from ..duel.model import build_model
from .evaluate import evaluate, opening

__all__ = ["loss_report", "two_player_w0"]


def two_player_w0(rules: object, floor: int, cache_dir: object = None) -> np.ndarray:
    """The two-player solve's ``W0`` (flat), solved or loaded like the game does."""
    from ..duel.cache import solve_strategy

    strategy = solve_strategy(rules, floor, cache_dir)  # type: ignore[arg-type]
    return strategy.w0.reshape(-1)


def loss_report(
    rules_name: str, goal: int | None, floor: int, cache_dir: object = None
) -> dict[str, object]:
    """What each approximation loses against the exact optimum (``bench/table3.py loss``)."""
    from optimal_farkle.engine import preset

    from .exact import solve_exact_table

    rules = preset(rules_name)
    if goal is not None:
        rules = rules.with_goal(goal)
    exact = solve_exact_table(rules, 3, cache_dir=cache_dir, floor=floor, force=True)  # type: ignore[arg-type]
    model = exact.model
    two = build_model(rules, floor)
    if two.shape[:6] != (model.nb, model.nb, model.nf, model.nf, model.ne, model.ne):
        raise SolverInputError("the two-player model does not match the table's")
    w2 = two_player_w0(rules, floor, cache_dir)
    base = evaluate(model, exact.w, exact.mixed, w2, (Decider.EXACT,) * 3)
    first = opening(model, base)
    report: dict[str, object] = {
        "rules": rules.name,
        "goal": rules.goal,
        "exact": first.tolist(),
        "exact_check": float(np.abs(base.v[0, :, :2] - exact.w.reshape(-1, 2)).max()),
    }
    lines = [
        f"{rules.name}, goal {rules.goal:,}: exact first-to-move chances "
        + ", ".join(f"{100 * x:.4f}%" for x in first)
        + f" (the evaluation reproduces W to {report['exact_check']:.1e})"
    ]
    for approx in (Decider.RIVAL, Decider.PAIRWISE):
        alone = []
        seconds = 0.0
        for seat in range(3):
            seats = tuple(approx if k == seat else Decider.EXACT for k in range(3))
            one = evaluate(model, exact.w, exact.mixed, w2, seats)
            alone.append(float(opening(model, one)[seat]))
            seconds += one.seconds
        every = evaluate(model, exact.w, exact.mixed, w2, (approx,) * 3)
        all_seats = opening(model, every).tolist()
        losses = [float(first[s] - alone[s]) for s in range(3)]
        report[approx] = {
            "one_seat": alone,
            "loss": losses,
            "all_seats": all_seats,
            "seconds": seconds + every.seconds,
        }
        lines.append(
            f"  {approx:9}: in seat k among exact players it wins "
            + ", ".join(f"{100 * a:.4f}% (-{100 * d:.4f})" for a, d in zip(alone, losses))
            + "; all three: "
            + ", ".join(f"{100 * x:.4f}%" for x in all_seats)
        )
    report["text"] = "\n".join(lines)
    return report
