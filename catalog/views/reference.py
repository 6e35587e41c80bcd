"""Providers, model API routes and FX rates: lists and entry forms."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render

from accounts.http import AuthedRequest
from catalog import access, selectors, services
from catalog.access import fx_writer_required, staff_required, writer_required
from catalog.forms.reference import ApiRouteForm, FxRateForm, ProviderForm
from catalog.models import ModelApiRoute
from core.forms import form_status, saved
from core.roles import has_role


@staff_required
def provider_list(request: AuthedRequest) -> HttpResponse:
    context = {
        "providers": access.providers_for(request.user),
        "can_write": has_role(request.user, *access.CATALOG_WRITERS),
    }
    return render(request, "catalog/provider_list.html", context)


@writer_required
def provider_create(request: AuthedRequest) -> HttpResponse:
    form = ProviderForm(request.POST or None)
    create = services.provider_create
    if provider := saved(request, form, lambda data: create(acting_user=request.user, data=data)):
        messages.success(request, f"Provider {provider} added.")
        return redirect("catalog:provider-list")
    context = {"form": form, "title": "Add a provider", "cancel": "catalog:provider-list"}
    return render(request, "catalog/simple_form.html", context, status=form_status(request))


@staff_required
def api_route_list(request: AuthedRequest) -> HttpResponse:
    context = {
        "routes": selectors.api_routes_list(request.user),
        "can_write": has_role(request.user, *access.CATALOG_WRITERS),
    }
    return render(request, "catalog/api_route_list.html", context)


@writer_required
def api_route_create(request: AuthedRequest) -> HttpResponse:
    form = ApiRouteForm(request.POST or None)

    def create(data: dict[str, Any]) -> ModelApiRoute:
        data = dict(data)
        provider = data.pop("provider")
        return services.api_route_create(acting_user=request.user, data=data, provider=provider)

    if route := saved(request, form, create):
        messages.success(request, f"Model API route {route.model_name} added.")
        return redirect("catalog:api-route-list")
    context = {"form": form, "title": "Add a model API route", "cancel": "catalog:api-route-list"}
    return render(request, "catalog/simple_form.html", context, status=form_status(request))


@staff_required
def fx_list(request: AuthedRequest) -> HttpResponse:
    context = {
        "rates": selectors.fx_rates_list(request.user),
        "base_currency": settings.BASE_CURRENCY,
        "can_write": has_role(request.user, *access.FX_WRITERS),
    }
    return render(request, "catalog/fx_list.html", context)


@fx_writer_required
def fx_create(request: AuthedRequest) -> HttpResponse:
    form = FxRateForm(request.POST or None, base_currency=settings.BASE_CURRENCY)
    create = services.fx_rate_create
    if rate := saved(request, form, lambda data: create(acting_user=request.user, data=data)):
        messages.success(request, f"Rate saved: {rate}.")
        return redirect("catalog:fx-list")
    context = {"form": form, "title": "Add an FX rate", "cancel": "catalog:fx-list"}
    return render(request, "catalog/simple_form.html", context, status=form_status(request))
