"""Settings of the load benchmark: the product's, plus the baseline route (bench.urls).

Only `make bench` uses this module (DJANGO_SETTINGS_MODULE=bench.settings for its gunicorn):
the baseline view never exists in the product's URLs.
"""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
