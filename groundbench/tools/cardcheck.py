"""``groundbench check-card``: the card and Croissant file agree with the shards they describe.

Regenerates both from the folder's own shards and manifests and compares bytes (so every number in
them is the number the data gives), parses the card back with ``huggingface_hub``, validates the
Croissant file with mlcroissant (offline) and checks the dataset version in the shards' metadata.
The ``baselines`` config is recomputed from the folder's record shards (scoring/baselines.py) and
compared row by row, so its table cannot describe other data than the configs beside it.
"""

from __future__ import annotations

from pathlib import Path

from huggingface_hub import DatasetCard

from groundbench.cards.render import GALLERY_LINE, GALLERY_LINE_PUBLISHED, GIT_COMMIT_PLACEHOLDER
from groundbench.core.registry import ConfigInfo
from groundbench.loaders.published import data_files, open_data_file, read_config, row_columns
from groundbench.results.tasks import EVAL_YAML
from groundbench.schemas.features import dataset_version_of
from groundbench.stages.croissant import CROISSANT_FILE, croissant_text, validate_croissant
from groundbench.stages.facts import BaselinesCard, FactsMeta, dataset_facts
from groundbench.stages.hffolder import TEASER, card_text, eval_yaml_text, teaser_png


def baselines_problems(folder: Path, derived: BaselinesCard, configs: list[ConfigInfo]) -> list[str]:
    """Differences between the published ``baselines`` config and one recomputed from the record shards."""
    from groundbench.scoring.baselines import config_baselines

    expected: list[dict] = []
    for config in sorted(configs, key=lambda c: c.name):  # the order `groundbench assemble` computes them in
        if data_files(folder / "data" / config.name):
            rows = read_config(folder, config.name, row_columns(folder, config.name)).to_pylist()
            expected.extend(config_baselines(config.name, rows))
    where = folder / "data" / derived.name
    found = {row["baseline_id"]: row for row in derived.entries}
    wanted = {row["baseline_id"]: row for row in expected}
    rerun = "(rerun `groundbench assemble`)"
    problems = [f"{where}: {key}: missing {rerun}" for key in sorted(set(wanted) - set(found))]
    problems += [f"{where}: {key}: not in the data {rerun}" for key in sorted(set(found) - set(wanted))]
    for key in sorted(set(found) & set(wanted)):
        for column, value in wanted[key].items():
            if found[key].get(column) != value:
                problems.append(f"{where}: {key}: {column}: expected {value!r}, found {found[key].get(column)!r}")
    return problems


def _as_built(line: str) -> str:
    """A line of a published card as the built card has it (publish.staged_card's swaps undone)."""
    if line.startswith("- Git commit: "):
        return f"- {GIT_COMMIT_PLACEHOLDER}"
    return GALLERY_LINE if line == GALLERY_LINE_PUBLISHED else line


def check_folder(folder: Path, manifests: Path, configs: list[ConfigInfo], meta: FactsMeta) -> list[str]:
    problems: list[str] = []
    readme = folder / "README.md"
    if not readme.is_file():
        return [f"{readme}: missing (run `groundbench assemble`)"]
    facts = dataset_facts(folder / "data", manifests, configs, meta)
    text = readme.read_text(encoding="utf-8")
    # A published copy has the commit in place of the placeholder line and the gallery line without
    # its local link; compare the rest.
    normalised = "\n".join(_as_built(line) for line in text.split("\n"))
    if normalised != card_text(facts):
        problems.append(f"{readme}: differs from the card regenerated from the shards (run `groundbench assemble`)")
    card = DatasetCard(text)
    data = card.data.to_dict()
    if str(data.get("version")) != meta.version:
        problems.append(f"{readme}: version: expected {meta.version}, found {data.get('version')}")
    declared = {c["config_name"]: c for c in data.get("dataset_info") or []}
    for config in facts.published:
        info = declared.get(config.name)
        examples = None if info is None else info["splits"][0]["num_examples"]
        if examples != config.rows:
            problems.append(
                f"{readme}: dataset_info.{config.name}.num_examples: expected {config.rows}, found {examples}"
            )
        for shard in data_files(folder / "data" / config.name):
            found = dataset_version_of(open_data_file(shard).schema_arrow)
            if found != meta.version:
                problems.append(f"{shard}: schema metadata dataset_version: expected {meta.version}, found {found}")
    if facts.baselines is not None:
        problems.extend(baselines_problems(folder, facts.baselines, configs))
    teaser = teaser_png(folder, configs)
    if teaser is not None and (not (folder / TEASER).is_file() or (folder / TEASER).read_bytes() != teaser):
        problems.append(f"{folder / TEASER}: missing or differs from the contact sheet regenerated from the data")
    declaration = folder / EVAL_YAML
    if not declaration.is_file() or declaration.read_text(encoding="utf-8") != eval_yaml_text(folder, facts):
        problems.append(f"{declaration}: missing or differs from the task declaration regenerated from the data")
    croissant = folder / CROISSANT_FILE
    if not croissant.is_file():
        problems.append(f"{croissant}: missing (run `groundbench assemble`)")
        return problems
    if croissant.read_text(encoding="utf-8") != croissant_text(facts):
        problems.append(f"{croissant}: differs from the file regenerated from the shards")
    problems.extend(f"{croissant}: {error}" for error in validate_croissant(croissant))
    return problems
