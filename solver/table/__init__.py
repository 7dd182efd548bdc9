"""A table of N players: the exact three-player model and solve, the final round, the
approximation built on the two-player solve, policy evaluation and the table decision API.
"""
