"""The reliability campaigns: what the parsers are fed (tests/converters/*/test_hardening_*.py) and the table made
of it; and the fault suite's cases (tests/faults/test_faults*.py) with their section of the same file.

Each hardening file records its campaigns in :data:`CAMPAIGNS`. When the run ends, tests/conftest.py
collects them (from every xdist worker) and :func:`write_table` writes docs/reliability.md under
``make reliability`` (GROUNDBENCH_WRITE_RELIABILITY=1), else build/reliability.md so that `make test`
leaves the work tree clean. No test depends on running after another one.

The fault suite records each case through the ``fault_case`` fixture (tests/conftest.py); once every
test of every tests/faults/test_faults*.py file has run and passed, :func:`check_fault_section` compares the
section made of them with the one in docs/reliability.md (the run fails on a difference) or, under
GROUNDBENCH_WRITE_RELIABILITY=1, writes it there.
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

from groundbench.errors import GroundBenchError

REPO = Path(__file__).resolve().parents[2]
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
    for name in project["tool"]["setuptools"]["package-dir"]:  # the top-level folders; setup.py finds the rest
        package = importlib.import_module(name)
        for module in pkgutil.walk_packages(package.__path__, f"{name}."):
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
        "Generated by `tests/converters/*/test_hardening_*.py` (`make reliability`); do not edit by hand. Each",
        f"fuzz campaign runs {EXAMPLES} derandomized hypothesis examples: mutations of real or sample bytes and random",
        "input. Allowed outcomes: parsed, a row with a documented exclusion tag, or `GroundBenchError` naming file,",
        "field and reason. Any other exception fails the suite. Build-fault and tamper tests:",
        "`tests/faults/test_faults.py`, `tests/pipeline/test_pipeline.py` (verify), `tests/pipeline/test_dvc.py`",
        "(`dvc status`), `tests/converters/umd/test_umd_bad_input.py`, `tests/converters/gui/test_gui_real.py`. A GUI",
        "case converts a small source folder (mutated real fixture records from `tests/fixtures/gui`, blank",
        "screenshots of the recorded sizes) and validates every row it wrote as `bake` does; an invalid row written",
        "fails the suite like a crash.",
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
    # build/ so that `make test` leaves the work tree clean. The fault suite's section is kept as committed.
    target = REPO / ("docs" if os.environ.get("GROUNDBENCH_WRITE_RELIABILITY") else "build") / "reliability.md"
    target.parent.mkdir(exist_ok=True)
    text = "\n".join(lines) + "\n"
    section = _fault_section_of(DOC.read_text(encoding="utf-8")) if DOC.is_file() else None
    target.write_text(text + ("\n" + section if section else ""), encoding="utf-8")
    return target


# The fault suite ------------------------------------------------------------------------------------------

DOC = REPO / "docs" / "reliability.md"
FAULT_BEGIN = "<!-- fault suite: generated from tests/faults/test_faults*.py (the fault_case fixture); do not edit -->"
FAULT_END = "<!-- end of the fault suite -->"
FAULT_FILES = "test_faults*.py"
PROPERTY = "fault_case"  # the user property each recorded case travels in (xdist hands it to the controller)
FAULT_CASES: list[dict[str, Any]] = []  # recorded by the tests that passed, in any order
FAULT_RESULTS: dict[str, bool] = {}  # node id of every fault-suite test that ran -> passed
FAULT_COLLECTED: set[str] = set()


class FaultRecorder:
    """What a fault-suite test hands to the ``fault_case`` fixture: one :meth:`record` per case it checked.

    A case is recorded only after its assertions held (record last); the table shows only cases of
    tests that passed. Messages are made portable (this run's folders, ports and temporary names).
    """

    def __init__(self, node: Any, folders: list[Path]) -> None:
        self.node = node
        self.folders = folders
        self.cases = 0

    def portable(self, text: str) -> str:
        for folder in sorted(self.folders, key=lambda f: -len(str(f))):
            for spelled in {str(folder), str(folder.resolve())}:
                text = text.replace(spelled, "<tmp>")
        text = text.replace(str(REPO), "<repo>")
        text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<port>", text)
        # the Hub stand-in's commit ids follow the uploaded bytes, which hold the machine's git state
        text = re.sub(r"/commit/[0-9a-f]{40}", "/commit/<commit>", text)
        text = re.sub(r"\(commit [0-9a-f]{12}\)", "(commit <commit>)", text)
        text = re.sub(r"\.\d+@[0-9a-f]{8}\.[a-z0-9_]+\.(tmp|old)\b", r".<pid>@<host>.<random>.\1", text)
        return text

    def record(self, fault_class: str, case: str, *, exit: int, shown: str, rerun: str) -> None:
        """``shown``: the line the user sees (the ``error:`` line of a failure); ``rerun``: what the rerun gave."""
        value = {
            "fault_class": fault_class,
            "case": case,
            "exit": exit,
            "shown": self.portable(shown),
            "rerun": rerun,
            "file": self.node.path.name,
        }
        self.node.user_properties.append((PROPERTY, value))
        self.cases += 1


def _fault_section_of(text: str) -> str | None:
    if FAULT_BEGIN not in text:
        return None
    start = text.index(FAULT_BEGIN)
    end = text.index(FAULT_END, start) + len(FAULT_END)
    return text[start:end] + "\n"


def fault_section(cases: list[dict[str, Any]]) -> str:
    """The generated section: the fault classes with their cases and outcomes (sorted: runs are comparable)."""
    rows = sorted(cases, key=lambda c: (c["fault_class"], c["case"]))
    classes = sorted({c["fault_class"] for c in rows})
    files = sorted({c["file"] for c in rows})
    lines = [
        FAULT_BEGIN,
        "",
        "## Faults a user can cause or meet",
        "",
        f"{len(classes)} fault classes, {len(rows)} cases, injected for real by {', '.join(f'`{f}`' for f in files)}",
        "(a size-limited tmpfs for a full disk, a read-only bind mount, file modes binding an unprivileged user,",
        "signals, concurrent processes, loopback servers that cut, corrupt or drop replies). Each case asserts:",
        "one `error:` line and no stack (unless `--debug` or GROUNDBENCH_DEBUG=1), the exit status, no partial or",
        "damaged file accepted, and that the documented rerun restores byte-identical outputs. `make test-faults`",
        "(CI runs it) fails when this section differs from what the run generates; `make reliability-faults`",
        "rewrites it.",
        "",
        "| fault class | case | exit | what the user sees | after the rerun |",
        "| --- | --- | ---: | --- | --- |",
    ]
    for case in rows:
        shown = case["shown"].replace("|", "\\|").replace("\n", " ")
        if len(shown) > 220:
            shown = shown[:217] + "..."
        cells = [case["fault_class"], case["case"], str(case["exit"]), f"`{shown}`" if shown else "", case["rerun"]]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", FAULT_END]
    return "\n".join(lines) + "\n"


def with_fault_section(text: str, section: str) -> str:
    """``text`` (docs/reliability.md) with its fault section replaced, or appended when it has none."""
    current = _fault_section_of(text)
    if current is None:
        return text.rstrip("\n") + "\n\n" + section
    return text.replace(current, section)


def fault_suite_complete() -> bool:
    """Every collected test of the fault suite ran and passed, and every file of it was collected whole."""
    on_disk = {p.name for p in (REPO / "tests" / "faults").glob(FAULT_FILES)}
    collected = {node.split("::")[0].rsplit("/", 1)[-1] for node in FAULT_COLLECTED}
    return bool(FAULT_COLLECTED) and on_disk <= collected and all(FAULT_RESULTS.get(n) for n in FAULT_COLLECTED)


def check_fault_section() -> str | None:
    """Compare (or, under GROUNDBENCH_WRITE_RELIABILITY=1, write) the section; the problem, if any."""
    section = fault_section(FAULT_CASES)
    text = DOC.read_text(encoding="utf-8")
    if os.environ.get("GROUNDBENCH_WRITE_RELIABILITY"):
        DOC.write_text(with_fault_section(text, section), encoding="utf-8")
        return None
    if _fault_section_of(text) == section:
        return None
    generated = REPO / "build" / "reliability-faults.md"
    generated.parent.mkdir(exist_ok=True)
    generated.write_text(section, encoding="utf-8")
    return (
        f"docs/reliability.md: its fault-suite section differs from what this run generated ({generated}); "
        "run `make reliability-faults` and commit the result"
    )
