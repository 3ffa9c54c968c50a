"""What the app does with an error nothing else caught: Textual's last resort, which ends the app.

Textual printed a Rich traceback (source lines, locals) on the person's screen and wrote nothing
to ``noted.log``. ``NotedApp`` owns a ``CrashReport`` that takes such an error instead: its stack
goes to the log, the text being edited (if it was not saved) to a file in the profile, and the
screen gets one line saying what happened and where to look.

A signal that ends the app goes the same way: SIGHUP (its terminal closed, an SSH connection
dropped) or SIGTERM (``kill``, a shutdown) ended it on Python's default action, and the text being
edited was lost; the report now keeps it in the profile first and ends the app as a quit does.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.app import App
from textual.worker import WorkerFailed

from noted.errors import Interruption
from noted.ops.editing import RESCUE_DIR as RESCUE_DIR  # (the app names it)
from noted.tempfiles import replace_with
from noted.ui.messages import WorkFailed
from noted.ui.widgets.note_editor import NoteEditor

log = logging.getLogger(__name__)


MESSAGE_CHARS = 160
"""The error's own text is cut to this on screen (the log has it whole)."""

ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGHUP", "SIGTERM") if hasattr(signal, name))
"""The signals that end the app, its unsaved text kept first (Windows has no SIGHUP)."""
GRACE_SECONDS = 10.0
"""How long the app ended by a signal may take to close before the process ends without waiting:
its text is kept by then, and a thread that never returns (seen after SIGHUP, the terminal gone)
must not keep it alive for good. Its writes are transactions, so this is no worse than a kill."""


class Signalled(Interruption):
    """A signal of ``ENDING_SIGNALS`` ends the app: not a failure, but its text is kept as for one."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@dataclass(frozen=True, slots=True)
class Unsaved:
    """Text in the editor that is not in the store."""

    note_id: str
    title: str
    body: str


def terminal_gone(error: BaseException | None) -> bool:
    """Whether ``error`` is a write to a terminal that closed (EIO): the SIGHUP that ends the app
    comes with it, and it is no fault of noted's, so it is logged in one line, not as a crash."""
    return isinstance(error, OSError) and error.errno == errno.EIO


def cause(error: BaseException) -> BaseException:
    """The error itself: a failed worker that was let end the app carries it inside."""
    return error.error if isinstance(error, WorkerFailed) else error


def record(error: BaseException) -> None:
    """Write ``error`` with its stack to the log (``noted.log`` in the profile)."""
    inner = cause(error)
    log.critical(
        "the app stopped on an error nothing caught: %s: %s",
        type(inner).__name__, inner, exc_info=(type(inner), inner, inner.__traceback__),
    )  # fmt: skip


def unsaved(app: App[Any]) -> Unsaved | None:
    """The editor's text if it is not saved (None too if the app is too broken to say)."""
    try:
        editors = app.screen_stack[0].query(NoteEditor) if app.screen_stack else None
        editor = editors.first() if editors else None
        if editor is None or editor.note is None or not editor.dirty:
            return None
        return Unsaved(editor.note.id, editor.title_text or editor.note.title, editor.body_text)
    except Exception:  # on the way out after an error: the line must still be shown
        log.exception("could not read the editor's text after an error")
        return None


