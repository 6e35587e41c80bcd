"""The shared kernel: roles, domain errors, the audit trail and API plumbing.

Every app stands on it; it imports none of them (an import-linter layers contract checks).
"""
