"""Running ``metro-ai bench``: the sections in turn, the Markdown and JSON reports, the command-line
arguments."""
from __future__ import annotations

import sys
import time
from dataclasses import asdict
from pathlib import Path

from metro_ai.engine.datafile import dumps
from metro_ai.optionspec import parse_options
from metro_ai.registry import DEFAULT_GAME, game_class, list_games, load_game

from .common import SECTIONS, Settings, Skipped, _say, machine
from .engine import engine_section
from .growth import growth_section
from .memory import memory_section, server_memory_section
from .openspiel import openspiel_section
from .options import options_section
from .parallel import parallel_section
from .strength import parse_pairs, strength_section


RUNNERS = {"engine": engine_section, "options": options_section, "growth": growth_section, "parallel": parallel_section,
           "memory": memory_section, "server-memory": server_memory_section, "openspiel": openspiel_section,
           "strength": strength_section}


def check_sections(sections):
    """``sections`` if every one is known and there is at least one; else ValueError."""
    bad = [s for s in sections if s not in RUNNERS]
    if bad or not sections:
        raise ValueError(f"unknown bench section(s) {', '.join(map(repr, bad)) or '(none given)'}; "
                         f"sections are {', '.join(SECTIONS)}")
    return sections


def run(cfg: Settings, progress=True):
    """Run ``cfg.sections``; a dict with the machine, the settings and each section's result
    (``{"skipped": why}`` for a section that cannot run here)."""
    check_sections(cfg.sections)
    report = {"machine": machine(), "settings": asdict(cfg), "sections": {}}
    for name in cfg.sections:
        _say(progress, f"[{name}]")
        t0 = time.perf_counter()
        try:
            result = RUNNERS[name](cfg, progress)
        except Skipped as why:
            result = {"skipped": str(why)}
            _say(progress, f"  skipped: {why}")
        result["wall_seconds"] = time.perf_counter() - t0
        report["sections"][name] = result
    return report


def markdown(report, command=None):
    """The report as Markdown: the machine, then one table per section."""
    m = report["machine"]
    about = (f"{m['date']}; metro-ai {m['metro_ai']}; {m['python']}; {m['cpu']}, {m['usable_cpus']} of "
             f"{m['logical_cpus']} CPUs usable, {m['memory_gib']} GiB; {m['platform']}; numpy {m['numpy']}, "
             f"Cython {m['cython']}, open_spiel {m['open_spiel'] or 'not installed'}; built optimized: "
             f"{m['build'].get('optimized')}.")
    lines = ["# metro-ai bench", "", about]
    if report["settings"].get("quick"):
        lines += ["", "**Quick mode: short timings, few games; not figures to quote.**"]
    if command:
        lines += ["", f"Command: `{command}`"]
    for name, sec in report["sections"].items():
        lines += ["", f"## {sec.get('title', name)}", ""]
        if "skipped" in sec:
            lines.append(f"Skipped: {sec['skipped']}")
            continue
        for i, table in enumerate([sec, *sec.get("tables", [])]):     # a section may add tables
            if i:
                lines += ["", f"### {table['title']}", ""]
            cols = table["columns"]
            lines.append("| " + " | ".join(h for _, h, _ in cols) + " |")
            lines.append("|" + "---|" * len(cols))
            for row in table["rows"]:
                lines.append("| " + " | ".join("-" if row[key] is None else fmt.format(row[key])
                                                for key, _, fmt in cols) + " |")
            lines += ["", table["note"]]
    return "\n".join(lines) + "\n"


def _json_ready(report):
    """The report without the column formats (tuples of format strings)."""
    out = {k: v for k, v in report.items() if k != "sections"}
    def table(sec):
        return {k: v for k, v in sec.items() if k not in ("columns", "tables")} | (
            {"columns": [key for key, _, _ in sec["columns"]]} if "columns" in sec else {}) | (
            {"tables": [table(t) for t in sec["tables"]]} if "tables" in sec else {})
    out["sections"] = {name: table(sec) for name, sec in report["sections"].items()}
    return out


