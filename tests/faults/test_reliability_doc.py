"""The generated fault-suite section of docs/reliability.md: made only of recorded cases, in a fixed order,
replacing only its own part of the file, and the committed file carries it."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from tests.support.reliability import DOC, FAULT_BEGIN, FAULT_END, FaultRecorder, fault_section, with_fault_section


def _case(fault_class: str, case: str) -> dict[str, object]:
    return {"fault_class": fault_class, "case": case, "exit": 2, "shown": "error: x | y", "rerun": "n/a", "file": "f"}


def test_the_section_is_sorted_and_counts_classes_and_cases() -> None:
    cases = [_case("b", "2"), _case("a", "9"), _case("b", "1")]
    section = fault_section(cases)
    assert section == fault_section(list(reversed(cases)))  # the order cases arrive in does not matter
    assert "2 fault classes, 3 cases" in section
    rows = [line for line in section.splitlines() if line.startswith("| a |") or line.startswith("| b |")]
    assert [row.split(" | ")[1] for row in rows] == ["9", "1", "2"]
    assert "`error: x \\| y`" in section  # a pipe in a message does not split the table


def test_replacing_the_section_keeps_the_rest_of_the_file() -> None:
    text = "# hardening table\n\n| a | b |\n"
    first = with_fault_section(text, fault_section([_case("a", "1")]))
    second = with_fault_section(first, fault_section([_case("a", "2")]))
    assert second.startswith(text) and second.count(FAULT_BEGIN) == 1 and second.count(FAULT_END) == 1
    assert "| a | 2 |" in second and "| a | 1 |" not in second


def test_messages_are_made_portable(tmp_path: Path) -> None:
    node = SimpleNamespace(path=Path("tests/test_faults_x.py"), user_properties=[])
    recorder = FaultRecorder(node, [tmp_path])
    line = f"error: {tmp_path}/data/.umd.123@0a1b2c3d.k2j_x9.tmp: http://127.0.0.1:4567/commit/{'ab' * 20}"
    recorder.record("c", "k", exit=2, shown=line, rerun="n/a")
    ((name, value),) = node.user_properties
    assert name == "fault_case"
    assert value["shown"] == "error: <tmp>/data/.umd.<pid>@<host>.<random>.tmp: http://127.0.0.1:<port>/commit/<commit>"


def test_the_committed_file_has_the_section() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert text.count(FAULT_BEGIN) == 1 and text.index(FAULT_BEGIN) < text.index(FAULT_END)
