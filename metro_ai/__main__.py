import sys

from metro_ai.cli import main

sys.exit(main())
