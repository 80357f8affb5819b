"""``groundbench``'s user and maintainer commands, and the full ``--help`` (the stages are listed there too).

Imported only for those: ``groundbench/entry.py`` runs a pipeline stage without loading this module."""

from __future__ import annotations

import argparse
import importlib
import re
import shutil
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from rich.table import Table

from groundbench import __version__
from groundbench.core.datafolder import DATA_HELP
from groundbench.core.terminal import ResultConsole
from groundbench.errors import GroundBenchError, unknown_name
from groundbench.stages.options import QUIET, add_global_options, console
from groundbench.stages.options import params as _params
from groundbench.stages.options import root as _root

out = ResultConsole()  # $COLUMNS, else the terminal's width, else a wide table when piped (core/terminal.py)


def cmd_summary(args: argparse.Namespace) -> int:
    from groundbench.scoring.notice import say_synthetic
    from groundbench.stages.built import built_configs, synthetic_configs
    from groundbench.tools.summary import collect_facts

    built = set(built_configs(_root(args)))
    say_synthetic(console, [name for name in synthetic_configs(_params(args)) if name in built])  # on stderr
    facts = collect_facts(_root(args))
    table = Table(title="GroundBench build (per config; strata are not pooled)")
    for column in ("config", "stratum", "rows", "excluded", "images", "image bytes", "shard bytes"):
        table.add_column(column, justify="left" if column in ("config", "stratum") else "right")
    for f in facts:
        table.add_row(
            f.name, f.stratum, str(f.rows), str(f.excluded), str(f.images), f"{f.image_bytes:,}", f"{f.shard_bytes:,}"
        )
    out.print(table)
    _print_gui_facts(_root(args))
    return 0


def _print_gui_facts(root: Path) -> None:
    from groundbench.converters.gui.facts import gui_facts, is_gui
    from groundbench.core.registry import CONFIGS
    from groundbench.stages.built import absent_reasons, built_configs
    from groundbench.stages.paths import SHARDS

    gui = [c.name for c in CONFIGS if is_gui(c.source)]
    built = [name for name in built_configs(root) if name in gui]
    absent = {name: reason for name, reason in absent_reasons(root).items() if name in gui}
    if not built and not absent:
        return
    facts = gui_facts(root / SHARDS, built, absent)
    table = Table(title="GUI suites per target type (target size as % of the frame; centre-click hit rate)")
    for column in (
        "config",
        "target type",
        "rows",
        "median area %",
        "median w %",
        "median h %",
        "languages",
        "centre click",
    ):
        table.add_column(column)
    for name, config in facts["built"].items():
        for kind, f in [("(all)", config["all"]), *config["by_target_type"].items()]:
            table.add_row(
                name,
                kind,
                str(f["rows"]),
                f"{f['median_target_area_pct']:.4f}",
                f"{f['target_width_pct']['median']:.2f}",
                f"{f['target_height_pct']['median']:.2f}",
                ",".join(f["languages"]),
                f"{f['center_click_hit_rate']:.3f}",
            )
    out.print(table)
    for name, reason in facts["absent"].items():
        out.print(f"{name}: absent from this build ({reason})")


def cmd_verify(args: argparse.Namespace) -> int:
    from groundbench.tools.verify import repair_hints, verify, verify_and_repair

    root = _root(args)
    if args.repair:
        for line in verify_and_repair(root, args.configs or None):
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    report = verify(root / "data", args.configs or None, rows=args.rows)
    for line in report.mismatches:
        print(f"MISMATCH {line}")  # plain print: one unwrapped line per mismatch, for grep
    for line in repair_hints(root, report):
        print(f"REPAIR {line}")
    status = "FAILED" if report.mismatches else "ok"
    console.print(
        f"verify {status}: {report.configs} configs, {report.checked_files} files, "
        f"{report.checked_images} embedded images, {len(report.mismatches)} mismatches"
    )
    return 1 if report.mismatches else 0


