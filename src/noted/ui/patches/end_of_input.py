"""End of input on the terminal means the terminal is gone: the app ends as on SIGHUP.

Upstream (Textual 8.2, ``drivers/linux_driver.py``, ``LinuxDriver.run_input_thread``): the input
thread waits until the terminal is readable, reads it, and on an empty read ("stdin is piped")
only waits again. A terminal that is gone is always readable and always reads empty, so the thread
goes round without pause, taking a whole core for as long as the process lives. The kernel sends
SIGHUP for a closed controlling terminal, which ends the app; a terminal the app got without being
its controlling one (a pty handed to a process in another session, its other end closed) sends
none, and the app spun for good (12.7 s of CPU in 15 s). To report: "LinuxDriver's input thread
spins at 100% CPU once its input reaches end of file".

The patch's ``run_input_thread`` reads and parses as Textual's does; on end of file it logs the
terminal gone, sends the process the SIGHUP the kernel did not, and stops reading. The app's
handler (``noted.ui.crash``) then keeps the unsaved text and ends it with 129, as for a closed
controlling terminal; an app without one ends on SIGHUP's default action.
"""

from __future__ import annotations

import logging
import os
import selectors
import signal
from codecs import getincrementaldecoder
from typing import TYPE_CHECKING

from noted.ui.patches.guard import Patch, Private, Swap

if TYPE_CHECKING:
    from textual.drivers.linux_driver import LinuxDriver

log = logging.getLogger(__name__)


def run_input_thread(self: LinuxDriver) -> None:
    """``LinuxDriver.run_input_thread``, ending the app at end of input instead of reading again."""
    from textual._xterm_parser import XTermParser

    parser = XTermParser(self._debug)
    decode = getincrementaldecoder("utf-8")().decode
    selector = selectors.SelectSelector()
    selector.register(self.fileno, selectors.EVENT_READ)
    try:
        while not self.exit_event.is_set():
            if selector.select(0.1):
                data = os.read(self.fileno, 1024 * 4)
                if not data:  # end of file: the terminal is gone, it will never read anything again
                    log.warning("the terminal is gone (its input reached end of file): ending as on SIGHUP")
                    os.kill(os.getpid(), signal.SIGHUP)
                    break
                for event in parser.feed(decode(data)):
                    self.process_message(event)
            for event in parser.tick():
                self.process_message(event)
    finally:
        selector.close()


_DRIVER = "textual.drivers.linux_driver:LinuxDriver"
_PARSER = "textual._xterm_parser:XTermParser"

PATCH = Patch(
    name="end_of_input",
    module=__name__,
    written_for="8.2",
    touches=(
        Private(_DRIVER, "run_input_thread", "(self) -> 'None'"),
        Private(_DRIVER, "_debug"),
        Private(_PARSER, "__init__", "(self, debug: 'bool' = False) -> 'None'"),
        Private(_PARSER, "feed", "(self, data: 'str') -> 'Iterable[Message]'"),
        Private(_PARSER, "tick", "(self) -> 'Iterable[T]'"),
    ),
    # (Windows has its own driver, and no ``termios`` for this one's module to import)
    swap=Swap(_DRIVER, {"run_input_thread": run_input_thread}) if os.name == "posix" else None,
)
