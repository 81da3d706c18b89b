"""What translating a caption costs the page (frontend/js/i18n/i18n.js, under node): every step's caption
of every built-in schedule at P = 4, 8 and 16, with 1 and 4 pieces, shown as the page shows it
("Step s of n · phase: caption") and translated into Korean and Chinese, one by one (the best of 5
tries each); the median and the slowest, and the longest caption's. Prints figures; asserts nothing.

    .venv/bin/python bench/i18n_captions.py
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ringside.worker_agent.core.algorithms import algorithms, build
from ringside.worker_agent.core.schedule import ScheduleError

ROOT = Path(__file__).resolve().parent.parent
TIME = """
import { pathToFileURL } from "node:url";
await import(pathToFileURL(process.argv[1] + "/tests/js/rs.mjs").href);
const { translate } = await import("rs/i18n/i18n.js");
const tables = { ko: (await import("rs/i18n/ko.js")).default, zh: (await import("rs/i18n/zh.js")).default };
let input = "";
for await (const chunk of process.stdin) input += chunk;
const shown = JSON.parse(input), out = {};
for (const [lang, table] of Object.entries(tables)) {
  shown.forEach((s) => translate(s, table)); // compiled and warm
  const once = (s) => { const t0 = performance.now(); translate(s, table); return performance.now() - t0; };
  // the best of 5: no GC's pause
  const times = shown.map((s) => Math.min(...[0, 1, 2, 3, 4].map(() => once(s))));
  out[lang] = times;
}
process.stdout.write(JSON.stringify(out));
"""


def captions() -> list[str]:
    shown = set()
    for record in algorithms():
        if not record.built or record.user:
            continue
        for p in (4, 8, 16):
            for chunks in (1, 4):
                try:
                    steps = build(record.collective, record.name, p, 0, chunks).to_doc().steps
                except (ScheduleError, ValueError):  # a world or pieces it does not take
                    continue
                shown.update(
                    f"Step {k + 1} of {len(steps)} · {s.phase}: {s.caption}" for k, s in enumerate(steps)
                )
    return sorted(shown)


def main() -> None:
    shown = captions()
    done = subprocess.run(
        ["node", "--input-type=module", "-e", TIME, str(ROOT)],
        check=True,
        input=json.dumps(shown),
        capture_output=True,
        text=True,
    )
    times = json.loads(done.stdout)
    longest = max(range(len(shown)), key=lambda i: len(shown[i]))
    print(f"{len(shown)} captions as the page shows them, {len(shown[longest])} characters at most")
    for lang, t in times.items():
        ordered = sorted(t)
        slowest = max(range(len(t)), key=t.__getitem__)
        print(
            f"  {lang}: median {ordered[len(t) // 2] * 1000:.0f} µs, "
            f"slowest {ordered[-1] * 1000:.0f} µs, "
            f"the longest caption {t[longest] * 1000:.0f} µs, all {sum(t):.1f} ms\n"
            f"    slowest: {shown[slowest][:100]}… ({len(shown[slowest])} characters)"
        )


if __name__ == "__main__":
    main()
