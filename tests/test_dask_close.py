"""A local Dask cluster bacon started is closed without the nannies' warning about
killing a worker process slow to exit (finding A14: ``--scheduler local:2`` printed
"distributed.nanny - WARNING - Worker process still alive after 4.0 seconds, killing"
into the command's output), and a client handed in is left to its owner."""

from __future__ import annotations

import logging

import pytest

pytest.importorskip("distributed")

NANNY = "distributed.nanny"


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record.getMessage())


class _Client:
    closed = False

    def close(self) -> None:
        self.closed = True

    def compute(self, *args, **kwargs):  # pragma: no cover - not reached
        raise AssertionError("no work in this test")


class _Cluster:
    """Closes as a loaded LocalCluster does: its nanny kills a slow worker, warning."""

    closed = False

    def close(self) -> None:
        logging.getLogger(NANNY).warning("Worker process still alive after 4.0 seconds, killing")
        self.closed = True


@pytest.fixture
def records():
    handler = _Records()
    logger = logging.getLogger(NANNY)
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


def test_the_streamed_estimate_closes_its_local_cluster_quietly(monkeypatch, records):
    from bacon_bayes.stream import cluster as stream_cluster

    client, local = _Client(), _Cluster()
    monkeypatch.setattr(stream_cluster, "connect", lambda scheduler: (client, local))
    with pytest.raises(IndexError):  # no pieces: stops at once, the cluster is closed
        stream_cluster.run_dask([], None, 0, 1, None, "local:2", None)
    assert client.closed and local.closed
    assert records.seen == []
    assert logging.getLogger(NANNY).level == logging.INFO  # as it was


def test_a_client_handed_in_is_left_open(records):
    from bacon_bayes.workers import close_dask

    client, address = _Client(), _Client()
    close_dask(client, client, None)
    assert not client.closed
    close_dask("tcp://host:8786", address, None)  # a client this process connected
    assert address.closed
