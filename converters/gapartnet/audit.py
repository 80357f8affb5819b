"""The curated-GAPartNet audit file (``data/audits/curated_gapartnet.yaml``, human-written, git-tracked).

Each entry names an object, the view to use (a render file stem), the target link, optionally an
action that overrides the part-class table for that target, a note, and optionally ``exclude``: the
reason the auditor excludes the target (the row stays, tagged ``audit_excluded``). Nothing else
excludes a curated target: a projected box that misses its mask is replaced by the mask's box and
flagged. Problems name the entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from groundbench.core.errors import GroundBenchError
from groundbench.schemas.vocab import ACTIONS


@dataclass(frozen=True)
class AuditEntry:
    object_id: str
    view: str
    target: str
    action: str | None
    note: str
    exclude: str | None = None  # the auditor's reason for excluding the target

    @property
    def where(self) -> str:
        return f"objects[{self.object_id}]"

    @property
    def row_note(self) -> str:
        """The note written into the row (``extras.gapartnet.audit_note``), with the exclusion reason."""
        if self.exclude is None:
            return self.note
        return f"excluded: {self.exclude}" + (f"; {self.note}" if self.note else "")


def read_audit(path: Path) -> tuple[AuditEntry, ...]:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise GroundBenchError(path, "file", f"expected a readable YAML audit file ({exc})") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("objects"), list):
        raise GroundBenchError(path, "objects", "expected a mapping with an 'objects' list")
    entries: dict[str, AuditEntry] = {}
    for number, item in enumerate(raw["objects"]):
        where = f"objects[{number}]"
        if not isinstance(item, dict):
            raise GroundBenchError(path, where, "expected a mapping with object, view, target")
        for key in ("object", "view", "target"):
            if not isinstance(item.get(key), (str, int)) or isinstance(item.get(key), bool):
                raise GroundBenchError(path, f"{where}.{key}", "missing required key")
        object_id = str(item["object"])
        action = item.get("action")
        if action is not None and action not in ACTIONS:
            raise GroundBenchError(path, f"{where}.action", f"expected one of {ACTIONS}, got {action!r}")
        if object_id in entries:
            raise GroundBenchError(path, where, f"object {object_id} audited twice")
        exclude = item.get("exclude")
        if exclude is not None and (not isinstance(exclude, str) or not exclude.strip()):
            raise GroundBenchError(path, f"{where}.exclude", "expected the reason for excluding, as text")
        entries[object_id] = AuditEntry(
            object_id, str(item["view"]), str(item["target"]), action, str(item.get("note", "")), exclude
        )
    return tuple(entries[k] for k in sorted(entries))
