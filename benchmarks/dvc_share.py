"""One stage's DVC bookkeeping, timed with DVC's own objects (``fixed_costs.measure_dvc_share`` runs it).

``python benchmarks/dvc_share.py REPO STAGE CACHE_DIR``, with ``DVC_SITE_CACHE_DIR`` pointing at an empty
folder (an empty hash state). What ``dvc repro`` does once a stage's command has returned, step by step:
``save_deps`` (hash every dep), ``save_outs`` (hash every output: with the state empty, every byte, as
after a real run), ``commit`` (store the outputs in the cache, here an empty one, and link them back);
then both hashes again with the state warm (a no-op repro's check). Prints one JSON line of seconds.
"""

from __future__ import annotations

import json
import sys
import time

from dvc.repo import Repo


def main(root: str, name: str, cache: str) -> dict[str, float]:
    seconds: dict[str, float] = {}
    with Repo(root, config={"cache": {"dir": cache}}) as repo, repo.lock:
        (stage,) = repo.stage.collect(name)
        for key, step in (
            ("deps_hash_cold_s", stage.save_deps),
            ("outs_hash_cold_s", stage.save_outs),
            ("commit_s", stage.commit),
            ("deps_hash_warm_s", stage.save_deps),
            ("outs_hash_warm_s", stage.save_outs),
        ):
            started = time.perf_counter()
            step()
            seconds[key] = round(time.perf_counter() - started, 3)
    return seconds


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:4])))
