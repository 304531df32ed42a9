"""``bacon embed``: item embeddings (stage 1a, context features)."""

from __future__ import annotations

import argparse
import sys

from bacon_bayes.cli.judge_args import add_item_argument, items_id
from bacon_bayes.outputs import FORCE_HELP, claim

HELP = "embed items: TF-IDF + SVD (default), a local sentence-transformers model, or vectors"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "embed",
        help=HELP,
        description=(
            "Write a table item, emb_1 .. emb_k. Default: TF-IDF + truncated SVD (no "
            "downloads). --model DIR uses a sentence-transformers model from a local folder; "
            "--vectors FILE reads precomputed vectors (.npy in item order, or a table by id)."
        ),
    )
    p.add_argument("items", help="items table (.csv, .parquet, .jsonl)")
    p.add_argument("--text", help="text column to embed")
    p.add_argument("--out", required=True, help="output table (.parquet or .csv)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    add_item_argument(p)
    p.add_argument("--dim", type=int, default=64, help="output dimensions (default 64)")
    p.add_argument("--model", help="local sentence-transformers model directory")
    p.add_argument("--vectors", help="precomputed vectors (.npy, .parquet, .csv)")
    p.add_argument("--seed", type=int, default=0, help="random seed (0)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bacon_bayes.embed import embed_items
    from bacon_bayes.errors import ValidationError
    from bacon_bayes.judges.output import write_table
    from bacon_bayes.readers import read_any

    if args.model and args.vectors:
        raise ValidationError("give either --model or --vectors, not both")
    inputs = [args.items, args.vectors, args.model]  # --model: a local folder, perhaps
    with claim(args.out, inputs=inputs, force=args.force, suffixes=(".parquet", ".csv")) as out:
        items = read_any(args.items)[0]
        table = embed_items(
            items,
            text=args.text,
            id_col=items_id(args.id, items),
            model=args.model,
            vectors=args.vectors,
            n_components=args.dim,
            seed=args.seed,
        )
        write_table(table, out.path)
        out.written()
    width = table.shape[1] - 1
    print(f"wrote {len(table)} x {width} embedding to {args.out}", file=sys.stderr)
    if width < args.dim:  # said, not left for the user to count
        why = (
            "the vectors are that wide (narrower ones are kept as they are)"
            if args.vectors or args.model
            else f"TF-IDF + SVD gives at most one fewer than the items ({len(table)}) or the "
            "distinct terms of their text"
        )
        print(f"note: {width} dimensions, fewer than --dim {args.dim}: {why}", file=sys.stderr)
    return 0
