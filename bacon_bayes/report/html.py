"""One self-contained HTML page of a fitted Calibrator (``bacon report``).

Everything is inline (figures as PNG data, a few lines of CSS and JavaScript for
sortable tables), so the file opens offline and can be sent as it is. Every piece of
user text (item ids, judge and group names) is HTML-escaped.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bacon_bayes import __version__
from bacon_bayes.atomic import atomic_write_text
from bacon_bayes.estimate.core import VARIANCE_FLOOR
from bacon_bayes.estimate.tables import too_many_pairs
from bacon_bayes.model_choice import auto_reason
from bacon_bayes.order import cell_name, name_text, pair_text
from bacon_bayes.report import figures
from bacon_bayes.report.comparisons import comparisons, target_description, uncompared
from bacon_bayes.report.doctor import data_check
from bacon_bayes.report.simulate_folder import (
    simulate_mismatch,
    simulate_settings_line,
)
from bacon_bayes.report.tables import esc as _esc
from bacon_bayes.report.tables import fixed
from bacon_bayes.report.tables import scroll_table as _table
from bacon_bayes.report.text import (
    classical_note,
    early_look_note,
    estimates_frame,
    guarantee_note,
    naive_note,
    pool_notes,
    range_text,
    rates_note,
    withheld_lines,
)
from bacon_bayes.results import RANGE_END
from bacon_bayes.scale import is_binary
from bacon_bayes.surrogates import in_means

if TYPE_CHECKING:
    from bacon_bayes.calibrator import Calibrator

__all__ = ["SECTIONS", "render_report", "write_report"]

#: Section ids and headings, in page order (the round and simulation sections only with
#: their data).
SECTIONS = {
    "settings": "Data and settings",
    "doctor": "Data check",
    "round": "This round: calibrator, transport and history",
    "estimates": "Population estimates",
    "groups": "Group means and ranks",
    "comparisons": "Comparisons of groups",
    "bias": "Judge bias",
    "calibration": "Calibration",
    "items": "Items",
    "simulation": "Simulation study",
}

#: Rows of the item table in the page (the lowest items first; the rest are counted).
MAX_ITEM_ROWS = 300

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1200px;
color:#222;padding:0 1rem}
h1{font-size:1.6rem}h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2.2rem}
.scroll{overflow-x:auto;max-width:100%;margin:.6rem 0}
table{border-collapse:collapse;font-size:.85rem}
th,td{padding:.25rem .5rem;border-bottom:1px solid #eee;text-align:right}
th{background:#f6f6f6;cursor:pointer}
td:first-child,th:first-child{text-align:left;white-space:normal;overflow-wrap:break-word;
min-width:5rem;max-width:18rem}
img{max-width:100%;height:auto;min-width:300px;display:block;margin:.6rem 0}
.warn{color:#b00020;font-weight:600}
.note{color:#666;font-size:.85rem}.bad{color:#b00020}.ok{color:#0a7d32}.new{color:#1a56a8}
nav a{margin-right:1rem}
th:focus-visible{outline:2px solid #1a56a8}
@media print{body{max-width:none;margin:0;padding:0}nav{display:none}
.scroll{overflow:visible}table{font-size:.6rem}th,td{padding:.1rem .2rem}
tr,img{break-inside:avoid}}
"""

