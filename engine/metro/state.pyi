# Type stub of engine/metro/state.pyx (metro_ai.engine.metro.state): it gives Python no names.
# The state's structs and the companies part's C rules are in state.pxd/.pyx, for Cython only.
