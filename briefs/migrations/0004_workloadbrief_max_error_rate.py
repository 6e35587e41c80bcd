from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("briefs", "0003_workloadbrief_billed_token_type"),
    ]

    operations = [
        migrations.AddField(
            model_name="workloadbrief",
            name="max_error_rate",
            field=models.FloatField(blank=True, null=True),
        ),
    ]
