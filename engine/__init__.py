"""Pure computations of the workbench: memory fit, performance estimates, cost, uncertainty.

Plain Python + numpy only. Nothing here imports Django, DRF, Celery or any app of ours (the
import contract "the engine imports nothing of ours" keeps it so; ``core.workloads`` is the
one kernel module it reads), so every app computes with it and it is tested without a
database. Sub-packages by concept:

- ``types``: the dataclasses in and out (``types.common``, ``types.input``, ``types.output``);
- ``memory``: memory fit; ``performance``: roofline estimates; ``precision``: precision rules;
- ``evidence``: which benchmark result counts for a candidate, and why;
- ``operating_points``: the sweep point that meets the brief, and its cost;
- ``cost``: every cost line, the commitment and the assumptions applied;
- ``montecarlo``: the vectorised uncertainty draws, quantiles and the tornado;
- ``plan``: break-even and the plan across offers; ``calibration``: the estimate-vs-measured ledger;
- ``comparison``: one comparison end to end; ``recommendation`` and ``warnings`` on top.
"""
