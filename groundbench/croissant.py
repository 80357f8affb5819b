"""``data/groundbench/croissant.json``: Croissant (JSON-LD) metadata generated from the same facts as the card.

One record set per config, every field typed from ``schemas/features.py`` (structs become
``subField``, lists ``isArray``, the image an ``sc:ImageObject`` read from the embedded bytes), and
one ``FileObject`` with sha256 per shard. The ``baselines`` config is a record set too, with its
own fields (``schemas/baselines_features.py``) keyed by ``baseline_id``.

Arrow and mlcroissant: the shards are Arrow IPC files (the format the `datasets` Arrow builder
reads, and one format per Hugging Face folder). mlcroissant 1.1.1 declares the file as
``application/vnd.apache.arrow.file`` and validates it, but its reader only knows CSV, TSV, JSON,
JSON Lines, Parquet, ARFF, DICOM, text, audio and images (``operation_graph/operations/read.py``),
so it cannot load records from the Arrow files themselves. :func:`parquet_view` therefore writes,
outside the Hugging Face folder, a Parquet transcoding of the shards (same rows, same columns) and
the same Croissant document pointed at it; mlcroissant loads every record set from that view (the
tests compare those records with the shards). A second file format inside ``data/groundbench/``
would break ``load_dataset`` (one builder per folder), so the view never goes there.
"""

from __future__ import annotations

import copy
import json
import logging
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from datasets import Image, List, Value

from groundbench.atomic import write_text
from groundbench.cards.render import bibtex_entries
from groundbench.errors import GroundBenchError
from groundbench.facts import BaselinesCard, ConfigCard, DatasetFacts
from groundbench.manifests import sha256_file
from groundbench.schemas.baselines_features import BASELINE_FEATURES, BASELINES_KEY
from groundbench.schemas.features import FEATURES
from groundbench.shards import open_shard

ARROW_FORMAT = "application/vnd.apache.arrow.file"
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


def _field(uid: str, name: str, feature: Any, file_set: str, column: str, path: str | None) -> dict[str, Any]:
    source: dict[str, Any] = {"fileSet": {"@id": file_set}, "extract": {"column": column}}
    if path:
        source["transform"] = {"jsonPath": path}
    if isinstance(feature, Value):
        return {"@type": "cr:Field", "@id": uid, "name": name, "dataType": DATA_TYPES[feature.dtype], "source": source}
    if isinstance(feature, Image):
        source["transform"] = {"jsonPath": f"{path}.bytes" if path else "bytes"}
        return {"@type": "cr:Field", "@id": uid, "name": name, "dataType": "sc:ImageObject", "source": source}
    if isinstance(feature, dict):
        return {
            "@type": "cr:Field",
            "@id": uid,
            "name": name,
            "subField": [
                _field(f"{uid}/{key}", key, sub, file_set, column, f"{path}.{key}" if path else key)
                for key, sub in feature.items()
            ],
        }
    if isinstance(feature, List):
        inner = _field(uid, name, feature.feature, file_set, column, path)
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
            "description": f"Shard of config {name} ({what}).",
            "contentUrl": f"data/{name}/{shard.name}",
            "contentSize": f"{shard.bytes} B",
            "encodingFormat": ARROW_FORMAT,
            "sha256": shard.sha256,
        }
        for shard in config.shards
    ]
    objects.append(
        {
            "@type": "cr:FileSet",
            "@id": file_set_id(name),
            "name": file_set_id(name),
            "description": f"Every shard of config {name}.",
            "encodingFormat": ARROW_FORMAT,
            "includes": f"data/{name}/*.arrow",
        }
    )
    return objects


def croissant_document(facts: DatasetFacts) -> dict[str, Any]:
    distribution: list[dict[str, Any]] = []
    record_sets: list[dict[str, Any]] = []
    for config in facts.configs:
        distribution.extend(_shard_objects(config.name, config, "Arrow IPC file, image bytes embedded"))
        record_sets.append(
            {
                "@type": "cr:RecordSet",
                "@id": config.name,
                "name": config.name,
                "description": f"{config.stratum} stratum from {config.source}: {config.row}. "
                f"{config.rows} rows, {config.excluded} excluded.",
                "key": {"@id": f"{config.name}/example_id"},
                "field": [
                    _field(f"{config.name}/{column}", column, feature, file_set_id(config.name), column, None)
                    for column, feature in FEATURES.items()
                ],
            }
        )
    derived = facts.baselines
    if derived is not None:
        name = derived.name
        distribution.extend(_shard_objects(name, derived, "Arrow IPC file, aggregate baselines, no images"))
        record_sets.append(
            {
                "@type": "cr:RecordSet",
                "@id": name,
                "name": name,
                "description": f"Baselines derived from every config above: {derived.row}. {derived.rows} rows. "
                "Definitions in scoring/baselines.py.",
                "key": {"@id": f"{name}/{BASELINES_KEY}"},
                "field": [
                    _field(f"{name}/{column}", column, feature, file_set_id(name), column, None)
                    for column, feature in BASELINE_FEATURES.items()
                ],
            }
        )
    return {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "name": "GroundBench",
        "description": "Where vision-language models fail at grounding: which part of an object affords an "
        "action, and which pixel of a screen a command means. Strata are kept apart; see README.md.",
        "conformsTo": CONFORMS_TO,
        "version": facts.version,
        # Several sources, several terms: the card's Licences section lists them per source.
        "license": "other: per-source licences, see the Licences section of README.md",
        "citeAs": bibtex_entries()["groundbench"],
        "creator": {"@type": "sc:Organization", "name": "GroundBench contributors"},
        "keywords": ["affordance", "grounding", "vision-language models", "benchmark"],
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

    # mlcroissant logs warnings through absl; the one it gives here (no datePublished) is by design:
    # the file holds no dates, so two builds are byte-identical.
    logging.getLogger("absl").setLevel(logging.ERROR)
    try:
        dataset = mlc.Dataset(jsonld=str(path))
    except mlc.ValidationError as exc:
        return [str(exc)]
    return sorted(str(error) for error in dataset.metadata.ctx.issues.errors)


def parquet_view(folder: Path, out: Path) -> Path:
    """Transcode ``folder``'s shards to Parquet under ``out`` with a matching Croissant file; returns it.

    For mlcroissant, which cannot read Arrow IPC (see the module docstring). ``out`` must lie outside
    the Hugging Face folder.
    """
    document = json.loads((folder / CROISSANT_FILE).read_text(encoding="utf-8"))
    view = copy.deepcopy(document)
    for item in view["distribution"]:
        item["encodingFormat"] = PARQUET_FORMAT
        if item["@type"] == "cr:FileSet":
            item["includes"] = item["includes"].replace(".arrow", ".parquet")
            continue
        relative = Path(item["contentUrl"])
        target = out / relative.with_suffix(".parquet")
        target.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(open_shard(folder / relative).read_all(), target)
        item["contentUrl"] = str(relative.with_suffix(".parquet"))
        item["sha256"] = sha256_file(target)
        item["contentSize"] = f"{target.stat().st_size} B"
    path = out / CROISSANT_FILE
    write_text(path, json.dumps(view, indent=2, ensure_ascii=False) + "\n")
    return path
