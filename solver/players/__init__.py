"""Computer players: the optimal one, the weaker levels, and the card played from memory."""
