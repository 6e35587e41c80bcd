"""Sizing from a request trace (docs/engine/trace-sizing.md): a trace, a deployment's
operating curve, the replay that finds the fewest replicas per interval holding the service
level, and the scaling of a sampled window to the brief's monthly volume."""

from engine.trace.curve import CurvePoint, OperatingCurve, Sustainable, sustainable_point
from engine.trace.fleet import TraceFleet, trace_fleet
from engine.trace.loadcurve import LoadCurve
from engine.trace.replay import TraceSizing, in_flight_at_arrival, replica_needs, size_trace
from engine.trace.requests import RequestTrace, TraceError
from engine.trace.scaling import WINDOW_HOURS, TraceScaling, scale_to_volume

__all__ = [
    "WINDOW_HOURS",
    "CurvePoint",
    "LoadCurve",
    "OperatingCurve",
    "RequestTrace",
    "Sustainable",
    "TraceError",
    "TraceFleet",
    "TraceScaling",
    "TraceSizing",
    "in_flight_at_arrival",
    "replica_needs",
    "scale_to_volume",
    "size_trace",
    "sustainable_point",
    "trace_fleet",
]
