"""Session-wide test settings."""

import atexit
import os
import shutil
import tempfile

from threadpoolctl import threadpool_limits

# One BLAS / OpenMP thread per test process (children inherit the variables): the tests'
# matrices are small, and OpenBLAS's spinning threads on 2 cores cost the suite about
# three times the CPU (tests/test_human_rates.py and tests/bayes/test_cut.py: 128 s of
# CPU against 44 s with one thread). numpy is loaded before this file, hence threadpoolctl.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
threadpool_limits(1)

# bacon's ledger of written outputs and its output locks (see bacon_bayes.outputs) go to a
# folder of this test session, never to the user's ~/.local/state; subprocesses inherit it.
os.environ["BACON_STATE_DIR"] = tempfile.mkdtemp(prefix="bacon-state-")
atexit.register(shutil.rmtree, os.environ["BACON_STATE_DIR"], ignore_errors=True)


#: Session fixtures that fit NUTS and serve several test files (tests/bayes/conftest.py).
SHARED_FITS = frozenset({"gaussian_sim", "gaussian_folds", "ordinal_fit"})


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (``make test`` runs ``-n 2 --dist loadgroup``) each test file
    runs on one worker, so its module and session fixtures are built once, and the tests
    of the NUTS fits shared across files run together on one worker."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    import pytest

    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            shared = SHARED_FITS & set(getattr(item, "fixturenames", ()))
            item.add_marker(
                pytest.mark.xdist_group("nuts" if shared else item.nodeid.split("::")[0])
            )
