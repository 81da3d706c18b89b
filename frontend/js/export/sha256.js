// SHA-256 of a text's UTF-8 bytes, in base64: an exported page allows its own inline scripts by
// their hashes, and crypto.subtle exists only in a secure context (not at a presenter's LAN address).

function primes(n) {
  const found = [];
  for (let k = 2; found.length < n; k++) if (found.every((p) => k % p)) found.push(k);
  return found;
}
const fraction = (x) => ((x - Math.floor(x)) * 2 ** 32) >>> 0; // its first 32 bits
const K = primes(64).map((p) => fraction(Math.cbrt(p)));
const H = primes(8).map((p) => fraction(Math.sqrt(p)));
const rotr = (x, r) => (x >>> r) | (x << (32 - r));

function padded(text) {
  const bytes = new TextEncoder().encode(text);
  const size = Math.ceil((bytes.length + 9) / 64) * 64;
  const message = new Uint8Array(size);
  message.set(bytes);
  message[bytes.length] = 0x80;
  const view = new DataView(message.buffer);
  view.setUint32(size - 8, Math.floor(bytes.length / 2 ** 29));
  view.setUint32(size - 4, (bytes.length * 8) >>> 0);
  return view;
}

function compress(h, view, at, w) {
  for (let t = 0; t < 16; t++) w[t] = view.getUint32(at + 4 * t);
  for (let t = 16; t < 64; t++) {
    const s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >>> 3);
    const s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >>> 10);
    w[t] = (w[t - 16] + s0 + w[t - 7] + s1) >>> 0;
  }
  let [a, b, c, d, e, f, g, k] = h;
  for (let t = 0; t < 64; t++) {
    const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t]) >>> 0;
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
    [k, g, f, e, d, c, b, a] = [g, f, e, (d + t1) >>> 0, c, b, a, (t1 + t2) >>> 0];
  }
  [a, b, c, d, e, f, g, k].forEach((x, i) => { h[i] = (h[i] + x) >>> 0; });
}

export function sha256(text) {
  const view = padded(text), h = [...H], w = new Uint32Array(64);
  for (let at = 0; at < view.byteLength; at += 64) compress(h, view, at, w);
  const digest = new DataView(new ArrayBuffer(32));
  h.forEach((x, i) => digest.setUint32(4 * i, x));
  return btoa(String.fromCharCode(...new Uint8Array(digest.buffer)));
}
