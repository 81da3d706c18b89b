// Export a run as one standalone HTML file: the run's data, the stylesheet and the modules
// that replay it, all inline (modules as data: URLs behind an import map), so it plays offline.

// offline.js and everything it imports, directly or not.
const MODULES = ["format.js", "dom.js", "layout.js", "transfers.js", "stage.js", "replay.js", "player.js", "panels.js", "offline.js"];

const PAGE = (title, css, importmap, data) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${css}</style>
<script type="importmap">${importmap}</script></head>
<body><header><h1>Ringside</h1><span class="pill">offline replay</span></header>
<main style="grid-template-columns: 1fr 320px">
<section id="center"><div id="title"><span id="run-title"></span></div>
<svg id="stage" viewBox="0 0 1200 640"></svg><p id="caption"></p>
<div id="player"><button id="first">|◀</button><button id="back">◀</button><button id="play">▶</button><button id="forward">▶|</button>
<input id="slider" type="range" min="-1" max="-1" value="-1"><span id="step-label"></span>
<label>speed <select id="speed"><option value="0.25">0.25×</option><option value="0.5">0.5×</option><option value="1" selected>1×</option><option value="2">2×</option><option value="5">5×</option></select></label></div>
<div id="phases"></div></section>
<aside><h2>This step</h2><ol id="log"></ol><h2>Before / after</h2><div id="outcome"></div><h2>Traffic</h2><div id="traffic"></div><a id="trace" hidden></a></aside>
</main>
<script type="application/json" id="run-data">${data}</script>
<script type="module">import "rs/offline.js";</script>
</body></html>`;

const b64 = (text) => btoa(unescape(encodeURIComponent(text)));

export async function standalone(run) {
  const sources = await Promise.all(MODULES.map((m) => fetch(`/js/${m}`).then((r) => r.text())));
  const css = await fetch("/css/ringside.css").then((r) => r.text());
  const imports = Object.fromEntries(MODULES.map((m, i) => [`rs/${m}`, `data:text/javascript;base64,${b64(sources[i])}`]));
  const data = JSON.stringify(run).replaceAll("<", "\\u003c"); // no "</script>" can end the data early
  return PAGE(`Ringside: ${run.spec.collective} ${run.spec.algorithm} (${run.id})`, css, JSON.stringify({ imports }), data);
}

export async function download(run) {
  const blob = new Blob([await standalone(run)], { type: "text/html" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `ringside-${run.id}.html`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}
