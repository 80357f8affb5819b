"""Finding the project and naming what is in it, as a new user meets it (each command run in a subprocess):

1. every command finds the project the same way from any folder inside it (``--root``, else the project
   around the working directory, else the checkout): run from ``docs/`` it does what ``--root`` does;
2. ``groundbench list`` shows the configs (stratum, rows, excluded rows, valid conditions) and the conditions;
3. every unknown name (config, condition, section) is one error line worded one way, listing the valid names;
4. a ``--data`` that cannot be read says why: a missing folder, offline Hub access, a project root given
   for its published folder.

The project is a UMD sample build (tests/support/builds.py makes it once per run) with the checkout's ``dvc.yaml``.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from groundbench.scoring.formats import names
from tests.cli.test_cli_user import REPO, folder, groundbench, one_error
from tests.support.builds import copy_tree

__all__ = ["folder"]  # the module's published folder fixture (tests/cli/test_cli_user.py), used here too

# (command, whether it succeeds on the sample project): each reads or writes the project it finds.
PROJECT_COMMANDS = (
    (("list",), True),
    (("requests", "curated_umd", "--condition", "part_named"), True),
    (("score", "--sanity", "curated_umd"), True),
    (("preview", "curated_umd", "--quiet"), True),
    (("summary",), True),
    (("verify",), True),
    (("version", "show"), True),
    (("check-card",), True),
    (("dvc-deps", "--check"), False),  # the copy holds no code folders: the same complaint either way
    (("publish", "--repo-id", "org/name", "--dry-run"), True),
    (("sources", "sample"), True),  # last: it rewrites params.yaml (the same way both times)
)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, folder: Path) -> Path:
    """A private copy of the sample build as a project (params.yaml and dvc.yaml), with a docs/ folder."""
    root = copy_tree(folder.parent.parent, tmp_path_factory.mktemp("project_copy") / "project")
    shutil.copy(REPO / "dvc.yaml", root / "dvc.yaml")
    (root / "docs").mkdir()
    return root


# ---------------------------------------------------------------- 1. one rule for the project


@pytest.mark.parametrize(("command", "succeeds"), PROJECT_COMMANDS, ids=[c[0][0] for c in PROJECT_COMMANDS])
def test_from_a_subfolder_every_command_finds_the_project(
    command: tuple[str, ...], succeeds: bool, project: Path, tmp_path: Path
) -> None:
    inside = groundbench(project / "docs", *command)
    named = groundbench(tmp_path, "--root", str(project), *command)
    assert (inside.returncode, inside.stdout) == (named.returncode, named.stdout), inside.stderr
    assert inside.stderr.replace(str(project / "docs"), "") == named.stderr.replace(str(tmp_path), "")
    assert (inside.returncode == 0) == succeeds, inside.stderr
    assert str(project / "docs") not in inside.stderr  # never a path of the subfolder (docs/params.yaml ...)


def test_default_outputs_go_to_the_project_not_the_subfolder(project: Path) -> None:
    result = groundbench(project / "docs", "preview", "curated_umd", "--quiet")
    assert result.returncode == 0, result.stderr
    assert len(list((project / "build" / "preview" / "curated_umd").glob("*.png"))) == 5
    command = ("eval", "curated_umd", "--condition", "part_named", "--model", "mockllm/model", "--display", "none")
    evaluated = groundbench(project / "docs", *command)
    assert evaluated.returncode == 0, evaluated.stderr
    assert (project / "build" / "eval" / "scores.json").is_file()
    sheet = groundbench(project / "docs", "sheet", "curated_umd", "--quiet")
    assert sheet.returncode == 0, sheet.stderr
    assert (project / "build" / "sheets" / "curated_umd" / "page-001.png").is_file()
    plotted = groundbench(project / "docs", "plot", str(project / "build" / "eval"))
    assert plotted.returncode == 0, plotted.stderr
    assert (project / "build" / "plots" / "plots.json").is_file()
    for command in (("table", "../build/eval"), ("compare", *["../build/eval/predictions.jsonl"] * 2)):
        inside = groundbench(project / "docs", *command)  # the folder scored on: the project's, as with --root
        assert inside.returncode == 0 and "curated_umd" in inside.stdout, inside.stderr
    assert not (project / "docs" / "build").exists()


def test_outside_any_project_the_checkout_is_the_project(tmp_path: Path) -> None:
    assert groundbench(tmp_path, "version", "show").stdout == groundbench(REPO, "version", "show").stdout


# ---------------------------------------------------------------- 2. groundbench list


def test_list_shows_configs_and_conditions(folder: Path, tmp_path: Path) -> None:
    result = groundbench(tmp_path, "list", "--json", "--data", str(folder))
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    assert set(listed) == {"configs", "conditions", "formats", "profiles"}
    assert [row["name"] for row in listed["formats"]] == names()  # every declared answer format
    assert [row["name"] for row in listed["profiles"]] == names()  # a profile per format name
    configs = {row["config"]: row for row in listed["configs"]}
    assert set(configs) == {"bulk_umd", "curated_umd"}  # baselines holds aggregates, not rows to ask
    curated = configs["curated_umd"]
    assert (curated["stratum"], curated["rows"], curated["excluded"]) == ("curated", 5, 0)
    assert list(curated["conditions"].items())[:3] == [("image_only", 5), ("object_named", 5), ("part_named", 5)]
    assert "gui" not in curated["conditions"] and "counterfactual" not in curated["conditions"]
    conditions = {row["condition"]: row for row in listed["conditions"]}
    assert list(conditions)[:3] == ["image_only", "object_named", "part_named"]
    assert conditions["gui"]["text-only control"] is None
    assert conditions["part_named"]["text-only control"] == "part_named/text_only"
    terminal = groundbench(tmp_path, "list", "--data", str(folder), COLUMNS="200")
    assert re.search(
        r"curated_umd +│ curated +│ +5 │ +0 │ image_only: 5, object_named: 5, part_named: 5", terminal.stdout
    )
    assert "part_named/text_only" in terminal.stdout


def test_list_assemble_verify_and_the_card_count_the_configs_one_way(project: Path) -> None:
    """Two configs of rows and the baselines config, in each command's words; the card lists all three."""
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(project / "data/groundbench/README.md").data.to_dict()
    assert sorted(c["config_name"] for c in card["configs"]) == ["baselines", "bulk_umd", "curated_umd"]
    said = "2 configs of rows and the baselines config"
    listed = groundbench(project, "list", "configs", COLUMNS="300")
    assert listed.returncode == 0 and "its baselines config holds their baseline answers" in listed.stdout
    assert listed.stdout.count("_umd ") == 2
    verified = groundbench(project, "verify")
    assert verified.returncode == 0 and f"verify ok: {said}, " in verified.stderr + verified.stdout
    assembled = groundbench(project, "assemble")
    assert assembled.returncode == 0 and f"data/groundbench: {said}, card" in assembled.stderr + assembled.stdout


