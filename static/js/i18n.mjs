// The JavaScript's message catalogue. English is the key and the default: t("Step {n} of {total}", { n, total })
// returns the English text, or its translation in the page's language (<html lang>, which Django sets from the
// browser's Accept-Language or the language switch: templates/base.html) when static/js/locale/<lang>.mjs has it.
// Imported statically (survey.mjs's module graph is integrity-checked: survey_app/integrity.py), never loaded on
// demand. In Node (the tests) there is no page: English, or the language set with setLanguage().
// tests/survey/test_languages.py fails when a t("…") key of static/js has no German entry.
import de from "./locale/de.mjs";

const CATALOGUES = { de };

function pageLanguage() {
  const lang = globalThis.document && globalThis.document.documentElement
    ? globalThis.document.documentElement.lang : "";
  return (lang || "en").toLowerCase().split("-")[0];
}

let language = pageLanguage();

/** The language texts are given in ("en", "de"). */
export function currentLanguage() {
  return language;
}

/** Switch the catalogue (tests; a page follows its <html lang>). */
export function setLanguage(code) {
  language = (code || "en").toLowerCase().split("-")[0];
}

/** ``key`` (the English text, with {name} placeholders) in the page's language, the placeholders filled from
 * ``vars``. A key without a translation stays English. */
export function t(key, vars = {}) {
  const catalogue = CATALOGUES[language];
  const text = (catalogue && Object.hasOwn(catalogue, key) && catalogue[key]) || key;
  return text.replace(/\{(\w+)\}/g, (match, name) => (Object.hasOwn(vars, name) ? String(vars[name]) : match));
}
