"""Prompt templates for the AI jury: the paper's three and user templates from a file.

A template is a system text, a user text with ``{column}`` placeholders filled from
the item's columns, an optional image column, and the name of the parser that turns
the reply into scores (see :mod:`bacon_bayes.judges.parsing`).
"""

from __future__ import annotations

import base64
import json
import math
import mimetypes
import string
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bacon_bayes.errors import ValidationError

PARSERS = ("first_digit", "number", "mqm_json", "labelled_lines")


@dataclass(frozen=True)
class Template:
    """A judge prompt and the rule that reads its reply.

    Parameters
    ----------
    name, version
        Identify the template; the version is part of every cache key.
    system, user
        Message texts; ``{col}`` placeholders are filled from item columns (``{{`` for a
        literal brace).
    parser
        One of ``first_digit``, ``number``, ``mqm_json``, ``labelled_lines``.
    levels
        The score levels (for range checks and the judge's distribution over levels).
    dimensions
        Line labels for ``labelled_lines`` (one score per dimension).
    image
        Column holding an image path or URL sent with the user message, or None.
    defaults
        Placeholder values used when the item has no such column.
    lookup
        ``{"column": ..., "table": {key: {placeholder: text}}}``: placeholders filled
        from a table row chosen by an item column (the paper's web-design domain table).
    """

    name: str
    version: str
    system: str
    user: str
    parser: str = "number"
    levels: tuple[float, ...] | None = None
    dimensions: tuple[str, ...] = ()
    image: str | None = None
    defaults: Mapping[str, str] = field(default_factory=dict)
    lookup: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.parser not in PARSERS:
            raise ValidationError(
                f"template {self.name!r}: parser {self.parser!r} is unknown; "
                f"use one of {', '.join(PARSERS)}"
            )
        if self.parser == "labelled_lines" and not self.dimensions:
            raise ValidationError(
                f"template {self.name!r}: parser 'labelled_lines' needs a 'dimensions' list"
            )
        if self.parser == "first_digit" and (
            not self.levels
            or any(not float(v).is_integer() or not 0 <= v <= 9 for v in self.levels)
        ):
            raise ValidationError(
                f"template {self.name!r}: parser 'first_digit' needs 'levels' of single digits "
                "(e.g. [1, 2, 3, 4, 5, 6])"
            )

    @property
    def placeholders(self) -> list[str]:
        """Names of the ``{...}`` fields used by the system and user texts."""
        names: list[str] = []
        for text in (self.system, self.user):
            for _, fname, _, _ in string.Formatter().parse(text):
                if fname is not None and fname not in names:
                    names.append(fname)
        return names

    def render(self, item: Mapping[str, Any], *, row: Any = None) -> list[dict[str, Any]]:
        """Build the chat messages for one item (a mapping of column -> value)."""
        values = self._values(item, row)
        messages: list[dict[str, Any]] = []
        if self.system:
            messages.append({"role": "system", "content": self.system.format_map(values)})
        text = self.user.format_map(values)
        if self.image is None:
            messages.append({"role": "user", "content": text})
        else:
            url = _image_url(_value(item, self.image, self.name, row))
            messages.append(
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": text},
                        {"type": "image_url", "image_url": {"url": url}},
                    ],
                }
            )
        return messages

    def _values(self, item: Mapping[str, Any], row: Any) -> dict[str, str]:
        table_row: Mapping[str, str] = {}
        if self.lookup is not None:
            col = self.lookup["column"]
            if col in item and not _missing(item[col]):
                key = str(item[col])
                table = self.lookup["table"]
                if key not in table:
                    raise ValidationError(
                        f"template {self.name!r}: item {row!r} has {col}={key!r}, which is not "
                        f"in the template's table; use one of {', '.join(map(repr, table))} "
                        "or give the placeholder columns directly"
                    )
                table_row = table[key]
        values: dict[str, str] = {}
        for name in self.placeholders:
            if name in item:
                values[name] = str(_value(item, name, self.name, row))
            elif name in table_row:
                values[name] = str(table_row[name])
            elif name in self.defaults:
                values[name] = str(self.defaults[name])
            else:
                hint = f" or a '{self.lookup['column']}' column" if self.lookup is not None else ""
                raise ValidationError(
                    f"template {self.name!r} needs column {name!r}, which the items do not have "
                    f"(columns: {', '.join(map(str, item))}); add it{hint} or edit the template"
                )
        return values


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _value(item: Mapping[str, Any], name: str, template: str, row: Any) -> Any:
    if name not in item:
        raise ValidationError(
            f"template {template!r} needs column {name!r}, which the items do not have; add it"
        )
    value = item[name]
    if _missing(value):
        raise ValidationError(
            f"column {name!r} is empty for item {row!r} but template {template!r} needs it; "
            "fill it or drop the item"
        )
    return value


def _image_url(value: Any) -> str:
    text = str(value)
    if text.startswith(("http://", "https://", "data:")):
        return text
    path = Path(text)
    if not path.is_file():
        raise ValidationError(
            f"image {text!r} is neither a URL nor an existing file; fix the image column"
        )
    mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


ESSAY = Template(
    name="essay",
    version="paper-1",
    system=(
        "You are an essay grader. You will be given a student essay and its writing prompt.\n"
        "Rate the essay's holistic quality on a scale of 1 to 6:\n"
        "1 = Very poor, 2 = Poor, 3 = Below average, 4 = Above average, 5 = Good, "
        "6 = Excellent.\n"
        "You MUST respond with ONLY a single digit (1, 2, 3, 4, 5, or 6).\n"
        "No explanation, no reasoning, no other text - just the number."
    ),
    user="Essay prompt: {prompt_name}\n\nEssay:\n{full_text}",
    parser="first_digit",
    levels=(1, 2, 3, 4, 5, 6),
)

