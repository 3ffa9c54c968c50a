"""Opening the app: what ``noted tui`` runs, and what the UI benchmark times.

Loading the app's modules (Textual most of all) takes about half a second. ``open_app`` starts
reading the first screen meanwhile (``noted.ui.speed.first_look``) before it imports them; this
module imports neither Textual nor the app's modules until then.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from noted.services import Services
from noted.ui import speed

if TYPE_CHECKING:
    from noted.ui.app import NotedApp


def open_app(services: Services, *, background: bool = True, notices: Sequence[str] = ()) -> NotedApp:
    """The app on ``services``, with its first screen read while its modules load; ``notices``:
    lines it shows once it starts (a killed edit's text kept, saying where)."""
    first_look = speed.first_look(services)
    from noted.ui.app import NotedApp

    return NotedApp(services, background=background, first_look=first_look, notices=notices)
