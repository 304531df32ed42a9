"""Session-wide test settings."""

import atexit
import os
import shutil
import tempfile

# bacon's ledger of written outputs and its output locks (see bacon_bayes.outputs) go to a
# folder of this test session, never to the user's ~/.local/state; subprocesses inherit it.
os.environ["BACON_STATE_DIR"] = tempfile.mkdtemp(prefix="bacon-state-")
atexit.register(shutil.rmtree, os.environ["BACON_STATE_DIR"], ignore_errors=True)
