"""One way to run work in a thread and to hear about failed workers: widgets turn them into an
app-wide ``WorkFailed``.

A worker's failure never ends the app (``exit_on_error=False`` in ``thread_work`` and
``in_thread``). ``Worker.StateChanged`` does not bubble, so each node that runs workers mixes
this in (the app calls ``report_failure`` for its own); the app alone decides how a failure is
shown (one line) and logged (with its stack).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from textual import work
from textual.dom import DOMNode
from textual.message_pump import MessagePump
from textual.worker import Worker, WorkerState

from noted.ui.messages import WorkFailed

P = ParamSpec("P")
R = TypeVar("R")


def thread_work(group: str, description: str) -> Callable[[Callable[P, R]], Callable[P, Worker[R]]]:
    """``@work`` for a method that runs in a thread, the latest call cancelling the others of its
    ``group``; ``description`` names it in the line a failure shows."""
    return work(thread=True, exclusive=True, group=group, exit_on_error=False, description=description)


def in_thread(
    node: DOMNode, job: Callable[[], R], group: str, description: str, *, exclusive: bool = False
) -> Worker[R]:
    """Run ``job`` in a thread worker of ``node`` (``group`` and ``description`` as ``thread_work``'s)."""
    return node.run_worker(
        job, thread=True, exclusive=exclusive, group=group, exit_on_error=False, description=description
    )


def in_task(
    node: DOMNode, job: Callable[[], Coroutine[Any, Any, None]], group: str, description: str
) -> Worker[None]:
    """Run the coroutine function ``job`` as an async worker of ``node``. Given the function, not a
    coroutine: one made for a worker that never starts (the app quit first) is reported on exit as
    never awaited."""
    worker: Worker[None] = node.run_worker(job, group=group, exit_on_error=False, description=description)
    return worker


class ReportsWorkerFailures(MessagePump):
    """Posts ``WorkFailed`` when one of this node's workers ends in error."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_failure(self, event)


def report_failure(node: MessagePump, event: Worker.StateChanged) -> None:
    """Post ``WorkFailed`` to ``node`` if ``event`` says its worker ended in error."""
    worker = event.worker
    if event.state is WorkerState.ERROR and worker.error is not None:
        node.post_message(WorkFailed(worker.description or worker.name, worker.error))
