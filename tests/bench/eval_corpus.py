"""Git's manual pages and guides (Debian's ``git-doc``) as notes: the corpus of the search evaluation.

Each page becomes one note whose title is the page's name (``git-reset``, ``gitrevisions``, "Git
User Manual") and whose body is Markdown with the page's headings kept: an HTML ``<h2>`` becomes
``##``, an AsciiDoc ``NAME`` / ``----`` section title or ``== Title`` becomes ``##``. Rendered HTML is
used wherever git-doc ships it, because its AsciiDoc sources are full of ``include::`` and
``ifdef::`` that only the real toolchain resolves; the few documents shipped as AsciiDoc only
(``git-subtree``, some technical notes) are converted from their source. Pages go into notebooks by
kind: ``commands`` (section 1), ``guides`` (sections 5 and 7, the manual, the tutorials),
``howtos`` and ``technical``.

The profile is cached in ``tests/bench/out/eval_profile`` (with a manifest mapping page titles to
note ids) and rebuilt only when the converter changes. The converted Markdown is written beside it
for inspection.

Usage: ``python3 tests/bench/eval_corpus.py [--rebuild]`` (prints where the profile is).
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from html.parser import HTMLParser
from pathlib import Path

from noted.models import ACTOR_IMPORT, NoteDraft
from noted.store.sqlite import SqliteStore

GIT_DOC = Path("/usr/share/doc/git/html")
OUT = Path(__file__).resolve().parent / "out"
PROFILE = OUT / "eval_profile"
CONVERTER_VERSION = 3
"""Bump when the conversion changes, so cached profiles are rebuilt."""

SKIPPED = {"index.html", "howto-index.html", "technical/api-index.html", "technical/api-index-skel.txt"}
"""Tables of contents, not pages: they only list other pages' summaries."""

NOTEBOOKS = ("commands", "guides", "howtos", "technical")


@dataclass(frozen=True, slots=True)
class Page:
    """One converted page: ``key`` is its path under git-doc without extension."""

    key: str
    title: str
    kind: str
    body: str


class GitDocMissing(RuntimeError):
    """git-doc is not installed, so there is no corpus."""


# HTML ------------------------------------------------------------------------------------------

_BLOCKS = {"p", "div", "dl", "dt", "dd", "ul", "ol", "li", "table", "tr", "td", "th", "blockquote", "hr"}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_SKIP_TAGS = {"head", "script", "style", "title"}
_SKIP_IDS = {"footer", "toc", "footer-text", "author", "revnumber", "revdate"}
_SKIP_CLASSES = {"toc", "navheader", "navfooter"}
_SPACE = re.compile(r"\s+")
_VOID = {"br", "hr", "img", "meta", "link", "input", "col", "area", "base", "wbr"}


class _HtmlToMarkdown(HTMLParser):
    """Block-level HTML (AsciiDoc xhtml11 or DocBook) to Markdown paragraphs, headings and code."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self._text: list[str] = []
        self._stack: list[tuple[str, bool, bool]] = []  # (tag, skipping, is the header) per open tag
        self._heading: int | None = None
        self._pre: list[str] | None = None
        self._bullet = ""
        self._term = False
        self._seen_titlepage = False

    @property
    def _skipping(self) -> bool:
        return bool(self._stack) and self._stack[-1][1]

    @property
    def _in_header(self) -> bool:
        return any(header for _, _, header in self._stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            if tag == "br" and not self._skipping:
                self._text.append("\n" if self._pre is not None else " ")
            return
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        skip = (
            self._skipping
            or tag in _SKIP_TAGS
            or a.get("id") in _SKIP_IDS
            or bool(classes & _SKIP_CLASSES)
            or (tag == "h1" and self._in_header)  # the page title: it is the note's title
            or (tag == "div" and "titlepage" in classes and not self._seen_titlepage)  # DocBook book title
        )
        self._stack.append((tag, skip, a.get("id") == "header"))
        self._seen_titlepage |= "titlepage" in classes
        if skip:
            return
        if tag in _HEADINGS:
            self._flush()
            self._heading = _HEADINGS[tag]
        elif tag == "pre":
            self._flush()
            self._pre = []
        elif tag in _BLOCKS:
            self._flush()
            if tag == "li":
                self._bullet = "- "
            elif tag == "dt":
                self._term = True
        elif tag in ("code", "tt") and self._pre is None:
            self._text.append("`")

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        if all(open_tag != tag for open_tag, _, _ in self._stack):
            return  # a stray end tag
        while True:  # tolerate unclosed tags: pop to the matching one
            open_tag, skip, _ = self._stack.pop()
            if open_tag == tag:
                break
        if skip:
            return
        if tag in _HEADINGS and self._heading is not None:
            text = _SPACE.sub(" ", "".join(self._text)).strip().replace("`", "")
            self._text = []
            if text:
                self.blocks.append("#" * self._heading + " " + text)
            self._heading = None
        elif tag == "pre" and self._pre is not None:
            code = "".join(self._pre).replace("\r\n", "\n").strip("\n")
            self._pre = None
            if code.strip():
                fence = "~~~~" if "```" in code else "```"
                self.blocks.append(f"{fence}\n{code}\n{fence}")
        elif tag in _BLOCKS:
            self._flush()
        elif tag in ("code", "tt") and self._pre is None:
            self._text.append("`")

    def handle_data(self, data: str) -> None:
        if self._skipping:
            return
        if self._pre is not None:
            self._pre.append(data)
        else:
            self._text.append(data)

    def _flush(self) -> None:
        text = _SPACE.sub(" ", "".join(self._text)).strip()
        self._text = []
        text = text.replace("``", "").strip()
        if not text or text == "`":
            return
        if self._term:
            text = f"**{text}**"
            self._term = False
        if text[0] in "#>=+" or re.match(r"\d+\. ", text):
            text = "\\" + text  # keep it a paragraph, not a heading, quote or list
        self.blocks.append(self._bullet + text)
        self._bullet = ""

    def markdown(self) -> str:
        self._flush()
        return "\n\n".join(self.blocks).strip() + "\n"


_MANPAGE = re.compile(r"^(\S+)\((\d)\)$")


def _html_title(raw: str, body: str, key: str) -> tuple[str, str | None]:
    """The page's title and man section (None for guides), from ``<title>`` or its first heading."""
    found = re.search(r"<title>(.*?)</title>", raw, re.S | re.I)
    title = html.unescape(_SPACE.sub(" ", found.group(1))).strip() if found else ""
    if not title:
        heading = re.search(r"^#+ (.+)$", body, re.M)
        title = heading.group(1) if heading else key.rsplit("/", 1)[-1].replace("-", " ")
    man = _MANPAGE.match(title)
    return (man.group(1), man.group(2)) if man else (title, None)


