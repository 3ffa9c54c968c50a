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
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar, overload

import tomlkit

from noted.errors import ConfigError
from noted.profile import Profile
from noted.settings.env import read_environment
from noted.settings.handles import AI_BASE_URL, AI_PROVIDER, Setting, tool_switch
from noted.settings.registry import SettingsRegistry, looks_secret
from noted.settings.resolved import ResolvedSetting, SettingChange, Source, Subscriber
from noted.settings.spec import Kind, SettingSpec, SettingValue, to_json
from noted.settings.table import SECTIONS
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
from noted.settings.urls import EXAMPLE_URLS, base_url_problem

log = logging.getLogger("noted.settings")

T = TypeVar("T")

_KEY_LIKE_VALUE = re.compile(r"(sk|sk-ant|pk|rk|ghp|gho|xox[abpr])[-_][A-Za-z0-9]")


@dataclass(frozen=True, slots=True)
class _State:
    file_values: Mapping[str, SettingValue]
    env_values: Mapping[str, tuple[str, SettingValue]]
    problems: tuple[str, ...]
    stamp: Stamp | None

    def effective(self, spec: SettingSpec) -> SettingValue:
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
                default stands in for it, so a typo never locks anyone out of the app.
        """
        self._path = path
        self._registry = registry or SettingsRegistry()
        self._environ = dict(os.environ if environ is None else environ)
        self._lock = threading.RLock()
        self._subscribers: list[Subscriber] = []
        env_values = read_environment(self._registry, self._environ)
        stamp = file_stamp(path)
        values, problems = self._values_from(read_document(path))
        self._state = _State(values, env_values, problems, stamp)

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

    def register_tool_setting(self, tool_id: str, *, title: str, default: bool, write: bool) -> SettingSpec:
        """Declare a tool's switch; see ``SettingsRegistry.register_tool_setting``."""
        return self._registry.register_tool_setting(tool_id, title=title, default=default, write=write)

    # reading

    def resolve(self, key: str | Setting[Any]) -> ResolvedSetting:
        """The value in effect for ``key`` with its spec and origin.

        ``key`` may also name one entry of a table setting, e.g. ``ui.keymap.note.save``.

        Raises:
            ConfigError: no such setting (the hint suggests close keys).
        """
        spec, entry = self._lookup(_key(key))
        state = self._state
        if entry is not None:
            return self._resolve_entry(spec, entry)
        if spec.key in state.env_values:
            variable, value = state.env_values[spec.key]
            return ResolvedSetting(spec, value, Source.ENV, variable)
        if spec.key in state.file_values:
            return ResolvedSetting(spec, state.file_values[spec.key], Source.FILE)
        return ResolvedSetting(spec, spec.default, Source.DEFAULT)

    @overload
    def get(self, key: Setting[T]) -> T: ...
    @overload
    def get(self, key: str) -> SettingValue: ...
    def get(self, key: str | Setting[Any]) -> object:
        """The value in effect: typed for a handle (``get(AI_ENABLED) -> bool``), else a ``SettingValue``.

        Code reads through handles (``settings.handles``) so a misspelt name fails mypy; a key as
        text is for keys a person typed (the command line, the settings screen).
        """
        value = self.resolve(key).value
        return key.cast(value) if isinstance(key, Setting) else value

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

    def unregistered_tool_keys(self) -> tuple[str, ...]:
        """Tool switches set in the file or environment that no tool has declared (likely typos)."""
        state = self._state
        keys = set(state.file_values) | set(state.env_values)
        return tuple(sorted(k for k in keys if (spec := self._registry.find(k)) and not spec.registered))

    def get_path(self, key: Setting[str]) -> Path | None:
        """A path setting, ``~`` expanded and relative paths taken from the config file's folder."""
        text = self.get(key)
        if not text:
            return None
        return self._path.parent / Path(text).expanduser()

    def tool_enabled(self, tool_id: str) -> bool:
        """Whether the switch ``ai.tool.<tool_id>.enabled`` is on."""
        return self.get(tool_switch(tool_id))

    # changing

    def set(self, key: str | Setting[Any], value: SettingValue) -> ResolvedSetting:
        """Validate ``value``, write it to the config file, and tell subscribers.

        Text is parsed as on the command line (``"on"``, ``"8765"``, ``"a, b"``); typed values are
        checked. Only this key's line changes in the file. When an environment variable overrides
        the key, the file is still written and the returned value (still the variable's) says so.

        Raises:
            ConfigError: unknown key, a value the setting does not allow, a key or value that looks
                like a secret (secrets belong in the environment or a key file, never here), or a
                config file that cannot be parsed or written (it is then left as it was).
        """
        key = _key(key)
        if looks_secret(key):
            raise ConfigError(
                f"{key} would hold a secret, and noted never stores secrets in its config file",
                hint="put it in the environment, or in a file named by a …File setting such as ai.apiKeyFile",
            )
        spec, entry = self._lookup(key)
        if entry is not None:
            keys = value.strip() if isinstance(value, str) else ""
            if not keys:
                raise ConfigError(f'{key} must be keys such as "ctrl+s" or "ctrl+s,f2" (got {value!r})')
            self._edit(lambda doc: set_in_document(doc, (*spec.parts, entry), keys))
            return self.resolve(key)
        typed = spec.parse(value) if isinstance(value, str) else spec.coerce(value)
        if spec.kind is Kind.PATH and isinstance(typed, str) and _KEY_LIKE_VALUE.match(typed):
            raise ConfigError(f"{key} takes the path of a file that holds the secret, not the secret itself")
        self._check_value(spec, typed)
        self._edit(lambda doc: _write_value(doc, spec, typed))
        return self.resolve(key)

    def _check_value(self, spec: SettingSpec, typed: SettingValue) -> None:
        """The checks that need more than the value: a file that must exist, a URL for a provider."""
        if spec.must_exist and isinstance(typed, str) and typed:
            path = self._path.parent / Path(typed).expanduser()  # as get_path reads it
            try:
                with path.open("rb"):
                    pass
            except OSError as exc:
                raise ConfigError(
                    f"{spec.key}: cannot read {path}: {exc.strerror or exc}; nothing was saved",
                    hint="give the path of an existing file",
                ) from None
        if spec.key == AI_BASE_URL.key and isinstance(typed, str):
            provider = self.get(AI_PROVIDER)
            problem = base_url_problem(typed, provider)
            if problem is not None:
                example = EXAMPLE_URLS.get(provider, EXAMPLE_URLS["openai"])
                raise ConfigError(
                    f"{spec.key} {typed!r}: {problem}; nothing was saved",
                    hint=f"with ai.provider = {provider}, write it like {example}",
                )

    def unset(self, key: str | Setting[Any]) -> ResolvedSetting:
        """Remove ``key`` from the config file, so its default (or environment value) applies."""
        spec, entry = self._lookup(_key(key))
        parts = spec.parts if entry is None else (*spec.parts, entry)
        self._edit(lambda doc: remove_in_document(doc, parts))
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
            values, problems = self._values_from(read_document(self._path))
            changes = self._swap(replace(self._state, file_values=values, problems=problems, stamp=stamp))
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

    def _lookup(self, key: str) -> tuple[SettingSpec, str | None]:
        """The spec of ``key``, or of the table setting ``key`` is an entry of, with the entry."""
        spec = self._registry.find(key)
        if spec is not None:
            return spec, None
        for table in self._registry.specs():
            if table.kind is Kind.TABLE and key.startswith(table.key + ".") and len(key) > len(table.key) + 1:
                return table, key[len(table.key) + 1 :]
        return self._registry.spec(key), None  # raises, with suggestions

    def _resolve_entry(self, table: SettingSpec, entry: str) -> ResolvedSetting:
        whole = self.resolve(table.key)
        assert isinstance(whole.value, Mapping) and isinstance(table.default, Mapping)
        spec = replace(
            table, key=f"{table.key}.{entry}", label=f"{table.label}: {entry}", kind=Kind.STR,
            default=table.default.get(entry, ""),
        )  # fmt: skip
        if entry not in whole.value:
            return ResolvedSetting(spec, spec.default, Source.DEFAULT)
        return ResolvedSetting(spec, whole.value[entry], whole.source, whole.env_var)

    def _values_from(self, doc: tomlkit.TOMLDocument) -> tuple[dict[str, SettingValue], tuple[str, ...]]:
        raw, unknown = flatten(doc.unwrap(), lambda key: self._registry.find(key) is not None)
        name = self._path.name
        problems = [f"{name}: unknown setting {key} ({self._registry.hint(key)})" for key in unknown]
        values: dict[str, SettingValue] = {}
        for key, value in raw.items():
            try:
                values[key] = self._registry.spec(key).coerce(value)
            except ConfigError as exc:
                problems.append(f"{name}: {exc.message}; the default applies")
        return values, tuple(problems)

    def _edit(self, mutate: Callable[[tomlkit.TOMLDocument], object]) -> None:
        # The file lock makes read-change-write atomic across processes: two processes setting
        # different keys at once both keep their change.
        with self._lock, file_lock(self._path):
            doc = read_document(self._path)
            mutate(doc)
            stamp = write_document(self._path, doc)
            values, problems = self._values_from(doc)
            changes = self._swap(replace(self._state, file_values=values, problems=problems, stamp=stamp))
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


def _key(key: str | Setting[Any]) -> str:
    return key.key if isinstance(key, Setting) else key


def _write_value(doc: tomlkit.TOMLDocument, spec: SettingSpec, value: SettingValue) -> None:
    if isinstance(value, Mapping):  # a whole table is replaced entry by entry, as dotted keys
        remove_in_document(doc, spec.parts)
        for entry, keys in value.items():
            set_in_document(doc, (*spec.parts, entry), keys)
        return
    set_in_document(doc, spec.parts, to_json(value))