# Records script errors on the page (read back by the browser test) and makes every
# table sortable by a click on its header, or by Enter or Space on it (each header is
# in the Tab order; aria-sort says which column the rows are sorted by, and which way).
_SCRIPT = """
(function(){
  var root=document.documentElement;
  window.addEventListener('error',function(e){
    root.setAttribute('data-errors',(root.getAttribute('data-errors')||'')+e.message+';');
  });
  // a cell's sort key: [kind, value], numbers (inf and -inf too) before text, empty
  // cells last whichever the direction
  function key(td){var t=td.textContent.trim();
    if(t==='')return [2,0];
    if(/^[-+]?inf$/i.test(t))return [0,t.charAt(0)==='-'?-Infinity:Infinity];
    var n=parseFloat(t);
    return (!isNaN(n)&&/^[-+0-9.eE]+$/.test(t))?[0,n]:[1,t.toLowerCase()];}
  function order(x,y,up){if(x[0]!==y[0]||x[0]===2)return x[0]-y[0];
    return (x[1]<y[1]?-1:x[1]>y[1]?1:0)*(up?1:-1);}
  document.querySelectorAll('table.sortable').forEach(function(table){
    var heads=table.querySelectorAll('th');
    heads.forEach(function(th,col){
      function sort(){
        var body=table.tBodies[0];var rows=Array.prototype.slice.call(body.rows);
        var up=th.getAttribute('data-dir')!=='up';th.setAttribute('data-dir',up?'up':'down');
        heads.forEach(function(h){if(h!==th)h.removeAttribute('aria-sort');});
        th.setAttribute('aria-sort',up?'ascending':'descending');
        rows.sort(function(a,b){return order(key(a.cells[col]),key(b.cells[col]),up);});
        rows.forEach(function(r){body.appendChild(r);});
      }
      // the keyboard's way: Tab to a header, Enter or Space sorts by it
      th.tabIndex=0;th.title='sort by this column';
      th.addEventListener('click',sort);
      th.addEventListener('keydown',function(e){
        if(e.key==='Enter'||e.key===' '){e.preventDefault();sort();}});
    });
  });
  // printing: the folded tables unfolded, so the paper has every row
  window.addEventListener('beforeprint',function(){
    document.querySelectorAll('details').forEach(function(d){d.open=true;});});
  // layout facts for the browser test: page overflow and the narrowest figure
  window.addEventListener('load',function(){
    var imgs=Array.prototype.map.call(document.images,function(i){return i.clientWidth;});
    root.setAttribute('data-overflow',String(root.scrollWidth-root.clientWidth));
    root.setAttribute('data-min-figure',String(imgs.length?Math.min.apply(null,imgs):0));
    var clipped=Array.prototype.filter.call(document.querySelectorAll('.scroll'),function(b){
      return b.scrollWidth>b.clientWidth+1;}).map(function(b){return b.closest('section').id;});
    root.setAttribute('data-clipped',clipped.join(','));
  });
  root.setAttribute('data-ready','1');
})();
"""


def _img(uri: str, alt: str) -> str:
    return f'<img src="{uri}" alt="{_esc(alt)}">'


def _section(key: str, body: str) -> str:
    return f'<section id="{key}"><h2>{_esc(SECTIONS[key])}</h2>\n{body}\n</section>'


def _settings(cal: Calibrator) -> str:
    pool = cal.pool_
    uniform = pool.propensity is None or np.ptp(pool.propensity[pool.labeled]) == 0
    drawn = " (drawn at fit: seed=None)" if cal.seed is None else ""
    why = auto_reason(cal)  # which engine --engine auto took, and why
    rows = [
        ("items", f"{pool.n_items:,}"),
        ("labeled items", f"{pool.n_labeled:,}"),
        ("label", f"{pool.label_name} ({pool.outcome.kind})"),
        ("judges", ", ".join(map(str, pool.judges))),
        ("groups", "none" if pool.groups is None else f"{len(np.unique(pool.groups))}"),
        ("prompts", "none" if pool.prompts is None else f"{len(np.unique(pool.prompts)):,}"),
        ("target", "{} ({})".format(*target_description(cal))),
        ("design", _design(pool, uniform)),
        ("outcome model", f"{cal.model_name_} ({cal.engine_} engine{why and '; ' + why})"),
        ("AEE means from", " + ".join(in_means(cal.surrogate_names_, cal.extras_))),
        ("cross-fitting", f"{cal.folds} folds, seed {cal.seed_}{drawn}"),
        ("label range", range_text(cal.bounds_)),
    ]
    body = '<div class="scroll"><table>'
    body += "".join(f"<tr><th>{_esc(k)}</th><td>{_esc(v)}</td></tr>" for k, v in rows)
    body += "</table></div>"
    body += "".join(f'<p class="note">Note: {_esc(n.rstrip("."))}.</p>' for n in pool_notes(cal))
    diags = [getattr(m, "diagnostics_", None) for m in cal.crossfit_.models]
    if any(d is not None for d in diags):
        frame = pd.DataFrame(
            [
                {
                    "fold": k + 1,  # counted from 1, as the convergence note names them
                    "max R-hat": d.max_rhat,
                    "min bulk ESS": d.min_ess_bulk,
                    "min tail ESS": d.min_ess_tail,
                    "divergences": d.n_divergent,
                    "sampler": d.sampler,
                    "seconds": d.seconds,
                    "converged": "yes" if d.ok else "NO",
                }
                for k, d in enumerate(diags)
                if d is not None
            ]
        )
        body += "<h3>Convergence of the Bayesian fits</h3>" + _convergence(frame)
    else:
        body += '<p class="note">Frequentist engine: no sampler, no convergence checks.</p>'
    return body


