"""Where a stage's per-item map runs (params.yaml ``engine``): the keywords every ``ordered_map`` gets."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from groundbench.core.params import Params


def map_engine(params: Params, mirrors: tuple[str, ...] = ()) -> dict[str, Any]:
    """``ordered_map`` keywords: the Dask cluster when params.yaml ``engine.name`` is dask, else none.

    ``mirrors``: the source URLs (fsspec) every Dask worker copies locally before its first item.
    """
    if params.engine.name == "dask":
        from groundbench.core.parallel import DaskCluster

        return {"cluster": DaskCluster(params.engine.address, mirrors)}
    return {}