MQM = Template(
    name="mqm",
    version="paper-1",
    system=(
        "You are a professional MQM annotator following the official WMT MQM human "
        "evaluation guidelines at the segment level.\n"
        "Identify up to five target-side errors, each with a category (Accuracy, Fluency, "
        "Terminology, Style, Locale conventions, or Other, including subcategories such as "
        "Mistranslation or Grammar; also Source error or Non-translation when applicable), a "
        "severity (Major, Minor, or Neutral), and the exact span from the source or "
        "hypothesis.\n"
        "If the translation is too garbled or unrelated to the source, return exactly one "
        "error: Non-translation with severity Major.\n"
        "Source errors are listed separately and do not count toward the five target-error "
        "limit.\n"
        "Do not double-count the same underlying issue; when multiple issues overlap one span, "
        "keep only the most severe; when severities tie, prefer Accuracy > Fluency > "
        "Terminology > Style > Locale conventions > Other.\n"
        "Be conservative and return JSON only (no prose outside the object)."
    ),
    user=(
        "[Source]\n{source}\n\n[Hypothesis]\n{hypothesis}\n\n"
        "Return JSON only: a single object with an errors array; each entry has string "
        "fields category, severity, and span."
    ),
    parser="mqm_json",
)

# The paper fills these placeholders from a domain table whose wording it does not print;
# the texts below are ours. Items may instead carry the placeholder columns themselves.
WEB_DOMAINS: dict[str, dict[str, str]] = {
    "university": {
        "domain_label": "university/college website",
        "prompt_typ": "looks like a typical university or college website.",
        "prompt_exmpl": "is a good example of a university or college website.",
        "prompt_avg": "resembles other university and college websites.",
    },
    "bank": {
        "domain_label": "commercial-bank website",
        "prompt_typ": "looks like a typical commercial-bank website.",
        "prompt_exmpl": "is a good example of a commercial-bank website.",
        "prompt_avg": "resembles other commercial-bank websites.",
    },
    "fashion": {
        "domain_label": "online fashion-shopping website",
        "prompt_typ": "looks like a typical online fashion-shopping website.",
        "prompt_exmpl": "is a good example of an online fashion-shopping website.",
        "prompt_avg": "resembles other online fashion-shopping websites.",
    },
    "homeware": {
        "domain_label": "online homeware-shopping website",
        "prompt_typ": "looks like a typical online homeware-shopping website.",
        "prompt_exmpl": "is a good example of an online homeware-shopping website.",
        "prompt_avg": "resembles other online homeware-shopping websites.",
    },
}

WEBDESIGN = Template(
    name="webdesign",
    version="paper-1",
    system="You are a strict visual evaluator. Return only the requested six lines.",
    user=(
        "Rate this screenshot from a {domain_label} on six dimensions.\n"
        "Return ONLY six integer scores in [-3, -2, -1, 0, 1, 2, 3], one per line, exactly:\n"
        "AE: <score>\nTRU: <score>\nTYP: <score>\nEXMPL: <score>\nAVG: <score>\nUS: <score>\n"
        "\n"
        "Definitions:\n"
        "- AE (Aesthetics): visually appealing overall design.\n"
        "- TRU (Trustworthiness): appears credible and trustworthy.\n"
        "- TYP (Typicality): {prompt_typ}\n"
        "- EXMPL (Exemplar Goodness): {prompt_exmpl}\n"
        "- AVG (Family Resemblance): {prompt_avg}\n"
        "- US (Usability): easy to navigate and understand."
    ),
    parser="labelled_lines",
    levels=(-3, -2, -1, 0, 1, 2, 3),
    dimensions=("AE", "TRU", "TYP", "EXMPL", "AVG", "US"),
    image="image",
    lookup={"column": "domain", "table": WEB_DOMAINS},
)

BUILTIN: dict[str, Template] = {t.name: t for t in (ESSAY, MQM, WEBDESIGN)}

_FIELDS = {f for f in Template.__dataclass_fields__}


def load_template(name_or_path: str | Path) -> Template:
    """Return a built-in template by name (``essay``, ``mqm``, ``webdesign``) or read one
    from a TOML or JSON file with the fields of :class:`Template`."""
    key = str(name_or_path)
    if key in BUILTIN:
        return BUILTIN[key]
    path = Path(key)
    if not path.is_file():
        raise ValidationError(
            f"template {key!r} is neither a built-in ({', '.join(BUILTIN)}) nor an existing "
            "file; pass one of those names or a .toml/.json template file"
        )
    text = path.read_text(encoding="utf-8")
    try:
        spec = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValidationError(f"template file {path}: cannot be read ({exc})") from exc
    unknown = set(spec) - _FIELDS
    if unknown:
        raise ValidationError(
            f"template file {path}: unknown field(s) {', '.join(sorted(unknown))}; "
            f"allowed: {', '.join(sorted(_FIELDS))}"
        )
    for need in ("user",):
        if need not in spec:
            raise ValidationError(f"template file {path}: field {need!r} is required")
    spec.setdefault("name", path.stem)
    spec.setdefault("version", "1")
    spec.setdefault("system", "")
    spec["version"] = str(spec["version"])
    if spec.get("levels") is not None:
        spec["levels"] = tuple(float(v) for v in spec["levels"])
    spec["dimensions"] = tuple(spec.get("dimensions", ()))
    return Template(**spec)
