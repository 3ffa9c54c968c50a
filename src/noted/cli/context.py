"""What every subcommand shares: the profile, lazily opened services, and output helpers."""

from __future__ import annotations

import functools
import json
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from noted.cli.progress import LazyProgress
from noted.cli.terminal import shown, shown_json
from noted.errors import InvalidInputError
from noted.logs import setup_logging
from noted.ops.editing import rescue_edits
from noted.profile import Profile, resolve_profile
from noted.services import Services
from noted.services.place import check_place
from noted.tempfiles import OLD_TWINS, sweep_beside
from noted.wording import one_line


@dataclass
class CliContext:
    """Opens the profile and its services on first use and closes them once."""

    profile_arg: str | None = None
    json: bool = False
    joplin: bool = False
    """``--joplin``: use a running Joplin's notes for this run, whatever ``backend`` says."""
    vault: str | None = None
    """``--vault DIR``: work on that Markdown folder for this run."""
    scan_in_background: bool = False
    """The app: a Markdown folder noted has read before is shown at once and scanned by its watcher."""
    create: bool = False
    """Whether a profile that holds no notebook yet may be made (``noted init``, the first start
    in a terminal); every other command refuses one, so a mistyped path never becomes a notebook."""
    said_in_app: list[str] | None = None
    """The app: what opening the services finds to say goes here, for the app to show (on stderr
    it would be seen only after quitting, the app having taken the screen meanwhile)."""
    created: bool = field(default=False, init=False)
    """Whether this run made the profile's notebook."""
    _services: Services | None = field(default=None, init=False, repr=False)
    _profile: Profile | None = field(default=None, init=False, repr=False)

    def command(self, *words: str) -> str:
        """``noted WORDS`` as a line to run next, with this run's ``--profile``, ``--joplin``, ``--vault``."""
        chosen = [
            *(["--profile", self.profile_arg] if self.profile_arg else []),
            *(["--joplin"] if self.joplin else []),
            *(["--vault", self.vault] if self.vault else []),
        ]
        return shlex.join(["noted", *chosen, *words])

    @property
    def profile(self) -> Profile:
        if self._profile is None:
            self._profile = resolve_profile(self.profile_arg)
        return self._profile

    @property
    def services(self) -> Services:
        if self._services is None:
            # With --vault too: the profile keeps noted's record of the folder, and a mistyped one
            # would quietly start a second record, without the first one's history and chats.
            if not self.create and not self.profile.holds_notebook:
                backend = [
                    *(["--joplin"] if self.joplin else []),
                    *(["--vault", self.vault] if self.vault else []),
                ]
                init, app = shlex.join(["noted", *backend, "init"]), shlex.join(["noted", *backend])
                raise InvalidInputError(
                    f"there is no notebook at {self.profile.root}",
                    hint=f"check --profile or NOTED_PROFILE; `{init}` makes one there, as does `{app}` in a terminal",
                )
            self.created = not self.profile.holds_notebook
            check_place(self.profile, backend="joplin" if self.joplin else None, vault=self.vault)
            profile = self.profile.ensure()
            setup_logging(profile.log_path)
            # A Markdown folder read for the first time is read here, with a bar on a terminal.
            with LazyProgress(enabled=sys.stderr.isatty()) as bar:
                self._services = Services.open(
                    profile,
                    backend="joplin" if self.joplin else None,
                    on_upgrade=self._upgrading,
                    vault=self.vault,
                    on_scan=functools.partial(bar, "folder"),
                    scan_in_background=self.scan_in_background,
                )
            sweep_beside(profile.config_path, twins=OLD_TWINS)  # what a kill left in the profile
            for kept in rescue_edits(profile.root):  # (the app's too: it opens them here)
                said = f"noted was stopped while $EDITOR was open; the text you were editing is in {kept}"
                if self.said_in_app is None:
                    self.error(said)
                else:
                    self.said_in_app.append(said)
        return self._services

    def _upgrading(self) -> None:
        self.error("upgrading the notebook database to this version (once; a large notebook takes a while)")

    def out(self, text: str = "") -> None:
        """Print a line for people (ignored when nothing should be printed)."""
        print(shown(text, sys.stdout))

    def line(self, text: str) -> None:
        """Print one line that is one item (a listing's row, a message naming a title): a line
        break inside it (a title made in Joplin) shows as ␊ (``noted.wording.one_line``)."""
        self.out(one_line(text))

    def emit(self, payload: Any) -> None:
        """Print ``payload`` as JSON."""
        print(shown_json(json.dumps(payload, ensure_ascii=False, indent=2, default=str), sys.stdout))

    def error(self, message: str) -> None:
        print(shown(f"noted: {message}", sys.stderr), file=sys.stderr)

    def db_path_hint(self) -> Path | None:
        """The profile's database, to name in a storage fault (None if the profile itself failed)."""
        try:
            return self.profile.db_path
        except Exception:
            return None

    def log_path_hint(self) -> str:
        try:
            return str(self.profile.log_path)
        except Exception:  # the profile itself may be what failed
            return "the profile's noted.log"

    def close(self) -> None:
        if self._services is not None:
            self._services.close()
            self._services = None
