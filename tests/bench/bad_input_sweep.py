"""The bad-input table: every bad input and storage fault, run as a real ``noted``.

Not a benchmark: a sweep. For each case it records the exit code, whether stderr was one clean
line (the log notice of a read-only profile aside), whether a traceback showed, and whether
anything was lost or changed (the change feed, notes, notebooks, attachment files, files in an
export folder). Storage faults need root (an immutable flag, a tmpfs).

    PYTHONPATH=src python3 tests/bench/bad_input_sweep.py [--src OTHER/src] [--out table.md]

``--src`` runs another checkout's noted (e.g. the code before a fix) with the same cases.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support.faults import damage, fill, small_disk, state  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "src"


@dataclass
class Outcome:
    case: str
    code: int
    clean: bool
    traceback: bool
    lost: bool
    line: str


class Sweep:
    def __init__(self, src: Path, work: Path) -> None:
        self.src = src
        self.work = work
        self.outcomes: list[Outcome] = []
        self.n = 0

    def run(
        self, profile: Path | None, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        """Run noted (on ``profile`` unless None); a run that hangs for 60 s is stopped, exit -9."""
        where = [] if profile is None else ["--profile", str(profile)]
        command = [sys.executable, "-m", "noted", *where, *args]
        try:
            return subprocess.run(
                command,
                input=stdin or b"",
                capture_output=True,
                cwd=self.work,  # where a relative name (``export -``) would land
                env=dict(os.environ, PYTHONPATH=str(self.src), **(env or {})),
                timeout=60,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            return subprocess.CompletedProcess(
                command, -9, b"", b"(hung: stopped after 60 s)\n" + (exc.stderr or b"")
            )

    def profile(self) -> Path:
        self.n += 1
        root = self.work / f"p{self.n}"
        if self.run(root, "init").returncode != 0:  # a noted from before `noted init`
            self.run(root, "notes")
        return root

    def case(
        self,
        name: str,
        args: list[str],
        *,
        profile: Path | None = None,
        stdin: bytes | None = None,
        expect_ok: bool = False,
        code: int | None = None,
        kept: Callable[[], bool] = lambda: True,
        fault: Callable[[Path], Callable[[], None]] | None = None,
        env: dict[str, str] | None = None,
        raw: bool = False,
        writes: bool = False,
    ) -> None:
        """Run one case; ``raw``: no ``--profile`` (``args`` or ``env`` name it); ``writes``: a
        success that changes the profile by design, so only ``kept`` says whether anything was lost."""
        profile = profile or self.profile()
        before = state(profile)
        undo = fault(profile) if fault else None
        try:
            done = self.run(None if raw else profile, *args, stdin=stdin, env=env)
        finally:
            if undo:
                undo()
        err = done.stderr.decode("utf-8", "backslashreplace")
        lines = [ln for ln in err.splitlines() if "cannot open the log file" not in ln]
        traceback = "Traceback" in err
        # A success may speak, line by line in noted's voice: a warning, or a notice such as
        # "keyword results only: …" beside "no notes match".
        warned = all(ln.startswith("noted: ") for ln in lines)
        clean = (len(lines) == 1 and lines[0].startswith("noted: ")) or (expect_ok and warned)
        # "internal error" (70) is no clean refusal, even in one line.
        clean = clean and not traceback and (done.returncode == 0) == expect_ok and done.returncode != 70
        clean = clean and (code is None or done.returncode == code)  # the README's code, where one is due
        try:
            lost = (not writes and state(profile) != before) or not kept()
        except Exception:  # the profile cannot even be read back
            lost = True
        line = (lines[0] if lines else "(none)")[:150]
        self.outcomes.append(Outcome(name, done.returncode, clean, traceback, lost, line))
        print(f"{done.returncode:>3} {'ok ' if clean else 'BAD'} {name}: {line}", flush=True)


def _chattr(path: Path) -> Callable[[], None]:
    """Make ``path`` immutable (root too is refused); return what undoes it."""
    subprocess.run(["chattr", "+i", str(path)], check=True)

    def undo() -> None:
        subprocess.run(["chattr", "-i", str(path)], check=True)

    return undo


def _vault(root: Path, files: int = 600) -> Path:
    root.mkdir(parents=True)
    (root / "pic.png").write_bytes(b"\x89PNG" + bytes(64))
    (root / "n0001.md").write_text("![p](pic.png)\n", encoding="utf-8")
    for i in range(2, files + 1):
        (root / f"n{i:04}.md").write_text(f"note {i}\n", encoding="utf-8")
    return root


def _imports(s: Sweep) -> None:
    w = s.work
    v = _vault(w / "v-newline")
    (v / "n0550\nbad.md").write_text("x", encoding="utf-8")
    s.case("import: 600 files, a newline in a name past the 500th", ["import", str(v)])
    v = _vault(w / "v-huge", 3)
    (v / "huge.md").write_bytes(b"y" * (50 * 1024 * 1024))
    s.case("import: a 50 MB note", ["import", str(v)])
    v = _vault(w / "v-name", 3)
    (v / os.fsdecode(b"bad\xff.md")).write_text("x", encoding="utf-8")
    s.case("import: a file name that is not UTF-8", ["import", str(v)])
    v = _vault(w / "v-text", 3)
    (v / "latin1.md").write_bytes(b"caf\xe9\n")
    s.case("import: file contents that are not UTF-8", ["import", str(v)])
    v = _vault(w / "v-tag", 3)
    (v / "t.md").write_text('---\ntags: ["a\\nb"]\n---\nx\n', encoding="utf-8")
    s.case("import: a tag with a newline in front matter", ["import", str(v)])
    v = _vault(w / "v-title", 3)
    (v / "t.md").write_text(f"---\ntitle: {'t' * 1001}\n---\nx\n", encoding="utf-8")
    s.case("import: a 1,001-character title", ["import", str(v)])
    v = _vault(w / "v-dir", 3)
    (v / "a\nb").mkdir()
    (v / "a\nb" / "x.md").write_text("x", encoding="utf-8")
    s.case("import: a folder name with a newline", ["import", str(v)])
    v = _vault(w / "v-link", 3)
    (v / "t.md").write_text("![x](../../etc/passwd)\n", encoding="utf-8")
    s.case("import: a link leading outside the folder", ["import", str(v)])


def _exports(s: Sweep) -> None:
    target = s.work / "x-empty-manifest"
    target.mkdir()
    (target / ".noted-export.yml").write_text("", encoding="utf-8")
    (target / "precious.txt").write_text("mine", encoding="utf-8")
    s.case(
        "export: a folder with only an empty manifest and a file",
        ["export", str(target)],
        kept=lambda: (target / "precious.txt").is_file(),
    )
    p = s.profile()
    out = s.work / "x-added"
    s.run(p, "export", str(out))
    (out / "Welcome" / "added.md").write_text("by hand", encoding="utf-8")
    s.case(
        "export: a file added to an earlier export",
        ["export", str(out)],
        profile=p,
        kept=lambda: (out / "Welcome" / "added.md").is_file(),
    )
    start = out / "Welcome" / "Start here.md"
    start.write_text("edited by hand", encoding="utf-8")
    s.case(
        "export: a file changed in an earlier export",
        ["export", str(out)],
        profile=p,
        kept=lambda: start.read_text(encoding="utf-8") == "edited by hand",
    )
    (s.work / "x-foreign").mkdir()
    (s.work / "x-foreign" / "keep.txt").write_text("k", encoding="utf-8")
    s.case(
        "export: a foreign non-empty folder",
        ["export", str(s.work / "x-foreign")],
        kept=lambda: (s.work / "x-foreign" / "keep.txt").is_file(),
    )
    s.case(
        "export -: a folder named - (meant: standard output)",
        ["export", "-"],
        code=2,
        kept=lambda: not (s.work / "-").exists(),
    )
    (s.work / "-").mkdir(exist_ok=True)  # a noted from before made it
    (s.work / "-" / "a.md").write_text("# A\n", encoding="utf-8")
    s.case("import -: a folder named - (meant: standard input)", ["import", "-"], code=2)
    shutil.rmtree(s.work / "-")


def _argv_and_queries(s: Sweep) -> None:
    latin1 = s.work / "latin1.md"
    latin1.write_bytes(b"caf\xe9\n")
    s.case("argv: create $'\\xff\\xfe' --body x", ["create", os.fsdecode(b"\xff\xfe"), "--body", "x"])
    s.case("argv: search $'tag:\\xff'", ["search", os.fsdecode(b"tag:\xff")])
    s.case("argv: --body $'caf\\xe9'", ["create", "T", "--body", os.fsdecode(b"caf\xe9")])
    s.case("stdin: printf '\\xff' | create t -", ["create", "t", "-"], stdin=b"\xff")
    s.case("--body-file that is not UTF-8", ["create", "T", "--body-file", str(latin1)])
    s.case("create: a title with a newline (default notebook is new)", ["create", "a\nb", "--body", "x"])
    s.case("restore: a note not in the trash", ["restore", "Start here"])
    s.case("notebook restore: a notebook not in the trash", ["notebook", "restore", "Welcome"])
    s.case("show: an id that names nothing", ["show", "ffffffffffff"])
    s.case("search: 1,000 notebook: filters", ["search", " ".join(["notebook:x"] * 1000)])
    s.case("search: 150 tag: filters", ["search", "--mode", "keyword", " ".join(["tag:x"] * 150)])
    s.case("search: a 120,000-character word", ["search", "a" * 120_000])
    s.case("search --mode semantic: 120,000 characters", ["search", "--mode", "semantic", "a" * 120_000])
    s.case("search: a 101-character word", ["search", "--mode", "keyword", "a" * 101])


def _config(s: Sweep) -> None:
    """Settings checked against what exists (themes, tools, Textual's keys), exit 2, nothing written."""
    p = s.profile()
    config = p / "config.toml"

    def text() -> bytes | None:
        return config.read_bytes() if config.exists() else None

    for name, key, value in (
        ("an unknown theme", "ui.theme", "noted-drak"),
        ("an unknown tool id", "ai.tool.delete_notes.enabled", "true"),
        ("a key name Textual does not know", "ui.keymap.note.save", "ctrl+sss"),
        ("'?' for Textual's question_mark", "ui.keymap.note.save", "?"),
        ("an unknown binding id", "ui.keymap.note.sav", "ctrl+s"),
        ("a newline in a one-line value", "ai.model", "llama\nrm -rf /"),
        ("an escape sequence in a one-line value", "mcp.host", "127.0.0.1\x1b[2J"),
        ("a value out of range", "mcp.port", "70000"),
        ("a value not among the choices", "ai.provider", "foo"),
        ("an unknown key", "ai.enabeld", "true"),
        ("an empty notebook limit (it would share every notebook)", "mcp.allowedNotebooks", ""),
        ("an empty token file (it would mean no token)", "mcp.tokenFile", ""),
    ):
        s.case(f"config set: {name}", ["config", "set", key, value], profile=p, code=2, kept=_same(text))


def _same(read: Callable[[], bytes | None]) -> Callable[[], bool]:
    """Whether what ``read`` reads later is what it reads now."""
    before = read()
    return lambda: read() == before


def _config_faults(s: Sweep) -> None:
    """``config set`` and ``mcp token add`` on a folder that refuses writes (10) and a full disk (12)."""
    for args in (["config", "set", "ai.enabled", "true"], ["mcp", "token", "add", "claude"]):
        s.case(f"read-only profile folder: {' '.join(args[:2])}", args, fault=lambda p: _chattr(p), code=10)
    with small_disk(s.work / "settings-disk", "3m") as disk:
        if s.run(disk / "p", "init").returncode != 0:  # a noted from before `noted init`
            s.run(disk / "p", "notes")

        def full(_: Path) -> Callable[[], None]:
            return fill(disk).unlink

        for args in (["config", "set", "ai.model", "x" * 5000], ["mcp", "token", "add", "claude"]):
            s.case(f"full disk: {' '.join(args[:2])}", args, profile=disk / "p", fault=full, code=12)


def _edges(s: Sweep) -> None:
    """Issue 34's cases (before its fixes: exit 70, a traceback, a hang, a deleted file or a new profile)."""
    big = "99999999999999999999"
    s.case("notes --limit past 64 bits", ["notes", "--limit", big])
    s.case("search --offset past 64 bits", ["search", "x", "--offset", big])
    s.case("history --show past 64 bits", ["history", "Start here", "--show", big])
    s.case("history --restore past 64 bits", ["history", "Start here", "--restore", big])
    bad = os.fsdecode(os.fsencode(s.work) + b"/prof\xff")
    s.case(
        "NOTED_PROFILE that is not UTF-8",
        ["notes"],
        raw=True,
        env={"NOTED_PROFILE": bad},
        kept=lambda: not os.path.lexists(bad),
    )
    (s.work / "loop-a").symlink_to(s.work / "loop-b")
    (s.work / "loop-b").symlink_to(s.work / "loop-a")
    s.case("an empty --profile (never the default profile)", ["--profile", "", "create", "X"], raw=True)
    s.case("an empty --vault", ["--vault", " ", "notes"])
    s.case("--profile a loop of symbolic links", ["--profile", str(s.work / "loop-a"), "notes"], raw=True)
    typo = s.work / "typo"
    s.case("show in a mistyped --profile", ["--profile", str(typo), "show", "Start here"], raw=True,
           kept=lambda: not typo.exists())  # fmt: skip
    dangling = s.work / "dangling"
    dangling.mkdir()
    (dangling / "notes.db").symlink_to(s.work / "gone" / "notes.db")
    s.case("notes.db a link to nothing", ["--profile", str(dangling), "notes"], raw=True,
           kept=lambda: not (s.work / "gone").exists())  # fmt: skip
    s.case("tui with output to a pipe", ["tui"])
    p = s.profile()
    s.run(p, "trash", "Start here")
    s.case("trash a trashed note", ["trash", "Start here"], profile=p, expect_ok=True)
    s.case("edit a trashed note", ["edit", "Start here", "--append", "x"], profile=p)
    s.case("tag a trashed note", ["tag", "Start here", "t"], profile=p)
    s.case(
        "search: 100 words (hybrid, no index)",
        ["search", " ".join(f"w{i}" for i in range(100))],
        expect_ok=True,
    )
    p = s.profile()
    s.run(p, "create", "🦊" * 100, "--body", "fox")
    s.case("export: a title of 100 emoji", ["export", str(s.work / "x-emoji")], profile=p, expect_ok=True)
    if hasattr(os, "mkfifo"):
        v = _vault(s.work / "v-fifo", 3)
        os.mkfifo(v / "pipe.md")
        os.mkfifo(v / "feed.png")
        (v / "n0002.md").write_text("![f](feed.png)\n", encoding="utf-8")
        s.case(
            "import: named pipes as a note and an attachment",
            ["import", str(v)],
            expect_ok=True,
            writes=True,
            kept=lambda: (v / "pipe.md").exists() and (v / "feed.png").exists(),
        )


def _full_disk_reads(s: Sweep, disk: Path) -> None:
    """A full disk: reading and exporting elsewhere work (before: exit 12)."""
    p = disk / "reads"
    s.run(p, "init")
    if not (p / "notes.db").exists():
        s.run(p, "notes")

    def full(_: Path) -> Callable[[], None]:
        filler = fill(disk, leave=0)
        return filler.unlink

    s.case("full disk: notes (a read)", ["notes"], profile=p, fault=full, expect_ok=True)
    out = s.work / "x-from-full"
    s.case(
        "full disk: export to another disk",
        ["export", str(out)],
        profile=p,
        fault=full,
        expect_ok=True,
        kept=lambda: (out / ".noted-export.yml").is_file(),
    )


def _faults(s: Sweep) -> None:
    def folder(p: Path) -> Callable[[], None]:
        (p / "noted.log").unlink()
        return _chattr(p)

    s.case("read-only profile folder: notes (a read)", ["notes"], fault=folder, expect_ok=True)
    s.case(
        "read-only profile folder: search (a read)",
        ["search", "--mode", "keyword", "welcome"],
        fault=lambda p: _chattr(p),
        expect_ok=True,
    )
    s.case("read-only profile folder: create", ["create", "N", "--body", "x"], fault=lambda p: _chattr(p))
    s.case(
        "read-only notes.db: notes (a read)",
        ["notes"],
        fault=lambda p: _chattr(p / "notes.db"),
        expect_ok=True,
    )
    s.case(
        "read-only notes.db: create", ["create", "N", "--body", "x"], fault=lambda p: _chattr(p / "notes.db")
    )
    s.case("read-only notes.db: trash", ["trash", "Start here"], fault=lambda p: _chattr(p / "notes.db"))

    def log_dir(p: Path) -> Callable[[], None]:
        (p / "noted.log").unlink()
        (p / "noted.log").mkdir()
        return lambda: None

    s.case("noted.log cannot be opened: notes", ["notes"], fault=log_dir, expect_ok=True)
    _uncreatable_profile(s)
    _config_faults(s)
    disk = s.work / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], check=True)
    try:
        p = disk / "p"
        if s.run(p, "init").returncode != 0:
            s.run(p, "notes")
        big = s.work / "big.md"
        big.write_text("word " * 300_000, encoding="utf-8")

        def full(_: Path) -> Callable[[], None]:
            filler = fill(disk, leave=200_000)
            return filler.unlink

        s.case(
            "full disk: create a 1.5 MB note",
            ["create", "Big", "--body-file", str(big)],
            profile=p,
            fault=full,
        )
        v = _vault(s.work / "v-full", 400)
        for f in v.glob("n*.md"):
            f.write_text("text " * 1000, encoding="utf-8")

        def nearly(_: Path) -> Callable[[], None]:
            filler = fill(disk, leave=1_200_000)
            return filler.unlink

        s.case("full disk: import half-way", ["import", str(v)], profile=p, fault=nearly)
        _full_disk_reads(s, disk)
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
    p = s.profile()
    damage(p / "notes.db")
    for args in (["notes"], ["search", "--mode", "keyword", "welcome"], ["create", "X", "--body", "y"]):
        _damaged_case(s, p, args)
    p = s.profile()
    (p / "notes.db").write_bytes(b"not a database " * 300)
    _damaged_case(s, p, ["notes"], name="not a SQLite file: notes")


