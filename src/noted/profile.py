"""Where a profile lives: one folder holding ``notes.db``, ``resources/``, ``config.toml``, logs.

Chosen by ``--profile DIR``, else ``NOTED_PROFILE``, else the platform's data folder.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from noted.errors import FolderNotWritableError, ProfileError

PROFILE_ENV = "NOTED_PROFILE"


@dataclass(frozen=True, slots=True)
class Profile:
    """The paths of one profile. Making the value creates nothing; ``ensure`` does."""

    root: Path

    @property
    def db_path(self) -> Path:
        return self.root / "notes.db"

    @property
    def resources_dir(self) -> Path:
        return self.root / "resources"

    @property
    def config_path(self) -> Path:
        return self.root / "config.toml"

    @property
    def log_path(self) -> Path:
        return self.root / "noted.log"

    @property
    def is_new(self) -> bool:
        """True when no database exists yet (the first run)."""
        return not self.db_path.exists()

    def ensure(self) -> Profile:
        """Create the folders of the profile if needed."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            self.resources_dir.mkdir(exist_ok=True)
        except OSError as exc:
            # Denied or read-only: a storage fault with its own exit code, naming the folder.
            kind = (
                FolderNotWritableError
                if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS)
                else ProfileError
            )
            raise kind(
                f"cannot create the profile folder {exc.filename or self.root}: {exc.strerror or exc}",
                hint="pick another with --profile DIR or NOTED_PROFILE",
            ) from exc
        if not self.root.is_dir():
            raise ProfileError(f"the profile path {self.root} is not a folder")
        return self


def resolve_profile(explicit: str | os.PathLike[str] | None = None) -> Profile:
    """The profile named on the command line, by the environment, or the platform default."""
    chosen = explicit or os.environ.get(PROFILE_ENV) or platformdirs.user_data_dir("noted")
    return Profile(Path(chosen).expanduser().resolve())
