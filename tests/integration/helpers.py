"""Shared helpers of the sharded-folding tests: the statistics folded from scratch and the stored ones, to compare."""
from aggregator.models import SurveyStatistics
from aggregator.privacy.jsonable import json_safe
from survey_app.models import Report
from survey_app.protocol import get_protocol


def from_scratch(survey) -> dict:
    """What folding every stored report at once gives: the reference every test compares with."""
    protocol = get_protocol(survey)
    training, validating = protocol.split([r.payload for r in Report.objects.filter(survey=survey).order_by("id")])
    return {"stats": json_safe(protocol.stats_to_dict(protocol.fold(training))),
            "validation": json_safe(protocol.validation_to_dict(protocol.fold_validation(validating))),
            "report_count": len(training), "validation_count": len(validating)}


def stored(survey) -> dict:
    """The survey's stored running statistics, in ``from_scratch``'s form."""
    row = SurveyStatistics.objects.get(survey=survey)
    return {"stats": row.stats, "validation": row.validation, "report_count": row.report_count,
            "validation_count": row.validation_count}
