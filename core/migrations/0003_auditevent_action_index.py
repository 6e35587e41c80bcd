from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("core", "0002_audit_hmac_checkpoints"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="auditevent",
            index=models.Index(fields=["action", "-created_at"], name="audit_action_created_idx"),
        ),
    ]
