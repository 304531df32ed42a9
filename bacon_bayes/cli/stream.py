"""``bacon estimate`` on a pool streamed from disk (a Parquet dataset, ``--chunk-rows``,
``--scheduler``): the same tables as the in-memory command."""

from __future__ import annotations

import argparse
import contextlib
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bacon_bayes.errors import ValidationError
from bacon_bayes.outputs import FORCE_HELP, claim

if TYPE_CHECKING:  # the parser is built without the library (a quick --help)
    from bacon_bayes.report.comparisons import Comparisons
    from bacon_bayes.stream import StreamResult

#: Rows per chunk, as ``bacon_bayes.stream.DEFAULT_CHUNK_ROWS`` (tests/test_cli_startup.py).
DEFAULT_CHUNK_ROWS = 1_000_000

#: Options of the in-memory path only (streamed estimators have no prompt-clustered
#: variances: --prompt needs the items of one prompt together; see NO_PROMPTS).
UNSTREAMED = ("scores", "embedding", "text", "allow_pending", "prompt", "prompt_propensity")


#: Why a streamed estimate takes no prompt column.
NO_PROMPTS = (
    "it does not use prompts: its variances treat items as independent (as the "
    "in-memory estimate of this pool's mean does when labels were drawn item by item) and "
    "it has no prompt-clustered variance, which needs the items of each prompt together; "
    "its folds are not split by prompt either. With labels drawn by prompt (a paired "
    "design) or for --target population, estimate in memory: pass a single table without "
    "--chunk-rows/--scheduler. Otherwise drop the option."
)

#: The comparisons' plan line where it would stand (the plan's pilot statistics need the
#: pool's items in memory: predictive variances and group sizes over every item).
STREAM_PLAN = (
    "bacon plan: the labels that would resolve the top group are not predicted when "
    "streaming (the plan needs the pool's items in memory); bacon plan on the pool as one "
    "table gives it"
)


def add_stream_arguments(p: argparse.ArgumentParser) -> None:
    """Options of the streaming path of ``bacon estimate``."""
    p.add_argument(
        "--chunk-rows",
        type=int,
        help=f"stream the table in chunks of this many rows (default {DEFAULT_CHUNK_ROWS:,} "
        "when FILE is a folder of Parquet/CSV files); memory grows with it, not the pool",
    )
    p.add_argument(
        "--scheduler",
        help="run the streaming passes on Dask: a scheduler address (tcp://host:8786) or "
        "local:N (N local worker processes)",
    )
    p.add_argument(
        "--items-out",
        help="also write every item's score and 90%% interval to this Parquet (or .csv) "
        "file: in memory, Calibrator.item_scores(0.9) of the fit estimated (class sets of a "
        "categorical label); when streaming (a folder of files, --chunk-rows, --scheduler), "
        "score and conformal interval chunk by chunk (with --scheduler: a folder of Parquet "
        "parts, named without a suffix or .parquet)",
    )
    p.add_argument(
        "--force", action="store_true", help="--items-out, --save, --history: " + FORCE_HELP
    )


def wants_stream(args: argparse.Namespace) -> bool:
    """Stream when FILE is a folder of data files (not a study) or ``--chunk-rows`` or
    ``--scheduler`` is given."""
    from bacon_bayes.stream import is_stream_source
    from bacon_bayes.study.folder import CONFIG_FILE

    path = Path(args.file)
    if (path / CONFIG_FILE).is_file():
        if args.chunk_rows or args.scheduler:
            raise ValidationError(
                "a study folder is read in memory; drop --chunk-rows/--scheduler."
            )
        return False
    folder = path.is_dir() and is_stream_source(path)
    # not --items-out: on one table it writes the in-memory fit's item scores, so asking
    # for them does not change the estimator (tester E finding 3)
    return bool(folder or args.chunk_rows or args.scheduler)


