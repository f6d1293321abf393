"""Build hook (work in progress)."""
