"""``python -m groundbench``: the same as the ``groundbench`` command."""

import sys

from groundbench.entry import main

sys.exit(main())
