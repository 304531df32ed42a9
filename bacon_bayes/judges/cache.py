"""A SQLite cache of completed judge calls, so an interrupted run resumes without paying twice.

Two calls are the same call when everything that can change the answer is the same: the
endpoint (its base URL, normalised by :func:`normalize_endpoint`), the model name, the
messages, every request-body setting (temperature, max_tokens, logprobs, extra fields),
the run index and the template version. The key is a SHA-256 hash of those; the value is
the endpoint's JSON reply body and the call's latency. Each completed call is committed at
once (WAL journal), so a process killed at any moment keeps every call it had finished.
Only reply bodies are stored: never request headers, hence never an API key.

Caches written before the endpoint was part of the key (rows with no ``endpoint``) stay
usable: such an entry answers a call whose other inputs match when the run asks that model
at one endpoint only; that endpoint then *claims* the model's old entries (recorded in the
cache), so a later run that asks the same model elsewhere never receives them. When one
run asks a model at two endpoints, old entries are ambiguous and neither judge takes them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from bacon_bayes.errors import ValidationError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    template_version TEXT NOT NULL,
    body TEXT NOT NULL,
    latency REAL NOT NULL,
    created REAL NOT NULL,
    endpoint TEXT
);
CREATE TABLE IF NOT EXISTS legacy_owner (
    model TEXT PRIMARY KEY,
    endpoint TEXT NOT NULL
)
"""

_DEFAULT_PORTS = {"http": 80, "https": 443}
_TABLES = {"calls", "legacy_owner"}


def check_cache(
    path: str | Path, *, inputs: Iterable[str | Path | None] = (), force: bool = False
) -> None:
    """Check, before any call, that ``path`` may hold bacon's call cache: a path an output
    may take (:func:`bacon_bayes.outputs.check_output`: no input, no device or FIFO, a
    name that fits) that is new or a cache bacon made (tables ``calls`` and
    ``legacy_owner`` only). Another SQLite database, or any other file, is refused unless
    ``force``: bacon would add its tables to it.

    Raises
    ------
    ValidationError
        The path may not be used; the message says why and what to do.
    """
    from bacon_bayes.outputs import check_output

    check_output(path, option="--cache", inputs=inputs)
    path = Path(path)
    if force or not path.exists():
        return
    tables = _tables(path)
    if tables is not None and "calls" in tables and tables <= _TABLES:
        return
    what = (
        "is not a SQLite database"
        if tables is None
        else f"is a SQLite database with table(s) {', '.join(sorted(tables)) or '(none)'}"
    )
    raise ValidationError(
        f"--cache {str(path)!r} exists and {what}, not a cache bacon made: bacon would write "
        "its tables into it; choose another --cache path (or pass --force to use this file)"
    )


def _tables(path: Path) -> set[str] | None:
    """The tables of the SQLite database at ``path`` (opened read-only), None when it is
    not one."""
    with open(path, "rb") as handle:
        if handle.read(16) != b"SQLite format 3\x00":
            return None
    try:
        uri = f"{path.resolve().as_uri()}?mode=ro"
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
            rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except sqlite3.Error:
        return None
    return {str(name) for (name,) in rows if not str(name).startswith("sqlite_")}


def normalize_endpoint(url: str) -> str:
    """Canonical form of a base URL: lower-case scheme and host, no default port, no
    trailing slash (``HTTPS://API.x.com:443/v1/`` -> ``https://api.x.com/v1``)."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    port = parts.port
    netloc = host if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    if parts.username:
        netloc = f"{parts.username}@{netloc}"
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), parts.query, ""))


def call_key(
    model: str,
    messages: list[dict[str, Any]],
    params: Mapping[str, Any],
    template_version: str,
    endpoint: str | None,
) -> str:
    """Hash identifying one call: same inputs, same key, in any process.

    ``endpoint`` is the judge's base URL (normalised here); None gives the key of the
    older format, which did not include it (used only to find entries of old caches).
    """
    fields: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "params": dict(params),
        "template": template_version,
    }
    if endpoint is not None:
        fields["endpoint"] = normalize_endpoint(endpoint)
    blob = json.dumps(
        fields,
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
            self._db.executescript(_SCHEMA)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(calls)")}
            if "endpoint" not in columns:  # a cache of the older format
                self._db.execute("ALTER TABLE calls ADD COLUMN endpoint TEXT")
        except sqlite3.DatabaseError as exc:
            if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
                raise ValidationError(
                    f"cache {self.path}: no space left on the device; free some space and "
                    "run again (keep the cache: it holds the calls already paid for)"
                ) from exc
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
        endpoint: str,
    ) -> None:
        """Store a completed call and commit it."""
        self._db.execute(
            "INSERT OR REPLACE INTO calls VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                model,
                template_version,
                json.dumps(body),
                float(latency),
                time.time(),
                normalize_endpoint(endpoint),
            ),
        )

    def legacy(self, keys: Mapping[str, str], endpoint: str, model: str) -> dict[str, CachedCall]:
        """Entries of the older key format (no endpoint) that answer calls to ``endpoint``.

        ``keys`` maps each call's new key to its old-format key. Old entries of ``model``
        answer only while the model's old entries are unclaimed or claimed by this
        endpoint (:meth:`claim`). Returns the answers by new key; nothing is written.
        """
        owner = self._legacy_owner(model)
        if owner is not None and owner != normalize_endpoint(endpoint):
            return {}
        by_old = {old: new for new, old in keys.items()}
        out: dict[str, CachedCall] = {}
        olds = list(by_old)
        for i in range(0, len(olds), 500):
            chunk = olds[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for old, body, latency in self._db.execute(
                f"SELECT key, body, latency FROM calls WHERE endpoint IS NULL AND key IN ({marks})",
                chunk,
            ):
                out[by_old[old]] = CachedCall(json.loads(body), latency)
        return out

    def claim(
        self,
        adopted: Mapping[str, CachedCall],
        endpoint: str,
        *,
        model: str,
        template_version: str,
    ) -> None:
        """Record that ``model``'s old-format entries are answers of ``endpoint`` (from now
        on no other endpoint receives them) and store ``adopted`` (new key -> call, from
        :meth:`legacy`) under their new keys, in one transaction."""
        endpoint = normalize_endpoint(endpoint)
        now = time.time()
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute("INSERT OR IGNORE INTO legacy_owner VALUES (?, ?)", (model, endpoint))
            self._db.executemany(
                "INSERT OR REPLACE INTO calls VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (key, model, template_version, json.dumps(c.body), c.latency, now, endpoint)
                    for key, c in adopted.items()
                ],
            )

    def _legacy_owner(self, model: str) -> str | None:
        row = self._db.execute(
            "SELECT endpoint FROM legacy_owner WHERE model = ?", (model,)
        ).fetchone()
        return None if row is None else str(row[0])

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM calls").fetchone()[0])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> CallCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
