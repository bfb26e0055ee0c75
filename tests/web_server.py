"""A ``metro-ai web --port 0 --no-browser`` subprocess for the web tests (one copy of it)."""
import contextlib
import subprocess
import sys


@contextlib.contextmanager
def web_server():
    """Start the page's server on a free port; yield the page's address as it printed it (with the
    token: ``http://127.0.0.1:PORT/?token=...``); check it is still up at the end."""
    proc = subprocess.Popen([sys.executable, "-m", "metro_ai", "web", "--port", "0", "--no-browser"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("serving on http://127.0.0.1:"), line + proc.stderr.read()
        page = line.split()[2]
        assert "/?token=" in page, line
        yield page
        assert proc.poll() is None, "the web server died"
    finally:
        proc.terminate()
        proc.wait(timeout=60)
