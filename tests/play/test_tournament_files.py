"""Tournament files as a careful tool treats them: the run's lock file is never followed through a
link or truncated when it is not our own regular file, and a tournament can be read and reported
without write access (read-only media, someone else's file)."""
import os
import shutil
import stat
import subprocess
import sys
import textwrap

import pytest

from metro_ai.play.tournament import RunLock, TournamentConfig, TournamentError, run_tournament


def config(deals=2):
    return TournamentConfig(game="metro", options={"players": 2}, bots=["greedy", "random"], deals=deals, seed=3)


def test_lock_file_that_is_a_symlink_is_refused_and_its_target_untouched(tmp_path):
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    (tmp_path / "t.sqlite.lock").symlink_to(victim)
    with pytest.raises(TournamentError, match="symbolic link"):
        RunLock(tmp_path / "t.sqlite").acquire()
    assert victim.read_text() == "keep me"
    # ... and through a run: refused before any game, the target still whole
    with pytest.raises(TournamentError, match="lock file"):
        run_tournament(config(), db=tmp_path / "t.sqlite")
    assert victim.read_text() == "keep me"


def test_lock_file_that_is_a_dangling_symlink_creates_nothing(tmp_path):
    (tmp_path / "t.sqlite.lock").symlink_to(tmp_path / "made-by-the-lock")
    with pytest.raises(TournamentError, match="symbolic link"):
        RunLock(tmp_path / "t.sqlite").acquire()
    assert not (tmp_path / "made-by-the-lock").exists()


def test_lock_file_that_is_a_hard_link_is_refused_and_its_other_name_untouched(tmp_path):
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    os.link(victim, tmp_path / "t.sqlite.lock")
    with pytest.raises(TournamentError, match="hard links"):
        RunLock(tmp_path / "t.sqlite").acquire()
    assert victim.read_text() == "keep me"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_lock_file_that_is_a_fifo_is_refused_at_once(tmp_path):
    os.mkfifo(tmp_path / "t.sqlite.lock")
    with pytest.raises(TournamentError, match="not a regular file"):
        RunLock(tmp_path / "t.sqlite").acquire()      # O_NONBLOCK: no reader needed, no hang


def test_a_plain_stale_lock_file_is_still_taken_over(tmp_path):
    (tmp_path / "t.sqlite.lock").write_text("12345")              # left by a killed run
    with RunLock(tmp_path / "t.sqlite") as lock:
        assert (tmp_path / "t.sqlite.lock").read_text() == str(os.getpid())
        assert lock.fd is not None
    assert not (tmp_path / "t.sqlite.lock").exists()


READER = textwrap.dedent("""
    import json, sys
    from metro_ai.cli import main
    from metro_ai.play.tournament import load_tournament
    db = sys.argv[1]
    result = load_tournament(db)
    print(json.dumps({"games": len(result.games), "total": result.total}))
    sys.exit(main(["tournament", "--resume", "--db", db, "--max-games", "0", "--quiet", "--bootstrap", "0"]))
""")


def _read_only_command(folder, db):
    """The reader as a command that sees `folder` read-only: for root (whom permission bits do
    not stop), in a mount namespace of its own where the folder is bind-mounted read-only, as on
    read-only media; for anyone else the folder's permission bits do it."""
    argv = [sys.executable, "-c", READER, db]
    if os.geteuid() != 0:
        return argv
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode:
        pytest.skip("running as root without mount namespaces: cannot make a read-only folder")
    script = ('mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"')
    return ["unshare", "-m", "sh", "-c", script, "sh", folder, *argv]


def test_a_finished_tournament_reads_and_reports_without_write_access(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    db = str(folder / "t.sqlite")
    done = run_tournament(config(), db=db)
    assert done.complete and len(done.games) == done.total
    os.chmod(db, 0o444)
    os.chmod(folder, 0o555)                              # read-only: no lock, no -shm, no -wal possible
    try:
        run = subprocess.run(_read_only_command(str(folder), db), capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr[-2000:]
        assert run.stdout.splitlines()[0] == f'{{"games": {done.total}, "total": {done.total}}}'
        assert "greedy" in run.stdout and "random" in run.stdout            # the report's standings
        assert sorted(os.listdir(folder)) == ["t.sqlite"]                  # nothing was written beside it
        assert stat.S_IMODE(os.stat(db).st_mode) == 0o444
    finally:
        os.chmod(folder, 0o755)


def test_max_games_zero_on_an_unfinished_tournament_reports_it_without_locking(tmp_path):
    db = tmp_path / "t.sqlite"
    partial = run_tournament(config(deals=3), db=db, max_games=2)
    assert len(partial.games) == 2 < partial.total
    holder = RunLock(db).acquire()                     # another run holds the file
    try:
        again = run_tournament(config(deals=3), db=db, max_games=0)
        assert [g["id"] for g in again.games] == [g["id"] for g in partial.games]
        with pytest.raises(TournamentError, match="in use by another run"):
            run_tournament(config(deals=3), db=db, max_games=1)          # playing still needs the lock
    finally:
        holder.release()
