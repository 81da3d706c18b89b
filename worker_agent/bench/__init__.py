"""The bench: nccl-tests' table of torch's own call, then Ringside's algorithms against it, on
local ranks (`ringside bench --ranks P`), on any cluster under torchrun (`torchrun ... -m
ringside.bench ARGS`) or on a server's connected cluster (`ringside bench --server URL`,
worker_agent/clients/bench.py): every rank measures, and rank 0 (under a server, the CLI) prints
the tables of all the ranks' numbers.

The first table is nccl-tests', line for line, so that their parsers and plotting scripts read it
unchanged: their header lines, a row of 13 columns per dtype, op and size (size count type redop
root, then time algbw busbw #wrong out of place and in place), their footer. Its numbers are
native's, timed as nccl-tests time theirs (nccl_runs): each placement after -w warm-up calls, -n
iterations of -m calls as -z says, a rank's time its span over them by the calls, the ranks'
combined as -a says; -c checked calls from fresh inputs for #wrong. Size is one rank's message in
bytes (the larger of input and output), count the elements of one block of it (all_gather's input,
reduce_scatter's output, all_to_all's to each peer); algbw = size / time, busbw = algbw x
nccl-tests' factor. torch has one form of each call; the other placement is made as a torch user
makes it (placement.py).

The second table, every line of it behind '#' so that those parsers skip it, is Ringside's: each
algorithm at each size, iterations taking turns with native's (native ring tree, ring tree native,
...) so that drift on a busy machine, and the skew a turn's first run absorbs, hit all of them
alike, each iteration waiting for the device; an algorithm that cannot run at a size (too few
elements for its chunks) has a row there saying why, and the others run. Each ratio to native
carries a 95% interval and a mark only where the difference is real (statistics.py). `auto` runs
after every other algorithm has been measured at every size: at each size it runs what the model
(predict.py) picks, fitted as the server fits it to a swept cluster, to this table's own runs,
taking turns with native once more for its ratio; the row says what it ran.

Its modules, by job: cli (`ringside bench`'s flags and its run), __main__ (under torchrun), plan
(which algorithms, sizes and (dtype, op) pairs, refused before any rank starts), dtypes (the
element types and reductions, and which each backend takes), run (what every rank runs),
nccl_runs (the first table's measurement), placement (torch's call in both placements), sweep
(the second table's), wrong (#wrong), statistics (a row's time across ranks, the ratio's interval
and mark), auto (the model's pick), table (the first table's text), compare (the second's rows
and text), report (both, or the JSON; the exit code), served (a server's bench on a rank). The
package imports nothing itself, so each entry loads only what it uses.
"""
