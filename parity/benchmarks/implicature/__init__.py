"""Implicature (Ruis et al., "Do large language models understand implicature?").

600 test + 118 dev binary implicatures; the published label parser; the 229 type labels; the six
templates (1, 3, 4 structured; 2, 5, 6 natural), the three "AI assistant" templates 7-9, the
contrastive pair and the k-shot promptsource templates. Humans see template 2 and pick yes/no.
"""

from __future__ import annotations

from .benchmark import NATURAL, STRUCTURED, TYPES, Implicature, clean_text, item_key, normalise, parse_label

__all__ = ["NATURAL", "STRUCTURED", "TYPES", "Implicature", "clean_text", "item_key", "normalise", "parse_label"]
