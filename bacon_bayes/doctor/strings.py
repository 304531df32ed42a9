"""What a column of strings holds, as ``bacon doctor`` tells: texts (several words, East
Asian wide characters counted twice), codes (ids, hashes, names), and the string columns
no role has taken yet."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from bacon_bayes.doctor.cells import COMMAS, FAILED, SCORE_UNITS, UNITS, WORDS, is_str
from bacon_bayes.doctor.exports import JUDGE_OWN
from bacon_bayes.letters import LETTER_LABELS, LETTER_SCORES
from bacon_bayes.words import PACKED

if TYPE_CHECKING:
    from bacon_bayes.doctor.roles import Roles

#: mean width (characters, East Asian wide ones counted twice) from which a string
#: column counts as text
TEXT_CHARS = 40
#: East Asian wide and full-width characters (CJK ideographs, kana, hangul, full-width
#: forms): each carries about a word, and a terminal gives it two columns
WIDE = (
    "[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff"
    "\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60"
    "\uffe0-\uffe6\U00020000-\U0003fffd]"
)
#: this many wide characters make a string several words (a CJK phrase has no spaces)
WIDE_WORDS = 4
MAX_GROUPS = 50
#: why a long table's score column kept as text plays no part (it is pivoted)
TEXT_SCORES = "the long table's scores, kept as text (below)"


def several_words(s: pd.Series) -> bool:
    """Strings of several words on most rows (texts, not ids): with a space, or with
    :data:`WIDE_WORDS` wide (CJK) characters, which carry a word each and no spaces."""
    if not is_str(s):
        return False
    v = s.astype(str).str.strip()
    return float((v.str.contains(r"\s") | (v.str.count(WIDE) >= WIDE_WORDS)).mean()) > 0.5


def text_width(s: pd.Series) -> float:
    """Mean width of the strings of ``s`` in characters, East Asian wide characters
    counted twice (a Chinese sentence of 40 characters is longer than an English one of
    40 letters: as long as about 80)."""
    v = s.dropna().astype(str)
    if v.empty:
        return 0.0
    return float((v.str.len() + v.str.count(WIDE)).mean())


def is_code(s: pd.Series) -> bool:
    """ASCII strings without spaces on most rows (ids, hashes, names: never texts)."""
    v = s.dropna().astype(str)
    return bool(len(v)) and float((v.str.isascii() & ~v.str.contains(r"\s")).mean()) > 0.5


def categorical(frame: pd.DataFrame, roles: Roles) -> list[str]:
    """The string columns no role has taken yet (nor left out as scores or labels but
    for a few cells, nor an LLM judge's verdict words or reasons): the candidates for the
    group, prompt, texts and a long table's judge."""
    done = (
        FAILED,
        UNITS,
        SCORE_UNITS,
        COMMAS,
        PACKED,
        WORDS,
        LETTER_SCORES,
        LETTER_LABELS,
        TEXT_SCORES,
        JUDGE_OWN,
    )
    failed = {c for c, why in roles.left_out.items() if why.startswith(done)}
    taken = {roles.item, roles.label, *roles.judges, *failed}
    return [str(c) for c in frame.columns if c not in taken and is_str(frame[c])]
