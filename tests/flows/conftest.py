"""The flows' tests share one fixture: Prefect's test harness (ephemeral API, temporary database), per module."""

import pytest
from prefect.testing.utilities import prefect_test_harness

# The harness waits 30 s for its server by default; in the full suite on the AVX2 EPYC (stop 57) all seven tests
# that use it errored with "Timed out while attempting to connect to ephemeral Prefect API server" (alone, they pass).
# The same 120 s the flows give Prefect's own ephemeral server (flows/__init__.py).
STARTUP_SECONDS = 120


@pytest.fixture(scope="module")
def harness():
    with prefect_test_harness(server_startup_timeout=STARTUP_SECONDS):
        yield
