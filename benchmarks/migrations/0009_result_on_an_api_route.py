"""A benchmark result of a hosted model API names its API route: no accelerator, no GPU count."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('benchmarks', '0008_result_model_profile'),
        ('catalog', '0014_calibration_cost_entries'),
    ]

    operations = [
        migrations.AddField(
            model_name='benchmarkresult',
            name='api_route',
            field=models.ForeignKey(blank=True, help_text='The hosted model API measured, for a run against an API (no GPUs).', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='benchmark_results', to='catalog.modelapiroute'),
        ),
        migrations.AlterField(
            model_name='benchmarkresult',
            name='accelerator',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='results', to='catalog.accelerator'),
        ),
        migrations.AlterField(
            model_name='benchmarkresult',
            name='gpu_count',
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddConstraint(
            model_name='benchmarkresult',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('accelerator__isnull', False), ('api_route__isnull', True), ('gpu_count__isnull', False)), models.Q(('accelerator__isnull', True), ('api_route__isnull', False), ('gpu_count__isnull', True), ('quote__isnull', True)), _connector='OR'), name='result_on_gpus_or_on_an_api_route'),
        ),
    ]
