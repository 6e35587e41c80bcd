"""PostgreSQL: TRUNCATE of the audit events and checkpoints raises, and checkpoints are
append-only like the events (UPDATE and DELETE raise).

A session that sets ``workbench.audit_truncate`` to ``allowed`` may truncate (the test
database's flush does); a table owner can do that, or disable the triggers, which is why the
trail's head is also anchored outside the database (core.audit_anchor)."""

from django.db import migrations

TRIGGER = """
CREATE OR REPLACE FUNCTION core_audit_no_truncate() RETURNS trigger AS $$
BEGIN
    IF coalesce(current_setting('workbench.audit_truncate', true), '') = 'allowed' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'The audit trail is append-only (TRUNCATE of % refused).', TG_TABLE_NAME;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER procurement_auditevent_no_truncate
    BEFORE TRUNCATE ON procurement_auditevent
    FOR EACH STATEMENT EXECUTE FUNCTION core_audit_no_truncate();
CREATE TRIGGER core_auditcheckpoint_no_truncate
    BEFORE TRUNCATE ON core_auditcheckpoint
    FOR EACH STATEMENT EXECUTE FUNCTION core_audit_no_truncate();
CREATE OR REPLACE FUNCTION core_audit_checkpoint_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'Audit checkpoints are append-only (% refused).', TG_OP;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER core_auditcheckpoint_append_only
    BEFORE UPDATE OR DELETE ON core_auditcheckpoint
    FOR EACH ROW EXECUTE FUNCTION core_audit_checkpoint_append_only();
"""
DROP = """
DROP TRIGGER IF EXISTS procurement_auditevent_no_truncate ON procurement_auditevent;
DROP TRIGGER IF EXISTS core_auditcheckpoint_no_truncate ON core_auditcheckpoint;
DROP TRIGGER IF EXISTS core_auditcheckpoint_append_only ON core_auditcheckpoint;
DROP FUNCTION IF EXISTS core_audit_no_truncate();
DROP FUNCTION IF EXISTS core_audit_checkpoint_append_only();
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(TRIGGER, params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("core", "0005_audit_keyed_chain_start")]
    operations = [migrations.RunPython(forwards, backwards)]
