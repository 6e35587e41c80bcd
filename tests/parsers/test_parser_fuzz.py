"""Property tests: whatever the bytes, parse() returns a ParsedResult or raises ParseError.

"internal error" ParseErrors (the safety net for unexpected exceptions) count as failures here,
so that bugs are not hidden by the net.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.bench_ingest import HOSTILE  # the same inputs make bench times
from benchmarks.parsers import ParsedResult, ParseError, detect, parse

FIXTURES = Path(__file__).parent / "fixtures"
TEMPLATES = Path(__file__).parents[2] / "benchmarks" / "parsers" / "templates"
SAMPLES = sorted(
    [p for p in FIXTURES.rglob("*") if p.is_file() and not p.name.endswith(".source.txt")]
    + sorted(TEMPLATES.iterdir())
)
SAMPLE_IDS = [p.name[:40] for p in SAMPLES]
JSON_SAMPLES = [p for p in SAMPLES if p.suffix == ".json"]
FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def check(data: bytes, filename: str | None = None) -> ParsedResult | None:
    """The contract: a valid, JSON-serialisable result, or a ParseError (not an internal one)."""
    error: ParseError | None = None
    try:
        result = parse(data, filename)
    except ParseError as exc:
        error = exc
    if error is not None:
        assert isinstance(error.message, str)
        assert error.message
        assert not error.message.startswith("internal error"), error.message
        assert error.format_id is None or isinstance(error.format_id, str)
        return None
    assert isinstance(result, ParsedResult)
    json.dumps(result.to_dict(), allow_nan=False)
    for run in result.runs:
        assert isinstance(run, ParsedResult)
    m = result.metrics
    for name in ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms"):
        p = getattr(m, name)
        if p is None:
            continue
        for attr in ("p50", "p95", "p99", "mean"):
            value = getattr(p, attr)
            assert value is None or (math.isfinite(value) and 0 <= value <= 1e9), (name, value)
    return result


def check_detect(data: bytes) -> None:
    fid: str | None = None
    message = ""
    try:
        fid = detect(data)
    except ParseError as exc:
        message = exc.message
    assert isinstance(fid, str) or message


# ----------------------------------------------------------------------------- truncation


@pytest.mark.parametrize("path", SAMPLES, ids=SAMPLE_IDS)
def test_every_prefix_length_class(path: Path) -> None:
    data = path.read_bytes()
    n = len(data)
    cuts = {
        0,
        1,
        2,
        3,
        7,
        8,
        9,
        16,
        17,
        64,
        n // 7,
        n // 4,
        n // 3,
        n // 2,
        2 * n // 3,
        n - 64,
        n - 17,
        n - 9,
        n - 8,
        n - 2,
        n - 1,
        n,
    }
    for nl in (data.find(b"\n"), data.find(b"\n", n // 2), data.rfind(b"\n")):
        if nl >= 0:
            cuts.update({nl, nl + 1})
    for cut in sorted(c for c in cuts if 0 <= c <= n):
        check(data[:cut], path.name)


@pytest.mark.parametrize("path", SAMPLES, ids=SAMPLE_IDS)
@FUZZ
@given(fraction=st.floats(min_value=0.0, max_value=1.0))
def test_random_truncation(path: Path, fraction: float) -> None:
    data = path.read_bytes()
    check(data[: int(len(data) * fraction)])


@pytest.mark.parametrize("path", SAMPLES, ids=SAMPLE_IDS)
@FUZZ
@given(position=st.floats(min_value=0.0, max_value=1.0), junk=st.binary(min_size=1, max_size=4))
def test_non_utf8_and_junk_bytes_inserted(path: Path, position: float, junk: bytes) -> None:
    data = path.read_bytes()
    at = int(len(data) * position)
    check(data[:at] + b"\xff" + junk + data[at:])


# ----------------------------------------------------------------------------- random input


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2048))
def test_random_bytes(data: bytes) -> None:
    check(data)
    check_detect(data)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=500))
def test_random_text(text: str) -> None:
    check(text.encode("utf-8", "surrogatepass"))


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(["{", "[", '{"benchmarks": [', ":::MLLOG ", "ttft_ms\n", "Metric,avg\n"]),
    st.binary(max_size=300),
)
def test_format_prefix_then_garbage(prefix: str, tail: bytes) -> None:
    check(prefix.encode() + tail)


def test_empty_and_whitespace() -> None:
    for data in (b"", b" ", b"\n\n", b"\t\r\n", b"\xef\xbb\xbf"):
        with pytest.raises(ParseError):
            parse(data)


# ----------------------------------------------------------------------------- mistyped JSON values

junk_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.text(max_size=12),
        st.integers(min_value=-(10**30), max_value=10**30),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from(["=1+2", "-1", "nan", "Infinity", "1e999", "", "550", "[N/A]"]),
        st.sampled_from([10**400, -(10**400), 2**63, 2**64 + 1]),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=8,
)


def paths(obj: Any, prefix: tuple[Any, ...] = (), limit: int = 4000) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    stack = [(obj, prefix)]
    while stack and len(out) < limit:
        node, path = stack.pop()
        out.append(path)
        if isinstance(node, dict):
            stack.extend((v, (*path, k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(node[:30]))
    return out


def replace(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(obj, dict):
        copy = dict(obj)
        copy[head] = replace(obj[head], rest, value)
        return copy
    copy_list = list(obj)
    copy_list[head] = replace(obj[head], rest, value)
    return copy_list


_LOADED: dict[Path, tuple[Any, list[tuple[Any, ...]]]] = {}


def loaded(path: Path) -> tuple[Any, list[tuple[Any, ...]]]:
    if path not in _LOADED:
        obj = json.loads(path.read_bytes())
        _LOADED[path] = (obj, paths(obj))
    return _LOADED[path]


@pytest.mark.parametrize("path", JSON_SAMPLES, ids=[p.name[:40] for p in JSON_SAMPLES])
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_mistyped_values(path: Path, data: st.DataObject) -> None:
    obj, all_paths = loaded(path)
    edits = data.draw(st.integers(min_value=1, max_value=3))
    for _ in range(edits):
        where = data.draw(st.sampled_from(all_paths))
        try:
            obj = replace(obj, where, data.draw(junk_values))
        except (KeyError, IndexError, TypeError):
            continue
    check(json.dumps(obj).encode())


@pytest.mark.parametrize("path", JSON_SAMPLES, ids=[p.name[:40] for p in JSON_SAMPLES])
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_deleted_keys(path: Path, data: st.DataObject) -> None:
    obj, all_paths = loaded(path)
    where = data.draw(st.sampled_from([p for p in all_paths if p] or [()]))
    if not where:
        return
    parent = obj
    try:
        for key in where[:-1]:
            parent = parent[key]
    except (KeyError, IndexError, TypeError):
        return
    if isinstance(parent, dict):
        obj = replace(obj, where[:-1], {k: v for k, v in parent.items() if k != where[-1]})
    check(json.dumps(obj).encode())


def test_deep_nesting() -> None:
    for depth in (100, 5000, 200_000):
        check(b"[" * depth + b"]" * depth)
        check(b'{"a":' * depth + b"1" + b"}" * depth)
        check(b"[" * depth)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1.0, 1e12, -1e-9])
def test_bad_latency_values_in_every_json_sample(bad: float) -> None:
    latency_keys = ("ttft", "latency", "itl", "tpot", "e2e", "_ms", "_s")
    for path in JSON_SAMPLES:
        obj, all_paths = loaded(path)
        targets = [
            w
            for w in all_paths
            if w and isinstance(w[-1], str) and any(k in w[-1] for k in latency_keys)
        ]
        for where in targets[:60]:
            try:
                mutated = replace(obj, where, bad)
            except (KeyError, IndexError, TypeError):
                continue
            check(json.dumps(mutated).encode())


JSONL = FIXTURES / "aiperf" / "aiperf_examples_run1_profile_export.jsonl"


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_mistyped_jsonl_records(data: st.DataObject) -> None:
    lines = [json.loads(x) for x in JSONL.read_text().splitlines() if x.strip()][:30]
    index = data.draw(st.integers(min_value=0, max_value=len(lines) - 1))
    where = data.draw(st.sampled_from(paths(lines[index])))
    lines[index] = replace(lines[index], where, data.draw(junk_values))
    check("\n".join(json.dumps(x) for x in lines).encode())


# ----------------------------------------------------------------------------- CSV cells

cell = st.one_of(
    st.sampled_from(
        [
            "",
            "0",
            "1",
            "12.5",
            "-3",
            "nan",
            "NaN",
            "inf",
            "1e400",
            "1e9",
            "2e9",
            "=1+2",
            "+1",
            "@cmd",
            '=HYPERLINK("x")',
            "ok",
            "error",
            "yes",
            "no",
            "maybe",
            " 7 ",
            "1,5",
            '"',
            '""',
            "\r",
            "\n",
            "2026-01-01T00:00:00Z",
            "2026-13-45T99:99:99",
            "1.2.3",
            ".",
            "-",
            "0x10",
            "1_000",
            "١٢",
        ]
    ),
    st.text(max_size=8),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
COLUMNS = [
    "start_time",
    "ttft_ms",
    "itl_ms",
    "itl_ms_list",
    "e2e_ms",
    "input_tokens",
    "output_tokens",
    "status",
    "accepted",
    "note",
]


@settings(max_examples=150, deadline=None)
@given(
    header=st.lists(st.sampled_from(COLUMNS), min_size=1, max_size=9, unique=True),
    rows=st.lists(st.lists(cell, min_size=0, max_size=10), max_size=12),
    newline=st.sampled_from(["\n", "\r\n"]),
)
def test_requests_csv_cells(header: list[str], rows: list[list[str]], newline: str) -> None:
    if not any(h in header for h in ("ttft_ms", "e2e_ms", "itl_ms", "itl_ms_list")):
        header = ["ttft_ms", *header]
    text = ",".join(header) + newline + "".join(",".join(r) + newline for r in rows)
    result = check(text.encode("utf-8", "surrogatepass"))
    if result is not None:
        assert result.format_id == "requests-csv"


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(
        st.floats(min_value=0, max_value=1e6, allow_nan=False), min_size=1, max_size=200
    ),
    decimals=st.integers(min_value=0, max_value=9),
)
def test_requests_csv_numbers_decode_exactly(values: list[float], decimals: int) -> None:
    cells = [f"{v:.{decimals}f}" for v in values]
    text = "e2e_ms,status_padding_col\n" + "".join(f"{c},x\n" for c in cells)
    result = parse(text.encode())
    assert result.per_request is not None
    assert result.per_request.e2e_ms.tolist() == [float(c) for c in cells]


number_cell = st.one_of(
    st.from_regex(r"\A[0-9]{0,18}(\.[0-9]{0,9})?\Z", fullmatch=True),
    st.from_regex(r"\A\.?[0-9]{1,3}\.?\Z", fullmatch=True),
    st.sampled_from(["", ".", "0", "00", "1.", ".5", "-0", "+1", "1e3", " 1", "9" * 17]),
)


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(st.tuples(number_cell, number_cell, number_cell), min_size=1, max_size=40))
def test_fast_decoder_agrees_with_float(rows: list[tuple[str, str, str]]) -> None:
    """Vectorised decoding == csv module + float() (or both refuse the same file)."""
    body = "".join(f"{a},{b},{c}\n" for a, b, c in rows)
    fast_data = ("ttft_ms,e2e_ms,input_tokens\n" + body).encode()
    slow_data = ('ttft_ms,e2e_ms,"input_tokens"\n' + body).encode()  # quote -> csv module
    outcomes = []
    for data in (fast_data, slow_data):
        error: ParseError | None = None
        try:
            result = parse(data)
        except ParseError as exc:
            error = exc
        if error is not None:
            assert not error.message.startswith("internal error"), error.message
            outcomes.append(("error", error.message))
            continue
        samples = result.per_request
        assert samples is not None
        outcomes.append(
            (
                "ok",
                [samples.ttft_ms.tolist(), samples.e2e_ms.tolist(), samples.input_tokens.tolist()],
            )
        )
    (kind_a, a), (kind_b, b) = outcomes
    assert kind_a == kind_b, (a, b)
    if kind_a == "ok":
        assert json.dumps(a) == json.dumps(b)
        expected = [[float(r[i]) if r[i].strip() else None for r in rows] for i in range(3)]
        got = [[None if math.isnan(v) else v for v in col] for col in a]
        assert got == expected


@pytest.mark.parametrize("data", HOSTILE, ids=[f"hostile{i}" for i in range(len(HOSTILE))])
def test_hostile_inputs_are_refused_cleanly(data: bytes) -> None:
    # No RecursionError or internal error; how long they take is measured in `make bench`
    # (ingest_hostile_slowest_vs_vllm_100k), never asserted here.
    check(data)
