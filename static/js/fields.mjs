// The answer controls of questions with choices beyond plain buttons: a dropdown for long lists, an
// ordered scale (Likert) and "select all that apply". How a question looks never changes what is randomized: a
// dropdown and a scale answer with one choice's code, as buttons do; a select-all question answers each of its
// no/yes features (./questions.mjs). The style comes resolved from the server (``Question.resolved_style``).
import { t } from "./i18n.mjs";

/** An element with attributes (``text``: its text) and children; the survey page's builder too. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (value !== false && value !== undefined && value !== null) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

/** Whether this module draws and reads question ``q`` (else: number box or one radio button per choice). */
export function handles(q) {
  return q.kind === "multi" || q.style === "dropdown" || q.style === "scale";
}

// The check boxes of a select-all question that answer for the whole question: none of the choices applies, or the
// respondent prefers not to say (then every choice's feature sends "Prefer not to say").
const NONE = "none";
const DECLINE = "decline";

/** The field of ``q`` (display question ``id`` = "q3"), with its help paragraph ``help`` (or null). */
export function field(q, id, help) {
  const described = help ? `${id}-help` : null;
  if (q.style === "dropdown") {
    const select = el("select", { id, required: true, "aria-describedby": described, "data-question": q.name },
      el("option", { value: "", text: t("Choose…") }),
      ...q.labels.map((label, code) => el("option", { value: String(code), text: label })));
    return el("div", { class: "question dropdown" }, el("label", { for: id, text: q.text }), help, select);
  }
  // A select-all question's instruction is part of its description, so screen readers announce it with the group.
  const hint = q.kind === "multi" ? `${id}-hint` : null;
  const describedBy = [described, hint].filter(Boolean).join(" ") || null;
  const fieldset = el("fieldset", { class: `question ${q.kind === "multi" ? "select-all" : "scale"}`, "data-question": q.name,
    "aria-describedby": describedBy },
    el("legend", { text: q.text }), help);
  if (q.kind === "multi") {
    fieldset.append(el("p", { class: "help", id: hint, text: t("Tick every choice that applies.") }));
    const box = (value, label, extra = "") => el("div", { class: `choice${extra}` },
      el("input", { type: "checkbox", id: `${id}-${value}`, "data-group": id, value }),
      el("label", { for: `${id}-${value}`, text: label }));
    q.options.forEach((option, k) => fieldset.append(box(String(k), option.label)));
    fieldset.append(box(NONE, t("None of these"), " exclusive"));
    if (q.prefer_not_to_say) fieldset.append(box(DECLINE, q.labels[2], " exclusive"));
    // "None of these" and "Prefer not to say" exclude every other box, and a choice excludes them.
    fieldset.addEventListener("change", (event) => {
      const box = event.target;
      if (!box.checked) return;
      const exclusive = box.value === NONE || box.value === DECLINE;
      for (const other of fieldset.querySelectorAll(`input[data-group="${id}"]`)) {
        if (other !== box && (exclusive || other.value === NONE || other.value === DECLINE)) other.checked = false;
      }
    });
    return fieldset;
  }
  // An ordered scale: the choices left to right in their order, one radio group (one Tab stop, arrow keys move), every
  // label visible under its button; "Prefer not to say" after the scale, in the same group.
  const choices = q.labels.map((label, code) => el("div", { class: "choice" },
    el("input", { type: "radio", id: `${id}-${code}`, name: id, "data-group": id, value: String(code) }),
    el("label", { for: `${id}-${code}`, text: label })));
  const decline = q.prefer_not_to_say ? choices.pop() : null;
  fieldset.append(el("div", { class: "scale-options" }, ...choices));
  if (decline) fieldset.append(decline);
  return fieldset;
}

/** The answer to ``q`` from the page: {value} — a choice's code, or for a select-all question one code per choice
 * (0 no, 1 yes, 2 "Prefer not to say") — or {error}. */
export function read(q, id) {
  if (q.style === "dropdown" && q.kind !== "multi") {
    const select = document.getElementById(id);
    return select.value === "" ? { error: t("Please answer “{text}”.", { text: q.text }) }
      : { value: Number.parseInt(select.value, 10) };
  }
  const boxes = [...document.querySelectorAll(`input[data-group="${id}"]`)];
  const checked = boxes.filter((b) => b.checked).map((b) => b.value);
  if (q.kind !== "multi") {
    return checked.length ? { value: Number.parseInt(checked[0], 10) } : { error: t("Please answer “{text}”.", { text: q.text }) };
  }
  if (!checked.length) return { error: t("Please answer “{text}”: tick every choice that applies, or “None of these”.", { text: q.text }) };
  if (checked.includes(DECLINE)) return { value: q.options.map(() => 2) };
  return { value: q.options.map((_, k) => (checked.includes(String(k)) ? 1 : 0)) };
}