def _convergence(frame: pd.DataFrame) -> str:
    """The convergence table; when every fold reports the same time (the cut fit samples
    the judge stage once and every fold's label link in one run), the time is said once
    instead of repeated as if per fold."""
    ess = [c for c in ("min bulk ESS", "min tail ESS") if c in frame]  # whole draws
    frame = frame.assign(**{c: [fixed(v, 0) for v in frame[c].astype(float)] for c in ess})
    seconds = frame["seconds"].to_numpy(dtype=float)
    if len(frame) > 1 and np.allclose(seconds, seconds[0]):
        note = (
            f"<p class='note'>Sampling took {seconds[0]:.1f} s in all: the folds were "
            "sampled together (the judge stage once, every fold's label link in one run), "
            "so there is no time per fold.</p>"
        )
        return _table(frame.drop(columns="seconds")) + note
    return _table(frame)


def _design(pool: Any, uniform: bool) -> str:
    if pool.inclusion is not None and pool.inclusion.clustered:
        return "prompts drawn (paired), prompt and item probabilities recorded"
    return "uniform" if uniform else "unequal inclusion probabilities (recorded)"


def _comparisons(
    cal: Calibrator,
    alpha: float,
    plan_note: str | None,
    anytime: dict[str, Any],
    better: str | None = None,
    baseline: str | None = None,
) -> str:
    c = comparisons(cal, alpha, plan_note=plan_note, anytime=anytime or None, better=better,
                    baseline=baseline)  # fmt: skip
    # a warning before the best line: "best" is the highest mean, an error score's worst
    hint = f"<p class='warn'>Warning: {_esc(c.direction_note)}.</p>" if c.direction_note else ""
    plan = f"<p>{_esc(c.plan_note)}</p>" if c.plan_note and not c.best_clear else ""
    diffs = c.differences.assign(resolved=np.where(c.differences["resolved"], "yes", ""))
    if {"group_a", "group_b"} <= set(diffs):  # ' M8' - M9 as the text shows it
        sides = zip(diffs["group_a"], diffs["group_b"], strict=True)
        diffs = diffs.assign(pair=[pair_text(a, b) for a, b in sides])
    diffs = diffs.drop(columns=["group_a", "group_b"], errors="ignore")  # for --json
    level = f"{100 * (1 - alpha):g}%"
    return (
        f"<p>AEE differences of group means with {level} intervals ({_esc(c.guarantee)}); "
        f"<b>target</b>: {_esc(c.target)} ({_esc(c.target_note)}); "
        f"<b>{_esc(c.pairing_note())}</b>.</p>"
        + (f"<p>Against {_esc(c.baseline)}: {_esc(c.family_line())}.</p>" if c.baseline else "")
        + hint
        + f"<p>{c.n_resolved} of {len(diffs)} {_esc(c.what_resolved())} resolved (interval "
        "excludes 0). "
        f"{_esc(_sentence(c.best_line()))}.</p>"
        + plan
        + _pairs_table(diffs, c.shown_pairs().index, c.shown_best)
        + "".join(f"<p>{_esc(line)}</p>" for line in c.withheld_lines())
    )


def _pairs_table(diffs: pd.DataFrame, shown: pd.Index, best: str) -> str:
    """The pairs as the text shows them (``best``'s and the resolved ones, when there are
    many), then every pair folded; every pair at once when they are few."""
    if len(shown) == len(diffs):
        return _table(diffs, 3)
    return (
        f"<p>Shown: {_esc(name_text(best))}'s pairs and the resolved ones ({len(shown)} of "
        f"{len(diffs)}); every pair in the folded table below.</p>"
        + _table(diffs.loc[shown], 3)
        + f"<details><summary>All {len(diffs)} pairs</summary>{_table(diffs, 3)}</details>"
    )


