"""The encoding's extra settings in one generic field (``Survey.encoding_parameters``, the oracle's own
``parameters``) instead of a field per oracle: THE's threshold t moves into it."""
from django.db import migrations, models


def threshold_into_parameters(apps, schema_editor):
    Survey = apps.get_model("survey_app", "Survey")
    for survey in Survey.objects.exclude(the_threshold=None).only("pk", "encoding", "the_threshold"):
        parameters = {"threshold": survey.the_threshold} if survey.encoding == "the" else {}
        Survey.objects.filter(pk=survey.pk).update(encoding_parameters=parameters)


def parameters_into_threshold(apps, schema_editor):
    Survey = apps.get_model("survey_app", "Survey")
    for survey in Survey.objects.filter(encoding="the").only("pk", "encoding_parameters"):
        threshold = (survey.encoding_parameters or {}).get("threshold")
        if threshold is not None:
            Survey.objects.filter(pk=survey.pk).update(the_threshold=threshold)


class Migration(migrations.Migration):

    dependencies = [
        ("survey_app", "0016_ohttp_relay"),
    ]

    operations = [
        migrations.AddField(
            model_name="survey",
            name="encoding_parameters",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(threshold_into_parameters, parameters_into_threshold),
        migrations.RemoveField(
            model_name="survey",
            name="the_threshold",
        ),
    ]
