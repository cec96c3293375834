"""Surveys as designers define them, invitation tokens, and the randomized reports respondents send.

A ``Survey`` holds the privacy settings (mode ``mrr`` — the unrelated-question model of SPEC §2 — or ``ldp`` — a
frequency oracle of SPEC §3 with the Naive Bayes reporting of §4–§5) and its ``Question``s with their ``Choice``s.
``protocol_config()`` turns it into the plain dict the engine (``aggregator.privacy``) understands; the engine does
all randomization and estimation. A report holds only what a respondent's browser sent — already randomized — and
a coarse date: no token, IP address, user agent or precise time. It arrives in the inbox (``PendingReport``) and is
moved into ``Report`` by the fold that counts it (``aggregator.services``): every ``Report`` row is folded, every
``PendingReport`` row is not. Both have random (UUID) keys and no column or index that orders reports within a day.
"""
from __future__ import annotations

import math
import re
import secrets
import uuid
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from aggregator.privacy.protocol import ConfigError, build, check_settings
from aggregator.privacy.skip import check as skip_check

from . import languages, theme, webhooks
from .languages import NOT_ASKED, PREFER_NOT_TO_SAY

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

#: A question with more choices than this is shown as a dropdown when its style is "auto".
DROPDOWN_ABOVE = 12
#: Between a select-all question's name and its choice's index in the names of its yes/no features.
FEATURE_SEPARATOR = "__"
OPTION_NAME = re.compile(rf".+{FEATURE_SEPARATOR}\d+")


def option_feature(name: str, index: int) -> str:
    """The engine's feature name of choice ``index`` (from 0, in order) of the select-all question ``name``."""
    return f"{name}{FEATURE_SEPARATOR}{index}"


def encoding_choices() -> list[tuple[str, StrOrPromise]]:
    """(name, title) of every registered frequency oracle, in registration order; the titles are the engine's
    English, translated with the catalogue (``aggregator.mechanism_texts`` lists them for makemessages)."""
    from aggregator.privacy import oracles

    return [(name, _(oracles.lookup(name).title)) for name in oracles.names(sort=False)]


def mode_choices() -> list[tuple[str, str]]:
    """(mode, title) of the survey modes, MRR first (SPEC §2, §3)."""
    from aggregator.privacy.protocol import LDPProtocol, MRRProtocol

    return [(cls.mode, cls.title) for cls in (MRRProtocol, LDPProtocol)]


def approach_choices() -> list[tuple[str, int, str]]:
    """(member name, number, title) of every Gaussian approach."""
    from aggregator.privacy.continuous.approaches import APPROACH_CLASSES

    return [(f"APPROACH_{number}", number, cls.title) for number, cls in APPROACH_CLASSES.items()]


def parameters_help() -> str:
    """The help text of ``Survey.encoding_parameters``: each encoding's extra parameters (``privacy.describe``)."""
    from aggregator.privacy import oracles

    lines = [f"{name.upper()}: {{\"{p.name}\": …}} — {gettext(p.label)}: {gettext(p.help)}"
             for name in oracles.names(sort=False) for p in getattr(oracles.lookup(name), "parameters", ())]
    return " ".join([gettext("The encoding's own settings, as an object; empty for its defaults."), *lines])


def validate_relay_url(value: str) -> None:
    """An Oblivious HTTP relay's address: HTTPS (RFC 9458 §6), or plain HTTP on this machine (tests, a local relay);
    no user name, password or fragment."""
    from urllib.parse import urlsplit

    parts = urlsplit(value)
    local = parts.hostname in ("localhost", "127.0.0.1", "::1")
    if parts.scheme != "https" and not (parts.scheme == "http" and local):
        raise ValidationError(_("A relay's address must start with https:// (plain http:// only on this machine)."))
    if parts.username or parts.password or parts.fragment:
        raise ValidationError(_("A relay's address has no user name, password or #fragment."))


