"""Which catalog GPU a file's row is: decided here, once, for every importer.

A GPU's identity is what the row states. The instance-to-GPU table (`instances.py`) comes
first: a cloud's instance type, or an aggregator's upstream instance id, names the exact card.
Otherwise the row's own words are read: the GPU family from the accelerator name; the form
factor from tags in the name, the instance type, the upstream id or `GpuInfo` (`PCIe`, `PCI`,
`SXM5`, `NVL`; `HBM3` rules out the HBM2e PCIe H100); the memory from the name or upstream id
(`80G`, `80GB`, `_80GB`) or `GpuInfo`'s `SizeInMiB`. A family sold in several variants (H100
SXM / PCIe / NVL; A100 SXM or PCIe, 40 or 80 GB; V100 SXM2 or PCIe, 16 or 32 GB) is taken only
when what the row states leaves exactly one; otherwise the row is unknown and the label says
what the row did not state. No variant is a default for another.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from catalog.importers.instances import Identified
from catalog.importers.names import normalise_name


@dataclass(frozen=True, slots=True)
class Variant:
    slug: str
    form: str  # "sxm", "pcie", "nvl", "oam", "superchip"
    memory_gb: int
    memory_type: str = ""
    edition: str = ""  # "server" / "workstation" where one chip ships as both


def _v(slug: str, form: str, memory_gb: int, memory_type: str = "", edition: str = "") -> Variant:
    return Variant(slug, form, memory_gb, memory_type, edition)


# Family (a normalised GPU name without form factor or memory) → every catalog variant.
# Figures are the catalog's datasheet ones (catalog/data/accelerators.json).
FAMILIES: dict[str, tuple[Variant, ...]] = {
    "h100": (
        _v("h100-sxm-80gb", "sxm", 80, "hbm3"),
        _v("h100-pcie-80gb", "pcie", 80, "hbm2e"),
        _v("h100-nvl-94gb", "nvl", 94, "hbm3"),
    ),
    "h200": (_v("h200-sxm-141gb", "sxm", 141), _v("h200-nvl-141gb", "nvl", 141)),
    "b200": (_v("b200-hgx-180gb", "sxm", 180),),
    "b300": (_v("b300-hgx-288gb", "sxm", 288),),
    "gb200": (_v("gb200-per-gpu-186gb", "superchip", 186),),
    "gh200": (_v("gh200-96gb", "superchip", 96), _v("gh200-144gb", "superchip", 144)),
    "a100": (
        _v("a100-sxm-40gb", "sxm", 40),
        _v("a100-sxm-80gb", "sxm", 80),
        _v("a100-pcie-40gb", "pcie", 40),
        _v("a100-pcie-80gb", "pcie", 80),
    ),
    "v100": (
        _v("v100-sxm2-16gb", "sxm", 16),
        _v("v100-pcie-16gb", "pcie", 16),
        _v("v100-sxm2-32gb", "sxm", 32),
    ),
    "l40s": (_v("l40s-48gb", "pcie", 48),),
    "l40": (_v("l40-48gb", "pcie", 48),),
    "l4": (_v("l4-24gb", "pcie", 24),),
    "a10": (_v("a10-24gb", "pcie", 24),),
    "a10g": (_v("a10g-24gb", "pcie", 24),),
    "t4": (_v("t4-16gb", "pcie", 16),),
    "rtxa6000": (_v("rtx-a6000-48gb", "pcie", 48),),
    "rtx4090": (_v("rtx-4090-24gb", "pcie", 24),),
    "rtx5090": (_v("rtx-5090-32gb", "pcie", 32),),
    "rtx6000ada": (_v("rtx-6000-ada-48gb", "pcie", 48),),
    "rtxpro6000": (
        _v("rtx-pro-6000-blackwell-ws-96gb", "pcie", 96, edition="workstation"),
        _v("rtx-pro-6000-blackwell-server-96gb", "pcie", 96, edition="server"),
    ),
    "mi300x": (_v("mi300x-192gb", "oam", 192),),
    "mi325x": (_v("mi325x-256gb", "oam", 256),),
    "mi355x": (_v("mi355x-288gb", "oam", 288),),
    "gaudi3": (_v("gaudi-3-oam-128gb", "oam", 128),),
}
# Other spellings of a family, and names that state the form factor in the family itself.
FAMILY_ALIASES: dict[str, tuple[str, str]] = {
    "a6000": ("rtxa6000", ""),
    "rtx6000adageneration": ("rtx6000ada", ""),
    "rtxpro6000blackwell": ("rtxpro6000", ""),
    "h100mega": ("h100", "sxm"),  # Google Cloud's A3 Mega GPU: the SXM card
}
FORM_NAMES = {"sxm": "SXM", "pcie": "PCIe", "nvl": "NVL", "oam": "OAM", "superchip": "superchip"}

_VENDOR_WORDS = re.compile(
    r"\b(nvidia|tesla|geforce|amd|instinct|intel|habana|blackwell|edition)\b"
)
_FORM_TAGS = (
    ("pcie", re.compile(r"pcie|pci(?![a-z])")),  # Cudo writes `-pci_`
    ("nvl", re.compile(r"nvl(?!ink)")),
    ("sxm", re.compile(r"sxm\d?")),
    ("oam", re.compile(r"\boam\b")),
    ("superchip", re.compile(r"superchip")),
)
_HBM = re.compile(r"hbm(\d)(e?)")
_MEMORY = re.compile(r"(?<![a-z0-9])(\d{2,3})\s*gi?b?(?![a-z0-9])")
_MIB = re.compile(r"SizeInMiB['\"]?\s*:\s*(\d+)")
_STRIP = re.compile(
    r"sxm\d?|pcie?|nvlink|nvl|hbm\d?e?|\boam\b|superchip|server|workstation|\bws\b"
    r"|(?<![a-z0-9])\d{2,3}\s*gi?b?(?![a-z0-9])"
)
MEMORY_TOLERANCE = 0.12  # GpuInfo states GiB or usable memory: 81920 MiB is an "80 GB" card


@dataclass(frozen=True, slots=True)
class Stated:
    """What a row states about its GPU, read from its texts."""

    family: str
    form: str = ""  # "" when not stated
    memory_gb: float | None = None
    memory_type: str = ""
    edition: str = ""
    conflict: str = ""  # two texts of the row disagree


@dataclass(frozen=True, slots=True)
class Identity:
    slug: str | None
    label: str  # for an unknown row: the name and why it is not identified ("" when known)
    reason: str = ""  # why, without the name ("" when known)


def _forms(text: str) -> list[str]:
    return [form for form, pattern in _FORM_TAGS if pattern.search(text)]


def _memory_of(text: str) -> float | None:
    match = _MEMORY.search(text)
    return float(match.group(1)) if match else None


def gpu_info_memory_gb(gpu_info: str) -> float | None:
    """Per-GPU memory from SkyPilot's GpuInfo (`'MemoryInfo': {'SizeInMiB': 81920}`), in GiB."""
    match = _MIB.search(gpu_info)
    return int(match.group(1)) / 1024 if match else None


