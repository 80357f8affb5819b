"""``groundbench eval``: ask a model through inspect-ai and score its answers (``groundbench.evaluate.run``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from groundbench.commands.options import DATA, PROFILE_HELP, VERBOSE, out
from groundbench.commands.options import data_folder as _data_folder
from groundbench.commands.options import output_root as _output_root
from groundbench.core.collector import loading
from groundbench.errors import GroundBenchError
from groundbench.evaluate.silence import ATTEMPT_TIMEOUT, TRIES_WITHOUT_REPLY
from groundbench.stages.options import console

NAME = "eval"
HELP = """Ask a model every row of CONFIG(s) under each --condition through inspect-ai (any provider it speaks to),
then write OUT/predictions.jsonl (raw responses, gate fields) and OUT/scores.json (the report of `groundbench score`
on that file); inspect's logs go to OUT/logs. Re-running the same command asks only rows without an answer in
OUT/answers.jsonl."""
PARENTS = (DATA, VERBOSE)


def _model_arg(text: str) -> tuple[str, object]:
    import yaml

    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, found {text!r}")
    return name, yaml.safe_load(value)  # numbers and booleans as such, like inspect's own -M


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("configs", nargs="+", metavar="CONFIG", help="built configs, e.g. curated_umd")
    parser.add_argument(
        "--condition", action="append", required=True, help="repeatable, e.g. part_named, part_named/text_only, gui"
    )
    parser.add_argument(
        "--model",
        required=True,
        help="an inspect model, e.g. openai-api/vllm/Qwen/Qwen2.5-VL-7B-Instruct, openai/gpt-4o, "
        "anthropic/claude-sonnet-4-0; mockllm/model answers a fixed JSON offline",
    )
    parser.add_argument(
        "--limit", type=int, help="ask only the first N rows (by example id) of each config and condition"
    )
    parser.add_argument(
        "--out", help="run folder (default: build/eval of the project); one model and settings per folder"
    )
    parser.add_argument(
        "--max-side",
        type=int,
        help="resize images whose longest side exceeds this; prompt and answer coordinates are mapped (recorded)",
    )
    parser.add_argument("--max-connections", type=int, default=4, help="requests in flight (default 4)")
    parser.add_argument("--max-retries", type=int, default=3, help="retries of a failed request (default 3)")
    parser.add_argument(
        "--attempt-timeout",
        type=int,
        default=ATTEMPT_TIMEOUT,
        help=f"seconds one try of a request waits for the reply (default {ATTEMPT_TIMEOUT}); a request without a "
        f"reply is tried {TRIES_WITHOUT_REPLY} times at most, and once one gets none the rows after it are not sent",
    )
    parser.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default 0)")
    parser.add_argument("--max-tokens", type=int, help="maximum tokens per answer (default: the provider's)")
    parser.add_argument(
        "--model-base-url", help="base URL of the model's API (else the provider's environment variable)"
    )
    parser.add_argument(
        "-M",
        "--model-arg",
        action="append",
        default=[],
        type=_model_arg,
        metavar="KEY=VALUE",
        help="argument for the provider's client (repeatable), as inspect's -M",
    )
    parser.add_argument("--profile", metavar="NAME[:KEY=VALUE,...]", help=PROFILE_HELP)
    parser.add_argument(
        "--display",
        choices=["full", "rich", "plain", "log", "none"],
        help="inspect's progress display (default: inspect's own on a terminal, log lines otherwise)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        with loading():  # inspect-ai, datasets: loaded without the cyclic collector (groundbench/core/collector.py)
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
        print_scores_breakdown(result.scores)
    console.print(
        f"eval: {result.rows} rows ({result.cached} answered earlier, {result.asked} asked now); the folder's "
        f"{result.scored} answers -> {result.predictions} and {result.scores}",
        soft_wrap=True,
    )
    return 0


def print_scores_breakdown(scores: Path) -> None:
    """Every metric of a written scores.json and the gate's hashes (``--verbose``)."""
    import json

    from groundbench.scoring.run import print_breakdown

    report = json.loads(scores.read_text(encoding="utf-8"))
    print_breakdown(report["metrics"], report["gate"], out)
