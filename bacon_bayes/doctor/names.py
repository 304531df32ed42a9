"""What a column's name says of its part: the name patterns ``bacon doctor`` reads
(a label, a group, a prompt, an id, a response, a human rating), and judges named for
another aspect than the label's."""

from __future__ import annotations

import re
from collections.abc import Iterable

ID_NAMES = ("id", "item", "item_id", "uid", "sample_id", "doc_id", "example_id")
LABEL_HINT = re.compile(r"human|label|gold|expert|rating|truth|annot|manual|turker|crowd", re.I)
#: a whole column name that is a human evaluation protocol's (WMT's ``mqm``, ``da``):
#: a human rating, never a judge (``metricx_xxl_MQM_2020-refA``, a metric, is no match)
HUMAN_PROTOCOL = re.compile(
    r"^(mqm|esa|sqm|da|mos)([ _-]?(score|z|raw|penalty|errors?|points))?$", re.I
)
GROUP_HINT = re.compile(r"system|model|provider|group|policy|agent|variant", re.I)
#: a whole column name that names a group (``system``, ``model_id``): integer codes under
#: it are the group's, never a judge's scores (``reward_model``, a judge, is no match)
GROUP_NAME = re.compile(
    r"^(system|model|provider|group|policy|agent|variant)s?([ _.-]?(id|idx|no|nr|code|name))?$",
    re.I,
)
PROMPT_HINT = re.compile(r"prompt|doc|question|source|input|test|task|query", re.I)
#: numeric columns named like this are prompt ids, never judges (``qid`` too)
PROMPT_ID = re.compile(
    r"^((prompt|question|doc|task|input|source|query|example|test|case)[ _-]?"
    r"(id|idx|index|no|nr)?|q[ _-]?(id|idx|no|nr))$",
    re.I,
)
RESPONSE_HINT = re.compile(
    r"output|response|summary|completion|answer|generation|reply|hypothesis|hyp\b|"
    r"translation|prediction|candidate",
    re.I,
)
#: text columns named like the input or the reference: the response only when no other
#: text is found
NOT_RESPONSE = re.compile(
    r"ref|source|src|article|input|prompt|question|context|document|target|gold", re.I
)
#: a text column named like the reference (TriviaQA's ``references``, ``gold``,
#: ``answer_key``, WMT's ``reference_A``): what the labellers compare with, never the response
REFERENCE_NAME = re.compile(r"(^|[_ .-])(refs?|references?|gold|answer[ _-]?keys?)([_ .-]|$)", re.I)


def response_of(texts: list[str]) -> str | None:
    """The response among the text columns ``texts``: the first named like one, else the
    first not named like the input or the reference (:data:`NOT_RESPONSE`), else the first
    that is not a reference (:data:`REFERENCE_NAME`); None where every one is."""
    kept = [c for c in texts if not REFERENCE_NAME.search(c)]
    named = [c for c in kept if RESPONSE_HINT.search(c)]
    other = [c for c in kept if not NOT_RESPONSE.search(c)]
    return next(iter(named or other or kept), None)


#: string columns named like this name the judge of each row: a long table
JUDGE_NAME = re.compile(r"judge|grader|evaluator|scorer|rater|annotator", re.I)
#: the score column of a long table, by name
SCORE_NAME = re.compile(r"score|rating|grade|verdict|value", re.I)
#: numeric columns named like an id (``seg_id``, ``row_id``; a spreadsheet's ``Résumé n°``,
#: ``Item No.``, ``Row #``): never judges
ID_LIKE = re.compile(r"(^|[_ .-])(id|ids|idx|index|no|nr|n°|nº|no\.)$|#$", re.I)
#: numeric columns named like a count, a time or an index, never judges: an export's
#: metadata (``created_at``, ``duration_ms``, ``tstamp``, ``n_words``; MLflow's
#: ``token_count``, Phoenix's ``attributes.llm.token_count.total`` and
#: ``execution_seconds``) as well
NOT_JUDGE = re.compile(
    r"^(epochs?|run|index|row|n|count)$|latency|tokens|token_?count|cost|_idx$|idx$|propensit"
    r"|seed|time|duration|elapsed|seconds|tstamp|_at$|_ms$|(^|[_ .-])(date|created|updated|epoch)",
    re.I,
)
#: numeric columns named like a length or a count of the response's parts
#: (``response_words``, ``hyp_len``, ``len_output``, ``n_chars``, ``num_output_sentences``):
#: never judges (doctor measures the length from the text). ``length_penalty``, a part
#: of BLEU, and ``n_errors``, a count a judge may give, are no match
LENGTH_NAME = re.compile(
    r"(^|[_ .-])(words|chars|characters|bytes|sentences|length|len|word_?count|char_?count)$"
    r"|^len[_ .-]|^(n|num|number|count)[_ .-]?(of[_ .-])?([a-z]+[_ .-])?(words|chars"
    r"|characters|bytes|sentences|lines|paragraphs|turns|retries|attempts|calls|requests"
    r"|messages)$",
    re.I,
)
#: numeric columns named like a batch, chunk, shard or page number: never judges when
#: in blocks along the rows (:func:`~bacon_bayes.doctor.scores.row_blocks`)
BLOCK_NAME = re.compile(
    r"(^|[_ .-])(batch|chunk|shard|page|split|fold|part|partition|block)(e?s)?"
    r"([_ .-]?(id|idx|no|nr|num|number|index))?$",
    re.I,
)

