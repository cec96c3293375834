// More question types for the respondent's page (./survey.mjs), none of which changes what is randomized:
//   - a slider for a number with public bounds (answers the number, as the number box does);
//   - a matrix: questions next to each other with the same matrix title and the same choices, drawn as one grid, a
//     row each; every row is one question to the engine and answers with its choice's code, as buttons do;
//   - a respondent's own order of questions and choices (the survey's "shuffle" settings), drawn with
//     crypto.getRandomValues (./random.mjs ByteSource). Only the page's layout changes: answers keep their questions'
//     and choices' codes, so what is sent is the same whatever the order, and the order is never sent.
import { el } from "./fields.mjs";
import { t } from "./i18n.mjs";
import { decimal } from "./words.mjs";

// ---- slider ---------------------------------------------------------------------------------------------------

/** A slider's step: the designer's, else a hundredth of the range between the public bounds. */
function stepOf(q) {
  return q.step || (q.high - q.low) / 100;
}

/** ``value`` written with as many decimals as the step needs (German decimal comma). */
function shown(q, value) {
  const digits = Math.min(Math.max(0, -Math.floor(Math.log10(stepOf(q)) + 1e-9)), 10);
  return decimal(Number(value).toFixed(digits));
}

/** The field of a number set with a slider (display question ``id`` = "q3"): the label names the bounds, the
 * value is shown beside it (an <output> read out as it changes). The slider starts unset (its thumb in the middle
 * means nothing): it counts as answered only once moved, with the mouse, a finger or the keyboard. */
export function slider(q, id, help) {
  const output = el("output", { id: `${id}-value`, for: id, "aria-live": "polite", class: "slider-value",
                                text: t("Not set yet: move the slider.") });
  const described = [help ? `${id}-help` : null, `${id}-value`].filter(Boolean).join(" ");
  const input = el("input", {
    id, type: "range", min: q.low, max: q.high, step: stepOf(q), value: (q.low + q.high) / 2,
    "aria-describedby": described, "aria-valuetext": t("not set"), "data-question": q.name, "data-unset": "true",
  });
  input.addEventListener("input", () => {
    input.removeAttribute("data-unset");
    input.removeAttribute("aria-valuetext");
    output.textContent = shown(q, input.value);
  });
  return el("div", { class: "question slider" },
    el("label", { for: id, text: t("{text} ({low} to {high})", { text: q.text, low: decimal(String(q.low)), high: decimal(String(q.high)) }) }),
    help,
    el("div", { class: "slider-row" },
      el("span", { "aria-hidden": "true", text: decimal(String(q.low)) }), input,
      el("span", { "aria-hidden": "true", text: decimal(String(q.high)) })),
    output);
}

/** Set a slider to a kept value (./resume.mjs), as if moved there. */
export function setSlider(input, value) {
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: false }));
}

/** The slider's answer: {value} once moved, else {error}. */
export function readSlider(q, id) {
  const input = document.getElementById(id);
  if (input.hasAttribute("data-unset")) return { error: t("Please answer “{text}”: move the slider to your answer.", { text: q.text }) };
  const value = Number.parseFloat(input.value);
  return Number.isFinite(value) ? { value } : { error: t("Please answer “{text}” with a number.", { text: q.text }) };
}

// ---- matrix ---------------------------------------------------------------------------------------------------

/** Whether question ``q`` may share a grid with ``first`` (the grid's first row): the same matrix title and the
 * same answers, in the same order. */
function sameGrid(first, q) {
  return Boolean(q.matrix) && q.matrix === first.matrix && gridded(q)
    && JSON.stringify(q.labels) === JSON.stringify(first.labels);
}

/** Whether ``q`` may be a row of a grid: a question with a matrix title, answered with one choice, and shown always
 * (a question shown on a condition, ./skip.mjs, is drawn on its own). */
function gridded(q) {
  return Boolean(q.matrix) && q.kind !== "numeric" && q.kind !== "multi" && !q.show_if;
}

/** The page's questions ``qs`` (in order) as units: {questions: [q]} for a question drawn alone, {questions, matrix}
 * for the rows of a grid (two questions or more in a row with the same matrix title and answers). */
export function units(qs) {
  const out = [];
  for (const q of qs) {
    const last = out[out.length - 1];
    if (last && last.matrix && sameGrid(last.questions[0], q)) last.questions.push(q);
    else out.push({ questions: [q], matrix: gridded(q) ? q.matrix : null });
  }
  // A matrix of one row is a question like any other.
  for (const unit of out) if (unit.questions.length < 2) unit.matrix = null;
  return out;
}

let grids = 0;

/** One grid for the rows ``rows`` ({q, id}: display question ``id`` = "q3"): a table whose caption is the matrix
 * title, one column per answer (the column headers), one row per question (its row header). Each row is one radio
 * group (one Tab stop, the arrow keys move along the row), each radio named by its row's and its column's
 * headers. A narrow screen scrolls the table sideways, keeping the row headers. */
