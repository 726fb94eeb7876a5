"""`python -m panda.cli` runs the `panda` command."""

import sys

from panda.cli import main

sys.exit(main())