class Survey(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    class Access(models.TextChoices):
        LINK = "link", _("Open link")
        TOKENS = "tokens", _("One-use invitation tokens")

    #: The survey modes, titled by their protocol classes (``aggregator.privacy.protocol``).
    # The functional Enum API, which django-stubs do not model for Choices (only Choices("Name") and a label).
    Mode = models.TextChoices(  # type: ignore[call-overload]
        "Mode", [(name.upper(), (name, _(title))) for name, title in mode_choices()])

    #: The frequency oracles, from the engine's registry (``aggregator.privacy.oracles``): registering an oracle adds it
    #: here, with no migration (the field's choices are the callable ``encoding_choices``).
    Encoding = models.TextChoices(  # type: ignore[call-overload]  # the functional API (see Mode)
        "Encoding", [(name.upper(), (name, title)) for name, title in encoding_choices()])

    class Strategy(models.TextChoices):
        ONE_REPORT = "one-report", _("One report per person, full ε (recommended)")
        SPLIT = "split", _("Every answer reported, ε split between them")

    class NumericHandling(models.TextChoices):
        DISCRETIZE = "discretize", _("Discretize into equal-width bins")
        GAUSSIAN = "gaussian", _("Gaussian Naive Bayes")

    #: The Gaussian approaches (SPEC §5b), titled by their classes (``aggregator.privacy.continuous.approaches``).
    GaussianApproach = models.IntegerChoices(  # type: ignore[call-overload]  # the functional API (see Mode)
        "GaussianApproach", [(name, (number, _(title))) for name, number, title in approach_choices()])

    class Projection(models.TextChoices):
        NONE = "none", _("None")
        PCA = "pca", "PCA"
        DCA = "dca", "DCA"

    class Allocation(models.TextChoices):
        UNIFORM = "uniform", _("Uniform: every answer equally often")
        ADAPTIVE = "adaptive", _("Adaptive: more respondents where the model needs them")

    class PostProcess(models.TextChoices):
        BAYES = "bayes", _("Posterior means from each estimate's standard error (recommended: never below guessing)")
        NORM_SUB = "norm-sub", _("Projection onto the simplex")
        NEG_TO_ONE = "neg-to-one", _("Negative counts set to 1 (as in the paper)")

    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True,
                            help_text=_("Used in the survey's public link: /s/ followed by the slug and a slash "
                                      "(e.g. /s/health/)."))
    description = models.TextField(blank=True, help_text=_("Shown to respondents above the questions."))
    translations = models.JSONField(
        default=dict, blank=True,
        help_text=_("The survey's texts in other languages: {language code: {field: text}}, e.g. "
                  "{\"de\": {\"title\": \"…\", \"description\": \"…\"}}."))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    access = models.CharField(max_length=10, choices=Access.choices, default=Access.LINK)

    opens_at = models.DateTimeField(
        null=True, blank=True,
        help_text=_("A draft opens by itself at this time (checked every minute), if the survey can run by then."))
    closes_at = models.DateTimeField(
        null=True, blank=True, help_text=_("An open survey closes by itself at this time (checked every minute)."))
    quota = models.PositiveIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1)],
        help_text=_("An open survey closes by itself once it has this many reports (checked every minute, so a few "
                    "more may arrive in the last minute)."))

    webhook_url = models.URLField(
        blank=True, help_text=_("Hears a signed POST when a new model version is published (https; "
                                "docs/management-api.md)."))
    webhook_secret = models.CharField(max_length=64, blank=True, editable=False,
                                      help_text=_("Signs the webhook's requests (HMAC-SHA256)."))

    end_text = models.TextField(
        blank=True, help_text=_("Shown after Send instead of the standard thank-you text (its German under Other "
                                "languages as \"end_text\")."))
    end_url = models.CharField(
        max_length=theme.END_URL_MAX, blank=True, validators=[theme.validate_end_url],
        help_text=_("After Send, go to this https address instead (the same for everyone: nothing of the "
                    "respondent's is added to it, and no Referer is sent)."))
    accent_color = models.CharField(
        max_length=7, blank=True, validators=[theme.validate_accent],
        help_text=_("Buttons' and links' colour, e.g. #0b5cad; it must reach WCAG AA contrast (4.5:1)."))

    mode = models.CharField(max_length=5, choices=Mode.choices, default=Mode.LDP)
    theta = models.FloatField(  # its range is the engine's rule (check_settings), one message on the form
        null=True, blank=True,
        help_text=_("MRR: probability that a group's true answers are sent (0 < θ ≤ 1). "
                  "Larger θ: more accuracy, less privacy."),
    )
    epsilon = models.FloatField(
        null=True, blank=True,
        help_text=_("LDP: privacy budget per respondent (ε > 0). Smaller ε: more privacy, less accuracy."),
    )
    encoding = models.CharField(max_length=10, choices=encoding_choices, default="adaptive")
    encoding_parameters = models.JSONField(default=dict, blank=True)
    strategy = models.CharField(max_length=12, choices=Strategy.choices, default=Strategy.ONE_REPORT)
    numeric_handling = models.CharField(max_length=12, choices=NumericHandling.choices,
                                        default=NumericHandling.DISCRETIZE)
    numeric_bins = models.PositiveSmallIntegerField(
        default=4, validators=[MaxValueValidator(64)],  # at least 2: the engine's rule (check_settings)
        help_text=_("Equal-width bins per numeric question."),
    )
    gaussian_approach = models.PositiveSmallIntegerField(choices=GaussianApproach.choices,
                                                         default=GaussianApproach.APPROACH_3)
    projection = models.CharField(max_length=5, choices=Projection.choices, default=Projection.NONE)
    projection_components = models.PositiveSmallIntegerField(null=True, blank=True)
    reference_sample = models.FileField(
        upload_to="reference-samples/", null=True, blank=True,
        help_text=_("Public CSV sample with the numeric questions' columns (and the class), used to fit PCA/DCA; "
                  "with adaptive allocation and a column for every question, it also sets the first days' "
                  "assignment."),
    )
    projection_params = models.JSONField(null=True, blank=True, editable=False)
    allocation = models.CharField(
        max_length=10, choices=Allocation.choices, default=Allocation.UNIFORM,
        help_text=_("LDP, one report per respondent: how respondents are assigned the answer they report. Adaptive: "
                  "more respondents for the questions whose estimates most limit the model, set from the public "
                  "reference sample until the first model, then each day from the newest model (docs/allocation.md); "
                  "it costs no privacy."))
    pilot_assignment = models.JSONField(
        null=True, blank=True, editable=False,
        help_text=_("Adaptive allocation: the assignment the public reference sample sets until the first model "
                  "(survey_app/pilot.py)."))
    reference_prior = models.BooleanField(
        default=False,
        help_text=_("LDP, answers in choices or bins: the public reference sample's answers per class become the "
                  "model's starting point, and the reports decide how far to trust it (more accuracy at small ε when "
                  "the sample is like the respondents). It costs the respondents no privacy; the sample must be "
                  "public, since published models show its answers per class."))
    reference_counts = models.JSONField(
        null=True, blank=True, editable=False,
        help_text=_("The reference sample's answers per class, per question, that the model starts from "
                    "(survey_app/pilot.py)."))
    postprocess = models.CharField(max_length=12, choices=PostProcess.choices, default=PostProcess.BAYES,
                                   help_text=_("How noisy estimates become model parameters (docs/results/"
                                             "nb-estimators.md compares them)."))
    validation_share = models.FloatField(
        default=0.1,  # its range is the engine's rule (check_settings), one message on the form
        help_text=_("Share of respondents who validate the current model instead of answering for training: their "
                  "randomized reports give the accuracy estimate with its confidence interval. 0 turns it off. "
                  "MRR surveys with several attribute groups need 0."),
    )
    designers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="designed_surveys",
        help_text=_("Staff who may see and edit this survey (superusers see every survey). Whoever creates a survey "
                  "designs it."),
    )
    ohttp_relay = models.URLField(
        max_length=500, blank=True, validators=[validate_relay_url],
        help_text=_("Optional: the address of an Oblivious HTTP relay (RFC 9458) run by someone else, which forwards "
                  "respondents' redemption and report to this server's gateway (/ohttp/gateway/) so that this "
                  "server never sees their address with them (docs/operations.md). Empty: the browser sends "
                  "them directly."))
    retrain_minutes = models.PositiveIntegerField(
        default=10, validators=[MinValueValidator(1), MaxValueValidator(7 * 24 * 60)],
        help_text=_("While the survey is open, workers publish a new model this often. New reports leave the inbox "
                    "at most 10 minutes apart, whatever this says."),
    )
    shuffle_questions = models.BooleanField(
        default=False,
        help_text=_("Show each respondent the questions of a page (and the rows of a matrix) in an order of their "
                    "own, drawn by their browser; the order is never sent."))
    shuffle_choices = models.BooleanField(
        default=False,
        help_text=_("Show each respondent the choices of a question in an order of their own, drawn by their browser "
                    "(not scales, matrices or yes/no; “Prefer not to say” and “None of these” stay last); the order is "
                    "never sent."))

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.title} ({self.slug})"

    @property
    def display_title(self) -> str:
        """The title in the page's language (``translations``), else the original (survey_app/languages.py)."""
        return languages.survey_title(self)

    @property
    def display_description(self) -> str:
        return languages.survey_description(self)

    # -- validation --------------------------------------------------------------------------
    def clean(self):
        """The engine checks the settings (``check_settings``: one source of the protocol's rules, each error
        naming its configuration field, shown on the form field ``CONFIG_FIELDS`` maps it to); Django
        adds only its own rules: a projection needs a reference sample and a number of components, and the
        settings of a survey with reports are frozen."""
        errors: dict[str, Any] = {}  # field → message(s), as ValidationError takes them
        config = settings_config(self, list(self.questions.prefetch_related("choices")) if self.pk else None)
        if self.projection != self.Projection.NONE and self.projection_params:
            config["projection"] = self.projection_params  # a fitted projection, whatever the mode
        try:
            check_settings(config)
        except ConfigError as exc:
            errors[CONFIG_FIELDS.get(exc.field, NON_FIELD_ERRORS)] = form_message(exc.template, exc.params)
        if not errors and self.pk and self.mode == self.Mode.LDP \
                and self.numeric_handling == self.NumericHandling.GAUSSIAN:
            errors.update(self._mixed_errors())
        if self.projection != self.Projection.NONE and not self.projection_params:
            # Not fitted yet (the admin fits it once saved): the engine has nothing to check but the mode.
            if self.mode != self.Mode.LDP:
                errors.setdefault("projection", _("PCA/DCA applies to LDP surveys only."))
            elif not self.reference_sample:
                errors["reference_sample"] = _("PCA/DCA needs a public reference sample.")
        if self.reference_prior and self.mode != self.Mode.LDP:
            errors.setdefault("reference_prior", _("The reference sample's prior applies to LDP surveys only."))
        elif self.reference_prior and not self.reference_sample and "reference_prior" not in errors:
            # On the setting's own field: the workspace's privacy form has no sample field.
            errors["reference_prior"] = _("The reference sample's prior needs a public reference sample.")
        if self.projection != self.Projection.NONE and not self.projection_components:
            errors["projection_components"] = _("Say how many components to keep.")
        if self.opens_at and self.closes_at and self.closes_at <= self.opens_at:
            errors["closes_at"] = _("The survey must close after it opens.")
        if self.webhook_url and webhooks.check_url(self.webhook_url):
            errors["webhook_url"] = _("A webhook address must use https (plain http only to this machine: "
                                      "localhost or 127.0.0.1).")
        if self.pk and self.has_reports():
            previous = Survey.objects.get(pk=self.pk)
            changed = [f for f in PROTOCOL_FIELDS if getattr(previous, f) != getattr(self, f)]
            if changed:
                raise ValidationError(
                    _("This survey has reports: its privacy settings can no longer change (the estimates would be "
                      "corrupted). Changed: %(fields)s. Clone the survey instead."),
                    code="frozen", params={"fields": ", ".join(changed)})
        frozen = frozen_errors(self)
        if frozen is not None:
            raise frozen
        if not errors and self.status == self.Status.OPEN:
            errors.update(self._opening_errors())
        self.translations = self.translations or {}  # an emptied form field: no translations
        errors.update(languages.translation_errors(self.translations, languages.SURVEY_FIELDS))
        if errors:
            raise ValidationError(errors)

    def _opening_errors(self) -> dict[str, str]:
        """Opening through the form (its status set to open): the checks of the admin's “Open” action
        (``opening_refusal``). A new survey opens once saved with its questions."""

        if self.pk is None:
            return {"status": _("Save the survey as a draft with its questions first, then open it.")}
        if Survey.objects.filter(pk=self.pk, status=self.Status.OPEN).exists():
            return {}
        refusal = opening_refusal(self)
        return {"status": refusal} if refusal is not None else {}

    def _mixed_errors(self) -> dict[str, str]:
        """A Gaussian survey whose saved questions mix categorical and numeric ones is a mixed survey
        (``protocol.mixed``): only Approach 3 with one report per respondent fits it. The engine says so when it
        builds the protocol from these settings and questions; other refusals (no class question yet, …) wait for
        the survey to open."""
        try:
            build(protocol_config(self))
        except ConfigError as exc:
            if exc.field in ("numeric.approach", "ldp.strategy"):
                return {CONFIG_FIELDS[exc.field]: form_message(exc.template, exc.params)}
        except ValueError:
            pass
        return {}

    def has_opened(self) -> bool:
        """Whether the saved survey has been opened (its saved status is open or closed: a survey never goes back to
        draft). From then on its privacy settings are frozen (``frozen_errors``)."""
        return self.pk is not None and Survey.objects.filter(pk=self.pk).exclude(status=Survey.Status.DRAFT).exists()

    def has_reports(self) -> bool:
        """Whether any report arrived (folded or still in the inbox)."""
        return self.pk is not None and (self.reports.exists() or self.pending_reports.exists())

    def save(self, *args, **kwargs):
        """Saved; a webhook address gets its signing secret the first time it is set."""
        if self.webhook_url and not self.webhook_secret:
            self.webhook_secret = webhooks.new_secret()
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "webhook_secret"}
        super().save(*args, **kwargs)

    def report_total(self) -> int:
        """How many reports arrived: folded (``Report``) and still in the inbox (``PendingReport``)."""
        return self.reports.count() + self.pending_reports.count()

    @property
    def class_question(self):
        return self.questions.filter(is_class=True).first()

    @property
    def feature_questions(self):
        return self.questions.filter(is_class=False)


