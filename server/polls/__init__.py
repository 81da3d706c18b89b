"""Predict, then reveal: questions about a run, their votes, and what a viewer may see while one is open."""
