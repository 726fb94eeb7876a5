"""Prefect flows over Panda (thin: the work is in panda/). Importing this package sets Prefect's
offline defaults: no analytics, and a longer ephemeral-server start timeout (the default 20 s timed
out on a loaded 2-core machine)."""

import os

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
