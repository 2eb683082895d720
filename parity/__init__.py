"""Parity's pure library: benchmark definitions, the model engine and the statistics.

Nothing here imports Django, so every piece can be used from a notebook or a script. The Django
apps beside it (annotation, studies, modelruns, prolific, participation, results) store what these
functions read and write.
"""