def read_row(
    name: str,
    *,
    form_texts: tuple[str, ...] = (),
    tag_texts: tuple[str, ...] = (),
    gpu_info: str = "",
) -> Stated:
    """What the row states. `tag_texts` (an upstream id) may state form factor and memory;
    `form_texts` (an instance type, whose sizes are host RAM) only the form factor."""
    text = _VENDOR_WORDS.sub(" ", name.lower().replace("_", " "))
    family = normalise_name(_STRIP.sub(" ", text))
    forced = ""
    if family in FAMILY_ALIASES:
        family, forced = FAMILY_ALIASES[family]
    forms = _forms(" ".join((text, *[t.lower() for t in tag_texts])))
    others = _forms(" ".join([*(t.lower() for t in form_texts), gpu_info.lower()]))
    forms = list(dict.fromkeys([*([forced] if forced else []), *forms, *others]))
    conflict = ""
    if len(forms) > 1:
        conflict = "the row states both " + " and ".join(FORM_NAMES[f] for f in forms)
    memory = _memory_of(text)
    for tag in tag_texts:
        memory = memory or _memory_of(tag.lower().replace("_", " "))
    memory = memory or gpu_info_memory_gb(gpu_info)
    hbm = _HBM.search(" ".join((text, *[t.lower() for t in tag_texts])))
    edition = "server" if "server" in text else ""
    if re.search(r"workstation|\bws\b", text):
        edition = "workstation"
    return Stated(
        family=family,
        form=forms[0] if len(forms) == 1 else "",
        memory_gb=memory,
        memory_type=f"hbm{hbm.group(1)}{hbm.group(2)}" if hbm else "",
        edition=edition,
        conflict=conflict,
    )


