"""Turn a judge's reply into scores, as the paper's scoring protocol specifies.

Every parser returns one :class:`Parsed` per dimension (a single ``""`` dimension for
one-score templates). A reply that cannot be read gives ``score = NaN`` and a
``reason`` (a fixed cause, then after ``;`` what the reply had); the caller keeps the
reply verbatim. The one-number parsers read a reply's one number: a digit inside a
longer number or a decimal, a score out of another scale ("7/10") and a reply with
several different numbers are not read.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bacon_bayes.judges.templates import Template

#: MQM severity weights (Freitag et al., 2021): major 5, minor 1, minor punctuation 0.1,
#: non-translation 25, neutral 0; source errors do not count.
MQM_WEIGHTS = {"major": 5.0, "minor": 1.0, "neutral": 0.0}
MQM_MINOR_PUNCTUATION = 0.1
MQM_NON_TRANSLATION = 25.0


@dataclass(frozen=True)
class Parsed:
    """One score read from a reply.

    ``span`` is the (start, end) character range of the score in the reply when the
    score is a literal number there (used to find its token's log-probabilities).
    """

    dimension: str
    score: float
    reason: str | None = None
    span: tuple[int, int] | None = None


def parse_reply(reply: str, template: Template) -> list[Parsed]:
    """Parse ``reply`` with the template's parser; see the module docstring."""
    if template.parser == "first_digit":
        return [_first_digit(reply, template.levels or ())]
    if template.parser == "number":
        return [_number(reply, template.levels)]
    if template.parser == "mqm_json":
        return [mqm_score(reply)]
    return _labelled_lines(reply, template.dimensions, template.levels)


def _na(reason: str, dimension: str = "") -> Parsed:
    return Parsed(dimension, math.nan, reason)


def _first_digit(reply: str, levels: Sequence[float]) -> Parsed:
    read = _one_number(reply, levels)
    if isinstance(read, str):
        return _na(read)
    value, span, text = read
    if value not in {float(v) for v in levels}:
        return _na(f"number not one of the levels {_levels(levels)}; the reply has {text}")
    return Parsed("", value, None, span)


#: A number standing alone: not part of a longer number, a decimal or a word ("GPT4", "2nd").
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?![\w]|\.\d)")
#: "N/M" or "N out of M": M is the scale's top, not a score.
_OUT_OF = re.compile(r"\s*(?:/|out\s+of)\s*$", re.IGNORECASE)


def _levels(levels: Sequence[float]) -> str:
    return ", ".join(f"{v:g}" for v in levels)


def _one_number(
    reply: str, levels: Sequence[float] | None
) -> tuple[float, tuple[int, int], str] | str:
    """The reply's one score (value, span, text), or why there is none.

    "N/M" and "N out of M" give N when M is the scale's top; a reply with several
    different numbers is ambiguous (a reason, not the first of them).
    """
    found = list(_NUMBER.finditer(reply))
    if not found:
        return "no number in the reply"
    scores = []
    for k, match in enumerate(found):
        previous = found[k - 1] if k else None
        if previous is not None and _OUT_OF.search(reply[previous.end() : match.start()]):
            top = float(match.group())
            if levels and top != max(levels):
                given = reply[previous.start() : match.end()]
                return (
                    f"a score on another scale than {min(levels):g}..{max(levels):g}; "
                    f"the reply has {given}"
                )
            continue
        scores.append(match)
    if len({float(m.group()) for m in scores}) > 1:
        shown = ", ".join(m.group() for m in scores[:6]) + (", ..." if len(scores) > 6 else "")
        return f"several numbers in the reply, unclear which is the score; the reply has {shown}"
    return float(scores[0].group()), scores[0].span(), scores[0].group()


def _number(reply: str, levels: Sequence[float] | None) -> Parsed:
    read = _one_number(reply, levels)
    if isinstance(read, str):
        return _na(read)
    value, span, text = read
    if levels and not min(levels) <= value <= max(levels):
        return _na(
            f"number outside the scale {min(levels):g}..{max(levels):g}; the reply has {text}"
        )
    if levels and value not in {float(v) for v in levels}:
        return _na(f"number not one of the levels {_levels(levels)}; the reply has {text}")
    return Parsed("", value, None, span)


def _labelled_lines(
    reply: str, dimensions: Sequence[str], levels: Sequence[float] | None
) -> list[Parsed]:
    out = []
    for dim in dimensions:
        pattern = rf"^[ \t*\-]*{re.escape(dim)}[ \t*]*[:=][ \t*]*([-+]?\d+(?:\.\d+)?)"
        match = re.search(pattern, reply, flags=re.IGNORECASE | re.MULTILINE)
        if match is None:
            out.append(_na(f"no '{dim}: <score>' line in the reply", dim))
            continue
        value = float(match.group(1))
        if levels and value not in {float(v) for v in levels}:
            out.append(_na(f"{dim}: {match.group(1)} is not one of the scale's levels", dim))
            continue
        out.append(Parsed(dim, value, None, match.span(1)))
    return out


