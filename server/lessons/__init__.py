"""Lessons: a lecture prepared as a file, a sequence of stages the presenter steps through."""