def run_stream(args: argparse.Namespace, calibrator: Any, levels: list[float] | None) -> int:
    """Estimate from a streamed pool and print the tables of ``bacon estimate``."""
    from bacon_bayes.report.text import classical_note, estimate_output
    from bacon_bayes.results import json_text

    for name in UNSTREAMED:
        if getattr(args, name, None):
            flag = "--" + name.replace("_", "-")
            if name.startswith("prompt"):
                raise ValidationError(f"{flag} is not supported when streaming: {NO_PROMPTS}")
            raise ValidationError(
                f"{flag} is not supported when streaming (a Parquet dataset, --chunk-rows, "
                f"--scheduler); drop {flag} or pass a single table without streaming options."
            )
    from bacon_bayes.study.folder import refuse_missing

    refuse_missing(args.file)  # a typo: said, not answered with a table's options
    if not args.label:
        raise ValidationError("--label is required; name the column of labels.")
    args.item = args.item or stream_item(args)
    with contextlib.ExitStack() as stack:
        out = None
        if args.items_out:
            out = stack.enter_context(
                claim(
                    args.items_out,
                    option="--items-out",
                    inputs=[args.file],
                    folder=bool(args.scheduler),
                    force=args.force,
                )
            )
        result = _estimate(args, calibrator, levels, None if out is None else out.path)
        if out is not None:
            out.written()
    from bacon_bayes.report.comparisons import target_text

    target = target_text(result.fit.calibrator.target, result.n_items)
    compared, too_many = _comparisons(result, args, target)
    # why the naive average is none of the label's, as the estimates carry it
    naive = [e.details.get("not_comparable", "") for e in result.means if e.method == "naive"]
    left_out = naive[0] if naive else ""
    if left_out:
        result.means = [e for e in result.means if e.method != "naive"]
        result.groups = result.groups and [t for t in result.groups if t.method != "naive"]
    if args.json:
        out = summary(result, args)
        out["target"] = {"target": target[0], "note": target[1]}
        out["n_prompts"] = None  # as in memory; a stream takes no --prompt
        if left_out:
            out["naive_left_out"] = left_out
        if compared is not None:
            out["comparisons"] = compared.to_dict()
        out["notes"] = [*result.fit.notes, *([too_many] if too_many else [])]  # as printed
        # the classical column's note printed under the group table (shrunk AEE means)
        out["notes"] += [n for n in [classical_note(result.groups or [])] if n]
        print(json_text(out))
        return 0
    fit = result.fit
    header = (
        f"{result.n_items} items, {len(fit.labeled)} labeled, {len(fit.model.features.judges)} "
        f"judges; model {fit.model_name} ({fit.engine}), {args.folds}-fold cross-fitting, "
        f"seed {fit.seed}; streamed\ntarget: {target[0]} ({target[1]})"
    )
    missing = fit.model.features.report()["missing"]
    print(
        estimate_output(
            header, fit.notes, missing, args.label, args.alpha, result.means, result.quantiles,
            result.groups, args.group, quantile_note="; the naive baseline is not streamed",
        )
        + ("" if compared is None else "\n" + compared.to_text(args.pairs))
        + (f"\n{too_many}" if too_many else "")
        + (f"\nnaive (raw judge avg) left out: {left_out}" if left_out else "")
    )  # fmt: skip
    if result.items_out is not None:
        where = str(result.items_out)
        parts = f" (a folder of Parquet parts: pd.read_parquet({where!r}) reads it)"
        print(f"\nitem scores written to {where!r}" + (parts if Path(where).is_dir() else ""))
    return 0


