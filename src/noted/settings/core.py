"""``Settings``: the values in effect for one process, where each came from, and how to change them.

A value comes from, in order of precedence: an environment variable named after its key (for this
run only), the profile's ``config.toml``, or the registry's default. ``set`` validates, writes only its
own key to the file, and tells subscribers what changed; ``reload`` picks up edits another process
(or a person with an editor) made to the file. Subscribers run in the thread that made the change.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar, cast, overload

import tomlkit

from noted.errors import ConfigError
from noted.profile import Profile
from noted.settings.handles import SECTIONS, tool_switch
from noted.settings.registry import SettingsRegistry, looks_secret
from noted.settings.resolved import ResolvedSetting, SettingChange, Source, Subscriber
from noted.settings.spec import Check, Setting, SettingValue, to_json
from noted.settings.tomlfile import (
    Stamp,
    file_lock,
    file_stamp,
    flatten,
    read_document,
    remove_in_document,
    set_in_document,
    write_document,
)

log = logging.getLogger("noted.settings")

T = TypeVar("T", bound=SettingValue)


@dataclass(frozen=True, slots=True)
class _State:
    file_values: Mapping[str, SettingValue]
    env_values: Mapping[str, tuple[str, SettingValue]]
    problems: tuple[str, ...]
    stamp: Stamp | None
    refused: Mapping[str, object]
    """What the file holds for a guard it refused (its ``closed`` value stands in), by key."""

    def effective(self, spec: Setting[Any]) -> SettingValue:
        if spec.key in self.env_values:
            return self.env_values[spec.key][1]
        return self.file_values.get(spec.key, spec.default)


class Settings:
    """The settings of one profile for one process. Safe to share between threads."""

    def __init__(
        self,
        path: Path,
        *,
        environ: Mapping[str, str] | None = None,
        registry: SettingsRegistry | None = None,
    ) -> None:
        """Read ``path`` and the environment.

        Raises:
            ConfigError: the file is not valid TOML, or an environment variable holds a bad value.
                A bad value *in the file* is not raised: it is listed in ``problems`` and the
                default stands in for it, so a typo never locks anyone out of the app (for a
                guard, its ``Setting.closed`` value: a typo never opens it either).
        """
        self._path = path
        self._registry = registry or SettingsRegistry()
        self._environ = dict(os.environ if environ is None else environ)
        self._lock = threading.RLock()
        self._subscribers: list[Subscriber] = []
        self._checks: dict[str, list[Check[Any]]] = {}
        env_values = self._registry.read_environment(self._environ)
        stamp = file_stamp(path)
        values, problems, refused = self._values_from(read_document(path))
        self._state = _State(values, env_values, problems, stamp, refused)

    @classmethod
    def load(
        cls,
        where: Profile | Path,
        *,
        environ: Mapping[str, str] | None = None,
        registry: SettingsRegistry | None = None,
    ) -> Settings:
        """The settings of a profile (its ``config.toml``) or of the TOML file at a path."""
        path = where.config_path if isinstance(where, Profile) else where
        return cls(path, environ=environ, registry=registry)

    @property
    def path(self) -> Path:
        """The config file (it need not exist yet)."""
        return self._path

    @property
    def registry(self) -> SettingsRegistry:
        return self._registry

    @property
    def environ(self) -> Mapping[str, str]:
        """The environment read at load, where secrets are looked up (see ``credentials``)."""
        return self._environ

    @property
    def problems(self) -> tuple[str, ...]:
        """What is wrong in the config file (unknown keys, bad values); defaults stand in for them."""
        return self._state.problems

    def register_tool_setting(self, tool_id: str, *, title: str, default: bool, write: bool) -> Setting[Any]:
        """Declare a tool's switch; see ``SettingsRegistry.register_tool_setting``."""
        return self._registry.register_tool_setting(tool_id, title=title, default=default, write=write)

    def add_check(self, setting: Setting[T], check: Check[T]) -> None:
        """Refuse values of ``setting`` that ``check`` refuses, beside the setting's own check.

        For what only a front end knows (the theme names, the key names Textual reads): the core
        never imports Textual, so the app and ``noted config`` add those checks here.
        """
        with self._lock:
            checks = self._checks.setdefault(setting.key, [])
            if check not in checks:
                checks.append(check)

    def recheck(self) -> None:
        """Read the config file again through every check, the added ones too (``add_check``): a
        value they refuse joins ``problems`` and its default applies, as for a value of the wrong
        type. ``noted config list`` calls it so that it reports what the app would."""
        with self._lock:
            self._state = replace(self._state, stamp=None)
        self.reload()

    # reading

    def resolve(self, key: str | Setting[Any]) -> ResolvedSetting:
        """The value in effect for ``key`` with its setting and origin.

        ``key`` may also name one entry of a table setting, e.g. ``ui.keymap.note.save``.

        Raises:
            ConfigError: no such setting (the hint suggests close keys).
        """
        spec = self._registry.spec(_key(key))
        state = self._state
        if spec.table is not None:
            whole = self.resolve(spec.table)
            entries = cast("Mapping[str, str]", whole.value)
            if spec.parts[-1] not in entries:
                return ResolvedSetting(spec, spec.default, Source.DEFAULT)
            return ResolvedSetting(spec, entries[spec.parts[-1]], whole.source, whole.env_var)
        if spec.key in state.env_values:
            variable, value = state.env_values[spec.key]
            return ResolvedSetting(spec, value, Source.ENV, variable)
        if spec.key in state.file_values:
            written = state.refused.get(spec.key)
            return ResolvedSetting(spec, state.file_values[spec.key], Source.FILE, written=written)
        return ResolvedSetting(spec, spec.default, Source.DEFAULT)

    def get(self, key: Setting[T]) -> T:
        """The value in effect, typed by its handle: ``get(AI_ENABLED)`` is a ``bool``.

        Only a handle is taken, so a misspelt key is a mypy error; a key a person typed goes
        through ``resolve``.
        """
        return cast("T", self.resolve(key).value)  # the kind of the setting stores values of type T

    def source(self, key: str | Setting[Any]) -> str:
        """Where ``key``'s value comes from: ``default``, ``config file`` or ``environment (NOTED_…)``."""
        return self.resolve(key).describe_source()

    def entries(self) -> tuple[ResolvedSetting, ...]:
        """Every known setting in display order, plus undeclared tool switches that have a value."""
        specs = list(self._registry.specs())
        known = {spec.key for spec in specs}
        state = self._state
        extra = sorted((set(state.file_values) | set(state.env_values)) - known)
        resolved = [self.resolve(spec.key) for spec in specs] + [self.resolve(key) for key in extra]
        order = {section: index for index, section in enumerate(SECTIONS)}
        return tuple(sorted(resolved, key=lambda r: order.get(r.spec.section, len(order))))

    def path_of(self, text: str) -> Path:
        """A path as a path setting reads it: ``~`` expanded, relative to the config file's folder."""
        return self._path.parent / Path(text).expanduser()

    def get_path(self, key: Setting[str]) -> Path | None:
        """A path setting's file (see ``path_of``), or ``None`` when it is not set."""
        text = self.get(key)
        return self.path_of(text) if text else None

    def tool_enabled(self, tool_id: str) -> bool:
        """Whether the switch ``ai.tool.<tool_id>.enabled`` is on."""
        return self.get(tool_switch(tool_id))

    # changing

    @overload
    def set(self, key: Setting[T], value: T) -> ResolvedSetting: ...
    @overload
    def set(self, key: str, value: SettingValue) -> ResolvedSetting: ...
    def set(self, key: str | Setting[Any], value: SettingValue) -> ResolvedSetting:
        """Validate ``value``, write it to the config file, and tell subscribers.

        A handle takes a value of its type; a key as text (as a person typed it) takes text, parsed
        as on the command line (``"on"``, ``"8765"``, ``"a, b"``), or a typed value. Only this key's
        line changes in the file. When an environment variable overrides the key, the file is still
        written and the returned value (still the variable's) says so.

        Raises:
            ConfigError: unknown key, a value the setting or a check does not allow, a key or value
                that looks like a secret (secrets belong in the environment or a key file, never
                here), or a config file that cannot be parsed (it is then left as it was).
            StorageError: the config file cannot be written (a full disk, a read-only folder).
        """
        name = _key(key)
        if looks_secret(name):
            raise ConfigError(
                f"{name} would hold a secret, and noted never stores secrets in its config file",
                hint="put it in the environment, or in a file named by a …File setting such as ai.apiKeyFile",
            )
        spec = self._registry.spec(name)
        typed = spec.parse(value) if isinstance(value, str) else spec.coerce(value)
        if spec.table is not None:  # an entry is checked by its table's checks, as a table of one
            self._check(spec.table, {spec.parts[-1]: str(typed)})
        else:
            self._check(spec, typed)
        self._edit(lambda doc: _write_value(doc, spec, typed))
        return self.resolve(name)

    def unset(self, key: str | Setting[Any]) -> ResolvedSetting:
        """Remove ``key`` from the config file, so its default (or environment value) applies."""
        spec = self._registry.spec(_key(key))
        self._edit(lambda doc: remove_in_document(doc, spec.parts))
        return self.resolve(key)

    def reload(self) -> tuple[SettingChange, ...]:
        """Re-read the config file if it changed on disk since the last read or write.

        Cheap when nothing changed (one ``stat``), so a front end may call it every second or so.
        Subscribers hear about the values in effect that changed; those are also returned.

        Raises:
            ConfigError: the file no longer parses; the values read before stay in effect.
        """
        with self._lock:
            stamp = file_stamp(self._path)
            if stamp == self._state.stamp:
                return ()
            values, problems, refused = self._values_from(read_document(self._path))
            changes = self._swap(
                replace(self._state, file_values=values, problems=problems, stamp=stamp, refused=refused)
            )
        self._notify(changes)
        return changes

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback`` with the changes after every ``set``, ``unset`` or ``reload`` that changes
        a value in effect. Returns a function that unsubscribes."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._subscribers.remove(callback)

        return unsubscribe

    # internals

    def _check(self, spec: Setting[Any], value: SettingValue) -> None:
        with self._lock:
            checks = [*([spec.check] if spec.check else []), *self._checks.get(spec.key, ())]
        for check in checks:
            check(self, value)

    def _values_from(
        self, doc: tomlkit.TOMLDocument
    ) -> tuple[dict[str, SettingValue], tuple[str, ...], dict[str, object]]:
        raw, unknown = flatten(doc.unwrap(), lambda key: self._registry.find(key) is not None)
        name = self._path.name
        problems = [f"{name}: unknown setting {key} ({self._registry.hint(key)})" for key in unknown]
        values: dict[str, SettingValue] = {}
        refused: dict[str, object] = {}
        for key, value in raw.items():
            spec = self._registry.spec(key)
            try:
                values[key] = spec.coerce(value)
                for check in self._checks.get(key, ()):  # a front end's (``add_check``), as ``set`` runs them
                    check(self, values[key])
            except ConfigError as exc:
                values.pop(key, None)
                if spec.closed is None:
                    problems.append(f"{name}: {exc.message.removesuffix(_NOT_SAVED)}; the default applies")
                    continue
                values[key], meaning = spec.closed  # a guard refused stays shut, never lifted
                refused[key] = value
                problems.append(f"{name}: {exc.message}; until it is fixed, {meaning}")
        return values, tuple(problems), refused

    def _edit(self, mutate: Callable[[tomlkit.TOMLDocument], object]) -> None:
        # The file lock makes read-change-write atomic across processes: two processes setting
        # different keys at once both keep their change.
        with self._lock, file_lock(self._path):
            doc = read_document(self._path)
            mutate(doc)
            stamp = write_document(self._path, doc)
            values, problems, refused = self._values_from(doc)
            changes = self._swap(
                replace(self._state, file_values=values, problems=problems, stamp=stamp, refused=refused)
            )
        self._notify(changes)

    def _swap(self, new: _State) -> tuple[SettingChange, ...]:
        old, self._state = self._state, new
        keys = set(old.file_values) | set(new.file_values) | set(old.env_values) | set(new.env_values)
        changes = []
        for key in sorted(keys):
            spec = self._registry.spec(key)
            before, after = old.effective(spec), new.effective(spec)
            if before != after:
                changes.append(SettingChange(key, before, after))
        return tuple(changes)

    def _notify(self, changes: tuple[SettingChange, ...]) -> None:
        if not changes:
            return
        with self._lock:
            subscribers = list(self._subscribers)
        for callback in subscribers:
            try:
                callback(changes)
            except Exception:  # one broken listener must not undo a saved change or starve the rest
                log.exception("a settings subscriber failed on %s", [c.key for c in changes])


_NOT_SAVED = "; nothing was saved"
"""How a check's refusal of a value being set ends; said of a value in the file, the default applies."""


def _key(key: str | Setting[Any]) -> str:
    return key.key if isinstance(key, Setting) else key


def _write_value(doc: tomlkit.TOMLDocument, spec: Setting[Any], value: SettingValue) -> None:
    if isinstance(value, Mapping):  # a whole table is replaced entry by entry, as dotted keys
        remove_in_document(doc, spec.parts)
        for entry, keys in value.items():
            set_in_document(doc, (*spec.parts, entry), keys)
        return
    set_in_document(doc, spec.parts, to_json(value))
