"""An app that dies on an error prints one line, not a Rich traceback with locals.

Upstream (Textual 8.2, ``app.py``): ``App._handle_exception`` ends in ``App._fatal_error``, which
renders a Rich ``Traceback`` (source lines and local variables) into ``App._exit_renderables``;
``App._print_error_renderables`` prints it on the terminal once the app has closed. There is no
public hook to say what an app prints when it dies, nor to keep the traceback off the screen while
still ending the app as Textual does (return code, the error for Pilot). To report: "App: a public
hook for the fatal-error output (or an option to log the traceback instead of printing it)".

``noted.ui.crash.LastResort`` overrides the three methods: the stack goes to ``noted.log``, the
person reads one line. With the patch off it prints what Textual prints (the log still has it).
"""

from __future__ import annotations

from noted.ui.patches.guard import Patch, Private

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
)
