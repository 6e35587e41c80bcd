from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("procurement", "0014_heartbeat_stored_candidate_count"),
    ]

    operations = [
        migrations.AddField(
            model_name="comparison",
            name="chosen",
            field=models.JSONField(blank=True, default=dict, editable=False),
        ),
    ]
