"""AmbiBench's constructions, features and word lists (Tamkin et al., Appendix G.1-G.2).

Three sentence constructions, each with two binary features; every feature is a possible salient
task. Feature values are identifiers (`human`, `indoor`, ...); the words come from the paper's lists.
"""

from __future__ import annotations

HUMANS = (
    "student",
    "reporter",
    "hiker",
    "researcher",
    "firefighter",
    "fugitive",
    "critic",
    "photographer",
    "director",
    "surveyor",
)
ANIMALS = ("boar", "worm", "hawk", "hound", "butterfly", "snake", "duck", "bear", "mountain lion", "horse")
OUTDOOR = ("river", "pond", "woodlands", "cave", "canyon", "prairie", "jungle", "marsh", "lagoon", "meadow")
INDOOR = (
    "laboratory",
    "theatre",
    "museum",
    "courtroom",
    "apartment building",
    "restaurant",
    "house",
    "film studio",
    "hotel lobby",
    "grocery store",
)
RELIGIOUS_LEADERS = (
    "pope",
    "reverend",
    "bishop",
    "Dalai Lama",
    "rabbi",
    "cardinal",
    "pastor",
    "deacon",
    "imam",
    "ayatollah",
)
SECULAR_LEADERS = (
    "president",
    "CEO",
    "principal",
    "sheriff",
    "judge",
    "ambassador",
    "officer",
    "prime minister",
    "colonel",
    "professor",
)
PROPER_NOUNS = (
    "Lebron James",
    "Bernie Sanders",
    "Christopher Nolan",
    "Paul Atreides",
    "Noam Chomsky",
    "Serena Williams",
    "Margot Robbie",
    "Alexandria Ocasio-Cortez",
    "Hermione Granger",
    "Jane Goodall",
)
AFFIRMATIONS = ("is", "was", "has been", "may be", "could be")
NEGATIONS = ("is not", "was not", "has not been", "may not be", "could not be")
PRONOUNS = {"male": "He", "female": "She"}

#: construction -> its two features, in the order of the paper's pairings (Table 1, G.1)
CONSTRUCTIONS: dict[str, tuple[str, str]] = {
    "subject_location": ("subject", "location"),
    "religious_pronoun": ("religious", "pronoun"),
    "proper_noun_negation": ("proper_noun", "negation"),
}
#: the six salient tasks, in the paper's order
FEATURES: tuple[str, ...] = tuple(feature for pair in CONSTRUCTIONS.values() for feature in pair)
CONSTRUCTION_OF: dict[str, str] = {feature: name for name, pair in CONSTRUCTIONS.items() for feature in pair}
#: feature -> its two values; each is drawn with probability 1/2
FEATURE_VALUES: dict[str, tuple[str, str]] = {
    "subject": ("human", "animal"),
    "location": ("indoor", "outdoor"),
    "religious": ("religious", "secular"),
    "pronoun": ("male", "female"),
    "proper_noun": ("proper", "common"),
    "negation": ("negated", "affirmed"),
}
FEATURE_TITLES: dict[str, str] = {
    "subject": "human subject",
    "location": "indoor location",
    "religious": "religious leader",
    "pronoun": "pronoun gender",
    "proper_noun": "proper noun",
    "negation": "negation",
}

UNINFORMATIVE = "Output 'X' if the sentence contains a [category withheld] and 'Y' otherwise."
INFORMATIVE_TEMPLATE = "Output 'X' if the sentence {phrase} and 'Y' otherwise."
#: (feature, the value that gets X) -> the phrase of G.2 that describes the X class
INFORMATIVE_PHRASES: dict[tuple[str, str], str] = {
    ("subject", "human"): "contains a reference to a human",
    ("subject", "animal"): "contains a reference to an animal",
    ("location", "indoor"): "contains a reference to an indoor location",
    ("location", "outdoor"): "contains a reference to an outdoor location",
    ("religious", "religious"): "contains a reference to a religious leader",
    ("religious", "secular"): "does not contain a reference to a religious leader",
    ("pronoun", "male"): "contains a male pronoun",
    ("pronoun", "female"): "contains a female pronoun",
    ("proper_noun", "proper"): "contains a proper noun",
    ("proper_noun", "common"): "does not contain a proper noun",
    ("negation", "negated"): "contains a negation",
    ("negation", "affirmed"): "does not contain a negation",
}


def other_value(feature: str, value: str) -> str:
    first, second = FEATURE_VALUES[feature]
    if value not in (first, second):
        raise ValueError(f"{value!r} is not a value of feature {feature!r}")
    return second if value == first else first


def informative_instruction(feature: str, x_value: str) -> str:
    return INFORMATIVE_TEMPLATE.format(phrase=INFORMATIVE_PHRASES[(feature, x_value)])


def word_lists() -> dict[str, list[str]]:
    """Every list as plain data (stored with an import, shown to researchers)."""
    return {
        "humans": list(HUMANS),
        "animals": list(ANIMALS),
        "outdoor": list(OUTDOOR),
        "indoor": list(INDOOR),
        "religious_leaders": list(RELIGIOUS_LEADERS),
        "secular_leaders": list(SECULAR_LEADERS),
        "proper_nouns": list(PROPER_NOUNS),
        "affirmations": list(AFFIRMATIONS),
        "negations": list(NEGATIONS),
    }