def cmd_preview(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from groundbench.core.atomic import write_bytes
    from groundbench.loaders.published import iter_rows
    from groundbench.review.preview import preview_png
    from groundbench.review.rows import file_stem, parse_where, select

    folder = _data_folder(args)
    where = [parse_where(t) for t in args.where]
    rows = select(iter_rows(folder, args.config), where)
    wanted = set(args.example_ids)  # ids still to find; empty = draw every row
    every = not wanted
    out = Path(args.out) if args.out else _output_root(args) / "build" / "preview" / args.config
    written = 0
    for row in tqdm(rows, desc=f"preview {args.config}", unit="row", disable=True if args.quiet else None):
        if not every and row["example_id"] not in wanted:
            continue
        write_bytes(out / f"{file_stem(row['example_id'])}.png", preview_png(row, args.side))
        wanted.discard(row["example_id"])
        written += 1
    if wanted:
        raise GroundBenchError(
            folder / "data" / args.config, "example_id", f"not in this config (or filtered out): {sorted(wanted)}"
        )
    console.print(f"{args.config}: {written} previews in {out}")
    return 0


def cmd_sheet(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from groundbench.core.atomic import atomic_dir
    from groundbench.loaders.published import iter_rows
    from groundbench.review.rows import parse_where, select
    from groundbench.review.sheet import SheetLayout, pages

    where = [parse_where(t) for t in args.where]
    rows = select(iter_rows(_data_folder(args), args.config), where)
    layout = SheetLayout(side=args.side, columns=args.columns, rows=args.rows)
    name = "__".join([args.config, *(term.slug for term in where)])
    out = (Path(args.out) if args.out else _output_root(args) / "build" / "sheets") / name
    count = 0
    with atomic_dir(out) as tmp:  # the folder holds exactly this run's pages, never stale ones
        progress = tqdm(pages(rows, layout), desc=f"sheet {name}", unit="page", disable=True if args.quiet else None)
        for number, png in enumerate(progress, 1):
            (tmp / f"page-{number:03d}.png").write_bytes(png)
            count = number
    console.print(f"{name}: {count} contact-sheet pages in {out}")
    return 0


def _output_root(args: argparse.Namespace) -> Path:
    """Where a reading command's default outputs go: the project (found as for every command), else the
    working directory (a wheel install reading a Hub copy has no project)."""
    from groundbench.core.project import find_project

    return find_project(args.root) or Path.cwd()


def _data_folder(args: argparse.Namespace) -> Path:
    """``--data``: a published folder (relative to --root when it lies there, else as given) or a Hub repo id;
    its format version is checked before any row is read."""
    from groundbench.loaders.published import check_format_version, resolve_folder

    folder = resolve_folder(args.data, None if args.root is None else _root(args))
    check_format_version(folder)
    return folder


def cmd_list(args: argparse.Namespace) -> int:
    import json

    from rich.markup import escape

    from groundbench.review.listing import NAMES, cell, chosen

    for name in args.sections:
        if name not in NAMES:
            raise unknown_name("command line", "section", name, NAMES)
    tables = [(section, section.rows(lambda: _data_folder(args))) for section in chosen(args.sections)]
    if args.json:
        print(json.dumps({section.name: rows for section, rows in tables}, indent=1, ensure_ascii=False))
        return 0
    for section, rows in tables:
        table = Table(title=escape(f"{section.name}: {section.title}"), title_justify="left")
        for column in rows[0] if rows else ():
            table.add_column(column, justify="right" if isinstance(rows[0][column], int) else "left")
        for row in rows:  # escaped: a syntax such as `[x, y]` is text, not rich markup
            table.add_row(*(escape(cell(value)) for value in row.values()))
        out.print(table)
    return 0


def cmd_requests(args: argparse.Namespace) -> int:
    from groundbench.scoring.requests import write_requests

    count = write_requests(_data_folder(args), args.config, args.condition, args.out, args.images, args.profile)
    console.print(f"{args.config} / {args.condition}: {count} requests" + (f" -> {args.out}" if args.out else ""))
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    from groundbench.scoring.run import run_sanity, run_score

    if args.sanity:
        return run_sanity(_data_folder(args), args.sanity, out, console)
    if args.predictions is None:
        console.print("error: give a PREDICTIONS file, or --sanity CONFIG")
        return 2
    options = {
        "configs": args.config or None,
        "strict": args.strict,
        "subset": args.subset,
        "allow_gate_mismatch": args.allow_gate_mismatch,
        "seed": args.seed,
        "resamples": args.resamples,
        "answer_format": args.answer_format,
    }
    outputs = {"json": args.json, "csv": args.csv, "missing": args.missing}
    return run_score(_data_folder(args), Path(args.predictions), options, outputs, out, console, args.verbose)


def cmd_compare(args: argparse.Namespace) -> int:
    from groundbench.scoring.run import run_compare

    return run_compare(_data_folder(args), Path(args.a), Path(args.b), args.seed, args.resamples, args.json, out)


def _model_arg(text: str) -> tuple[str, object]:
    import yaml

    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, found {text!r}")
    return name, yaml.safe_load(value)  # numbers and booleans as such, like inspect's own -M


def cmd_eval(args: argparse.Namespace) -> int:
    try:
        from groundbench.evaluate.run import EvalSettings, run_eval
    except ImportError as exc:  # the eval extra is optional: loading and scoring the data do not need it
        raise GroundBenchError(
            "environment",
            "inspect_ai",
            f"groundbench eval needs the eval extra: pip install 'groundbench[eval]' ({exc})",
        ) from exc

    folder = _data_folder(args)
    result = run_eval(
        EvalSettings(
            model=args.model,
            configs=args.configs,
            conditions=args.condition,
            folder=folder,
            out=Path(args.out) if args.out else _output_root(args) / "build" / "eval",
            limit=args.limit,
            max_side=args.max_side,
            max_connections=args.max_connections,
            max_retries=args.max_retries,
            attempt_timeout=args.attempt_timeout,
            temperature=args.temperature,
            max_tokens=args.max_tokens,
            model_args=dict(args.model_arg),
            model_base_url=args.model_base_url,
            display=args.display or (None if sys.stdout.isatty() else "log"),  # no live display in a log
            profile=args.profile,
        ),
        out,
        console,
    )
    if args.verbose:  # the headline table was printed as the run was scored; the breakdown follows it
        _print_breakdown(result.scores)
    console.print(
        f"eval: {result.rows} rows ({result.cached} answered earlier, {result.asked} asked now); the folder's "
        f"{result.scored} answers -> {result.predictions} and {result.scores}",
        soft_wrap=True,
    )
    return 0


def cmd_profiles(args: argparse.Namespace) -> int:
    from groundbench.scoring.profiles import listing

    for entry in listing():
        resize = "resized to it on our side" if entry["resized"] else "sent as it is"
        out.print(
            f"[bold]{entry['name']}[/bold]: answer format {entry['answer_format']}; frame {entry['frame']} ({resize})"
        )
        out.print(entry["gui_prompt"], markup=False, highlight=False)
        out.print("")
    return 0


def _print_breakdown(scores: Path) -> None:
    import json

    from groundbench.scoring.run import print_breakdown

    report = json.loads(scores.read_text(encoding="utf-8"))
    print_breakdown(report["metrics"], report["gate"], out)


def cmd_eval_log(args: argparse.Namespace) -> int:
    try:
        from groundbench.evaluate.run import score_logs
    except ImportError as exc:
        raise GroundBenchError(
            "environment",
            "inspect_ai",
            f"groundbench eval-log needs the eval extra: pip install 'groundbench[eval]' ({exc})",
        ) from exc
    result = score_logs([Path(p) for p in args.logs], _data_folder(args), Path(args.out), out, console, args.subset)
    if args.verbose:
        _print_breakdown(result.scores)
    console.print(f"eval-log: {result.rows} answered rows -> {result.predictions} and {result.scores}", soft_wrap=True)
    return 0


def _check_card(root: Path) -> list[str]:
    from groundbench.core.params import load_params
    from groundbench.core.registry import BY_NAME
    from groundbench.stages.assemble import facts_meta
    from groundbench.stages.built import published_configs
    from groundbench.stages.paths import HF_FOLDER, MANIFESTS
    from groundbench.tools.cardcheck import check_folder

    configs = [BY_NAME[name] for name in sorted(published_configs(root))]
    return check_folder(root / HF_FOLDER, root / MANIFESTS, configs, facts_meta(root, load_params(root)))


def cmd_check_card(args: argparse.Namespace) -> int:
    problems = _check_card(_root(args))
    for line in problems:
        print(f"CARD {line}")
    console.print(f"card check {'FAILED' if problems else 'ok'}: {len(problems)} problems")
    return 1 if problems else 0


def cmd_publish(args: argparse.Namespace) -> int:
    from groundbench.stages.built import built_configs
    from groundbench.stages.paths import HF_FOLDER
    from groundbench.tools.publish import git_commit, plan, preflight, upload
    from groundbench.tools.verify import verify

    root = _root(args)
    version = _params(args).dataset.version
    folder = root / HF_FOLDER
    report = verify(root / "data", built_configs(root))
    problems = preflight(folder, report.mismatches, _check_card(root))
    for line in problems:
        print(f"REFUSED {line}")
    if problems:
        console.print(f"publish refused: {len(problems)} problems (fix them, rebuild with `make build`)")
        return 1
    from groundbench.loaders.published import CARD_KEY, card_metadata

    synthetic = card_metadata(folder).get("synthetic_configs") or []
    if synthetic and not args.allow_synthetic:
        print(f"REFUSED {CARD_KEY}.synthetic_configs: {', '.join(synthetic)} were built from embedded samples")
        console.print(
            "publish refused: this is a synthetic sample build, not the benchmark; point params.yaml at the real "
            "sources and rebuild, or pass --allow-synthetic to publish it anyway (its card says it is synthetic)"
        )
        return 1
    publish_plan = plan(folder, args.repo_id, args.revision or f"v{version}", git_commit(root))
    for path, size in publish_plan.files:
        print(f"{size:>12} {path}")
    count = len(publish_plan.files)
    print(f"{publish_plan.total_bytes:>12} total, {count} files -> {args.repo_id} tag {publish_plan.tag}")
    if args.dry_run:
        console.print("dry run: nothing uploaded")
        return 0
    published = upload(folder, publish_plan, version)
    console.print(
        f"{published.status}: {args.repo_id} {publish_plan.tag}: {published.url}", markup=False, soft_wrap=True
    )
    return 0


def cmd_pull(args: argparse.Namespace) -> int:
    from groundbench.core.registry import BY_NAME
    from groundbench.schemas.baselines_features import BASELINES_CONFIG
    from groundbench.tools.dvcpull import pull_config

    names = sorted([*BY_NAME, BASELINES_CONFIG])
    if args.config not in names:
        raise unknown_name("command line", "config", args.config, names)
    _, images = pull_config(_root(args), args.config, args.remote)
    if args.config == BASELINES_CONFIG:
        console.print(f"{args.config}: shards and published folder pulled (no images)")
        return 0
    console.print(f"{args.config}: shards, manifest, published folder and {images} store images pulled")
    return 0


def cmd_fetch(args: argparse.Namespace) -> int:
    from groundbench.core.locks import output_locks
    from groundbench.fetch.provenance import checksum
    from groundbench.fetch.run import FetchOptions, fetch

    root = _root(args)
    if args.from_path and len(args.sources) != 1:
        raise GroundBenchError("command line", "--from", "give exactly one source with --from")
    for source in args.sources:
        options = FetchOptions(
            from_path=Path(args.from_path) if args.from_path else None,
            url=args.url,
            sha256=args.sha256,
            revision=args.revision,
            refresh=args.refresh,
            update=args.update,
            progress=not args.quiet,
        )
        with output_locks(root, [f"fetch-{source}"]):  # two fetches would append to the same partial download
            result = fetch(root, source, options, lambda line: console.print(line, markup=False, highlight=False))
        record = result.record
        console.print(
            f"{source}: {result.status}, revision {record['revision']}, {checksum(record)}, "
            f"{record['tree']['files']} files -> data/sources/{source}/tree "
            f"(record: data/sources/{source}/provenance.json)",
            markup=False,
            highlight=False,
        )
    console.print("next: `make build SOURCES=real` (or `groundbench sources real` then `dvc repro`)")
    return 0


def cmd_sources(args: argparse.Namespace) -> int:
    from groundbench.fetch.select import use_sources

    values = use_sources(_root(args), args.mode)
    for key, value in sorted(values.items()):
        console.print(f"sources.{key}: {'null (not fetched)' if value is None else value}", markup=False)
    return 0


def cmd_dvc_deps(args: argparse.Namespace) -> int:
    from groundbench.tools import dvcstages
    from groundbench.tools.dvcdeps import check, matrix, write

    root = _root(args)
    if args.matrix:
        lines, summary = matrix(root)
        for line in lines:
            print(line)  # plain: one module per line, for grep
        console.print(summary)
        return 0
    if args.write:
        # The source stages and foreach matrices first (from the specs), then every stage's code deps.
        written = dvcstages.write(root)
        if written:
            console.print(f"dvc.yaml: stages written from the source specs: {', '.join(written)}")
        changed = write(root)
        console.print(f"dvc.yaml: code deps rewritten for {', '.join(changed)}" if changed else "dvc.yaml: up to date")
        return 0
    problems = dvcstages.check(root) + check(root)
    for problem in problems:
        console.print(problem, markup=False, highlight=False, soft_wrap=True)
    if problems:
        console.print("run `groundbench dvc-deps --write` to regenerate dvc.yaml's source stages and code deps")
        return 1
    console.print("dvc.yaml: every stage's code deps match the import closure of its command")
    return 0


def cmd_version(args: argparse.Namespace) -> int:
    from groundbench.stages.built import built_configs
    from groundbench.stages.paths import SHARDS
    from groundbench.tools.version import bump

    root = _root(args)
    if args.action == "show":
        print(_params(args).dataset.version)
        return 0
    new, changes = bump(root, root / SHARDS, built_configs(root), args.part)
    for c in changes:
        console.print(f"{c.config}: +{c.added} -{c.removed} ~{c.changed} ={c.unchanged}")
    console.print(f"dataset version {new}: params.yaml and CHANGELOG-data.md updated; run `make build` to stamp it")
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from groundbench.converters.gapartnet.render_cli import render_object

    name = render_object(
        Path(args.object).resolve(),
        Path(args.out).resolve(),
        qpos=args.qpos,
        theta=args.theta,
        phi=args.phi,
        distance=args.distance,
        width=args.width,
        height=args.height,
        camera_idx=args.camera_idx,
        render_idx=args.render_idx,
        category=args.category,
        engine=args.engine,
    )
    console.print(f"rendered {name} into {args.out}")
    return 0


PROFILE_HELP = (
    "a model family's profile: its documented GUI prompt, the frame it is sent (Qwen's smart_resize where its "
    "processor would) and its answer format, recorded on every line (`groundbench profiles` lists them)"
)
# What `score`, `eval` and `eval-log` print: the headline figures; every metric with --verbose (always in the JSON).
VERBOSE = argparse.ArgumentParser(add_help=False)
VERBOSE.add_argument(
    "--verbose", action="store_true", help="after the headline figures, print every metric and the gate's hashes"
)
DATA = argparse.ArgumentParser(add_help=False)
DATA.add_argument("--data", help=DATA_HELP)
BOOTSTRAP = argparse.ArgumentParser(add_help=False)  # score and compare: the seeded bootstrap intervals
BOOTSTRAP.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
BOOTSTRAP.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
WHERE = argparse.ArgumentParser(add_help=False)
WHERE.add_argument(
    "--where",
    action="append",
    default=[],
    metavar="TERM",
    help="keep rows matching TERM (repeatable, ANDed): an exclusion tag (e.g. no_render) or a flag (e.g. "
    "box_clamped), excluded, included, reask, or key=value with key in stratum, source, action, class, quality, "
    "tag, flag, object_category, answer_type (action, class and quality describe the target part)",
)


def first_sentence(help_text: str) -> str:
    """A command's help up to its first full stop before a capital ("e.g. every" goes on), as argparse shows it
    (help strings are %-formats: ``95%%`` is printed ``95%``)."""
    text = help_text.replace("%%", "%")
    return re.split(r"\.\s+(?=[A-Z`-])", text, maxsplit=1)[0].rstrip(".")


class Commands:
    """The sub-commands, listed in ``--help`` by group (argparse lists one flat group; its listing is ours)."""

    def __init__(self, sub: Any) -> None:
        self.sub = sub
        self.groups: list[tuple[str, list[tuple[str, str]]]] = []

    def group(self, title: str) -> None:
        self.groups.append((title, []))

    def add_parser(self, name: str, help: str = "", **options: Any) -> argparse.ArgumentParser:  # noqa: A002
        """``sub.add_parser`` (what groundbench.results.cli calls): listed in the current group."""
        self.groups[-1][1].append((name, help))
        parser: argparse.ArgumentParser = self.sub.add_parser(name, **options)
        return parser

    def add(
        self, name: str, func: Callable[[argparse.Namespace], int], help_text: str, *parents: argparse.ArgumentParser
    ) -> argparse.ArgumentParser:
        command = self.add_parser(name, help=help_text, description=help_text, parents=list(parents))
        command.set_defaults(func=func)
        return command

    def stage(self, add_stage: Callable[[Any, ModuleType], argparse.ArgumentParser], module: ModuleType) -> None:
        add_stage(self, module)  # through add_parser: listed in the current group, once

    def listing(self) -> str:
        """Each group's commands with the first sentence of their help, wrapped to the terminal."""
        width = min(shutil.get_terminal_size().columns, 120)
        lines: list[str] = []
        for title, entries in self.groups:
            lines.append(f"{title}:")
            for name, text in entries:
                lines.extend(
                    textwrap.wrap(
                        first_sentence(text), width, initial_indent=f"  {name:<14}", subsequent_indent=" " * 16
                    )
                )
            lines.append("")
        return "\n".join(lines).rstrip()


def build_parser() -> argparse.ArgumentParser:
    """Every command: the users' first, then the maintainers', then the pipeline's stages (their own modules)."""
    from groundbench.core.registry import FETCHES
    from groundbench.entry import STAGES
    from groundbench.stages.command import add_stage

    parser = argparse.ArgumentParser(
        prog="groundbench",
        description="Use, build and check the GroundBench dataset. The pipeline's stages are normally run by "
        "`dvc repro` (`make build`).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"groundbench {__version__}")
    add_global_options(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", help="one of the commands below")
    commands = Commands(sub)
    commands.group("user commands (load, ask, score and look at the data)")
    add = commands.add
    p = add(
        "list",
        cmd_list,
        "List what there is to ask: the configs of the published folder (stratum, rows, excluded rows and the "
        "conditions valid for each) and every condition. Names a section to show only that one.",
        DATA,
    )
    p.add_argument("sections", nargs="*", metavar="SECTION", help="sections to show (default: every section)")
    p.add_argument("--json", action="store_true", help="print the sections as JSON (section -> rows) instead")
    p = add(
        "requests",
        cmd_requests,
        "Write one JSONL line per row valid under a condition: example_id, condition, prompt, image reference "
        "and template hash, for any model harness. Conditions: the six, counterfactual, part_named_free_form, "
        "gui, and any non-GUI condition + '/text_only' (same prompt, image withheld).",
        DATA,
    )
    p.add_argument("config", help="a built config, e.g. curated_umd")
    p.add_argument("--condition", required=True, help="e.g. part_named, localization_only/text_only, counterfactual")
    p.add_argument("--out", type=Path, help="output JSONL file (default: standard output)")
    p.add_argument("--images", type=Path, help="write each requested image here (<sha256>.png/.jpg); lines point at it")
    p.add_argument("--profile", metavar="NAME[:KEY=VALUE,...]", help=PROFILE_HELP)
    p = add(
        "eval",
        cmd_eval,
        "Ask a model every row of CONFIG(s) under each --condition through inspect-ai (any provider it speaks to), "
        "then write OUT/predictions.jsonl (raw responses, gate fields) and OUT/scores.json (the report of "
        "`groundbench score` on that file); inspect's logs go to OUT/logs. Re-running the same command asks only "
        "rows without an answer in OUT/answers.jsonl.",
        DATA,
        VERBOSE,
    )
    p.add_argument("configs", nargs="+", metavar="CONFIG", help="built configs, e.g. curated_umd")
    p.add_argument(
        "--condition", action="append", required=True, help="repeatable, e.g. part_named, part_named/text_only, gui"
    )
    p.add_argument(
        "--model",
        required=True,
        help="an inspect model, e.g. openai-api/vllm/Qwen/Qwen2.5-VL-7B-Instruct, openai/gpt-4o, "
        "anthropic/claude-sonnet-4-0; mockllm/model answers a fixed JSON offline",
    )
    p.add_argument("--limit", type=int, help="ask only the first N rows (by example id) of each config and condition")
    p.add_argument("--out", help="run folder (default: build/eval of the project); one model and settings per folder")
    p.add_argument(
        "--max-side",
        type=int,
        help="resize images whose longest side exceeds this; prompt and answer coordinates are mapped (recorded)",
    )
    p.add_argument("--max-connections", type=int, default=4, help="requests in flight (default 4)")
    p.add_argument("--max-retries", type=int, default=3, help="retries of a failed request (default 3)")
    p.add_argument("--attempt-timeout", type=int, default=300, help="seconds before one attempt is retried (300)")
    p.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default 0)")
    p.add_argument("--max-tokens", type=int, help="maximum tokens per answer (default: the provider's)")
    p.add_argument("--model-base-url", help="base URL of the model's API (else the provider's environment variable)")
    p.add_argument(
        "-M",
        "--model-arg",
        action="append",
        default=[],
        type=_model_arg,
        metavar="KEY=VALUE",
        help="argument for the provider's client (repeatable), as inspect's -M",
    )
    p.add_argument("--profile", metavar="NAME[:KEY=VALUE,...]", help=PROFILE_HELP)
    p.add_argument(
        "--display",
        choices=["full", "rich", "plain", "log", "none"],
        help="inspect's progress display (default: inspect's own on a terminal, log lines otherwise)",
    )
    add(
        "profiles",
        cmd_profiles,
        "Print every model profile (--profile of eval and requests): its answer format, the frame the model is sent "
        "and answers in, and the family's GUI grounding prompt.",
    )
    p = add(
        "eval-log",
        cmd_eval_log,
        "Turn inspect logs of `inspect eval groundbench/groundbench ...` into OUT/predictions.jsonl and "
        "OUT/scores.json, exactly as `groundbench eval` writes them (answered samples only).",
        DATA,
        VERBOSE,
    )
    p.add_argument("logs", nargs="+", metavar="LOG", help="inspect .eval (or .json) logs of the groundbench task")
    p.add_argument("--out", required=True, help="folder for predictions.jsonl and scores.json")
    p.add_argument(
        "--subset",
        action="store_true",
        help="the logs answer a deliberate subset (inspect eval --limit): score it as one",
    )
    p = add(
        "score",
        cmd_score,
        "Score a predictions JSONL (example_id, condition, model, raw `response` and/or parsed part/action/point/box) "
        "with the paper's metrics, baselines in the same row; or run the built-in sanity self-test on a config.",
        DATA,
        BOOTSTRAP,
        VERBOSE,
    )
    p.add_argument("predictions", nargs="?", help="predictions JSONL")
    p.add_argument("--json", type=Path, help="write the whole report (metrics, predictions, coverage, gate) here")
    p.add_argument("--csv", type=Path, help="write the metrics as CSV here (with the gate columns)")
    p.add_argument("--missing", type=Path, help="write the expected rows without a prediction here (JSONL)")
    p.add_argument("--strict", action="store_true", help="no lenient recovery: only the format's own syntax parses")
    p.add_argument(
        "--answer-format",
        default="groundbench",
        metavar="NAME[:KEY=VALUE,...]",
        help="how answers are read and in which frame (default groundbench; a line's answer_format overrides it): "
        "groundbench, pixels, norm1, norm1000, qwen2.5-vl, qwen3-vl, qwen2-vl, os-atlas, ui-tars, uground, aguvis, "
        "showui, seeclick (`groundbench profiles` lists them)",
    )
    p.add_argument(
        "--subset", action="store_true", help="score only the predicted rows (a deliberate subset; said in the output)"
    )
    p.add_argument(
        "--allow-gate-mismatch",
        action="store_true",
        help="score lines whose dataset_version / manifest_sha256 / template_sha256 differ (banner; recorded)",
    )
    p.add_argument("--config", action="append", help="score against these configs only (repeatable)")
    p.add_argument(
        "--sanity",
        metavar="CONFIG",
        help="run oracle/constant/centre-click/best-constant/coverage/echo emitters on CONFIG; exit 1 on deviation",
    )
    p = add(
        "compare",
        cmd_compare,
        "Paired difference between two predictions files on the same rows (missing = failure), with a seeded "
        "bootstrap interval resampled by object (screenshot for GUI).",
        DATA,
        BOOTSTRAP,
    )
    p.add_argument("a", help="predictions JSONL of model A")
    p.add_argument("b", help="predictions JSONL of model B")
    p.add_argument("--json", type=Path, help="write the differences as JSON here")
    p = add(
        "preview",
        cmd_preview,
        "Draw rows of a built config as PNGs: every candidate part's box and point, labelled, the target in red, "
        "a re-ask's original target in blue, line style = box quality; a legend lists every part.",
        DATA,
        QUIET,
        WHERE,
    )
    p.add_argument("config", help="a built config, e.g. curated_umd")
    p.add_argument("example_ids", nargs="*", metavar="EXAMPLE_ID", help="rows to draw (default: every row)")
    p.add_argument("--out", help="output folder (default: build/preview/CONFIG)")
    p.add_argument("--side", type=int, default=960, help="longest image side in pixels (default: 960)")
    p = add(
        "sheet",
        cmd_sheet,
        "Contact sheets of a built config: pages of overlaid thumbnails with captions "
        "(e.g. every row tagged box_projection_mismatch), written to OUT/CONFIG[__TERM...]/page-NNN.png.",
        DATA,
        QUIET,
        WHERE,
    )
    p.add_argument("config", help="a built config, e.g. bulk_umd")
    p.add_argument("--out", help="parent output folder (default: build/sheets)")
    p.add_argument("--side", type=int, default=256, help="thumbnail cell size in pixels (default: 256)")
    p.add_argument("--columns", type=int, default=6, help="thumbnails per line (default: 6)")
    p.add_argument("--rows", type=int, default=8, help="lines per page (default: 8)")
    from groundbench.results.cli import register_plot, register_results, register_table

    register_table(commands)
    register_plot(commands)
    register_results(commands)
    commands.group("maintainer tools (fetch the sources, build, check and publish a release)")
    p = add(
        "fetch",
        cmd_fetch,
        "Download real sources from their official locations into data/sources/<source>/tree (licence and terms "
        "printed first), check sizes, checksums and layout, write data/sources/<source>/provenance.json and "
        "`dvc add` the tree. Sources: umd (HTTP archive), pointerbench, screenspot, screenspot_v2, screenspot_pro "
        "(Hugging Face, pinned to a commit), gapartnet (request form: --from your download).",
        QUIET,
    )
    p.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help=", ".join(FETCHES),  # the registry's fetchable sources
    )
    p.add_argument("--from", dest="from_path", metavar="ARCHIVE_OR_FOLDER", help="gapartnet: your download")
    p.add_argument("--url", help="umd: a mirror of the official archive")
    p.add_argument("--sha256", help="the archive's expected sha256 (default: the documented or recorded one)")
    p.add_argument("--revision", help="Hub sources: branch, tag or commit (default: the recorded commit, else main)")
    p.add_argument("--refresh", action="store_true", help="download again and compare with the recorded bytes")
    p.add_argument("--update", action="store_true", help="accept new upstream bytes or a new revision")
    p = add(
        "sources",
        cmd_sources,
        "Point params.yaml's sources: at the fetched trees (real; sources not fetched become null and their "
        "configs are absent, with the reason) or back at the embedded samples (sample).",
    )
    p.add_argument("mode", choices=["real", "sample"], help="which sources the next build reads")
    p = add(
        "verify",
        cmd_verify,
        "Check every shard, Parquet file, manifest, card and store image against the sha256s recorded at build time "
        "(docs/integrity.md); exit 1 naming each file and row that differs, with the command that repairs it.",
    )
    p.add_argument(
        "configs", nargs="*", help="configs to check (default: every built config and every config in the card)"
    )
    p.add_argument("--rows", action="store_true", help="also read every file row by row against its manifest (slower)")
    p.add_argument(
        "--repair",
        action="store_true",
        help="first remove each damaged DVC cache object and its links and restore them (dvc pull, else dvc repro)",
    )
    add("summary", cmd_summary, "Print rows, excluded rows, images and bytes per config.")
    p = add(
        "pull",
        cmd_pull,
        "`dvc pull` one config only: its shards, manifest, published folder and exactly the images its "
        "manifest lists from the shared store.",
    )
    p.add_argument("config", help="config name, e.g. curated_umd, or baselines")
    p.add_argument("--remote", help="DVC remote name (default: the project's default remote)")
    add(
        "check-card",
        cmd_check_card,
        "Regenerate the card and croissant.json from data/groundbench's shards and compare; validate both "
        "offline (huggingface_hub, mlcroissant). Exit 1 on any difference.",
    )
    p = add(
        "publish",
        cmd_publish,
        "Upload data/groundbench/ to a Hugging Face dataset repo (create_repo, upload_folder, create_tag). "
        "Refuses unless verify, shard validation and the card check pass. Needs a token (HF_TOKEN or `hf auth "
        "login`) and HF_HUB_OFFLINE unset; HF_ENDPOINT selects another Hub.",
    )
    p.add_argument("--repo-id", required=True, help="ORG/NAME of the dataset repo (created when missing)")
    p.add_argument("--revision", help="tag to create for this version (default: v<dataset.version>)")
    p.add_argument("--dry-run", action="store_true", help="print the exact files and bytes; upload nothing")
    p.add_argument(
        "--allow-synthetic",
        action="store_true",
        help="publish a build made from the embedded samples anyway (refused by default; its card says synthetic)",
    )
    p = add(
        "version",
        cmd_version,
        "Show the dataset version, or bump it: params.yaml dataset.version plus a CHANGELOG-data.md entry "
        "(rows added/removed/changed per config since the previous bump, computed from the built shards).",
    )
    p.add_argument("action", choices=["show", "bump"], help="show the version, or bump it")
    p.add_argument("part", nargs="?", choices=["major", "minor", "patch"], default="patch", help="what to bump")
    p = add(
        "dvc-deps",
        cmd_dvc_deps,
        "Compare dvc.yaml with the source specs (each source's stages, the foreach matrices) and each stage's code "
        "deps with the import closure of its command (and the package data those modules ship); exit 1 on any "
        "difference. --write regenerates both (hand-written data deps are left alone).",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="compare only (the default)")
    mode.add_argument("--write", action="store_true", help="rewrite the source stages and the code deps of dvc.yaml")
    mode.add_argument(
        "--matrix", action="store_true", help="print each module file -> the stages editing it re-runs, and a summary"
    )
    p = add(
        "render",
        cmd_render,
        "Render one clean view of a GAPartNet object folder (URDF + OBJ meshes) on the CPU, in GAPartNet's "
        "render format (rgb/ segmentation/ depth/ metafile/ bbox/), the camera persisted in the metafile.",
    )
    p.add_argument("object", help="GAPartNet object folder (annotation URDF, link annotations, meshes)")
    p.add_argument("--out", required=True, help="renders folder to add the view to")
    p.add_argument("--qpos", action="append", default=[], metavar="JOINT=VALUE", help="joint position (repeatable)")
    p.add_argument("--theta", type=float, default=60.0, help="camera polar angle from +z, degrees (default 60)")
    p.add_argument("--phi", type=float, default=180.0, help="camera azimuth, degrees; fronts face -x (default 180)")
    p.add_argument("--distance", type=float, default=3.0, help="camera distance from the origin (default 3)")
    p.add_argument("--width", type=int, default=320, help="image width in pixels (default 320)")
    p.add_argument("--height", type=int, default=240, help="image height in pixels (default 240)")
    p.add_argument("--camera-idx", type=int, default=0, help="camera index in the view name (default 0)")
    p.add_argument("--render-idx", type=int, default=0, help="render index in the view name (default 0)")
    p.add_argument("--category", help="object category (default: meta.json model_cat)")
    p.add_argument(
        "--engine",
        choices=["raster", "embree", "triangle"],
        default="raster",
        help="raster (default: the same bytes on every CPU), embree (its edge pixels vary by CPU), triangle",
    )
    commands.group("pipeline stages (dvc.yaml runs each in its own process: bin/groundbench STAGE)")
    for module in STAGES.values():
        commands.stage(add_stage, importlib.import_module(module))
    parser.epilog = commands.listing()
    return parser


def run_user(argv: Sequence[str]) -> int:
    """A user or maintainer command (``groundbench/entry.py`` sends the stages elsewhere)."""
    from groundbench.entry import guarded

    args = build_parser().parse_args(argv)
    if getattr(args, "stage", None) is not None:  # only reached when called here directly
        from groundbench.stages.command import run_stage

        return guarded(lambda: run_stage(args.stage, args), args.debug)
    return guarded(lambda: int(args.func(args)), args.debug)


def main(argv: Sequence[str] | None = None) -> int:
    """``groundbench``: every command, the stages included (the console script is ``groundbench.entry:main``)."""
    from groundbench.entry import main as entry

    return entry(argv)


if __name__ == "__main__":
    sys.exit(main())
