"""Analyses built on the solvers: exits and exact match odds, komi, distributions, the long
run, the explorer, game analysis, the card search, the coach and the drill.
"""
