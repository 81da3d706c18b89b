// Talking to the server: REST with the presenter token, if any, and the live websocket.

const TOKEN_KEY = "ringside-token";

/** The token from ?token= (kept for this tab, then removed from the address bar), or the kept one. */
export function token() {
  const params = new URLSearchParams(location.search);
  const given = params.get("token");
  if (given) {
    sessionStorage.setItem(TOKEN_KEY, given);
    params.delete("token");
    const query = params.toString();
    history.replaceState(null, "", location.pathname + (query ? `?${query}` : "") + location.hash);
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

class ApiError extends Error {
  constructor(status, detail) {
    super(typeof detail === "object" && detail ? `${detail.field}: ${detail.message}` : String(detail));
    this.status = status;
    this.field = detail?.field ?? null;
    this.reason = detail?.message ?? String(detail);
  }
}

/** What went wrong, in words: the server's reason for a refusal, no answer at all as such, else the
 * error's own (dom.js's reason() marks it with the refused field, by which another language says it). */
export function explain(err) {
  return err instanceof TypeError ? "no answer from the server" : String(err?.reason ?? err?.message ?? err);
}

export async function api(path, { method = "GET", body } = {}) {
  const headers = { "Content-Type": "application/json" };
  const t = token();
  if (t) headers.Authorization = `Bearer ${t}`;
  const response = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data?.detail ?? response.statusText);
  return data;
}

/** A websocket to /ws that reconnects with backoff; `onState` hears "open" and "closed"; `carried()`
 * says what else each (re)connection carries in its query (a page's ballot).
 * Returns send(message): false where the socket is not open (the message is dropped). */
export function live(onMessage, onState, carried = () => ({})) {
  let delay = 250;
  let ws = null;
  const open = () => {
    const t = token(), query = new URLSearchParams({ ...(t && { token: t }), ...carried() }).toString();
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws${query ? `?${query}` : ""}`;
    ws = new WebSocket(url);
    ws.onopen = () => { delay = 250; onState("open"); };
    ws.onmessage = (e) => {
      const data = JSON.parse(e.data); // one message, or a batch of them
      for (const m of Array.isArray(data) ? data : [data]) onMessage(m);
    };
    ws.onclose = () => { onState("closed"); setTimeout(open, delay); delay = Math.min(delay * 2, 5000); };
  };
  open();
  return (message) => {
    if (ws.readyState !== WebSocket.OPEN) return false;
    ws.send(JSON.stringify(message));
    return true;
  };
}
