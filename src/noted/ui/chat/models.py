"""The chat's model picker: the server's models, listed in a worker; the one chosen becomes ``ai.model``.

Choosing saves the setting (as Settings → Assistant would), so every chat, ``noted ask`` included,
uses it from the next message, and the status bar shows it (``openai · llama3.2``). A server that cannot list its
models gets one line saying so and that ``ai.model`` can be typed instead.
"""

from __future__ import annotations

from functools import partial

from textual import work
from textual.widget import Widget
from textual.widgets import OptionList

from noted.services import Services
from noted.settings.handles import AI_MODEL
from noted.ui.chat.data import server_models
from noted.ui.dialogs.picker import ChoicePicker
from noted.ui.workers import in_thread


class ModelPicker(ChoicePicker):
    """Returns the chosen model's name, or None when cancelled."""

    FILTER = "type to filter the models"
    HINT = "↑↓ to choose · Enter to use it · Esc to cancel"

    def __init__(self, services: Services, current: str) -> None:
        super().__init__(title=f"Model (now: {current or 'none set'})")
        self._services = services
        self._current = current

    @work(exclusive=True, group="picker", exit_on_error=False, description="Listing the server's models")
    async def load(self) -> None:
        listed = await server_models(self._services)
        self.post_message(self.Loaded([(name, name) for name in listed.names], listed.problem))

    def _first(self, options: OptionList) -> int | None:
        # The model in use, so Enter keeps it and ↑/↓ start from it.
        found = [
            i for i in range(options.option_count) if options.get_option_at_index(i).id == f"f{self._current}"
        ]
        return found[0] if found else super()._first(options)


def choose_model(node: Widget, services: Services) -> None:
    """Open the picker over ``node``'s screen; the model chosen is saved as ``ai.model`` in a
    thread worker of ``node`` (the status bar follows, as for every setting)."""

    def save(name: str) -> None:
        saved = services.settings.set(AI_MODEL, name)
        if saved.value != name:
            line = f"Saved ai.model = {name}, but {saved.describe_source()} overrides it"
            node.app.call_from_thread(node.notify, line, severity="warning")

    def chosen(name: str | None) -> None:
        if name:
            in_thread(node, partial(save, name), "chat-model", "Saving the model")

    node.app.push_screen(ModelPicker(services, services.settings.get(AI_MODEL)), chosen)
