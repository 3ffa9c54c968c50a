"""One pattern for a whole item id: ``noted.models.FULL_ID``.

Nine modules once spelt their own ``[0-9a-f]{32}``, some taking upper case and some not, so a
typed id was an id to one command and a name to the next. The scan below fails on any module that
spells the id's shape again instead of importing it. ``noted.markdown`` is the one exception: it
sits beside ``noted.models`` in the layers and may not import it.
"""

from __future__ import annotations

import re
from pathlib import Path

from noted.models import FULL_ID, is_full_id, new_id

_SRC = Path(__file__).resolve().parents[2] / "src" / "noted"
_SPELT = re.compile(r"\{32\}")
_ALLOWED = {"models.py", "markdown.py"}


def test_no_module_spells_the_id_pattern_again() -> None:
    twins = [
        str(path.relative_to(_SRC))
        for path in sorted(_SRC.rglob("*.py"))
        if path.name not in _ALLOWED and _SPELT.search(path.read_text(encoding="utf-8"))
    ]
    assert twins == []


def test_a_full_id_is_32_lowercase_hex_digits() -> None:
    made = new_id()
    assert is_full_id(made)
    assert not is_full_id(made.upper())  # callers lower a typed id first
    assert not is_full_id(made[:31]) and not is_full_id(made + "0") and not is_full_id("g" * 32)
    assert [m.group() for m in FULL_ID.finditer(f"photo-{made}.png")] == [made]
