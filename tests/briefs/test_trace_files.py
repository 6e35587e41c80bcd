"""Request-trace files in each layout (small files written here in the real layouts), and every
bad input refused whole with the line that holds the fault."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest

from briefs import trace_files
from briefs.trace_files import TraceFileError, read_trace


def _read(text: str) -> trace_files.TraceFile:
    return read_trace(io.BytesIO(text.encode()))


def test_an_azure_trace_is_read_with_its_clock_as_utc() -> None:
    trace = _read(
        "TIMESTAMP,ContextTokens,GeneratedTokens\n"
        "2023-11-16 18:15:46.6805900,374,44\n"
        "2023-11-16 18:15:50.9951690,396,109\n"
        "2023-11-16 18:15:51.2224670,879,55\n"
    )
    assert trace.layout == "azure"
    assert trace.started_at == datetime(2023, 11, 16, 18, 15, 46, 680590, tzinfo=UTC)
    assert trace.trace.arrival_s.tolist() == pytest.approx([0.0, 4.314579, 4.541877])
    assert trace.trace.input_tokens.tolist() == [374, 396, 879]
    assert trace.trace.output_tokens.tolist() == [44, 109, 55]
    assert any("read as UTC" in note for note in trace.notes)


def test_a_burstgpt_trace_names_its_routes_and_its_unanswered_requests() -> None:
    trace = _read(
        "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
        "5,ChatGPT,472,18,490,Conversation log\n"
        "45,ChatGPT,1087,0,1087,Conversation log\n"
        "118,GPT-4,417,276,693,API log\n"
    )
    assert trace.layout == "burstgpt"
    assert trace.started_at is None
    assert trace.trace.arrival_s.tolist() == [0.0, 40.0, 113.0]
    assert trace.tenants == {"ChatGPT": 2, "GPT-4": 1}
    assert any("1 requests generated no token" in note for note in trace.notes)


def test_a_generic_csv_with_zoned_times_and_tenants() -> None:
    trace = _read(
        "arrival_time,input_tokens,output_tokens,tenant\n"
        "2026-03-02T09:00:00+01:00,100,20,support\n"
        "2026-03-02T08:00:02Z,300,40,search\n"
    )
    assert trace.layout == "generic-csv"
    assert trace.started_at == datetime(2026, 3, 2, 8, 0, 0, tzinfo=UTC)
    assert trace.trace.arrival_s.tolist() == [0.0, 2.0]
    assert trace.tenants == {"support": 1, "search": 1}


def test_generic_json_lines_in_seconds() -> None:
    trace = _read(
        '{"arrival_s": 10.5, "input_tokens": 120, "output_tokens": 30, "route": "a"}\n'
        "\n"
        '{"arrival_s": 11.0, "input_tokens": 80, "output_tokens": 12}\n'
    )
    assert trace.layout == "generic-jsonl"
    assert trace.trace.arrival_s.tolist() == [0.0, 0.5]
    assert trace.tenants == {"a": 1}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "TIMESTAMP,ContextTokens,GeneratedTokens\n"
            "2023-11-16 18:15:50,1,1\n2023-11-16 18:15:46,1,1\n",
            "Line 3: the arrival time goes back",
        ),
        ("arrival_s,input_tokens,output_tokens\n0,10,5\n1,-4,5\n", "Line 3: input tokens"),
        ("arrival_s,input_tokens,output_tokens\n0,10,5\n1,10,\n", "Line 3: output tokens"),
        ("arrival_s,input_tokens,output_tokens\n0,10,5\n,10,5\n", "Line 3: the arrival time"),
        ('{"arrival_s": 1, "input_tokens": 1}\n', "Line 1: needs arrival_s"),
        ('{"arrival_s": 1, "input_tokens": "many", "output_tokens": 1}\n', "not a number"),
        (
            '{"arrival_s": 2, "input_tokens": 1, "output_tokens": 1}\n{"arrival_s": 1, '
            '"input_tokens": 1, "output_tokens": 1}\n',
            "Line 2: the arrival time goes back",
        ),
        ("time,prompt,completion\n1,2,3\n", "Unknown trace layout"),
        ("arrival_s,input_tokens,output_tokens\n", "no request"),
        ("arrival_time,input_tokens,output_tokens\nyesterday,1,1\n", "cannot be read"),
    ],
)
def test_a_bad_trace_file_is_refused_with_the_line(text: str, message: str) -> None:
    with pytest.raises(TraceFileError, match=message):
        _read(text)


def test_a_file_past_the_request_limit_is_refused_before_it_is_all_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(trace_files, "MAX_REQUESTS", 3)
    body = "arrival_s,input_tokens,output_tokens\n" + "".join(f"{i},1,1\n" for i in range(4))
    with pytest.raises(TraceFileError, match="more than 3 requests"):
        _read(body)