def _estimates(cal: Calibrator, alpha: float, truth: float | None, anytime: dict[str, Any]) -> str:
    left_out = naive_note(cal.pool_, cal.bounds_)
    methods = ("aee", "classical") if left_out else ("aee", "classical", "naive")
    ests = [cal.estimate_mean(alpha, m, **anytime) for m in methods]
    frame = estimates_frame(ests)
    kind = ests[0].details.get("interval_kind")
    naive = (
        f"naive (raw judge average) left out: {_esc(left_out)}."
        if left_out
        else "naive: raw judge average (no labels, biased)."
        if not kind
        else "naive: raw judge average (no labels, biased; its interval is one look's, "
        "not anytime: without labels, no wave is looked at twice)."
    )
    guarantee = (
        f"{kind}: valid at every wave, whatever the stopping rule"
        if kind
        else "one look's: valid when the number of labels was fixed before looking"
    )
    said = dict.fromkeys(e.details.get(k) for e in ests for k in (RANGE_END, VARIANCE_FLOOR))
    note = (
        f"<p class='note'>{100 * (1 - alpha):g}% intervals ({_esc(guarantee)}). "
        "aee: calibrated judges plus labels (valid CI with any model); "
        f"classical: labels only; {naive}</p>"
        + "".join(f"<p class='note'>{_esc(n)}</p>" for n in said if n)
    )
    tables = []
    if anytime.get("max_labels") and cal.pool_.groups is not None:  # as the page shows them
        tables = [cal.estimate_groups(alpha, True, **anytime)]
        if len(tables[0]) > 1 and too_many_pairs(len(tables[0])) is None:
            tables.append(cal.compare_groups(alpha, True, **anytime))
    if early := early_look_note(ests[0], tables):  # why an early look is wide
        note += f"<p class='note'>{_esc(early)}</p>"
    return (
        _img(figures.estimates_figure(ests, truth), figures.estimates_alt(ests))
        + _table(frame, 4)
        + note
    )


def _groups(
    cal: Calibrator, alpha: float, anytime: dict[str, Any], better: str | None = None
) -> str:
    if cal.pool_.groups is None:
        return '<p class="note">The pool has no group column (pass --group).</p>'
    tables = [cal.estimate_groups(alpha, True, m, **anytime) for m in ("aee", "classical")]
    means = tables[0].to_frame()
    down = better != "lower"  # rank 1: the highest mean, or the lowest (an error score)
    unranked = too_many_pairs(len(tables[0]))  # the ranks need every pair
    if unranked is None:
        ranks = cal.rank_groups(alpha, descending=down, **anytime)
        means = means.merge(ranks[["name", "rank", "rank_low", "rank_high"]], on="name")
    keys = ("pooling_note", VARIANCE_FLOOR)
    notes = dict.fromkeys(t.details.get(k) for t in tables for k in keys)
    level = f"{100 * (1 - alpha):g}%"
    return (
        _img(
            figures.groups_figure(tables, _groups_axis(cal, better)),
            figures.series_alt("group means", tables),
        )
        + _withheld(tables)
        + f"<p>{level} intervals: <b>{_esc(guarantee_note(tables[0]))}</b>.</p>"
        + "".join(
            f"<p class='note'>{_esc(_sentence(n))}.</p>"
            for n in (*notes, classical_note(tables))
            if n
        )
        + _table(_named(means, "name"), 3)
        + _se_note(tables[0].details.get("se"))
        + (
            f"<p class='note'>Rank intervals skipped: {_esc(unranked)}.</p>"
            if unranked
            else "<p class='note'>rank low - rank high: the ranks each group can take, read "
            "from the intervals of the pairwise differences (a group ranks above another "
            "only where their difference excludes 0), so they hold as those do; the "
            f'differences are in <a href="#comparisons">{_esc(SECTIONS["comparisons"])}</a>, '
            "below.</p>"
        )
    )


def _se_note(note: str | None) -> str:
    """Under the group table, what its se column is where it is not the error of the
    estimate (shrunk means: their noise only, ``details["se"]``), else ``""``."""
    if not note:
        return ""
    column, said = note.split(" ", 1)
    return f"<p class='note'><b>{_esc(column)}</b> {_esc(said)}.</p>"


