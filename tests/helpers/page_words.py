"""What the page tests that switch a page to Korean or Chinese look for: English words left in its
visible text (test_lecture_words.py, test_frontend_jobs.py)."""

from __future__ import annotations

import re

# What a lecture keeps in English in every language, besides the catalog's and the cluster's names
# and identifiers (anything with a digit or an underscore: int32, r-000001, log2): key caps, units,
# product and file names, the nccl-tests figures, torch.distributed's calls, the seeds' own English
# terms for the parameter server's phases, and a value that is not a number.
ALLOWED = {
    *("Space", "Enter", "Esc", "Home", "End"),
    *("KiB", "MiB", "GiB", "kB", "MB", "GB", "ms", "µs"),
    *("Ringside", "Perfetto", "torchrun", "torch", "gloo", "nccl", "NCCL", "HTML", "JSON", "QR"),
    *("CPU", "GPU", "PID", "MLP", "SGD", "RMS"),
    *("algbw", "busbw", "send", "recv", "isend", "irecv"),
    *("pull", "push", "fan-in", "fan-out"),
    "NaN",
}
# the Chinese note writes "rank" as it is ("所有 rank")
SEED_TERMS = {"ko": set(), "zh": {"rank"}}

SEEN = """(root) => {
  const out = [], top = document.querySelector(root ?? "body"); // Playwright passes no argument as null
  const seen = (el) => el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
  const walk = document.createTreeWalker(top, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement, text = n.nodeValue.trim();
    // code is code (a command line), a select shows its picked option, a title is a hover (below)
    if (!el || !text || el.closest("script, style, title, select, code, dialog:not([open])")) continue;
    const r = document.createRange();
    r.selectNodeContents(n);
    if (seen(el) && [...r.getClientRects()].some((b) => b.width > 0 && b.height > 0)) out.push(text);
  }
  for (const s of top.querySelectorAll("select")) {
    if (seen(s)) out.push(s.selectedOptions[0]?.text ?? "");
  }
  for (const el of top.querySelectorAll("[title], [placeholder]")) {
    if (!seen(el)) continue;
    for (const a of ["title", "placeholder"]) if (el.getAttribute(a)) out.push(el.getAttribute(a));
  }
  for (const t of top.querySelectorAll("#stage title")) out.push(t.textContent); // a cell's hover
  return out;
}"""


def english_left(text: str, allowed: set[str]) -> list[str]:
    """The English words in `text` that are not `allowed`."""
    text = re.sub(r"https?://\S+", " ", text)
    left = []
    for token in re.findall(r"[A-Za-z0-9][A-Za-z0-9_.:+\-]*", text):  # Korean particles apart: AVG에는
        word = token.strip(".:-+")
        if re.search(r"[_\d]|\w\.\w", word) or len(re.sub(r"[^A-Za-z]", "", word)) < 2:
            continue  # an identifier (all_reduce, int32, r-000001, ui.perfetto.dev) or a symbol (N, P, w)
        if word not in allowed:
            left.append(word)
    return left
