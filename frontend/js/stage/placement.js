// Where the run's cards go in the stage's box and the sizes they are written at, set on the stage
// for cards.js and transfers.js; on a projector, which page lines fold away to give values room.

import { hasAside, LEAST, valueFont } from "rs/stage/cards.js";
import { MAX_VALUE } from "rs/stage/grid.js";
import { arrange, stacks } from "rs/stage/layout.js";

const PROJECTED = 18; // px: on a projector (lecture mode), the smallest value, rank name or byte count
const DESK = 11; // px: elsewhere, a value's least
// The page's lines a projector's stage takes the room of where its values need it, least missed
// first: the key hints (? lists every key), then the traffic formula (M shows the formulas).
const FOLDS = { pick: "fold-pick", formula: "fold-formula" }; // element id: the body's class that folds it

/** Lay the run out in the stage's box as it is now: {card, positions, height, font}. `shrink`: a
 * buffer's part labels may be written smaller than the values to give them room. */
function placeIn(stage, run, shrink = true) {
  [stage.width, stage.height] = stage.box();
  stage.drawnAt = stage.scale(); // CSS px a unit took when drawn (fitToBox)
  const layout = run.layout ?? {}; // runs stored before the server gave layouts are drawn as rings
  const world = stage.world();
  // a phone's: marks over it read from the cards' left edge, at a phone's size
  stage.column = stacks(world, stage.width, stage.height);
  stage.projected = !stage.column && !stage.colourOnly && document.body.classList.contains("present");
  // In stage units, 3% over: the box may shrink by 2% before the stage is drawn again (fitToBox).
  // On a projector names, bytes and labels PROJECTED px at least, however small the cards.
  const px = (n) => (1.03 * n) / stage.scale();
  stage.least = stage.projected ? px(PROJECTED) : 0;
  // the least a value, and a buffer part's label, is written at: a projector's, a phone's, a desk's
  stage.valueLeast = px(stage.projected ? PROJECTED : stage.column ? LEAST : DESK);
  // the largest a value is drawn: on a projector as large as on a whole-width stage, in px, where
  // the stage is narrow (a poll's card and a lesson beside it: a unit so small that MAX_VALUE
  // would not even read from the back)
  stage.largest = Math.max(MAX_VALUE, stage.valueLeast, stage.projected ? MAX_VALUE / stage.scale() : 0);
  const edges = run.steps.flatMap((s) => s.transfers.map(([src, dst]) => [src, dst]));
  const fit = { want: stage.valueLeast, font: (card) => valueFont(stage, card) };
  // a buffer's part labels as large as values where that leaves the values room, their asides
  // given way first ("−η·g (η = 1)": the caption says η), else smaller; then the cards' traffic
  // bars give way (the header still writes their bytes)
  const regions = run.display?.regions ?? [], aside = regions.some((r) => hasAside(r.label));
  const labels = !regions.length ? [[1, false]]
    : [[1, false], ...(aside ? [[1, true]] : []), ...(shrink ? [[0.7, aside], [0.55, aside]] : [])];
  const bars = stage.traffic ? [false, true] : [false];
  const tries = bars.flatMap((barless) => labels.map((l) => [barless, ...l]));
  let placed;
  for (const [barless, k, brief] of tries) {
    stage.barless = barless;
    stage.briefLabels = brief;
    stage.labelFont = k * stage.valueLeast;
    placed = arrange(layout, world, stage.width, stage.height, edges, fit);
    if (placed.font >= fit.want) break;
  }
  return placed;
}

/** The run laid out where its values read: on a projector whose stage is too low for them, the
 * page's secondary lines fold away one by one (FOLDS), each still a key away, until they do; a
 * buffer's part labels ("−η·g (η = 1)": numbers too) are written as large as the values until
 * then, and smaller only where nothing else is left to give. */
export function placeRun(stage, run) {
  const body = document.body;
  for (const fold of Object.values(FOLDS)) body.classList.remove(fold);
  let placed = placeIn(stage, run, !stage.projected);
  for (const [id, fold] of Object.entries(FOLDS)) {
    if (!stage.projected || placed.font >= stage.valueLeast) break;
    if (!document.getElementById(id)?.getBoundingClientRect().height) continue; // not shown: no room to give
    body.classList.add(fold);
    placed = placeIn(stage, run, false);
  }
  return stage.projected && placed.font < stage.valueLeast ? placeIn(stage, run) : placed;
}