def _withheld(tables: list[Any]) -> str:
    """The caption under the group figure: why a group has no interval (its x), by
    column; the classical column's reasons are in no table."""
    lines = withheld_lines(tables)
    if not lines:
        return ""
    said = "<br>".join(_esc(line) for line in lines)
    return f"<p class='note'>x in the figure, no interval:<br>{said}.</p>"


def _groups_axis(cal: Calibrator, better: str | None) -> str:
    """The group figure's axis label: which way is better where the highest mean (on top)
    is not the best (``--better lower``), or may not be (the label looks like an error
    score and ``better`` was not given)."""
    from bacon_bayes.doctor.pooled import better_hint

    tail = "intervals as in the table; x: no interval"
    if better == "lower":
        return f"group mean (lower is better: the best at the bottom; {tail})"
    if better is None and better_hint(cal.pool_, cal.bounds_):
        return f"group mean (an error score? the top is the worst if lower is better; {tail})"
    return f"group mean ({tail})"


#: Report names of the judge-bias table's noise columns (the forest plot's axis label).
NOISE_NAMES = {"noise_human": "noise (human units)", "noise": "noise (judge units)"}


def _bias(cal: Calibrator, level: float) -> str:
    from bacon_bayes.bayes.bias import draws_intervals, forest_figure
    from bacon_bayes.judge_bias import MIN_SIGNAL, informativeness, reversed_judges

    labels = cal.pool_.y[cal.pool_.labeled]
    sd = float(np.std(labels, ddof=1)) if labels.size > 1 else float("nan")
    table = informativeness(cal.judge_bias(level), sd, falls=reversed_judges(cal.pool_))
    plotted = table.copy()
    if "verdict" in table:  # uninformative, reversed: said beside the name, as in the table
        names, said = table["judge"].astype(str), table["verdict"].astype(str)
        plotted["judge"] = np.where(said != "", names + " (" + said + ")", names)
    drawn = f"{level:.0%} intervals" if draws_intervals(plotted) else "estimates, no intervals"
    uri = figures.data_uri(forest_figure(plotted, title=f"Judge bias ({drawn})"))
    note = (
        "<p class='note'><b>bias</b>: the judge's expected score minus the human label at "
        "the pool's typical item, on the label's scale (positive: the judge scores higher "
        "than people do); empty where the judge does not score on the label's scale; "
        f"<b>low</b> - <b>high</b>: {level:.0%} intervals, each judge's on its own (not "
        "adjusted for the number of judges). "
        "<b>noise (human units)</b> (<code>noise_human</code>, the figure in the plot): the "
        "judge's error once calibrated to the label's scale, its residual sd around its "
        "line, <b>noise (judge units)</b>, divided by its slope, "
        "<b>scale</b> (lower is better; compare it with the sd of what the line is on, "
        f"{_line_sd(table, sd)}). <b>signal</b>: sd<sup>2</sup> / (sd<sup>2</sup> + noise "
        "(human units)<sup>2</sup>), the share of the calibrated judge's variance that "
        f"follows it; below {MIN_SIGNAL:g}, or with a scale interval that includes 0, the "
        "judge is marked <b>uninformative</b>: it tells almost nothing about the label; a "
        "judge whose scores fall as the label rises is marked <b>reversed</b> (score it as "
        "high - score to read its line), and <b>reversed, uninformative</b> when its line "
        "is that weak too. "
        f"{_engine_note(cal)}</p>"
    )
    if r := _esc(rates_note(table, level)):  # a categorical label (its Bayesian table: no lines)
        note = f"{note[:-4]} {r}</p>" if "noise_human" in table else f"<p class='note'>{r}</p>"
    alt = f"judge bias forest plot of {len(table)} judges ({drawn}): the table below"
    return _img(uri, alt) + _lines_left_out(table) + note + _table(_bias_columns(table), 3)


