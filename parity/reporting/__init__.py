"""What a study reports beyond its figures: the human-baselines reporting checklist."""
