"""A true dynamic-int8 copy of a local ONNX model, made once and cached in the profile.

The packaged all-MiniLM-L6-v2 is int8 in its weights only: ``Cast`` nodes turn them back into
floats and every matrix product runs in fp32. ONNX Runtime's ``quantize_dynamic`` (per output
channel) on the graph as ONNX Runtime's basic optimiser leaves it gives integer matrix products:
with each attention block fused first (``fuse_attention``), 2.5x the model's chunks per CPU-second
(2x for a whole index) at a cosine of 0.993 to the original's vectors; the search evaluation's
nDCG@10 (``tests/bench/eval_search.py``) moved by at most 0.007 for the semantic presets and
hybrid normal, -0.011 for hybrid strict and +0.015 for hybrid loose.

The copy is made from the installed model file (nothing is downloaded), in a child process
(quantizing holds about 500 MB for a few seconds, which the indexer then never pays), under a file
lock so two processes starting together make it once, and it is named by the source's hash, so
another model or version gets its own. ``onnx`` (which ``quantize_dynamic`` needs) missing or the
conversion failing leaves the original in use; see ``OnnxEmbedder``.

A kill of noted during the conversion leaves nothing behind for long: each child ends with its
parent (``PR_SET_PDEATHSIG`` on Linux, and a watch on its parent elsewhere), the lock ends with
its holder, and the next conversion removes, under the lock, the partial files any earlier one
left, then starts again from the source.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import importlib.util
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path

from filelock import FileLock

log = logging.getLogger(__name__)

VARIANT = "dynamic-int8-mha"
"""Names the copy's file and its vectors (part of ``model_id``): a new way of making the copy gets
a new file, and its vectors are never mixed with another copy's."""
CONVERT_TIMEOUT_SECONDS = 300
PARENT_ENV = "NOTED_QUANTIZE_PARENT"
"""Tells a child step which process started it, so it can end when that one is gone."""
_PARTIAL = "partial"
"""In the name of every file a conversion writes before its copy is whole."""
_ON_PREPARE: ContextVar[Callable[[], None] | None] = ContextVar("quantize_on_prepare", default=None)


@contextlib.contextmanager
def telling(on_prepare: Callable[[], None]) -> Iterator[None]:
    """Call ``on_prepare`` when an ``ensure`` made inside (in this thread) has no copy yet, so it
    makes one, or waits while another process makes it: the slow first load, not a cached one."""
    token = _ON_PREPARE.set(on_prepare)
    try:
        yield
    finally:
        _ON_PREPARE.reset(token)


def available() -> bool:
    """Whether this installation can make the copy (``onnx`` and ONNX Runtime's quantizer import)."""
    return importlib.util.find_spec("onnx") is not None


def cached_path(source: Path, cache_dir: Path) -> Path:
    """Where the copy of ``source`` lives in ``cache_dir`` (named by the source's content)."""
    with source.open("rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    return cache_dir / f"{source.stem}-{digest[:16]}-{VARIANT}.onnx"


def ensure(source: Path, cache_dir: Path) -> Path:
    """The cached copy of ``source``, made first if needed.

    Raises:
        RuntimeError: The conversion failed (its output is in the message).
    """
    target = cached_path(source, cache_dir)
    if target.is_file():
        return target
    if (on_prepare := _ON_PREPARE.get()) is not None:
        on_prepare()
    cache_dir.mkdir(parents=True, exist_ok=True)
    with FileLock(cache_dir / ".quantize.lock"):
        if target.is_file():  # another process made it while this one waited
            return target
        _remove_partials(cache_dir)
        partial = target.with_suffix(f".{os.getpid()}.{_PARTIAL}")
        log.info("making a dynamic-int8 copy of %s in %s", source, target)
        try:
            _convert_in_children(source, partial)
            os.replace(partial, target)  # whole or not at all
        finally:
            partial.unlink(missing_ok=True)
    return target


def _convert_in_children(source: Path, target: Path) -> None:
    """Make the copy in three steps, each in a child process of its own, one after the other.

    Each step holds the fp32 graph and its copies (up to about 480 MB for quantizing); run in one
    process the steps' leftovers add up past 500 MB, and the indexer would pay them for its life.

    Raises:
        RuntimeError: A step failed (its output is in the message).
    """
    plain, fused = _step_files(target)
    steps = [("plain", source, plain), ("fuse", plain, fused), ("quantize", fused, target)]
    try:
        for step, given, made in steps:
            if step == "quantize" and not fused.is_file():  # attention did not fuse: quantize plain
                given = plain
            done = subprocess.run(
                [sys.executable, "-m", "noted.embeddings.quantize", step, str(given), str(made)],
                capture_output=True,
                text=True,
                timeout=CONVERT_TIMEOUT_SECONDS,
                check=False,
                env={**os.environ, PARENT_ENV: str(os.getpid())},
            )
            if done.returncode != 0 or (step != "fuse" and not made.is_file()):
                raise RuntimeError(f"quantizing {source} failed: {done.stderr.strip()[-2000:]}")
    finally:
        plain.unlink(missing_ok=True)
        fused.unlink(missing_ok=True)


def _step_files(target: Path) -> tuple[Path, Path]:
    return target.with_name(target.name + ".fp32.onnx"), target.with_name(target.name + ".fused.onnx")


def _remove_partials(cache_dir: Path) -> None:
    """Remove what conversions that were killed left (called holding the lock, so none runs)."""
    for stale in cache_dir.glob(f"*.{_PARTIAL}*"):
        log.info("removing %s, left by a conversion that did not finish", stale)
        with contextlib.suppress(OSError):
            stale.unlink()


def _end_with_parent() -> None:
    """Exit when the process that started this step is gone: a kill -9 of noted must not leave a
    converter holding hundreds of MB, its files growing, with nobody to use them."""
    parent = int(os.environ.get(PARENT_ENV, "0"))
    if not parent:
        return  # run by hand
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # gone already, before the line above took effect
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="end-with-parent").start()


def quantize_graph(source: Path, target: Path) -> None:
    """Write the dynamic-int8, per-channel copy of the fp32 graph ``source`` to ``target``."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # Per-tensor scales were too lossy here (cosine 0.93 to the original); per channel, 0.994.
    quantize_dynamic(str(source), str(target), per_channel=True, weight_type=QuantType.QInt8)


def write_plain(source: Path, target: Path) -> None:
    """Write ``source`` as ONNX Runtime's basic optimiser leaves it: fp32 weights, standard ops."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    # Basic optimisation folds the weight-only int8 Casts into plain fp32 weights; the extended
    # levels would fuse nodes into ONNX Runtime's own ops, which the quantizer does not know.
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(target)
    ort.InferenceSession(str(source), sess_options=options, providers=["CPUExecutionProvider"])


def _main(argv: list[str]) -> None:
    """``python -m noted.embeddings.quantize STEP SOURCE TARGET``: one step of the conversion.

    Fused attention comes first: the quantizer leaves its node alone and quantizes the projections.
    """
    from noted.embeddings import fuse_attention

    _end_with_parent()
    step, source, target = argv[0], Path(argv[1]), Path(argv[2])
    if step == "plain":
        write_plain(source, target)
    elif step == "fuse":
        fuse_attention.fuse(source, target)  # False leaves no target: the plain graph is quantized
    elif step == "quantize":
        quantize_graph(source, target)
    else:
        raise SystemExit(f"unknown step {step!r}: plain, fuse or quantize")


if __name__ == "__main__":
    logging.disable(logging.WARNING)  # the quantizer's advice to pre-process is not for users
    _main(sys.argv[1:])
