"""``python -m benchmarks.comparison_data``: where it looks for the shared data (beside a
git worktree's main checkout too), and a non-zero exit with absolute paths when it wrote
nothing (tester A's finding 16, session 37)."""

from __future__ import annotations

from pathlib import Path

from benchmarks import adaptive_experiment, comparison_data


def test_a_worktree_looks_beside_its_main_checkout(tmp_path: Path) -> None:
    main = tmp_path / "work" / "main"
    (main / ".git" / "worktrees" / "wt").mkdir(parents=True)
    (main / ".git" / "worktrees" / "wt" / "commondir").write_text("../..\n")
    tree = tmp_path / "elsewhere" / "wt"
    tree.mkdir(parents=True)
    (tree / ".git").write_text(f"gitdir: {main / '.git' / 'worktrees' / 'wt'}\n")
    assert adaptive_experiment._main_checkout(tree) == [main.resolve()]
    assert adaptive_experiment._main_checkout(main) == []  # a main checkout: itself
    roots = adaptive_experiment.shared_data_roots()
    assert all(root.is_absolute() for root in roots)


def test_writing_nothing_exits_non_zero_naming_where_it_looked(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    nowhere = tmp_path / "nowhere"
    monkeypatch.setattr(comparison_data, "find_shared_data", lambda rel: None)
    monkeypatch.setattr(comparison_data, "shared_data_roots", lambda: [nowhere])
    assert comparison_data.main([str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert f"looked for {nowhere / comparison_data.RELATIVE}" in err, err
    assert "wrote nothing" in err and not list((tmp_path / "out").iterdir())
