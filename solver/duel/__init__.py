"""Two players: the win-probability model, its kernels, value iteration, the strategy, its
cache and the decision API.
"""
