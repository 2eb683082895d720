"""Humans and models side by side: a study's results pages, the monitor, exports, the report and the
demo. Its flow runs one way: `loading` reads the rows the other apps stored, `computing` turns them
into numbers with `parity.stats`, `presenting` writes them for people (docs/architecture.md)."""
