// A run's trace into the Perfetto UI as Perfetto documents it: open its page, PING it until it
// answers PONG, then post the trace; plain words when it cannot be reached (an offline hall).

import { $, reason } from "rs/core/dom.js";

const PERFETTO = "https://ui.perfetto.dev";
const PING_MS = 250;
const SLOW_MS = 5000; // no answer by then: say it may be unreachable, and keep trying a while
const GIVE_UP_MS = 30000;

/** Fetch the trace at `url` and hand it to Perfetto. Element `status` says how it goes, its
 * data-state "waiting", "slow", "opened" or "failed"; resolves with the final state. */
export async function openInPerfetto(url, title, status) {
  const say = (text, state) => { $(status).replaceChildren(...[text].flat()); $(status).dataset.state = state; };
  // Opened first, in the click's own turn: a browser blocks a window opened after an await.
  const win = window.open(PERFETTO, "_blank");
  if (!win) {
    say("The browser blocked the Perfetto window: allow pop-ups for this page, or download the trace.",
      "failed");
    return "failed";
  }
  let buffer;
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
    buffer = await response.arrayBuffer();
  } catch (err) {
    win.close();
    say(["Could not read the trace: ", reason(err)], "failed");
    return "failed";
  }
  say(`Opening ${PERFETTO} …`, "waiting");
  return new Promise((resolve) => {
    const started = Date.now();
    const end = (text, state) => {
      clearInterval(timer);
      window.removeEventListener("message", onMessage);
      say(text, state);
      resolve(state);
    };
    const onMessage = (e) => {
      if (e.source !== win || e.data !== "PONG") return;
      win.postMessage({ perfetto: { buffer, title, fileName: url.split("/").slice(-2).join("-") } },
        PERFETTO);
      end(`Sent the trace to Perfetto (${buffer.byteLength} bytes): see its tab.`, "opened");
    };
    const timer = setInterval(() => {
      if (win.closed) return end("The Perfetto window was closed before it opened the trace.", "failed");
      const waited = Date.now() - started;
      if (waited > GIVE_UP_MS) return end(
        `Could not reach ${PERFETTO}: no answer in ${GIVE_UP_MS / 1000} s. `
        + `Download the trace and open it there later.`, "failed");
      if (waited > SLOW_MS) say(`No answer from ${PERFETTO} yet: it may be unreachable from here (offline?). `
        + `Still trying; the download link works without it.`, "slow");
      win.postMessage("PING", PERFETTO);
    }, PING_MS);
    window.addEventListener("message", onMessage);
  });
}
