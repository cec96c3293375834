// The respondent's page: renders the questions from the protocol API, randomizes the answers in this browser
// (./protocol.mjs, which mirrors aggregator/privacy) and sends only the randomized report.
// True answers live in this page's memory and, until "Send", in this tab's sessionStorage (./resume.mjs: a reload or
// Back keeps them; each step is a history entry): never in a request, a URL, a cookie or localStorage. The randomized
// report may be kept in localStorage until it is received (./memo.mjs). Every sentence about the mechanism comes from the
// mechanism's own module (./explain.mjs → describe(), and summarize() for the review step's "In short"), never from
// this page.
// A survey by invitation: the invitation link carries the token in its fragment (/s/<slug>/i/#<token>), which no
// request ever sends; the page reads it, takes it out of the address bar (history.replaceState) and, at the first
// answer, redeems it for a blind signature on a random value (./credentials/blind.mjs, RFC 9474); until then the token
// waits in this page and the tab's sessionStorage (a reload or a language switch keeps it). From then on the page
// holds only the credential (kept with the memo, ./memo.mjs) and deletes the token; "Send" sends the report with the
// unblinded credential, in a request of its own, when the respondent presses it. Every request of the page is made with
// referrerPolicy "no-referrer" (and the page is served with Referrer-Policy: no-referrer), so no request carries the
// page's address. Going back and reviewing again shows the same report (./permanent.mjs).
import { finishCredential, keyIdOf, startCredential } from "./credentials/blind.mjs";
import { asksPersonal, describe, summarize } from "./explain.mjs";
import * as fields from "./fields.mjs";
import { el } from "./fields.mjs";
import { t } from "./i18n.mjs";
import * as memos from "./memo.mjs";
import { describeRoute, transport } from "./ohttp.mjs";
import { PermanentResponse } from "./permanent.mjs";
import { featureCode, featureSource } from "./questions.mjs";
import { ByteSource } from "./random.mjs";
import * as resume from "./resume.mjs";
import * as skip from "./skip.mjs";
import * as widgets from "./widgets.mjs";

const app = document.getElementById("survey-app");
let questionList = [];  // the display questions, for skip logic's conditions (readAnswer)


/** Text blocks (mechanism describe()): a string is a paragraph, an array a list. */
function blocks(items, attrs = {}) {
  return items.filter(Boolean).map((item) => (Array.isArray(item)
    ? el("ul", attrs, ...item.map((text) => el("li", { text })))
    : el("p", { ...attrs, text: item })));
}

function fail(message) {
  app.replaceChildren(el("p", { class: "warning", role: "alert", text: message }));
}

function sections(questions) {
  const groups = new Map();
  for (const q of questions) {
    const key = q.section || "";
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(q);
  }
  return [...groups.entries()];
}

// One radio per answer, named after its question: one Tab stop per question, arrow keys move between the choices.
// The form is never submitted (main() prevents it), so no answer can leave in a plain form post.
function appendChoices(fieldset, labels, id) {
  labels.forEach((label, code) => {
    const optionId = `${id}-${code}`;
    fieldset.append(el("div", { class: "choice" },
      el("input", { type: "radio", id: optionId, name: id, "data-group": id, value: String(code) }),
      el("label", { for: optionId, text: label })));
  });
}

function questionField(q, index) {
  const id = `q${index}`;
  const help = q.help_text ? el("p", { class: "help", id: `${id}-help`, text: q.help_text }) : null;
  if (q.kind === "numeric") {
    if (q.style === "slider") return widgets.slider(q, id, help);
    const input = el("input", {
      id, type: "number", inputmode: "decimal", min: q.low, max: q.high, step: "any", required: true,
      "aria-describedby": help ? `${id}-help` : null, "data-question": q.name,
    });
    return el("div", { class: "question" },
      el("label", { for: id, text: t("{text} ({low} to {high})", { text: q.text, low: q.low, high: q.high }) }), help, input);
  }
  if (fields.handles(q)) return fields.field(q, id, help);  // a dropdown, a scale or select all that apply
  const fieldset = el("fieldset", { class: "question", "data-question": q.name },
    el("legend", { text: q.text }), help);
  appendChoices(fieldset, q.labels, id);
  return fieldset;
}

// MRR with a real unrelated ("personal") question: asked right after its private question, same answer choices.
function personalField(q, index) {
  const id = `p${index}`;
  const fieldset = el("fieldset", { class: "question personal" },
    el("legend", { text: q.personal_text }),
    el("p", { class: "help", text: t("An unrelated question: your browser may send this answer instead of the one above.") }));
  appendChoices(fieldset, q.labels, id);
  return fieldset;
}

function readPersonal(q, index) {
  const checked = [...document.querySelectorAll(`input[data-group="p${index}"]`)].find((r) => r.checked);
  return checked ? { value: Number.parseInt(checked.value, 10) } : { error: t("Please answer “{text}”.", { text: q.personal_text }) };
}