def test_list_one_section_needs_no_data(tmp_path: Path) -> None:
    alone = groundbench(tmp_path, "list", "conditions", "--json", GROUNDBENCH_DATA=str(tmp_path / "none"))
    assert alone.returncode == 0, alone.stderr
    assert list(json.loads(alone.stdout)) == ["conditions"]


# ---------------------------------------------------------------- 3. unknown names, worded one way

CONDITION_LIST = (
    "(conditions: image_only, object_named, part_named, localization_only, localization_shown, mechanics_shown, "
    "counterfactual, part_named_free_form, gui; and each but gui + '/text_only')"
)


@pytest.mark.parametrize(
    "command",
    [
        ("requests", "curated_umd", "--condition", "part_name"),
        ("eval", "curated_umd", "--condition", "part_name", "--model", "mockllm/model", "--out", "run"),
    ],
    ids=["requests", "eval"],
)
def test_a_misspelt_condition_lists_the_conditions(command: tuple[str, ...], folder: Path, tmp_path: Path) -> None:
    line = one_error(groundbench(tmp_path, *command, "--data", str(folder)))
    expected = "error: command line: condition: unknown condition 'part_name'; did you mean 'part_named'? "
    assert line == expected + CONDITION_LIST
    assert not (tmp_path / "run").exists()


def test_a_misspelt_condition_in_a_predictions_file_says_the_same(folder: Path, tmp_path: Path) -> None:
    request = groundbench(tmp_path, "requests", "curated_umd", "--condition", "part_named", "--data", str(folder))
    example_id = json.loads(request.stdout.splitlines()[0])["example_id"]
    line = {"example_id": example_id, "condition": "part_name", "model": "m", "response": "{}"}
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps(line) + "\n")
    result = groundbench(tmp_path, "score", str(predictions), "--data", str(folder))
    assert result.returncode == 2
    assert f"condition: unknown condition 'part_name'; did you mean 'part_named'? {CONDITION_LIST}" in result.stderr


