"""The settings one process knows (the fixed ones plus the tool switches declared so far), and the
environment variables that override them.

Tool ids are not all known when settings load (the tool registry is built later, and a plain
``noted config`` never builds it), so every key of the form ``ai.tool.<id>.enabled`` is accepted. Until
a tool declares it with ``register_tool_setting``, such a key is *provisional*: off by default, shown
only when the config file or the environment sets it. Declaring it supplies the real label, help and
default (read tools on, write tools off).
"""

from __future__ import annotations

import difflib
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from noted.errors import ConfigError
from noted.settings.handles import SECTIONS, SETTINGS, TOOL_KEY, tool_switch
from noted.settings.spec import Kind, Setting, SettingValue

ENV_PREFIX = "NOTED_"
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SECRET_WORD = re.compile(r"(api[_-]?key|token|secret|password|passwd|credentials?)$", re.IGNORECASE)
_TOOL_VARIABLE = re.compile(ENV_PREFIX + r"AI_TOOL_([A-Z][A-Z0-9_]*)_ENABLED")


def env_names(key: str) -> tuple[str, ...]:
    """The environment variables that override ``key``: the primary name first, then an alias.

    The primary name upper-cases the key and turns dots into underscores, so camelCase parts run
    together: ``ai.allowRemote`` → ``NOTED_AI_ALLOWREMOTE``. The alias splits camelCase words with an
    underscore (``NOTED_AI_ALLOW_REMOTE``), for keys that have any.
    """
    primary = ENV_PREFIX + key.replace(".", "_").upper()
    alias = ENV_PREFIX + _CAMEL_BOUNDARY.sub("_", key).replace(".", "_").upper()
    return (primary,) if alias == primary else (primary, alias)


def looks_secret(key: str) -> bool:
    """True for a key whose last part names a secret itself (``apiKey``, ``token``), not a file of one."""
    return bool(_SECRET_WORD.search(key.rsplit(".", 1)[-1]))


class SettingsRegistry:
    """Looks up settings by key; tools add their switches to it. Safe to use from several threads."""

    def __init__(self, fixed: Iterable[Setting[Any]] = SETTINGS) -> None:
        self._fixed = {setting.key: setting for setting in fixed}
        self._tables = [setting for setting in self._fixed.values() if setting.kind is Kind.TABLE]
        self._tools: dict[str, Setting[bool]] = {}
        self._lock = threading.Lock()

    def register_tool_setting(self, tool_id: str, *, title: str, default: bool, write: bool) -> Setting[Any]:
        """Declare the switch ``ai.tool.<tool_id>.enabled`` of one tool and return it.

        Declaring the same switch again with the same default is harmless (several tools may share
        one, as the editor tools share ``ai.tool.edit_current.enabled``, which is fixed and wins).

        Raises:
            ConfigError: the id is not lowercase snake case, or was declared with another default.
        """
        switch = tool_switch(tool_id)
        if not TOOL_KEY.fullmatch(switch.key):
            raise ConfigError(f"tool id {tool_id!r} must be lowercase letters, digits and underscores")
        if switch.key in self._fixed:
            return self._fixed[switch.key]
        what = "It changes notes." if write else "It only reads."
        switch = replace(
            switch, label=title, default=default, writes_notes=write,
            help=f"Let the assistant and connected AI apps use the tool {tool_id}. {what}",
        )  # fmt: skip
        with self._lock:
            known = self._tools.setdefault(switch.key, switch)
        if known.default != default:
            raise ConfigError(f"{switch.key} was declared twice with different defaults")
        return known

    def find(self, key: str) -> Setting[Any] | None:
        """The setting of ``key``, a provisional one for an undeclared tool switch, one entry of a
        table (``ui.keymap.note.save``), or ``None``."""
        found = self._fixed.get(key) or self._tools.get(key)
        if found is not None:
            return found
        if TOOL_KEY.fullmatch(key):
            tool_id = key.split(".")[2]
            return replace(
                tool_switch(tool_id), registered=False,
                help=f"Switch for the tool {tool_id}, which no part of this process has declared.",
            )  # fmt: skip
        for table in self._tables:
            if key.startswith(table.key + ".") and len(key) > len(table.key) + 1:
                return table.entry(key[len(table.key) + 1 :])
        return None

    def spec(self, key: str) -> Setting[Any]:
        """The setting of ``key``.

        Raises:
            ConfigError: no such setting; the hint suggests close keys.
        """
        found = self.find(key)
        if found is None:
            raise ConfigError(f'unknown setting "{key}"', hint=self.hint(key))
        return found

    def specs(self) -> tuple[Setting[Any], ...]:
        """Every fixed and declared setting, grouped by section in display order."""
        with self._lock:
            declared = sorted(self._tools.values(), key=lambda s: s.key)
        order = {name: index for index, name in enumerate(SECTIONS)}
        return tuple(
            sorted([*self._fixed.values(), *declared], key=lambda s: order.get(s.section, len(order)))
        )

    def hint(self, key: str) -> str:
        """What to tell someone who typed the unknown key ``key``: close keys (a typo, the wrong case)."""
        keys = [spec.key for spec in self.specs()]
        close = [k for k in keys if k.lower() == key.lower()] or difflib.get_close_matches(key, keys, n=3)
        if close:
            listed = close[0] if len(close) == 1 else ", ".join(close[:-1]) + " or " + close[-1]
            return f"did you mean {listed}?"
        return "noted config list shows every setting"

    def read_environment(self, environ: Mapping[str, str]) -> dict[str, tuple[str, SettingValue]]:
        """The settings the environment overrides, as ``{key: (variable, value)}``.

        Switches of tools not declared yet are found by their variable's shape
        (``NOTED_AI_TOOL_<ID>_ENABLED``), so they apply once the tool declares itself.

        Raises:
            ConfigError: a variable holds a value its setting does not allow (the message names the
                variable and the allowed values), or a primary name and its alias disagree.
        """
        tools = (
            self.find(f"ai.tool.{m[1].lower()}.enabled") for m in map(_TOOL_VARIABLE.fullmatch, environ) if m
        )
        found: dict[str, tuple[str, SettingValue]] = {}
        for setting in (*self.specs(), *(tool for tool in tools if tool is not None)):
            override = _read_one(setting, environ)
            if override is not None:
                found.setdefault(setting.key, override)
        return found


def _read_one(setting: Setting[Any], environ: Mapping[str, str]) -> tuple[str, SettingValue] | None:
    present = [(name, environ[name]) for name in env_names(setting.key) if name in environ]
    if not present:
        return None
    if len(present) == 2 and present[0][1] != present[1][1]:
        (first, _), (second, _) = present
        raise ConfigError(f"{first} and {second} both set {setting.key}, to different values; unset one")
    variable, text = present[0]
    try:
        return variable, setting.parse(text)
    except ConfigError as exc:
        hint = exc.hint if text.strip() else f"unset {variable} for the config file's value"
        raise ConfigError(f"environment variable {variable}: {exc.message}", hint=hint) from None
