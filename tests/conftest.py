"""Session-wide test settings."""

import atexit
import os
import shutil
import tempfile

import pytest
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

#: Seconds of the xdist groups that take longest, so that they start first; any other group
#: counts SECONDS_PER_TEST a test. The groups that fit NUTS or compile (nuts, the bayes
#: files, the adaptive experiment, paired_simulate, bradley_terry) keep their figures of
#: a full run with cold PyTensor/JAX/numba caches; the others are from a full run on 2
#: cores with warm caches, the machine otherwise at a load of about 0.5 (2026-12-03,
#: BENCHMARKS.md "The test suite's time"), less the Monte Carlo cells that went to
#: ``make validate`` after it (measured back to back with the run before, same file;
#: BENCHMARKS.md "The test suite's time, 2026-12-03 (third pass)"), and the files whose NUTS
#: fits took fewer draws times their CPU's ratio (fourth pass), and the files whose coverage
#: studies went to ``make validate`` for a fast check (fifth pass: the figure less the moved
#: tests' share of the file in the before run, plus the fast checks'; sixth pass: the same for
#: test_coverage, test_rounds, test_combine and test_doctor, times their CPU's ratio). Only
#: the order of the groups comes from here: a stale figure makes a run end less evenly,
#: never changes what runs.
GROUP_SECONDS = {
    "tests/bayes/test_multinomial.py": 70,
    "tests/bayes/test_pairwise_model.py": 25,
    "nuts": 100,
    "tests/sampling/test_adaptive_experiment.py": 40,
    "tests/simulation/test_paired_simulate.py": 30,
    "tests/bayes/test_multinomial_density.py": 48,
    "tests/bayes/test_pairs_bayes.py": 25,
    "tests/test_bradley_terry.py": 18,
    "tests/test_messy_walk.py": 45,
    "tests/simulation/test_montecarlo.py": 58,
    "tests/test_pairwise_cli.py": 59,
    "tests/test_readme.py": 58,
    "tests/test_coverage.py": 8,
    "tests/test_clustered.py": 22,
    "tests/test_group_moderation.py": 20,
    "tests/test_pairwise_inputs.py": 47,
    "tests/test_doctor.py": 28,
    "tests/test_faults.py": 35,
    "tests/test_printed_commands.py": 34,
    "tests/test_human_rates.py": 14,
    "tests/test_rounds.py": 11,
    "tests/test_baseline_comparisons.py": 21,
    "tests/sampling/test_study_decide.py": 26,
    "tests/test_pairwise_designs.py": 22,
    "tests/test_plan.py": 24,
    "tests/test_pairwise_cli_loop.py": 23,
    "tests/test_combine.py": 12,
    "tests/test_persist.py": 13,
}
SECONDS_PER_TEST = 0.7


def pytest_configure(config):
    # the controller sends the groups in the order of the collection (the longest first,
    # below), not reordered by their number of tests (--loadscope-reorder)
    if getattr(config.option, "loadscopereorder", None) is not None:
        config.option.loadscopereorder = False


def _tag_with_group(item, name: str) -> None:
    """Give ``item`` the nodeid ``<nodeid>@<group>`` by which xdist's controller groups it.

    xdist's own hook (after this one) does this by setting ``item._nodeid``, which pytest
    9.2 no longer reads (an item's nodeid is ``str(item._id)``): there, every test had its
    own nodeid, was dealt out alone, and a file's module fixtures (such as the NUTS fit of
    tests/bayes/test_multinomial.py) were built on both workers."""
    nodeid = item.nodeid
    if "@" in nodeid[nodeid.rfind("]") + 1 :] or not hasattr(item, "_id"):
        return  # tagged already, or a pytest whose xdist tags it
    try:  # pytest's private id type: a pytest without it groups as xdist tags it
        from _pytest.nodeid import NodeId

        item._id = NodeId.parse(f"{nodeid}@{name}")
    except (ImportError, AttributeError):
        return


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (``make test`` runs ``-n 2 --dist loadgroup``) each test file
    runs on one worker, so its module and session fixtures are built once, and the tests
    of the NUTS fits shared across files run together on one worker.

    The groups are ordered longest first (GROUP_SECONDS), so the short ones fill in at
    the end and neither worker idles long."""
    if not getattr(config.option, "loadgroup", False):
        return  # not an xdist worker of --dist loadgroup

    groups: dict[str, str] = {}
    for item in items:
        mark = item.get_closest_marker("xdist_group")
        if mark is None:
            shared = SHARED_FITS & set(getattr(item, "fixturenames", ()))
            name = "nuts" if shared else item.nodeid.split("::")[0]
            item.add_marker(pytest.mark.xdist_group(name))
        else:
            name = mark.args[0] if mark.args else mark.kwargs.get("name", "default")
        _tag_with_group(item, name)
        groups[item.nodeid] = name
    counts: dict[str, int] = {}
    for name in groups.values():
        counts[name] = counts.get(name, 0) + 1
    first = {name: i for i, name in enumerate(dict.fromkeys(groups.values()))}

    def cost(name: str) -> float:
        return GROUP_SECONDS.get(name, SECONDS_PER_TEST * counts[name])

    # a stable sort: the tests of a group keep their collection order
    items.sort(key=lambda item: (-cost(groups[item.nodeid]), first[groups[item.nodeid]]))