#: numeric columns named like a readability statistic of the text (MLflow ``evaluate``'s
#: ``flesch_kincaid_grade_level/v1/score``, ``ari_grade_level/v1/score``; textstat's
#: ``flesch_reading_ease``, ``gunning_fog``, ``smog_index``): a formula of its words and
#: sentences, the school grade that can read it, never a judge of its quality
#: (``gpt4_readability``, a judge rating readability, is no match)
READABILITY = re.compile(
    r"(^|[_ ./-])(flesch|kincaid|grade_?level|gunning_?fog|smog_?index|coleman_?liau"
    r"|automated_?readability|dale_?chall|linsear)",
    re.I,
)

#: a tool's own verdict or its cut-off, named so (DeepEval's ``success``, its metrics'
#: ``<metric>_success`` and ``threshold``): a judge's score against a threshold, never a
#: human rating
TOOL_VERDICT = re.compile(r"(^|[_ .-])(success|threshold)$", re.I)


def tool_verdict(name: str) -> bool:
    """Whether a column named ``name`` is a tool's verdict or threshold
    (:data:`TOOL_VERDICT`; ``human_success``, named like people's rating, is none)."""
    return bool(TOOL_VERDICT.search(name)) and not LABEL_HINT.search(name)


def not_judge_name(name: str, columns: Iterable[object] = ()) -> str | None:
    """Why a numeric column named ``name`` is no judge, in words (``named like a length
    ...``), or None when its name does not say: a length (:data:`LENGTH_NAME`), a count,
    a time or an index (:data:`NOT_JUDGE`), a tool's threshold, or its verdict beside the
    scores it is drawn from among the table's ``columns`` (:func:`derived_verdict`)."""
    if LENGTH_NAME.search(name):
        return (
            "named like a length (a count of words, characters or tokens; doctor measures "
            "the response's length from its text column)"
        )
    if NOT_JUDGE.search(name):
        return "named like a count, time or index"
    if READABILITY.search(name):
        return (
            "named like a readability statistic (a formula of the text's word and sentence "
            "lengths: the school grade that reads it), not a judge of its quality"
        )
    if tool_verdict(name) and name.lower().endswith("threshold"):
        return "named like a tool's pass threshold (DeepEval's), not a score"
    return derived_verdict(name, [str(c) for c in columns])


#: a metric's score column, by name (``answer_relevancy score``, ``faithfulness_score``)
_SCORE_OF = re.compile(r"^(?P<metric>.+?)[ _.-]score$", re.I)


def derived_verdict(name: str, columns: list[str]) -> str | None:
    """Why a tool's verdict (:func:`tool_verdict`: DeepEval's ``success``) is no judge of
    its own where the scores it is drawn from are columns too: ``<metric>_success`` beside
    ``<metric> score`` (that score against its threshold), ``success`` beside metrics'
    scores (every metric passed); None otherwise (the verdict alone is the judge)."""
    if not tool_verdict(name):
        return None
    scores = {m["metric"].lower(): c for c in columns if (m := _SCORE_OF.match(c))}
    metric = TOOL_VERDICT.sub("", name).lower()
    if metric and metric in scores:
        return (
            f"named as a tool's pass / fail of {scores[metric]!r} against its threshold "
            "(DeepEval's): that judge's score cut in two, no judge of its own nor a human label"
        )
    if not metric and scores:
        return (
            "named as a tool's pass / fail of the case (DeepEval's: every metric's score, "
            f"{', '.join(map(repr, list(scores.values())[:3]))}, against its threshold): "
            "drawn from the judges, no judge of its own nor a human label"
        )
    return None


_TOKEN = re.compile(r"[A-Za-z0-9]+")
#: the aspects evaluations rate (SummEval's, HelpSteer's, MT-Bench's, ...): names of
#: these are aspects, not systems (:func:`~bacon_bayes.doctor.wide.system_grid`)
ASPECT_WORDS = frozenset(
    "relevance relevancy coherence consistency fluency helpfulness harmlessness honesty "
    "correctness accuracy faithfulness factuality verbosity complexity informativeness "
    "naturalness engagingness groundedness overall quality clarity conciseness readability "
    "adequacy style grammar grammaticality safety toxicity creativity depth completeness "
    "usefulness understandability interestingness specificity empathy harmfulness tone "
    "reasoning instruction_following".split()
)