def add_arguments(p):
    p.add_argument("--sections", default=None, metavar="LIST",
                   help="comma-separated sections to run (default: all): " + ", ".join(SECTIONS))
    p.add_argument("--quick", action="store_true", help="every section briefly (CI); figures not for quoting")
    p.add_argument("--seconds", type=float, default=None, help="seconds per timing (default 1; quick 0.1)")
    p.add_argument("--workers", type=int, nargs="+", default=None, metavar="N",
                   help="worker counts for the parallel section (default: 1 2)")
    p.add_argument("--memory-iterations", type=int, default=None, metavar="N",
                   help="iterations of the memory search (default 1,000,000; quick 100,000)")
    p.add_argument("--openspiel-iterations", type=int, default=None, metavar="N",
                   help="iterations per search in the OpenSpiel speed comparison (default 1,000)")
    p.add_argument("--strength-games", type=int, default=None, metavar="N",
                   help="games against OpenSpiel's ISMCTS, rounded up to even (default 200; quick 4)")
    p.add_argument("--strength-time", type=float, default=None, metavar="SECONDS",
                   help="seconds per move for both sides in the strength games (default 0.1)")
    p.add_argument("--strength-iterations", type=int, default=None, metavar="N",
                   help="instead of --strength-time: N iterations per move for both sides (reproducible)")
    p.add_argument("--strength-pairs", default=None, metavar="LIST",
                   help="comma-separated BOT:OPPONENT pairs of the strength section, each a figure (default "
                        "ismcts:openspiel; openspiel: OpenSpiel's Python ISMCTS), e.g. ismcts:greedy,mo-ismcts:ismcts")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a game option of the strength section's games (e.g. companies=true); repeat it for more")
    p.add_argument("--jobs", type=int, default=None, help="strength games at a time (default 0: one per CPU); "
                   "with --versus, pairs of games at a time (default 1)")
    p.add_argument("--seed", type=int, default=2026, help="seed of the strength deals (default 2026)")
    p.add_argument("--game", default=DEFAULT_GAME, metavar="GAME",
                   help=f"the game of the parallel, openspiel and strength sections (default: {DEFAULT_GAME})")
    p.add_argument("--games", default=None, metavar="LIST",
                   help="comma-separated games of the engine, growth, memory and server-memory sections (default: all): "
                        + ", ".join(list_games()))
    p.add_argument("--markdown", default=None, metavar="FILE", help="Markdown report (default bench.md; with "
                   "--versus and --out, none unless named)")
    p.add_argument("--json", default="bench.json", metavar="FILE", help="JSON report (default bench.json)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    from .versus.settings import add_arguments as versus_arguments
    versus_arguments(p, bench=True)


def settings_from(args):
    """Settings from parsed arguments; ValueError says what is wrong."""
    names = SECTIONS if args.sections is None else (s.strip() for s in args.sections.split(","))
    sections = check_sections(tuple(s for s in names if s))
    given = {k: v for k, v in {
        "seconds": args.seconds, "workers": tuple(args.workers) if args.workers else None,
        "memory_iterations": args.memory_iterations, "openspiel_iterations": args.openspiel_iterations,
        "strength_games": args.strength_games, "strength_time": args.strength_time,
        "strength_iterations": args.strength_iterations}.items() if v is not None}
    for k, v in given.items():
        if k not in ("workers", "options", "strength_pairs") and v <= 0:
            raise ValueError(f"--{k.replace('_', '-')} must be positive, not {v}")
    if any(w < 1 for w in given.get("workers", ())):
        raise ValueError("--workers: every count must be at least 1")
    if args.strength_time is not None and args.strength_iterations is not None:
        raise ValueError("give --strength-time or --strength-iterations, not both")
    jobs = 0 if args.jobs is None else args.jobs
    if jobs < 0:
        raise ValueError("--jobs must be 0 (one per CPU) or positive")
    games = () if args.games is None else tuple(g.strip() for g in args.games.split(",") if g.strip())
    for g in (*games, args.game):
        game_class(g)                  # ValueError naming the games
    options = parse_options(args.option)
    if "players" in options:
        raise ValueError("--option players: the strength games are 2-player games")
    if options:
        load_game(args.game, players=2, **options)      # ValueError naming a bad option
        given["options"] = options
    if args.strength_pairs is not None:
        given["strength_pairs"] = parse_pairs(args.strength_pairs)
    common = dict(sections=sections, jobs=jobs, seed=args.seed, game=args.game, games=games, **given)
    return Settings.quick_run(**common) if args.quick else Settings(**common)


def execute(args, command=None):
    """Run from parsed arguments, write the reports, print the Markdown; the exit code.
    Bad settings raise ValueError before anything runs (the command line's usage error).
    With ``--versus OTHER``: this build against another (metro_ai.bench.versus) instead of the sections."""
    if getattr(args, "versus", None):
        from . import versus
        return versus.execute(args, command)
    from .versus.settings import versus_only_given
    stray = versus_only_given(args)
    if stray:
        raise ValueError(f"{', '.join(stray)}: only with --versus OTHER")
    cfg = settings_from(args)
    args.markdown = args.markdown or "bench.md"
    for path in (args.markdown, args.json):        # fail now, not after a long run
        if not Path(path).resolve().parent.is_dir():
            raise ValueError(f"cannot write {path}: no such directory")
    report = run(cfg, progress=not args.quiet)
    text = markdown(report, command)
    Path(args.markdown).write_text(text)
    Path(args.json).write_text(dumps(_json_ready(report), indent=2) + "\n")
    print(text)
    print(f"wrote {args.markdown} and {args.json}", file=sys.stderr)
    skipped = [n for n, s in report["sections"].items() if "skipped" in s]
    return 1 if (args.sections is not None and skipped) else 0
