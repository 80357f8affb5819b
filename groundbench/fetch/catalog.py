"""Where each real source lives, under which terms, and what the build makes of it: made from the source
folders' specs (``converters/<name>/spec.py``, their ``fetch``).

Locations, sizes, pins and licences were read from each source's dataset card, repository or
host page (docs/sources.md, "Real sources", names them). Nothing here is fetched at import.
"""

from __future__ import annotations

from dataclasses import dataclass

from groundbench.core.registry import FETCHES, configs_of, sources_key
from groundbench.core.spec import HTTP, HUB, MANUAL, Fetch

__all__ = ["AUTOMATIC", "HTTP", "HUB", "MANUAL", "SOURCES", "SourceSpec", "spec"]


@dataclass(frozen=True)
class SourceSpec(Fetch):
    """A spec's ``fetch`` with what the catalogue adds from the rest of the spec."""

    name: str = ""  # the folder under data/sources/ and the converter's source name
    makes: tuple[str, ...] = ()  # configs the build makes from it
    params_key: str = ""  # key under `sources:` in params.yaml


SOURCES: dict[str, SourceSpec] = {
    name: SourceSpec(**vars(fetch), name=name, makes=configs_of(name), params_key=sources_key(name))
    for name, fetch in FETCHES.items()
}
# What `make fetch` downloads by default (the Makefile's FETCH): every source not behind a request form.
AUTOMATIC: tuple[str, ...] = tuple(name for name, s in SOURCES.items() if s.automatic)


def spec(name: str) -> SourceSpec:
    from groundbench.errors import unknown_name

    if name not in SOURCES:
        raise unknown_name("command line", "source", name, sorted(SOURCES))
    return SOURCES[name]
