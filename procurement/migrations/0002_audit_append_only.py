"""PostgreSQL trigger: UPDATE and DELETE on the audit table raise, whatever the caller."""

from django.db import migrations

TRIGGER = """
CREATE OR REPLACE FUNCTION procurement_audit_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'The audit trail is append-only (% refused).', TG_OP;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER procurement_auditevent_append_only
    BEFORE UPDATE OR DELETE ON procurement_auditevent
    FOR EACH ROW EXECUTE FUNCTION procurement_audit_append_only();
"""
DROP = """
DROP TRIGGER IF EXISTS procurement_auditevent_append_only ON procurement_auditevent;
DROP FUNCTION IF EXISTS procurement_audit_append_only();
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(TRIGGER, params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("procurement", "0001_initial")]
    operations = [migrations.RunPython(forwards, backwards)]