def _lines_left_out(table: pd.DataFrame) -> str:
    """The forest plot's caption where judges off the label's scale are left out of its
    offset and scale panels (in their own units, they would squash the others'), or
    those panels are dropped (no judge on it); "" where every judge is drawn."""
    from bacon_bayes.bayes.bias import LINE_PANELS, label_scale_judges

    on, n = label_scale_judges(table), len(table)
    if on.all() or not any(k in table for k in LINE_PANELS):
        return ""
    if on.any():
        said = (
            f"{n - int(on.sum())} of {n} judges left out of offset and scale: not on the "
            "label's scale (no bias: scores off its range, or reversed)"
        )
    else:
        said = "offset and scale not drawn: no judge is on the label's scale"
    return f"<p class='note'>({_esc(said)}; the table below has them.)</p>"


def _line_sd(table: pd.DataFrame, label_sd: float) -> str:
    """The sd the judges' noise reads against: the labels', or the Bayesian table's
    human-scale quality's (:mod:`bacon_bayes.bayes.bias`)."""
    if "quality_sd" in table:
        return f"the shared quality's sd, <b>quality sd</b>, {table['quality_sd'].iloc[0]:.3g}"
    return f"the labels' sd, {label_sd:.3g}"


def _engine_note(cal: Calibrator) -> str:
    """What the judge's line is drawn against, by engine (the figures differ by it)."""
    from bacon_bayes.frozen import applied
    from bacon_bayes.judge_bias import posterior_table

    if posterior_table(cal):
        return (
            "Bayesian engine: each judge's line is on the quality the judges share, on "
            "the label's scale (E[label | latent], sd <b>quality sd</b>), not on the "
            "label: what the label holds beyond it (the raters' own noise, and what every "
            "judge misses) is not counted against the judge, so its scale is larger and "
            "its noise smaller than a line on the labels would give. The table pools the "
            "folds' models (bacon judges fits one on all labels: its figures differ)."
        )
    return (
        (
            f"This pool's table, from its {cal.pool_.n_labeled} labels (the calibrator was "
            "fitted on an earlier round; its judges' biases are measured again here): "
            if applied(cal)
            else "Frequentist engine: "
        )
        + "each judge's line is fitted on the labeled items against the labels "
        "themselves, so their own noise (e.g. raters' disagreement) counts against "
        "the judge: noise and signal are then higher and lower than the Bayesian engine's."
    )


def _bias_columns(table: pd.DataFrame) -> pd.DataFrame:
    """The judge-bias table for the page: the figures to read first (verdict, bias,
    noise in human units, signal), then the rest; noise columns named by their units,
    headers with spaces for underscores."""
    first = ["judge", "verdict", "bias", "bias_low", "bias_high"]
    first += ["noise_human", "noise_human_low", "noise_human_high", "signal"]
    order = [c for c in first if c in table] + [c for c in table if c not in first]
    renamed = {}
    for col in order:
        for key, name in NOISE_NAMES.items():
            if col == key or (col.startswith(key + "_") and col[len(key) + 1 :] in ("low", "high")):
                renamed[col] = name + col[len(key) :].replace("_", " ")
                break
    # spaces for underscores: headers wrap, so the table fits the page
    return table[order].rename(columns=lambda c: renamed.get(c, c).replace("_", " "))


def _calibration(cal: Calibrator) -> str:
    pool = cal.pool_
    lab = pool.labeled
    f = cal.surrogate_
    columns = {"label": (y := pool.y[lab]), "surrogate": f}
    scores = pool.judge_matrix()
    for j in pool.judges:
        columns[str(j)] = scores[j].to_numpy(dtype=float)
    return (
        "<p class='note'>Labeled items: the out-of-fold surrogate (the model never saw the "
        "item's label) against the label; a calibrated surrogate follows the identity.</p>"
        + _img(figures.calibration_figure(f[lab], y), figures.calibration_alt(f[lab], y))
        + "<h3>Distributions of the labels, the surrogate and each judge</h3>"
        + _img(figures.distributions_figure(columns), figures.distributions_alt(columns))
    )


