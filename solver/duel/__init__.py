"""Two players: the win-probability model, its kernels, value iteration (its passes, their
certificates, acceleration and clock), the strategy, its cache and the decision API.
"""