def other_aspects(label: str | None, judges: list[str], columns: list[str]) -> dict[str, str]:
    """The judges that score another aspect than the label's, each with why: a judge whose
    name becomes another column's when one of its words is replaced by a word of the
    label's name (SummEval's ``judge:gpt-4|rts|consistency`` beside
    ``judge:gpt-4|rts|coherence`` for the label ``expert_mean_coherence``)."""
    if label is None or len(judges) < 2:
        return {}
    said = set(_TOKEN.findall(label.lower()))
    names = {c.lower(): c for c in columns if c != label}
    aspects = {t for t in said if any(t in _TOKEN.findall(j.lower()) for j in judges)}
    drop: dict[str, str] = {}
    for j in judges:
        low = j.lower()
        words = set(_TOKEN.findall(low))
        if words & aspects:
            continue
        for t in aspects:
            for u in words - said:
                twin = re.sub(rf"(?<![a-z0-9]){re.escape(u)}(?![a-z0-9])", t, low)
                if twin in names and twin != low:
                    drop[j] = f"scores {u!r}, another aspect than the label's {t!r} ({names[twin]})"
    return drop


def judge_aspects(judges: list[str]) -> list[str]:
    """The words (4 letters or more) that tell apart judges otherwise named alike, when
    nearly every judge has one: SummEval's ``judge:gpt-4|rts|coherence`` beside
    ``...|consistency``, ``...|fluency`` and ``...|relevance`` (the aspects the judges
    score). Two words are alternatives when each replaces the other in at least two
    judges' names to give another judge's name; of the sets of alternatives, the one whose
    words name at least 80% of the judges, else none (``[]``). Where two sets do
    (``llama_coherence``, ``claude_coherence``, ``llama_fluency``, ...: the models as well
    as the aspects), the names do not say which is the aspect: none. Words that differ
    only in their last letter are variants of one thing, not aspects (WMT's metrics on
    ``refA`` and ``refB``, two references)."""
    low = [j.lower() for j in judges]
    names = set(low)
    words = {j: set(t for t in _TOKEN.findall(j) if t.isalpha() and len(t) >= 4) for j in low}
    every = sorted(set().union(*words.values())) if words else []

    def swaps(w: str, u: str) -> int:
        pat = re.compile(rf"(?<![a-z0-9]){re.escape(w)}(?![a-z0-9])")
        return sum(1 for j in low if w in words[j] and pat.sub(u, j) in names)

    linked = {
        w: {
            u
            for u in every
            if u[:-1] != w[:-1] and swaps(w, u) >= 2 and swaps(u, w) >= 2  # not refa, refb
        }
        for w in every
    }
    found: list[list[str]] = []
    seen: set[str] = set()
    for w in every:  # the sets of alternatives: connected words
        if w in seen or not linked[w]:
            continue
        part, todo = set(), [w]
        while todo:
            x = todo.pop()
            if x not in part:
                part.add(x)
                todo.extend(linked[x] - part)
        seen |= part
        if sum(1 for j in low if words[j] & part) >= 0.8 * len(low):
            found.append(sorted(part))
    return found[0] if len(found) == 1 else []


def aspect_ratings(columns: list[str]) -> dict[str, str]:
    """Columns named by one word that at least two other columns' names hold among others
    (SummEval's ``consistency`` beside ``judge:gpt-4|rts|consistency``): the human rating
    of an aspect the judges score, each with one of those judges; a tool's verdict
    (DeepEval's ``success`` beside ``answer_relevancy_success``: :func:`tool_verdict`) is
    none. A column whose word
    leads the others' names as a model's does (``gpt35`` beside ``gpt35_mcq`` and
    ``gpt35_star``, its prompt variants) is a judge, not a rating (:func:`_variant`)."""
    words = {c: _TOKEN.findall(c.lower()) for c in columns}
    out = {}
    for c, own in words.items():
        if len(own) != 1 or own[0].isdigit() or tool_verdict(c):  # DeepEval's success
            continue
        scored = [d for d, w in words.items() if d != c and len(w) > 1 and own[0] in w]
        scored = [d for d in scored if not _variant(own[0], words[d], words)]
        if len(scored) >= 2:
            out[c] = scored[0]
    return out


def _variant(word: str, name: list[str], words: dict[str, list[str]]) -> bool:
    """Whether a column whose words are ``name`` is a variant of the judge ``word`` rather
    than a judge of the aspect ``word``: ``word`` leads its name (``gpt35_mcq``,
    ``gpt4_t07``: the same model with another prompt or temperature), and its other words
    lead no other column's name beside another first word, as an aspect's judges
    (``coherence_gpt4`` beside ``consistency_gpt4``) would."""
    if name[0] != word:
        return False
    rest = set(name[1:])
    return not any(w[0] != word and rest <= set(w[1:]) for w in words.values() if len(w) > 1)


def rated_name(name: str) -> bool:
    """Whether a column is named like people's ratings (``human``, Argilla's ``responses``)."""
    return bool(LABEL_HINT.search(name) or name.lower().endswith("responses"))
