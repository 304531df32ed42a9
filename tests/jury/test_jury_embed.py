"""Item embeddings: TF-IDF + SVD, precomputed vectors, local sentence-transformers path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.embed import embed_items, load_vectors
from bacon_bayes.errors import ValidationError

TOPICS = {
    "cats": "the cat sat on the mat and purred at the other cat",
    "markets": "stock market prices fell as investors sold shares",
    "rain": "heavy rain and wind storms flooded the coastal town",
}


def corpus(n_per: int = 6) -> pd.DataFrame:
    rows = []
    for topic, base in TOPICS.items():
        for k in range(n_per):
            words = base.split()
            rows.append(
                {"item": f"{topic}{k}", "topic": topic, "text": " ".join(words[k:] + words[:k])}
            )
    return pd.DataFrame(rows)


def test_tfidf_svd_groups_texts_by_topic_and_is_deterministic():
    items = corpus()
    emb = embed_items(items, text="text", n_components=3)
    again = embed_items(items, text="text", n_components=3)
    pd.testing.assert_frame_equal(emb, again)
    x = emb.filter(like="emb_").to_numpy()
    assert x.shape == (18, 3)
    assert np.linalg.norm(x, axis=1) == pytest.approx(np.ones(18))
    sim = x @ x.T
    np.fill_diagonal(sim, -np.inf)
    nearest = items["topic"].to_numpy()[sim.argmax(axis=1)]
    assert (nearest == items["topic"].to_numpy()).all()


#: three topics in Chinese, each sentence written without spaces, as Chinese is
ZH_TOPICS = {
    "cats": ["我家的小猫喜欢睡觉", "那只小猫整天追着猫玩具", "小猫饿了就对着猫碗叫"],
    "markets": ["今天股票市场大幅下跌", "投资者急着卖出股票", "股票价格下跌让市场恐慌"],
    "rain": ["大雨过后雨水淹没街道", "暴雨让雨水淹没小镇", "雨水流满街道雨下不停"],
}


def test_texts_written_without_spaces_are_embedded_by_characters():
    """Each Chinese sentence was one 'word': 500 WMT22 sources gave 3,108 terms, 88 of
    them in two texts, so the embedding said nothing of the text."""
    items = pd.DataFrame(
        [
            {"item": f"{topic}{k}", "topic": topic, "text": text}
            for topic, texts in ZH_TOPICS.items()
            for k, text in enumerate(texts)
        ]
    )
    x = embed_items(items, text="text", n_components=3).filter(like="emb_").to_numpy()
    sim = x @ x.T
    np.fill_diagonal(sim, -np.inf)
    nearest = items["topic"].to_numpy()[sim.argmax(axis=1)]
    assert (nearest == items["topic"].to_numpy()).all()


def test_components_capped_by_number_of_items():
    emb = embed_items(corpus(1), text="text", n_components=64)
    assert emb.shape == (3, 1 + 2)


def test_empty_text_is_named():
    items = corpus(2)
    items.loc[4, "text"] = " "
    with pytest.raises(ValidationError, match="empty in row 4"):
        embed_items(items, text="text")
    with pytest.raises(ValidationError, match="no text column 'body'"):
        embed_items(items, text="body")


def test_precomputed_vectors_npy_and_table_align_by_id(tmp_path):
    items = corpus(2)
    rng = np.random.default_rng(0)
    vec = rng.normal(size=(6, 4))
    np.save(tmp_path / "v.npy", vec)
    got = embed_items(items, vectors=tmp_path / "v.npy", n_components=8)
    assert got.filter(like="emb_").to_numpy() == pytest.approx(vec)
    table = pd.DataFrame(vec, columns=list("abcd"))
    table.insert(0, "item", items["item"])
    table.iloc[::-1].to_parquet(tmp_path / "v.parquet")  # stored in another order
    assert load_vectors(tmp_path / "v.parquet", items["item"].tolist()) == pytest.approx(vec)
    reduced = embed_items(items, vectors=tmp_path / "v.parquet", n_components=2)
    assert reduced.shape == (6, 3)


def test_bad_vectors_are_rejected(tmp_path):
    items = corpus(2)
    np.save(tmp_path / "short.npy", np.zeros((5, 3)))
    with pytest.raises(ValidationError, match=r"shape \(5, 3\); expected \(6, d\)"):
        embed_items(items, vectors=tmp_path / "short.npy")
    table = pd.DataFrame({"item": items["item"][:5], "a": 1.0})
    table.to_csv(tmp_path / "v.csv", index=False)
    with pytest.raises(ValidationError, match="no row for 1 item"):
        embed_items(items, vectors=tmp_path / "v.csv")
    bad = np.ones((6, 2))
    bad[3, 1] = np.nan
    np.save(tmp_path / "nan.npy", bad)
    with pytest.raises(ValidationError, match="item 'markets1' has NaN"):
        embed_items(items, vectors=tmp_path / "nan.npy")


def test_sentence_transformer_needs_a_local_directory(tmp_path):
    with pytest.raises(ValidationError, match="not a local directory"):
        embed_items(corpus(1), text="text", model=tmp_path / "no-such-model")
