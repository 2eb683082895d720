"""Calibration of every interval and test that places a model among people, by simulation from a
known truth (run as `python -m perf.calibration`; see docs/results.md, "Calibration")."""
