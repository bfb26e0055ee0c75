# Sourced by the device_*.sh scripts: build the package into /tmp/site with the machine's own
# Python (numpy, joblib, Cython and setuptools must be there; nothing is downloaded), set OUT,
# REPO and J (the CPU count), and move out of the checkout so it cannot shadow the build.
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
REPO=$PWD
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-build-isolation --no-deps --no-index --target /tmp/site . > "$OUT/install.log" 2>&1 \
  || { tail -30 "$OUT/install.log"; exit 1; }
export PYTHONPATH=/tmp/site
cd /tmp
J=$(python3 -c "import os; print(os.cpu_count())")
