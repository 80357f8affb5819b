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

from groundbench.converters.gapartnet.params import GapartnetAuditFile
from groundbench.core.params import load_file
from groundbench.errors import GroundBenchError


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
    """The file, validated by its one definition (``GapartnetAuditFile``); an object audited twice is an error too."""
    raw = load_file(GapartnetAuditFile, path, "audit file")
    entries: dict[str, AuditEntry] = {}
    for number, item in enumerate(raw.objects):
        if item.object in entries:
            raise GroundBenchError(path, f"objects[{number}]", f"object {item.object} audited twice")
        entries[item.object] = AuditEntry(item.object, item.view, item.target, item.action, item.note, item.exclude)
    return tuple(entries[k] for k in sorted(entries))