#: The survey field holding each setting of the engine's configuration (``ConfigError.field``, a dotted path); an
#: error on any other path (the questions: "class", "features", "mrr.groups", "mrr.personal") concerns the survey
#: as a whole.
CONFIG_FIELDS = {
    "mode": "mode",
    "ldp.epsilon": "epsilon",
    "ldp.encoding": "encoding",
    "ldp.parameters": "encoding_parameters",
    "ldp.strategy": "strategy",
    "ldp.postprocess": "postprocess",
    "ldp.allocation": "allocation",
    "ldp.reference_prior": "reference_prior",
    "mrr.theta": "theta",
    "mrr.postprocess": "postprocess",
    "numeric.handling": "numeric_handling",
    "numeric.bins": "numeric_bins",
    "numeric.approach": "gaussian_approach",
    "projection": "projection",
    "validation.share": "validation_share",
}

#: Fields that define the randomization protocol: frozen once reports exist.
PROTOCOL_FIELDS = (
    "mode", "theta", "epsilon", "encoding", "encoding_parameters", "strategy", "numeric_handling", "numeric_bins",
    "gaussian_approach", "projection", "projection_components", "postprocess", "validation_share",
    "allocation", "reference_prior",
)


#: A question's fields its survey's protocol covers — its engine attribute (name, kind, bounds, “Prefer not to say”,
#: class, the condition that adds “Not asked”), its place in the order of questions, its MRR group and unrelated
#: question — and a choice's (its label, place and declared share): frozen once the survey has opened, as
#: ``PROTOCOL_FIELDS`` (``frozen_errors``).
QUESTION_PROTOCOL_FIELDS = ("survey", "position", "name", "kind", "is_class", "low", "high", "prefer_not_to_say",
                            "group", "personal_mode", "show_if_question", "show_if_answers")
CHOICE_PROTOCOL_FIELDS = ("question", "position", "label", "personal_probability")

SETTINGS_FROZEN = _(
    "This survey has been opened: its privacy settings can no longer change (a report randomized under the old "
    "settings would be refused, and the privacy figures respondents were shown would no longer hold). Changed: "
    "%(fields)s. Clone the survey to change them.")
QUESTIONS_FROZEN = _(
    "This survey has been opened: what its questions send can no longer change (%(fields)s), and no question can be "
    "added or removed. Texts and translations can still be edited. Clone the survey to change the rest.")
CHOICES_FROZEN = _(
    "This survey has been opened: its answers can no longer change, be added or be removed (%(fields)s). "
    "Translations can still be edited. Clone the survey to change them.")
SLUG_FROZEN = _(
    "This survey has been opened: its address can no longer change (the links respondents were given, invitations "
    "included, would stop working). Clone the survey for a new address.")
NO_BACK_TO_DRAFT = _(
    "A survey that has been opened cannot go back to draft: its settings stay those its respondents were told. Close "
    "it, or clone it for a new draft.")


def _changed(instance, fields) -> list[str]:
    """The ``fields`` of ``instance`` whose values differ from its saved row's."""
    columns = [instance._meta.get_field(f).attname for f in fields]
    previous = type(instance).objects.filter(pk=instance.pk).values(*columns).first()
    if previous is None:
        return []
    return [f for f, column in zip(fields, columns, strict=True) if previous[column] != getattr(instance, column)]


def frozen_errors(instance) -> ValidationError | None:
    """Why ``instance`` (a ``Survey``, ``Question`` or ``Choice``, about to be saved) may not be, or ``None``: once a
    survey has opened (``Survey.has_opened``) nothing its protocol covers changes — the survey's ``PROTOCOL_FIELDS``
    and fitted projection, its questions' ``QUESTION_PROTOCOL_FIELDS``, its choices' ``CHOICE_PROTOCOL_FIELDS``, no
    question or choice added (nor removed: the admin offers no removal, ``sync_choices`` refuses) — and it never goes
    back to draft. (A survey with reports freezes its questions whole: their ``clean``.) The forms (``clean``) and
    the services that write (``survey_app.services``) ask this."""
    if isinstance(instance, Survey):
        if instance.pk is None or not instance.has_opened():
            return None
        if instance.status == Survey.Status.DRAFT and instance.has_opened():
            return ValidationError({"status": NO_BACK_TO_DRAFT}, code="frozen")
        if _changed(instance, ("slug",)):
            return ValidationError({"slug": SLUG_FROZEN}, code="frozen")
        changed = _changed(instance, (*PROTOCOL_FIELDS, "projection_params"))
        return ValidationError(SETTINGS_FROZEN, code="frozen", params={"fields": ", ".join(changed)}) if changed \
            else None
    fields: tuple[str, ...]
    if isinstance(instance, Question):
        survey, fields, message = instance.survey, QUESTION_PROTOCOL_FIELDS, QUESTIONS_FROZEN
    else:
        survey, fields, message = instance.question.survey, CHOICE_PROTOCOL_FIELDS, CHOICES_FROZEN
    if not survey.has_opened():
        return None
    changed = _changed(instance, fields) if instance.pk is not None else [gettext("a new one")]
    return ValidationError(message, code="frozen", params={"fields": ", ".join(changed)}) if changed else None


#: Why a survey whose settings give no privacy may not open (``opening_refusal``).
NO_PRIVACY = _(
    "These settings give no privacy for %(questions)s: ε is infinite against anyone who reads the reports, so what "
    "is sent gives the true answers away (θ = 1 sends them as they are; a declared share of 0 makes that answer "
    "always true when sent). A survey cannot open with them: change the settings.")
#: A question with one possible answer carries no information, and its PSE (0) would be the survey's headline.
SINGLE_ANSWER = _("A question needs at least two possible answers: with one, it carries no information (and its "
                  "privacy figure, PSE 0, would stand for the whole survey). Add answers or delete the question.")
SINGLE_ANSWER_COLUMN = _(
    "The column “%(column)s” has a single answer (%(answer)s): a question with one possible answer carries no "
    "information (and its privacy figure, PSE 0, would stand for the whole survey). Leave the column out.")


