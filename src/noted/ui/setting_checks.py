"""Checks of settings that need what only the front end knows: the themes and Textual's key names.

The core never imports Textual, so ``Settings`` cannot make these itself; ``install`` adds them
(``Settings.add_check``). The app installs them when it starts and ``noted config set`` before it
saves, so a theme that does not exist, a binding id no widget has, or a key Textual never sends is
refused in one line and nothing is written. Textual loads when a check runs, not on import.
"""

from __future__ import annotations

from collections.abc import Mapping

from noted.errors import ConfigError
from noted.settings import Settings
from noted.settings.handles import UI_KEYMAP, UI_THEME

MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")


def install(settings: Settings) -> None:
    """Add the checks of ``ui.theme`` and ``ui.keymap`` to ``settings``."""
    settings.add_check(UI_THEME, check_theme)
    settings.add_check(UI_KEYMAP, check_keymap)


def check_theme(settings: Settings, name: str) -> None:
    """Refuse a theme that is neither bundled, nor Textual's, nor a usable file of the person's."""
    from textual.theme import BUILTIN_THEMES

    from noted.ui.themes import load_themes, user_theme_dirs

    found = load_themes(user_theme_dirs(settings.path))
    if name in found.themes or name in BUILTIN_THEMES:
        return
    if name in found.broken:
        raise ConfigError(
            f"{found.broken[name]}; nothing was saved", hint="fix the file, or choose another theme"
        )
    raise ConfigError(
        f'{UI_THEME.key}: no theme is named "{name}"; nothing was saved',
        hint="the themes are " + ", ".join(sorted({*found.themes, *BUILTIN_THEMES})),
    )


def check_keymap(settings: Settings, table: Mapping[str, str]) -> None:
    """Refuse entries for binding ids no widget has (saved, they would do nothing) and keys that
    Textual never sends (``ctrl+sss``, ``?`` where Textual says ``question_mark``)."""
    from noted.ui.binding_ids import binding_ids  # imports every module of noted.ui

    known = binding_ids()
    unknown = [name for name in table if name not in known]
    if unknown:
        raise ConfigError(
            f"no key binding has the id {', '.join(unknown)}; nothing was saved",
            hint="the ids are: " + ", ".join(sorted(known)),
        )
    for binding, keys in table.items():
        for key in keys.split(","):
            problem = key_problem(key)
            if problem is not None:
                raise ConfigError(f"{UI_KEYMAP.key}.{binding}: {problem}; nothing was saved", hint=_KEYS_HINT)


_KEYS_HINT = "keys look like ctrl+s, shift+f2, escape, pageup or question_mark, joined by commas"


def key_problem(key: str) -> str | None:
    """Why Textual would never match ``key`` (one key, modifiers included), or None when it would."""
    from textual.binding import Binding
    from textual.keys import KEY_NAME_REPLACEMENTS, Keys, key_to_character

    *modifiers, base = key.split("+")
    wrong = [m for m in modifiers if m not in MODIFIERS]
    if wrong:
        return f'"{key}": {wrong[0]!r} is not a modifier ({", ".join(MODIFIERS)})'
    if len(base) == 1 and not base.isalnum():
        named = next(iter(Binding.make_bindings([(base, "")]))).key  # Textual's name for it
        return f'write "{"+".join([*modifiers, named])}" for "{key}"'
    named_keys = {k.value.rsplit("+", 1)[-1] for k in Keys} | set(KEY_NAME_REPLACEMENTS.values())
    if len(base) == 1 or base in named_keys:
        return None
    character = key_to_character(base) if base and base == base.lower() else None  # question_mark → ?
    if character is not None and character.isprintable():
        return None
    return f'"{key}" is not a key Textual knows'
