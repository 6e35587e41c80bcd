from django.apps import AppConfig


class BenchmarksConfig(AppConfig):
    """Benchmark plans and uploaded benchmark results."""

    name = "benchmarks"