#: Under MRR a respondent's “Prefer not to say” on a select-all question applies to every choice at once, while the
#: browser draws each choice's stand-in answer on its own: a stand-in record mixing it with yes/no answers would give
#: itself away, and a consistent record would more likely be true than θ says. So the two do not go together.
MULTI_PREFER_NOT_UNDER_MRR = _(
    "Under MRR a select-all question cannot offer “Prefer not to say”: it covers every choice at once, while each "
    "choice's unrelated stand-in is drawn on its own, so a mixed record would give itself away. Turn it off, or use "
    "LDP.")


#: Why a number offers no “Prefer not to say” and is never shown on a condition: the answer would have to travel as a
#: category, and a number is sent as a number (the Gaussian approaches add noise to it, SPEC §5b) or as its bin; a
#: made-up number or bin would be a false answer, and a separate flag would be sent without randomization.
NUMERIC_NO_CATEGORY = _(
    "A number cannot offer “Prefer not to say” or be shown on a condition: either would be an answer that is not a "
    "number, which a numeric question cannot send randomized (the Gaussian approaches add noise to the number itself). "
    "Use a question with choices (e.g. ranges) instead.")
#: Skip logic (``Question.skip_errors``): the messages of its rules.
SKIP_MESSAGES = {
    "no_gate": _("Choose the earlier question whose answer shows this one."),
    "no_answers": _("Choose at least one answer of “%(gate)s” that shows this question."),
    "gate_survey": _("The question that shows this one must belong to the same survey."),
    "gate_order": _("The question that shows this one must come before it (a smaller position)."),
    "gate_kind": _("Only a yes/no question or a question with choices can show another question (one answer each)."),
    "gate_class": _("The class question cannot decide whether another question is shown: “Not asked” would then give "
                    "the class away, and the model could not predict anyone's class without knowing it first."),
    "is_class": _("The class question is asked of everyone: it cannot be shown on a condition."),
    "multi": _("A select-all question cannot be shown on a condition yet: put the condition on a question with "
               "choices."),
    "answers": _("“%(gate)s” has no answer %(answers)s: choose among %(labels)s."),
    "all_answers": _("Every answer of “%(gate)s” shows this question: remove the condition."),
    "real_personal": _("Under MRR a question shown on a condition has its unrelated stand-in simulated by the browser "
                       "(“Not asked” is not an answer to a real unrelated question)."),
    "shares": _("Under MRR a question shown on a condition has a uniform stand-in over its answers and “Not asked” "
                "(so that a stand-in “Not asked” is as likely as any other answer): clear its answers' declared "
                "shares."),
    "label": _("“%(label)s” is the answer a hidden question sends: no choice of a question shown on a condition may "
               "be called so."),
}


#: The code of the errors about how many choices a question has (``Question._type_errors``, ``parse_choice_lines``).
CHOICE_COUNT = "choice_count"
MULTI_TOO_FEW = _("A select-all question needs at least 2 choices (each becomes a yes/no question).")
SCALE_TOO_FEW = _("An ordered scale needs at least 3 choices, in their order.")