function readAnswer(q, index) {
  // Skip logic (./skip.mjs): a hidden question answers "Not asked", whatever its field holds.
  if (q.show_if && skip.isHidden(q, questionList, (g) => readAnswer(g, questionList.indexOf(g)).value)) return { value: q.show_if.not_asked };
  if (q.kind === "numeric") {
    if (q.style === "slider") return widgets.readSlider(q, `q${index}`);
    const input = document.getElementById(`q${index}`);
    const value = Number.parseFloat(input.value);
    if (!Number.isFinite(value)) return { error: t("Please answer “{text}” with a number.", { text: q.text }) };
    if (value < q.low || value > q.high) return { error: t("“{text}” must be between {low} and {high}.", { text: q.text, low: q.low, high: q.high }) };
    return { value };
  }
  if (fields.handles(q)) return fields.read(q, `q${index}`);
  const checked = [...document.querySelectorAll(`input[data-group="q${index}"]`)].find((r) => r.checked);
  if (!checked) return { error: t("Please answer “{text}”.", { text: q.text }) };
  return { value: Number.parseInt(checked.value, 10) };
}

/** The element that carries a question's invalid state (a numeric input or slider, a dropdown, the fieldset of a
 * group of radio buttons or check boxes, or a matrix row), from the id of its answer field (``q3``, ``p3``). */
function questionOf(fieldId) {
  const field = document.getElementById(fieldId) || document.querySelector(`input[data-group="${fieldId}"]`);
  return field.type === "number" || field.type === "range" || field.tagName === "SELECT" ? field : field.closest("fieldset, tr");
}

