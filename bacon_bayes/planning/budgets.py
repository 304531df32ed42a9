"""The budgets a plan predicts at (``bacon plan --budgets``, the pairwise plan's too):
labels in all, past the pilot's and within the pool, with a note on those left out."""

from __future__ import annotations

from bacon_bayes.errors import ValidationError

__all__ = ["budget_labels"]


def budget_labels(
    budgets: list[float] | None, N: int, n0: int, notes: list[str] | None = None
) -> list[int]:
    """A plan's budgets (labels in all).

    ``budgets`` (shares of the pool ``N`` below 1, counts from 1) past the pilot's ``n0``
    labels or at them, at most ``N``, each once; the budgets left out (below ``n0``) or cut to
    ``N`` are said in a note appended to ``notes`` (tester A finding 7: they were replaced
    by ``n0`` without a word). Without ``budgets``: 5, 10 and 20% of the pool past the
    pilot, topped up to three by 2, 4 and 8 times the pilot.

    Raises
    ------
    ValidationError
        A budget not above 0, or every one below the pilot's labels.
    """
    if not budgets:
        out = [b for f in (0.05, 0.1, 0.2) if n0 < (b := round(f * N))]
        out += [b for k in (2, 4, 8) if n0 < (b := min(N, k * n0))]
        return sorted(list(dict.fromkeys(out))[:3]) or [N]
    asked: dict[str, int] = {}
    for share in budgets:
        if not share > 0:
            raise ValidationError(f"budget {share!r} must be > 0 (a share of the pool or a count).")
        n = round(share * N) if share < 1 else int(share)
        asked[f"{share:g}" if share >= 1 else f"{share:g} ({n} labels)"] = n
    low = [k for k, n in asked.items() if n < n0] if n0 < N else []
    said = f"below the {n0} labels the pilot has (a budget counts the labels in all)"
    if low and len(low) == len(asked):
        raise ValidationError(
            f"--budgets {', '.join(low)}: every budget is {said}; give budgets above {n0}."
        )
    high = [k for k, n in asked.items() if n > N]
    notes = [] if notes is None else notes
    if low:
        notes.append(f"--budgets {', '.join(low)}: {said}, so left out")
    if high:
        notes.append(f"--budgets {', '.join(high)}: beyond the pool's {N} items, so taken as {N}")
    return list(dict.fromkeys(min(N, n) for n in asked.values() if n >= n0 or n0 >= N))
