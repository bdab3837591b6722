"""The headless Chromium of the viewer's tests, for duel's replay."""

from tests.record.test_browser import browser  # noqa: F401  (a fixture: pytest finds it here)
