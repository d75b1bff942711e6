"""CLI entry point: ``python -m drillbook``."""
import sys

from .cli import main

sys.exit(main())