/** Mark one question invalid: aria-invalid, and the message beside it, tied by aria-describedby. */
function markInvalid(fieldId, message) {
  const target = questionOf(fieldId);
  if (target.tagName === "TR") return widgets.markRow(target, fieldId, message);
  const container = target.closest(".question");
  const note = el("p", { class: "question-error", id: `${fieldId}-error`, text: message });
  const heading = container.querySelector(":scope > legend, :scope > label");
  heading.after(note);
  target.setAttribute("aria-invalid", "true");
  const described = (target.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
  target.setAttribute("aria-describedby", [...described, note.id].join(" "));
}

function clearInvalid(fieldId) {
  const target = questionOf(fieldId);
  if (target.tagName === "TR") return widgets.clearRow(target, fieldId);
  const note = document.getElementById(`${fieldId}-error`);
  if (note) note.remove();
  target.removeAttribute("aria-invalid");
  const described = (target.getAttribute("aria-describedby") || "").split(" ").filter((id) => id && id !== `${fieldId}-error`);
  if (described.length) target.setAttribute("aria-describedby", described.join(" "));
  else target.removeAttribute("aria-describedby");
}

/** Bring the respondent to a question: its start in view (a phone shows a few questions), focus on its field. */
function bringTo(fieldId) {
  const target = questionOf(fieldId);
  target.closest(".question").scrollIntoView({ block: "start" });
  const field = target.type === "number" || target.type === "range" || target.tagName === "SELECT" ? target
    : target.querySelector("input:checked") || target.querySelector("input");
  field.focus({ preventScroll: true });
}

/** Where an invitation page holds its token until it is redeemed: this tab's sessionStorage (never sent, gone with
 * the tab), so that a reload or a change of language before the first answer still has it. */
const tokenKey = (slug) => `coinflip:invitation:${slug}`;

function session() {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/** The invitation token of an invitation page: read from the address's fragment and taken out of the address bar at
 * once (the history entry keeps the address without it, so no later request or reload shows it), or — after a reload
 * before the first answer — from this tab's sessionStorage. */
function takeToken(slug) {
  const hash = window.location.hash;
  let token = null;
  if (hash.length > 1) {
    window.history.replaceState(window.history.state, "", window.location.pathname + window.location.search);
    try {
      token = decodeURIComponent(hash.slice(1));
    } catch {
      token = null;
    }
  }
  const store = session();
  try {
    if (token && store) store.setItem(tokenKey(slug), token);
    else if (store) token = store.getItem(tokenKey(slug));
  } catch {
    // a browser that keeps nothing: the token lives in this page only
  }
  return token;
}

/** The token is redeemed (or refused for good): not needed again, not kept. */
function dropToken(slug) {
  try {
    const store = session();
    if (store) store.removeItem(tokenKey(slug));
  } catch {
    // nothing kept
  }
}

// The page's requests: no Referer (the page's address is nobody's business); no cookies but the protocol's.
const PRIVATE = { referrerPolicy: "no-referrer", credentials: "omit" };

async function main() {
  const { slug, protocolUrl, reportUrl, redeemUrl, thanksUrl } = app.dataset;
  const invited = app.dataset.invited === "true";
  let token = invited ? takeToken(slug) : null;
  // A designer's preview (survey_app/views.py, survey_preview): the same page, which keeps nothing and sends nothing.
  const preview = app.dataset.preview === "true";
  let source;
  try {
    source = new ByteSource();
  } catch (error) {
    fail(t("Your browser cannot produce secure random numbers (crypto.getRandomValues), so the survey cannot randomize your answers. Nothing will be sent."));
    return;
  }
  // With this site's cookies (the language switch's: the questions in the page's language; a designer's session).
  const response = await fetch(protocolUrl, { headers: { Accept: "application/json" }, referrerPolicy: "no-referrer" });
  if (!response.ok) {
    fail(response.status === 410 ? t("This survey is closed.") : t("The survey could not be loaded. Please try again later."));
    return;
  }
  const { survey, questions, protocol, privacy, model_url: modelUrl, credential: surveyKey, ohttp: relay } = await response.json();
  // The page's two POSTs leave by one way: straight to this server, or through the survey's relay (./ohttp.mjs).
  const post = transport(relay);
  const route = document.getElementById("route-words");
  if (route) route.replaceChildren(...(await describeRoute(relay, Boolean(surveyKey))).map((words) => el("p", {}, words)));
  if (surveyKey && (await keyIdOf(surveyKey.spki)) !== surveyKey.key_id) {
    fail(t("The survey's key does not match its published fingerprint, so your invitation will not be used and nothing will be sent. Please tell the survey's organiser."));
    return;
  }
  // LDP validation share: every browser fetches the public model (so the download reveals nothing); one drawn into
  // the share runs it on its own answers and sends only "right?", randomized.
  const validates = protocol.mode === "ldp" && protocol.validation && protocol.validation.share > 0 && modelUrl;
  async function validationModel() {
    // The version published before today (UTC): the version in a validation report then reveals only its day.
    const validationUrl = new URL(modelUrl, window.location.href);
    validationUrl.searchParams.set("for", "validation");
    const modelResponse = await fetch(validationUrl, { headers: { Accept: "application/json" }, ...PRIVATE });
    if (!modelResponse.ok || modelResponse.status === 204) return null;  // 204: none published before today yet
    const { version, model } = await modelResponse.json();
    return { version, model };
  }
  let published = validates ? await validationModel() : null;
  questionList = questions;
  // Answers kept in this tab until "Send" (./resume.mjs; a preview keeps nothing), and this respondent's own order of
  // questions and choices (./widgets.mjs), drawn once per tab from its own crypto source, apart from the randomizer's.
  const answerStore = preview ? null : resume.sessionStore();
  const signature = resume.questionsSignature(questions);
  const keptAnswers = resume.read(answerStore, slug, signature);
  const shuffling = survey.shuffle || {};
  const { pages, order } = widgets.arrange(sections(questions), shuffling,
    shuffling.questions || shuffling.choices ? new ByteSource() : null, keptAnswers && keptAnswers.order);
  const form = el("form", { novalidate: true, "aria-describedby": "privacy-figure" });
  // Enter in a field presses the form's default button ("Next", below); the form itself is never submitted.
  form.addEventListener("submit", (event) => event.preventDefault());
  // Answering a question marked unanswered clears its mark.
  let unsent = false;  // answers typed on this page and not sent yet
  form.addEventListener("input", (event) => {
    unsent = true;
    // An invitation is redeemed at the first answer, long before the report leaves ("Send").
    if (surveyKey && !preview && !held.credential && token && !redeeming) redeemEarly();
    const fieldId = event.target.dataset.group || event.target.id;
    if (fieldId && document.getElementById(`${fieldId}-error`)) clearInvalid(fieldId);
    keepAnswers();
  });
  form.addEventListener("change", () => keepAnswers());  // after a select-all box unticks the others
  // The language switch at the foot of the page (templates/base.html) reloads the page: the answers kept in this tab
  // come back; a browser that keeps nothing loses them, so the page asks first.
  let leaving = false;
  for (const switcher of document.querySelectorAll("form.language-switch")) {
    switcher.addEventListener("submit", (event) => {
      if (unsent && !answerStore && !window.confirm(t("Changing the language reloads this page, and the answers you have given are not kept anywhere (they never leave your browser). Change the language and answer again?"))) {
        event.preventDefault();
        return;
      }
      leaving = true;
    });
  }
  // Leaving the page (closing the tab, another address, a reload) with answers not sent: the browser asks first.
  window.addEventListener("beforeunload", (event) => {
    if (!unsent || leaving) return;
    event.preventDefault();
    event.returnValue = "";  // older browsers ask only when this is set
  });
  const steps = pages.length + 1;  // the pages of questions, then the review
  // Progress counts the pages of questions done: none on the first, all of them on the review.
  const progress = el("progress", { max: pages.length, value: 0, "aria-label": t("Progress") });
  const status = el("p", { class: "progress-text", "aria-live": "polite" });
  const errors = el("div", { class: "errors", role: "alert" });
  const pageNodes = pages.map(([title, qs], p) => {
    const node = el("section", { class: "page", hidden: p !== 0, "aria-label": title || t("Part {n}", { n: p + 1 }) });
    if (title) node.append(el("h2", { text: title }));
    for (const unit of widgets.units(qs)) {
      if (unit.matrix && !unit.questions.some((q) => asksPersonal(protocol, q))) {  // one grid, a row per question
        node.append(widgets.matrix(unit.matrix, unit.questions.map((q) => ({ q, id: `q${questions.indexOf(q)}` }))));
        continue;
      }
      for (const q of unit.questions) {
        const field = questionField(q, questions.indexOf(q));
        widgets.orderChoices(field, order.choices[q.name]);
        node.append(field);
        if (asksPersonal(protocol, q)) node.append(personalField(q, questions.indexOf(q)));
      }
    }
    return node;
  });
  const review = el("section", { class: "page review", hidden: true, "aria-label": t("Review what will be sent") });
  const nav = el("div", { class: "nav" });
  const back = el("button", { type: "button", class: "secondary", text: t("Back") });
  const next = el("button", { type: "submit", text: t("Next") });
  nav.append(back, next);
  let words = describe(protocol, privacy, questions);
  const figure = el("p", { id: "privacy-figure", class: "privacy-figure", text: words.figure });
  // The "How your answers stay private" box of the template: the mechanism's own overview and what is kept.
  const storage = preview ? null : (() => { try { return window.localStorage; } catch { return null; } })();
  let bind = await memos.binding(slug, protocol, Boolean(surveyKey), storage);
  // The protocol version the report states (the server refuses any other: 409 stale_protocol); null when this
  // browser cannot hash (no crypto.subtle), and the report then states none.
  let version = await memos.protocolVersion(protocol).catch(() => null);
  const mechanismBox = document.getElementById("mechanism-words");
  if (mechanismBox) mechanismBox.replaceChildren(...blocks(words.overview));
  const memoBox = document.getElementById("memo-words");
  // A preview keeps nothing, but shows what the real page tells a respondent whose browser can keep a copy.
  const memoWords = preview ? `${t("In this preview nothing is kept. On the survey's page:")} ${memos.words({ invited: Boolean(surveyKey) }, { relayed: Boolean(relay) })} ${resume.words(true)}`
    : `${memos.words(bind, { relayed: Boolean(relay) })} ${resume.words(answerStore)}`;
  if (memoBox) memoBox.replaceChildren(el("p", { text: memoWords }));
  if (memoBox && answerStore) {
    const drop = el("button", { type: "button", class: "secondary", text: t("Delete my answers from this tab") });
    drop.addEventListener("click", () => {
      resume.clear(answerStore, slug);
      unsent = false;
      window.location.reload();  // the page afresh, with nothing kept
    });
    memoBox.append(drop);
  }
  const { memo: kept, discarded } = memos.read(storage, bind);
  let memo = kept && kept.report ? kept : null;  // a randomized report kept from an earlier attempt to send it
  // A survey by invitation: this page's credential state, {pending?} before the token is redeemed, {credential?}
  // after; kept in the memo (with the report once there is one; only here when this browser cannot keep it). A
  // pending credential blinded for a key the survey has since retired is still signed by that key if its token was
  // redeemed with it (a retry whose first answer was lost); a finished one verifies with any key of the survey.
  let held = {};
  if (kept && kept.credential) held = { credential: kept.credential };
  else if (kept && kept.pending && surveyKey) held = { pending: kept.pending };
  if (held.credential) {  // redeemed before: the invitation is not needed again
    token = null;
    dropToken(slug);
  }
  let redeeming = null;  // a redemption under way (at the first answer)
  if (surveyKey && !preview && !token && !held.credential) {
    fail(t("This page does not hold your invitation (it is taken out of the page's address as soon as the page has read it), and this browser keeps no credential for this survey. Please open the survey again from your invitation link."));
    return;
  }
  const notice = el("div", { class: "notice", role: "status" });
  if (discarded) notice.replaceChildren(el("p", { class: "warning", text: memos.discardedWords(discarded) }));
  form.append(figure, ...skip.words(questions), notice, status, progress, errors, ...pageNodes, review, nav);
  const updateSkips = skip.attach(form, pageNodes, questions, (q) => readAnswer(q, questions.indexOf(q)).value);
  app.replaceChildren(form);

  let page = 0;
  let body = null;
  // One randomization per answer set: reviewing the same answers again shows the same report (./permanent.mjs).
  // In this page's memory and, with the answers, in this tab until "Send" (./resume.mjs): its keys are true answers.
  // Kept reports drawn under another protocol version are not reused.
  const sameProtocol = Boolean(keptAnswers && version && keptAnswers.protocol === version);
  const nonces = new Map(sameProtocol ? keptAnswers.nonces : []);  // report (JSON) → its nonce: shown again, sent the same
  let permanent = sameProtocol ? PermanentResponse.restore(protocol, source, keptAnswers.permanent)
    : new PermanentResponse(protocol, source);
  let keeping = true;  // answers are kept in this tab until "Send"

  /** Keep the answers in this tab (./resume.mjs): never in a preview, not after "Send", nothing when none given. */
  function keepAnswers() {
    if (!answerStore || !keeping || memo) return;
    const fields = resume.fieldStates(form);
    if (!Object.keys(fields).length) {
      resume.clear(answerStore, slug);
      return;
    }
    resume.write(answerStore, slug, { questions: signature, protocol: version, step: page, fields, order,
                                      permanent: permanent.state(), nonces: [...nonces.entries()] });
  }

  /** The step of this history entry, if the page recorded one. */
  const historyStep = () => {
    const state = window.history.state;
    return state && Number.isInteger(state.coinflipStep) ? state.coinflipStep : null;
  };

  /** Whether every question of ``qs`` (and its unrelated question) is answered. */
  const complete = (qs) => qs.every((q) => {
    const i = questions.indexOf(q);
    return !readAnswer(q, i).error && (!asksPersonal(protocol, q) || !readPersonal(q, i).error);
  });

  /** The furthest step up to ``target`` the answers allow: the first page with a question unanswered, else it. */
  function reach(target) {
    for (let p = 0; p < Math.min(target, pages.length); p += 1) if (!complete(pages[p][1])) return p;
    return Math.min(Math.max(0, target), pages.length);
  }
  let answered = false;  // the answers are in this page (not only a kept report restored from an earlier visit)

  /** Show step `p`; `settle` (the page as it opens) focuses the first question without scrolling to it, so the
   * survey's title and privacy explanation stay in view. */
  function show(p, { settle = false, history = "replace" } = {}) {
    page = p;
    // Each step is a history entry (Next pushes one), so the browser's Back and Forward move between the steps.
    const previous = window.history.state || {};
    if (history === "push") window.history.pushState({ coinflipStep: p, coinflipPushed: true }, "");
    else if (history === "replace") {
      window.history.replaceState({ ...previous, coinflipStep: p,
                                    coinflipPushed: previous.coinflipStep === p && Boolean(previous.coinflipPushed) }, "");
    }
    keepAnswers();
    updateSkips();
    pageNodes.forEach((node, i) => { node.hidden = i !== p; });
    review.hidden = p !== pages.length;
    back.hidden = p === 0 || (memo !== null && p === pages.length);
    next.textContent = p === pages.length ? t("Send the randomized report") : p === pages.length - 1 ? t("Review what will be sent") : t("Next");
    next.disabled = preview && p === pages.length;  // a preview's review step: the button that would send, disabled
    if (next.disabled) next.textContent = t("Preview: nothing is sent");
    progress.value = p;
    status.textContent = p === pages.length ? t("Step {n} of {total}: check what leaves your browser.", { n: steps, total: steps })
      : t("Step {n} of {total}: {title}", { n: p + 1, total: steps, title: pages[p][0] || t("the questions") });
    // The review starts with its heading (focusable by script only), so a second Enter does not send at once.
    const focusable = p === pages.length ? review.querySelector("h2") : pageNodes[p].querySelector(".question:not([hidden]) :is(input, select)");
    if (focusable) focusable.focus({ preventScroll: settle });
  }

  /** Check the answers on this page: each unanswered question marked where it is, the summary above, and the
   * respondent brought to the first of them. */
  function collect(qs) {
    const problems = [];
    for (const q of qs) {
      const index = questions.indexOf(q);
      const checks = [[`q${index}`, readAnswer(q, index)]];
      if (asksPersonal(protocol, q)) checks.push([`p${index}`, readPersonal(q, index)]);
      for (const [fieldId, { error }] of checks) {
        clearInvalid(fieldId);
        if (error) {
          markInvalid(fieldId, error);
          problems.push({ fieldId, error });
        }
      }
    }
    errors.replaceChildren(...problems.map(({ error }) => el("p", { text: error })));
    if (problems.length) bringTo(problems[0].fieldId);
    return problems.length === 0;
  }

  function buildReport() {
    const classes = questions.flatMap((q, i) => (q.is_class ? [{ q, i }] : []));
    // The engine's features in its order: a select-all question gives one (a choice's no/yes) per choice.
    const order = protocol.questions.map((f) => featureSource(questions, f.name));
    const x = skip.applySkips(order.map((where) => featureCode(where, readAnswer(where.q, where.i).value)),
      skip.rulesOf(protocol, questions));
    const y = readAnswer(classes[0].q, classes[0].i).value;
    const realPersonal = {};
    order.forEach(({ q, i }, position) => { if (asksPersonal(protocol, q)) realPersonal[position] = readPersonal(q, i).value; });
    if (asksPersonal(protocol, classes[0].q)) realPersonal[order.length] = readPersonal(classes[0].q, classes[0].i).value;
    return permanent.respond(x, y, { realPersonal, published });
  }

  /** The review step for ``report``: the mechanism's words, the memo's when it is a kept one, the exact message.
   * ``nonce``: the report's idempotency nonce, drawn once per report (a kept report keeps its own; the same report
   * shown again, for the same answers, keeps the one it had: ``nonces``, in this page's memory only). */
  function showReview(report, nonce) {
    const key = JSON.stringify(report);
    if (nonce === undefined) nonce = nonces.get(key) || memos.reportNonce();
    nonces.set(key, nonce);
    body = version ? { report, protocol_version: version, nonce } : { report, nonce };  // the version: if it can hash
    const forget = memo ? el("button", { type: "button", class: "secondary", text: t("Delete the kept report and answer afresh") }) : null;
    if (forget) {
      forget.addEventListener("click", () => {
        memos.clear(storage, bind);  // a credential, if any, stays in this page for the fresh report
        memo = null;
        saved = null;
        body = null;
        if (held.credential) keep();  // and in this browser (its invitation is spent): the credential alone
        keeping = true;  // the fresh answers are kept in this tab until "Send"
        notice.replaceChildren(el("p", { text: t("The kept report was deleted from this browser.") }));
        errors.replaceChildren();
        review.replaceChildren();
        show(0);
      });
    }
    review.replaceChildren(
      el("h2", { tabindex: "-1", text: t("What leaves your browser") }),
      ...(memo ? [el("p", { class: "warning", text: memos.keptWords(memo) }), forget] : []),
      // In plain words first (the mechanism's summarize()), then the details and the exact message.
      el("p", { class: "review-summary" }, el("strong", { text: t("In short: ") }), summarize(body.report, protocol, questions)),
      ...blocks(words.review(body)),
      el("pre", { class: "payload", tabindex: "0", role: "region", "aria-label": t("The exact report"), text: JSON.stringify(body, null, 2) }),
      ...(version ? [el("p", { class: "version-words", text: t("\"protocol_version\" is a fingerprint of this survey's settings (the SHA-256 of the protocol your browser randomized under, the same for every respondent): the survey refuses a report made under other settings.") })] : []),
      ...(surveyKey ? [el("p", { class: "credential-words", text: (relay ? t("Because this survey is by invitation, your browser redeems your invitation code in a request of its own, at your first answer (or, if that did not get through, when you press “Send”): it sends the code with a blinded random value, and the survey signs that value without being able to see it. From then on the page holds no invitation code. Pressing “Send” sends the report above with the unblinded value and its signature (a “credential”, shown as \"credential\": {value, signature, key_id}) and without the invitation code, so nothing in the report tells the survey which invitation it came from. Both requests go through the relay, so the survey's server does not see the network address (IP) your browser connects from, only the time of each request, by which it could still match the two requests when few people answer at the same time.") : t("Because this survey is by invitation, your browser redeems your invitation code in a request of its own, at your first answer (or, if that did not get through, when you press “Send”): it sends the code with a blinded random value, and the survey signs that value without being able to see it. From then on the page holds no invitation code. Pressing “Send” sends the report above with the unblinded value and its signature (a “credential”, shown as \"credential\": {value, signature, key_id}) and without the invitation code, so nothing in the report tells the survey which invitation it came from. The survey's server does see the network address (IP) your browser connects from and the time of each request, so it could match the two requests by them, for example when few people answer at the same time.")) })] : []));
  }

  back.addEventListener("click", () => {
    const state = window.history.state;
    if (state && state.coinflipPushed && state.coinflipStep === page) {
      leaving = true;  // the entry before is this page's step before (popstate), or this page loaded again
      window.history.back();
    } else show(Math.max(0, page - 1));
  });
  // The browser's Back and Forward: the step of that entry; forward only as far as the answers allow, and at the
  // review step the report these answers were given before (./permanent.mjs: going back never randomizes afresh).
  window.addEventListener("popstate", (event) => {
    leaving = false;
    const target = event.state && Number.isInteger(event.state.coinflipStep) ? event.state.coinflipStep : null;
    if (target === null) return;
    if (memo !== null && !answered) {  // a kept report from an earlier visit: it stays until sent or deleted
      window.history.replaceState({ coinflipStep: pages.length, coinflipPushed: false }, "");
      return;
    }
    const p = reach(target);
    if (p === pages.length) {
      if (memo === null) showReview(buildReport());
      answered = true;
    } else if (memo !== null && page === pages.length) {  // Send was pressed: its kept report stays on show
      window.history.replaceState({ coinflipStep: pages.length, coinflipPushed: false }, "");
      return;
    }
    show(p, { history: p === target ? "none" : "replace" });
  });
  next.addEventListener("click", async () => {
    if (page < pages.length) {
      if (!collect(pages[page][1])) return;
      if (page === pages.length - 1) {
        showReview(buildReport());
        answered = true;
      }
      show(page + 1, { history: "push" });
      return;
    }
    if (preview) return;
    next.disabled = true;
    try {
      await send();
    } finally {
      next.disabled = false;
    }
  });

  const problem = (text) => errors.replaceChildren(el("p", { text }));
  const keepWords = () => (memo
    ? ` ${surveyKey ? t("Your browser keeps this same randomized report and its credential: press “Send” again to retry, now or within {days} days.", { days: memos.MEMO_DAYS })
      : t("Your browser keeps this same randomized report: press “Send” again to retry, now or within {days} days.", { days: memos.MEMO_DAYS })}`
    : ` ${t("Press “Send” again to retry.")}`);
  const keepLaterWords = () => ` ${surveyKey ? t("Your browser keeps this same randomized report and its credential: press “Send” again to retry later, within {days} days.", { days: memos.MEMO_DAYS })
    : t("Your browser keeps this same randomized report: press “Send” again to retry later, within {days} days.", { days: memos.MEMO_DAYS })}`;

  let saved = memo ? memo.saved : null;

  /** Keep the report about to be sent with the credential state (``withReport``: "Send" was pressed, or a report is
   * kept already), else — an invitation redeemed at the first answer — the credential state alone. */
  function keep(withReport = memo !== null) {
    if (!withReport || !body) {
      memos.write(storage, bind, null, Date.now(), held);
      return;
    }
    saved = saved || Date.now();
    const state = { ...held, nonce: body.nonce };
    if (memos.write(storage, bind, body.report, saved, state)) memo = { report: body.report, saved, ...state };
  }

  /** Refused for good: nothing of this attempt is worth keeping. */
  function forget() {
    memos.clear(storage, bind);
    memo = null;
    saved = null;
    held = {};
  }

  /** A survey by invitation: redeem the token for a blind signature on the pending value; true once the attempt
   * holds a finished credential, and from then on the page forgets the token. The pending state is kept before the
   * token leaves, so a retry sends the same blinded message. ``early``: at the first answer, when nothing is about to
   * be sent — a passing failure is retried at the next answer or at "Send" without a word; a refusal for good ends
   * the page with its reason. */
  async function redeem(early = false) {
    if (!held.pending) {
      const { blindedMsg, pending } = await startCredential(surveyKey.spki);
      held = { pending: { ...pending, blindedMsg, key_id: surveyKey.key_id } };
      keep();
    }
    if (!token) {
      problem(t("This page has no invitation, so the report cannot be sent: open the survey from your invitation link."));
      return false;
    }
    let answer;
    try {
      answer = await post(redeemUrl,
        JSON.stringify({ token, blinded_msg: held.pending.blindedMsg, key_id: held.pending.key_id }));
    } catch {
      if (!early) problem(`${t("Your invitation could not be redeemed (is the network down?).")}${keepWords()}`);
      return false;
    }
    if (answer.status === 200) {
      const { blind_signature: blindSignature } = await answer.json();
      let finished;
      try {
        finished = await finishCredential(held.pending, blindSignature);
      } catch {
        forget();
        (early ? fail : problem)(t("The survey's signature on your credential did not verify with the survey's published key, so nothing was sent. Please open the survey again from your invitation link."));
        return false;
      }
      held = { credential: { ...finished, key_id: held.pending.key_id } };
      token = null;  // the page keeps only the credential
      dropToken(slug);
      keep();
      return true;
    }
    const final = [400, 403, 404, 409, 410].includes(answer.status);
    if (final) {
      forget();
      dropToken(slug);
    }
    if (early && !final) return false;
    const reason = {
      409: early ? t("This invitation has already been used — from another browser or device, or before this browser's kept report was deleted — so no report can be sent from this page.")
        : t("This invitation has already been used — from another browser or device, or before this browser's kept report was deleted — so this report was not sent. (A send that was cut off in this browser is retried with the same request and still counts.)"),
      410: t("This survey is now closed."),
      403: t("This invitation is not valid."),
      400: t("The survey's invitation key has changed since this page was loaded: open the survey again from your invitation link."),
    }[answer.status] || (final ? t("The invitation was refused.") : `${t("The server could not redeem your invitation now (error {status}).", { status: answer.status })}${keepWords()}`);
    (early ? fail : problem)(reason);
    return false;
  }

  /** Redeem the invitation at the first answer (see redeem); "Send" waits for a redemption under way. */
  function redeemEarly() {
    redeeming = redeem(true).catch(() => false).finally(() => { redeeming = null; });
    return redeeming;
  }

  /** Before a validation report leaves: if a new UTC day began since the page fetched the model it evaluates, that
   * model is no longer the one evaluated today. Nothing has been sent: prepare the report again from the answers in
   * the page against today's model (a credential, not spent, is kept), or ask for them again. */
  async function prepareAgain(current) {
    memos.clear(storage, bind);
    memo = null;
    saved = null;
    if (held.credential) keep();  // the credential, not spent, stays kept
    published = current;
    if (answered) {
      showReview(buildReport());
      show(pages.length);
      problem(t("A new day began (UTC) since this page was loaded, so the model your answers are checked against has changed and nothing was sent. Your report was prepared again below: check it and press “Send” again."));
    } else {
      show(0);
      problem(t("A new day began (UTC) since your report was kept, so the model your answers are checked against has changed and nothing was sent. Please answer the questions again."));
    }
  }

  /** The survey's protocol body as served now, or null when it cannot be read (the server then judges the version
   * the report states). */
  async function currentBody() {
    return fetch(protocolUrl, { headers: { Accept: "application/json" }, ...PRIVATE })
      .then((r) => (r.ok ? r.json() : null)).catch(() => null);
  }

  /** Before a report leaves: the survey's protocol changed since this page loaded it (its version differs), so a
   * report randomized under the old one would be refused and tell the wrong figures. Nothing has been sent: take the
   * current protocol and its figures and prepare the report again from the answers in the page (a credential, not
   * spent, is kept), or ask for them again; if the questions themselves changed, ask for a reload. */
  async function settingsChanged(fresh, freshVersion) {
    memos.clear(storage, bind);
    memo = null;
    saved = null;
    if (JSON.stringify(fresh.questions) !== JSON.stringify(questions)) {
      problem(t("This survey's questions changed since this page was loaded, so nothing was sent. Please reload the page and answer again."));
      return;
    }
    for (const key of Object.keys(protocol)) delete protocol[key];
    Object.assign(protocol, fresh.protocol);
    for (const key of Object.keys(privacy)) delete privacy[key];
    Object.assign(privacy, fresh.privacy);
    version = freshVersion;
    // The reports drawn under the old protocol never left this page: randomize afresh under the new one.
    permanent = new PermanentResponse(protocol, source);
    nonces.clear();
    bind = await memos.binding(slug, protocol, Boolean(surveyKey), storage);
    if (held.credential) keep();  // the credential, not spent, stays kept (bound to the current protocol)
    words = describe(protocol, privacy, questions);
    figure.textContent = words.figure;
    if (mechanismBox) mechanismBox.replaceChildren(...blocks(words.overview));
    if (answered) {
      showReview(buildReport());
      show(pages.length);
      problem(t("This survey's privacy settings changed since this page was loaded, so nothing was sent. Your answers were randomized again under the current settings, whose privacy figures are now shown: check the report below and press “Send” again."));
    } else {
      show(0);
      problem(t("This survey's privacy settings changed since your report was kept, so it was deleted and nothing was sent. Please answer the questions again."));
    }
  }

  async function send() {
    if (preview) return;  // never from a preview (and the report API refuses a draft's report)
    const fresh = await currentBody();
    const freshVersion = fresh && fresh.protocol ? await memos.protocolVersion(fresh.protocol).catch(() => null) : null;
    if (version && freshVersion && freshVersion !== version) {
      await settingsChanged(fresh, freshVersion);
      return;
    }
    const checked = body.report && body.report.validation;
    if (checked && validates) {
      const current = await validationModel().catch(() => null);
      if (!current || current.version !== checked.version) {
        await prepareAgain(current);
        return;
      }
    }
    // Adaptive allocation: the part a training report gives was drawn with the chances of the day this page was
    // loaded. If a new day (UTC) has changed them and the report has never left (no memo), draw it again with today's
    // chances: a report drawn with yesterday's but received today would hint that it was sent just after midnight.
    if (!memo && !checked && answered && protocol.ldp && protocol.ldp.allocation === "adaptive") {
      const today = fresh && fresh.protocol && fresh.protocol.ldp;
      if (today && JSON.stringify(today.assignment) !== JSON.stringify(protocol.ldp.assignment)) {
        Object.assign(protocol.ldp, { assignment: today.assignment, assignment_cdf: today.assignment_cdf,
                                      assignment_source: today.assignment_source });
        showReview(buildReport());
        show(pages.length);
        problem(t("A new day began (UTC) since this page was loaded, so the chance of each part of your answers being the one sent has changed and nothing was sent. Your report was prepared again below: check it and press “Send” again."));
        return;
      }
    }
    // Kept before it leaves, so that a retry after a failure sends this same report (./memo.mjs).
    if (!memo) keep(true);
    // "Send": the answers kept in this tab are deleted (the report to send waits in the memo, with no true answer).
    keeping = false;
    resume.clear(answerStore, slug);
    if (surveyKey && !held.credential) {
      if (redeeming) await redeeming;
      if (!held.credential && !(await redeem())) return;
    }
    // The nonce: a resend of this report (its first answer lost) is answered 201 and not stored twice.
    const sentBody = surveyKey ? { ...body, credential: held.credential } : body;
    let sent;
    try {
      sent = await post(reportUrl, JSON.stringify(sentBody));
    } catch {
      problem(`${t("The report could not be sent (is the network down?).")}${keepWords()}`);
      return;
    }
    const detail = await sent.clone().json().catch(() => ({}));
    if (sent.status === 409 && detail.code === "stale_model_version") {
      // Midnight passed between the check above and the server's: the server saw this report, so a second one,
      // randomized afresh, would spend the respondent's privacy twice. Nothing more is sent.
      forget();
      problem(t("Your report reached the survey just after midnight (UTC), when the model it checks had just changed, so it was not recorded. To protect your privacy, no second report is sent. Thank you for taking part."));
      next.hidden = true;
      return;
    }
    if (sent.status === 409 && detail.code === "stale_protocol") {
      // The settings changed between the check above and the server's: the server saw this report, so a second one,
      // randomized afresh, would spend the respondent's privacy twice. Nothing more is sent.
      forget();
      problem(t("Your report reached the survey just as its privacy settings changed, so it was not recorded. To protect your privacy, no second report is sent. Thank you for taking part."));
      next.hidden = true;
      return;
    }
    // 201: received. A credential already spent means an earlier attempt with this very report was received.
    if (sent.status === 201 || (surveyKey && sent.status === 409)) {
      forget();
      unsent = false;
      resume.clear(answerStore, slug);
      window.location.assign(thanksUrl);
      return;
    }
    const final = [400, 403, 404, 409, 410].includes(sent.status);  // refused for good: retrying cannot help
    if (final) forget();
    problem({ 409: t("This invitation has already been used."), 410: t("This survey is now closed."),
              403: t("This invitation is not valid.") }[sent.status]
      || (final ? t("The report was refused: {detail}", { detail: JSON.stringify(detail) })
        : `${t("The server could not take the report now (error {status}).", { status: sent.status })}${memo ? keepLaterWords() : ` ${t("Press “Send” again to retry later.")}`}`));
  }

  if (memo) {
    showReview(memo.report, memo.nonce);
    show(pages.length);
  } else {
    // Answers kept in this tab (a reload, the language switch, Back to this page): put back, at the step this history
    // entry (or the kept state) was at, as far as they reach.
    const restored = keptAnswers ? resume.restoreFields(form, keptAnswers.fields, widgets.setSlider) : false;
    unsent = restored;
    const p = restored ? reach(historyStep() ?? keptAnswers.step ?? 0) : 0;
    if (p === pages.length) {
      showReview(buildReport());
      answered = true;
    }
    show(p, { settle: true });
  }
}

// A page restored from the back-forward cache (Back after Send) would show the answers as they were ticked: load it
// afresh instead (the answers kept in this tab were cleared on Send).
window.addEventListener("pageshow", (event) => { if (event.persisted) location.reload(); });
main().catch((error) => fail(t("Something went wrong: {message}. Nothing was sent.", { message: error.message })));
