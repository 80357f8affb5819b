"""The six conditions as a design matrix (paper section 3.1).

Conditions branch and merge: image_only -> object_named -> {part_named, localization_only} ->
localization_shown -> mechanics_shown. Each condition is the set of information bundles it supplies
on top of the image; every edge of the graph adds exactly one bundle.
"""

from __future__ import annotations

import numpy as np

BUNDLES: tuple[str, ...] = ("object_category", "target_identity", "target_region", "mechanics")

CONDITIONS: dict[str, frozenset[str]] = {
    "image_only": frozenset(),
    "object_named": frozenset({"object_category"}),
    "part_named": frozenset({"object_category", "target_identity"}),
    "localization_only": frozenset({"object_category", "target_region"}),
    "localization_shown": frozenset({"object_category", "target_identity", "target_region"}),
    "mechanics_shown": frozenset({"object_category", "target_identity", "target_region", "mechanics"}),
}

EDGES: tuple[tuple[str, str], ...] = (
    ("image_only", "object_named"),
    ("object_named", "part_named"),
    ("object_named", "localization_only"),
    ("part_named", "localization_shown"),
    ("localization_only", "localization_shown"),
    ("localization_shown", "mechanics_shown"),
)

ALL_CONDITIONS: tuple[str, ...] = tuple(CONDITIONS)

# A target-highlighted render shows where the target is, so only conditions that supply the
# region anyway stay valid (bulk_gapartnet).
HIGHLIGHT_SAFE: tuple[str, ...] = ("localization_shown", "mechanics_shown")


def design_matrix() -> np.ndarray:
    """Conditions x bundles, 1 where the condition supplies the bundle."""
    return np.array(
        [[1 if bundle in CONDITIONS[c] else 0 for bundle in BUNDLES] for c in ALL_CONDITIONS],
        dtype=np.int64,
    )


def edge_differences() -> np.ndarray:
    """One row per edge: the bundles the edge adds (child row minus parent row)."""
    index = {c: i for i, c in enumerate(ALL_CONDITIONS)}
    matrix = design_matrix()
    return np.array([matrix[index[b]] - matrix[index[a]] for a, b in EDGES])


def valid_conditions(stratum: str, render_kind: str) -> tuple[str, ...]:
    """Conditions a row of this stratum and render may be evaluated under."""
    if stratum == "suite":
        return ()  # GUI rows are scored by their own success rule, not the six conditions
    if render_kind == "highlighted":
        return HIGHLIGHT_SAFE
    if render_kind == "placeholder":
        return ()  # no real image: no condition can be evaluated (the row is excluded, no_render)
    return ALL_CONDITIONS
