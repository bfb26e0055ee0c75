# Type stub of engine/leduc/rules.pyx (metro_ai.engine.leduc.rules): the C mechanics of Leduc
# poker (rules.pxd), for Cython only; it gives Python no names.
