"""Fold bookkeeping by batch, not by id (issue 11 item 2): no watermark; a partial lists the inbox rows it covers.

Partials stored before (id ranges) are dropped: they are only a cache of statistics of reports still pending, which
the next fold reads again."""
from django.db import migrations, models


def drop_partials(apps, schema_editor):
    apps.get_model("aggregator", "PartialStatistics").objects.all().delete()


class Migration(migrations.Migration):

    dependencies = [
        ('aggregator', '0005_plausibility'),
        ('survey_app', '0006_report_inbox'),  # which reads the watermark to split the reports
    ]

    operations = [
        migrations.RunPython(drop_partials, migrations.RunPython.noop),
        migrations.RemoveConstraint(model_name='partialstatistics', name='shard_range_not_empty'),
        migrations.RemoveConstraint(model_name='partialstatistics', name='unique_shard_start_per_survey'),
        migrations.AlterModelOptions(name='partialstatistics', options={'verbose_name_plural': 'partial statistics'}),
        migrations.RemoveField(model_name='partialstatistics', name='first_id'),
        migrations.RemoveField(model_name='partialstatistics', name='last_id'),
        migrations.RemoveField(model_name='partialstatistics', name='created_at'),
        migrations.AddField(
            model_name='partialstatistics',
            name='pending',
            field=models.JSONField(default=list, help_text='Ids of the inbox rows (PendingReport) it covers, as strings.'),
            preserve_default=False,
        ),
        migrations.RemoveField(model_name='surveystatistics', name='watermark'),
    ]
