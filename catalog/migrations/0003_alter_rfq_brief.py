"""RFQs point at the brief in its new app (state only: the table and FK are unchanged)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('briefs', '0001_initial'),
        ('catalog', '0002_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='rfq',
                    name='brief',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='rfqs', to='briefs.workloadbrief'),
                ),
            ],
            database_operations=[],
        ),
    ]
