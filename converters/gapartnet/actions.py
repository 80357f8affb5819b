"""GAPartNet part class -> action: the default table. Versioned: change it, bump the version.

The audit file (``data/audits/curated_gapartnet.yaml``) may override the action of an audited
object's target; the summary and the card report per-action counts, so the table's effect is
visible. Every class of GAPartNet's ``TARGET_GAPARTS`` is listed; anything else is an error.
"""

from __future__ import annotations

GAPARTNET_ACTIONS_VERSION = "1"

PART_CLASS_ACTIONS: dict[str, str] = {
    # Buttons travel into the surface along their prismatic joint: the hand pushes.
    "slider_button": "push",
    # Doors and drawers open towards the viewer (their fronts face world -x at rest): pull.
    "hinge_door": "pull",
    "slider_drawer": "pull",
    # Fixed handles move with the door/drawer/lid they are bolted to; one pulls them to open it.
    "line_fixed_handle": "pull",
    "round_fixed_handle": "pull",
    # Lids open upwards, whether hinged or lifted off; bucket/suitcase handles swing up: lift.
    "hinge_lid": "lift-vertical",
    "slider_lid": "lift-vertical",
    "hinge_handle": "lift-vertical",
    # Knobs turn about their own axis.
    "hinge_knob": "rotate",
}


def action_of(part_class: str) -> str:
    """The default action of a GAPartNet part class (KeyError for an unknown class)."""
    return PART_CLASS_ACTIONS[part_class]
