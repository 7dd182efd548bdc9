"""What every solver shares: the roll tables, the final turn, expected-score strategies,
positions, the compiler settings of the kernels and the file locks.
"""
