"""Draft answers from what the quote already says (V9, U14): the interconnect inside and
between nodes, and the node's vCPUs, RAM and local NVMe. The vendor typed them on the quote
form; the checklist does not ask for them again from a blank page.

A draft is only a starting text on the answer page, never an answer: it fills an item that
has no answer yet, it is saved only when the vendor chooses a status (and any evidence) and
saves, and the saved answer keeps its opening words, so reviewers read where it came from.
An untouched draft is not saved and the item still counts as unanswered (forms.AnswerForm).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from catalog.models import Quote

INTERCONNECT = "interconnect"
NODE_RESOURCES = "node-resources"


def _source(quote: Quote) -> str:
    return f"From our quote (version {quote.version}):"


def _interconnect(quote: Quote) -> str:
    parts = []
    if quote.intra_node_interconnect:
        parts.append(f"inside the node {quote.intra_node_interconnect}")
    if quote.inter_node_fabric or quote.inter_node_bandwidth_gbps:
        fabric = quote.inter_node_fabric or "a fabric"
        if quote.inter_node_bandwidth_gbps:
            fabric += f", {quote.inter_node_bandwidth_gbps:,} Gbit/s per node"
        parts.append(f"between nodes {fabric}")
    return f"{_source(quote)} {'; '.join(parts)}." if parts else ""


def _node_resources(quote: Quote) -> str:
    parts = []
    if quote.vcpu_per_node:
        parts.append(f"{quote.vcpu_per_node:,} vCPU")
    if quote.ram_gb_per_node:
        parts.append(f"{quote.ram_gb_per_node:,} GB RAM")
    if quote.local_nvme_tb_per_node:
        parts.append(f"{quote.local_nvme_tb_per_node.normalize():f} TB local NVMe")
    return f"{_source(quote)} {', '.join(parts)} per node." if parts else ""


def quote_drafts(quote: Quote) -> dict[str, str]:
    """{item code: draft answer} for the items the quote speaks to (none when it is silent)."""
    drafts = {INTERCONNECT: _interconnect(quote), NODE_RESOURCES: _node_resources(quote)}
    return {code: text for code, text in drafts.items() if text}