def convert_html(path: Path, key: str) -> Page:
    """One rendered HTML page as a note."""
    raw = path.read_text(encoding="utf-8", errors="replace")
    parser = _HtmlToMarkdown()
    parser.feed(raw)
    parser.close()
    body = parser.markdown()
    title, section = _html_title(raw, body, key)
    return Page(key, title, _kind(key, section), body)


# AsciiDoc --------------------------------------------------------------------------------------

_UNDERLINE = {"=": 1, "-": 2, "~": 3, "^": 4, "+": 5}
_ONE_LINE = re.compile(r"^(={1,5}) +(\S.*?)\s*=*$")
_LINKGIT = re.compile(r"linkgit:([\w.-]+)\[(\d)\]")
_DIRECTIVE = re.compile(r"^(include|ifdef|ifndef|endif|ifeval)::")
_ATTRIBUTE = re.compile(r"^\[[^\]]*\]$|^:[\w-]+:")


def _is_underline(line: str, previous: str) -> bool:
    stripped = line.rstrip()
    return (
        len(stripped) >= 2
        and stripped[0] in _UNDERLINE
        and stripped == stripped[0] * len(stripped)
        and bool(previous.strip())
        and abs(len(previous.rstrip()) - len(stripped)) <= 2
    )


def asciidoc_to_markdown(text: str) -> tuple[str, str]:
    """An AsciiDoc document as ``(title, markdown)``; the document title is not kept in the body."""
    lines = text.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    title = ""
    fence: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if fence is not None:
            if line.rstrip() == fence:
                out.append("```")
                fence = None
            else:
                out.append(line)
            i += 1
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        one = _ONE_LINE.match(line)
        if line.strip() and _is_underline(nxt, line):
            level = _UNDERLINE[nxt.strip()[0]]
            if level == 1 and not title and not out:
                title = line.strip()
            else:
                out.append("#" * max(level, 2) + " " + line.strip())
            i += 2
            continue
        if one:
            level = len(one.group(1))
            if level == 1 and not title:
                title = one.group(2)
            else:
                out.append("#" * max(level, 2) + " " + one.group(2))
            i += 1
            continue
        stripped = line.rstrip()
        if re.fullmatch(r"-{4,}|\.{4,}", stripped):
            fence = stripped
            out.append("```")
        elif _DIRECTIVE.match(line) or _ATTRIBUTE.match(line) or line.startswith("//"):
            pass
        elif stripped == "+":
            out.append("")
        else:
            item = re.match(r"^(\S.*?)::\s*$", line)
            out.append(f"**{item.group(1)}**" if item else _LINKGIT.sub(r"\1(\2)", line))
        i += 1
    if fence is not None:
        out.append("```")
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"
    return title, body


