"""A failing stage under real `dvc repro` leaves the last good outputs in place.

DVC deletes a stage's outputs before running its command unless they are ``persist: true``; our
commands replace their outputs atomically and only on success, so with ``persist`` a failed stage
leaves the previous outputs untouched. Checked on the project's own dvc.yaml (the cheap UMD stages),
and, as a control, that the same failure without ``persist`` does delete them.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, digests
from tests.support.dvcrepo import dvc_env

OUTPUT = "data/interim/umd"


def _run(cwd: Path, *command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, cwd=cwd, env=dvc_env(), capture_output=True, text=True, check=False)
    if check:
        assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}"
    return result


def _outs(stage: dict) -> list:
    return list(stage.get("do", stage).get("outs", []))


def test_every_output_of_the_pipeline_persists() -> None:
    stages = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]
    outs = [(name, out) for name, stage in stages.items() for out in _outs(stage)]
    assert len(outs) == 64  # 48 data outputs and the 16 code fingerprints (data/code/<stage>.sha256)
    for name, out in outs:
        assert isinstance(out, dict) and len(out) == 1, (name, out)
        assert next(iter(out.values())) == {"persist": True}, (name, out)


def _project(root: Path, persist: bool) -> Path:
    """A git repository of the project's tracked files; ``persist=False`` strips the flag (the control)."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        if (REPO / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)
    if not persist:
        text = (root / "dvc.yaml").read_text().replace(":\n          persist: true", "")
        (root / "dvc.yaml").write_text(text.replace(":\n            persist: true", ""))
        assert all(line.strip() != "persist: true" for line in (root / "dvc.yaml").read_text().splitlines())
    _run(root, "git", "init", "-q")
    _run(root, "git", "add", "-A")
    _run(root, "git", "commit", "-qm", "project")
    return root


@pytest.mark.slow  # end to end: `dvc repro` of a stage in a fresh git+DVC repository
@pytest.mark.parametrize("persist", [True, False], ids=["persist", "control-without-persist"])
def test_a_failing_stage_keeps_the_last_good_outputs(tmp_path: Path, persist: bool) -> None:
    root = _project(tmp_path / "repo", persist)
    _run(root, "dvc", "repro", "convert_umd")
    good = digests(root, (OUTPUT,))
    assert any(name.endswith(".arrow") for name in good)
    audit = root / "data" / "audits" / "curated_umd.yaml"
    audit.write_text(audit.read_text() + "  - tool: spoon_99\n")  # a tool the source does not have
    failed = _run(root, "dvc", "repro", "convert_umd", check=False)
    assert failed.returncode != 0
    assert "spoon_99" in failed.stdout + failed.stderr
    if persist:
        assert digests(root, (OUTPUT,)) == good  # byte for byte the last good outputs
        assert [p.name for p in (root / "data" / "interim").iterdir() if p.name.startswith(".umd")] == []
    else:
        assert not (root / OUTPUT).exists() or digests(root, (OUTPUT,)) == {}  # DVC removed them first
