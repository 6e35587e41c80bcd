"""Which candidates have a row in a finished comparison, kept by the benchmarks app.

Filled once from the comparisons that exist; from then on the decisions app reports it.
"""

import django.db.models.deletion
from django.db import migrations, models


FINISHED = ("ready", "approved", "rejected", "changes_requested")


def fill(apps, schema_editor):
    CandidateResult = apps.get_model("procurement", "CandidateResult")
    ComparedCandidate = apps.get_model("benchmarks", "ComparedCandidate")
    pairs = (
        CandidateResult.objects.filter(quote__isnull=False, comparison__status__in=FINISHED)
        .values_list("comparison__brief_id", "quote_id")
        .distinct()
    )
    ComparedCandidate.objects.bulk_create(
        [ComparedCandidate(brief_id=b, quote_id=q) for b, q in pairs], ignore_conflicts=True
    )


class Migration(migrations.Migration):

    dependencies = [
        ('procurement', '0005_alter_comparison_brief_delete_workloadbrief'),
        ('benchmarks', '0003_alter_benchmarkplan_brief_and_more'),
        ('briefs', '0001_initial'),
        ('catalog', '0003_alter_rfq_brief'),
    ]

    operations = [
        migrations.CreateModel(
            name='ComparedCandidate',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('first_compared_at', models.DateTimeField(auto_now_add=True)),
                ('brief', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='briefs.workloadbrief')),
                ('quote', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='catalog.quote')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('brief', 'quote'), name='one_compared_candidate')],
            },
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
