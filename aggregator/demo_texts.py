"""The demo surveys' texts in German (issue 12 item 3): ``python manage.py demo`` gives every demo survey these
translations (``Survey.translations``, ``Question.translations``, ``Choice.translations``), so a German browser reads
the mushroom questions in German. Only the display changes: the engine, the protocol and the reports keep the
original (English) labels of the mushroom data."""
from __future__ import annotations

TITLES = {
    "demo-ldp": "Umfrage zur Pilzsuche (Antworten in Ihrem Browser verschleiert)",
    "demo-mrr": "Umfrage zur Pilzsuche (Ihre Antworten oder Ersatzantworten, per geheimem Münzwurf)",
}
DESCRIPTION = ("Beschreiben Sie einen Pilz, den Sie gefunden haben – oder erfinden Sie einen. Auf dem letzten Schritt "
               "sehen Sie genau, was Ihr Browser sendet.")

#: Question texts by question name (the slugified column of the mushroom data, and the question types demo's).
QUESTIONS = {
    "cap-shape": "Welche Form hat der Hut?",
    "cap-surface": "Wie ist die Oberfläche des Huts?",
    "cap-color": "Welche Farbe hat der Hut?",
    "bruises": "Bekommt er Druckstellen?",
    "odor": "Wie riecht er?",
    "gill-attachment": "Wie sind die Lamellen angewachsen?",
    "gill-spacing": "Wie dicht stehen die Lamellen?",
    "gill-size": "Wie breit sind die Lamellen?",
    "gill-color": "Welche Farbe haben die Lamellen?",
    "stalk-shape": "Welche Form hat der Stiel?",
    "stalk-root": "Wie sieht die Stielbasis aus?",
    "stalk-surface-above-ring": "Wie ist die Stieloberfläche über dem Ring?",
    "stalk-surface-below-ring": "Wie ist die Stieloberfläche unter dem Ring?",
    "stalk-color-above-ring": "Welche Farbe hat der Stiel über dem Ring?",
    "stalk-color-below-ring": "Welche Farbe hat der Stiel unter dem Ring?",
    "veil-color": "Welche Farbe hat das Velum?",
    "ring-number": "Wie viele Ringe hat der Stiel?",
    "ring-type": "Welche Art von Ring hat er?",
    "spore-print-color": "Welche Farbe hat der Sporenabdruck?",
    "population": "Wie wächst er?",
    "habitat": "Wo wächst er?",
    "class": "Ist er essbar oder giftig?",
    "features": "Welche dieser Merkmale hat der Pilz?",
}

#: Choice labels: the mushroom data's values (and the question types demo's select-all choices).
LABELS = {
    "almond": "Mandel", "anise": "Anis", "abundant": "sehr zahlreich", "attached": "angewachsen",
    "bell": "glockig", "black": "schwarz", "broad": "breit", "brown": "braun", "bruises": "ja", "buff": "lederfarben",
    "bulbous": "knollig", "chocolate": "schokoladenbraun", "cinnamon": "zimtfarben", "close": "eng",
    "club": "keulenförmig", "clustered": "in Büscheln", "conical": "kegelig", "convex": "gewölbt",
    "creosote": "Teer", "crowded": "gedrängt", "edible": "essbar", "enlarging": "sich verdickend",
    "equal": "gleichmäßig", "evanescent": "vergänglich", "fibrous": "faserig",
    "fishy": "fischig", "flaring": "ausgestellt", "flat": "flach", "foul": "faulig", "free": "frei",
    "grasses": "Gras", "gray": "grau", "green": "grün", "grooves": "gefurcht", "knobbed": "gebuckelt",
    "large": "groß", "leaves": "Laub", "meadows": "Wiesen", "musty": "muffig", "narrow": "schmal",
    "no": "nein", "none": "keiner", "numerous": "zahlreich", "one": "einer", "orange": "orange",
    "partial": "teilweise", "paths": "Wege", "pendant": "hängend", "pink": "rosa", "poisonous": "giftig",
    "pungent": "stechend", "purple": "violett", "red": "rot", "rooted": "wurzelnd", "scaly": "schuppig",
    "scattered": "verstreut", "several": "mehrere", "silky": "seidig", "smooth": "glatt",
    "solitary": "einzeln", "spicy": "würzig", "sunken": "eingesenkt", "tapering": "sich verjüngend",
    "two": "zwei", "urban": "Stadt", "waste": "Ödland", "white": "weiß", "woods": "Wald", "yellow": "gelb",
    "crowded gills": "gedrängte Lamellen", "narrow gills": "schmale Lamellen",
    "a tapering stalk": "einen sich verjüngenden Stiel",
}

#: Labels whose German depends on the question: the select-all question's "bruises" is a feature, not a yes.
QUESTION_LABELS = {"features": {"bruises": "Druckstellen"}}


def add_german(survey) -> None:
    """Give ``survey`` (a demo) its German texts, keeping any translation a designer already gave."""
    translations = dict(survey.translations or {})
    if "de" not in translations:
        translations["de"] = {"title": TITLES.get(survey.slug, survey.title), "description": DESCRIPTION}
        survey.translations = translations
        survey.save(update_fields=["translations"])
    for question in survey.questions.prefetch_related("choices"):
        if question.name in QUESTIONS and "de" not in (question.translations or {}):
            question.translations = {**(question.translations or {}), "de": {"text": QUESTIONS[question.name]}}
            question.save(update_fields=["translations"])
        labels = {**LABELS, **QUESTION_LABELS.get(question.name, {})}
        for choice in question.choices.all():
            if choice.label in labels and "de" not in (choice.translations or {}):
                choice.translations = {**(choice.translations or {}), "de": labels[choice.label]}
                choice.save(update_fields=["translations"])
