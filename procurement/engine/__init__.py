"""Pure computations of the workbench: memory fit, performance estimates, cost, uncertainty.

Plain Python + numpy only. Nothing here imports Django, DRF, Celery or any other project
package, so every module can be called from views, the API and Celery workers alike and
tested without a database (see CONVENTIONS.md section 2).
"""
