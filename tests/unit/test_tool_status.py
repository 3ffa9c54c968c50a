"""Every way a tool call can end is one ``ToolStatus``, and each front end knows every one."""

from __future__ import annotations

import json

from noted.mcp import actions
from noted.models import ToolStatus
from noted.ui.chat import tool_call
from noted.ui.chat.tool_call import status_of


def test_a_saved_result_reads_back_as_its_status() -> None:
    assert status_of('{"total": 0}', is_error=False) is ToolStatus.OK
    refused = json.dumps({"error": "switched off", "status": "refused"})
    assert status_of(refused, is_error=True) is ToolStatus.REFUSED
    # A transcript saved by another version, or edited by hand, still shows as a failure.
    assert status_of(json.dumps({"error": "x", "status": "exploded"}), is_error=True) is ToolStatus.ERROR
    assert status_of("not json", is_error=True) is ToolStatus.ERROR


def test_each_front_end_maps_every_status() -> None:
    # A status added to the enum without a mark or an HTTP code would show as a bare ✗ or a 500.
    assert set(actions._STATUS) == set(ToolStatus)
    assert set(tool_call._MARKS) == {*ToolStatus, None}
    assert actions._STATUS[ToolStatus.CONFLICT] == 409
