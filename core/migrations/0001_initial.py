"""The audit trail moves from the decisions app to the kernel: state only, same table."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("procurement", "0003_comparison_claimed_by"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="AuditEvent",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("actor_name", models.CharField(blank=True, max_length=150)),
                        ("action", models.CharField(max_length=60)),
                        ("object_type", models.CharField(max_length=60)),
                        ("object_id", models.CharField(max_length=40)),
                        ("object_repr", models.CharField(blank=True, max_length=300)),
                        ("summary", models.JSONField(blank=True, default=dict)),
                        ("outcome", models.CharField(default="ok", max_length=20)),
                        ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                        ("prev_hash", models.CharField(blank=True, max_length=64)),
                        ("row_hash", models.CharField(blank=True, max_length=64)),
                        ("actor", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="+", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "db_table": "procurement_auditevent",
                        "ordering": ["-created_at", "-id"],
                        "indexes": [models.Index(fields=["object_type", "object_id"], name="procurement_object__92e3c8_idx")],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
