"""``dvc.yaml``'s per-source stages, made from the specs (``converters/<name>/spec.py``).

Each source's sample stage, its convert (or derive) stage with its data deps, params keys and output, the
``foreach`` matrices (``bake`` over every config, ``convert_gui`` over the nested GUI sources) and the
fetched folders ``assemble`` reads provenance from. A sample, convert or derive command names its source
folder (``--folder``), so the stage loads that folder's spec and no other (its code deps follow).
:func:`check` lists where ``dvc.yaml`` disagrees with the specs; :func:`write` makes it agree (adding the
stages of a new source), leaving code deps to ``groundbench dvc-deps --write`` (an added stage starts with
none) and comments in place.

Knobs that change no output byte (``workers``, ``window``) are never a stage's params.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundbench.core import registry
from groundbench.core.registry import CONFIGS, FETCHES, SAMPLES, SPECS, sources_key
from groundbench.core.spec import Sample, SourceSpec

DVC_FILE = "dvc.yaml"
SHARDS_PARAMS = ("shards.max_bytes", "shards.rows_per_batch")
NO_BYTE_KNOBS = frozenset({"workers", "window"})  # where and how fast, never what: not a stage's params
ASSEMBLE = "assemble"
BAKE = "bake"


@dataclass(frozen=True)
class Stage:
    """What one stage instance runs and reads (its data deps; code deps are dvcdeps' business)."""

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
    if spec.derived:
        return f"{spec.name}_{spec.reads}"
    group = _nested(spec)
    return f"convert_{group}@{spec.name}" if group else f"convert_{spec.name}"


def convert_stage(spec: SourceSpec, sample_root: str, raw: dict[str, Any]) -> Stage:
    reads = spec.reads or spec.name
    if spec.derived:
        files = _own_files(next(s for s in SPECS if s.name == reads), sample_root) if spec.reads_raw else ()
        cmd = f"bin/groundbench derive {spec.name}{_folder(spec.name)} --quiet"
        deps = (*files, f"data/interim/{reads}", *spec.data)
    else:
        cmd = f"bin/groundbench convert {spec.name}{_folder(spec.name)} --quiet"
        deps = (*_own_files(spec, sample_root), *spec.data)
    keys = (f"sources.{sources_key(reads)}", "sample.root", *spec.params, *SHARDS_PARAMS)
    return Stage(
        cmd,
        deps,
        tuple(key for key in keys if _present(raw, key)),
        (f"data/interim/{spec.interim or spec.name}",),
    )


def expected(root: Path) -> dict[str, Stage]:
    """Every per-source stage instance the specs call for, by its DVC name (``convert_gui@screenspot``)."""
    raw = _params_file(root)
    sample_root = str(raw["sample"]["root"])
    stages = {sample_stage_name(s): sample_stage(s, sample_root, raw) for s in SAMPLES.values()}
    stages.update({convert_stage_name(s): convert_stage(s, sample_root, raw) for s in SPECS})
    return stages


def bake_matrix() -> dict[str, dict[str, str]]:
    return {c.name: {"source": c.interim_folder} for c in CONFIGS}


def group_matrices() -> dict[str, dict[str, dict[str, str]]]:
    """``convert_<group>`` stage -> its foreach matrix (source -> its key under ``sources:``)."""
    groups: dict[str, dict[str, dict[str, str]]] = {}
    for spec in SPECS:
        group = _nested(spec)
        if group and not spec.derived:
            groups.setdefault(f"convert_{group}", {})[spec.name] = {"key": sources_key(spec.name)}
    return groups


def _expand(text: str, key: str, item: Any) -> str:
    text = text.replace("${key}", key)
    for field, value in item.items() if isinstance(item, dict) else ():
        text = text.replace("${item." + field + "}", str(value))
    return text


def _paths(entries: list[Any]) -> tuple[str, ...]:
    return tuple(e if isinstance(e, str) else next(iter(e)) for e in entries)


def actual(spec: dict[str, Any], data: bool = True) -> dict[str, Stage]:
    """Every stage instance of a parsed ``dvc.yaml``, ``foreach`` expanded (deps: data deps only)."""
    found = {}
    for name, stage in spec.get("stages", {}).items():
        instances = [(name, "", None, stage)]
        if "foreach" in stage:
            instances = [(f"{name}@{key}", key, item, stage["do"]) for key, item in stage["foreach"].items()]
        for instance, key, item, body in instances:

            def ex(text: str, key: str = key, item: Any = item) -> str:
                return _expand(text, key, item)

            deps = tuple(ex(d) for d in _paths(body.get("deps", [])) if not data or d.startswith("data/"))
            found[instance] = Stage(
                ex(body["cmd"]),
                deps,
                tuple(ex(p) for p in _paths(body.get("params", []))),
                tuple(ex(o) for o in _paths(body.get("outs", []))),
            )
    return found


def _flow(item: Any) -> Any:
    item.fa.set_flow_style()  # one line per matrix entry, as written by hand: `curated_umd: {source: umd}`
    return item


def _load(root: Path) -> dict[str, Any]:
    import yaml

    loaded: dict[str, Any] = yaml.safe_load((root / DVC_FILE).read_text(encoding="utf-8"))
    return loaded


def check(root: Path) -> list[str]:
    """One line per disagreement between ``dvc.yaml`` and the specs (empty: it agrees)."""
    spec = _load(root)
    have = actual(spec)
    problems = []
    for name, want in expected(root).items():
        got = have.get(name)
        if got is None:
            problems.append(f"{name}: no such stage (the specs call for it)")
            continue
        for field in ("cmd", "deps", "params", "outs"):
            a, b = getattr(got, field), getattr(want, field)
            if (a != b) if field == "cmd" else (set(a) != set(b)):
                problems.append(f"{name}: {field} {a!r} != the specs' {b!r}")
    bake = spec["stages"].get(BAKE, {}).get("foreach")
    if bake != bake_matrix():
        problems.append(f"{BAKE}: foreach {bake!r} != the specs' configs {bake_matrix()!r}")
    for stage, matrix in group_matrices().items():
        found = spec["stages"].get(stage, {}).get("foreach")
        if found != matrix:
            problems.append(f"{stage}: foreach {found!r} != the specs' {matrix!r}")
    assemble = set(have[ASSEMBLE].deps) if ASSEMBLE in have else set()
    missing = [f"data/sources/{name}" for name in FETCHES if f"data/sources/{name}" not in assemble]
    if missing:
        problems.append(f"{ASSEMBLE}: deps lack the fetched folders {missing} (their provenance.json)")
    return problems


def write(root: Path) -> list[str]:
    """Make ``dvc.yaml`` agree with the specs (comments kept); the stages changed or added."""
    from io import StringIO

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
    have = actual(_load(root))
    changed = []

    def place(name: str, body: dict[str, Any]) -> None:
        # A new stage goes before `bake` (the per-config stages follow every source's).
        position = list(stages).index(BAKE) if BAKE in stages else len(stages)
        stages.insert(position, name, CommentedMap(body))
        changed.append(name)

    for name, want in expected(root).items():
        if "@" in name:
            continue  # a foreach instance: its matrix is written below
        got = have.get(name)
        if got is None:
            place(name, want.as_yaml())
            continue
        body = stages[name]
        # Only what differs is replaced: a replaced list loses the comments and blank line that follow it.
        if got.cmd != want.cmd:
            body["cmd"] = want.cmd
            changed.append(name)
        if set(got.params) != set(want.params):
            body["params"] = list(want.params)
            changed.append(name)
        if set(got.outs) != set(want.outs):
            body["outs"] = [{o: {"persist": True}} for o in want.outs]
            changed.append(name)
        if set(got.deps) != set(want.deps):
            code = [d for d in body.get("deps", []) if isinstance(d, str) and not d.startswith("data/")]
            body["deps"] = [*want.deps, *code]
            changed.append(name)
    matrices = {BAKE: bake_matrix(), **group_matrices()}
    for name, matrix in matrices.items():
        if name in stages and stages[name].get("foreach") != matrix:
            stages[name]["foreach"] = CommentedMap((key, _flow(CommentedMap(item))) for key, item in matrix.items())
            changed.append(name)
    if ASSEMBLE in stages:
        deps = stages[ASSEMBLE]["deps"]
        for name in FETCHES:
            if f"data/sources/{name}" not in deps:
                position = max(i for i, d in enumerate(deps) if isinstance(d, str) and d.startswith("data/")) + 1
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
        buffer = StringIO()
        yaml.dump(spec, buffer)
        write_bytes(path, buffer.getvalue().encode())
    return list(dict.fromkeys(changed))
