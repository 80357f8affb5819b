"""``dvc.yaml``'s per-source stages, made from the specs (``converters/<name>/spec.py``).

Each source's sample stage, its convert (or derive) stage with its data deps, params keys and outputs, the
bake stage of each convert or derive stage, and the fetched folders ``assemble`` reads provenance from. A
sample, convert or derive command names its source folder (``--folder``), so the stage loads that folder's
spec and no other (its code deps follow); a bake names each config's interim folder and loads none.

Stages are grouped where one process can do the work of several (each start-up and each of DVC's per-stage
checks costs more than a small stage's work): the sources of a nested group (``sources.gui.*``) convert in
one ``convert_gui`` stage, and the configs a convert or derive stage writes bake in one ``bake_<...>`` stage.
Every config keeps its own outputs (``data/shards/<config>``, ``data/manifests/<config>.jsonl``), which DVC
pulls and checks one by one.

:func:`check` lists where ``dvc.yaml`` disagrees with the specs; :func:`write` makes it agree (adding the
stages of a new source, removing those no spec calls for), leaving code deps to ``groundbench dvc-deps
--write`` (an added stage starts with none) and comments in place.

Knobs that change no output byte (``workers``, ``window``) are never a stage's params.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Any

from groundbench.core import registry
from groundbench.core.registry import CONFIGS, FETCHES, SPECS, sources_key
from groundbench.core.spec import Sample, SourceSpec
from groundbench.stages.code import CODE, paths

DVC_FILE = "dvc.yaml"
SHARDS_PARAMS = ("shards.max_bytes", "shards.rows_per_batch")
NO_BYTE_KNOBS = frozenset({"workers", "window"})  # where and how fast, never what: not a stage's params
ASSEMBLE = "assemble"
FIRST_SHARED = "store"  # the stages serving every source follow every source's own
GENERATED = ("sample", "generate-gui", "convert", "derive", "bake")  # the commands of the stages made here


@dataclass(frozen=True)
class Stage:
    """What one stage runs and reads (its data deps; code deps are dvcdeps' business)."""

    cmd: str
    deps: tuple[str, ...]
    params: tuple[str, ...]
    outs: tuple[str, ...]

    def as_yaml(self) -> dict[str, Any]:
        return {
            "cmd": self.cmd,
            "deps": list(self.deps),
            "params": list(self.params),
            "outs": [{out: {"persist": True}} for out in self.outs],
        }


def _params_file(root: Path) -> dict[str, Any]:
    import yaml

    loaded: dict[str, Any] = yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8")) or {}
    return loaded


def _present(raw: dict[str, Any], key: str) -> bool:
    """Is the dotted ``key`` written in params.yaml? A key left out takes its default from the source's
    params model, which only its spec's code can change (a code dep): DVC refuses a params key it cannot find."""
    node: Any = raw
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def sample_stage_name(sample: Sample) -> str:
    return sample.stage or f"sample_{sample.name}"


def _folder(name: str) -> str:
    """`` --folder NAME``: the source folder declaring a source or sample, as its stage commands name it."""
    return f" --folder {registry.view().folder_of[name]}"


def sample_stage(sample: Sample, sample_root: str, raw: dict[str, Any]) -> Stage:
    fed = [s for s in SPECS if s.sample == sample.name]
    knobs = getattr(sample.params, "model_fields", {})
    return Stage(
        (sample.command or f"bin/groundbench sample {sample.name}") + _folder(sample.name),
        (),
        tuple(
            key
            for key in (
                *(f"sources.{sources_key(s.name)}" for s in fed),
                "sample.root",
                *(f"sample.{sample.name}.{k}" for k in knobs if k not in NO_BYTE_KNOBS),
            )
            if _present(raw, key)
        ),
        (f"{sample_root}/{sample.name}",),
    )


def _nested(spec: SourceSpec) -> str:
    """The group of a nested source (``gui`` for sources.gui.<name>), "" for a top-level one."""
    key = sources_key(spec.name)
    return key.rpartition(".")[0]


def _own_files(spec: SourceSpec, sample_root: str) -> tuple[str, ...]:
    """The folders a source's converter reads: its embedded sample's and its fetched tree."""
    files = []
    if spec.sample:
        folder = f"{sample_root}/{spec.sample}"
        files.append(f"{folder}/{spec.name}" if _nested(spec) else folder)
    if spec.name in FETCHES:
        files.append(f"data/sources/{spec.name}")
    return tuple(files)


def convert_stage_name(spec: SourceSpec) -> str:
    """The stage writing the source's interim folder: ``convert_<name>``, ``convert_<group>`` for the sources
    of a nested group (one process converts them all), ``<name>_<reads>`` for a derived source."""
    if spec.derived:
        return f"{spec.name}_{spec.reads}"
    return f"convert_{_nested(spec) or spec.name}"


def bake_stage_name(convert: str) -> str:
    """The stage baking the configs a convert or derive stage writes (``convert_umd`` -> ``bake_umd``)."""
    return f"bake_{convert.removeprefix('convert_')}"


def _unique(items: Any) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def convert_stage(specs: list[SourceSpec], sample_root: str, raw: dict[str, Any]) -> Stage:
    """One stage converting ``specs`` (several: a nested group's, in one process)."""
    first = specs[0]
    reads = first.reads or first.name
    if first.derived:
        files = _own_files(next(s for s in SPECS if s.name == reads), sample_root) if first.reads_raw else ()
        cmd = f"bin/groundbench derive {first.name}{_folder(first.name)} --quiet"
        deps: tuple[str, ...] = (*files, f"data/interim/{reads}", *first.data)
    else:
        names = " ".join(s.name for s in specs)
        cmd = f"bin/groundbench convert {names}{_folder(first.name)} --quiet"
        deps = _unique(f for s in specs for f in (*_own_files(s, sample_root), *s.data))
    keys = _unique(
        (
            *(f"sources.{sources_key(s.reads or s.name)}" for s in specs),
            "sample.root",
            *(k for s in specs for k in s.params),
            *SHARDS_PARAMS,
        )
    )
    return Stage(
        cmd,
        deps,
        tuple(key for key in keys if _present(raw, key)),
        tuple(f"data/interim/{s.interim or s.name}" for s in specs),
    )


def bake_stage(specs: list[SourceSpec]) -> Stage:
    """One stage baking every config ``specs`` write, each named with its interim folder (no spec loaded)."""
    interims = {s.interim or s.name for s in specs}
    configs = [c for c in CONFIGS if c.interim_folder in interims]
    return Stage(
        "bin/groundbench bake " + " ".join(f"{c.interim_folder}/{c.name}" for c in configs),
        tuple(f"data/interim/{c.interim_folder}/{c.name}" for c in configs),
        SHARDS_PARAMS,
        tuple(out for c in configs for out in (f"data/shards/{c.name}", f"data/manifests/{c.name}.jsonl")),
    )


def expected(root: Path) -> dict[str, Stage]:
    """Every per-source stage the specs call for, by its DVC name, each source's in pipeline order."""
    raw = _params_file(root)
    sample_root = str(raw["sample"]["root"])
    groups: dict[str, list[SourceSpec]] = {}
    for spec in SPECS:
        groups.setdefault(convert_stage_name(spec), []).append(spec)
    stages: dict[str, Stage] = {}
    for folder in registry.view().folders:
        for sample in folder.samples:
            stages[sample_stage_name(sample)] = sample_stage(sample, sample_root, raw)
        for name in _unique(convert_stage_name(s) for s in folder.sources):
            stages[name] = convert_stage(groups[name], sample_root, raw)
            stages[bake_stage_name(name)] = bake_stage(groups[name])
    return stages


CODE_FOLDER = f"{CODE}/"  # the stages' code fingerprints (groundbench/stages/code.py): a code dep, not data


def is_data(dep: str) -> bool:
    return dep.startswith("data/") and not dep.startswith(CODE_FOLDER)


def actual(spec: dict[str, Any], data: bool = True) -> dict[str, Stage]:
    """Every stage of a parsed ``dvc.yaml`` (deps: data deps only, unless ``data`` is False)."""
    return {
        name: Stage(
            body["cmd"],
            tuple(d for d in paths(body.get("deps", [])) if not data or is_data(d)),
            tuple(paths(body.get("params", []))),
            tuple(paths(body.get("outs", []))),
        )
        for name, stage in spec.get("stages", {}).items()
        for body in [stage.get("do", stage)]  # a foreach stage (no longer written): its template
    }


def generated(stage: Stage) -> bool:
    """Is this a stage of the kind made here (a sample, convert, derive or bake command)?"""
    argv = shlex.split(stage.cmd)
    return len(argv) > 1 and argv[1] in GENERATED


def _load(root: Path) -> dict[str, Any]:
    import yaml

    loaded: dict[str, Any] = yaml.safe_load((root / DVC_FILE).read_text(encoding="utf-8"))
    return loaded


def check(root: Path) -> list[str]:
    """One line per disagreement between ``dvc.yaml`` and the specs (empty: it agrees)."""
    spec = _load(root)
    if any("foreach" in body for body in spec.get("stages", {}).values()):
        return ["dvc.yaml: a foreach stage (each stage is written out: its code has one fingerprint file)"]
    have = actual(spec)
    problems = []
    want = expected(root)
    for name, stage in want.items():
        got = have.get(name)
        if got is None:
            problems.append(f"{name}: no such stage (the specs call for it)")
            continue
        for field in ("cmd", "deps", "params", "outs"):
            a, b = getattr(got, field), getattr(stage, field)
            if (a != b) if field == "cmd" else (set(a) != set(b)):
                problems.append(f"{name}: {field} {a!r} != the specs' {b!r}")
    for name, stage in have.items():
        if name not in want and generated(stage):
            problems.append(f"{name}: no spec calls for this stage (remove it)")
    assemble = set(have[ASSEMBLE].deps) if ASSEMBLE in have else set()
    missing = [f"data/sources/{name}" for name in FETCHES if f"data/sources/{name}" not in assemble]
    if missing:
        problems.append(f"{ASSEMBLE}: deps lack the fetched folders {missing} (their provenance.json)")
    return problems


def write(root: Path) -> list[str]:
    """Make ``dvc.yaml`` agree with the specs (comments kept); the stages changed, added or removed."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap

    from groundbench.core.atomic import write_bytes

    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 120
    yaml.indent(mapping=2, sequence=4, offset=2)
    path = root / DVC_FILE
    spec = yaml.load(path.read_text(encoding="utf-8"))
    stages = spec["stages"]
    loaded = _load(root)
    have = actual(loaded)
    want = expected(root)
    changed = []
    # A foreach stage (how earlier versions wrote convert_gui and bake) is replaced whole.
    foreach = {name for name, stage in loaded["stages"].items() if "foreach" in stage}
    for name in [n for n, stage in have.items() if (n not in want or n in foreach) and generated(stage)]:
        del stages[name]
        del have[name]
        changed.append(name)
    previous = None
    for name, stage in want.items():
        got = have.get(name)
        if got is None:
            # A new stage goes after the one before it in pipeline order (else before the shared stages).
            names = list(stages)
            if previous in stages:
                position = names.index(previous) + 1
            else:
                position = names.index(FIRST_SHARED) if FIRST_SHARED in stages else len(names)
            stages.insert(position, name, CommentedMap(stage.as_yaml()))
            changed.append(name)
            previous = name
            continue
        previous = name
        body = stages[name]
        # Only what differs is replaced: a replaced list loses the comments and blank line that follow it.
        if got.cmd != stage.cmd:
            body["cmd"] = stage.cmd
            changed.append(name)
        if set(got.params) != set(stage.params):
            body["params"] = list(stage.params)
            changed.append(name)
        if set(got.outs) != set(stage.outs):
            body["outs"] = [{o: {"persist": True}} for o in stage.outs]
            changed.append(name)
        if set(got.deps) != set(stage.deps):
            code = [d for d in body.get("deps", []) if isinstance(d, str) and not is_data(d)]
            body["deps"] = [*stage.deps, *code]
            changed.append(name)
    if ASSEMBLE in stages:
        deps = stages[ASSEMBLE]["deps"]
        for name in FETCHES:
            if f"data/sources/{name}" not in deps:
                position = max(i for i, d in enumerate(deps) if isinstance(d, str) and is_data(d)) + 1
                deps.insert(position, f"data/sources/{name}")
                changed.append(ASSEMBLE)
    for name in FETCHES:
        # A fetched source's folder exists before its first fetch: its convert stage depends on it (DVC
        # refuses a missing dependency); what the fetch and `dvc add` put there stays out of git.
        folder = root / "data" / "sources" / name
        if not folder.is_dir():
            folder.mkdir(parents=True)
            (folder / ".gitignore").write_text("/tree\n/.download\n")
            changed.append(f"data/sources/{name}")
    if changed:
        write_bytes(path, dumped(yaml, spec))
    return list(dict.fromkeys(changed))


STAGE_KEY = re.compile(r"\n+(?=  [A-Za-z0-9_]+:\n)")


def dumped(yaml: Any, spec: Any) -> bytes:
    """``spec`` as ruamel writes it, with one blank line between stages (an inserted stage has none)."""
    buffer = StringIO()
    yaml.dump(spec, buffer)
    return STAGE_KEY.sub("\n\n", buffer.getvalue()).replace("stages:\n\n", "stages:\n").encode()
