import sys

from paper_checks.cli import main

sys.exit(main())
