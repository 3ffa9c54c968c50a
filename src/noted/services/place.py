"""What opening a profile refuses before anything is made in it: ``noted.services.Services.open``
makes the profile folder, and the store its database, before it could refuse."""

from __future__ import annotations

import shlex
from pathlib import Path

from noted.errors import InvalidInputError
from noted.profile import Profile
from noted.settings import Settings
from noted.settings.handles import BACKEND, VAULT_PATH

_SET_UP_FOR = {
    "vault": (
        "a Markdown folder",
        "--vault DIR",
        "noted config set backend vault` and `noted config set vault.path DIR",
    ),
    "joplin": ("Joplin", "--joplin", "noted config set backend joplin"),
}
"""What a profile holding only another backend's record is set up for, the option that works on
it for a run, and the settings that do it for good."""


def check_place(profile: Profile, *, backend: str | None = None, vault: str | None = None) -> None:
    """Refuse what ``Services.open`` would refuse only after making the profile folder: a Markdown
    folder that is missing, or that is the profile or inside it (``noted.store.vault.store.check_place``),
    a notebook of its own in a profile set up for a Markdown folder or Joplin only, and a Markdown
    folder's record in a profile set up for its own notebook or Joplin (``noted --vault DIR init``
    there said "a notebook is already at P" and made ``vault.db`` beside ``notes.db``).

    ``--vault`` and ``--joplin`` are for one run, so the ``backend`` setting still says ``sqlite``
    on such a profile: without this, a command that forgot the option quietly made ``notes.db``
    with the welcome notes beside the folder's record, a second store nobody asked for.
    """
    settings = Settings.load(profile)
    chosen = "vault" if vault is not None else backend or settings.get(BACKEND)
    held = profile.records()
    if chosen == "sqlite" and held and "sqlite" not in held:
        what, option, setting = _SET_UP_FOR["vault" if "vault" in held else "joplin"]
        raise InvalidInputError(
            f"{profile.root} is set up for {what}, and the backend setting is sqlite: a notebook of "
            "its own would be a second store",
            hint=f"add {option} to the command, or set it for good: `{setting}`",
        )
    folder = vault or settings.get(VAULT_PATH)
    if folder and chosen == "vault":
        from noted.store.vault import check_place as check_folder

        check_folder(Path(folder).expanduser(), profile.root)
    if chosen == "vault" and held and "vault" not in held:
        what = "its own notebook" if "sqlite" in held else "Joplin"
        init = shlex.join(["noted", "--profile", "NEW-DIR", "--vault", folder or "DIR", "init"])
        raise InvalidInputError(
            f"{profile.root} is set up for {what}, not for a Markdown folder: the folder's record there "
            "would be a second store",
            hint=f"give the folder a profile of its own: `{init}`",
        )
