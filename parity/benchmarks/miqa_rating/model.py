"""The model side of rating MiQA's generative answers: there is none. The ratings are the
measurement, given by people; the answers rated come from a MiQA model run (`miqa.model`, wording
"generative") or from a file, so `MiQARating` keeps the base class's model hooks."""

from __future__ import annotations