def _uncreatable_profile(s: Sweep) -> None:
    """A new profile in a folder that cannot be written: refused, nothing made."""
    locked = s.work / "locked"
    locked.mkdir()
    undo = _chattr(locked)
    try:
        done = s.run(locked / "profile", "notes")
    finally:
        undo()
    err = done.stderr.decode("utf-8", "backslashreplace")
    lines = err.splitlines()
    clean = len(lines) == 1 and lines[0].startswith("noted: ") and done.returncode not in (0, 70)
    lost = (locked / "profile").exists()
    line = (lines[0] if lines else "(none)")[:150]
    s.outcomes.append(
        Outcome(
            "a new profile in a folder that cannot be written",
            done.returncode,
            clean,
            "Traceback" in err,
            lost,
            line,
        )
    )
    print(f"{done.returncode:>3} {'ok ' if clean else 'BAD'} new profile, locked folder: {line}", flush=True)


def _damaged_case(s: Sweep, p: Path, args: list[str], name: str | None = None) -> None:
    """A damaged profile cannot be read back, so "lost" means: the file changed."""
    data = (p / "notes.db").read_bytes()
    done = s.run(p, *args)
    err = done.stderr.decode("utf-8", "backslashreplace")
    lines = err.splitlines()
    clean = (
        len(lines) == 1
        and lines[0].startswith("noted: ")
        and "Traceback" not in err
        and done.returncode not in (0, 70)
    )
    lost = (p / "notes.db").read_bytes() != data
    label = name or f"damaged page: {' '.join(args)}"
    line = (lines[0] if lines else "(none)")[:150]
    s.outcomes.append(Outcome(label, done.returncode, bool(clean), "Traceback" in err, lost, line))
    print(f"{done.returncode:>3} {'ok ' if clean else 'BAD'} {label}: {line}", flush=True)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'")


def table(outcomes: list[Outcome], title: str) -> str:
    rows = [
        f"| {_cell(o.case)} | {o.code} | {'yes' if o.clean else 'NO'} | {'YES' if o.traceback else 'no'} | "
        f"{'YES' if o.lost else 'no'} | {_cell(o.line)} |"
        for o in outcomes
    ]
    clean = sum(o.clean for o in outcomes)
    tracebacks = sum(o.traceback for o in outcomes)
    lost = sum(o.lost for o in outcomes)
    return "\n".join(
        [
            f"### {title}",
            "",
            f"Inputs tried: {len(outcomes)} · clean (one line, right exit code): {clean} · "
            f"tracebacks: {tracebacks} · data lost or changed: {lost}",
            "",
            "| input | exit | clean | traceback | lost | what noted said (first line) |",
            "|---|---|---|---|---|---|",
            *rows,
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", type=Path, default=SRC)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--title", default="noted")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        sweep = Sweep(args.src.resolve(), Path(work))
        _argv_and_queries(sweep)
        _imports(sweep)
        _exports(sweep)
        _config(sweep)
        _edges(sweep)
        if os.geteuid() == 0:
            _faults(sweep)
        text = table(sweep.outcomes, args.title)
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
