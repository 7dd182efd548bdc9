"""Analyses built on the solvers: exits (one module for the record, one per kind of player) and
exact match odds, the one match simulator for two to six seats, komi, distributions, the long
run, the explorer, game analysis and history, the card search, the coach and the drill.
"""
