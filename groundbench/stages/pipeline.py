"""The pipeline's stages, one function each; ``dvc.yaml`` runs them through the CLI.

sample -> convert (per source) -> bake (per config: baselines, validation, shards, manifest)
-> store (content-addressed images) -> assemble (the Hugging Face folder).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from groundbench.converters.gapartnet.clean_render import RenderSettings
from groundbench.converters.gapartnet.contrast import ContrastParams, mine_contrast
from groundbench.converters.gapartnet.convert import GapartnetParams, convert_gapartnet
from groundbench.converters.gapartnet.counterfactual import derive_counterfactual
from groundbench.converters.gui.convert import GuiParams, convert_pointerbench, convert_screenspot
from groundbench.converters.umd.convert import UmdParams, convert_umd
from groundbench.core.atomic import atomic_dir, remove_stale_temporaries
from groundbench.core.errors import GroundBenchError
from groundbench.core.manifests import read_manifest, sha256_file
from groundbench.core.params import NESTED_SOURCES, SAMPLE, get, source_root
from groundbench.core.registry import BY_NAME, CONFIGS, DEFAULT_CONFIG, configs_of
from groundbench.core.shards import ShardWriter, open_shard, read_table, shard_files
from groundbench.fetch.provenance import source_provenance
from groundbench.fetch.select import absent_hint
from groundbench.samples.gapartnet import write_sample as write_gapartnet_sample
from groundbench.samples.gui.write import GuiSampleParams, generate
from groundbench.samples.umd import write_sample
from groundbench.stages.bake import ABSENT_MARKER, BakeResult, bake_config
from groundbench.stages.facts import DatasetFacts, FactsMeta, source_setting
from groundbench.stages.hffolder import ConfigFacts, assemble
from groundbench.stages.store import build_store

INTERIM = Path("data/interim")
SHARDS = Path("data/shards")
MANIFESTS = Path("data/manifests")
IMAGES = Path("data/images")
HF_FOLDER = Path("data/groundbench")
BASELINES = Path("data/baselines")  # the `baselines` config's shards (outside data/shards: DVC needs it)
# Folders whose children are written atomically (temp sibling + rename): where a killed build can
# leave a hidden `.name.*.tmp` behind.
ATOMIC_PARENTS = (Path("data"), INTERIM, SHARDS, MANIFESTS, Path("data/sources/sample"))


def clear_leftovers(root: Path) -> None:
    """Remove what a killed build left half-written (never visible under an output's real name)."""
    for folder in ATOMIC_PARENTS:
        remove_stale_temporaries(root / folder)
        if (root / folder).is_dir():
            for child in (root / folder).iterdir():
                if child.is_dir() and not child.name.startswith("."):
                    remove_stale_temporaries(child)


LOCK_FILE = Path("requirements.lock")


def _sample_umd(root: Path, params: dict[str, Any]) -> int:
    knobs = get(params, "sample.umd")
    return write_sample(root / get(params, "sample.root") / "umd", knobs["frames_per_tool"], knobs["seed"])


def _sample_gapartnet(root: Path, params: dict[str, Any]) -> int:
    knobs = get(params, "sample.gapartnet")
    return write_gapartnet_sample(
        root / get(params, "sample.root") / "gapartnet", knobs["width"], knobs["height"], knobs["engine"]
    )


def gui_sample_params(params: dict[str, Any]) -> GuiSampleParams:
    knobs = get(params, "sample.gui")
    return GuiSampleParams(
        examples_per_suite=int(knobs["examples_per_suite"]),
        frames=tuple(str(f) for f in knobs["frames"]),
        screenspot_rows=int(knobs["screenspot_rows"]),
        seed=int(knobs["seed"]),
        workers=int(knobs["workers"]),
    )


def _sample_gui(root: Path, params: dict[str, Any], progress: bool = False) -> int:
    # One generator feeds the four GUI sources: <sample.root>/gui/{pointerbench,screenspot,screenspot_v2,screenspot_pro}
    counts = generate(root / get(params, "sample.root") / "gui", gui_sample_params(params), progress=progress)
    return sum(counts.values())


# One entry per source with an embedded sample; each returns how many items it wrote.
SAMPLERS: dict[str, Callable[[Path, dict[str, Any]], int]] = {
    "umd": _sample_umd,
    "gapartnet": _sample_gapartnet,
    "gui": _sample_gui,
}


def run_sample(root: Path, params: dict[str, Any], source: str) -> int:
    if source not in SAMPLERS:
        raise GroundBenchError("params.yaml", f"sample.{source}", "no embedded sample for this source")
    return SAMPLERS[source](root, params)


def _convert_umd(folder: Path, out: Path, root: Path, params: dict[str, Any], progress: bool) -> dict[str, int]:
    knobs = get(params, "umd")
    shards = get(params, "shards")
    return convert_umd(
        folder,
        out,
        UmdParams(
            audit=root / knobs["audit"],
            workers=knobs["workers"],
            window=knobs["window"],
            frames_per_task=knobs["frames_per_task"],
            max_image_pixels=knobs["max_image_pixels"],
            min_region_pixels=knobs["min_region_pixels"],
            max_shard_bytes=shards["max_bytes"],
            rows_per_batch=shards["rows_per_batch"],
        ),
        progress=progress,
    )


def _convert_gapartnet(folder: Path, out: Path, root: Path, params: dict[str, Any], progress: bool) -> dict[str, int]:
    assets = source_root(root, params, "gapartnet.assets")
    renders = source_root(root, params, "gapartnet.renders")
    assert assets is not None and renders is not None  # run_convert handles a null source
    knobs = get(params, "gapartnet")
    shards = get(params, "shards")
    return convert_gapartnet(
        assets,
        renders,
        out,
        GapartnetParams(
            audit=root / knobs["audit"],
            workers=knobs["workers"],
            window=knobs["window"],
            iou_min=knobs["iou_min"],
            coverage_min=knobs["coverage_min"],
            max_image_pixels=knobs["max_image_pixels"],
            instance_coverage_min=knobs["instance_coverage_min"],
            instance_ambiguity_margin=knobs["instance_ambiguity_margin"],
            min_mask_pixels=knobs["min_mask_pixels"],
            max_shard_bytes=shards["max_bytes"],
            rows_per_batch=shards["rows_per_batch"],
        ),
        progress=progress,
    )


def _gui_params(params: dict[str, Any]) -> GuiParams:
    shards = get(params, "shards")
    return GuiParams(
        max_image_pixels=get(params, "gui.max_image_pixels"),
        max_shard_bytes=shards["max_bytes"],
        rows_per_batch=shards["rows_per_batch"],
        workers=get(params, "gui.workers"),
        window=get(params, "gui.window"),
    )


ConvertFn = Callable[[Path, Path, Path, dict[str, Any], bool], dict[str, int]]


def _convert_pointerbench(
    folder: Path, out: Path, root: Path, params: dict[str, Any], progress: bool
) -> dict[str, int]:
    return convert_pointerbench(folder, out, _gui_params(params), progress=progress)


def _screenspot_converter(source: str, config: str) -> ConvertFn:
    def run(folder: Path, out: Path, root: Path, params: dict[str, Any], progress: bool) -> dict[str, int]:
        return convert_screenspot(folder, out, source, config, _gui_params(params), progress=progress)

    return run


# One entry per source: (source folder, interim output folder, repo root, params, progress) -> rows per config.
CONVERTERS: dict[str, Callable[[Path, Path, Path, dict[str, Any], bool], dict[str, int]]] = {
    "umd": _convert_umd,
    "gapartnet": _convert_gapartnet,
    "pointerbench": _convert_pointerbench,
    "screenspot": _screenspot_converter("screenspot", "gui_screenspot"),
    "screenspot_v2": _screenspot_converter("screenspot_v2", "gui_screenspot_v2"),
    "screenspot_pro": _screenspot_converter("screenspot_pro", "gui_screenspot_pro"),
}


def run_convert(root: Path, params: dict[str, Any], source: str, progress: bool = True) -> dict[str, int]:
    out = root / INTERIM / source
    if source not in CONVERTERS:
        raise GroundBenchError("params.yaml", f"sources.{source}", "no converter for this source")
    folder = source_root(root, params, source)
    if folder is None:
        # The source is left out: each of its configs gets a folder saying so (dvc.yaml needs it).
        with atomic_dir(out) as tmp:
            for config in configs_of(source):
                if config.interim_folder != source:
                    continue  # derived configs: their own stage marks them absent
                (tmp / config.name).mkdir()
                (tmp / config.name / ABSENT_MARKER).write_text(
                    f"sources.{NESTED_SOURCES.get(source, source)} is null in params.yaml{absent_hint(root, source)}\n"
                )
        return {}
    return CONVERTERS[source](folder, out, root, params, progress)


def _derive_counterfactual(root: Path, params: dict[str, Any], out: Path, progress: bool) -> dict[str, Any]:
    shards = get(params, "shards")
    curated = root / INTERIM / "gapartnet" / "curated_gapartnet"
    return derive_counterfactual(
        curated, out, shards["max_bytes"], shards["rows_per_batch"], get(params, "gapartnet.min_mask_pixels")
    )


def _mine_contrast(root: Path, params: dict[str, Any], out: Path, progress: bool) -> dict[str, Any]:
    assets = source_root(root, params, "gapartnet.assets")
    renders = source_root(root, params, "gapartnet.renders")
    assert assets is not None and renders is not None  # run_derive handles a null source
    knobs, contrast, shards = get(params, "gapartnet"), get(params, "contrast"), get(params, "shards")
    render = contrast["render"]
    return mine_contrast(
        assets,
        renders,
        root / INTERIM / "gapartnet" / "bulk_gapartnet",
        out,
        ContrastParams(
            audit=root / knobs["audit"],
            workers=knobs["workers"],
            window=knobs["window"],
            iou_min=knobs["iou_min"],
            coverage_min=knobs["coverage_min"],
            max_image_pixels=knobs["max_image_pixels"],
            instance_coverage_min=knobs["instance_coverage_min"],
            instance_ambiguity_margin=knobs["instance_ambiguity_margin"],
            min_mask_pixels=knobs["min_mask_pixels"],
            min_mask_share=contrast["closed_pose_min_mask_share"],
            pool=root / contrast["pool"],
            render=RenderSettings(
                width=render["width"],
                height=render["height"],
                theta=render["theta"],
                phi=render["phi"],
                margin=render["margin"],
                engine=render["engine"],
            ),
            max_shard_bytes=shards["max_bytes"],
            rows_per_batch=shards["rows_per_batch"],
        ),
        progress=progress,
    )


# Derived configs (re-asks): construction -> (config, builder). Each writes data/interim/<its interim>/.
DERIVERS: dict[str, tuple[str, Callable[[Path, dict[str, Any], Path, bool], dict[str, Any]]]] = {
    "counterfactual": ("counterfactual_gapartnet", _derive_counterfactual),
    "contrast": ("contrast_gapartnet", _mine_contrast),
}


def run_derive(root: Path, params: dict[str, Any], construction: str, progress: bool = True) -> dict[str, Any]:
    """Build a derived config's rows; a null source marks it absent (as run_convert does)."""
    if construction not in DERIVERS:
        raise GroundBenchError("command line", "construction", f"expected one of {sorted(DERIVERS)}")
    config, builder = DERIVERS[construction]
    info = BY_NAME[config]
    out = root / INTERIM / info.interim_folder
    if source_root(root, params, info.source) is None:
        with atomic_dir(out) as tmp:
            (tmp / config).mkdir()
            (tmp / config / ABSENT_MARKER).write_text(
                f"sources.{info.source} is null in params.yaml{absent_hint(root, info.source)}\n"
            )
        return {}
    return builder(root, params, out, progress)


def run_bake(root: Path, params: dict[str, Any], config: str) -> BakeResult:
    info = BY_NAME.get(config)
    if info is None:
        raise GroundBenchError("dvc.yaml", "config", f"unknown config {config!r}; expected one of {sorted(BY_NAME)}")
    shards = get(params, "shards")
    return bake_config(
        config,
        root / INTERIM / info.interim_folder / config,
        root / SHARDS / config,
        root / MANIFESTS / f"{config}.jsonl",
        shards["max_bytes"],
        shards["rows_per_batch"],
    )


def built_configs(root: Path) -> list[str]:
    """Configs with shards on disk (absent sources are marked and skipped)."""
    return [
        c.name
        for c in CONFIGS
        if (root / SHARDS / c.name).is_dir() and not (root / SHARDS / c.name / ABSENT_MARKER).exists()
    ]


def config_rows(root: Path, name: str) -> int:
    """Rows of a built config, from its shards' batch headers (no data read)."""
    rows = 0
    for shard in shard_files(root / SHARDS / name):
        reader = open_shard(shard)
        rows += sum(reader.get_batch(index).num_rows for index in range(reader.num_record_batches))
    return rows


EMPTY_REASON = "built with 0 rows: its sources give no row for this config"


def published_configs(root: Path) -> list[str]:
    """Built configs with at least one row: what the published folder holds (an empty config is absent)."""
    return [name for name in built_configs(root) if config_rows(root, name) > 0]


def synthetic_configs(params: dict[str, Any]) -> tuple[str, ...]:
    """Configs whose source is the embedded sample in params.yaml (any part of it, for GAPartNet)."""

    def is_sample(value: object) -> bool:
        return value == SAMPLE or (isinstance(value, dict) and any(is_sample(v) for v in value.values()))

    return tuple(c.name for c in CONFIGS if is_sample(get(params, f"sources.{NESTED_SOURCES.get(c.source, c.source)}")))


def collect_facts(root: Path) -> list[ConfigFacts]:
    facts = []
    for name in sorted(built_configs(root)):
        info = BY_NAME[name]
        rows = excluded = shard_bytes = 0
        for shard in shard_files(root / SHARDS / name):
            table = open_shard(shard).read_all().select(["excluded"])
            rows += table.num_rows
            excluded += sum(1 for value in table.column("excluded").to_pylist() if value)
            shard_bytes += shard.stat().st_size
        manifest = read_manifest(root / MANIFESTS / f"{name}.jsonl")
        facts.append(
            ConfigFacts(
                name=name,
                stratum=info.stratum,
                source=info.source,
                rows=rows,
                excluded=excluded,
                images=len(manifest),
                image_bytes=sum(e.bytes for e in manifest.values()),
                shard_bytes=shard_bytes,
            )
        )
    return facts


def run_store(root: Path) -> tuple[int, int]:
    configs = {
        name: (root / SHARDS / name, read_manifest(root / MANIFESTS / f"{name}.jsonl")) for name in built_configs(root)
    }
    return build_store(root / IMAGES, configs)


def absent_reasons(root: Path) -> dict[str, str]:
    """Every registry config without shards in this build -> why (its ABSENT marker, else "not built")."""
    built = set(published_configs(root))
    reasons = {}
    for config in CONFIGS:
        if config.name in built:
            continue
        if (root / SHARDS / config.name).is_dir() and shard_files(root / SHARDS / config.name):
            reasons[config.name] = EMPTY_REASON
            continue
        marker = root / SHARDS / config.name / ABSENT_MARKER
        reason = marker.read_text(encoding="utf-8").strip() if marker.is_file() else ""
        # Markers are one line "<config>: <reason>" (converter) or just the reason (null source).
        reasons[config.name] = reason.removeprefix(f"{config.name}: ") or "not built (no shards)"
    return reasons


def run_baselines(root: Path, params: dict[str, Any]) -> int:
    """Compute the `baselines` config from every built config's shards; returns its row count."""
    from groundbench.schemas.baselines_features import BASELINES_KEY, baselines_arrow_schema
    from groundbench.scoring.baselines import config_baselines

    shards = get(params, "shards")
    with ShardWriter(
        root / BASELINES, shards["max_bytes"], shards["rows_per_batch"], baselines_arrow_schema(), BASELINES_KEY
    ) as writer:
        for name in sorted(built_configs(root)):
            rows = read_table(root / SHARDS / name).drop_columns(["image"]).to_pylist()
            for entry in config_baselines(name, rows):
                writer.add(entry)
    return writer.rows


# Curated configs chosen by a human-written audit file: config -> its params.yaml key.
AUDITED = {"curated_umd": "umd.audit", "curated_gapartnet": "gapartnet.audit"}


def audit_files(root: Path, params: dict[str, Any]) -> dict[str, tuple[str, Path]]:
    """Audit files of the published curated configs: file name -> (config, path)."""
    published = set(published_configs(root))
    found = {}
    for config, key in AUDITED.items():
        path = root / str(get(params, key))
        if config in published and path.is_file():
            found[path.name] = (config, path)
    return found


def facts_meta(root: Path, params: dict[str, Any]) -> FactsMeta:
    lock = root / LOCK_FILE
    return FactsMeta(
        version=str(get(params, "dataset.version")),
        default=DEFAULT_CONFIG,
        source_settings={name: source_setting(value) for name, value in sorted(get(params, "sources").items())},
        lock_sha256=sha256_file(lock) if lock.is_file() else "(no requirements.lock)",
        absent=absent_reasons(root),
        source_provenance=source_provenance(root, params),
        synthetic=synthetic_configs(params),
        date_published=str(get(params, "dataset.date_published")),
        url=str(get(params, "dataset.url")),
        audits=tuple((name, config) for name, (config, _) in sorted(audit_files(root, params).items())),
    )


def run_assemble(root: Path, params: dict[str, Any]) -> DatasetFacts:
    configs = [BY_NAME[name] for name in sorted(published_configs(root))]
    return assemble(
        root / HF_FOLDER,
        root / SHARDS,
        root / MANIFESTS,
        configs,
        facts_meta(root, params),
        root / BASELINES,
        {name: path for name, (_, path) in audit_files(root, params).items()},
    )