class Question(models.Model):
    class Kind(models.TextChoices):
        BINARY = "binary", _("Yes / no")
        CATEGORICAL = "categorical", _("Choices")
        NUMERIC = "numeric", _("Number with public bounds")
        MULTI = "multi", _("Select all that apply (one yes / no question per choice)")

    class Style(models.TextChoices):
        AUTO = "auto", _("Automatic (buttons; a dropdown for more than 12 choices)")
        BUTTONS = "buttons", _("One button per choice")
        DROPDOWN = "dropdown", _("Dropdown list")
        SCALE = "scale", _("Ordered scale (e.g. Likert), shown left to right in the choices' order")
        SLIDER = "slider", _("Slider between the public bounds (numbers only)")

    class PersonalMode(models.TextChoices):
        SIMULATED = "simulated", _("Simulated by the browser from the declared distribution")
        REAL = "real", _("A real unrelated question asked to the respondent")

    survey = models.ForeignKey(Survey, related_name="questions", on_delete=models.CASCADE)
    position = models.PositiveIntegerField(default=0)
    section = models.CharField(max_length=120, blank=True,
                               help_text=_("Questions with the same section share a page."))
    name = models.SlugField(max_length=100,
                            help_text=_("Machine name (the CSV column name); unique within the survey."))
    text = models.CharField(max_length=500, help_text=_("The question as respondents read it."))
    help_text = models.CharField(max_length=500, blank=True)
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.CATEGORICAL)
    style = models.CharField(max_length=10, choices=Style.choices, default=Style.AUTO,
                             help_text=_("How a question with choices is shown; it does not change the randomization."))
    is_class = models.BooleanField(default=False,
                                   help_text=_("The class the model learns to predict (exactly one per survey)."))
    low = models.FloatField(null=True, blank=True, help_text=_("Numeric only: public lower bound."))
    high = models.FloatField(null=True, blank=True, help_text=_("Numeric only: public upper bound."))
    prefer_not_to_say = models.BooleanField(
        default=False,
        help_text=_("Add “Prefer not to say” as one more answer (randomized like the others; not for numbers)."))
    show_if_question = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="shown_questions",
        verbose_name=_("shown only if"),
        help_text=_("Skip logic: an earlier yes/no or choices question (not the class) whose answer decides whether "
                    "this one is shown. A respondent who is not shown it sends “Not asked”, one more answer "
                    "randomized like the others."))
    show_if_answers = models.JSONField(
        default=list, blank=True, verbose_name=_("answers that show it"),
        help_text=_("The answers (as labelled in the original language) of that question that show this one, as a "
                    "list, e.g. [\"yes\"]."))
    step = models.FloatField(
        null=True, blank=True,
        help_text=_("Slider only: the distance between the values it can take (empty: a hundredth of the range)."))
    matrix = models.CharField(
        max_length=200, blank=True,
        help_text=_("Matrix: questions next to each other with the same matrix title and the same choices are shown "
                    "as one grid, a row each (each is still one question to the randomizer)."))
    group = models.PositiveSmallIntegerField(
        default=0, help_text=_("MRR attribute group: a group's answers are randomized together."))
    personal_mode = models.CharField(max_length=10, choices=PersonalMode.choices, default=PersonalMode.SIMULATED)
    personal_text = models.CharField(
        max_length=500, blank=True,
        help_text=_("MRR with a real personal question: the unrelated question (e.g. “Were you born in "
                    "January–June?”)."),
    )
    translations = models.JSONField(
        default=dict, blank=True,
        help_text=_("The question's texts in other languages: {language code: {field: text}}, e.g. "
                  "{\"de\": {\"text\": \"…\", \"help_text\": \"…\"}}."))

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["survey", "name"], name="unique_question_name_per_survey"),
            models.UniqueConstraint(fields=["survey"], condition=models.Q(is_class=True),
                                    name="one_class_question_per_survey"),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self):
        if self.survey_id and self.survey.has_reports():
            raise ValidationError(
                _("This survey has reports: its questions can no longer change. Clone the survey instead."),
                code="frozen")
        frozen = frozen_errors(self) if self.survey_id else None
        errors: dict = {NON_FIELD_ERRORS: frozen} if frozen is not None else {}
        if self.kind == self.Kind.NUMERIC:
            if self.low is None or self.high is None:
                errors["high"] = _("A numeric question needs public lower and upper bounds.")
            elif not (math.isfinite(self.low) and math.isfinite(self.high)) or self.low >= self.high:
                errors["high"] = _("The bounds must be finite with lower < upper.")
            if self.is_class:
                errors["kind"] = _("The class question must be binary or categorical.")
        if self.personal_mode == self.PersonalMode.REAL and not self.personal_text.strip():
            errors["personal_text"] = _("Write the real unrelated question, or let the browser simulate it.")
        errors.update(self._type_errors())
        for field, error in self.skip_errors().items():
            errors.setdefault(field, error)
        self.translations = self.translations or {}  # an emptied form field: no translations
        errors.update(languages.translation_errors(self.translations, languages.QUESTION_FIELDS))
        if errors:
            raise ValidationError(errors)

    def _type_errors(self) -> dict[str, ValidationError]:
        """The rules of the question types: a select-all question is a set of yes/no questions, one
        per choice, never the class; a scale is an ordered categorical question; numbers have one look only. Choice
        counts are checked once the question is saved (its choices are other rows): their errors have the code
        ``CHOICE_COUNT`` (the survey page's form, which replaces the saved choices, judges the count of its lines
        instead: survey_app/admin.py)."""
        errors: dict[str, ValidationError] = {}
        if OPTION_NAME.fullmatch(self.name or ""):
            errors["name"] = ValidationError(
                _("Names ending in “%(separator)s” and a number are kept for the choices of select-all questions: "
                  "choose another name."), code="reserved_name", params={"separator": FEATURE_SEPARATOR})
        if self.kind == self.Kind.MULTI:
            if self.is_class:
                errors["is_class"] = ValidationError(
                    _("A select-all question cannot be the class: the model predicts one answer. Use a categorical "
                      "question."), code="multi_class")
            if self.personal_mode == self.PersonalMode.REAL:
                errors["personal_mode"] = ValidationError(
                    _("A select-all question's stand-in answers are simulated by the browser (each choice's declared "
                      "share, or half and half)."), code="multi_personal")
            if self.style not in (self.Style.AUTO, self.Style.BUTTONS):
                errors["style"] = ValidationError(
                    _("A select-all question is shown as check boxes: leave the style on Automatic."),
                    code="multi_style")
            if self.prefer_not_to_say and self.survey_id and self.survey.mode == Survey.Mode.MRR:
                errors["prefer_not_to_say"] = ValidationError(MULTI_PREFER_NOT_UNDER_MRR, code="multi_prefer_not")
        if self.kind == self.Kind.NUMERIC and self.style not in (self.Style.AUTO, self.Style.SLIDER):
            errors["style"] = ValidationError(
                _("A number is typed in a box or set with a slider: choose Automatic or Slider."),
                code="numeric_style")
        if self.style == self.Style.SLIDER and self.kind != self.Kind.NUMERIC:
            errors["style"] = ValidationError(
                _("A slider sets a number: only a question of the kind “Number with public bounds” can use it."),
                code="slider_kind")
        errors.update(self._slider_step_errors())
        errors.update(self._matrix_errors())
        if self.style == self.Style.SCALE and self.kind != self.Kind.CATEGORICAL:
            errors.setdefault("style", ValidationError(
                _("An ordered scale needs a categorical question (Choices) with at least 3 choices in their order."),
                code="scale_kind"))
        if self.pk and self.kind in (self.Kind.MULTI, self.Kind.CATEGORICAL):
            count = self.choices.count()
            if self.kind == self.Kind.CATEGORICAL and count == 1 and not self.prefer_not_to_say:  # none: unfinished
                errors["kind"] = ValidationError(SINGLE_ANSWER, code=CHOICE_COUNT)
            if self.kind == self.Kind.MULTI and count < 2:
                errors["kind"] = ValidationError(MULTI_TOO_FEW, code=CHOICE_COUNT)
            elif self.style == self.Style.SCALE and count < 3:
                errors["style"] = ValidationError(SCALE_TOO_FEW, code=CHOICE_COUNT)
        return errors

    def _slider_step_errors(self) -> dict[str, ValidationError]:
        """A slider's step: positive, finite, at most the range between the bounds; only on a slider."""
        if self.step is None:
            return {}
        if self.style != self.Style.SLIDER:
            return {"step": ValidationError(_("Only a slider has a step: empty it, or choose the style Slider."),
                                            code="step_without_slider")}
        width = (self.high - self.low) if self.low is not None and self.high is not None else math.inf
        if not (math.isfinite(self.step) and 0 < self.step <= width):
            return {"step": ValidationError(
                _("The step must be a positive number no larger than the range between the bounds."),
                code="step_range")}
        return {}

    def _matrix_errors(self) -> dict[str, ValidationError]:
        """A matrix row answers with one choice of the grid's columns: a yes/no question or choices shown as buttons
        or a scale, never a number, select-all or dropdown; its unrelated question (MRR) is simulated."""
        if not self.matrix.strip():
            self.matrix = ""
            return {}
        if self.kind not in (self.Kind.BINARY, self.Kind.CATEGORICAL):
            return {"matrix": ValidationError(
                _("Only a yes/no question or a question with choices can be a row of a matrix."), code="matrix_kind")}
        if self.style == self.Style.DROPDOWN:
            return {"matrix": ValidationError(
                _("A matrix shows its choices as columns: a row cannot be a dropdown. Choose another style."),
                code="matrix_style")}
        if self.personal_mode == self.PersonalMode.REAL:
            return {"matrix": ValidationError(
                _("A matrix row cannot ask a real unrelated question: let the browser simulate it."),
                code="matrix_personal")}
        return {}

    def skip_errors(self) -> dict[str, ValidationError]:
        """The rules of skip logic and optional answers (docs/question-types.md): a question is shown on a condition
        only after an earlier yes/no or choices question of its survey that is not the class, on some of its answers
        (not all); the class is asked of everyone; numbers and select-all questions are never conditional, and a number
        offers no “Prefer not to say” (``NUMERIC_NO_CATEGORY``); under MRR the stand-in of a conditional question is
        simulated, uniform over its answers and “Not asked”."""
        errors: dict[str, ValidationError] = {}

        def refuse(field: str, key: str, **params) -> None:
            errors.setdefault(field, ValidationError(SKIP_MESSAGES[key], code=f"skip_{key}", params=params or None))

        if self.kind == self.Kind.NUMERIC and self.prefer_not_to_say:
            errors["prefer_not_to_say"] = ValidationError(NUMERIC_NO_CATEGORY, code="numeric_category")
        answers = self.show_if_answers or []
        gate = self.show_if_question
        if gate is None:
            if answers:
                refuse("show_if_question", "no_gate")
            self.show_if_answers = []
            return errors
        if self.kind == self.Kind.NUMERIC:
            errors["show_if_question"] = ValidationError(NUMERIC_NO_CATEGORY, code="numeric_category")
        elif self.kind == self.Kind.MULTI:
            refuse("show_if_question", "multi")
        if self.is_class:
            refuse("show_if_question", "is_class")
        if gate.survey_id != self.survey_id or gate.pk == self.pk:
            refuse("show_if_question", "gate_survey")
        elif (gate.position, gate.pk) >= (self.position, self.pk if self.pk is not None else math.inf):
            refuse("show_if_question", "gate_order")
        if gate.is_class:
            refuse("show_if_question", "gate_class")
        if gate.kind not in (self.Kind.BINARY, self.Kind.CATEGORICAL):
            refuse("show_if_question", "gate_kind")
            return errors
        labels = [label for label in gate.labels() if label != NOT_ASKED]
        if not isinstance(answers, list) or not answers or not all(isinstance(a, str) for a in answers):
            refuse("show_if_answers", "no_answers", gate=gate.name)
        elif unknown := [a for a in answers if a not in labels]:
            refuse("show_if_answers", "answers", gate=gate.name, answers=", ".join(f"“{a}”" for a in unknown),
                   labels=", ".join(f"“{a}”" for a in labels))
        elif set(answers) >= set(labels) and gate.show_if_question_id is None:
            refuse("show_if_answers", "all_answers", gate=gate.name)
        if self.survey_id and self.survey.mode == Survey.Mode.MRR:
            if self.personal_mode == self.PersonalMode.REAL:
                refuse("personal_mode", "real_personal")
            if self.pk and any(c.personal_probability is not None for c in self.choices.all()):
                refuse("show_if_question", "shares")
        if self.pk and any(c.label == NOT_ASKED for c in self.choices.all()):
            refuse("show_if_question", "label", label=NOT_ASKED)
        return errors

    def show_if_codes(self) -> list[int]:
        """The answer codes (indices in the order of ``labels()``) of ``show_if_question`` that show this question;
        empty when it is always shown."""
        if self.show_if_question is None:
            return []
        labels = self.show_if_question.labels()
        return [labels.index(a) for a in self.show_if_answers or [] if a in labels]

    def resolved_style(self) -> str:
        """How the respondent's page shows the question: ``number`` (numeric), ``checkboxes`` (select all that
        apply), else ``buttons``, ``dropdown`` or ``scale`` — ``auto`` resolved here, the one place (buttons; a
        dropdown for more than ``DROPDOWN_ABOVE`` choices); a number set with a slider ``slider``."""
        if self.kind == self.Kind.NUMERIC:
            return self.Style.SLIDER.value if self.style == self.Style.SLIDER else "number"
        if self.kind == self.Kind.MULTI:
            return "checkboxes"
        if self.style == self.Style.AUTO:
            return self.Style.DROPDOWN.value if len(self.choices.all()) > DROPDOWN_ABOVE else self.Style.BUTTONS.value
        return str(self.style)

    def options(self) -> list[str]:
        """A select-all question's choices (each a yes/no feature of the engine); empty for other kinds."""
        return [c.label for c in self.choices.all()] if self.kind == self.Kind.MULTI else []

    def feature_names(self) -> list[str]:
        """The engine's features this question is: its name, or for a select-all question one per choice,
        ``<name>__<i>`` with ``i`` the choice's index in order from 0 (``option_feature``)."""
        if self.kind == self.Kind.MULTI:
            return [option_feature(self.name, i) for i in range(len(self.options()))]
        return [self.name]

    def labels(self) -> list[str]:
        """The categories respondents choose from (binary: no/yes), with “Prefer not to say” when enabled, then “Not
        asked” for a question shown on a condition (skip logic: the answer it sends when hidden). A
        select-all question: the values of each of its yes/no features (no/yes, and “Prefer not to say”, which the
        page offers once for the whole question and then sends for every choice)."""
        if self.kind in (self.Kind.BINARY, self.Kind.MULTI):
            labels = ["no", "yes"]
        elif self.kind == self.Kind.CATEGORICAL:
            labels = [c.label for c in self.choices.all()]
        else:
            return []
        if self.prefer_not_to_say:
            labels.append(PREFER_NOT_TO_SAY)
        if self.show_if_question_id is not None and self.kind != self.Kind.MULTI:
            labels.append(NOT_ASKED)  # skip logic: the hidden question's answer, randomized like the others
        return labels


