"""The optimal strategy: win-probability value iteration, its cache, decisions, and AI players."""
