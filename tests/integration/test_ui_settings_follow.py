"""The running app follows its config file: a value there that is not allowed is said, not lived with.

A value written by hand (or by another tool) while the app ran took its default in silence: the
person who typed ``budgetTokens = "lots"`` saw nothing, while the same file at start was reported."""

from __future__ import annotations

from tests.integration.ui_support import Fixture, open_services, ready, until
from textual.message import Message
from textual.notifications import Notify

from noted.settings.handles import AI_BUDGET_TOKENS, AI_TIMEOUT_SECONDS
from noted.ui.app import NotedApp


async def test_a_bad_value_written_while_the_app_runs_is_reported_once(fixture: Fixture) -> None:
    services = open_services(fixture.root)
    seen: list[Message] = []
    app = NotedApp(services)  # with its followers: the config file is re-read every second
    path = services.settings.path

    def said() -> list[str]:
        return [
            m.notification.message
            for m in seen
            if isinstance(m, Notify) and "budgetTokens" in m.notification.message
        ]

    try:
        async with app.run_test(size=(100, 30), message_hook=seen.append) as pilot:
            await ready(pilot)
            services.settings.set(AI_BUDGET_TOKENS, 5000)  # as `noted config set` would
            text = path.read_text()
            assert "budgetTokens = 5000" in text
            path.write_text(text.replace("budgetTokens = 5000", 'budgetTokens = "lots"'))  # by hand
            await until(pilot, lambda: services.settings.get(AI_BUDGET_TOKENS) == 80000, timeout=10)
            # Not vacuous: the value did change (to its default); the person is told why.
            await until(pilot, lambda: bool(said()), timeout=5)
            assert "lots" in said()[0]
            # Read again with the same fault and another change: that one applies, the fault is not said twice.
            path.write_text(
                path.read_text().replace(
                    'budgetTokens = "lots"', 'budgetTokens = "lots"\ntimeoutSeconds = 30'
                )
            )
            await until(pilot, lambda: services.settings.get(AI_TIMEOUT_SECONDS) == 30, timeout=10)
            await pilot.pause()
            assert len(said()) == 1
    finally:
        services.close()