def _json_objects(reply: str) -> tuple[list[object], json.JSONDecodeError | None]:
    """The reply's top-level JSON objects in order (one inside another is not counted
    apart), and the first place where a ``{`` did not start valid JSON (or None)."""
    decoder = json.JSONDecoder()
    found: list[object] = []
    first_error = None
    start = reply.find("{")
    while start != -1:
        try:
            obj, end = decoder.raw_decode(reply, start)
        except json.JSONDecodeError as exc:
            first_error = first_error or exc
            start = reply.find("{", start + 1)
            continue
        found.append(obj)
        start = reply.find("{", end)
    return found, first_error


def _invalid_json(exc: json.JSONDecodeError) -> str:
    near = exc.doc[max(0, exc.pos - 20) : exc.pos + 20].replace("\n", " ")
    return f"the reply's JSON is not valid: {exc.msg} at character {exc.pos} (near {near!r})"


def mqm_score(reply: str) -> Parsed:
    """MQM score of a JSON reply ``{"errors": [{"category", "severity", "span"}, ...]}``.

    Sum of error weights (major 5, minor 1, minor punctuation 0.1, non-translation 25,
    neutral 0); source errors are not counted. Lower is better; 0 means no error.
    Several objects with ``errors`` that score alike give that score; that disagree, NA
    (unclear which is the answer), as several different numbers do for the numeric parsers.
    """
    objects, error = _json_objects(reply)
    answers = [o for o in objects if isinstance(o, dict) and "errors" in o]
    if not answers:
        if error is not None:  # e.g. a trailing comma: the object with the errors is lost
            return _na(_invalid_json(error))
        return _na(
            "the JSON object has no 'errors' array" if objects else "no JSON object in the reply"
        )
    scored = [_mqm_errors(obj) for obj in answers]
    if len({p.reason if math.isnan(p.score) else p.score for p in scored}) == 1:
        return scored[0]  # one answer, or several that agree
    shown = ", ".join("NA" if math.isnan(p.score) else f"{p.score:g}" for p in scored)
    return _na(
        f"several JSON objects with 'errors' in the reply, unclear which is the answer; "
        f"they score {shown}"
    )


def _mqm_errors(obj: dict) -> Parsed:
    """The MQM score of one reply object (see :func:`mqm_score`)."""
    if not isinstance(obj.get("errors"), list):
        return _na("the JSON object has no 'errors' array")
    total = 0.0
    for k, err in enumerate(obj["errors"], start=1):
        if not isinstance(err, dict):
            return _na(f"error {k} is not an object")
        category = str(err.get("category", "")).strip().lower()
        severity = str(err.get("severity", "")).strip().lower()
        if category.startswith("source"):
            continue
        if "non-translation" in category or "non translation" in category:
            total += MQM_NON_TRANSLATION
            continue
        if severity not in MQM_WEIGHTS:
            return _na(f"error {k} has severity {err.get('severity')!r}, not Major/Minor/Neutral")
        if severity == "minor" and "punctuation" in category:
            total += MQM_MINOR_PUNCTUATION
        else:
            total += MQM_WEIGHTS[severity]
    return Parsed("", round(total, 10))


def unread_judges(table: Any, template: Template) -> list[str]:
    """A line for each judge (or judge:dimension) whose answered replies mostly gave no
    score, with its most frequent reason, one reply and what to change.

    Parameters
    ----------
    table : pandas.DataFrame
        ``bacon judge``'s long table (columns ``judge``, ``score``, ``raw``, ``reason``).
    template : Template
        The template the replies were read with.

    Returns
    -------
    list of str
        One line per judge with more than half its replies unread; empty otherwise.
    """
    answered = table[table["raw"].notna()]
    scale = (
        f" on levels {min(template.levels):g}..{max(template.levels):g}" if template.levels else ""
    )
    lines = []
    for name, rows in answered.groupby("judge", sort=False):
        unread = rows[rows["score"].isna()]
        if 2 * len(unread) <= len(rows):
            continue
        reason = str(unread["reason"].str.split(";").str[0].value_counts().index[0])
        reply = str(unread["raw"].iloc[0])
        shown = reply if len(reply) <= 80 else reply[:77] + "..."
        said = (
            f"judge {name!r}: {len(unread)} of {len(rows)} replies gave no score ({reason}), "
            f"e.g. {shown!r}"
        )
        if "finish_reason=length" in reason:  # cut before the score: more tokens, new calls
            lines.append(
                f"{said}. Raise --max-tokens (max_tokens in --judges-file; the template's "
                "own is the default), or ask for the score first in the template's text."
            )
            continue
        lines.append(
            f"{said}; template {template.name!r} reads them with parser "
            f"{template.parser!r}{scale}. Ask for the score as the parser reads it in the "
            "template's text, or change its parser or levels (the replies are cached: a "
            "rerun with the same messages and template version reads them again without "
            "calls)."
        )
    return lines
