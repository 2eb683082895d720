"""The researchers' REST API: its reads (`api.reads`, `api.monitor`) through the selectors and the
results the pages use, its writes (`api.writes`) through each app's services, and its tokens."""
