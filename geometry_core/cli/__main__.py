"""``python -m geometry_core.cli``: the ``geometry-core`` command."""

import sys

from geometry_core.cli import main

sys.exit(main())