export function matrix(title, rows) {
  const grid = `m${grids++}`;
  const labels = rows[0].q.labels;
  const columns = labels.map((label, code) => el("th", { scope: "col", id: `${grid}-c${code}`, text: label }));
  const body = rows.map(({ q, id }) => {
    const header = el("th", { scope: "row", id: `${id}-label` }, el("span", { class: "row-text", text: q.text }),
      q.help_text ? el("span", { class: "help", id: `${id}-help`, text: q.help_text }) : null);
    return el("tr", { class: "question matrix-row", "data-question": q.name, "data-group-row": id }, header,
      ...labels.map((_, code) => el("td", {},
        el("input", { type: "radio", id: `${id}-${code}`, name: id, "data-group": id, value: String(code),
                      "aria-labelledby": `${id}-label ${grid}-c${code}`,
                      "aria-describedby": q.help_text ? `${id}-help` : null }))));
  });
  return el("div", { class: "matrix" },
    el("div", { class: "matrix-scroll" },
      el("table", { class: "matrix-grid" },
        el("caption", { text: title }),
        el("thead", {}, el("tr", {}, el("td", {}), ...columns)),
        el("tbody", {}, ...body))));
}

/** Mark a matrix row (``row``, its <tr>) invalid: the message under its text in the row header, each of its radios
 * aria-invalid and described by it. */
export function markRow(row, fieldId, message) {
  const note = el("span", { class: "question-error", id: `${fieldId}-error`, text: message });
  row.querySelector(".row-text").after(note);
  for (const radio of row.querySelectorAll("input")) {
    radio.setAttribute("aria-invalid", "true");
    const described = (radio.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
    radio.setAttribute("aria-describedby", [...described, note.id].join(" "));
  }
}

export function clearRow(row, fieldId) {
  const note = document.getElementById(`${fieldId}-error`);
  if (note) note.remove();
  for (const radio of row.querySelectorAll("input")) {
    radio.removeAttribute("aria-invalid");
    const described = (radio.getAttribute("aria-describedby") || "").split(" ").filter((x) => x && x !== `${fieldId}-error`);
    if (described.length) radio.setAttribute("aria-describedby", described.join(" "));
    else radio.removeAttribute("aria-describedby");
  }
}

// ---- a respondent's own order ---------------------------------------------------------------------------------

/** ``items`` in a uniformly random order (Fisher–Yates with ``rng.integers``, a ByteSource on crypto.getRandomValues). */
export function shuffle(items, rng) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = rng.integers(0, i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Whether the choices of ``q`` may be shown in a respondent's own order: unordered choices only (not a scale, a
 * matrix row, yes/no or a number). */
export function shufflesChoices(q) {
  return (q.kind === "categorical" && q.style !== "scale" && !q.matrix) || q.kind === "multi";
}

/** Whether ``kept`` (an order kept by ./resume.mjs) is an order of exactly the names ``names``. */
function isOrderOf(kept, names) {
  return Array.isArray(kept) && kept.length === names.length && [...kept].sort().join("\n") === [...names].sort().join("\n");
}

/** The layout of the pages for this respondent: ``pages`` ([title, questions] per page, as ./survey.mjs groups
 * them) with each page's questions (and each grid's rows) in their own order when ``shuffle.questions``, and
 * ``choices`` {question name: the choice codes in the order shown} when ``shuffle.choices``. ``kept``: the order
 * this tab drew before (./resume.mjs), reused when it still fits these questions. A grid stays together, as one
 * unit of its page. */
export function arrange(pages, shuffle_ = {}, rng = null, kept = null) {
  const order = { pages: [], choices: {} };
  const arranged = pages.map(([title, qs], p) => {
    const names = qs.map((q) => q.name);
    let shown = qs;
    const keptPage = kept && kept.pages ? kept.pages[p] : null;
    if (isOrderOf(keptPage, names)) shown = keptPage.map((name) => qs.find((q) => q.name === name));
    else if (shuffle_.questions && rng) {
      shown = shuffle(units(qs), rng).flatMap((unit) => (unit.matrix ? shuffle(unit.questions, rng) : unit.questions));
    }
    order.pages.push(shown.map((q) => q.name));
    return [title, shown];
  });
  if (shuffle_.choices && rng) {
    for (const [, qs] of arranged) {
      for (const q of qs) {
        if (!shufflesChoices(q)) continue;
        // "Prefer not to say" and skip logic's "Not asked" (the last labels) stay last; a select-all question's
        // choices are its options.
        const count = q.kind === "multi" ? q.options.length
          : q.labels.length - (q.prefer_not_to_say ? 1 : 0) - (q.show_if ? 1 : 0);
        const codes = [...Array(count).keys()];
        const keptCodes = kept && kept.choices ? kept.choices[q.name] : null;
        order.choices[q.name] = isOrderOf(keptCodes && keptCodes.map(String), codes.map(String))
          ? keptCodes : shuffle(codes, rng);
      }
    }
  }
  return { pages: arranged, order };
}

/** Show the choices of question field ``node`` in the order ``codes`` (choice codes): radio buttons, check boxes
 * or a dropdown's entries are moved, never renumbered, so each still answers with its own code. "Prefer not to
 * say", "None of these" and a dropdown's empty first entry stay where they are. */
export function orderChoices(node, codes) {
  if (!codes) return;
  const select = node.querySelector("select");
  if (select) {
    const options = codes.map((code) => select.querySelector(`option[value="${code}"]`));
    const rest = [...select.options].filter((o) => o.value !== "" && !options.includes(o));
    select.append(...options, ...rest);
    return;
  }
  const choices = codes.map((code) => node.querySelector(`input[value="${code}"]`).closest(".choice"));
  const first = choices.reduce((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? a : b));
  const marker = document.createComment("");
  first.before(marker);
  for (const choice of choices) choice.remove();
  marker.after(...choices);
  marker.remove();
}
