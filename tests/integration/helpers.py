"""Shared helpers of the folding tests: the statistics folded from scratch and the stored ones, to compare."""
from aggregator.models import SurveyStatistics
from aggregator.privacy.jsonable import json_safe
from survey_app.models import PendingReport, Report
from survey_app.protocol import get_protocol


def from_scratch(survey, folded_only: bool = False) -> dict:
    """What folding every stored report at once gives — ``Report`` and the inbox; with ``folded_only``, ``Report``
    alone (every row of which must be folded): the reference every test compares with. Equal to the stored statistics
    after a full retrain, it says each report was folded exactly once and none was left in the inbox."""
    protocol = get_protocol(survey)
    payloads = list(Report.objects.filter(survey=survey).values_list("payload", flat=True))
    if not folded_only:
        payloads += PendingReport.objects.filter(survey=survey).values_list("payload", flat=True)
    training, validating = protocol.split(payloads)
    return {"stats": json_safe(protocol.stats_to_dict(protocol.fold(training))),
            "validation": json_safe(protocol.validation_to_dict(protocol.fold_validation(validating))),
            "report_count": len(training), "validation_count": len(validating)}


def stored(survey) -> dict:
    """The survey's stored running statistics — the closed days' and the open days' together (closed in memory,
    ``services.close_days``) — in ``from_scratch``'s form."""
    from aggregator import services
    from tests.factories import after_midnight

    row = SurveyStatistics.objects.get(survey=survey)
    services.close_days(get_protocol(survey), row, now=after_midnight(30))
    return {"stats": row.stats, "validation": row.validation, "report_count": row.report_count,
            "validation_count": row.validation_count}
