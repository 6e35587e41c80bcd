from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('briefs', '0001_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='workloadbrief',
            name='allow_model_substitution',
            field=models.BooleanField(default=False, help_text='A route or offer serving another model may be recommended.'),
        ),
    ]