def _memory_fits(stated: float, variant: Variant) -> bool:
    return abs(stated - variant.memory_gb) <= variant.memory_gb * MEMORY_TOLERANCE


def _unknown(name: str, stated: Stated, reason: str) -> Identity:
    form = f" ({stated.form.upper()})" if stated.form and not reason else ""
    label = f"{name}{form}" + (f" ({reason})" if reason else "")
    return Identity(None, label, reason or "not in the catalog")


def identify(
    name: str,
    known: frozenset[str] | set[str],
    *,
    table: Identified | None = None,
    form_texts: tuple[str, ...] = (),
    tag_texts: tuple[str, ...] = (),
    gpu_info: str = "",
) -> Identity:
    """The catalog slug a row's GPU is, or None with the label it is listed under."""
    if table is not None:  # the instance-to-GPU table names the exact card
        if table.slug in known:
            return Identity(table.slug, "")
        return Identity(None, f"{name or table.card} ({table.card})", "not in the catalog")
    if name.strip().lower() in known:
        return Identity(name.strip().lower(), "")
    stated = read_row(name, form_texts=form_texts, tag_texts=tag_texts, gpu_info=gpu_info)
    variants = FAMILIES.get(stated.family)
    if variants is None:
        return _unknown(name, stated, "")
    if stated.conflict:
        return _unknown(name, stated, stated.conflict)
    matching = [
        v
        for v in variants
        if (not stated.form or v.form == stated.form)
        and (stated.memory_gb is None or _memory_fits(stated.memory_gb, v))
        and (not stated.memory_type or not v.memory_type or v.memory_type == stated.memory_type)
        and (not stated.edition or v.edition == stated.edition)
    ]
    if not matching:
        said = ", ".join(
            part
            for part in (
                FORM_NAMES.get(stated.form, ""),
                f"{round(stated.memory_gb, 1):g} GB" if stated.memory_gb else "",
                stated.memory_type.upper(),
            )
            if part
        )
        return _unknown(name, stated, f"no {stated.family.upper()} variant is {said}")
    if len(matching) > 1:
        return _unknown(name, stated, _unstated(matching))
    slug = matching[0].slug
    if slug not in known:
        return _unknown(name, stated, "")
    return Identity(slug, "")


def _unstated(matching: list[Variant]) -> str:
    """Why several variants remain: which fact the row leaves out."""
    missing = []
    if len({v.form for v in matching}) > 1:
        forms = " or ".join(dict.fromkeys(FORM_NAMES[v.form] for v in matching))
        missing.append(f"form factor not stated: {forms}")
    if len({v.memory_gb for v in matching}) > 1:
        sizes = " or ".join(dict.fromkeys(f"{v.memory_gb} GB" for v in matching))
        missing.append(f"memory not stated: {sizes}")
    if len({v.edition for v in matching}) > 1:
        missing.append("edition not stated: Workstation or Server")
    return "; ".join(missing)
