// The presenter's own question (5 in the menu of questions, polls.js): its words, then either choices
// with the right one marked or a number and how far off a typed one may be. A form, so Tab moves
// between its fields, Enter asks and Esc cancels; the server checks it (server/polls/custom.py) and
// says which field it refuses, under the form.

import { html } from "rs/core/dom.js";

const ABC = "ABCDEFGH", FIRST = 4, MOST = 8;

/** The lecturer's words in the page's language, else English (a plain string is theirs as it is). */
export function ownWords(words, lang) {
  return typeof words === "string" ? words : (words?.[lang] ?? words?.en ?? "");
}

/** What the form asks, as POST /api/polls takes it (less the run): the choices left empty dropped,
 * the right one counted among those kept. */
export function customBody({ text, choices, right, numeric, number, tolerance }) {
  if (numeric) return { text, numeric: true, number: toNumber(number), tolerance: toNumber(tolerance) ?? 0 };
  const kept = choices.map((c, i) => [c.trim(), i]).filter(([c]) => c !== "");
  const answer = kept.findIndex(([, i]) => i === right);
  return { text, choices: kept.map(([c]) => c), ...(answer >= 0 && { answer }) };
}

const toNumber = (typed) => (String(typed ?? "").trim() === "" ? null : Number(typed));

/** The form; `onAsk(fields, held)` with what it says once Enter (or Ask) sends it. */
export function customForm(onAsk) {
  const text = html("input", { name: "text", maxlength: "300", "aria-label": "the question", required: "" });
  const rows = html("ol", { class: "own-choices" });
  const addRow = () => {
    const i = rows.children.length;
    rows.append(html("li", {}, html("input", { type: "radio", name: "right", value: i,
      "aria-label": `choice ${ABC[i]} is right` }), // none marked first: the lecturer marks one
    html("input", { name: "choice", maxlength: "120", "aria-label": `choice ${ABC[i]}` })));
  };
  for (let i = 0; i < FIRST; i++) addRow();
  const more = html("button", { type: "button", onclick: () => rows.children.length < MOST && addRow() }, "Add a choice");
  const numeric = html("input", { type: "checkbox", name: "numeric" });
  const number = html("input", { type: "number", step: "any", name: "number", "aria-label": "the right number" });
  const tolerance = html("input", { type: "number", step: "any", min: "0", name: "tolerance", value: "0",
    "aria-label": "tolerance" });
  const numbers = html("p", { class: "own-number", hidden: "" }, html("label", {}, "The number ", number),
    html("label", {}, " ± ", tolerance));
  const choices = html("div", {}, rows, more);
  numeric.addEventListener("change", () => { numbers.hidden = !numeric.checked; choices.hidden = numeric.checked; });
  const held = html("input", { type: "checkbox", name: "held" });
  const form = html("form", { class: "own", onsubmit: (e) => {
    e.preventDefault();
    const picked = rows.querySelector("input[type=radio]:checked");
    onAsk({ text: text.value.trim(), choices: [...rows.querySelectorAll("input[name=choice]")].map((c) => c.value),
      right: picked ? Number(picked.value) : -1, numeric: numeric.checked, number: number.value,
      tolerance: tolerance.value }, held.checked);
  } }, html("h2", {}, "Your own question"), html("label", { class: "own-text" }, "Question ", text),
  html("p", {}, html("label", {}, numeric, " A number instead of choices")), choices, numbers,
  html("p", {}, html("label", {}, held, " Run the picked run held behind it")),
  html("p", {}, html("button", { type: "submit" }, "Ask")));
  return { form, focus: () => text.focus() };
}
