"""Writes about items: importing benchmarks and their published files."""

from __future__ import annotations

import shutil
import tempfile
import urllib.request
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count

from annotation.models import BenchmarkAsset, Item, ItemSet
from annotation.selectors import item_data
from parity import benchmarks
from parity.benchmarks.base import DatasetError, ImportBundle, sha256_of

if TYPE_CHECKING:
    from parity.benchmarks.from_inspect.tasks import InspectTask

#: the benchmark of named item sets an Inspect task's samples become one set of
INSPECT_ITEM_SETS = "custom"


@dataclass(frozen=True)
class ImportResult:
    benchmark: str
    created: int
    updated: int  # text, gold or split changed (never of an item with answers)
    unchanged: int
    assets: int
    splits: dict[str, int]
    relabelled: int = 0  # only the item's details changed (its row number, its type label)


class AnsweredItemsChanged(DatasetError):
    """The import would change what items with stored answers ask or count as right; nothing was written."""

    def __init__(self, benchmark: str, changes: list[str]) -> None:
        listed = "; ".join(changes[:20]) + (f"; and {len(changes) - 20} more" if len(changes) > 20 else "")
        super().__init__(
            benchmark,
            f"{len(changes)} item(s) that already have answers would change, which would "
            f"change the meaning of those answers: {listed}. Import the corrected data "
            "as a new benchmark version or remove the studies first.",
        )
        self.changes = changes


class FrozenItemsChanged(DatasetError):
    """The import would change items that a launched study's preregistration froze; nothing was written."""

    def __init__(self, benchmark: str, changes: list[str]) -> None:
        listed = "; ".join(changes[:20]) + (f"; and {len(changes) - 20} more" if len(changes) > 20 else "")
        super().__init__(
            benchmark,
            f"{len(changes)} item(s) of a launched study would change, whose plan froze them at launch: "
            f"{listed}. Import the corrected items under another name and duplicate the study onto them.",
        )
        self.changes = changes


#: what an item asks and what counts as right; changing them under stored answers rewrites those answers
_ANSWER_DEFINING = ("split", "prompt", "gold", "is_attention_check")


def benchmark_sources_fetch(*, name: str, dest: Path) -> Path:
    """Download a benchmark's published files from their pinned URLs and check each sha256."""
    definition = benchmarks.get(name)
    for source in definition.source_files():
        target = dest / source.path
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() and sha256_of(target) == source.sha256:
            continue
        with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as handle:
            partial = Path(handle.name)
            try:
                with urllib.request.urlopen(source.url, timeout=60) as response:
                    shutil.copyfileobj(response, handle)
            except OSError as exc:
                partial.unlink(missing_ok=True)
                raise DatasetError(source.path, f"download from {source.url} failed ({exc})") from exc
        digest = sha256_of(partial)
        if digest != source.sha256:
            partial.unlink(missing_ok=True)
            raise DatasetError(source.path, f"sha256 {digest} does not match the pinned {source.sha256}")
        partial.replace(target)
    return dest


def benchmark_sources_verify(*, name: str, source: Path) -> list[str]:
    """Compare local files with the pinned checksums; returns one warning per mismatch."""
    warnings = []
    for spec in benchmarks.get(name).source_files():
        path = source / spec.path
        if path.exists() and sha256_of(path) != spec.sha256:
            warnings.append(f"{spec.path}: sha256 differs from the published file")
    return warnings


def benchmark_import(
    *, name: str, source: Path | None, options: Mapping[str, Any] | None = None, importer: Any = None, owner: Any = None
) -> ImportResult:
    """Parse everything first (refusing bad files), then write in one transaction: all or nothing.

    Idempotent: items are matched by (benchmark, key); a re-import of the same files changes nothing.
    For a benchmark of named sets, options["name"] is the set: `importer` (a user; None on the
    command line) must own it, and a new set is `owner`'s (default: the importer's).
    """
    definition = benchmarks.get(name)
    bundle: ImportBundle = definition.load(source or Path("."), _with_prerequisites(definition, options))
    checks = definition.attention_checks()
    return _write_bundle(
        name,
        ImportBundle(items=list(bundle.items) + checks, assets=list(bundle.assets)),
        claim=_claim(definition, options, importer, owner),
    )


@dataclass(frozen=True)
class InspectImportResult:
    result: ImportResult
    #: the item set's name
    name: str
    task: InspectTask


