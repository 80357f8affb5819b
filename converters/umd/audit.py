"""The curated-UMD audit file (``data/audits/curated_umd.yaml``, human-written, git-tracked)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from groundbench.core.errors import GroundBenchError

FRAME_RULES = ("hand_labelled", "any")


@dataclass(frozen=True)
class AuditEntry:
    tool: str
    frame: int | None  # an explicit frame overrides the rule
    note: str


@dataclass(frozen=True)
class Audit:
    frame_rule: str
    entries: tuple[AuditEntry, ...]


def read_audit(path: Path) -> Audit:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise GroundBenchError(path, "file", f"expected a readable YAML audit file ({exc})") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("tools"), list):
        raise GroundBenchError(path, "tools", "expected a mapping with a 'tools' list")
    rule = raw.get("frame_rule", "hand_labelled")
    if rule not in FRAME_RULES:
        raise GroundBenchError(path, "frame_rule", f"expected one of {FRAME_RULES}, got {rule!r}")
    entries = []
    seen: set[str] = set()
    for number, item in enumerate(raw["tools"]):
        where = f"tools[{number}]"
        if not isinstance(item, dict) or not isinstance(item.get("tool"), str):
            raise GroundBenchError(path, where, "expected a mapping with a 'tool' name")
        frame = item.get("frame")
        if frame is not None and (not isinstance(frame, int) or isinstance(frame, bool) or frame < 1):
            raise GroundBenchError(path, f"{where}.frame", f"expected a frame number >= 1, got {frame!r}")
        if item["tool"] in seen:
            raise GroundBenchError(path, where, f"tool {item['tool']} audited twice")
        seen.add(item["tool"])
        entries.append(AuditEntry(tool=item["tool"], frame=frame, note=str(item.get("note", ""))))
    return Audit(frame_rule=rule, entries=tuple(sorted(entries, key=lambda e: e.tool)))
