"""Sizing from a request trace (docs/engine/trace-sizing.md): a trace, a deployment's
operating curve, the replay that finds the fewest replicas per interval holding the service
level, and the scaling of a sampled window to the brief's monthly volume."""

from engine.trace.curve import CurvePoint, OperatingCurve, sustainable_point
from engine.trace.fleet import trace_fleet
from engine.trace.loadcurve import LoadCurve
from engine.trace.replay import TraceSizing, size_trace
from engine.trace.requests import RequestTrace, TraceError
from engine.trace.scaling import scale_to_volume

__all__ = [
    "CurvePoint",
    "LoadCurve",
    "OperatingCurve",
    "RequestTrace",
    "TraceError",
    "TraceSizing",
    "scale_to_volume",
    "size_trace",
    "sustainable_point",
    "trace_fleet",
]
