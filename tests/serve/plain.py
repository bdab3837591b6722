"""The standard library's HTTP client (urllib only), for the plain HTTP kind of session."""

import json
import urllib.error
import urllib.request


def call(url, path, body=None, raw=None, timeout=30):
    """``POST path`` with ``body`` as JSON (or the bytes ``raw``; ``GET`` with neither): (status, the answer's JSON,
    or its text when it is not JSON)."""
    data = raw if raw is not None else None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, text = response.status, response.read()
    except urllib.error.HTTPError as exc:
        with exc:
            status, text = exc.code, exc.read()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text.decode("utf-8", "replace")