def _items(cal: Calibrator, level: float, item_note: str | None = None) -> str:
    from bacon_bayes.items import TooFewForConformal

    try:
        items = cal.item_scores(level)
    except TooFewForConformal as exc:  # a small pilot: the rest of the report stands
        return f"<p class='note'>No item intervals: {_esc(str(exc))}</p>"
    items = items.iloc[np.lexsort((cal.surrogate_, items["score"].to_numpy()))]
    levels = cal.pool_.outcome.levels
    binary = "set" in items and levels is not None and is_binary(np.asarray(levels, float))
    shown = items.head(MAX_ITEM_ROWS)
    cut = len(items) - len(shown)
    what = f"{level:.0%} conformal intervals"
    if "group" in items:  # scaled by each group's residual spread (items.group_scales)
        what += " (over all items; per group only approximately)"
    what += "; lowest scores first" + "".join(
        f"; {n:,} items at the bound {b:g} share rank {r:,}, listed by their unclipped score"
        for b, n, r in _at_bounds(items, None if "set" in items else cal.bounds_)
    )
    if binary:  # class sets: one threshold for all groups
        shown, what = binary_items(shown), binary_note(level)
        what += "; the sets hold over all items, not per group" if "group" in items else ""
    what += f"; {item_note}" if item_note else ""
    note = f"<p class='note'>{_esc(what)}"
    note += f"; {cut:,} more items not shown.</p>" if cut else ".</p>"
    return note + _table(_named(shown, "group"), 3)


def _at_bounds(items: pd.DataFrame, bounds: Any) -> list[tuple[float, int, int]]:
    """Each end of the label's range ``bounds`` (falsy: none) that two or more item
    scores were clipped to: the bound, how many items sit there, and their shared rank."""
    out = []
    for b in bounds or ():
        at = items["score"].to_numpy() == b
        if np.isfinite(b) and at.sum() > 1:
            out.append((float(b), int(at.sum()), int(items["rank"].to_numpy()[at].min())))
    return out


