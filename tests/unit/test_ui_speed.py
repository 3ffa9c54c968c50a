"""The speed-ups and their switch (``noted.ui.speed``): the cycle collector's care (with
``patches.strip_cycles``), and ``NOTED_STOCK_TEXTUAL``, which turns them all off."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from noted.ui import patches, speed


def _strip() -> Strip:
    return Strip([Segment("hello ", Style(bold=True)), Segment("world")], 11)


@pytest.fixture
def collected() -> Iterator[None]:
    """Start from an empty heap of garbage, with automatic collection off so the test counts alone."""
    patches.install()
    enabled = gc.isenabled()
    gc.disable()
    gc.collect()
    yield
    if enabled:
        gc.enable()


@pytest.mark.usefixtures("collected")
def test_a_strip_painted_at_full_width_leaves_no_cycle_behind() -> None:
    strip = _strip()
    assert strip.crop_extend(0, 11, None) is strip  # nothing to change: the strip itself
    assert strip.divide([11]) == [strip]
    del strip
    assert gc.collect() == 0  # freed by its reference count, not left for the collector


@pytest.mark.usefixtures("collected")
def test_the_replaced_methods_give_what_textuals_give() -> None:
    strip = _strip()
    assert strip.crop_extend(2, 15, None).text == "llo world    "
    assert strip.crop_extend(2, 15, None) is strip.crop_extend(2, 15, None)  # still cached
    assert [part.text for part in strip.divide([3, 11])] == ["hel", "lo world"]
    assert [part.text for part in strip.divide(iter([4, 11]))] == ["hell", "o world"]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _make_full_collection_due() -> None:
    for _ in range(speed.FULL_EVERY):
        gc.collect(1)  # each counts towards the oldest generation, as Python's own do


def test_the_collector_waits_for_a_quiet_moment_and_gives_everything_back() -> None:
    thresholds = gc.get_threshold()
    clock = Clock()
    collector = speed.Collector(quiet=1.0, clock=clock)
    assert not collector.tick()  # before the app is up, Python collects as it always does
    collector.settle()
    try:
        assert gc.isenabled()
        assert gc.get_threshold()[2] == speed.NEVER
        assert gc.get_freeze_count() > 0
        _make_full_collection_due()
        collector.input_seen()
        clock.now += 0.5
        assert not collector.tick()  # a key half a second ago: not now
        clock.now += 0.6
        assert collector.tick()
        assert gc.get_count()[2] == 0
        assert not collector.tick()  # nothing due any more
    finally:
        collector.stop()
    assert gc.get_threshold() == thresholds
    assert gc.get_freeze_count() == 0


def test_someone_who_never_pauses_still_gets_collections() -> None:
    clock = Clock()
    collector = speed.Collector(quiet=1.0, clock=clock)
    collector.settle()
    try:
        for _ in range(speed.FULL_AT_THE_LATEST):
            gc.collect(1)
        collector.input_seen()
        assert collector.tick()
    finally:
        collector.stop()


def test_quiet_start_pauses_collection_until_the_app_settles() -> None:
    speed.quiet_start()
    collector = speed.Collector()
    try:
        assert not gc.isenabled()
        collector.settle()
        assert gc.isenabled()
    finally:
        collector.stop()
        gc.enable()


# The switch ----------------------------------------------------------------------------------------


def test_the_switch_reads_the_usual_spellings_of_on() -> None:
    assert speed.enabled({}) and speed.enabled({speed.STOCK_TEXTUAL: "0"})
    assert speed.enabled({speed.STOCK_TEXTUAL: ""})
    assert not any(speed.enabled({speed.STOCK_TEXTUAL: value}) for value in ("1", "true", "Yes", " on "))


def test_the_switch_leaves_out_every_speed_up_and_only_those(monkeypatch: pytest.MonkeyPatch) -> None:
    speed_patches = {patch for patch in patches.PATCHES if patch.speed}
    assert {p.name for p in speed_patches} >= {"same_rules", "strip_cycles", "theme_cache", "option_rows"}
    monkeypatch.setenv(speed.STOCK_TEXTUAL, "1")
    enabled = gc.isenabled()
    try:
        stock = speed.Speedups(first=object())  # type: ignore[arg-type]  # what was read is not used
        assert not stock.on and stock.first_look is None and stock.collector is None
        on = set(patches.installed())
        # Not vacuous: the patches that change behaviour, not speed, stay in.
        assert on == set(patches.PATCHES) - speed_patches and on
        stock.input_seen()
        stock.stop()
        assert gc.isenabled() == enabled  # the collector is Python's own, untouched
    finally:
        patches.install()
    monkeypatch.delenv(speed.STOCK_TEXTUAL)
    fast = speed.Speedups()
    assert fast.on and fast.collector is not None and set(patches.installed()) == set(patches.PATCHES)
    fast.stop()
