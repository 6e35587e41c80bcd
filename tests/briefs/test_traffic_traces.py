"""A traffic trace uploaded to a brief: kept as sent, read on the worker's service with the
claim pattern, summarised for the pages and the sizing; a bad file fails whole with its line."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from briefs.models import TrafficTrace
from briefs.selectors import ready_trace_for
from briefs.services.traces import traffic_trace_read, traffic_trace_upload
from core.errors import Conflict, DomainError, NotAllowed

pytestmark = pytest.mark.django_db

AZURE = (
    "TIMESTAMP,ContextTokens,GeneratedTokens\n"
    + "".join(
        f"2023-11-16 18:{m:02d}:{s:02d}.0000000,{100 + s},{10 + m}\n"
        for m in range(3)
        for s in range(0, 60, 20)
    )
    + "2023-11-16 18:02:59.5000000,4000,500\n"
)


def _file(text: str, name: str = "trace.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


def test_an_uploaded_trace_is_read_and_summarised(
    brief, engineer, django_capture_on_commit_callbacks
) -> None:
    """Three minutes of three requests each, and one long request in the last second: 3, 3, 4
    a minute, a mean of 3.33 and a peak-to-average of 4 / 3.33 = 1.2."""
    with django_capture_on_commit_callbacks() as callbacks:
        trace = traffic_trace_upload(
            brief=brief, upload=_file(AZURE), window="peak_hour", acting_user=engineer
        )
    assert len(callbacks) == 1  # the read is queued once the row is committed
    assert trace.status == TrafficTrace.Status.PENDING
    assert ready_trace_for(brief) is None
    read = traffic_trace_read(trace_id=trace.pk)
    assert read is not None
    assert read.status == TrafficTrace.Status.READY, read.error
    assert read.requests == 10
    assert read.layout == "azure"
    assert read.summary["requests_per_minute"] == [3, 3, 4]
    assert read.summary["peak_to_average"] == pytest.approx(1.2)
    assert read.summary["input_p99"] > 3000
    assert ready_trace_for(brief) == read
    # A second delivery of the same message finds the row finished and does nothing.
    assert traffic_trace_read(trace_id=trace.pk) is None


def test_a_trace_out_of_order_fails_whole_with_its_line(brief, lead) -> None:
    bad = "arrival_s,input_tokens,output_tokens\n0,10,5\n3,10,5\n2,10,5\n"
    trace = traffic_trace_upload(brief=brief, upload=_file(bad), window="day", acting_user=lead)
    read = traffic_trace_read(trace_id=trace.pk)
    assert read is not None
    assert read.status == TrafficTrace.Status.FAILED
    assert "Line 4" in read.error
    assert read.requests is None
    assert read.summary == {}
    assert ready_trace_for(brief) is None


def test_the_same_file_for_the_same_window_is_refused_and_who_may_upload(
    brief, lead, finance
) -> None:
    traffic_trace_upload(brief=brief, upload=_file(AZURE), window="day", acting_user=lead)
    with pytest.raises(Conflict, match="already uploaded"):
        traffic_trace_upload(brief=brief, upload=_file(AZURE), window="day", acting_user=lead)
    with pytest.raises(DomainError, match="which window"):
        traffic_trace_upload(brief=brief, upload=_file(AZURE), window="month", acting_user=lead)
    with pytest.raises(NotAllowed):
        traffic_trace_upload(brief=brief, upload=_file(AZURE), window="week", acting_user=finance)
    assert TrafficTrace.objects.count() == 1


def test_the_brief_page_uploads_a_trace_and_shows_what_it_read(
    client, login, brief, engineer, finance
) -> None:
    login(engineer)
    url = reverse("briefs:trace-upload", args=[brief.pk])
    response = client.post(url, {"file": _file(AZURE), "window": "peak_hour"})
    assert response.status_code == 302
    trace = TrafficTrace.objects.get()
    traffic_trace_read(trace_id=trace.pk)
    page = client.get(brief.get_absolute_url()).content.decode()
    assert "Sized from <strong>trace.csv</strong>" in page
    assert "10 requests" in page
    assert "fig-brief-arrivals" in page
    # A refused file comes back on the page with its error, nothing saved.
    refused = client.post(url, {"file": _file(AZURE), "window": "fortnight"})
    assert refused.status_code == 400
    assert TrafficTrace.objects.count() == 1
    # Finance reads the brief but cannot upload; the page offers no form.
    login(finance)
    assert client.post(url, {"file": _file(AZURE, "b.csv"), "window": "day"}).status_code == 403
    assert "Upload trace" not in client.get(brief.get_absolute_url()).content.decode()


def test_the_api_takes_a_trace_and_reports_its_read(api_client, brief, engineer) -> None:
    api_client.force_authenticate(engineer)
    url = f"/api/v1/briefs/{brief.pk}/traces/"
    response = api_client.post(url, {"file": _file(AZURE), "window": "day"}, format="multipart")
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "pending"
    traffic_trace_read(trace_id=response.json()["id"])
    listed = api_client.get(url).json()
    assert [t["status"] for t in listed] == ["ready"]
    assert listed[0]["requests"] == 10
    assert listed[0]["summary"]["requests_per_minute"] == [3, 3, 4]
    refused = api_client.post(url, {"window": "day"}, format="multipart")
    assert refused.status_code == 400
    assert "file" in refused.json()["fields"]
