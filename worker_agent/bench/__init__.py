"""The bench: nccl-tests' table for every algorithm of a collective, on local ranks
(`ringside bench --ranks P`), on any cluster under torchrun (`torchrun ... -m ringside.bench
ARGS`) or on a server's connected cluster (`ringside bench --server URL`,
worker_agent/clients/bench.py): every rank measures, and rank 0 (under a server, the CLI) prints
one table of all the ranks' numbers.

Timing is nccl-tests' by default: on each rank the iterations run back to back (no barrier), a
row's time is each rank's mean over its iterations, combined across ranks as -a says (the mean
by default). With -z 1 every iteration starts at a barrier, outside its time (-z 1 -a 3: each
iteration's slowest rank). Unlike nccl-tests, each iteration waits for the device before the next
begins: when the table compares algorithms their iterations take turns (native ring tree, ring
tree native, ...) so that drift on a busy machine, and the skew a turn's first run absorbs, hit
all of them alike. Each ratio to native carries a 95% bootstrap interval over those iterations
(paired, in runs of consecutive ones, seeded: the same samples give the same interval), and the
table marks a difference only where the interval excludes 1.

Size is one rank's message in bytes (the larger of input and output) and count the elements of
one block of it (all_gather's input, reduce_scatter's output, all_to_all's to each peer), as
nccl-tests count them; algbw = size / time, busbw = algbw x the collective's factor. A row's
numbers sit in nccl-tests' in-place or out-of-place columns as the descriptor says its run is
laid out (a schedule's working buffer is in place, all_to_all's halves are apart; native is
torch's own call: all_reduce is in place, all_gather_into_tensor from a copy is not). With
-c 1, #wrong counts the elements of one run's output, on every rank and for every algorithm,
native included, that are off the collective's definition (collectives/, from every rank's
input) by more than verify.py's tolerance.

`auto` runs after every other algorithm has been measured at every size: at each size it runs
what the model (predict.py) picks, fitted as the server fits it to a swept cluster, to this
table's own runs, taking turns with native once more for its ratio; the row says what it ran.

Its modules, by job: cli (`ringside bench`'s flags and its run), __main__ (under torchrun),
plan (which algorithms, which sizes, refused before any rank starts), sweep (what every rank
runs together), wrong (#wrong), statistics (a row's time across ranks, the bootstrap interval),
auto (the model's pick), table (the rows, their text and JSON), served (a server's bench on a
rank). The package imports nothing itself, so each entry loads only what it uses.
"""