def _named(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """``frame`` with its ``column`` of group names as the text tables show them
    (:func:`~bacon_bayes.order.cell_name`: ``' M8'`` quoted, which HTML would show as
    ``M8``, beside ``M8``)."""
    if column not in frame:
        return frame
    return frame.assign(**{column: [cell_name(v) for v in frame[column]]})


def binary_note(level: float) -> str:
    """What the item rows of a 0/1 label show."""
    return (
        "a 0/1 label: each item's probability of a 1 (the calibrated surrogate) and its "
        f"{level:.0%} conformal prediction set of labels ({{0}}, {{1}}, or {{0, 1}} where "
        "the model cannot tell; never empty), "
        "with the model's probability of that set; the set is for the item's label, not "
        "an interval for its probability; lowest probabilities first"
    )


def binary_items(items: pd.DataFrame) -> pd.DataFrame:
    """Item rows of a 0/1 label: ``score`` as ``P(label = 1)`` and the prediction set as
    a set of labels, in place of its smallest and largest level (a {0, 1} "interval")."""
    sets = ["{" + ", ".join(f"{v:g}" for v in s) + "}" if s else "{}" for s in items["set"]]
    out = items.drop(columns=["lower", "upper"]).assign(set=sets)
    return out.rename(columns={"score": "P(label = 1)", "set": "label set", "set_prob": "P(set)"})


#: Columns of a simulate summary shown in the page (of its 34; the rest in summary.csv).
SIMULATE_COLUMNS = (
    "design", "method", "engine", "budget", "trials", "bias", "rmse", "width", "coverage",
    "band_low", "band_high", "label_multiplier", "simultaneous_coverage", "rank_coverage",
    "diff_coverage", "max_rhat",
)  # fmt: skip

#: Columns of the oracle ablation shown in the page (when the folder has one).
ABLATION_COLUMNS = ("config", "type", "family", "engine", "r2", "rmse", "spearman", "note")


def _simulation(
    summary: pd.DataFrame | None,
    ablation: pd.DataFrame | None = None,
    settings: dict[str, Any] | None = None,
    mismatch: str = "",
) -> str:
    body = ""
    if settings:
        body += f"<p class='note'>{_esc(simulate_settings_line(settings))}</p>"
    if mismatch:
        body += f"<p class='warn'>{_esc(mismatch)}</p>"
    if summary is not None:
        cols = [c for c in SIMULATE_COLUMNS if c in summary.columns]
        more = len(summary.columns) - len(cols)
        body += _img(figures.simulate_figure(summary), "simulation curves") + _table(
            summary[cols], 4
        )
        if more:
            body += (
                f"<p class='note'>{more} more columns (the group metrics' trials, Kendall, "
                "rank error, the differences' details...) are in the folder's summary.csv."
                "</p>"
            )
    if ablation is not None:
        cols = [c for c in ABLATION_COLUMNS if c in ablation.columns]
        body += (
            "<h3>Oracle ablation</h3><p class='note'>Every label known, out-of-fold fit of "
            "each feature set (bacon simulate --ablation).</p>" + _table(ablation[cols], 4)
        )
    return body


def render_report(
    cal: Calibrator,
    *,
    title: str | None = None,
    alpha: float = 0.05,
    level: float = 0.9,
    simulate: pd.DataFrame | None = None,
    ablation: pd.DataFrame | None = None,
    truth: float | None = None,
    plan_note: str | None = None,
    extra: dict[str, str] | None = None,
    anytime: dict[str, Any] | None = None,
    simulate_settings: dict[str, Any] | None = None,
    better: str | None = None,
    baseline: str | None = None,
    item_note: str | None = None,
) -> str:
    """The report page of a fitted Calibrator as one HTML string (``plan_note``: the
    plan's line on the labels that would resolve the comparisons, see
    :func:`bacon_bayes.planning.resolution_note`; ``extra``: HTML bodies by section id,
    appended to that section or making it, e.g. ``round`` and the judge drift under
    ``bias`` from :mod:`bacon_bayes.report.rounds`; ``anytime``: ``anytime=True`` and
    ``max_labels`` for the estimates, group tables, comparisons and ranks, as
    ``bacon estimate`` gives them on a study folder; None: one look's intervals;
    ``simulate_settings``: the simulate folder's settings, said in its section, with a
    warning when they name another label or other judges than this pool's; ``better``:
    which way a group mean is better, ``"higher"`` or ``"lower"``, for the comparisons'
    ranks and best group; None: higher, with a hint where the label looks like an error
    score; ``baseline``: a group's name, every other compared against it alone;
    ``item_note``: what the item ids are where no id column gave them, e.g. rows)."""
    cal._check_fitted()
    title = title or f"bacon_bayes report: {cal.pool_.label_name}"
    parts = {
        "settings": _settings(cal),
        "doctor": data_check(cal.pool_, alpha, bounds=cal.bounds_),
        "estimates": _estimates(cal, alpha, truth, anytime or {}),
        "groups": _groups(cal, alpha, anytime or {}, better),
    }
    n_groups = 0 if cal.pool_.groups is None else np.unique(cal.pool_.groups).size
    skipped = None if baseline else uncompared(n_groups, cal.pool_.group_name or "group")
    if skipped:  # past MAX_COMPARED groups: the means above, no pairs
        parts["comparisons"] = f"<p class='note'>{_esc(_sentence(skipped))}.</p>"
    elif n_groups > 1:
        parts["comparisons"] = _comparisons(cal, alpha, plan_note, anytime or {}, better, baseline)
    parts |= {
        "bias": _bias(cal, level),
        "calibration": _calibration(cal),
        "items": _items(cal, level, item_note),
    }
    if simulate is not None or ablation is not None:
        mismatch = simulate_mismatch(cal.pool_, simulate_settings or {})
        parts["simulation"] = _simulation(simulate, ablation, simulate_settings, mismatch)
    for key, body in (extra or {}).items():
        if key not in SECTIONS:
            raise ValueError(f"extra: unknown section {key!r}; known: {', '.join(SECTIONS)}")
        parts[key] = parts.get(key, "") + body
    parts = {k: parts[k] for k in SECTIONS if k in parts}
    nav = "".join(f'<a href="#{k}">{_esc(SECTIONS[k])}</a>' for k in parts)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_esc(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{_esc(title)}</h1><p class='note'>bacon_bayes {__version__}, {stamp}</p>"
        f"<nav>{nav}</nav>"
        + "\n".join(_section(k, v) for k, v in parts.items())
        + f"<script>{_SCRIPT}</script></body></html>\n"
    )


def write_report(cal: Calibrator, path: str | Path, **kwargs: Any) -> Path:
    """Write :func:`render_report`'s page to ``path`` (atomically); returns the path."""
    return atomic_write_text(path, render_report(cal, **kwargs))


def _sentence(text: str) -> str:
    """``text`` with its first letter capitalised (the rest as it is)."""
    return text[:1].upper() + text[1:]
