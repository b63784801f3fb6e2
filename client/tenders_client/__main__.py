"""``python -m tenders_client``: the ``tenders`` command."""

import sys

from .cli import main

sys.exit(main())