def convert_asciidoc(path: Path, key: str) -> Page:
    """One AsciiDoc-only document as a note."""
    title, body = asciidoc_to_markdown(path.read_text(encoding="utf-8", errors="replace"))
    man = _MANPAGE.match(title)
    section = man.group(2) if man else None
    return Page(key, man.group(1) if man else title or key, _kind(key, section), body)


def _is_document(path: Path) -> bool:
    """An AsciiDoc file that is a whole document (a title and its underline), not an include."""
    head = path.read_text(encoding="utf-8", errors="replace").split("\n", 2)[:2]
    return len(head) == 2 and _is_underline(head[1], head[0]) and head[1].strip()[0] == "="


# The corpus ------------------------------------------------------------------------------------


def _kind(key: str, section: str | None) -> str:
    if key.startswith("howto/"):
        return "howtos"
    if key.startswith("technical/"):
        return "technical"
    return "commands" if section == "1" else "guides"


def convert_all(root: Path | None = None) -> list[Page]:
    """Every page of git-doc under ``root`` (default ``GIT_DOC``), converted, in path order.

    Raises:
        GitDocMissing: ``root`` does not hold git-doc's HTML.
    """
    root = root or GIT_DOC
    if not (root / "git.html").is_file():
        raise GitDocMissing(
            f"git-doc is not installed ({root} has no git.html); install it with `apt-get install git-doc`"
        )
    pages: list[Page] = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        key, ext = rel.rsplit(".", 1) if "." in rel else (rel, "")
        if rel in SKIPPED or not path.is_file():
            continue
        if ext == "html":
            pages.append(convert_html(path, key))
        elif ext == "txt" and not path.with_suffix(".html").exists() and _is_document(path):
            pages.append(convert_asciidoc(path, key))
    return [p for p in pages if p.body.strip()]


def build_profile(
    profile: Path,
    pages: list[Page],
    notebooks: tuple[str, ...] = NOTEBOOKS,
    *,
    version: int = CONVERTER_VERSION,
    source: Path = GIT_DOC,
) -> dict[str, object]:
    """A fresh profile at ``profile`` holding ``pages`` (one notebook per kind); returns its manifest."""
    if profile.exists():
        shutil.rmtree(profile)
    profile.mkdir(parents=True)
    (profile / "markdown").mkdir()
    store = SqliteStore.open(profile / "notes.db", profile / "resources")
    try:
        folders = {k: store.create_folder(k, actor=ACTOR_IMPORT).id for k in notebooks}
        notes: list[dict[str, str]] = []
        with store.batch():
            for page in pages:
                draft = NoteDraft(page.title, page.body, parent_id=folders[page.kind], tags=(page.kind,))
                note = store.create_note(draft, actor=ACTOR_IMPORT)
                notes.append({"note_id": note.id, **asdict(page), "body": ""})
                name = page.key.replace("/", "__") + ".md"
                (profile / "markdown" / name).write_text(f"# {page.title}\n\n{page.body}", encoding="utf-8")
    finally:
        store.close()
    for entry in notes:
        del entry["body"]
    return {"version": version, "source": str(source), "notes": notes}


def cached_profile(
    profile: Path, version: int, build: Callable[[], dict[str, object]], *, rebuild: bool
) -> tuple[Path, list[dict[str, str]]]:
    """The profile at ``profile`` and its manifest, made by ``build`` when missing or of another ``version``."""
    manifest_path = profile / "manifest.json"
    if not rebuild and manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("version") == version:
            return profile, list(manifest["notes"])
    manifest = build()
    manifest_path.write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return profile, list(manifest["notes"])  # type: ignore[call-overload]


def ensure_profile(profile: Path = PROFILE, *, rebuild: bool = False) -> tuple[Path, list[dict[str, str]]]:
    """The cached corpus profile and its manifest (one entry a note), built when missing or stale.

    Raises:
        GitDocMissing: git-doc is not installed and there is no usable cache.
    """
    return cached_profile(
        profile, CONVERTER_VERSION, lambda: build_profile(profile, convert_all()), rebuild=rebuild
    )


Ensure = Callable[..., tuple[Path, list[dict[str, str]]]]


def corpus_main(ensure: Ensure, notebooks: tuple[str, ...], description: str) -> int:
    """The command line of a corpus module: convert (``--rebuild``: even if cached) and say what is there."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rebuild", action="store_true", help="convert again even if cached")
    args = parser.parse_args()
    try:
        profile, notes = ensure(rebuild=args.rebuild)
    except GitDocMissing as exc:
        print(f"skipped: {exc}")
        return 0
    kinds = {k: sum(1 for n in notes if n["kind"] == k) for k in notebooks}
    print(f"{len(notes)} notes in {profile} ({', '.join(f'{v} {k}' for k, v in kinds.items())})")
    return 0


def main() -> int:
    return corpus_main(ensure_profile, NOTEBOOKS, __doc__.split("\n\n")[0])


if __name__ == "__main__":
    sys.exit(main())
