"""What an operator runs a server for a term with: the access log, and retention of runs."""
