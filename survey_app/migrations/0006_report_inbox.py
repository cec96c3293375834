"""Storage that forgets order (issue 11 item 2): the inbox ``PendingReport`` and ``Report`` under random UUID keys.

Existing rows move by their folding state: a report with ``id ≤`` its survey's ``SurveyStatistics.watermark`` is folded
and goes to ``Report``; any other is pending and goes to the inbox. Both are inserted in shuffled order under fresh
random keys, so the sequential ids (and the insertion order) are forgotten. Irreversible: the order is gone."""
import uuid

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

CHUNK = 2000


def _tables(apps):
    meta = [apps.get_model(*name)._meta for name in (("survey_app", "Report"), ("survey_app", "ReportNew"),
                                                     ("survey_app", "PendingReport"),
                                                     ("aggregator", "SurveyStatistics"))]
    return [m.db_table for m in meta]


def split_reports(apps, schema_editor):
    connection = schema_editor.connection
    quote = connection.ops.quote_name
    old, new, pending, statistics = (quote(t) for t in _tables(apps))
    if connection.vendor == "postgresql":
        columns = "(id, survey_id, payload, received_on)"
        select = (f"SELECT gen_random_uuid(), r.survey_id, r.payload, r.received_on FROM {old} r "
                  f"LEFT JOIN {statistics} s ON s.survey_id = r.survey_id")
        with connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO {new} {columns} {select} WHERE r.id <= s.watermark ORDER BY random()")
            cursor.execute(f"INSERT INTO {pending} {columns} {select} "
                           f"WHERE s.watermark IS NULL OR r.id > s.watermark ORDER BY random()")
            # Check the new rows' deferred foreign keys now: the rename below may not ALTER a table with pending checks.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        return
    # Other databases (the embedded SQLite: small): shuffled in Python with the system's secure random source.
    import random
    Old, New, Pending = (apps.get_model("survey_app", n) for n in ("Report", "ReportNew", "PendingReport"))
    watermarks = dict(apps.get_model("aggregator", "SurveyStatistics").objects.values_list("survey_id", "watermark"))
    folded, waiting = [], []
    for id_, survey_id, payload, day in Old.objects.order_by("id").values_list("id", "survey_id", "payload",
                                                                                  "received_on").iterator(CHUNK):
        (folded if id_ <= watermarks.get(survey_id, 0) else waiting).append((survey_id, payload, day))
    shuffle = random.SystemRandom().shuffle
    for rows, model in ((folded, New), (waiting, Pending)):
        shuffle(rows)
        model.objects.bulk_create([model(id=uuid.uuid4(), survey_id=s, payload=p, received_on=d) for s, p, d in rows],
                                  batch_size=CHUNK)


class Migration(migrations.Migration):

    dependencies = [
        ('survey_app', '0005_credentials'),
        ('aggregator', '0005_plausibility'),
    ]

    operations = [
        migrations.CreateModel(
            name='PendingReport',
            fields=[
                ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ('payload', models.JSONField()),
                ('received_on', models.DateField(default=django.utils.timezone.localdate, editable=False, help_text='Coarse date only.')),
                ('survey', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='pending_reports', to='survey_app.survey')),
            ],
            options={
                'indexes': [models.Index(fields=['survey', 'id'], name='pending_survey_id')],
            },
        ),
        migrations.CreateModel(
            name='ReportNew',
            fields=[
                ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ('payload', models.JSONField()),
                ('received_on', models.DateField(default=django.utils.timezone.localdate, editable=False, help_text='Coarse date only.')),
                ('survey', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='survey_app.survey')),
            ],
            options={
                'indexes': [models.Index(fields=['survey', 'received_on'], name='report_survey_day')],
            },
        ),
        migrations.RunPython(split_reports),
        migrations.DeleteModel(name='Report'),
        migrations.RenameModel(old_name='ReportNew', new_name='Report'),
        migrations.AlterField(
            model_name='report',
            name='survey',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='reports', to='survey_app.survey'),
        ),
    ]
