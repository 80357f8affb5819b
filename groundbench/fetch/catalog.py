"""Where each real source lives, under which terms, and what the build makes of it: made from the source
folders' specs (``converters/<name>/spec.py``, their ``fetch``).

Locations, sizes, pins and licences were read from each source's dataset card, repository or
host page (docs/sources.md, "Real sources", names them). Nothing here is fetched at import.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from groundbench.core import registry
from groundbench.core.spec import GITHUB, HTTP, HUB, MANUAL, Fetch

__all__ = ["AUTOMATIC", "GITHUB", "HTTP", "HUB", "MANUAL", "SOURCES", "SourceSpec", "spec"]


@dataclass(frozen=True)
class SourceSpec(Fetch):
    """A spec's ``fetch`` with what the catalogue adds from the rest of the spec."""

    name: str = ""  # the folder under data/sources/ and the converter's source name
    makes: tuple[str, ...] = ()  # configs the build makes from it
    params_key: str = ""  # key under `sources:` in params.yaml


@functools.cache  # one catalogue per registry view: the folders the command loads
def _catalogue(view: registry.View) -> dict[str, SourceSpec]:
    return {
        name: SourceSpec(
            **vars(fetch), name=name, makes=registry.configs_of(name), params_key=registry.sources_key(name)
        )
        for name, fetch in registry.FETCHES.items()
    }


if TYPE_CHECKING:
    SOURCES: dict[str, SourceSpec]
    AUTOMATIC: tuple[str, ...]  # what `make fetch` downloads by default (the Makefile's FETCH)
else:

    def __getattr__(name: str) -> Any:
        # PEP 562: read from the folders the command loads when used (a convert stage loads its own only).
        if name == "SOURCES":
            return _catalogue(registry.view())
        if name == "AUTOMATIC":  # every source not behind a request form
            return tuple(key for key, s in _catalogue(registry.view()).items() if s.automatic)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def spec(name: str) -> SourceSpec:
    from groundbench.errors import unknown_name

    sources = _catalogue(registry.view())
    if name not in sources:
        raise unknown_name("command line", "source", name, sorted(sources))
    return sources[name]
