"""One way to hear about failed workers: widgets turn them into an app-wide ``WorkFailed``.

``Worker.StateChanged`` does not bubble, so each node that runs workers mixes this in (the app
calls ``report_failure`` for its own); the app alone decides how a failure is shown (one line)
and logged (with its stack).
"""

from __future__ import annotations

from textual.message_pump import MessagePump
from textual.worker import Worker, WorkerState

from noted.ui.messages import WorkFailed


class ReportsWorkerFailures(MessagePump):
    """Posts ``WorkFailed`` when one of this node's workers ends in error."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_failure(self, event)


def report_failure(node: MessagePump, event: Worker.StateChanged) -> None:
    """Post ``WorkFailed`` to ``node`` if ``event`` says its worker ended in error."""
    worker = event.worker
    if event.state is WorkerState.ERROR and worker.error is not None:
        node.post_message(WorkFailed(worker.description or worker.name, worker.error))
