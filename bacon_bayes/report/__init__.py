"""Results for people: plain-text tables for the terminal (:mod:`.text`) and one
self-contained HTML page (:mod:`.html`, ``bacon report``, ``Calibrator.report``)."""

from bacon_bayes.report.text import METHOD_LABEL, estimates_table, groups_table

__all__ = ["METHOD_LABEL", "estimates_table", "groups_table"]
