# Type stub of engine/metro/rules.pyx (metro_ai.engine.metro.rules): the C data and mechanics of
# Metro, for Cython (rules.pxd); to Python it gives only the board's central geometry.
CENTRE_SQUARES: tuple[int, ...]
CENTRAL_SPACE_SQUARES: tuple[int, ...]
CENTRAL_STATION_BASE: int
