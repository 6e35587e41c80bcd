"""The audit trail now belongs to the kernel (`core.AuditEvent`); the table stays."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("procurement", "0003_comparison_claimed_by"),
        ("core", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="AuditEvent")],
            database_operations=[],
        ),
    ]
