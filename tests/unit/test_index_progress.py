"""The progress bar of ``noted index``: what it shows of the indexer's reports."""

from __future__ import annotations

import pytest

from noted.cli.index_progress import IndexBar
from noted.indexer.engine import IndexProgress


def test_the_bar_shows_notes_chunks_rate_and_time_left(capsys: pytest.CaptureFixture[str]) -> None:
    with IndexBar(enabled=True) as bar:
        bar.start(502)
        bar.update(IndexProgress("scan", 192, 502, 21.5, 754.0, 0, 6_100, 15_800))
    err = capsys.readouterr().err  # Rich draws on stderr; off a terminal it prints the last state
    assert "192/502 notes" in err and "6,100/~15,800 chunks" in err
    assert "21.5 chunks/s" in err and "12m34s left" in err


def test_a_disabled_bar_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with IndexBar(enabled=False) as bar:
        bar.start(3)
        bar.update(IndexProgress("scan", 1, 3, 1.0, 2.0))
    assert capsys.readouterr().err == ""
