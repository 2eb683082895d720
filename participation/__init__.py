"""The participant's side of a study: the pages from entry link to completion code, and the answers
they store (written once, then only marked by a researcher)."""
