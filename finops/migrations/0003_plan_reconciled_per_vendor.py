from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("finops", "0002_actual_outputs_from_the_api")]

    operations = [
        migrations.AddField(
            model_name="billingimport",
            name="by_provider",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name="reconciliation",
            name="vendors",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
