"""The game screen's units, one job each: the computer's paced turns, hints, coach, narration.

Neither screens nor widgets: each is a small class the game screen owns, holding the state,
timers and workers of its job. Their workers run on the screen (so a failure reaches the
screen's one report, :class:`~optimal_farkle.tui.workers.ReportsWorkerErrors`), and they draw
only into the widgets of their job; the game itself changes only through the screen.
"""
