"""The cluster's cost model: the fit of its runs, `auto`'s choice, and prediction at scales it cannot run."""
