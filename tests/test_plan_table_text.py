"""``bacon plan``'s table: columns two spaces apart and each value under its header, also
when a header is as wide as its column (budgets of six digits, finding 4 of round 38)."""

from __future__ import annotations

import dataclasses
import re

from bacon_bayes.planning import Goal, plan
from tests.test_plan import pilot_pool, synthetic


def test_plan_table_headers_are_separated_and_values_line_up():
    result = plan(pilot_pool(synthetic(groups=3, prompts=100), 0.2), Goal("half-width", 0.2))
    big = [100000, 200000, 2000000]  # 'half-width @2000000' is wider than the old column
    for k, d in enumerate(result.designs):
        at = [{"labels": b, "half-width": 0.0259 / (j + 1) + k * 1e-4} for j, b in enumerate(big)]
        result.designs[k] = dataclasses.replace(d, at_budgets=at, labels_needed=27837)
    lines = result.to_text().splitlines()
    head = next(line for line in lines if line.startswith("design"))
    names = re.split(r"\s{2,}", head)
    assert names == ["design", "labels needed", "new"] + [f"half-width @{b}" for b in big]
    rows = [line for line in lines if line.split(" ")[0] in {d.design for d in result.designs}]
    assert len(rows) == len(result.designs)
    for name in names[1:]:  # right-aligned: every value ends where its header ends
        end = head.index(name) + len(name)
        for row in rows:
            assert row[end - 1] != " " and (end == len(row) or row[end] == " "), (name, row)


def test_powers_are_printed_to_three_decimals():
    """A walk's finding: `plan --top` printed 0.000125, 0.00575 and 0.4855 in one row."""
    result = plan(pilot_pool(synthetic(groups=3, prompts=100), 0.2), Goal("top", power=0.8))
    d = result.designs[0]
    at = [{"labels": b, "power": p} for b, p in ((240, 0.000125), (480, 0.00575), (960, 0.4855))]
    result.designs[0] = dataclasses.replace(d, at_budgets=at)
    row = next(line for line in result.to_text().splitlines() if line.startswith(d.design))
    assert row.split()[-3:] == ["<0.001", "0.006", "0.485"], row
