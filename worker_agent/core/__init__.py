"""The torch-free core that the server imports too: the schedules and their algorithms, the
collectives' descriptors, the simulator and cost model, the wire protocol and the checks
every run spec passes."""
