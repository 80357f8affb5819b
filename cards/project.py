"""Who makes GroundBench and where its code lives, for the card and croissant.json: the package's own metadata
(``pyproject.toml`` ``[project]`` authors, maintainers and urls, as installed), so it is typed in one place.

Read through :mod:`importlib.metadata` (the installed distribution's core metadata: ``Author``,
``Maintainer``, their ``-email`` forms and ``Project-URL``), which is what a wheel or an editable install of
the checkout carries; ``make build`` reinstalls the checkout whenever ``pyproject.toml`` changes, and the
``assemble`` stage of ``dvc.yaml`` depends on those keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.utils import getaddresses
from functools import cache
from importlib import metadata

from groundbench.errors import GroundBenchError

DISTRIBUTION = "groundbench"
REPOSITORY, ISSUES = "Repository", "Issues"  # the [project.urls] labels the card reads


@dataclass(frozen=True)
class ProjectInfo:
    repository: str  # the code repository's URL
    issues: str  # where to report a problem or ask: the issue tracker's URL
    authors: tuple[str, ...]
    maintainers: tuple[str, ...]  # "Name <email>" where an email is given

    @property
    def contact(self) -> str:
        """How to reach the maintainers: their addresses where given, else the issue tracker."""
        emails = [m for m in self.maintainers if "@" in m]
        return f"{', '.join(emails)}, or an issue at {self.issues}" if emails else f"an issue at {self.issues}"


def _people(fields: metadata.PackageMetadata, kind: str) -> tuple[str, ...]:
    """``Author``/``Maintainer`` (names alone) and ``Author-email``/``Maintainer-email`` ("Name <email>")."""
    names = [n.strip() for value in fields.get_all(kind) or [] for n in value.split(",") if n.strip()]
    for name, email in getaddresses(fields.get_all(f"{kind}-email") or []):
        if email:
            names.append(f"{name} <{email}>" if name else email)
    return tuple(names)


@cache
def project_info() -> ProjectInfo:
    """The installed package's repository, issue tracker, authors and maintainers (one error when one is missing)."""
    try:
        fields = metadata.metadata(DISTRIBUTION)
    except metadata.PackageNotFoundError as exc:
        raise GroundBenchError("pyproject.toml", "project", "groundbench is not installed (make env)") from exc
    urls = dict(
        (label.strip(), url.strip())
        for label, _, url in (u.partition(",") for u in fields.get_all("Project-URL") or [])
    )
    info = ProjectInfo(
        urls.get(REPOSITORY, ""), urls.get(ISSUES, ""), _people(fields, "Author"), _people(fields, "Maintainer")
    )
    for key, value in (
        (f"project.urls.{REPOSITORY}", info.repository),
        (f"project.urls.{ISSUES}", info.issues),
        ("project.authors", info.authors),
        ("project.maintainers", info.maintainers),
    ):
        if not value:
            reason = "expected it in [project] of the installed metadata (edit pyproject.toml, then make env)"
            raise GroundBenchError("pyproject.toml", key, reason)
    return info
