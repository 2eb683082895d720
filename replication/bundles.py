"""A study's replication bundle: every part of `replication.parts.PARTS`, with its manifest, as one zip."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils import timezone
from django.utils.text import slugify

from replication.archive import write_bundle
from replication.parts import PARTS, Part, Source
from studies.models import Participant, Study

#: an identity string shorter than this is not searched for (a short token such as "p1" would
#: match ordinary text); Prolific's IDs are 24 characters
MIN_IDENTITY_CHARS = 8
WITHHELD = "[withheld]"


@dataclass(frozen=True)
class BundleFile:
    content: bytes
    filename: str


def identity_strings(study: Study) -> set[str]:
    """The study's participants' Prolific IDs, study ids and session ids, the changed sessions' too."""
    found: set[str] = set()
    for pid, prolific_study, session, changes in Participant.objects.filter(study=study).values_list(
        *Participant.IDENTITY_FIELDS
    ):
        found |= {pid, prolific_study, session}
        for change in changes or []:
            found |= {str(value) for value in (change or {}).values() if isinstance(value, str)}
    return {value for value in found if len(value) >= MIN_IDENTITY_CHARS}


def withhold(content: bytes, identities: set[str]) -> bytes:
    """`content` with every identity string replaced: no part reads one, and a participant who typed
    their ID into an answer does not put it in the bundle either."""
    if not identities:
        return content
    pattern = re.compile(b"|".join(re.escape(value.encode()) for value in sorted(identities, key=len, reverse=True)))
    return pattern.sub(WITHHELD.encode(), content)


def bundle_files(study: Study, parts: list[Part] | None = None) -> dict[str, bytes]:
    """Each part's file (path -> bytes); parts with nothing for this study are left out."""
    source = Source(study)
    identities = identity_strings(study)
    files = {}
    for part in PARTS if parts is None else parts:
        content = part.build(source)
        if content is not None:
            files[part.path] = withhold(content, identities)
    return files


def study_bundle(study: Study) -> BundleFile:
    created = timezone.now()
    about = {"study": study.name, "benchmark": study.benchmark, "created_at": created.isoformat()}
    content = write_bundle(bundle_files(study), about, created=created)
    return BundleFile(content, f"{slugify(study.name) or 'study'}-replication.zip")