def feature_texts(questions) -> dict[str, str]:
    """{engine feature or class name: what a designer reads} for ``questions``: a question's text, and for each
    yes/no feature of a select-all question “question — choice”."""
    out = {}
    for q in questions:
        out[q.name] = q.text
        if q.kind == Question.Kind.MULTI:
            for name, option in zip(q.feature_names(), q.options(), strict=True):
                out[name] = f"{q.text} — {option}"
    return out


def feature_labels(questions) -> dict[str, str]:
    """{feature name: short label} of the yes/no features of the select-all questions among ``questions``, for the
    places that name questions by their machine name (the dashboard's charts, the model card): “sports — swimming”
    rather than ``sports__1``."""
    return {name: f"{q.name} — {option}" for q in questions if q.kind == Question.Kind.MULTI
            for name, option in zip(q.feature_names(), q.options(), strict=True)}


class Choice(models.Model):
    question = models.ForeignKey(Question, related_name="choices", on_delete=models.CASCADE)
    position = models.PositiveIntegerField(default=0)
    label = models.CharField(max_length=200)
    personal_probability = models.FloatField(
        null=True, blank=True, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text=_("MRR: declared share of the population giving this answer to the personal question (empty: "
                    "uniform)."),
    )
    translations = models.JSONField(default=dict, blank=True,
                                    help_text=_("The label in other languages: {language code: label}."))

    class Meta:
        ordering = ["position", "id"]
        constraints = [models.UniqueConstraint(fields=["question", "label"], name="unique_choice_label_per_question")]

    def __str__(self) -> str:
        return self.label

    def clean(self):
        if self.question_id and self.question.survey.has_reports():
            raise ValidationError(
                _("This survey has reports: its answers can no longer change. Clone the survey instead."),
                code="frozen")
        frozen = frozen_errors(self) if self.question_id else None
        if frozen is not None:
            raise frozen
        self.translations = self.translations or {}  # an emptied form field: no translations
        errors = languages.translation_errors(self.translations, None)
        if errors:
            raise ValidationError(errors)


#: The engine's fixed messages that a designer meets on the survey's form (``aggregator.privacy``: the engine knows no
#: Django), marked here for the catalogue: ``engine_message`` shows them in the page's language (a message with a
#: figure or a name in it stays English). The mechanisms' own messages (a parameter out of range) are in
#: ``aggregator.mechanism_texts``.
ENGINE_MESSAGES = (
    gettext_noop("LDP needs ε"),
    gettext_noop("ε must be a number > 0"),
    gettext_noop("MRR needs θ"),
    gettext_noop("θ must be in (0, 1]"),
    gettext_noop("the validation share must be a number"),
    gettext_noop("the validation share must be in [0, %(max)s]"),
    gettext_noop("ε = %(epsilon)s is more than a browser can honour exactly: choose ε ≤ %(choose)s"),
    gettext_noop("the number of bins must be a whole number of at least 2"),
    gettext_noop("adaptive allocation assigns one input per respondent: it needs the one-report strategy"),
    gettext_noop("adaptive allocation needs the frequency-oracle protocol: the Gaussian approaches assign their own "
                 "groups"),
    gettext_noop("the accuracy estimate on randomized test records needs every question in one group: use one group "
                 "or set the validation share to 0"),
    gettext_noop("PCA/DCA applies to LDP surveys only"),
    gettext_noop("the reference sample's prior is on (true) or off (false)"),
    gettext_noop("the reference sample's prior needs the frequency-oracle protocol: numbers kept as numbers "
                 "(Gaussian) have no answer counts"),
    gettext_noop("the reference counts must be tables of numbers"),
    gettext_noop("the reference counts need one (answers × classes) table of counts ≥ 0 per question: refit them "
                 "from the reference sample"),
    gettext_noop("the survey needs a class question"),
    gettext_noop("the class question must be categorical with at least two answers"),
    gettext_noop("a survey needs at least one feature question besides the class"),
    gettext_noop("Gaussian Naive Bayes needs every feature question to be numeric (or discretize them)"),
    gettext_noop("a mixed survey needs both categorical and numeric feature questions"),
    gettext_noop("a mixed survey's numeric questions use the Gaussian handling"),
    gettext_noop("a survey mixing categorical and numeric questions uses Approach 3 (one report per respondent): "
                 "Approaches 1 and 2 report every numeric answer at once"),
    gettext_noop("a survey mixing categorical and numeric questions sends one report per respondent"),
    gettext_noop("the projection must be fitted on exactly the numeric questions"),
    gettext_noop("the groups must put every question in exactly one group"),
    gettext_noop("a question has one condition at most"),
    gettext_noop("a question's condition must be on an earlier question"),
    gettext_noop("a condition's answers must be answers of its question"),
    gettext_noop("a hidden question's answer is the last of its domain"),
)


def engine_message(message: str, params: dict | None = None) -> str:
    """An engine message (``ConfigError.template`` filled from its ``params``, or ``ConfigError.message``) in the
    page's language when it is one of ``ENGINE_MESSAGES``."""
    text = gettext(message) if message else message
    return text % params if params else text


def refusal_message(exc: Exception) -> str:
    """Why the engine refused a survey, in the page's language where the catalogue has it: a ``ConfigError``'s
    template and figures, else the error as raised."""
    template = getattr(exc, "template", None)
    if isinstance(template, str) and template:
        return engine_message(template, getattr(exc, "params", None))
    return str(exc)


def form_message(message: str, params: dict | None = None) -> str:
    """An engine message as a form shows it: a sentence (a leading symbol such as θ or ε keeps its case), in the page's
    language when it is one of ``ENGINE_MESSAGES``."""
    message = engine_message(message, params)
    if message[:1].isascii():
        message = message[:1].upper() + message[1:]
    return message if message.endswith(".") else message + "."


def new_token() -> str:
    return secrets.token_urlsafe(18)


class InvitationToken(models.Model):
    """A one-use invitation. Marked used without any link to the report it allowed: redeeming it returns a blind
    signature (``survey_app.credentials``) on a message the server cannot relate to the credential the report later
    carries (RFC 9474)."""

    survey = models.ForeignKey(Survey, related_name="tokens", on_delete=models.CASCADE)
    token = models.CharField(max_length=40, unique=True, default=new_token, editable=False)
    batch = models.CharField(max_length=100, blank=True)
    used = models.BooleanField(default=False)
    redeemed_with = models.CharField(
        max_length=64, blank=True, default="", editable=False,
        help_text="SHA-256 of the blinded message the token was redeemed with: the same message may be signed again "
                  "(a browser that lost the answer retries), any other is refused. A blinded message is uniformly "
                  "random, independent of the credential (RFC 9474 §7.2).")
    created_on = models.DateField(default=timezone.localdate, editable=False)
    redeemed_on = models.DateField(null=True, blank=True, editable=False, help_text="The day (UTC) it was redeemed.")
    fresh = models.BooleanField(default=False, editable=False,
                                help_text="Redeemed since the last drain, which rewrites these rows with the rest of "
                                          "their day (survey_app.inbox): their system columns then order nothing "
                                          "within the day.")

    class Meta:
        indexes = [models.Index(fields=["survey"], condition=models.Q(fresh=True), name="token_fresh")]

    def __str__(self) -> str:
        state = gettext("used") if self.used else gettext("unused")
        return f"{self.token[:6]}… ({state})"


