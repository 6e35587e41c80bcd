"""The brief model moves from the decisions app to its own app: state only, same table."""

import django.core.validators
import django.db.models.deletion
from decimal import Decimal
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('catalog', '0002_initial'),
        ('procurement', '0004_auditevent_to_core'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='WorkloadBrief',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('title', models.CharField(max_length=200)),
                        ('version', models.PositiveIntegerField(default=1)),
                        ('workload_class', models.CharField(choices=[('training', 'Pre-training / training'), ('full_finetune', 'Full fine-tuning'), ('adapter_finetune', 'Adapter fine-tuning (LoRA / QLoRA)'), ('batch_inference', 'Batch inference'), ('realtime_inference', 'Real-time inference'), ('retrieval', 'Retrieval pipeline'), ('media', 'Media generation'), ('evaluation', 'Evaluation')], max_length=30)),
                        ('description', models.TextField(blank=True)),
                        ('weight_precision', models.CharField(choices=[('fp32', 'FP32'), ('bf16', 'BF16'), ('fp16', 'FP16'), ('fp8', 'FP8'), ('int8', 'INT8'), ('int4', 'INT4'), ('fp4', 'FP4')], default='bf16', max_length=8)),
                        ('kv_precision', models.CharField(choices=[('fp32', 'FP32'), ('bf16', 'BF16'), ('fp16', 'FP16'), ('fp8', 'FP8'), ('int8', 'INT8'), ('int4', 'INT4'), ('fp4', 'FP4')], default='bf16', max_length=8)),
                        ('context_window_tokens', models.PositiveIntegerField(blank=True, null=True)),
                        ('p95_input_tokens', models.PositiveIntegerField(blank=True, null=True)),
                        ('p95_output_tokens', models.PositiveIntegerField(blank=True, null=True)),
                        ('mean_input_tokens', models.PositiveIntegerField(blank=True, null=True)),
                        ('mean_output_tokens', models.PositiveIntegerField(blank=True, null=True)),
                        ('streaming', models.BooleanField(default=True)),
                        ('concurrency', models.PositiveIntegerField(blank=True, null=True)),
                        ('batch_size', models.PositiveIntegerField(blank=True, null=True)),
                        ('ttft_p95_ms', models.PositiveIntegerField(blank=True, null=True)),
                        ('itl_p95_ms', models.PositiveIntegerField(blank=True, null=True)),
                        ('e2e_p99_ms', models.PositiveIntegerField(blank=True, null=True)),
                        ('peak_to_average', models.FloatField(default=2.0, validators=[django.core.validators.MinValueValidator(1.0)])),
                        ('monthly_accepted_outputs_low', models.FloatField(blank=True, null=True, validators=[django.core.validators.MinValueValidator(0.0)])),
                        ('monthly_accepted_outputs_likely', models.FloatField(blank=True, null=True, validators=[django.core.validators.MinValueValidator(0.0)])),
                        ('monthly_accepted_outputs_high', models.FloatField(blank=True, null=True, validators=[django.core.validators.MinValueValidator(0.0)])),
                        ('acceptance_rate_low', models.FloatField(blank=True, null=True, validators=[django.core.validators.MinValueValidator(0.0), django.core.validators.MaxValueValidator(1.0)])),
                        ('acceptance_rate_likely', models.FloatField(blank=True, null=True, validators=[django.core.validators.MinValueValidator(0.0), django.core.validators.MaxValueValidator(1.0)])),
                        ('acceptance_rate_high', models.FloatField(blank=True, null=True, validators=[django.core.validators.MinValueValidator(0.0), django.core.validators.MaxValueValidator(1.0)])),
                        ('failure_rate_low', models.FloatField(blank=True, null=True, validators=[django.core.validators.MinValueValidator(0.0), django.core.validators.MaxValueValidator(1.0)])),
                        ('failure_rate_likely', models.FloatField(blank=True, null=True, validators=[django.core.validators.MinValueValidator(0.0), django.core.validators.MaxValueValidator(1.0)])),
                        ('failure_rate_high', models.FloatField(blank=True, null=True, validators=[django.core.validators.MinValueValidator(0.0), django.core.validators.MaxValueValidator(1.0)])),
                        ('utilisation_low', models.FloatField(blank=True, null=True, validators=[django.core.validators.MinValueValidator(0.0), django.core.validators.MaxValueValidator(1.0)])),
                        ('utilisation_likely', models.FloatField(blank=True, null=True, validators=[django.core.validators.MinValueValidator(0.0), django.core.validators.MaxValueValidator(1.0)])),
                        ('utilisation_high', models.FloatField(blank=True, null=True, validators=[django.core.validators.MinValueValidator(0.0), django.core.validators.MaxValueValidator(1.0)])),
                        ('training_tokens_b', models.FloatField(blank=True, help_text='Billions of tokens.', null=True)),
                        ('sequence_length', models.PositiveIntegerField(blank=True, null=True)),
                        ('global_batch_tokens', models.PositiveIntegerField(blank=True, null=True)),
                        ('optimizer', models.CharField(blank=True, default='adamw', max_length=40)),
                        ('sharding', models.CharField(blank=True, default='zero3', max_length=40)),
                        ('lora_rank', models.PositiveIntegerField(blank=True, null=True)),
                        ('checkpoint_size_gb', models.FloatField(blank=True, null=True)),
                        ('checkpoint_interval_min', models.FloatField(blank=True, null=True)),
                        ('checkpoint_write_s', models.FloatField(blank=True, null=True)),
                        ('restart_time_min', models.FloatField(blank=True, null=True)),
                        ('expected_mfu', models.FloatField(blank=True, null=True, validators=[django.core.validators.MinValueValidator(0.0), django.core.validators.MaxValueValidator(1.0)])),
                        ('node_failure_rate_per_day', models.FloatField(blank=True, null=True)),
                        ('target_gpus', models.PositiveIntegerField(blank=True, null=True)),
                        ('run_success_probability', models.FloatField(blank=True, null=True, validators=[django.core.validators.MinValueValidator(0.0), django.core.validators.MaxValueValidator(1.0)])),
                        ('media_kind', models.CharField(blank=True, max_length=20)),
                        ('gpu_seconds_per_asset', models.FloatField(blank=True, null=True)),
                        ('moderation_cost_per_asset', models.DecimalField(blank=True, decimal_places=4, max_digits=10, null=True)),
                        ('review_minutes_per_asset', models.FloatField(blank=True, null=True)),
                        ('allowed_regions', models.JSONField(blank=True, default=list)),
                        ('private_endpoint_required', models.BooleanField(default=False)),
                        ('residency_notes', models.TextField(blank=True)),
                        ('operating_model', models.CharField(choices=[('self_managed', 'We run drivers, CUDA, serving stack and scheduler'), ('shared', 'Provider runs the platform, we run the serving stack'), ('managed', 'Fully managed endpoint or model API')], default='self_managed', max_length=20)),
                        ('platform_fte', models.FloatField(blank=True, null=True, validators=[django.core.validators.MinValueValidator(0.0)])),
                        ('loaded_monthly_cost_per_fte', models.DecimalField(blank=True, decimal_places=2, default=Decimal('18000'), max_digits=12, null=True)),
                        ('storage_gb', models.FloatField(blank=True, null=True)),
                        ('egress_gb_month', models.FloatField(blank=True, null=True)),
                        ('horizon_months', models.PositiveIntegerField(default=12)),
                        ('expected_model_churn_months', models.PositiveIntegerField(blank=True, null=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('created_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('model', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='catalog.modelprofile')),
                        ('supersedes', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='superseded_by', to='briefs.workloadbrief')),
                    ],
                    options={
                        'db_table': 'procurement_workloadbrief',
                        'ordering': ['-created_at'],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
