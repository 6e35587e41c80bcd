"""The catalog's fixed vocabularies (re-exported by `catalog.models`, where callers read them)."""

from django.db import models


class CapacityModel(models.TextChoices):
    ON_DEMAND = "on_demand", "On-demand"
    SPOT = "spot", "Spot / preemptible"
    RESERVED = "reserved", "Reserved"
    MARKETPLACE = "marketplace", "Marketplace"
    DEDICATED_CLUSTER = "dedicated_cluster", "Dedicated cluster"
    PRIVATE_CLOUD = "private_cloud", "Private cloud"
    MANAGED_ENDPOINT = "managed_endpoint", "Managed endpoint"
    PURCHASE = "purchase", "Purchase"


class PriceUnit(models.TextChoices):
    """The unit a quote's price is stated in; the comparison converts it per GPU-hour."""

    GPU_HOUR = "gpu_hour", "per GPU-hour"
    NODE_HOUR = "node_hour", "per node-hour"
    INSTANCE_HOUR = "instance_hour", "per instance-hour"


class UnitOfSale(models.TextChoices):
    """What fixed capacity is sold in: single GPUs, or whole nodes (the smallest block)."""

    NOT_STATED = "", "not stated (costed by the GPU, with a warning)"
    GPU = "gpu", "by the GPU"
    NODE = "node", "by the whole node"


class PrivateEndpoint(models.TextChoices):
    """Whether an offer can be reached without crossing the public internet (private link,
    VPC peering or an equivalent); a brief that requires one is checked against it."""

    YES = "yes", "Offered"
    NO = "no", "Not offered"
    UNKNOWN = "unknown", "Not stated"
