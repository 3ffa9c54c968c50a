"""The registry of settings one process knows: the fixed table plus the tool switches declared so far.

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
from collections.abc import Iterable

from noted.errors import ConfigError
from noted.settings.spec import Kind, SettingSpec
from noted.settings.table import SECTIONS, SETTINGS, TOOLS

TOOL_KEY = re.compile(r"ai\.tool\.([a-z][a-z0-9_]*)\.enabled")
"""The family of tool switches; a tool id is lowercase snake case."""

ENV_PREFIX = "NOTED_"
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SECRET_WORD = re.compile(r"(api[_-]?key|token|secret|password|passwd|credentials?)$", re.IGNORECASE)


def tool_key(tool_id: str) -> str:
    """The key of the switch of tool ``tool_id``."""
    return f"ai.tool.{tool_id}.enabled"


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

    def __init__(self, specs: Iterable[SettingSpec] = SETTINGS) -> None:
        self._fixed = {spec.key: spec for spec in specs}
        self._tools: dict[str, SettingSpec] = {}
        self._lock = threading.Lock()

    def register_tool_setting(self, tool_id: str, *, title: str, default: bool, write: bool) -> SettingSpec:
        """Declare the switch ``ai.tool.<tool_id>.enabled`` of one tool and return its spec.

        Declaring the same switch again with the same default is harmless (several tools may share
        one, as the editor tools share ``ai.tool.edit_current.enabled``, which is fixed and wins).

        Raises:
            ConfigError: the id is not lowercase snake case, or was declared with another default.
        """
        key = tool_key(tool_id)
        if not TOOL_KEY.fullmatch(key):
            raise ConfigError(f"tool id {tool_id!r} must be lowercase letters, digits and underscores")
        if key in self._fixed:
            return self._fixed[key]
        what = "It changes notes." if write else "It only reads."
        spec = SettingSpec(
            key=key, label=title, section=TOOLS, kind=Kind.BOOL, default=default, writes_notes=write,
            help=f"Let the assistant and connected AI apps use the tool {tool_id}. {what}",
        )  # fmt: skip
        with self._lock:
            known = self._tools.get(key)
            if known is not None and known.default != default:
                raise ConfigError(f"{key} was declared twice with different defaults")
            self._tools.setdefault(key, spec)
            return self._tools[key]

    def find(self, key: str) -> SettingSpec | None:
        """The spec of ``key``, a provisional one for an undeclared tool switch, or ``None``."""
        spec = self._fixed.get(key) or self._tools.get(key)
        if spec is None and TOOL_KEY.fullmatch(key):
            tool_id = key.split(".")[2]
            spec = SettingSpec(
                key=key, label=f"Tool {tool_id}", section=TOOLS, kind=Kind.BOOL, default=False,
                help=f"Switch for the tool {tool_id}, which no part of this process has declared.",
                registered=False,
            )  # fmt: skip
        return spec

    def spec(self, key: str) -> SettingSpec:
        """The spec of ``key``.

        Raises:
            ConfigError: no such setting; the hint suggests close keys.
        """
        spec = self.find(key)
        if spec is None:
            raise ConfigError(f'unknown setting "{key}"', hint=self.hint(key))
        return spec

    def specs(self) -> tuple[SettingSpec, ...]:
        """Every fixed and declared setting, grouped by section in display order."""
        with self._lock:
            declared = sorted(self._tools.values(), key=lambda s: s.key)
        order = {name: index for index, name in enumerate(SECTIONS)}
        every = [*self._fixed.values(), *declared]
        return tuple(sorted(every, key=lambda s: order.get(s.section, len(order))))

    def suggest(self, key: str) -> list[str]:
        """Keys close to ``key`` (a typo, or the wrong case), best first."""
        keys = [spec.key for spec in self.specs()]
        same_case = [k for k in keys if k.lower() == key.lower()]
        return same_case or difflib.get_close_matches(key, keys, n=3, cutoff=0.6)

    def hint(self, key: str) -> str:
        """What to tell someone who typed the unknown key ``key``."""
        close = self.suggest(key)
        if close:
            listed = close[0] if len(close) == 1 else ", ".join(close[:-1]) + " or " + close[-1]
            return f"did you mean {listed}?"
        return "noted config list shows every setting"
