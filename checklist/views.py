"""HTML views: the vendor answer pages, the staff review page and evidence downloads.

Vendors reach only their own provider's quotes and answers; anything else is a 404, exactly
as for an id that does not exist.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.http import AuthedRequest
from accounts.models import Provider, User
from catalog import access as catalog_access
from checklist import access, evidence, selectors, services
from checklist import queue as checklist_queue
from checklist.drafts import quote_drafts
from checklist.forms import (
    ChecklistRow,
    ReviewForm,
    build_answer_forms,
    changed_entries,
    checklist_rows,
    hold_valid_files,
    release_held_files,
)
from checklist.models import Section
from core.errors import DomainError
from core.forms import apply_domain_error, form_status
from core.listing import paginate
from core.roles import Role, get_or_404, is_staff, is_vendor, role_required


def evidence_upload_view(
    view: Callable[..., HttpResponseBase],
) -> Callable[..., HttpResponseBase]:
    """Install the evidence size guard before the CSRF check reads (and parses) the body."""
    protected = csrf_protect(view)

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if request.method == "POST":
            evidence.install_size_limit(request)
        return protected(request, *args, **kwargs)

    return csrf_exempt(wrapper)


def _own_provider(user: User) -> Provider:
    """A vendor's organisation (every vendor has one: the vendor_has_provider constraint)."""
    if user.provider is None:
        raise Http404
    return user.provider


@require_GET
def checklist_index(request: AuthedRequest) -> HttpResponse:
    user = request.user
    if not (is_staff(user) or is_vendor(user)):
        raise Http404
    quotes = catalog_access.quotes_for(user).current().order_by("provider__name", "-created_at")
    queue: dict[str, Any] = {}
    if is_staff(user):  # a reviewer's own queue: what awaits their sections
        mine_only = request.GET.get("mine") == "1"
        queue = checklist_queue.queue_context(user, list(quotes), mine_only=mine_only)
        if mine_only:
            quotes = quotes.filter(pk__in=list(queue["waiting"]))
    page = paginate(quotes, request.GET.get("page"))
    summaries = selectors.quote_checklist_summaries(page.object_list)
    context = {
        "rows": [(quote, summaries[quote.pk]) for quote in page.object_list],
        "page": page,
        "is_vendor": is_vendor(user),
        **queue,
    }
    return render(request, "checklist/index.html", context)


def _save_answers(
    request: AuthedRequest, *, quote: Any, answer_forms: list[Any]
) -> HttpResponse | None:
    """Save the changed forms (all or nothing); None means: show the page with errors, the
    valid files kept server-side for the next submit."""
    entries = changed_entries(answer_forms)
    if entries is None:
        hold_valid_files(answer_forms)
        messages.error(request, "Some answers need attention (highlighted). Nothing was saved.")
        return None
    if not entries:
        messages.info(request, "Nothing changed, so nothing was saved.")
        return redirect(request.path)
    try:
        services.answers_submit(
            acting_user=request.user,
            provider=_own_provider(request.user),
            quote=quote,
            entries=entries,
        )
    except DomainError as exc:
        hold_valid_files(answer_forms)
        messages.error(request, f"{exc.message} Nothing was saved.")
        return None
    release_held_files(answer_forms)
    messages.success(request, f"Saved {len(entries)} answer{'s' if len(entries) > 1 else ''}.")
    # On a quote, land on what is left to do (and the saved message above it), not an item.
    anchor = "vendor-status" if quote is not None else f"item-{entries[0].item.code}"
    return redirect(f"{request.path}#{anchor}")


def _error_rows(rows: list[ChecklistRow]) -> list[ChecklistRow]:
    """The items that need attention, for the summary at the top (none on a page not sent)."""
    return [row for row in rows if (form := row.form) is not None and form.is_bound and form.errors]


@evidence_upload_view
@require_http_methods(["GET", "POST"])
def quote_answer(request: AuthedRequest, quote_id: int) -> HttpResponse:
    quote = catalog_access.access_quote(request.user, quote_id)
    if not is_vendor(request.user):
        return redirect("checklist:quote-detail", quote.pk)
    detail = selectors.quote_checklist_detail(quote)
    rows = checklist_rows(detail)
    closed_reason = selectors.quote_closed_reason(quote)
    bound = request.method == "POST" and not closed_reason
    drafts = quote_drafts(quote)
    answer_forms = build_answer_forms(
        rows,
        data=request.POST if bound else None,
        files=request.FILES if bound else None,
        oversized=getattr(request, "evidence_oversized", {}),
        user_id=request.user.pk,
        drafts=drafts,
    )
    if bound and (response := _save_answers(request, quote=quote, answer_forms=answer_forms)):
        return response
    if request.method == "POST" and closed_reason:
        messages.error(request, f"{closed_reason} Nothing was saved.")
    context = {
        "quote": quote,
        "detail": detail,
        "closed_reason": closed_reason,
        "vendor_part": checklist_queue.vendor_part(detail),
        "drafted": [row.item.code for row in rows if row.form and row.form.draft],
        "error_rows": _error_rows(rows),
    }
    return render(request, "checklist/answer.html", context, status=form_status(request))


