"""`python -m uac.runtime.cli`: the `uac` command."""

import sys

from uac.runtime.cli import main

sys.exit(main())
