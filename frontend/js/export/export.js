// A run as one HTML file that plays offline: its data, the stylesheet and the modules that
// replay it, inline (modules as data: URLs behind an import map).

import { sha256 } from "rs/export/sha256.js";

const ENTRY = "export/offline.js"; // it and what it imports travel inline

// The page's grid has a third column the file lacks: the stage and one panel, or the stage alone.
const LAYOUT = `main.offline { grid-template-columns: 1fr 320px; }
body.present main.offline { grid-template-columns: 1fr; }
@media (max-width: 900px) { main.offline { grid-template-columns: 1fr; padding: .3rem; } `
  + `main.offline #stage { height: auto; aspect-ratio: 15 / 8; }
  body.present main.offline #caption { font-size: 1.1rem; min-height: 0; } }
@media (max-width: 900px) and (orientation: portrait) {
  main.offline #stage { aspect-ratio: auto; height: min(150vw, 68vh); } }`; // a phone: its column

const ENTRY_SCRIPT = `import "rs/${ENTRY}";`;

// As the server's policy: no script but the file's own (its import map and entry by their hashes,
// its modules as the data: URLs the map names), no connection anywhere, no form, no plugin.
const POLICY = (importmap) => `default-src 'none'; script-src 'sha256-${sha256(importmap)}' `
  + `'sha256-${sha256(ENTRY_SCRIPT)}' data:; style-src 'unsafe-inline'; img-src data:; `
  + "base-uri 'none'; form-action 'none'";

const PAGE = (title, css, importmap, data) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8">`
  + `<meta http-equiv="Content-Security-Policy" content="${POLICY(importmap)}">`
  + `<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${css}</style><style>${LAYOUT}</style>
<script type="importmap">${importmap}</script></head>
<body class="present"><header><h1>Ringside</h1><span class="pill">offline replay</span>
<nav><button id="present" class="active" title="lecture mode (L)">Lecture</button></nav></header>
<main class="offline">
<section id="center"><div id="title"><span id="run-title"></span></div>
<svg id="stage" viewBox="0 0 1200 640"></svg><p id="caption"></p>
<div id="player"><button id="first">|◀</button><button id="back">◀</button><button id="play">▶</button>`
  + `<button id="forward">▶|</button>
<input id="slider" type="range" min="-1" max="-1" value="-1"><span id="step-label"></span>
<label>speed <select id="speed"><option value="0.25">0.25×</option><option value="0.5">0.5×</option>`
  + `<option value="1" selected>1×</option><option value="2">2×</option>`
  + `<option value="5">5×</option></select></label></div>
<div id="phases"></div>`
  + `<p class="why">← → step · Home End inputs / result · Space play · `
  + `L lecture mode · F fullscreen</p></section>
<aside class="secondary"><h2>This step</h2><ol id="log"></ol><h2>Before / after</h2><div id="outcome"></div>`
  + `<h2>Traffic</h2><div id="traffic"></div><a id="trace" hidden></a></aside>
</main>
<script type="application/json" id="run-data">${data}</script>
<script type="module">${ENTRY_SCRIPT}</script>
</body></html>`;

const b64 = (text) => btoa(unescape(encodeURIComponent(text)));
const IMPORTS = /(?:from\s*|import\s*\(?\s*)["']rs\/([\w./-]+\.js)["']/g;

/** The entry module and every module it imports, directly or not: {name: source}. */
async function modules(entry) {
  const found = {}, queue = [entry];
  while (queue.length) {
    const name = queue.shift();
    if (name in found) continue;
    found[name] = await fetch(`/js/${name}`).then((r) => r.text());
    for (const m of found[name].matchAll(IMPORTS)) queue.push(m[1]);
  }
  return found;
}

export async function standalone(run) {
  const sources = await modules(ENTRY);
  const css = await fetch("/css/ringside.css").then((r) => r.text());
  const imports = Object.fromEntries(Object.entries(sources).map(([m, text]) =>
    [`rs/${m}`, `data:text/javascript;base64,${b64(text)}`]));
  const data = JSON.stringify(run).replaceAll("<", "\\u003c"); // no "</script>" can end the data early
  // a loaded run file's names are anyone's text: in the title, never markup
  const title = `Ringside: ${run.spec.collective} ${run.spec.algorithm} (${run.id})`
    .replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`);
  return PAGE(title, css, JSON.stringify({ imports }), data);
}

export async function download(run) {
  const blob = new Blob([await standalone(run)], { type: "text/html" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `ringside-${run.id}.html`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}
