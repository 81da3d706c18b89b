"""The one dispatcher that runs jobs (a run, a training, a bench) on the whole cluster, and what a job is."""
