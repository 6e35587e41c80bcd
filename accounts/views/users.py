"""The administrators' user page: the product's one place to change a user's role,
provider and activation, each change audited (accounts.services.users)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from accounts import access
from accounts.forms import UserManageForm
from accounts.http import AuthedRequest
from accounts.services.users import user_update
from core.forms import saved
from core.roles import role_required


@require_http_methods(["GET"])
@role_required(*access.USER_MANAGER_ROLES)
def user_list(request: AuthedRequest) -> HttpResponse:
    users = access.users_for(request.user).select_related("provider").order_by("username")
    return render(request, "accounts/user_list.html", {"users": users})


@require_http_methods(["GET", "POST"])
@role_required(*access.USER_MANAGER_ROLES)
def user_manage(request: AuthedRequest, pk: int) -> HttpResponse:
    member = access.access_managed_user(request.user, pk)
    initial = {"role": member.role, "provider": member.provider, "is_active": member.is_active}
    form = UserManageForm(request.POST or None, initial=initial)
    if saved(
        request, form, lambda data: user_update(acting_user=request.user, user=member, **data)
    ):
        messages.success(request, f"Saved the changes to {member.username}.")
        return redirect("accounts:user-list")
    status = 400 if form.is_bound and form.errors else 200
    context = {"member": member, "form": form}
    return render(request, "accounts/user_manage.html", context, status=status)