class SurveyLogo(models.Model):
    """A survey's logo (survey_app/theme.py checks it), kept apart from the survey so that reading a survey never
    reads the image; served at /s/<slug>/logo/<digest>/."""

    survey = models.OneToOneField(Survey, related_name="logo", on_delete=models.CASCADE, primary_key=True)
    data = models.BinaryField()
    content_type = models.CharField(max_length=20)
    digest = models.CharField(max_length=64, help_text=_("SHA-256 of the image: its address changes with it."))

    def __str__(self) -> str:
        return f"logo of {self.survey_id}"


class MailBatch(models.Model):
    """One sending of invitation or reminder mails (``survey_app.mailing``): its progress, counted by the task that
    sends it. Holds no address."""

    class Kind(models.TextChoices):
        INVITATION = "invitation", _("invitations")
        REMINDER = "reminder", _("reminders")

    survey = models.ForeignKey(Survey, related_name="mail_batches", on_delete=models.CASCADE)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    total = models.PositiveIntegerField(default=0)
    sent = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    forget = models.BooleanField(default=False, help_text=_("Forget the addresses once sent."))
    base_url = models.CharField(max_length=200, help_text=_("The site's address the links start with."))
    created_on = models.DateField(default=timezone.localdate, editable=False)
    done = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"{self.kind} of {self.survey_id}: {self.sent + self.failed}/{self.total}"


class InvitationMail(models.Model):
    """An address an invitation was mailed to, and its invitation (one each).

    Written when the designer queues and the task sends, never when the invitation is redeemed or a report arrives:
    whether the invitation was used is read from its token, so no column, and no system column, of this row moves
    with the respondent (docs/threat-model.md). Days only, no times. Deleted when the designer forgets the addresses.
    """

    survey = models.ForeignKey(Survey, related_name="invitation_mails", on_delete=models.CASCADE)
    invitation = models.OneToOneField(InvitationToken, related_name="mail", on_delete=models.CASCADE)
    address = models.EmailField(max_length=254)
    language = models.CharField(max_length=10)
    queued_in = models.ForeignKey(MailBatch, null=True, blank=True, on_delete=models.SET_NULL,
                                  help_text=_("The sending this mail waits for."))
    sent_on = models.DateField(null=True, blank=True)
    reminded_on = models.DateField(null=True, blank=True)
    reminders = models.PositiveSmallIntegerField(default=0)
    failures = models.PositiveSmallIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["survey", "address"], name="one_mail_per_address")]

    def __str__(self) -> str:
        return self.address


#: A report's idempotency nonce: 128 random bits in unpadded base64url (RFC 4648 §5), 22 characters, the last one
#: carrying 2 bits (A, Q, g or w); a resend of a report with a stored nonce is answered as stored, not stored again.
NONCE_CHARS = 22
NONCE_PATTERN = r"^[A-Za-z0-9_-]{21}[AQgw]$"


class Report(models.Model):
    """One folded randomized report, exactly as the browser sent it (already validated by the engine).

    Written only by the fold (``aggregator.services``), which moves reports here from the inbox in the transaction
    that adds them to the statistics, and re-inserts the survey's reports of that day with them, all shuffled and
    under fresh random keys: no key, column, index or physical order ranks reports within a day (docs/aggregator.md)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # db_index=False: the index report_survey_day (survey, received_on) serves lookups by survey as well, and each
    # index is written for every report a fold moves
    survey = models.ForeignKey(Survey, related_name="reports", on_delete=models.PROTECT, db_index=False)
    payload = models.JSONField()
    received_on = models.DateField(default=timezone.localdate, editable=False, help_text="Coarse date only.")
    nonce = models.CharField(max_length=NONCE_CHARS, null=True, blank=True, editable=False,
                             help_text="The report's random idempotency nonce, if it sent one (docs/threat-model.md).")

    class Meta:
        indexes = [models.Index(fields=["survey", "received_on"], name="report_survey_day")]
        constraints = [models.UniqueConstraint(fields=["survey", "nonce"], name="report_survey_nonce")]

    def __str__(self) -> str:
        return f"report {self.pk} of {self.survey_id}"


class PendingReport(models.Model):
    """The inbox: a report accepted but not yet folded (``survey_app.inbox.store_report`` writes it; the next fold
    deletes it and moves it into ``Report``). A random key; a database reader sees these rows arrive until then."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # db_index=False: pending_survey_id (survey, id) serves lookups by survey; one index less for every report POST
    survey = models.ForeignKey(Survey, related_name="pending_reports", on_delete=models.PROTECT, db_index=False)
    payload = models.JSONField()
    received_on = models.DateField(default=timezone.localdate, editable=False, help_text="Coarse date only.")
    nonce = models.CharField(max_length=NONCE_CHARS, null=True, blank=True, editable=False,
                             help_text="The report's random idempotency nonce, if it sent one (docs/threat-model.md).")

    class Meta:
        indexes = [models.Index(fields=["survey", "id"], name="pending_survey_id")]
        constraints = [models.UniqueConstraint(fields=["survey", "nonce"], name="pending_survey_nonce")]

    def __str__(self) -> str:
        return f"pending report {self.pk} of {self.survey_id}"


class SurveyKey(models.Model):
    """A survey's RSA key for unlinkable invitations (RFC 9474 blind signatures; ``aggregator.privacy.blind_rsa``).

    Redeeming an invitation token returns a blind signature by the survey's ``active`` key on a value only the
    browser knows; the report later carries the unblinded value and signature. Every key of the survey verifies
    credentials (so rotation never strands a respondent between redeeming and reporting); only the active one
    signs. The public key is published in the survey's protocol, so every respondent can check they got the same."""

    survey = models.ForeignKey(Survey, related_name="keys", on_delete=models.CASCADE)
    key_id = models.CharField(max_length=64, unique=True, help_text="Hex SHA-256 of the public key (SPKI DER).")
    public_spki = models.TextField(help_text="The public key: base64url of its SPKI DER, as browsers import it.")
    private_pem = models.TextField(help_text="The private key (PKCS#8 PEM). Secret: it signs invitations.")
    active = models.BooleanField(default=True, help_text="Signs new invitations (one active key per survey).")
    created_on = models.DateField(default=timezone.localdate, editable=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["survey"], condition=models.Q(active=True),
                                               name="one_active_key_per_survey")]

    def __str__(self) -> str:
        return f"key {self.key_id[:12]}… of {self.survey_id}{' (active)' if self.active else ''}"


class GatewayKey(models.Model):
    """An X25519 key of this server's Oblivious HTTP gateway (RFC 9458; ``survey_app/ohttp.py``), one for every
    survey, so that a key cannot set one survey's respondents apart. The ``active`` key is the one published; every
    stored key opens requests (so a rotation never strands a page loaded before it)."""

    key_id = models.PositiveSmallIntegerField(unique=True, help_text="The one-byte key identifier (0–255).")
    public_key = models.CharField(max_length=64, help_text="The raw X25519 public key, hex.")
    private_key = models.CharField(max_length=64, help_text="The raw X25519 private key, hex. Secret: it opens "
                                                            "respondents' relayed requests.")
    active = models.BooleanField(default=True, help_text="Published in the protocol of surveys with a relay.")
    created_on = models.DateField(default=timezone.localdate, editable=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["active"], condition=models.Q(active=True),
                                               name="one_active_gateway_key")]

    def __str__(self) -> str:
        return f"gateway key {self.key_id}{' (active)' if self.active else ''}"


