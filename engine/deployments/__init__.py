"""Deployments, not offers: an offer in a configuration, with the fleet it implies.

- ``configurations``: the configurations an offer can run in (GPUs per replica, tensor /
  pipeline / expert parallelism, precision, serving engine), each costed, the cheapest kept;
- ``fleet``: replicas, GPUs and nodes at the average and at the peak, and what is bought;
- ``assess``: one candidate's eligibility, warnings and point estimate, shared by the
  configuration choice and the ranking so both judge a row the same way.
"""

from engine.deployments.assess import assess
from engine.deployments.configurations import (
    Configuration,
    ConfigurationVerdict,
    choose_configuration,
)
from engine.deployments.fleet import Fleet

__all__ = [
    "Configuration",
    "ConfigurationVerdict",
    "Fleet",
    "assess",
    "choose_configuration",
]
