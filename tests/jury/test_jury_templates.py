"""Prompt templates: the paper's three and user templates from files."""

from __future__ import annotations

import pytest

from bacon_bayes.errors import ValidationError
from bacon_bayes.judges import load_template


def test_essay_messages_follow_the_paper():
    msgs = load_template("essay").render({"prompt_name": "Cars", "full_text": "Hello."})
    assert (
        msgs[0]["role"] == "system" and "single digit (1, 2, 3, 4, 5, or 6)" in msgs[0]["content"]
    )
    assert msgs[1] == {"role": "user", "content": "Essay prompt: Cars\n\nEssay:\nHello."}


def test_missing_column_names_it_and_the_fix():
    with pytest.raises(ValidationError, match="needs column 'full_text'"):
        load_template("essay").render({"prompt_name": "Cars"})


def test_empty_value_names_the_item():
    with pytest.raises(ValidationError, match="empty for item 'e7'"):
        load_template("essay").render({"prompt_name": "Cars", "full_text": None}, row="e7")


def test_webdesign_fills_domain_table_and_attaches_image(tmp_path):
    img = tmp_path / "shot.png"
    img.write_bytes(b"\x89PNG\r\n\x1a\nfake")
    msgs = load_template("webdesign").render({"domain": "bank", "image": str(img)})
    text, image = msgs[1]["content"]
    assert "from a commercial-bank website on six dimensions" in text["text"]
    assert image["image_url"]["url"].startswith("data:image/png;base64,")
    with pytest.raises(
        ValidationError, match="domain='shop', which is not in the template's table"
    ):
        load_template("webdesign").render({"domain": "shop", "image": str(img)}, row=1)


def test_user_template_from_toml(tmp_path):
    path = tmp_path / "helpful.toml"
    path.write_text(
        'version = "3"\nsystem = "Rate 1-5."\nuser = "Q: {question}\\nA: {answer} {{literal}}"\n'
        'parser = "number"\nlevels = [1, 2, 3, 4, 5]\n'
    )
    t = load_template(path)
    assert (t.name, t.version, t.levels) == ("helpful", "3", (1.0, 2.0, 3.0, 4.0, 5.0))
    assert t.render({"question": "why", "answer": "because"})[1]["content"] == (
        "Q: why\nA: because {literal}"
    )


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ('user = "x"\nparser = "regex"', "parser 'regex' is unknown"),
        ('user = "x"\ncolour = 1', "unknown field"),
        ('system = "x"', "'user' is required"),
        ('user = "x"\nparser = "labelled_lines"', "needs a 'dimensions' list"),
    ],
)
def test_bad_template_files(tmp_path, text, match):
    path = tmp_path / "t.toml"
    path.write_text(text)
    with pytest.raises(ValidationError, match=match):
        load_template(path)


def test_unknown_template_name():
    with pytest.raises(ValidationError, match="neither a built-in"):
        load_template("nope")
