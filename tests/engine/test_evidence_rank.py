"""rank_evidence: every result that counts for a candidate, in the comparison's own order."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.evidence import ResultWorkload, choose_evidence, rank_evidence
from tests.engine.builders import LLAMA_70B, LLAMA_70B_ON_4_H100

TARGET = replace(LLAMA_70B_ON_4_H100, quote_id=5)


def _result(result_id: int, **kw: object) -> ResultWorkload:
    base: dict[str, object] = {
        "accelerator": "h100",
        "model_name": LLAMA_70B,
        "precision": "bf16",
        "gpu_count": 4,
        "input_tokens_mean": 1500,
        "output_tokens_mean": 300,
        "concurrency": 32,
    }
    return ResultWorkload(result_id=result_id, **{**base, **kw})


def test_measured_before_proxy_and_ignored_left_out_with_the_first_as_chosen():
    proxy = _result(1, precision="fp8")
    measured = _result(2)
    other_model = _result(3, model_name="meta-llama/Llama-3.1-8B-Instruct")
    elsewhere = _result(4, accelerator="a100")
    results = [proxy, measured, other_model, elsewhere]
    ranked = rank_evidence(results, TARGET)
    assert [(w.result_id, m.kind) for w, m in ranked] == [(2, "measured"), (1, "proxy")]
    chosen, _ = choose_evidence(results, TARGET)
    assert chosen is not None
    assert chosen == ranked[0][1]


def test_nothing_counts_gives_an_empty_list():
    assert rank_evidence([_result(1, model_name="Mistral 7B")], TARGET) == []


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["bf16", "fp8"]),
            st.sampled_from([1, 2, 4, 8]),
            st.sampled_from([None, 5, 6]),
            st.sampled_from([LLAMA_70B, "Llama 3.1 8B"]),
        ),
        max_size=6,
    )
)
def test_the_head_of_the_ranking_is_always_the_comparisons_choice(shapes):
    results = [
        _result(i + 1, precision=p, gpu_count=g, quote_id=q, model_name=name)
        for i, (p, g, q, name) in enumerate(shapes)
    ]
    ranked = rank_evidence(results, TARGET)
    chosen, verdicts = choose_evidence(results, TARGET)
    assert (ranked[0][1] if ranked else None) == chosen
    assert len(ranked) == sum(1 for v in verdicts if v.counts)
