"""Reads for the designers' pages: what a survey's settings give, computed by the engine (SPEC §2 "Exact ε per question
and per respondent")."""
from __future__ import annotations

from django.utils.translation import gettext, ngettext

from aggregator.privacy.jsonable import format_epsilon

from .models import NO_PRIVACY, Survey, refusal_message
from .protocol import get_protocol

__all__ = ["import_summary", "privacy_report"]


def privacy_report(survey: Survey) -> dict:
    """The privacy a saved survey's settings give, for ``admin/survey_app/survey/privacy_report.html``:
    ``{"unavailable": why}`` when there is nothing to show yet, else ε per respondent, one row per question (ε, and
    PSE under MRR) and the notes that qualify them (no privacy for some question, an adversary who knows the real
    unrelated answers, what repeated answers cost under the survey's access)."""
    if survey is None or survey.pk is None:
        return {"unavailable": gettext("Save the survey to see the privacy it gives.")}
    try:
        protocol = get_protocol(survey)
        privacy, unprotected = protocol.privacy(), protocol.unprotected()
    except ValueError as exc:
        return {"unavailable": gettext("Not computable yet: %(reason)s") % {"reason": refusal_message(exc)}}
    pse = privacy.get("pse_per_question", {})
    rows = [{"question": name, "epsilon": format_epsilon(eps), "pse": f"{pse[name]:.3f}" if name in pse else "—"}
            for name, eps in privacy["epsilon_per_question"].items()]
    epsilon = privacy["epsilon_per_respondent"]
    notes = [privacy["epsilon_note"]] if privacy.get("epsilon_note") else []
    if unprotected:  # the engine's verdict: the survey cannot open (models.opening_refusal)
        notes.insert(0, str(NO_PRIVACY) % {"questions": ", ".join(unprotected)})
    if "epsilon_per_respondent_known_personal" in privacy:
        notes.append(gettext("Against someone who knows a respondent's answers to the real unrelated questions: "
                             "ε = %(epsilon)s per respondent.")
                     % {"epsilon": format_epsilon(privacy["epsilon_per_respondent_known_personal"])})
    if survey.access == Survey.Access.LINK:
        notes.append(gettext("Open link: nothing stops one person from answering several times, and a person who "
                             "answers k times gives up to k·ε about themselves (twice: ε = %(twice)s). Invitation "
                             "tokens admit one report each.") % {"twice": format_epsilon(2 * float(epsilon))})
    else:
        notes.append(gettext("By invitation: each invitation admits one report, so ε per respondent holds per "
                             "invitation."))
    return {"epsilon": format_epsilon(epsilon), "rows": rows, "notes": notes}


def import_summary(survey: Survey) -> str:
    """What a designer reads after a CSV import made ``survey``: how many questions, that their texts come from the
    column names, and how many offer “Prefer not to say” for empty or “?” cells."""
    missing = survey.questions.filter(prefer_not_to_say=True).count()
    text = gettext("Created draft survey %(slug)s with %(count)d questions. Their texts were made from the column "
                   "names: check and reword them below, then preview the survey.") \
        % {"slug": survey.slug, "count": survey.questions.count()}
    if missing:
        text += " " + ngettext("%(count)d question had empty or “?” cells: it offers “Prefer not to say”.",
                               "%(count)d questions had empty or “?” cells: they offer “Prefer not to say”.",
                               missing) % {"count": missing}
    return text
