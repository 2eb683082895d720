"""Running a study on Prolific from Parity: the API client, study lifecycle, sync (webhooks and a
periodic pull), review of submissions and bonuses paid exactly once."""
