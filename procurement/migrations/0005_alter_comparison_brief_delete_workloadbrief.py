"""The brief model now lives in `briefs` (state only: its table stays, with this name)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('benchmarks', '0003_alter_benchmarkplan_brief_and_more'),
        ('briefs', '0001_initial'),
        ('catalog', '0003_alter_rfq_brief'),
        ('procurement', '0004_auditevent_to_core'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='comparison',
                    name='brief',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='comparisons', to='briefs.workloadbrief'),
                ),
                migrations.DeleteModel(
                    name='WorkloadBrief',
                ),
            ],
            database_operations=[],
        ),
    ]
