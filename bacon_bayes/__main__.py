"""``python -m bacon_bayes ...``: the ``bacon`` command line, where the script is not on PATH."""

import sys

from bacon_bayes.cli import main

sys.exit(main())