@evidence_upload_view
@require_http_methods(["GET", "POST"])
@role_required(Role.VENDOR)
def provider_answer(request: AuthedRequest) -> HttpResponse:
    detail = selectors.provider_defaults_detail(_own_provider(request.user).pk)
    rows = checklist_rows(detail)
    bound = request.method == "POST"
    answer_forms = build_answer_forms(
        rows,
        data=request.POST if bound else None,
        files=request.FILES if bound else None,
        fixed_scope=services.SCOPE_PROVIDER,
        oversized=getattr(request, "evidence_oversized", {}),
        user_id=request.user.pk,
    )
    if bound and (response := _save_answers(request, quote=None, answer_forms=answer_forms)):
        return response
    context = {
        "quote": None,
        "detail": detail,
        "provider": request.user.provider,
        "error_rows": _error_rows(rows),
    }
    return render(request, "checklist/answer.html", context, status=400 if bound else 200)


def _attach_review_forms(user: User, rows: list[ChecklistRow]) -> None:
    for row in rows:
        row.can_review = row.answer is not None and access.can_review_checklist_section(
            user, row.item.section
        )
        if row.review_form is None:
            row.review_form = ReviewForm(prefix=row.item.code)


@require_GET
def quote_checklist(request: AuthedRequest, quote_id: int) -> HttpResponse:
    quote = catalog_access.access_quote(request.user, quote_id)
    if not is_staff(request.user):
        return redirect("checklist:quote-answer", quote.pk)
    detail = selectors.quote_checklist_detail(quote)
    _attach_review_forms(request.user, checklist_rows(detail))
    # Staff see who reviewed; the vendor's answer page names no buyer staff.
    context = {
        "quote": quote,
        "detail": detail,
        "reviewer_names": True,
        "bulk_sections": checklist_queue.bulk_sections(request.user, detail),
    }
    return render(request, "checklist/quote_detail.html", context)


@require_POST
def answer_review(request: AuthedRequest, quote_id: int, answer_id: int) -> HttpResponse:
    quote = catalog_access.access_quote(request.user, quote_id)
    if not is_staff(request.user):
        raise Http404
    answers = access.answers_for(request.user).filter(provider_id=quote.provider_id)
    answer = get_or_404(answers, pk=answer_id)
    form = ReviewForm(request.POST, prefix=answer.item.code)
    status = _review(request, answer, form) if form.is_valid() else 400
    if status == 200 and not request.htmx:
        messages.success(request, f"Review saved: {answer.item.title}.")
        url = reverse("checklist:quote-detail", args=[quote.pk])
        return redirect(f"{url}#item-{answer.item.code}")
    detail = selectors.quote_checklist_detail(quote)
    rows = checklist_rows(detail)
    row = next(r for r in rows if r.item.pk == answer.item_id)
    row.review_form = form if status != 200 else ReviewForm(prefix=answer.item.code)
    _attach_review_forms(request.user, rows)
    context = {
        "quote": quote,
        "detail": detail,
        "row": row,
        "oob_summary": bool(request.htmx),
        "reviewer_names": True,
    }
    template = "checklist/quote_detail.html#item" if request.htmx else "checklist/quote_detail.html"
    return render(request, template, context, status=status)


def _review(request: AuthedRequest, answer: Any, form: ReviewForm) -> int:
    """Run the review service; the HTTP status to answer with (errors land on the form)."""
    try:
        services.answer_review(
            acting_user=request.user,
            answer=answer,
            decision=form.cleaned_data["decision"],
            comment=form.cleaned_data.get("comment", ""),
        )
    except DomainError as exc:
        apply_domain_error(form, exc)
        if not exc.fields:
            messages.error(request, exc.message)
        return exc.status_code
    return 200


@require_GET
def evidence_download(request: AuthedRequest, answer_id: int) -> FileResponse:
    answer = access.access_answer(request.user, answer_id)
    if not answer.evidence_file:
        raise Http404
    try:
        handle = answer.evidence_file.open("rb")
    except FileNotFoundError as exc:
        raise Http404 from exc
    name = (
        answer.evidence_name or f"evidence{evidence.extension_of(answer.evidence_file.name or '')}"
    )
    response = FileResponse(
        handle,
        as_attachment=True,
        filename=evidence.sanitise_filename(name),
        content_type=evidence.content_type_for(name),
    )
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, no-store"
    return response


@require_POST
def section_accept(request: AuthedRequest, quote_id: int, section: str) -> HttpResponse:
    """Accept all the answers awaiting review in one section of a quote's checklist, each
    through the review service (one review and one audit event per answer)."""
    quote = catalog_access.access_quote(request.user, quote_id)
    if not is_staff(request.user) or section not in Section.values:
        raise Http404
    detail = selectors.quote_checklist_detail(quote)
    answers = checklist_queue.pending_in_section(request.user, detail, section)
    label = Section(section).label
    if not answers:
        messages.info(request, f"Nothing in {label} awaits your review.")
    else:
        try:
            done = checklist_queue.section_accept(acting_user=request.user, answers=answers)
        except DomainError as exc:
            messages.error(request, f"{exc.message} Nothing was accepted.")
        else:
            messages.success(
                request,
                f"Accepted {len(done)} answer{'s' if len(done) != 1 else ''} in {label}, "
                "each recorded in the audit trail.",
            )
    url = reverse("checklist:quote-detail", args=[quote.pk])
    return redirect(f"{url}#section-{section}")