def inspect_task_import(
    *,
    spec: str,
    arguments: Sequence[str] = (),
    name: str = "",
    limit: int | None = None,
    importer: Any = None,
    owner: Any = None,
) -> InspectImportResult:
    """An Inspect task's samples (read through Inspect: `parity.benchmarks.from_inspect.tasks`) as the
    item set `name` (default: the task's name) of the custom benchmark, written like any records
    import: all or nothing, idempotent. `arguments`: the task's, `name=value` as `inspect eval -T`
    takes them. Raises DatasetError naming the task and the reason."""
    from parity.benchmarks.custom.records import slug
    from parity.benchmarks.from_inspect.tasks import read_task, task_arguments

    task = read_task(spec, task_arguments(arguments), limit=limit)
    name = name or slug(task.name, "inspect")
    result = benchmark_records_import(
        name=INSPECT_ITEM_SETS,
        records=task.records,
        options={"name": name, "label": spec},
        importer=importer,
        owner=owner,
    )
    return InspectImportResult(result=result, name=name, task=task)


def item_set_import(*, benchmark: str, name: str, upload: IO[bytes], filename: str, importer: Any) -> ImportResult:
    """A researcher's uploaded file of items (CSV or JSONL, by its name's suffix) as the item set
    `name`: read and written exactly like `import_benchmark BENCHMARK --source FILE --name NAME`,
    all or nothing; errors name the uploaded file, the line and the field. A new set is the
    importer's; another researcher's set is refused."""
    label = Path(filename).name or "upload"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"upload{Path(label).suffix.lower()}"
        with path.open("wb") as handle:
            shutil.copyfileobj(upload, handle)
        return benchmark_import(name=benchmark, source=path, options={"name": name, "label": label}, importer=importer)


def benchmark_records_import(
    *,
    name: str,
    records: Sequence[Mapping[str, Any]],
    options: Mapping[str, Any] | None = None,
    importer: Any = None,
    owner: Any = None,
) -> ImportResult:
    """Items from records in memory (e.g. a model run's answers), checked and written like an import."""
    definition = benchmarks.get(name)
    bundle = definition.load_records(records, _with_prerequisites(definition, options))
    return _write_bundle(name, bundle, claim=_claim(definition, options, importer, owner))


@dataclass(frozen=True)
class _Claim:
    name: str
    importer: Any
    owner: Any


def _claim(
    definition: benchmarks.Benchmark, options: Mapping[str, Any] | None, importer: Any, owner: Any
) -> _Claim | None:
    if not definition.named_sets:
        return None
    return _Claim(name=str((options or {}).get("name") or ""), importer=importer, owner=owner or importer)


def _item_set_claim(benchmark: str, claim: _Claim) -> None:
    """The set `claim.name`, made `claim.owner`'s when it is new (locked till the import ends);
    refused when the importer is a researcher and the set is not theirs."""
    found, created = ItemSet.objects.select_for_update().get_or_create(
        benchmark=benchmark, name=claim.name, defaults={"owner": claim.owner}
    )
    if created or claim.importer is None or claim.importer.is_superuser or found.owner_id == claim.importer.pk:
        return
    raise DatasetError(
        claim.name, f"the name {claim.name!r} is not free for you to import into; import your items under another name"
    )


def rating_items_from_answers(answers: list[dict[str, str]]) -> ImportResult:
    """MiQA generative answers ({"question_id", "model", "answer"} each) become items to rate.

    Idempotent: an answer already imported (same question and model, same text) is unchanged.
    Raises DatasetError naming the record when one is malformed or its question is unknown.
    """
    return benchmark_records_import(name="miqa_rating", records=answers)


