// The designer's workspace (templates/design/edit.html): questions reordered by drag and drop or by their Move
// buttons (the hidden position boxes follow the order shown), questions added from the formset's empty form, the
// privacy figures asked of the server as the settings change (survey_app/design.py: survey_figures), the mode's own
// settings shown, and the preview reloaded on demand. Without this module the form still saves (in the order saved).

const form = document.getElementById("design-form");
const list = document.getElementById("questions");
const status = document.getElementById("order-status");

function format(template, values) {
  return template.replace(/%\((\w+)\)s/g, (_, key) => String(values[key]));
}

function blocks() {
  return [...list.querySelectorAll(":scope > .q-block")];
}

// Every question's position box and heading number follow its place in the list.
function renumber() {
  blocks().forEach((block, index) => {
    const position = block.querySelector("input.position");
    if (position) position.value = String(index);
    const number = block.querySelector(".q-number");
    if (number) number.textContent = format(status.dataset.question, { position: index + 1 });
  });
}

function announce(block) {
  const all = blocks();
  status.textContent = format(status.dataset.moved, { position: all.indexOf(block) + 1, count: all.length });
}

function move(block, direction) {
  const sibling = direction < 0 ? block.previousElementSibling : block.nextElementSibling;
  if (!sibling) return;
  if (direction < 0) list.insertBefore(block, sibling);
  else list.insertBefore(sibling, block);
  renumber();
  announce(block);
}

if (list) {
  list.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-move]");
    if (!button) return;
    const block = button.closest(".q-block");
    move(block, button.dataset.move === "up" ? -1 : 1);
    button.focus();
  });

  // Drag and drop (HTML5), by the block's handle (a mouse's or pen's; the Move buttons do the same from the keyboard
  // and on touch screens). Only the handle is draggable, so that text in the boxes can still be selected.
  let dragged = null;
  list.addEventListener("dragstart", (event) => {
    if (!event.target.closest || !event.target.closest(".drag-handle")) return;
    dragged = event.target.closest(".q-block");
    dragged.classList.add("dragging");
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", dragged.dataset.form || "");
    event.dataTransfer.setDragImage(dragged, 16, 16);
  });
  list.addEventListener("dragover", (event) => {
    const target = event.target.closest(".q-block");
    if (!dragged || !target || target === dragged) return;
    event.preventDefault();
    blocks().forEach((b) => b.classList.toggle("drop-target", b === target));
  });
  list.addEventListener("drop", (event) => {
    const target = event.target.closest(".q-block");
    if (!dragged || !target || target === dragged) return;
    event.preventDefault();
    const all = blocks();
    list.insertBefore(dragged, all.indexOf(dragged) < all.indexOf(target) ? target.nextElementSibling : target);
    renumber();
    announce(dragged);
  });
  list.addEventListener("dragend", () => {
    blocks().forEach((b) => b.classList.remove("drop-target", "dragging"));
    dragged = null;
  });
}

// A new question: the formset's empty form with the next index.
const add = document.getElementById("add-question");
const template = document.getElementById("empty-question");
if (add && template) {
  add.addEventListener("click", () => {
    const total = form.querySelector("input[name$='-TOTAL_FORMS']");
    const index = Number(total.value);
    const html = template.innerHTML.replaceAll("__prefix__", String(index));
    list.insertAdjacentHTML("beforeend", html);
    total.value = String(index + 1);
    renumber();
    const block = blocks().at(-1);
    status.textContent = format(status.dataset.added, { position: blocks().length });
    block.querySelector("input[name$='-name']").focus();
  });
}

// The privacy figures for the settings as they stand (not saved): posted to the figures view after a short pause.
const fields = document.getElementById("privacy-fields");
const figures = document.getElementById("figures");
const body = document.getElementById("figures-body");
const figuresStatus = document.getElementById("figures-status");
let timer = null;
let asked = 0;

