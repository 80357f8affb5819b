"""``groundbench pull CONFIG``: fetch one config's artifacts from the DVC remote, nothing else.

DVC outputs are per config for shards and manifests (``bake@<config>``), but the image store
``data/images/`` is one content-addressed output shared by every config (a derived config reuses
its parent's images at no cost). DVC can pull single files inside a directory output, so this
command pulls the config's manifest first, then exactly the store files that manifest lists, plus
the config's shards and its folder inside ``data/groundbench/``. The ``baselines`` config has no
manifest, shards or images (``groundbench assemble`` computes it): its published folder only.
"""

from __future__ import annotations

from pathlib import Path

from groundbench.core.manifests import read_manifest
from groundbench.errors import GroundBenchError
from groundbench.schemas.baselines_features import BASELINES_CONFIG


def pull_config(root: Path, config: str, remote: str | None = None) -> tuple[int, int]:
    """Returns (files pulled in the first step, images pulled); no remote configured is one clear error."""
    from dvc.config import NoRemoteError, RemoteNotFoundError
    from dvc.exceptions import CheckoutError
    from dvc.repo import Repo

    with Repo(str(root)) as repo:
        configured = repo.config.get("remote", {})
        default = repo.config.get("core", {}).get("remote")
    if remote is None and default is None:
        # DVC itself only logs this and then fails the checkout with a traceback.
        raise GroundBenchError(
            ".dvc/config",
            "remote",
            "no DVC remote is configured"
            + (f" as default (remotes: {sorted(configured)}; pass --remote NAME)" if configured else "")
            + ": ask the maintainer for one (`dvc remote add -d NAME URL`) or build locally with `make build`",
        )
    try:
        return _pull(root, config, remote)
    except (NoRemoteError, RemoteNotFoundError) as exc:
        raise GroundBenchError(".dvc/config", "remote", str(exc)) from exc
    except CheckoutError as exc:
        raise GroundBenchError(
            remote or str(default), "remote", f"does not hold every file of {config} (was `dvc push` run?): {exc}"
        ) from exc


def _pull(root: Path, config: str, remote: str | None) -> tuple[int, int]:
    from dvc.repo import Repo

    folder = "data/groundbench"
    # The card, Croissant file and SHA256SUMS: what `groundbench verify CONFIG` checks the config's files against.
    published = [f"{folder}/data/{config}", f"{folder}/README.md", f"{folder}/croissant.json", f"{folder}/SHA256SUMS"]
    if config == BASELINES_CONFIG:
        with Repo(str(root)) as repo:
            fetched = repo.pull(targets=published, remote=remote)
        return len(fetched.get("added", [])) if isinstance(fetched, dict) else 0, 0
    first = [f"data/manifests/{config}.jsonl", f"data/shards/{config}", *published]
    with Repo(str(root)) as repo:
        fetched = repo.pull(targets=first, remote=remote)
        manifest = read_manifest(root / "data" / "manifests" / f"{config}.jsonl")
        images = [f"data/images/{entry.store_path()}" for _, entry in sorted(manifest.items())]
        if images:
            repo.pull(targets=images, remote=remote)
    return len(fetched.get("added", [])) if isinstance(fetched, dict) else 0, len(images)