def stream_item(args: argparse.Namespace) -> str | None:
    """The item id column of a streamed table without ``--item``: the first column named
    as :data:`~bacon_bayes.io.ITEM_COLUMNS` in its first file that is neither the label
    nor a judge nor the group (as in memory, where it must also be unique: the stream
    reads it for the labeled rows and ``--items-out``); None: items are numbered by row."""
    from bacon_bayes.cli.judge_args import split_judges
    from bacon_bayes.io import ITEM_COLUMNS, item_name
    from bacon_bayes.stream.source import dataset_files, file_columns

    files = dataset_files(args.file, strict=False)  # the stream names unread files once
    if not files:
        return None  # the stream refuses the folder itself
    columns = file_columns(files[0])
    taken = {args.label, args.group, *split_judges(args.judge)}
    found = (c for n in ITEM_COLUMNS for c in columns if item_name(c) == n and c not in taken)
    return next(found, None)


def _comparisons(
    result: StreamResult, args: argparse.Namespace, target: tuple[str, str]
) -> tuple[Comparisons | None, str | None]:
    """The comparisons of the streamed groups, as in memory (None: under two groups), and
    the note where they are too many to compare."""
    if not result.groups or len(result.groups[0].names) < 2:
        return None, None
    from bacon_bayes.cli.pool_args import better_from_args
    from bacon_bayes.cli.printed import better_rerun
    from bacon_bayes.report.comparisons import comparisons_of, uncompared

    too_many = uncompared(len(result.groups[0].names), args.group or "group")
    if too_many:
        return None, too_many
    better = better_from_args(args)
    compared = comparisons_of(
        result.groups[0], result.fit.bounds, args.alpha, args.group or "group", target,
        better=better or "higher",
        direction_note=better_rerun(direction_hint(result, args.label, better), args),
    )  # fmt: skip
    return (compared if compared.best_clear else replace(compared, plan_note=STREAM_PLAN)), None


def direction_hint(result: StreamResult, label: str, better: str | None = None) -> str | None:
    """The hint to pass ``--better lower`` where the streamed label looks like an error
    score, from the labeled rows the fit keeps (as in memory, where the unlabeled rows
    add nothing: :func:`~bacon_bayes.doctor.pooled.better_hint`)."""
    import pandas as pd

    from bacon_bayes.doctor.pooled import better_hint_of

    lab = result.fit.labeled
    scores = pd.DataFrame(lab.scores, columns=[str(j) for j in result.fit.model.features.judges])
    return better_hint_of(lab.y, scores, label, result.fit.bounds, better)


def summary(result: StreamResult, args: argparse.Namespace) -> dict[str, Any]:
    """JSON-ready estimates of a streamed pool (the keys of ``Calibrator.summary``)."""
    fit = result.fit
    out: dict[str, Any] = {
        "n_items": result.n_items,
        "n_labeled": len(fit.labeled),
        "model": fit.model_name,
        "engine": fit.engine,
        "surrogates": list(fit.surrogate_names),
        "preset": args.preset,
        "folds": args.folds,
        "seed": fit.seed,
        "alpha": args.alpha,
        "frozen": None,  # a stream takes no --calibrator
        "pool": result.pool_report(),
        "streamed": True,
        "features": fit.model.features.report(),
        "mean": {e.method: e.to_dict() for e in result.means},
        "quantiles": {
            str(q): {e.method: e.to_dict() for e in ests} for q, ests in result.quantiles.items()
        },
    }
    if result.groups:
        out["groups"] = {t.method: t.to_dict() for t in result.groups}
    if result.items_out is not None:
        out["items_out"] = str(result.items_out)
    return out


def _estimate(
    args: argparse.Namespace, calibrator: Any, levels: list[float] | None, items_out: Any
) -> StreamResult:
    from bacon_bayes.cli.judge_args import split_judges
    from bacon_bayes.stream import estimate_stream

    return estimate_stream(
        args.file,
        calibrator,
        label=args.label,
        judges=split_judges(args.judge),
        outcome=args.outcome,  # None: guessed from the labels, as in memory
        levels=levels,
        group=args.group,
        item=args.item,
        propensity=args.propensity,
        quantiles=args.quantile,
        alpha=args.alpha,
        chunk_rows=args.chunk_rows or DEFAULT_CHUNK_ROWS,
        scheduler=args.scheduler,
        items_out=items_out,
    )
