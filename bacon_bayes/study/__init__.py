"""Study folders: sampling waves, returned labels and their bookkeeping on disk.

The folder format is documented in :mod:`bacon_bayes.study.folder`. Estimators
read a study with :func:`load_study`, which returns the pool with its labels and
the union-of-waves inclusion probability of every item. Returned labels go in with
:func:`import_labels`; returned pairwise votes into the table of comparisons ``bacon sample
--pairwise`` wrote with :func:`import_votes`.
"""

from __future__ import annotations

from bacon_bayes.study.core import Study, StudyData, create_study, load_study
from bacon_bayes.study.folder import PROPENSITY_COLUMN, StudyConfig
from bacon_bayes.study.labels import ImportSummary, import_labels
from bacon_bayes.study.pair_votes import import_votes
from bacon_bayes.study.waves import DESIGNS, draw_wave, pending_items

__all__ = [
    "DESIGNS",
    "PROPENSITY_COLUMN",
    "ImportSummary",
    "Study",
    "StudyConfig",
    "StudyData",
    "create_study",
    "draw_wave",
    "import_labels",
    "import_votes",
    "load_study",
    "pending_items",
]
