"""Project trust: whether a repository's own configuration may be loaded, remembered with the
content the person was shown, and asked again when that content changes.

`decision.py` decides (and `answer` keeps what a person said), `content.py` fingerprints the
configuration, `record.py` stores what was trusted, `display.py` shows it to the person.
"""
