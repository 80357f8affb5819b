"""``data/groundbench/croissant.json``: Croissant (JSON-LD) metadata generated from the same facts as the card.

One record set per config, every field typed from ``schemas/features.py`` and described by the
description beside it there (structs become ``subField``, lists ``isArray``, the image an
``sc:ImageObject`` read from the embedded bytes), and one ``FileObject`` with sha256 per Parquet
file. The ``baselines`` config is a record set too, with its own fields
(``schemas/baselines_features.py``) keyed by ``baseline_id``. mlcroissant reads every record set
straight from the published Parquet files (tested for every config). Dataset-level metadata: the
version, ``datePublished`` and ``url`` from params.yaml, the licence of each source the build read,
and the Responsible-AI fields (``rai:``) that the build's own facts support.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from groundbench.cards.project import project_info
from groundbench.cards.render import groundbench_citation, licence_rows, rai_facts
from groundbench.core.atomic import write_text
from groundbench.errors import GroundBenchError
from groundbench.schemas.baselines_features import BASELINE_FEATURES, BASELINES_KEY, baseline_description
from groundbench.schemas.features import PUBLISHED_FEATURES, description
from groundbench.schemas.types import Image, List, Value
from groundbench.stages.facts import BaselinesCard, ConfigCard, DatasetFacts

PARQUET_FORMAT = "application/x-parquet"
CROISSANT_FILE = "croissant.json"
CONFORMS_TO = "http://mlcommons.org/croissant/1.1"

# The JSON-LD context of Croissant 1.x (mlcroissant's own, plus the 1.1 array terms), fixed here so
# the file's bytes depend on nothing but the data.
CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "arrayShape": "cr:arrayShape",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isArray": "cr:isArray",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}

DATA_TYPES = {
    "string": "sc:Text",
    "int32": "sc:Integer",
    "int64": "sc:Integer",
    "float64": "sc:Float",
    "bool": "sc:Boolean",
}


Describe = Callable[[str], "str | None"]


def _field(
    uid: str,
    name: str,
    feature: Any,
    file_set: str,
    column: str,
    dotted: str,
    steps: tuple[str, ...],
    describe: Describe,
) -> dict[str, Any]:
    """One field. ``dotted`` is the field's path for its description (``extras.gapartnet.parts.part_id``);
    ``steps`` are the jsonPath transforms that reach it inside the column's value, one per list of
    structs crossed: mlcroissant applies a transform to each element once a value is a list, but a
    single jsonPath through a list (``gapartnet.parts.part_id``) fails on it."""
    text = describe(dotted)
    if text is None:
        raise GroundBenchError("schemas/features.py", dotted, "no description beside the field")
    source: dict[str, Any] = {"fileSet": {"@id": file_set}, "extract": {"column": column}}
    paths = [step for step in steps if step]
    if isinstance(feature, Image):
        paths = [*paths[:-1], f"{paths[-1]}.bytes"] if paths else ["bytes"]
    if paths:
        transforms = [{"jsonPath": step} for step in paths]
        source["transform"] = transforms[0] if len(transforms) == 1 else transforms
    head = {"@type": "cr:Field", "@id": uid, "name": name, "description": text}
    if isinstance(feature, Value):
        return {**head, "dataType": DATA_TYPES[feature.dtype], "source": source}
    if isinstance(feature, Image):
        return {**head, "dataType": "sc:ImageObject", "source": source}
    if isinstance(feature, dict):
        last = steps[-1] if steps else ""
        return {
            **head,
            "subField": [
                _field(
                    f"{uid}/{key}",
                    key,
                    sub,
                    file_set,
                    column,
                    f"{dotted}.{key}",
                    (*steps[:-1], f"{last}.{key}" if last else key),
                    describe,
                )
                for key, sub in feature.items()
            ],
        }
    if isinstance(feature, List):
        # The list's own value is reached by ``steps``; the fields of its elements start a new step.
        inner = _field(uid, name, feature.feature, file_set, column, dotted, steps, describe)
        if isinstance(feature.feature, dict):
            inner["subField"] = [
                _field(f"{uid}/{key}", key, sub, file_set, column, f"{dotted}.{key}", (*steps, key), describe)
                for key, sub in feature.feature.items()
            ]
        inner["isArray"] = True
        if feature.length != -1:
            inner["arrayShape"] = str(feature.length)
        return inner
    raise GroundBenchError("schemas/features.py", name, f"no Croissant type for feature {feature!r}")


def file_set_id(config: str) -> str:
    return f"shards-{config}"


def _shard_objects(name: str, config: ConfigCard | BaselinesCard, what: str) -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = [
        {
            "@type": "cr:FileObject",
            "@id": f"data/{name}/{shard.name}",
            "name": f"data/{name}/{shard.name}",
            "description": f"Data file of config {name} ({what}).",
            "contentUrl": f"data/{name}/{shard.name}",
            "contentSize": f"{shard.bytes} B",
            "encodingFormat": PARQUET_FORMAT,
            "sha256": shard.sha256,
        }
        for shard in config.shards
    ]
    objects.append(
        {
            "@type": "cr:FileSet",
            "@id": file_set_id(name),
            "name": file_set_id(name),
            "description": f"Every data file of config {name}.",
            "encodingFormat": PARQUET_FORMAT,
            "includes": f"data/{name}/*.parquet",
        }
    )
    return objects


def croissant_document(facts: DatasetFacts) -> dict[str, Any]:
    distribution: list[dict[str, Any]] = []
    record_sets: list[dict[str, Any]] = []
    for config in facts.configs:
        distribution.extend(_shard_objects(config.name, config, "Parquet, image bytes embedded"))
        record_sets.append(
            {
                "@type": "cr:RecordSet",
                "@id": config.name,
                "name": config.name,
                "description": f"{config.stratum} stratum from {config.source}: {config.row}. "
                f"{config.rows} rows, {config.excluded} excluded.",
                "key": {"@id": f"{config.name}/example_id"},
                "field": [
                    _field(
                        f"{config.name}/{column}",
                        column,
                        feature,
                        file_set_id(config.name),
                        column,
                        column,
                        (),
                        description,
                    )
                    for column, feature in PUBLISHED_FEATURES.items()
                ],
            }
        )
    derived = facts.baselines
    if derived is not None:
        name = derived.name
        distribution.extend(_shard_objects(name, derived, "Parquet, aggregate baselines, no images"))
        record_sets.append(
            {
                "@type": "cr:RecordSet",
                "@id": name,
                "name": name,
                "description": f"Baselines derived from every config above: {derived.row}. {derived.rows} rows. "
                "Definitions in scoring/baselines.py.",
                "key": {"@id": f"{name}/{BASELINES_KEY}"},
                "field": [
                    _field(
                        f"{name}/{column}", column, feature, file_set_id(name), column, column, (), baseline_description
                    )
                    for column, feature in BASELINE_FEATURES.items()
                ],
            }
        )
    synthetic = (
        "SYNTHETIC SAMPLE BUILD: configs "
        + ", ".join(facts.synthetic)
        + " were made from GroundBench's embedded samples, not from the real sources; scores on them mean nothing. "
        if facts.synthetic
        else ""
    )
    return {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "name": "GroundBench",
        "description": synthetic + "Where vision-language models fail at grounding: which part of an object "
        "affords an action, and which pixel of a screen a command means. Strata are kept apart; see README.md.",
        "conformsTo": CONFORMS_TO,
        "version": facts.version,
        "datePublished": facts.date_published,
        "url": facts.url,
        # Several sources, several terms: one entry per source the build read (the card's Licences section).
        "license": [f"{title} ({configs}): {licence}" for title, configs, licence in licence_rows(facts)],
        "citeAs": groundbench_citation(facts),
        "creator": {
            "@type": "sc:Organization",
            "name": ", ".join(project_info().authors),
            "url": project_info().repository,
        },
        "keywords": ["affordance", "grounding", "vision-language models", "benchmark"],
        "inLanguage": facts.languages,
        **{f"rai:{key}": value for key, value in rai_facts(facts).items()},
        "distribution": distribution,
        "recordSet": record_sets,
    }


def croissant_text(facts: DatasetFacts) -> str:
    return json.dumps(croissant_document(facts), indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def write_croissant(folder: Path, facts: DatasetFacts) -> None:
    write_text(folder / CROISSANT_FILE, croissant_text(facts))


def validate_croissant(path: Path) -> list[str]:
    """Offline validation with mlcroissant: returns the errors (empty when valid); warnings are ignored."""
    import mlcroissant as mlc  # imported here: slow to import and only needed for the checks

    # mlcroissant logs warnings through absl; only errors fail the check.
    logging.getLogger("absl").setLevel(logging.ERROR)
    try:
        dataset = mlc.Dataset(jsonld=str(path))
    except mlc.ValidationError as exc:
        return [str(exc)]
    return sorted(str(error) for error in dataset.metadata.ctx.issues.errors)
