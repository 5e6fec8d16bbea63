"""The Store contract, history and standing suites again, on a Redis Cluster and through Sentinels.

The tests (one class per role of the store) are tests/store's own, collected here a second
time, where this directory's ``store`` fixture hands them a store on each topology (see
``conftest.py``).
On a Cluster, Redis itself refuses a script or MULTI block whose keys span hash slots
(CROSSSLOT), so this run is also the audit that every step keeps to one slot.
"""

from __future__ import annotations

import pytest

from tests.store import test_contract, test_history, test_standing

from .topology import reuse

pytestmark = pytest.mark.topology

globals().update(reuse(test_contract, test_history, test_standing))
