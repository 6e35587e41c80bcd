"""Comparison.snapshot_facts: what the pages show of the snapshot, so none reads it whole."""

from django.db import migrations, models

FACTS = ("as_of", "base_currency", "fx_rates")


def copy_facts(apps, schema_editor):
    Comparison = apps.get_model("procurement", "Comparison")
    ids = list(Comparison.objects.order_by("pk").values_list("pk", flat=True))
    for pk in ids:  # one snapshot in memory at a time
        snapshot = Comparison.objects.values_list("snapshot", flat=True).get(pk=pk) or {}
        facts = {k: snapshot[k] for k in FACTS if k in snapshot}
        Comparison.objects.filter(pk=pk).update(snapshot_facts=facts)


class Migration(migrations.Migration):
    dependencies = [
        ("procurement", "0005_alter_comparison_brief_delete_workloadbrief"),
    ]

    operations = [
        migrations.AddField(
            model_name="comparison",
            name="snapshot_facts",
            field=models.JSONField(blank=True, default=dict, editable=False),
        ),
        migrations.RunPython(copy_facts, migrations.RunPython.noop),
    ]
