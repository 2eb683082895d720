"""A study's replication bundle: every part of `replication.parts.PARTS`, with its manifest, as one zip;
every identity string withheld from every part (`studies.participants.withholding`)."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone
from django.utils.text import slugify

from replication.archive import write_bundle
from replication.parts import PARTS, Part, Source
from studies.models import Study
from studies.participants.withholding import study_withholder


@dataclass(frozen=True)
class BundleFile:
    content: bytes
    filename: str


def bundle_files(study: Study, parts: list[Part] | None = None) -> dict[str, bytes]:
    """Each part's file (path -> bytes); parts with nothing for this study are left out."""
    source = Source(study)
    withholder = study_withholder(study)
    files = {}
    for part in PARTS if parts is None else parts:
        content = part.build(source)
        if content is not None:
            files[part.path] = withholder.content(content)
    return files


def study_bundle(study: Study) -> BundleFile:
    created = timezone.now()
    about = {"study": study.name, "benchmark": study.benchmark, "created_at": created.isoformat()}
    content = write_bundle(bundle_files(study), about, created=created)
    return BundleFile(content, f"{slugify(study.name) or 'study'}-replication.zip")
