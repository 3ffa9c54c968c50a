"""``noted import``'s progress bar: drawn only when enabled (a terminal) and only after the delay."""

from __future__ import annotations

import io

from noted.cli.progress import LazyProgress


def run(progress: LazyProgress) -> None:
    with progress:
        progress("reading", 3, None)
        for done in range(1, 4):
            progress("writing", done, 3)


def test_the_bar_shows_the_phases_once_the_delay_has_passed() -> None:
    out = io.StringIO()
    run(LazyProgress(enabled=True, delay_s=0, file=out))
    assert "Reading files" in out.getvalue() and "Writing notes" in out.getvalue() and "3/3" in out.getvalue()


def test_no_bar_before_the_delay_or_off_a_terminal() -> None:
    # The same calls as above, so an empty output is the delay's or the switch's doing.
    early, off = io.StringIO(), io.StringIO()
    run(LazyProgress(enabled=True, delay_s=3600, file=early))
    run(LazyProgress(enabled=False, delay_s=0, file=off))
    assert early.getvalue() == "" and off.getvalue() == ""
