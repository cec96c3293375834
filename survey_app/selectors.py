"""What the survey pages read about a survey without writing anything: the privacy its settings give (the engine's
``SurveyProtocol.privacy``) and the planner's expected accuracy for them (``aggregator.selectors``). The admin's
privacy panel and the designer's workspace (survey_app/design.py) both show these figures."""
from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext

from aggregator import selectors as aggregator_selectors
from aggregator.privacy.jsonable import format_epsilon
from aggregator.privacy.protocol import ConfigError

from .models import NO_PRIVACY, Survey, engine_message
from .protocol import build_protocol


@dataclass
class PrivacyFigures:
    """The privacy of a survey's settings, formatted for people: ``epsilon`` per respondent, ``rows`` of (question, ε,
    PSE or "—"), ``notes`` (the engine's note, no-privacy verdict, what the access means), or the ``problem`` that
    keeps them from being computed."""

    epsilon: str = ""
    rows: list[tuple[str, str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problem: str = ""
    unprotected: list[str] = field(default_factory=list)


def _reason(exc: Exception) -> str:
    message = getattr(exc, "message", None)
    return engine_message(message) if isinstance(message, str) and message else str(exc)


def privacy_figures(survey: Survey) -> PrivacyFigures:
    """The exact ε per question and per respondent (and PSE under MRR) of ``survey``'s settings as they are in memory
    (saved or not) with its saved questions, computed by the engine."""
    try:
        protocol = build_protocol(survey)
        privacy, unprotected = protocol.privacy(), protocol.unprotected()
    except (ConfigError, ValueError) as exc:
        return PrivacyFigures(problem=gettext("Not computable yet: %(reason)s") % {"reason": _reason(exc)})
    pse = privacy.get("pse_per_question", {})
    rows = [(name, format_epsilon(eps), f"{pse[name]:.3f}" if name in pse else "—")
            for name, eps in privacy["epsilon_per_question"].items()]
    epsilon = privacy["epsilon_per_respondent"]
    notes = [privacy["epsilon_note"]] if privacy.get("epsilon_note") else []
    if unprotected:  # the engine's verdict: the survey cannot open (survey_app.services.opening_refusal)
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
    return PrivacyFigures(format_epsilon(epsilon), rows, notes, unprotected=list(unprotected))


def planned_accuracy(user, survey: Survey) -> dict | None:
    """The planner's expected accuracy for ``survey``'s mode, encoding and ε or θ as in memory, from ``user``'s
    newest finished planner run that planned them (``aggregator.selectors.planned_accuracy``), or ``None``."""
    if survey.mode == Survey.Mode.MRR:
        parameter, value, encoding = "theta", survey.theta, None
    else:
        parameter, value, encoding = "epsilon", survey.epsilon, survey.encoding
    if value is None:
        return None
    return aggregator_selectors.planned_accuracy(user.pk, survey.mode, parameter, float(value), encoding)