@pytest.mark.parametrize(
    "command",
    [
        ("requests", "curatd_umd", "--condition", "part_named"),
        ("eval", "curatd_umd", "--condition", "part_named", "--model", "mockllm/model", "--out", "run"),
        ("score", "--sanity", "curatd_umd"),
        ("preview", "curatd_umd"),
        ("sheet", "curatd_umd"),
    ],
    ids=["requests", "eval", "score", "preview", "sheet"],
)
def test_a_misspelt_config_is_worded_one_way(command: tuple[str, ...], folder: Path, tmp_path: Path) -> None:
    line = one_error(groundbench(tmp_path, *command, "--data", str(folder)))
    expected = f"error: {folder}: config: unknown config 'curatd_umd'; did you mean 'curated_umd'? "
    assert line == expected + "(configs: bulk_umd, curated_umd)"  # never `baselines`: no rows to ask
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    "command",
    [
        ("requests", "baselines", "--condition", "part_named"),
        ("eval", "baselines", "--condition", "part_named", "--model", "mockllm/model", "--out", "run"),
        ("score", "--sanity", "baselines"),
        ("score", "p.jsonl", "--config", "baselines"),
        ("preview", "baselines"),
        ("sheet", "baselines", "--out", "run"),
    ],
    ids=["requests", "eval", "score --sanity", "score --config", "preview", "sheet"],
)
def test_baselines_is_no_config_of_rows_anywhere(command: tuple[str, ...], folder: Path, tmp_path: Path) -> None:
    """The baselines config holds aggregates: every command that reads rows refuses it as it refuses a name
    it does not know (it crashed preview and score --config, and drew empty contact sheets)."""
    (tmp_path / "p.jsonl").write_text("")
    line = one_error(groundbench(tmp_path, *command, "--data", str(folder)))
    assert line == f"error: {folder}: config: unknown config 'baselines' (configs: bulk_umd, curated_umd)"
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    "command",
    [
        ("requests", "curated_gapartnet", "--condition", "part_named"),
        ("eval", "curated_gapartnet", "--condition", "part_named", "--model", "mockllm/model", "--out", "run"),
        ("score", "--sanity", "curated_gapartnet"),
        ("preview", "curated_gapartnet"),
        ("sheet", "curated_gapartnet", "--out", "run"),
    ],
    ids=["requests", "eval", "score", "preview", "sheet"],
)
def test_a_config_left_out_of_the_build_is_said_to_be(command: tuple[str, ...], folder: Path, tmp_path: Path) -> None:
    """A config GroundBench defines that this build left out (its source null) is not called unknown: the line
    says it is not in this build and where the card gives the reason."""
    line = one_error(groundbench(tmp_path, *command, "--data", str(folder)))
    assert line == (
        f"error: {folder}: config: config 'curated_gapartnet' is not in this build (its card, README.md, says why "
        "under 'why it is not in this build'); configs here: bulk_umd, curated_umd"
    )
    assert not (tmp_path / "run").exists()


UMD_CONDITIONS = (
    "image_only, object_named, part_named, localization_only, localization_shown, mechanics_shown, part_named_free_form"
)


@pytest.mark.parametrize(
    "command",
    [
        ("requests", "curated_umd", "--condition", "gui"),
        ("eval", "curated_umd", "--condition", "gui", "--model", "mockllm/model", "--out", "run"),
    ],
    ids=["requests", "eval"],
)
def test_a_condition_no_row_is_valid_under_names_the_valid_ones(
    command: tuple[str, ...], folder: Path, tmp_path: Path
) -> None:
    line = one_error(groundbench(tmp_path, *command, "--data", str(folder)))
    assert line == (
        "error: curated_umd: condition: no row of curated_umd is valid under gui "
        f"(its rows are valid under {UMD_CONDITIONS}; see groundbench list)"
    )
    assert not (tmp_path / "run").exists()


