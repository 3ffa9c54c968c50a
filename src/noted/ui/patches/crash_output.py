"""An app that dies on an error prints one line, not a Rich traceback with locals.

Upstream (Textual 8.2, ``app.py``): ``App._handle_exception`` ends in ``App._fatal_error``, which
renders a Rich ``Traceback`` (source lines and local variables) into ``App._exit_renderables``;
``App._print_error_renderables`` prints it on the terminal once the app has closed. There is no
public hook to say what an app prints when it dies, nor to keep the traceback off the screen while
still ending the app as Textual does (return code, the error for Pilot). To report: "App: a public
hook for the fatal-error output (or an option to log the traceback instead of printing it)".

The patch wraps the three methods for an app that has a ``crash`` (``noted.ui.crash.CrashReport``):
the error goes to its ``record`` (the stack to ``noted.log``), Textual's own handling ends the app,
and the person reads the report's one line instead of the traceback (or, the terminal gone, the
log says so in one line: no "internal error" for the EIO of a closed terminal). Any other app, or any app with
the patch off, prints what Textual prints.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from noted.ui.crash import CrashReport, terminal_gone
from noted.ui.patches.guard import Patch, Private, Swap

if TYPE_CHECKING:
    from textual.app import App

log = logging.getLogger(__name__)


def _report(app: App[Any]) -> CrashReport | None:
    report = app.__dict__.get("crash")
    return report if isinstance(report, CrashReport) else None


def _handle_exception(self: App[Any], error: Exception) -> None:
    report = _report(self)
    if report is not None:
        report.record(error)
    _SWAP.original("_handle_exception")(self, error)  # the return code, the error for Pilot, the exit


def _fatal_error(self: App[Any]) -> None:
    """As in ``App``, without rendering a traceback for the screen: the log has it."""
    if _report(self) is None:
        _SWAP.original("_fatal_error")(self)
        return
    self.bell()
    self._close_messages_no_wait()


def _print_error_renderables(self: App[Any]) -> None:
    report = _report(self)
    line = None if report is None else report.take_line()
    try:
        if line is None:
            _SWAP.original("_print_error_renderables")(self)
            return
        self._exit_renderables.clear()
        self.error_console.print(line, soft_wrap=True, markup=False, highlight=False)
    except OSError as error:
        if not terminal_gone(error):
            raise
        log.warning("the terminal is gone (%s): the closing line was not shown", error)


_SWAP = Swap(
    "textual.app:App",
    {
        "_handle_exception": _handle_exception,
        "_fatal_error": _fatal_error,
        "_print_error_renderables": _print_error_renderables,
    },
)
PATCH = Patch(
    name="crash_output",
    module=__name__,
    written_for="8.2",
    touches=(
        Private("textual.app:App", "_handle_exception", "(self, error: 'Exception') -> 'None'"),
        Private("textual.app:App", "_fatal_error", "(self) -> 'None'"),
        Private("textual.app:App", "_print_error_renderables", "(self) -> 'None'"),
        Private("textual.app:App", "_close_messages_no_wait", "(self) -> 'None'"),
        Private("textual.app:App", "_exit_renderables"),
    ),
    swap=_SWAP,
)
