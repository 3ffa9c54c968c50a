"""``noted import DIR`` and ``noted export DIR``: a folder of Markdown files in, or out."""

from __future__ import annotations

import argparse
import sys

from noted.cli.args import Commands, folder_given
from noted.cli.context import CliContext
from noted.cli.exits import ExitCode
from noted.cli.progress import LazyProgress
from noted.store.transfer import ImportReport, export_markdown, import_markdown
from noted.store.transfer.checks import shown
from noted.wording import plural


def register(sub: Commands) -> None:
    """Add ``import`` and ``export``."""
    p = sub.add(
        "import",
        cmd_import,
        "Import a folder of Markdown files: folders become notebooks, files notes, linked files attachments. "
        "Importing the same folder again updates changed notes and duplicates nothing.",
    )
    p.add_argument("dir", metavar="DIR", help="the folder to import")
    p = sub.add(
        "export",
        cmd_export,
        "Export every notebook and note (not the trash) as Markdown files with YAML front matter, "
        "attachments in _resources/. DIR must be new, empty, or a previous export holding only the "
        "files noted wrote there, unchanged (it is replaced); anything else there is listed and kept.",
    )
    p.add_argument("dir", metavar="DIR", help="the folder to write")
    p.add_argument(
        "--force",
        action="store_true",
        help="replace a previous export even if it holds files noted did not write or that changed "
        "(they are deleted, and listed)",
    )


def cmd_import(args: argparse.Namespace, ctx: CliContext) -> int:
    source = folder_given(args.dir, "the folder to import")
    with LazyProgress(enabled=sys.stderr.isatty() and not ctx.json) as progress:
        report = import_markdown(ctx.services.store, source, progress=progress)
    if ctx.json:
        ctx.emit(
            {
                "source": str(report.source),
                "notebooks_created": report.notebooks_created,
                "notes_created": report.notes_created,
                "notes_updated": report.notes_updated,
                "notes_unchanged": report.notes_unchanged,
                "notes_kept": report.notes_kept,
                "conflict_copies": report.conflict_copies,
                "notes_trashed": report.notes_trashed,
                "resources_added": report.resources_added,
                "warnings": list(report.warnings),
            }
        )
        return 0
    for warning in report.warnings:
        ctx.error(f"warning: {warning}")
    ctx.out(
        f"imported {report.source}: {plural(report.notes_created, 'note')} created, {report.notes_updated:,} "
        f"updated, {report.notes_unchanged:,} unchanged{_also(report)}; "
        f"{plural(report.notebooks_created, 'notebook')} and {plural(report.resources_added, 'attachment')} added"
    )
    return 0


def _also(report: ImportReport) -> str:
    """The summary's words for the notes an import did not simply create, update or leave."""
    parts = []
    if report.notes_kept:
        parts.append(
            f"{report.notes_kept:,} kept as edited in noted (their files unchanged since the last import)"
        )
    if report.conflict_copies:
        copies = "conflict copy" if report.conflict_copies == 1 else "conflict copies"
        parts.append(
            f"{report.conflict_copies:,} {copies} made (file and note both changed since the last import)"
        )
    if report.notes_trashed:
        parts.append(f"{report.notes_trashed:,} skipped (in the trash)")
    return "".join(f", {p}" for p in parts)


def cmd_export(args: argparse.Namespace, ctx: CliContext) -> int:
    target = folder_given(args.dir, "the folder to export to")
    services = ctx.services
    report = export_markdown(
        services.store,
        target,
        force=args.force,
        keep_out=[(services.profile.root, "the profile folder")],
    )
    if ctx.json:
        ctx.emit(
            {
                "target": str(report.target),
                "notebooks": report.notebooks,
                "notes": report.notes,
                "resources": report.resources,
                "removed": [{"path": u.path, "changed": u.changed} for u in report.removed],
                "kept": list(report.kept),
                "encrypted": report.encrypted,
                "missing": list(report.missing),
            }
        )
        return ExitCode.EXPORT_INCOMPLETE if report.missing else 0
    for gone in report.removed:
        what = "changed since the last export" if gone.changed else "not written by noted"
        ctx.error(f"--force: deleted {shown(gone.path)} ({what})")
    for folder in report.kept:
        ctx.error(
            f"warning: {shown(folder)} holds files noted did not write that the new export has in their place"
        )
    if report.encrypted:
        ctx.error(
            f"warning: left out {plural(report.encrypted, 'note')} that Joplin holds encrypted and has not "
            "decrypted yet (give Joplin the master password, let it decrypt, then export again)"
        )
    for line in report.missing:
        ctx.error(f"warning: left out {line}")
    ctx.out(
        f"exported {plural(report.notes, 'note')} in {plural(report.notebooks, 'notebook')} and "
        f"{plural(report.resources, 'attachment')} to {report.target}"
        + (
            f"; {plural(len(report.missing), 'attachment')} left out, its file missing"
            if report.missing
            else ""
        )
    )
    return ExitCode.EXPORT_INCOMPLETE if report.missing else 0