def test_an_eval_with_no_valid_pair_at_all_says_so_in_one_line(folder: Path, tmp_path: Path) -> None:
    command = ("eval", "curated_umd", "bulk_umd", "--condition", "gui", "--model", "mockllm/model", "--out", "run")
    line = one_error(groundbench(tmp_path, *command, "--data", str(folder)))
    assert line == (
        f"error: {folder}: condition: no row of any (config, condition) asked is valid: curated_umd / gui, "
        "bulk_umd / gui (see groundbench list)"
    )
    assert not (tmp_path / "run").exists()


def test_a_pipeline_stage_words_an_unknown_config_the_same_way(project: Path) -> None:
    line = one_error(groundbench(project, "bake", "curatd_umd"))
    assert re.fullmatch(
        r"error: dvc\.yaml: config: unknown config 'curatd_umd'; did you mean 'curated_umd'\? \(configs: \S+(, \S+)*\)",
        line,
    ), line


@pytest.mark.parametrize(
    ("term", "expected"),
    [
        ("clas=handle", "key: unknown key 'clas'; did you mean 'class'? (keys: action, answer_type, class, "),
        ("flag=box_clampd", "flag: unknown flag 'box_clampd'; did you mean 'box_clamped'? (flags: "),
        (
            "tag=no_rendr",
            "exclusion tag: unknown exclusion tag 'no_rendr'; did you mean 'no_render'? (exclusion tags: ",
        ),
        ("exclued", "term: unknown term 'exclued'; did you mean 'excluded'? (terms: excluded, included, reask, "),
    ],
    ids=["key", "flag", "tag", "term"],
)
def test_an_unknown_where_term_is_worded_the_same_way(term: str, expected: str, folder: Path, tmp_path: Path) -> None:
    line = one_error(groundbench(tmp_path, "preview", "curated_umd", "--where", term, "--data", str(folder)))
    assert line.startswith(f"error: --where: {expected}"), line


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        (("requests", "curated_umd", "--condition", "part_named", "--profile", "qwen25-vl"), "profile"),
        (("eval", "curated_umd", "--condition", "part_named", "--model", "mockllm/model", "--profile", "qwen25-vl",
          "--out", "run"), "profile"),
        (("score", "p.jsonl", "--answer-format", "qwen25-vl"), "answer format"),
    ],
    ids=["requests --profile", "eval --profile", "score --answer-format"],
)  # fmt: skip
def test_a_misspelt_profile_or_format_is_worded_one_way(
    command: tuple[str, ...], kind: str, folder: Path, tmp_path: Path
) -> None:
    (tmp_path / "p.jsonl").write_text("")
    line = one_error(groundbench(tmp_path, *command, "--data", str(folder)))
    expected = f"error: command line: {kind}: unknown {kind} 'qwen25-vl'; did you mean 'qwen2.5-vl'? ({kind}s: "
    assert line == expected + ", ".join(names()) + ")"
    assert not (tmp_path / "run").exists()


def test_an_unknown_section_lists_the_sections(tmp_path: Path) -> None:
    line = one_error(groundbench(tmp_path, "list", "format"))
    assert re.fullmatch(
        r"error: command line: section: unknown section 'format'; did you mean 'formats'\? "
        r"\(sections: configs, conditions, formats, profiles\)",
        line,
    )


# ---------------------------------------------------------------- 4. --data that cannot be read


def test_a_missing_folder_says_it_does_not_exist(tmp_path: Path) -> None:
    missing = tmp_path / "no_such_folder"
    command = ("requests", "curated_umd", "--condition", "part_named", "--data", str(missing))
    line = one_error(groundbench(tmp_path, *command))
    assert line.startswith(f"error: {missing}: folder: no such folder"), line


def test_a_hub_id_offline_says_offline_and_how_to_go_online(tmp_path: Path) -> None:
    command = ("requests", "curated_umd", "--condition", "part_named", "--data", "someorg/somedata")
    line = one_error(groundbench(tmp_path, *command, HF_HUB_OFFLINE="1"))
    assert line.startswith("error: someorg/somedata: folder: "), line
    assert "HF_HUB_OFFLINE=1" in line and "HF_HUB_OFFLINE=0" in line and "no such dataset" not in line


def test_a_project_root_as_data_suggests_its_published_folder(project: Path) -> None:
    line = one_error(groundbench(project, "requests", "curated_umd", "--condition", "part_named", "--data", "."))
    assert line.startswith(f"error: {project}: folder: "), line
    assert "--data data/groundbench" in line
