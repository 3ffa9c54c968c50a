"""Where a profile lives: one folder holding ``notes.db``, ``resources/``, ``config.toml``, logs.

Chosen by ``--profile DIR``, else ``NOTED_PROFILE``, else the platform's data folder.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from noted.errors import FolderNotWritableError, InvalidInputError, NotUtf8Error, ProfileError

PROFILE_ENV = "NOTED_PROFILE"
_RECORDS = {"sqlite": "notes.db", "joplin": "joplin-sidecar.db", "vault": "vault.db"}
"""The files that make a folder a profile, by backend: the embedded database, and the sidecars of
the Joplin backend and of a Markdown folder (``noted.store.joplin.sidecar.SIDECAR_NAME``,
``noted.store.vault.store.SIDECAR_NAME``)."""


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

    @property
    def holds_notebook(self) -> bool:
        """True when the folder holds a notebook: the embedded database, or the Joplin backend's
        sidecar. Only ``noted init`` and the first start in a terminal make one where there is none,
        so a mistyped ``--profile`` is refused instead of becoming a new, empty notebook."""
        return bool(self.records())

    def records(self) -> frozenset[str]:
        """The backends (``sqlite``, ``joplin``, ``vault``) whose record the folder holds."""
        return frozenset(
            backend
            for backend, name in _RECORDS.items()
            if (self.root / name).exists() or (self.root / name).is_symlink()
        )

    def ensure(self) -> Profile:
        """Create the folders of the profile if needed.

        Raises:
            ProfileError: ``notes.db`` is a link to nothing (a fresh database would be made at
                its target, and the notes the person expects would seem gone).
            FolderNotWritableError: the folder cannot be made.
        """
        if self.db_path.is_symlink() and not self.db_path.exists():
            raise ProfileError(
                f"{self.db_path} is a link to {os.readlink(self.db_path)}, which does not exist",
                hint="put the database back where the link points, or remove the link",
            )
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
    """The profile named on the command line, by the environment, or the platform default.

    Raises:
        NotUtf8Error: the path is not valid UTF-8 (SQLite takes no other file name).
        InvalidInputError: the path is empty, or a loop of symbolic links.
    """
    where, chosen = (
        ("--profile", explicit) if explicit is not None else (PROFILE_ENV, os.environ.get(PROFILE_ENV))
    )
    if chosen is not None and not os.fspath(chosen).strip():  # "$P" with P unset: never the default
        leave = "leave --profile out" if explicit is not None else f"unset {PROFILE_ENV}"
        raise InvalidInputError(
            f"{where} is empty", hint=f"name the profile folder, or {leave} for the default"
        )
    chosen = chosen if chosen is not None else platformdirs.user_data_dir("noted")
    try:
        os.fspath(chosen).encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(chosen).decode("ascii", "backslashreplace")
        raise NotUtf8Error(f'the profile path given by {where} ("{shown}") is not valid UTF-8') from None
    try:
        return Profile(Path(chosen).expanduser().resolve())
    except (RuntimeError, OSError) as exc:  # RuntimeError: a loop of links (Python 3.11, 3.12)
        raise InvalidInputError(
            f"the profile path {chosen} cannot be followed: a loop of symbolic links or a bad link ({exc})",
            hint="pick another with --profile DIR or NOTED_PROFILE",
        ) from None
