"""``python -m sparring``: the ``sparring`` command."""

import sys

from sparring.cli import main

sys.exit(main())
