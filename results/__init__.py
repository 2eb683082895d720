"""Humans and models side by side: a study's results pages, the monitor, exports, the REST API and
the demo. Reads only: every number comes from `parity.stats` over rows the other apps stored."""
