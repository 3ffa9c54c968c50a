"""Running ``noted`` in tests: in-process against one profile (capturing output) or as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.support.polling import scaled

import noted
from noted.cli import main
from noted.profile import Profile
from noted.store.sqlite import SqliteStore

SRC = Path(noted.__file__).resolve().parents[1]


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


class Cli:
    """Runs ``noted`` in this process against one profile folder, capturing its output.

    The profile's notebook is made (``noted init``, with the command's ``--vault DIR`` if it has
    one) before the first command, as a person does once, unless ``init`` is False or the profile
    is set up already (for a Markdown folder or Joplin too: ``noted init`` without ``--vault`` is
    refused there).
    """

    def __init__(self, profile: Path, capsys: pytest.CaptureFixture[str], *, init: bool = True) -> None:
        self.profile = profile
        self.capsys = capsys
        self.init = init

    def __call__(self, *args: str) -> Result:
        if self.init and not Profile(self.profile).records():
            assert main(["init", *_vault_of(args), "--profile", str(self.profile)]) == 0
        self.capsys.readouterr()
        code = main([*args, "--profile", str(self.profile)])
        captured = self.capsys.readouterr()
        return Result(code, captured.out, captured.err)

    def ok(self, *args: str) -> Result:
        result = self(*args)
        assert result.code == 0, result.err
        return result

    def json(self, *args: str) -> Any:
        return self.ok(*args, "--json").json()

    def store(self) -> SqliteStore:
        return SqliteStore.open(self.profile / "notes.db", self.profile / "resources")

    def cursor(self) -> int:
        """The change feed's newest id: unchanged means nothing was written."""
        store = self.store()
        try:
            return store.latest_cursor()
        finally:
            store.close()


def _vault_of(args: tuple[str, ...]) -> list[str]:
    """A command's ``--vault DIR``, for the ``noted init`` made before it: a profile holding its
    own notebook refuses a Markdown folder's record."""
    at = args.index("--vault") if "--vault" in args else len(args)
    return list(args[at : at + 2])


def env_with_src(**extra: str) -> dict[str, str]:
    """The environment for a child ``python -m noted`` that imports this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.update(extra)
    return env


def run_noted(
    profile: Path, *args: str, init: bool = True, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m noted`` as a real process, the profile's notebook made first (``noted init``)
    unless ``init`` is False or ``args`` is that command."""
    if init and args[:1] != ("init",) and not Profile(profile).records():
        made = run_noted(profile, *_vault_of(args), "init", init=False)
        assert made.returncode == 0, made.stderr
    return subprocess.run(
        [sys.executable, "-m", "noted", "--profile", str(profile), *args],
        capture_output=True,
        text=True,
        env=env_with_src(),
        timeout=scaled(300),
        check=False,
        **kwargs,
    )
