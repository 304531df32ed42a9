"""Stage 1a, context features: item embeddings.

Three sources, one output (a table ``item, emb_1 .. emb_k``):

- ``tfidf`` (default): TF-IDF of word 1-2-grams (character 1-2-grams for Chinese,
  Japanese or Thai text) reduced by truncated SVD (LSA). Needs
  nothing beyond scikit-learn and downloads nothing.
- ``sentence-transformers``: a model loaded from a local directory (no hub access).
- precomputed vectors (e.g. image embeddings) read from ``.npy`` (rows in item order) or
  a table with the id column and one numeric column per dimension.

Vectors wider than ``n_components`` are reduced by PCA.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.words import blank_cells


def _texts(items: pd.DataFrame, column: str) -> list[str]:
    if column not in items.columns:
        raise ValidationError(
            f"items have no text column {column!r} (columns: {', '.join(map(str, items.columns))});"
            " pass --text COLUMN"
        )
    col = items[column]
    empty = blank_cells(col)
    if empty.any():
        row = int(np.flatnonzero(empty.to_numpy())[0])
        raise ValidationError(
            f"text column {column!r} is empty in row {row} ({int(empty.sum())} empty rows); "
            "fill or drop those items"
        )
    return col.astype(str).tolist()


#: letters of scripts written without spaces between words: Thai, Lao, Myanmar, Khmer,
#: kana, CJK ideographs (Korean's Hangul is spaced)
_UNSPACED = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
)


def unspaced(texts: Sequence[str], sample: int = 2000) -> bool:
    """Whether the texts are mostly in scripts written without spaces (Chinese, Japanese,
    Thai), whose words a word tokenizer cannot find: over a fifth of their letters."""
    letters = unspaced_letters = 0
    for text in texts[:sample]:
        letters += sum(ch.isalpha() for ch in text)
        unspaced_letters += len(_UNSPACED.findall(text))
    return letters > 0 and unspaced_letters > 0.2 * letters


def tfidf_svd(texts: Sequence[str], n_components: int = 64, seed: int = 0) -> np.ndarray:
    """TF-IDF (sublinear, word 1-2-grams; character 1-2-grams for texts in scripts written
    without spaces, :func:`unspaced`) + truncated SVD, rows L2-normalised."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.preprocessing import normalize

    if len(texts) < 3:
        raise ValidationError(f"TF-IDF + SVD needs at least 3 items, got {len(texts)}")
    # a word tokenizer takes a Chinese sentence for one word: every text its own terms
    analyzer = "char" if unspaced(texts) else "word"
    try:
        tfidf = TfidfVectorizer(
            sublinear_tf=True, analyzer=analyzer, ngram_range=(1, 2), min_df=1
        ).fit_transform(texts)
    except ValueError as exc:
        raise ValidationError(f"TF-IDF found no words in the texts ({exc})") from exc
    k = max(1, min(n_components, tfidf.shape[1] - 1, len(texts) - 1))
    z = TruncatedSVD(n_components=k, random_state=seed).fit_transform(tfidf)
    return normalize(z)


def sentence_embeddings(texts: Sequence[str], model_path: str | Path) -> np.ndarray:
    """Embeddings from a sentence-transformers model in a local directory (offline)."""
    path = Path(model_path)
    if not path.is_dir():
        raise ValidationError(
            f"sentence-transformers model {path} is not a local directory; download the model "
            "once and pass its folder (nothing is fetched at run time)"
        )
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ValidationError(
            "--model needs the sentence-transformers package: pip install sentence-transformers"
        ) from exc
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    model = SentenceTransformer(str(path), device="cpu")
    return np.asarray(model.encode(list(texts), convert_to_numpy=True), dtype=float)


def load_vectors(path: str | Path, ids: Sequence[object], id_col: str = "item") -> np.ndarray:
    """Precomputed vectors aligned to ``ids``: ``.npy`` in item order, or a table by id."""
    from bacon_bayes.io import read_table

    path = Path(path)
    if path.suffix.lower() == ".npy":
        if not path.is_file():
            raise ValidationError(f"vectors file {path} does not exist")
        arr = np.load(path, allow_pickle=False)
        if arr.ndim != 2 or arr.shape[0] != len(ids):
            raise ValidationError(
                f"vectors {path} have shape {arr.shape}; expected ({len(ids)}, d), one row per "
                "item in the items file's order"
            )
        vec = np.asarray(arr, dtype=float)
    else:
        table = read_table(path)
        if id_col not in table.columns:
            raise ValidationError(f"vectors table {path} has no id column {id_col!r}")
        table = table.set_index(id_col)
        missing = [i for i in ids if i not in table.index]
        if missing:
            raise ValidationError(
                f"vectors table {path} has no row for {len(missing)} item(s), e.g. "
                f"{missing[0]!r}; add them"
            )
        numeric = table.select_dtypes("number")
        vec = numeric.loc[list(ids)].to_numpy(dtype=float)
    bad = ~np.isfinite(vec)
    if bad.any():
        row = int(np.argwhere(bad)[0][0])
        raise ValidationError(f"vectors {path}: row for item {ids[row]!r} has NaN or inf values")
    return vec


def reduce_pca(vectors: np.ndarray, n_components: int, seed: int = 0) -> np.ndarray:
    """PCA to ``n_components`` when the vectors are wider; otherwise unchanged."""
    from sklearn.decomposition import PCA

    k = min(n_components, vectors.shape[0])
    if vectors.shape[1] <= k:
        return vectors
    return PCA(n_components=k, random_state=seed).fit_transform(vectors)


def embed_items(
    items: pd.DataFrame,
    *,
    text: str | None = None,
    id_col: str = "item",
    model: str | Path | None = None,
    vectors: str | Path | None = None,
    n_components: int = 64,
    seed: int = 0,
) -> pd.DataFrame:
    """Embedding table ``item, emb_1 .. emb_k`` for the items.

    Parameters
    ----------
    items
        One row per item with the id column and (unless ``vectors``) the text column.
    text
        Column with the item text.
    model
        Local sentence-transformers directory instead of TF-IDF + SVD.
    vectors
        Precomputed vectors file instead of computing any.
    n_components
        Output width (SVD components, or PCA applied to wider vectors).
    """
    if id_col not in items.columns:
        raise ValidationError(
            f"items have no id column {id_col!r}; pass --item COLUMN naming the id column"
        )
    if items[id_col].duplicated().any():
        dup = items[id_col][items[id_col].duplicated()].tolist()[0]
        raise ValidationError(f"id column {id_col!r} has duplicate id {dup!r}; ids must be unique")
    if n_components < 1:
        raise ValidationError(f"n_components must be at least 1, got {n_components}")
    ids = items[id_col].tolist()
    if vectors is not None:
        vec = reduce_pca(load_vectors(vectors, ids, id_col), n_components, seed)
    else:
        if text is None:
            raise ValidationError("give the text column (--text COL) or a --vectors file")
        texts = _texts(items, text)
        if model is not None:
            vec = reduce_pca(sentence_embeddings(texts, model), n_components, seed)
        else:
            vec = tfidf_svd(texts, n_components, seed)
    out = pd.DataFrame(vec, columns=[f"emb_{k + 1}" for k in range(vec.shape[1])])
    out.insert(0, id_col, items[id_col].to_numpy())
    return out
