"""``groundbench score``: score a predictions file, or the sanity self-test (``groundbench.scoring.run``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from groundbench.commands.options import BOOTSTRAP, DATA, LAYOUT_NAMES, VERBOSE, out
from groundbench.commands.options import data_folder as _data_folder
from groundbench.stages.options import console

NAME = "score"
HELP = """Score a predictions JSONL (example_id, condition, model, raw `response` and/or parsed
part/action/point/box) with the paper's metrics, baselines in the same row; or run the built-in sanity self-test on a
config."""
PARENTS = (DATA, BOOTSTRAP, VERBOSE)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("predictions", nargs="?", help="predictions JSONL")
    parser.add_argument("--json", type=Path, help="write the whole report (metrics, predictions, coverage, gate) here")
    parser.add_argument("--csv", type=Path, help="write the metrics as CSV here (with the gate columns)")
    parser.add_argument("--missing", type=Path, help="write the expected rows without a prediction here (JSONL)")
    parser.add_argument(
        "--strict", action="store_true", help="no lenient recovery: only the format's own syntax parses"
    )
    parser.add_argument(
        "--answer-format",
        default="groundbench",
        metavar="NAME[:KEY=VALUE,...]",
        help="how answers are read and in which frame (default groundbench; a line's answer_format overrides it): "
        "groundbench, pixels, norm1, norm1000, qwen2.5-vl, qwen3-vl, qwen2-vl, os-atlas, ui-tars, uground, aguvis, "
        "showui, seeclick, molmo, robopoint, gemini, claude-computer-use, openai-computer-use, glm-v, internvl, "
        "cogagent, minicpm-v, kimi-vl, agentcpm-gui, ui-venus, ui-venus-2, gta1, holo1.5, infigui-g1 (`groundbench "
        "profiles` lists them)",
    )
    parser.add_argument(
        "--subset", action="store_true", help="score only the predicted rows (a deliberate subset; said in the output)"
    )
    parser.add_argument(
        "--allow-gate-mismatch",
        action="store_true",
        help="score lines whose dataset_version / manifest_sha256 / template_sha256 differ (banner; recorded)",
    )
    parser.add_argument("--config", action="append", help="score against these configs only (repeatable)")
    parser.add_argument(
        "--layout",
        action="append",
        choices=LAYOUT_NAMES,
        metavar="NAME",
        help="also print the published table NAME (repeatable; in the --json report too, for `groundbench table "
        f"--layout`): {', '.join(LAYOUT_NAMES)}",
    )
    parser.add_argument(
        "--sanity",
        metavar="CONFIG",
        help="run oracle/constant/centre-click/best-constant/coverage/echo emitters on CONFIG; exit 1 on deviation",
    )


def run(args: argparse.Namespace) -> int:
    from groundbench.scoring.api import ScoreOptions
    from groundbench.scoring.run import ScoreOutputs, run_sanity, run_score

    if args.sanity:
        return run_sanity(_data_folder(args), args.sanity, out, console)
    if args.predictions is None:
        console.print("error: give a PREDICTIONS file, or --sanity CONFIG")
        return 2
    options = ScoreOptions(
        configs=args.config or None,
        strict=args.strict,
        subset=args.subset,
        allow_gate_mismatch=args.allow_gate_mismatch,
        seed=args.seed,
        resamples=args.resamples,
        answer_format=args.answer_format,
        layouts=tuple(dict.fromkeys(args.layout or ())),
    )
    outputs = ScoreOutputs(json=args.json, csv=args.csv, missing=args.missing)
    return run_score(_data_folder(args), Path(args.predictions), options, outputs, out, console, args.verbose)
