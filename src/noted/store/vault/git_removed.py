"""Whether ``git`` itself removed a file of the Markdown folder (a checkout, a reset, a pull).

An editor's save-as followed by a delete and a ``git checkout`` that removes a file beside an
identical copy leave the folder alike: the copy, the file gone. Only git can tell them apart. A
file deleted in the work tree (``rm``, an editor) is still in git's index; a file git removed is
not, though a commit holds it (git can give it back, and a checkout back brings it). A folder that
is no git work tree, or a ``git`` that cannot answer, tells nothing.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

TIMEOUT_S = 10.0
"""A ``git`` slower than this (a huge history on a slow disk) tells nothing."""


def removed_by_git(root: Path, rel: str) -> bool:
    """Git removed the file ``rel`` of the folder ``root``: it is in no index but in a commit."""
    if _git(root, "ls-files", "-z", "--", rel) != "":  # in the index (or no answer): not git's doing
        return False
    return bool(_git(root, "rev-list", "-1", "--all", "--", rel))


def _git(root: Path, *args: str) -> str | None:
    """``git``'s output in ``root`` (pathspecs read literally, no lock taken), or None."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_LITERAL_PATHSPECS"] = "1"
    try:
        done = subprocess.run(
            ["git", "--no-optional-locks", "-C", str(root), *args],
            capture_output=True, text=True, env=env, timeout=TIMEOUT_S, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
