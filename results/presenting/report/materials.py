"""What the report prints of a study beyond its results tree: the texts its participants read (its
instructions and consent, verbatim), an image of its item page, and for an imported study what the
researcher entered of the original paper (`Study.original_study`). Read from the study when the
report is written, so a text edited after the results were computed is the one printed."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from results.computing.checklist.answering import NOT_KNOWN, VERDICTS, where
from results.loading.item_example import ItemExample, load_item_example
from studies.models import Study

#: the image of the item page a report shows: a PNG of this name beside the report's file
#: (`manage.py study_screenshot` writes it; LaTeX includes it where it is found when compiling)
SCREENSHOT = "interface.png"


@dataclass(frozen=True)
class Entered:
    """A field of the original study as the researcher entered it from the original paper."""

    text: str
    page: str

    @property
    def said(self) -> str:
        """The text without a leading answer in the checklist's vocabulary ("Yes: £15 an hour" →
        "£15 an hour"): a methods sentence states the fact, not the checklist's verdict."""
        word = next((word for word in VERDICTS if self.text.startswith(word + ":")), None)
        return self.text[len(word) + 1 :].strip() if word else self.text

    @property
    def source(self) -> str:
        return f"entered by the researcher ({where(self.page)})"


@dataclass(frozen=True)
class Materials:
    """The study's own texts and image for the report; `imported`: its human answers were imported,
    so its participants never saw Parity's texts or pages and only `original` describes them."""

    imported: bool = False
    instructions: str = ""
    consent: str = ""
    #: the original study's fields (materials, pay, exclusions, attrition) as entered
    original: dict[str, Entered] = field(default_factory=dict)
    #: the item page's image beside the report ("" where none was captured)
    screenshot: str = ""
    #: one item as a person saw it and as the model was sent it (items that carry a model's context)
    example: ItemExample | None = None


def study_materials(study: Study, beside: Path | None = None) -> Materials:
    """The study's materials; `beside`: the folder the report is written to, where a screenshot
    (`SCREENSHOT`) may already lie."""
    shot = "" if beside is None or not (beside / SCREENSHOT).is_file() else SCREENSHOT
    return Materials(
        imported=study.is_imported,
        instructions=study.instructions_text,
        consent=study.consent_text,
        original={
            name: Entered(text=said["text"], page=said["page"]) for name, said in (study.original_study or {}).items()
        },
        screenshot=shot,
        example=None if study.is_imported else load_item_example(study),
    )


def original_sentence(materials: Materials | None, field_name: str, subject: str) -> str:
    """ "The original study's pay, entered by the researcher (Appendix E): £15 an hour.", or that it is
    not known for the original study where the researcher entered nothing."""
    said = (materials.original if materials is not None else {}).get(field_name)
    if said is None:
        return f"{subject[0].upper()}{subject[1:]}: {NOT_KNOWN} (not entered from the original paper). "
    text = said.said.rstrip()
    return f"{subject[0].upper()}{subject[1:]}, {said.source}: {text}{'' if text.endswith('.') else '.'} "


@dataclass(frozen=True)
class Shown:
    """A subsection of the report's appendix: its heading, the sentence that says what follows (or
    why nothing does), and the text as the participants read it ("" where it is not known)."""

    heading: str
    said: str
    verbatim: str = ""


def appendix(materials: Materials) -> list[Shown]:
    """The instructions and the consent form, verbatim, and the interface's sentence: a native
    study's own texts; for an imported study what the researcher entered of the original's, or that
    it is not known (its people never read Parity's texts)."""
    if materials.imported:
        said = materials.original.get("materials")
        instructions = (
            Shown("Instructions", f"The original study's instructions and interface, {said.source}:", said.text)
            if said
            else Shown(
                "Instructions",
                "The original study's instructions are not known: the researcher has not entered them from the "
                "original paper, and its participants never read Parity's.",
            )
        )
        return [
            Shown("Consent", "The original study's consent form is not known; its participants never read Parity's."),
            instructions,
            Shown("Interface", "No screenshot: the original study's participants did not answer on Parity."),
        ]
    return [
        Shown("Consent", "The consent form participants read first, verbatim:", materials.consent),
        Shown("Instructions", "The instructions participants read before the items, verbatim:", materials.instructions),
        Shown("Interface", SHOT_SAID if materials.screenshot else NO_SHOT),
        *item_beside_prompt(materials.example),
    ]


def item_beside_prompt(example: ItemExample | None) -> list[Shown]:
    """An item's page text and options, then the prompt the model was sent for the same item."""
    if example is None:
        return []
    page = example.text + ("\n\n" + "\n".join(example.options) if example.options else "")
    if example.inspect_version:
        built = f"as Inspect {example.inspect_version} sent it to the model (the task's own solvers built it)"
    elif example.lm_eval_task:
        built = f"as lm-evaluation-harness's task {example.lm_eval_task} builds the model's context"
    else:
        built = "as Parity sends it to a model it runs"
    return [
        Shown("An item as a person saw it", f"Item {example.key}: the text and options on its page, verbatim:", page),
        Shown(
            "The same item as the model was sent it", f"Item {example.key}, {built}, verbatim:", example.model_context
        ),
    ]


#: the interface's sentences, with and without its image
SHOT_SAID = "An item page as participants saw it."
NO_SHOT = f"No screenshot of the item page accompanies this report (manage.py study_screenshot writes {SCREENSHOT})."
