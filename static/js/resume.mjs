// Answers that survive a reload, and nothing left behind once sent. Until the respondent presses "Send", the page
// keeps in this tab's sessionStorage, under "coinflip:answers:<slug>":
//   - the answers as given (each field's state: the codes of the choices ticked, a number, a slider's position);
//   - the step shown, and the order this respondent's page shows the questions and choices in (./widgets.mjs);
//   - the randomized reports already drawn for these answers (./permanent.mjs), so that a reload at the review step
//     shows the same report, never a fresh randomization (which would let a respondent draw again until a report
//     pleased them), bound to the protocol version the reports were drawn under.
// sessionStorage belongs to this tab and this site: it is never sent, other tabs do not see it, and the browser
// deletes it when the tab is closed (a browser that restores closed tabs may restore it with the tab). The page
// deletes it when "Send" is pressed (the report to send then waits in ./memo.mjs, which holds no true answer), and
// when the respondent deletes it with the page's button. Never localStorage: true answers must not outlive the tab.
// A designer's preview keeps nothing. The invitation token is not part of it (./survey.mjs keeps the token apart,
// only until it is redeemed at the first answer).
import { t } from "./i18n.mjs";

export const answersKey = (slug) => `coinflip:answers:${slug}`;

/** This tab's sessionStorage, or null when the browser keeps nothing (blocked storage, private modes that throw). */
export function sessionStore() {
  try {
    const store = window.sessionStorage;
    const probe = "coinflip:probe";
    store.setItem(probe, "1");
    store.removeItem(probe);
    return store;
  } catch {
    return null;
  }
}

/** What the kept answers are bound to: the questions' names, kinds and number of answers, in order — not their
 * texts, which change with the page's language while the codes the answers are kept as do not. */
export function questionsSignature(questions) {
  return JSON.stringify(questions.map((q) => [q.name, q.kind, q.style, (q.labels || []).length, q.low, q.high,
                                              (q.options || []).length]));
}

/** The state of the answer fields of ``form``: {field id: value} — a radio group's checked code, the checked
 * boxes of a select-all question, a dropdown's or number box's value, a slider's value once moved. */
export function fieldStates(form) {
  const state = {};
  for (const input of form.querySelectorAll("input, select")) {
    const group = input.dataset.group;
    if (input.type === "radio") {
      if (input.checked) state[group] = input.value;
    } else if (input.type === "checkbox") {
      if (input.checked) (state[group] = state[group] || []).push(input.value);
    } else if (input.type === "range") {
      if (!input.hasAttribute("data-unset")) state[input.id] = input.value;
    } else if (input.id && input.value !== "") {
      state[input.id] = input.value;
    }
  }
  return state;
}

/** Put kept field states back into ``form``; ``setSlider`` moves a slider as if by hand. True when any was set. */
export function restoreFields(form, state, setSlider) {
  let any = false;
  for (const [id, value] of Object.entries(state || {})) {
    const single = document.getElementById(id);
    if (Array.isArray(value)) {
      for (const code of value) {
        const box = form.querySelector(`input[type=checkbox][data-group="${id}"][value="${code}"]`);
        if (box) box.checked = any = true;
      }
    } else if (single && single.type === "range") {
      setSlider(single, value);
      any = true;
    } else if (single && (single.tagName === "SELECT" || single.type === "number")) {
      single.value = value;
      any = true;
    } else {
      const radio = form.querySelector(`input[type=radio][data-group="${id}"][value="${value}"]`);
      if (radio) radio.checked = any = true;
    }
  }
  return any;
}

/** The state kept for survey ``slug`` if it was kept for these questions (``signature``), else null (and a state
 * for other questions is deleted). */
export function read(store, slug, signature) {
  if (!store) return null;
  try {
    const kept = JSON.parse(store.getItem(answersKey(slug)) || "null");
    if (kept && kept.questions === signature) return kept;
    store.removeItem(answersKey(slug));
  } catch {
    try { store.removeItem(answersKey(slug)); } catch { /* nothing kept */ }
  }
  return null;
}

/** Keep ``state`` ({questions, protocol, step, fields, order, permanent, nonces}) for survey ``slug``. */
export function write(store, slug, state) {
  if (!store) return false;
  try {
    store.setItem(answersKey(slug), JSON.stringify(state));
    return true;
  } catch {
    return false;
  }
}

/** Delete the kept answers of survey ``slug`` from this tab. */
export function clear(store, slug) {
  if (!store) return;
  try {
    store.removeItem(answersKey(slug));
  } catch {
    // nothing kept
  }
}

/** What the page says about the answers it keeps (shown with "What this browser keeps"). */
export function words(store) {
  if (!store) {
    return t("Your answers are kept in this page's memory only: a reload, the language switch or leaving the page loses them (the page asks first).");
  }
  return t("Until you press “Send”, your true answers are also kept in this tab's session storage, with the step you are at, the order your questions are shown in and the randomized report drawn for them, so that a reload, the language switch or your browser's Back and Forward buttons keep them and reviewing them again shows the same report. They are never sent, never kept in the site's local storage, and are deleted from this tab when you press “Send” or “Delete my answers from this tab”, or when you close the tab (a browser that restores closed tabs may restore them with it). Anyone using this browser tab before then could read them.");
}
