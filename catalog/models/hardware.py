"""Accelerators and the model profiles they serve."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.urls import reverse


class Accelerator(models.Model):
    """A GPU or AI accelerator with datasheet figures (dense tensor figures, GB = 10^9 bytes)."""

    class Segment(models.TextChoices):
        DATACENTER = "datacenter", "Datacenter"
        WORKSTATION = "workstation", "Workstation"
        CONSUMER = "consumer", "Consumer"

    slug = models.SlugField(max_length=80, unique=True)
    vendor = models.CharField(max_length=40)
    name = models.CharField(max_length=120)
    architecture = models.CharField(max_length=60)
    form_factor = models.CharField(max_length=60)
    memory_gb = models.FloatField()
    memory_type = models.CharField(max_length=20)
    memory_bandwidth_tbps = models.FloatField()
    bf16_dense_tflops = models.FloatField()
    fp8_dense_tflops = models.FloatField(null=True, blank=True)
    fp4_dense_tflops = models.FloatField(null=True, blank=True)
    int8_dense_tops = models.FloatField(null=True, blank=True)
    supported_precisions = models.JSONField(default=list)
    interconnect = models.CharField(max_length=80)
    interconnect_gbps = models.FloatField(null=True, blank=True)
    pcie_gen = models.PositiveSmallIntegerField(null=True, blank=True)
    tdp_w = models.PositiveIntegerField(null=True, blank=True)
    mig_instances = models.PositiveSmallIntegerField(default=0)
    launch_year = models.PositiveSmallIntegerField(null=True, blank=True)
    segment = models.CharField(max_length=20, choices=Segment.choices)
    max_gpus_per_node = models.PositiveSmallIntegerField(default=8)
    source_url = models.URLField(max_length=500)
    verified_on = models.DateField(null=True, blank=True)
    notes = models.TextField(blank=True)
    # The catalog page's price column, set by selectors.with_current_prices (not stored).
    lowest_usd_per_gpu_hour: Decimal | None
    usd_offers: int | None

    class Meta:
        ordering = ["vendor", "name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("catalog:accelerator-detail", args=[self.slug])


class ModelProfile(models.Model):
    """An AI model's architecture numbers, as memory sizing needs them."""

    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=120)
    family = models.CharField(max_length=60, blank=True)
    params_total_b = models.FloatField(validators=[MinValueValidator(0.001)])
    params_active_b = models.FloatField(validators=[MinValueValidator(0.001)])
    layers = models.PositiveIntegerField()
    hidden_size = models.PositiveIntegerField(null=True, blank=True)
    attention_heads = models.PositiveIntegerField(null=True, blank=True)
    kv_heads = models.PositiveIntegerField()
    head_dim = models.PositiveIntegerField()
    mla_latent_dim = models.PositiveIntegerField(null=True, blank=True)
    sliding_window = models.PositiveIntegerField(null=True, blank=True)
    sliding_window_layers = models.PositiveIntegerField(default=0)
    max_context = models.PositiveIntegerField(null=True, blank=True)
    # M-1: a quantised checkpoint keeps the embeddings and the output head in 16 bits; their
    # size is vocab × hidden (twice unless tied). Blank: the memory fit says it is not counted.
    vocab_size = models.PositiveIntegerField(null=True, blank=True)
    tied_embeddings = models.BooleanField(
        default=False, help_text="The output head shares the embedding matrix."
    )
    license = models.CharField(max_length=80, blank=True)
    published_precision = models.CharField(
        max_length=8,
        blank=True,
        help_text="The precision the published weights are stored in (config.json's "
        "torch_dtype or quantization_config), which a server's dtype 'auto' runs them at. "
        "Blank: not recorded.",
    )
    source_url = models.URLField(max_length=500, blank=True)
    notes = models.TextField(blank=True)
    # An upload binds a file's model name to the profile by these (catalog/model_names.py).
    aliases = models.JSONField(
        default=list,
        blank=True,
        help_text="Other names of this model: Hugging Face ids, Ollama or LiteLLM names.",
    )
    is_custom = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )

    class Meta:
        ordering = ["family", "name"]

    def __str__(self) -> str:
        return self.name
