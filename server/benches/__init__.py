"""The bench as a served job: nccl-tests' table of the connected cluster (`ringside bench --server`)."""
