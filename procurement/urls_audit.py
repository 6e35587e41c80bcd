"""HTML routes: the audit trail."""

from django.urls import path

from procurement.views import audit

urlpatterns = [
    path("audit/", audit.audit_list, name="audit-list"),
]
