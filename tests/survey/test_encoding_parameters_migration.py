"""Migration 0017: THE's threshold moves from its own column into the generic ``encoding_parameters`` (a THE survey's
t kept, another encoding's stale t dropped), and back when the migration is reversed."""
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("survey_app", "0016_ohttp_relay")]
AFTER = [("survey_app", "0017_encoding_parameters")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_the_threshold_moves_into_the_parameters_and_back():
    try:
        old = migrate(BEFORE).get_model("survey_app", "Survey")
        old.objects.create(title="t", slug="the", encoding="the", the_threshold=0.25)
        old.objects.create(title="o", slug="oue", encoding="oue", the_threshold=0.4)
        old.objects.create(title="d", slug="default", encoding="the")
        new = migrate(AFTER).get_model("survey_app", "Survey")
        assert {s.slug: s.encoding_parameters for s in new.objects.all()} == {
            "the": {"threshold": 0.25}, "oue": {}, "default": {}}
        old = migrate(BEFORE).get_model("survey_app", "Survey")
        assert {s.slug: s.the_threshold for s in old.objects.all()} == {"the": 0.25, "oue": None, "default": None}
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
