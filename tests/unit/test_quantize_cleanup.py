"""The first-run model conversion after a kill: no converter left running, no partial file kept.

Before: a kill -9 of noted during the conversion left its ``python -m noted.embeddings.quantize``
child running with parent 1, and 90-180 MB of ``*.partial*`` files in ``models/`` for good.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from tests.support.cli import env_with_src
from tests.support.polling import wait_for

from noted.embeddings import quantize


def test_an_interrupted_conversions_files_are_removed_and_it_starts_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "model.onnx"
    source.write_bytes(b"the model")
    cache = tmp_path / "models"
    cache.mkdir()
    # What a conversion killed at its second step left (another process id, since gone).
    stale = [cache / "model-0-x.4242.partial", cache / "model-0-x.4242.partial.fp32.onnx"]
    for path in stale:
        path.write_bytes(b"\0" * 1024)
    keep = cache / "notes.txt"
    keep.write_text("not the conversion's")

    def convert(given: Path, target: Path) -> None:
        assert not any(p.exists() for p in stale)  # removed under the lock, before starting
        target.write_bytes(b"the int8 copy of " + given.read_bytes())

    monkeypatch.setattr(quantize, "_convert_in_children", convert)
    made = quantize.ensure(source, cache)

    assert made.read_bytes() == b"the int8 copy of the model"
    assert sorted(p.name for p in cache.iterdir()) == sorted([".quantize.lock", made.name, "notes.txt"])


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the child through /proc")
def test_a_conversion_step_ends_when_noted_is_killed(tmp_path: Path) -> None:
    # The step's source is a named pipe with no writer: opening it blocks, so the step is
    # certainly still running when its parent is killed (this is not a race the test can lose).
    source = tmp_path / "model.onnx"
    os.mkfifo(source)
    parent_code = textwrap.dedent(
        f"""
        from pathlib import Path
        from noted.embeddings import quantize
        quantize._convert_in_children(Path({str(source)!r}), Path({str(tmp_path / "out.partial")!r}))
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", parent_code], env=env_with_src())
    child: list[int] = []
    try:
        wait_for(lambda: child.extend(_children(parent.pid)) or child, what="the conversion's child step")  # type: ignore[func-returns-value]
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        wait_for(lambda: not _alive(child[0]), what="the child step to end with its parent")
    finally:
        for pid in child:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()
