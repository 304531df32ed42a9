"""A SQLite cache of completed judge calls, so an interrupted run resumes without paying twice.

The key is a SHA-256 hash of (model, messages, sampling parameters, template version);
the value is the endpoint's JSON reply body and the call's latency. Each completed call
is committed at once (WAL journal), so a process killed at any moment keeps every call
it had finished. Only reply bodies are stored: never request headers, hence never an
API key.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bacon_bayes.errors import ValidationError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    template_version TEXT NOT NULL,
    body TEXT NOT NULL,
    latency REAL NOT NULL,
    created REAL NOT NULL
)
"""


def call_key(
    model: str,
    messages: list[dict[str, Any]],
    params: Mapping[str, Any],
    template_version: str,
) -> str:
    """Hash identifying one call: same inputs, same key, in any process."""
    blob = json.dumps(
        {
            "model": model,
            "messages": messages,
            "params": dict(params),
            "template": template_version,
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedCall:
    """A completed call: the reply body (parsed JSON) and its latency in seconds."""

    body: dict[str, Any]
    latency: float


class CallCache:
    """SQLite-backed map from :func:`call_key` to :class:`CachedCall`.

    Parameters
    ----------
    path
        Database file (created when absent), or ``":memory:"``.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise ValidationError(
                f"cache {self.path}: cannot be opened as a SQLite database ({exc}); "
                "delete it or pass another --cache path"
            ) from exc

    def get(self, key: str) -> CachedCall | None:
        """The cached call for ``key``, or None."""
        row = self._db.execute("SELECT body, latency FROM calls WHERE key = ?", (key,)).fetchone()
        return None if row is None else CachedCall(json.loads(row[0]), row[1])

    def get_many(self, keys: Iterable[str]) -> dict[str, CachedCall]:
        """Cached calls for those of ``keys`` that are present."""
        keys = list(keys)
        out: dict[str, CachedCall] = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for key, body, latency in self._db.execute(
                f"SELECT key, body, latency FROM calls WHERE key IN ({marks})", chunk
            ):
                out[key] = CachedCall(json.loads(body), latency)
        return out

    def put(
        self,
        key: str,
        body: Mapping[str, Any],
        latency: float,
        *,
        model: str,
        template_version: str,
    ) -> None:
        """Store a completed call and commit it."""
        self._db.execute(
            "INSERT OR REPLACE INTO calls VALUES (?, ?, ?, ?, ?, ?)",
            (key, model, template_version, json.dumps(body), float(latency), time.time()),
        )

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM calls").fetchone()[0])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> CallCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
