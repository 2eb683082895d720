"""The opaque value an answer form carries to say which item it answers.

The form names its item by a keyed hash of (who answers, position, item), never by the item's
primary key: keys would tell an attention check (imported later, higher ids) from a study item to
anyone reading the page source. The hash binds the answer to the very item shown at that position
to that participant, so a value from another tab, another position, another participant or an
older sequence is refused as a wrong item was; every value has the same length and alphabet.
"""

from __future__ import annotations

from django.utils.crypto import constant_time_compare, salted_hmac

_SALT = "parity.studies.answer_token"
#: hex characters kept: 80 bits, far past guessing within an answer's few tries
LENGTH = 20


def answer_token(owner: str, position: int, item_id: int) -> str:
    """The form's value for `item_id` at `position` (1-based) of `owner`'s sequence."""
    return salted_hmac(_SALT, f"{owner}:{position}:{item_id}", algorithm="sha256").hexdigest()[:LENGTH]


def answer_token_matches(token: str, owner: str, position: int, item_id: int) -> bool:
    return constant_time_compare(token, answer_token(owner, position, item_id))


def participant_owner(participant_id: int) -> str:
    return f"participant:{participant_id}"


def preview_owner(study_id: int) -> str:
    return f"preview:{study_id}"