def rescue(profile_root: Path, unsaved: Unsaved) -> Path | None:
    """Write the unsaved text to ``<profile>/rescued/``; None (and logged) if even that fails."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = profile_root / RESCUE_DIR / f"{stamp}-{unsaved.note_id}.md"
    try:
        path.parent.mkdir(exist_ok=True)
        replace_with(path, f"# {unsaved.title}\n\n{unsaved.body}".encode())  # (a kill: no half text)
    except OSError:
        log.exception("could not keep the unsaved text of note %s", unsaved.note_id)
        return None
    log.warning("kept the unsaved text of note %s in %s", unsaved.note_id, path)
    return path


def one_line(error: BaseException, log_path: Path, rescued: Path | None) -> str:
    """What the person reads once the app has closed."""
    inner = cause(error)
    kept = f" Your unsaved text is in {rescued}." if rescued is not None else ""
    if isinstance(inner, Signalled):
        return f"noted was ended by {inner}.{kept}"
    said = " ".join(str(inner).split())  # one line, however the error spells itself
    if len(said) > MESSAGE_CHARS:
        said = said[: MESSAGE_CHARS - 1] + "…"
    what = f"{type(inner).__name__}: {said}" if said else type(inner).__name__
    return f"noted stopped on an internal error ({what}).{kept} The details are in {log_path}."


class CrashReport:
    """What an app does with an error nothing caught (``NotedApp.crash``): the stack to the log,
    ``report``'s line on the screen once the app has closed.

    Textual calls none of this itself: ``noted.ui.patches.crash_output`` hands the error here from
    Textual's private exit path, for an app that has a ``crash``, and says why.
    """

    def __init__(self, app: App[Any], report: Callable[[BaseException], str]) -> None:
        """``report``: the line the person reads once the app has closed on the error (called
        once, for the first)."""
        self._app = app
        self._report = report
        self._line: str | None = None

    def record(self, error: BaseException) -> None:
        """Log ``error`` and, for the first, work out the line to show."""
        record(error)
        if self._line is None:  # the first error says what happened; later ones are its echo
            self._line = self._word(error)

    def _word(self, error: BaseException) -> str:
        try:
            return self._report(error)
        except Exception:  # the report failing must not hide the error it reports
            log.exception("the crash report failed")
            return one_line(error, Path("noted.log"), None)

    def _ended_by(self, signum: int) -> None:
        """Keep the unsaved text, then end the app as a quit does, saying so (on a terminal still there)."""
        ended = Signalled(signum)
        log.warning("the app was ended by %s", ended)
        self._app.exit(return_code=128 + signum, message=self._word(ended))
        timer = threading.Timer(GRACE_SECONDS, _end_now, args=(signum,))
        timer.daemon = True  # (a process that closes in time does not wait for it)
        timer.start()

    def take_line(self) -> str | None:
        """The line to print, once (None: nothing was recorded)."""
        line, self._line = self._line, None
        return line

    def catch_background_errors(self) -> Callable[[], None]:
        """Until the returned function is called, an error that ends a bare thread or an asyncio
        task of the app's loop (the embedded MCP server's, say) is reported as a failed worker is:
        its stack to the log, one line on screen. Python would print it over the screen."""
        loop = asyncio.get_running_loop()
        loop_handler, thread_hook = loop.get_exception_handler(), threading.excepthook
        app = self._app

        def on_loop(_: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            error = context.get("exception")
            if isinstance(error, BaseException):
                app.post_message(WorkFailed("A background task", error))
            else:
                log.error("the event loop reported: %s", context.get("message"))

        def on_thread(args: threading.ExceptHookArgs) -> None:
            name = args.thread.name if args.thread is not None else "?"
            if terminal_gone(args.exc_value):  # Textual's output thread, the terminal closed under it
                log.warning("the terminal is gone (%s): the thread %s stopped writing", args.exc_value, name)
            elif args.exc_value is not None and not isinstance(args.exc_value, SystemExit):
                app.post_message(WorkFailed(f"The thread {name}", args.exc_value))

        loop.set_exception_handler(on_loop)
        threading.excepthook = on_thread
        restore_signals = self._catch_ending_signals(loop)

        def restore() -> None:
            loop.set_exception_handler(loop_handler)
            threading.excepthook = thread_hook
            restore_signals()

        return restore

    def _catch_ending_signals(self, loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
        """Until the returned function is called, ``ENDING_SIGNALS`` end the app through
        ``_ended_by``; then the handlers before are back. Outside the main thread (an app run in a
        test's thread) a loop cannot take signals, and nothing changes."""
        if threading.current_thread() is not threading.main_thread():
            return lambda: None
        before = {signum: signal.getsignal(signum) for signum in ENDING_SIGNALS}
        try:
            for signum in ENDING_SIGNALS:
                loop.add_signal_handler(signum, self._ended_by, signum)
        except NotImplementedError:  # a loop without signal handlers (Windows): ended as before
            return lambda: None

        def restore() -> None:
            for signum, handler in before.items():
                with contextlib.suppress(ValueError, RuntimeError):  # the loop closed meanwhile
                    loop.remove_signal_handler(signum)
                if handler is not None:  # None: a handler not set from Python, which cannot be put back
                    signal.signal(signum, handler)

        return restore


def _end_now(signum: int) -> None:
    """End the process by ``signum``'s own default action: an app ended by it did not close within
    ``GRACE_SECONDS``."""
    log.warning(
        "the app had not closed %s s after the signal: the process ends without waiting", GRACE_SECONDS
    )
    logging.shutdown()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