class SpentCredential(models.Model):
    """The SHA-256 of a credential's value once a report carrying it was accepted: each credential counts once (the
    primary key is the digest itself, so the table has no order of its own)."""

    digest = models.CharField(max_length=64, primary_key=True)
    # db_index=False: spent_survey_day (survey, day) serves lookups by survey; one index less for every token report
    survey = models.ForeignKey(Survey, related_name="+", on_delete=models.CASCADE, db_index=False)
    fresh = models.BooleanField(default=True, help_text="Spent since the last fold, which rewrites these rows with "
                                                        "the rest of their day (aggregator.services): their system "
                                                        "columns then order nothing within the day.")
    day = models.DateField(null=True, help_text="The day (UTC) it was spent.")

    class Meta:
        indexes = [models.Index(fields=["survey"], condition=models.Q(fresh=True), name="spent_fresh"),
                   models.Index(fields=["survey", "day"], name="spent_survey_day")]

    def __str__(self) -> str:
        return f"spent credential {self.digest[:12]}…"


# -- the engine configuration of a survey (aggregator.privacy.protocol) --------------------------------------------

def _attribute_config(question: Question) -> dict:
    if question.kind == Question.Kind.NUMERIC:
        return {"kind": "numeric", "name": question.name, "low": question.low, "high": question.high}
    return {"kind": "categorical", "name": question.name, "values": question.labels()}


def _feature_configs(question: Question) -> list[dict]:
    """The engine's features of ``question``: one attribute, or for a select-all question one no/yes attribute per
    choice (``Question.feature_names``), so that every mechanism handles it unchanged."""
    if question.kind == Question.Kind.MULTI:
        return [{"kind": "categorical", "name": name, "values": question.labels()} for name in question.feature_names()]
    return [_attribute_config(question)]


def _personal_distributions(q: Question) -> dict[str, list[float]]:
    """The declared personal distributions of ``q``'s features (MRR): a categorical question's choices' shares; a
    select-all question's choice share p is its yes/no feature's [1 − p, p]. None (uniform) with “Prefer not to say”
    or “Not asked”: every answer, these too, then has a stand-in share of 1/d > 0, so sending one never proves it
    true."""
    probs = [c.personal_probability for c in q.choices.all()]
    if q.prefer_not_to_say or q.show_if_question_id is not None or not probs or any(p is None for p in probs):
        return {}
    shares = cast(list[float], probs)  # none is None now
    if q.kind == Question.Kind.CATEGORICAL:
        return {q.name: shares}
    if q.kind == Question.Kind.MULTI:
        return {name: [1.0 - p, p] for name, p in zip(q.feature_names(), shares, strict=True)}
    return {}


def settings_config(survey: Survey, questions: list[Question] | None = None) -> dict:
    """The engine configuration of ``survey`` without its questions: every privacy setting, and given its
    ``questions`` also the MRR attribute groups (their ``group`` numbers) and declared personal distributions (the
    choices' ``personal_probability``; uniform when any is missing, for numeric bins, or with “Prefer not to say”).
    ``Survey.clean`` checks it (``check_settings``); ``protocol_config`` adds the questions."""
    config: dict[str, Any] = {
        "mode": survey.mode,
        "numeric": (
            {"handling": "gaussian", "approach": survey.gaussian_approach}
            if survey.mode == Survey.Mode.LDP and survey.numeric_handling == Survey.NumericHandling.GAUSSIAN
            else {"handling": "discretize", "bins": survey.numeric_bins}
        ),
        "validation": {"share": survey.validation_share},
    }
    if survey.mode == Survey.Mode.LDP and survey.projection != Survey.Projection.NONE and survey.projection_params:
        config["projection"] = survey.projection_params
    if survey.mode == Survey.Mode.LDP:
        config["ldp"] = {
            "epsilon": survey.epsilon,
            "encoding": survey.encoding,
            "parameters": survey.encoding_parameters or {},
            "strategy": survey.strategy,
            "postprocess": survey.postprocess,
            "allocation": survey.allocation,
            "reference_prior": survey.reference_prior,
        }
        if survey.reference_prior and survey.reference_counts is not None:
            config["ldp"]["reference_counts"] = survey.reference_counts
    else:
        config["mrr"] = {"theta": survey.theta, "postprocess": survey.postprocess}
        if questions is not None:
            groups: dict[int, list[str]] = {}
            # A select-all question's yes/no features are in its group, with its personal mode (simulated).
            for q in questions:
                for name in q.feature_names():  # none for a select-all question without choices yet
                    groups.setdefault(q.group, []).append(name)
            personal = {}
            for q in questions:
                personal.update(_personal_distributions(q))
            config["mrr"].update({
                "groups": [groups[g] for g in sorted(groups)] if len(groups) > 1 else None,
                "personal": personal,
                "personal_mode": {name: q.personal_mode for q in questions for name in q.feature_names()},
            })
    return config


def protocol_config(survey: Survey) -> dict:
    """The engine configuration of ``survey`` (see ``aggregator.privacy.protocol``): its settings
    (``settings_config``) and its questions."""
    questions = list(survey.questions.prefetch_related("choices"))
    if survey.mode == Survey.Mode.MRR and any(q.kind == Question.Kind.MULTI and q.prefer_not_to_say
                                              for q in questions):
        raise ConfigError("features", str(MULTI_PREFER_NOT_UNDER_MRR))
    for q in questions:  # what a question saved without its checks (its own page, a bulk write) can still lack
        if q.show_if_question_id is not None or q.prefer_not_to_say:
            for error in q.skip_errors().values():
                raise ConfigError("features", "%s: %s" % (q.name, " ".join(error.messages)))
        if q.kind == Question.Kind.MULTI and len(q.choices.all()) < 2:
            raise ConfigError("features", gettext("the select-all question “%(name)s” needs at least 2 choices")
                              % {"name": q.name})
        if q.kind == Question.Kind.NUMERIC and (q.low is None or q.high is None):
            raise ConfigError("features", gettext("the numeric question “%(name)s” needs public lower and upper "
                                                  "bounds") % {"name": q.name})
    class_questions = [q for q in questions if q.is_class]
    features = [q for q in questions if not q.is_class]
    try:  # the engine's own check of the rules over the features' domains (aggregator/privacy/skip.py)
        skip_check(skip_rules(questions), [len(q.labels()) for q in features for _ in q.feature_names()])
    except ValueError as exc:
        raise ConfigError("features", str(exc)) from None
    return {
        "class": _attribute_config(class_questions[0]) if class_questions else None,
        "features": [config for q in features for config in _feature_configs(q)],
        **settings_config(survey, questions),
    }


def skip_rules(questions) -> list:
    """The skip logic of ``questions`` (a survey's, in order) as the engine's rules over its features
    (``aggregator.privacy.skip.SkipRule``: feature indices, the codes that show a question, its “Not asked”)."""
    from aggregator.privacy.skip import SkipRule

    features = [name for q in questions if not q.is_class for name in q.feature_names()]
    by_id = {q.pk: q for q in questions}
    rules = []
    for q in questions:
        gate = by_id.get(q.show_if_question_id)
        if gate is None or q.is_class or q.name not in features or gate.name not in features:
            continue
        rules.append(SkipRule(features.index(q.name), features.index(gate.name), frozenset(q.show_if_codes()),
                              len(q.labels()) - 1))
    return rules


#: Why a survey that starts from its reference sample may not open without the sample's counts.
REFERENCE_NOT_COUNTED = _("The reference sample's answers per class are not counted for the current questions: save "
                          "the draft again, which counts them (its message says what does not fit), or untick "
                          "“Start from the reference sample”.")


def opening_refusal(survey: Survey) -> str | None:
    """Why ``survey`` (its settings as in memory, its saved questions) may not open, in the page's language, or
    ``None``: the engine refuses its protocol (a class question with two answers or more, features, …), or the
    settings give no privacy for some question (``SurveyProtocol.unprotected``: ε = ∞ against every reader)."""
    try:  # the engine itself, uncached (survey_app.protocol imports this module): opening is rare
        protocol = build(protocol_config(survey))
        unprotected = protocol.unprotected()
    except ValueError as exc:
        return refusal_message(exc)
    if unprotected:
        return str(NO_PRIVACY) % {"questions": ", ".join(unprotected)}
    if survey.reference_prior and not protocol.reference_prior_ready:
        return str(REFERENCE_NOT_COUNTED)
    return None
