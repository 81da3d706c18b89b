// What the strip over the stage names in lecture mode, part by part: the run on the stage, or what
// R would run (the first screen's pick, or a pick changed since the run came). Pure: node tests it.

import { dtypeOf, seconds } from "rs/core/format.js";

// the lecture preset's inputs (I), as the strip names them
export const PATTERN_WORDS = { digits: "a digit a block", own_rank: "each value its rank",
  powers: "[1, 10, 100, 1000]·rank", origin: "r2c3: rank 2's chunk 3" };

/** A spec's parts: collective, algorithm, ranks, count × dtype, op, root, servers, stagger, inputs
 * (null: none to say). `entry`: its collective's in the catalog; `ranks`: how many, where it names
 * no group; `data`: its inputs in words. A barrier's stage draws each rank's arrival, not a buffer:
 * its parts say that, not its data. */
export function specParts(spec, { entry, ranks, dtype = spec.dtype, data = null }) {
  const who = spec.group ? `ranks ${spec.group.join(",")}` : `${ranks} ranks`;
  const stagger = spec.perturb?.stagger?.delay_s;
  const arrive = stagger ? `ranks arrive ${seconds(stagger)} apart` : null;
  if (entry?.arrivals) return [spec.collective, spec.algorithm, who,
    arrive ? `${arrive}: each waits for the last` : "each rank waits for the last"];
  return [spec.collective, spec.algorithm, who, `${spec.count} × ${dtype}`, entry?.reduces ? spec.op : null,
    spec.root != null && entry?.rooted ? `root ${spec.root}` : null,
    spec.servers ? `S = ${spec.servers}` : null, arrive, data ? `lecture data: ${data}` : null];
}

/** A run's parts: its spec's, with the ranks it ran on and the dtype its buffers hold. */
export const runParts = (run, entry) => specParts(run.spec,
  { entry, ranks: run.group.length, dtype: dtypeOf(run), data: PATTERN_WORDS[run.spec.pattern] });
