"""Practice: a phone steps a run alone and predicts a cell before each step; the room's answers, per step."""
