"""What Prolific's documentation says the stand-in (tests/prolific/standin.py) must hold to, with the
page that says so beside each rule: the values a study takes, its transitions, a page of
submissions, a bulk approval's size, the webhook events, and the prescreening filters and their
choices."""

from __future__ import annotations

PLACEHOLDERS = ("{{%PROLIFIC_PID%}}", "{{%STUDY_ID%}}", "{{%SESSION_ID%}}")
CODE_TYPES = {"COMPLETED", "FAILED_ATTENTION_CHECK", "FIXED_SCREENOUT", "NO_CONSENT", "OTHER", "GIVE_BONUS"}
REJECTION_CATEGORIES = {
    "TOO_QUICKLY",
    "TOO_SLOWLY",
    "FAILED_INSTRUCTIONS",
    "INCOMP_LONGITUDINAL",
    "FAILED_CHECK",
    "LOW_EFFORT",
    "MALINGERING",
    "NO_CODE",
    "BAD_CODE",
    "NO_DATA",
    "UNSUPP_DEVICE",
    "OTHER",
}
STUDY_TRANSITIONS = {
    "PUBLISH": ({"UNPUBLISHED"}, "ACTIVE"),
    "PAUSE": ({"ACTIVE"}, "PAUSED"),
    "START": ({"PAUSED"}, "ACTIVE"),
    "STOP": ({"ACTIVE", "PAUSED"}, "AWAITING REVIEW"),
}


#: a page of submissions when no `limit` is asked for: "Default page_size is 20"
#: (https://docs.prolific.com/api-reference/submissions/get-submissions)
DEFAULT_PAGE = 20
#: ids one bulk approval takes: "send them in sequential batches" of at most this many
#: (https://docs.prolific.com/documentation/core-concepts/managing-high-loads)
BULK_APPROVE_MAX = 1000
#: the events one can subscribe to (https://docs.prolific.com/api-reference/webhooks/receiving)
EVENT_TYPES = ("submission.status.change", "study.status.change")


#: Prolific's prescreening filters as `GET /api/v1/filters/` lists them
#: (https://docs.prolific.com/api-reference/filters/get-filters: `filter_id`, `type`, `data_type` and a
#: select filter's `choices`, choice id: label). The stand-in's own few choices for the filters Parity
#: sets, not Prolific's full lists: Parity reads those from Prolific.
FILTERS: list[dict] = [
    {"filter_id": "age", "title": "Age", "type": "range", "data_type": "integer"},
    {
        "filter_id": "sex",
        "title": "Sex",
        "type": "select",
        "data_type": "ChoiceID",
        "choices": {"0": "Male", "1": "Female"},
    },
    {
        "filter_id": "first-language",
        "title": "First language",
        "type": "select",
        "data_type": "ChoiceID",
        "choices": {"19": "English", "40": "French", "44": "German"},
    },
    {
        "filter_id": "fluent-languages",
        "title": "Fluent languages",
        "type": "select",
        "data_type": "ChoiceID",
        "choices": {"19": "English", "40": "French", "44": "German"},
    },
    {
        "filter_id": "current-country-of-residence",
        "title": "Current Country of Residence",
        "type": "select",
        "data_type": "ChoiceID",
        "choices": {"0": "United Kingdom", "1": "United States", "2": "Ireland"},
    },
    {"filter_id": "approval_rate", "title": "Approval Rate", "type": "range", "data_type": "integer"},
    {
        "filter_id": "previous_studies_blocklist",
        "title": "Previous Studies BlockList",
        "type": "select",
        "data_type": "StudyID",
        "choices": {},
    },
]


def choice_problems(filters: list) -> list[str]:
    """A select filter of choice ids whose values are not among its `choices` (`FILTERS`): Prolific
    takes the ids its filter list gives, nothing else (https://docs.prolific.com/api-reference/filters)."""
    known = {row["filter_id"]: row for row in FILTERS}
    problems = []
    for entry in filters:
        row = known.get(entry.get("filter_id")) if isinstance(entry, dict) else None
        values = entry.get("selected_values") if isinstance(entry, dict) else None
        if row is None or row["data_type"] != "ChoiceID" or not isinstance(values, list):
            continue
        problems += [
            f"{row['filter_id']}: {value!r} is not a choice id" for value in values if value not in row["choices"]
        ]
    return problems


def filter_problems(filters: list) -> list[str]:
    """What Prolific's docs say a study's `filters` must be (https://docs.prolific.com/api-reference/filters):
    objects with a `filter_id` and either `selected_values` (a select filter: a list of choice ids,
    strings) or `selected_range` (a range filter: `lower` and/or `upper`, numbers), never both."""
    problems = []
    for entry in filters:
        if not isinstance(entry, dict) or not isinstance(entry.get("filter_id"), str) or not entry["filter_id"]:
            problems.append(f"a filter needs a filter_id: {entry!r}")
            continue
        values, bounds = entry.get("selected_values"), entry.get("selected_range")
        if (values is None) == (bounds is None):
            problems.append(f"{entry['filter_id']}: give selected_values or selected_range, one of them")
        elif values is not None and (
            not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values)
        ):
            problems.append(f"{entry['filter_id']}: selected_values is a list of choice ids (strings)")
        elif bounds is not None and (
            not isinstance(bounds, dict)
            or not bounds
            or set(bounds) - {"lower", "upper"}
            or not all(isinstance(v, (int, float)) for v in bounds.values())
        ):
            problems.append(f"{entry['filter_id']}: selected_range takes lower and/or upper, numbers")
    return problems
