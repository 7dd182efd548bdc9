"""The app's screens, one per module: start, setup, solve, game, hints, rules, dialogs, game over."""
