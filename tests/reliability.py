"""The reliability campaigns: what the parsers are fed (tests/test_hardening_*.py) and the table made of it.

Each hardening file records its campaigns in :data:`CAMPAIGNS`. When the run ends, tests/conftest.py
collects them (from every xdist worker) and :func:`write_table` writes docs/reliability.md under
``make reliability`` (GROUNDBENCH_WRITE_RELIABILITY=1), else build/reliability.md so that `make test`
leaves the work tree clean. No test depends on running after another one.
"""

from __future__ import annotations

import importlib
import io
import os
import pkgutil
import re
import struct
import tomllib
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from PIL import Image

from groundbench.core.errors import GroundBenchError

REPO = Path(__file__).resolve().parents[1]
# The test_fuzz_* functions: 7 UMD (one is the image campaign, source "all"), 10 GAPartNet, 5 GUI.
FUZZ_CAMPAIGNS = 22
EXAMPLES = 60  # per campaign; derandomized so the table is the same on every run
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    # Generation only: shrinking, explaining and targeting adapt to timing, which would make the
    # generated table differ between runs.
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)


def same_constant_pool() -> None:
    """Import every module of the project before any campaign generates.

    Hypothesis mixes the literals of every local module imported so far into what it generates, so
    without this the examples (and the table) would differ between ``make reliability`` and ``make
    test``, whose workers collect every test file and so import more modules. With every module
    imported, the pool is the same whatever a run collected (no Hypothesis internals touched).
    """
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    for name in project["tool"]["setuptools"]["packages"]:
        package = importlib.import_module(name)
        for module in pkgutil.iter_modules(package.__path__, f"{name}."):
            if not module.ispkg and not module.name.endswith("__main__"):
                importlib.import_module(module.name)


@dataclass
class Campaign:
    source: str
    input_class: str
    outcomes: Counter[str] = field(default_factory=Counter)
    first_error: str = ""


CAMPAIGNS: dict[str, Campaign] = {}


def _record(
    source: str, input_class: str, run: Callable[[], object], portable: Callable[[str], str] | None = None
) -> None:
    """Run one case; a string result names the outcome (e.g. a row kept with an exclusion tag)."""
    campaign = CAMPAIGNS.setdefault(input_class, Campaign(source, input_class))
    try:
        result = run()
    except GroundBenchError as exc:
        campaign.outcomes["refused: GroundBenchError"] += 1
        campaign.first_error = campaign.first_error or (portable or _portable)(str(exc))
        assert exc.path and exc.field and exc.reason
        return
    campaign.outcomes[result if isinstance(result, str) else "parsed"] += 1


def _portable(message: str) -> str:
    """The message without this run's temporary folders, so the generated table is reproducible."""
    return re.sub(r"(/[^\s:/]+)+/(?=[^/\s:]+:)", "", message)


def _mutate(seed: bytes, flips: list[tuple[int, int]], cut: int | None) -> bytes:
    data = bytearray(seed)
    for position, value in flips:
        if data:
            data[position % len(data)] = value
    return bytes(data[:cut] if cut is not None else data)


def mutations(seeds: list[bytes]) -> st.SearchStrategy[bytes]:
    """Real bytes with a few bytes overwritten and/or cut short, plus plain random bytes."""
    flips = st.lists(st.tuples(st.integers(0, 1 << 30), st.integers(0, 255)), max_size=8)
    cut = st.one_of(st.none(), st.integers(0, max(len(s) for s in seeds)))
    mutated = st.builds(_mutate, st.sampled_from(seeds), flips, cut)
    return st.one_of(mutated, st.binary(max_size=2048))


def _bomb_png() -> bytes:
    """A valid 8x8 PNG whose header claims 100000x100000 pixels (the UMD and GUI image checks get it)."""
    buffer = io.BytesIO()
    Image.new("L", (8, 8)).save(buffer, format="PNG")
    data = bytearray(buffer.getvalue())
    ihdr = data.index(b"IHDR")
    data[ihdr + 4 : ihdr + 12] = struct.pack(">II", 100_000, 100_000)
    data[ihdr + 17 : ihdr + 21] = struct.pack(">I", zlib.crc32(bytes(data[ihdr : ihdr + 17])))
    return bytes(data)


def campaigns_json(campaigns: dict[str, Campaign]) -> dict[str, dict[str, Any]]:
    """Campaigns as plain data (an xdist worker hands them to the controller this way)."""
    return {
        key: {"source": c.source, "input_class": c.input_class, "outcomes": dict(c.outcomes), "error": c.first_error}
        for key, c in campaigns.items()
    }


def merge(data: dict[str, dict[str, Any]]) -> None:
    """Add a worker's campaigns (:func:`campaigns_json`) to :data:`CAMPAIGNS`."""
    for key, value in data.items():
        campaign = CAMPAIGNS.setdefault(key, Campaign(value["source"], value["input_class"]))
        campaign.outcomes.update(value["outcomes"])
        campaign.first_error = campaign.first_error or value["error"]


def missing_campaigns() -> int:
    """How many fuzz campaigns of the full set did not run (a run of some of the hardening tests)."""
    fuzz = [c for c in CAMPAIGNS.values() if not c.input_class.startswith("hostile")]
    return FUZZ_CAMPAIGNS - len(fuzz)


def write_table() -> Path:
    """Write the table from :data:`CAMPAIGNS`; returns the file written."""
    lines = [
        "# Reliability: what the parsers were fed and what they did",
        "",
        "Generated by `tests/test_hardening_*.py` (`make reliability`); do not edit by hand. Each fuzz campaign",
        f"runs {EXAMPLES} derandomized hypothesis examples: mutations of real or sample bytes and random input.",
        "Allowed outcomes: parsed, a row with a documented exclusion tag, or `GroundBenchError` naming file,",
        "field and reason. Any other exception fails the suite. Build-fault and tamper tests: `tests/test_faults.py`,",
        "`tests/test_pipeline.py` (verify), `tests/test_dvc.py` (`dvc status`), `tests/test_umd_bad_input.py`,",
        "`tests/test_gui_real.py`. A GUI case converts a small source folder (mutated real fixture records from",
        "`tests/fixtures/gui`, blank screenshots of the recorded sizes) and validates every row it wrote as `bake`",
        "does; an invalid row written fails the suite like a crash.",
        "",
        "| source | input class | cases | outcomes | first error shown to the user |",
        "| --- | --- | ---: | --- | --- |",
    ]
    for campaign in sorted(CAMPAIGNS.values(), key=lambda c: (c.source, c.input_class)):
        outcomes = ", ".join(f"{name}: {count}" for name, count in sorted(campaign.outcomes.items()))
        message = campaign.first_error.replace("|", "\\|").replace("\n", " ")
        if len(message) > 160:
            message = message[:157] + "..."
        total = sum(campaign.outcomes.values())
        lines.append(f"| {campaign.source} | {campaign.input_class} | {total} | {outcomes} | `{message}` |")
    # `make reliability` refreshes the committed table; an ordinary test run writes beside it under
    # build/ so that `make test` leaves the work tree clean.
    target = REPO / ("docs" if os.environ.get("GROUNDBENCH_WRITE_RELIABILITY") else "build") / "reliability.md"
    target.parent.mkdir(exist_ok=True)
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target