function showMode() {
  const mode = fields.querySelector("select[name$='-mode']");
  if (!mode) return;
  const mrr = mode.value === "mrr";
  for (const name of ["theta"]) {
    const box = fields.querySelector(`[data-field="${name}"]`);
    if (box) box.hidden = !mrr;
  }
  for (const name of ["epsilon", "encoding", "strategy", "allocation"]) {
    const box = fields.querySelector(`[data-field="${name}"]`);
    if (box) box.hidden = mrr;
  }
}

async function refresh() {
  const mine = ++asked;
  const data = new FormData();
  data.append("csrfmiddlewaretoken", form.querySelector("input[name=csrfmiddlewaretoken]").value);
  for (const element of fields.querySelectorAll("input, select, textarea")) {
    // As the form itself would post them: an unchecked box or radio sends nothing.
    const unchecked = (element.type === "checkbox" || element.type === "radio") && !element.checked;
    if (element.name && !unchecked) data.append(element.name, element.value);
  }
  figures.classList.add("updating");
  figures.setAttribute("aria-busy", "true");
  try {
    const response = await fetch(form.dataset.figures, { method: "POST", body: data, credentials: "same-origin" });
    const html = await response.text();
    if (mine !== asked) return; // a newer change was asked for meanwhile
    body.innerHTML = html;
    const headline = body.querySelector(".headline");
    figuresStatus.textContent = headline ? headline.textContent.trim() : "";
  } finally {
    if (mine === asked) {
      figures.classList.remove("updating");
      figures.removeAttribute("aria-busy");
    }
  }
}

if (fields && form && !fields.disabled) {
  showMode();
  const changed = () => {
    showMode();
    clearTimeout(timer);
    timer = setTimeout(refresh, 250);
  };
  fields.addEventListener("input", changed);
  fields.addEventListener("change", changed);
}

// A question's boxes for its kind: bounds for a number, choices for "Choices" and "Select all" (the others keep
// their values; the server's rules still judge them).
function showKind(block) {
  const kind = block.querySelector("select[name$='-kind']");
  if (!kind || kind.disabled) return;
  // A row with an error or a value stays visible, so that nothing the server judges is out of sight.
  const keep = (row) => row.querySelector(".errorlist")
    || [...row.querySelectorAll("input, textarea")].some((box) => box.value.trim() !== "");
  const bounds = block.querySelector("[data-kinds='numeric']");
  if (bounds) bounds.hidden = kind.value !== "numeric" && !keep(bounds);
  const choices = block.querySelector(".choices");
  if (choices) choices.hidden = (kind.value === "numeric" || kind.value === "binary") && !keep(choices);
}

if (list) {
  blocks().forEach(showKind);
  list.addEventListener("change", (event) => {
    if (event.target.matches("select[name$='-kind']")) showKind(event.target.closest(".q-block"));
  });
  if (add) add.addEventListener("click", () => showKind(blocks().at(-1)));
}

// "Show only if": only the chosen earlier question's answers are offered (each checkbox's value is
// "<question id>:<answer>"; the server keeps the chosen question's ticks). Without this module every group shows.
function showGate(select) {
  const answers = document.getElementById(select.id.replace(/show_if_question$/, "show_if_answers"));
  if (!answers) return;
  for (const group of answers.children) {
    const box = group.querySelector("input[type='checkbox']");
    group.hidden = !box || box.value.split(":")[0] !== select.value;
  }
}

if (list) {
  list.querySelectorAll("select[name$='-show_if_question']").forEach(showGate);
  list.addEventListener("change", (event) => {
    if (event.target.matches("select[name$='-show_if_question']")) showGate(event.target);
  });
}

// Submitting sends the order shown.
if (form) form.addEventListener("submit", renumber);

const reload = document.getElementById("reload-preview");
const frame = document.getElementById("preview-frame");
if (reload && frame) {
  reload.addEventListener("click", () => { frame.src = frame.src; });
}
