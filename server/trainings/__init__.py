"""Data-parallel training runs: the record, the job, the store and the routes."""
