"""Plans and results point at the brief in its new app (state only: tables unchanged)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('benchmarks', '0002_initial'),
        ('briefs', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='benchmarkplan',
                    name='brief',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='plans', to='briefs.workloadbrief'),
                ),
                migrations.AlterField(
                    model_name='benchmarkresult',
                    name='brief',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='results', to='briefs.workloadbrief'),
                ),
            ],
            database_operations=[],
        ),
    ]
