"""Post-mortem: a job opened after the fact from its ranks' Flight Recorder dumps, judged by the
watch's rules (judge.py) and kept as a watched job is (routes.py: /ws/dumps)."""