def _with_prerequisites(definition: benchmarks.Benchmark, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The options, plus the site's limit on a model's context and the imported items of the
    benchmarks `definition` builds on."""
    merged = {"max_context_chars": settings.MAX_MODEL_CONTEXT_CHARS, **(options or {})}
    if definition.builds_on:
        merged["items"] = {
            other: [item_data(item) for item in Item.objects.filter(benchmark=other).order_by("key")]
            for other in definition.builds_on
        }
    return merged


def _refuse_repeated_keys(name: str, bundle: ImportBundle) -> None:
    counts = Counter(data.key for data in bundle.items)
    repeated = sorted(key for key, count in counts.items() if count > 1)
    if repeated:
        raise DatasetError(name, f"{len(repeated)} item key(s) occur more than once: {', '.join(repeated[:20])}")


def _answered_changes(items: list[tuple[Item, list[str]]]) -> list[str]:
    """'KEY (gold 'yes' -> 'no'; 3 human and 0 model answers)' for each changed item that has answers."""
    if not items:
        return []
    counted = {
        item.pk: item
        for item in Item.objects.filter(pk__in=[item.pk for item, _ in items]).annotate(
            humans=Count("responses", distinct=True), models=Count("model_responses", distinct=True)
        )
    }
    changes = []
    for item, fields in items:
        counts = counted[item.pk]
        if counts.humans or counts.models:
            changes.append(f"{item.key} ({', '.join(fields)}; {counts.humans} human and {counts.models} model answers)")
    return changes


#: (benchmark, changed items, the pks of those among them that were or are attention checks) -> for
#: the items an upper app holds fixed, why (item pk -> names of what holds it). Apps above register
#: theirs in `AppConfig.ready()` (`studies`: the items a launched study's frozen plan covers);
#: annotation never imports them.
ItemGuard = Callable[[str, list[Item], set[int]], dict[int, list[str]]]
ITEM_GUARDS: list[ItemGuard] = []


def register_item_guard(guard: ItemGuard) -> None:
    if guard not in ITEM_GUARDS:
        ITEM_GUARDS.append(guard)


def _frozen_changes(benchmark: str, items: list[tuple[Item, list[str]]], attention: set[int]) -> list[str]:
    """'KEY (gold 'yes' -> 'no'; held by 'S')' for each changed item a registered guard holds fixed,
    answered or not (a launched study's plan froze its items' hash)."""
    if not items:
        return []
    held: dict[int, set[str]] = {}
    for guard in ITEM_GUARDS:
        for pk, names in guard(benchmark, [item for item, _ in items], attention).items():
            held.setdefault(pk, set()).update(names)
    return [
        f"{item.key} ({', '.join(fields)}; in the launched study {', '.join(map(repr, sorted(held[item.pk])))})"
        for item, fields in items
        if item.pk in held
    ]


def _describe_change(field: str, old: Any, new: Any) -> str:
    if field == "prompt":
        return "text changed"
    return f"{field} {old!r} -> {new!r}"


@transaction.atomic
def _write_bundle(name: str, bundle: ImportBundle, claim: _Claim | None = None) -> ImportResult:
    """Items are matched by key, which each benchmark derives from the source's own id or from the
    item's content, never from its row. An item's details (meta) may be refreshed freely; its text,
    its gold and the meta its benchmark declares answer-defining may change only while nobody, human
    or model, has answered it, and no launched study holds it (its preregistration froze it)."""
    if claim is not None:
        _item_set_claim(name, claim)
    _refuse_repeated_keys(name, bundle)
    defining_meta = benchmarks.get(name).answer_defining_meta
    existing = {item.key: item for item in Item.objects.filter(benchmark=name)}
    created: list[Item] = []
    changed_items: list[tuple[Item, list[str]]] = []
    defining: list[tuple[Item, list[str]]] = []  # changes of what the item asks or counts as right
    attention: set[int] = set()  # of those, the items that were or are attention checks
    unchanged = 0
    for data in bundle.items:
        fields: dict[str, Any] = {
            "split": data.split,
            "prompt": dict(data.prompt),
            "gold": data.gold,
            "meta": dict(data.meta),
            "is_attention_check": data.is_attention_check,
        }
        item = existing.get(data.key)
        if item is None:
            created.append(Item(benchmark=name, key=data.key, **fields))
            continue
        changed = [field for field, value in fields.items() if getattr(item, field) != value]
        if not changed:
            unchanged += 1
            continue
        described = [
            _describe_change(field, getattr(item, field), fields[field])
            for field in changed
            if field in _ANSWER_DEFINING
        ]
        meta_keys = [key for key in defining_meta if item.meta.get(key) != fields["meta"].get(key)]
        if meta_keys:
            described.append(f"{', '.join(meta_keys)} changed")
        if described:
            defining.append((item, described))
            if item.is_attention_check or data.is_attention_check:
                attention.add(item.pk)
        for field in changed:
            setattr(item, field, fields[field])
        changed_items.append((item, changed))
    refused = _answered_changes(defining)
    if refused:
        raise AnsweredItemsChanged(name, refused)
    frozen = _frozen_changes(name, defining, attention)
    if frozen:
        raise FrozenItemsChanged(name, frozen)
    for item, changed in changed_items:
        item.save(update_fields=changed)
    Item.objects.bulk_create(created, batch_size=500)
    for asset in bundle.assets:
        BenchmarkAsset.objects.update_or_create(benchmark=name, key=asset.key, defaults={"data": asset.data})
    return ImportResult(
        benchmark=name,
        created=len(created),
        updated=len(defining),
        unchanged=unchanged,
        assets=len(bundle.assets),
        splits=bundle.summary(),
        relabelled=len(changed_items) - len(defining),
    )
