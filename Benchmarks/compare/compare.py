#!/usr/bin/env python3
"""Runs the quakes workload on quakes, DuckDB, SQLite and chDB over one CSV and prints one table.

The parameters: draw 0 is params.json's first value set, kept for continuity; the other draws
(--draws, default 20) are drawn at random from the archive with a printed seed (draws.py), so that
no parameter set is special. Per query it reports the median time over the draws and, per peer, the
median and the worst of the per-draw ratios.

In-process timings: warm, per draw the median of RUNS timed runs (default 3) after a warm-up
(DuckDB, SQLite and chDB through their Python modules, quakes through `quakes bench --queries`,
which runs in-process too). Whole-process timings: the same for the quakes CLI, the duckdb CLI and
the sqlite3 CLI. chDB (ClickHouse in-process) holds a MergeTree table ordered by time; it has no
CLI of its own here.
"""
import argparse, datetime, json, os, random, re, shlex, shutil, sqlite3, statistics, subprocess, sys, time

import duckdb
import draws
from chdb import session as chdb_session
import chdb

COLS = "time, mag, place, id"


def day_end(day):
    return (datetime.date.fromisoformat(day) + datetime.timedelta(days=1)).isoformat()


def clickhouse(sql):
    """The DuckDB text of a workload query in ClickHouse's dialect."""
    sql = re.sub(r"TIMESTAMPTZ '([^']+)'", r"'\1'", sql)
    sql = sql.replace("date_trunc('month', time)", "toStartOfMonth(time)")
    return sql


def workload(p, k):
    """The queries for the k-th value set of params.json (ab.py cycles through them)."""
    return queries(draws.fixed_draw(p, k))


def queries(d):
    """The eleven queries for one draw: name, quakes CLI args, DuckDB SQL, SQLite SQL."""
    day, loc, country, year = d["day"], d["locality"], d["country"], d["year"]
    mag, off, like, box, bmag = d["mag"], d["offset"], d["like"], d["box"], d["box_mag"]
    net, nmag = d["net"], d["net_mag"]
    end, y0, y1 = day_end(day), f"{year}-01-01", f"{year + 1}-01-01"
    la0, la1, lo0, lo1 = box
    return [
        ("1 day map: place contains locality, by mag desc",
         f"query --day {day} --place {q(loc)} --sort mag:desc --fields time,mag,place,id --format csv",
         f"SELECT {COLS} FROM quakes WHERE time >= TIMESTAMPTZ '{day}' AND time < TIMESTAMPTZ '{end}' AND place LIKE '%{sq(loc)}%' ORDER BY mag DESC NULLS LAST, id",
         f"SELECT {COLS} FROM quakes WHERE time >= '{day}' AND time < '{end}' AND instr(place, '{sq(loc)}') > 0 ORDER BY mag DESC NULLS LAST, id"),
        ("2 day list: time desc, page 3 of 50",
         f"query --day {day} --sort time:desc --page 3 --page-size 50 --fields time,mag,place,id --format csv",
         f"SELECT {COLS} FROM quakes WHERE time >= TIMESTAMPTZ '{day}' AND time < TIMESTAMPTZ '{end}' ORDER BY time DESC, id LIMIT 50 OFFSET 100",
         f"SELECT {COLS} FROM quakes WHERE time >= '{day}' AND time < '{end}' ORDER BY time DESC, id LIMIT 50 OFFSET 100"),
        ("3 count mag >= M",
         f"count --min-mag {mag}",
         f"SELECT count(*) FROM quakes WHERE mag >= {mag}",
         f"SELECT count(*) FROM quakes WHERE mag >= {mag}"),
        ("4 place contains country, top 100 by mag",
         f"query --place {q(country)} --sort mag:desc --limit 100 --fields time,mag,place,id --format csv",
         f"SELECT {COLS} FROM quakes WHERE place LIKE '%{sq(country)}%' ORDER BY mag DESC NULLS LAST, id LIMIT 100",
         f"SELECT {COLS} FROM quakes WHERE instr(place, '{sq(country)}') > 0 ORDER BY mag DESC NULLS LAST, id LIMIT 100"),
        ("5 one year by month: count, avg, max",
         f"agg --from {y0} --to {y1} --by month --metrics count,avg(mag),max(mag) --format csv",
         f"SELECT date_trunc('month', time) AS m, count(*), avg(mag), max(mag) FROM quakes WHERE time >= TIMESTAMPTZ '{y0}' AND time < TIMESTAMPTZ '{y1}' GROUP BY m ORDER BY m",
         f"SELECT substr(time, 1, 7) AS m, count(*), avg(mag), max(mag) FROM quakes WHERE time >= '{y0}' AND time < '{y1}' GROUP BY m ORDER BY m"),
        ("6 by net: count, avg(mag), max(depth)",
         "agg --by net --metrics count,avg(mag),max(depth) --format csv",
         "SELECT net, count(*), avg(mag), max(depth) FROM quakes GROUP BY net ORDER BY net",
         "SELECT net, count(*), avg(mag), max(depth) FROM quakes GROUP BY net ORDER BY net"),
        ("7 time desc, deep offset, limit 100",
         f"query --sort time:desc --offset {off} --limit 100 --fields time,mag,place,id --format csv",
         f"SELECT {COLS} FROM quakes ORDER BY time DESC, id LIMIT 100 OFFSET {off}",
         f"SELECT {COLS} FROM quakes ORDER BY time DESC, id LIMIT 100 OFFSET {off}"),
        ("8 place like, count",
         f"count --place-like {like}",
         f"SELECT count(*) FROM quakes WHERE place ILIKE '%{like}%'",
         f"SELECT count(*) FROM quakes WHERE place LIKE '%{like}%'"),
        ("9 one year, top 10 by mag",
         f"query --from {y0} --to {y1} --sort mag:desc --limit 10 --fields time,mag,place,id --format csv",
         f"SELECT {COLS} FROM quakes WHERE time >= TIMESTAMPTZ '{y0}' AND time < TIMESTAMPTZ '{y1}' ORDER BY mag DESC NULLS LAST, id LIMIT 10",
         f"SELECT {COLS} FROM quakes WHERE time >= '{y0}' AND time < '{y1}' ORDER BY mag DESC NULLS LAST, id LIMIT 10"),
        ("10 box with mag >= M, count",
         f"count --bbox {la0},{la1},{lo0},{lo1} --min-mag {bmag}",
         f"SELECT count(*) FROM quakes WHERE latitude BETWEEN {la0} AND {la1} AND longitude BETWEEN {lo0} AND {lo1} AND mag >= {bmag}",
         f"SELECT count(*) FROM quakes WHERE latitude BETWEEN {la0} AND {la1} AND longitude BETWEEN {lo0} AND {lo1} AND mag >= {bmag}"),
        ("11 network with mag >= M, count",
         f"count --net {net} --min-mag {nmag}",
         f"SELECT count(*) FROM quakes WHERE net = '{sq(net)}' AND mag >= {nmag}",
         f"SELECT count(*) FROM quakes WHERE net = '{sq(net)}' AND mag >= {nmag}"),
    ]


def q(text):
    """A CLI argument, quoted as a shell would (quakes bench reads its lines the same way)."""
    return shlex.quote(text)


def sq(text):
    """Text inside an SQL string literal."""
    return text.replace("'", "''")


SQLITE_SCHEMA = """CREATE TABLE quakes (time TEXT, latitude REAL, longitude REAL, depth REAL, mag REAL, magType TEXT,
nst INTEGER, gap REAL, dmin REAL, rms REAL, net TEXT, id TEXT, updated TEXT, place TEXT, type TEXT,
horizontalError REAL, depthError REAL, magError REAL, magNst INTEGER, status TEXT, locationSource TEXT, magSource TEXT);"""

CH_SCHEMA = ", ".join([
    "time DateTime64(3, 'UTC')", "latitude Float64", "longitude Float64", "depth Nullable(Float64)",
    "mag Nullable(Float64)", "magType Nullable(String)", "nst Nullable(Int32)", "gap Nullable(Float64)",
    "dmin Nullable(Float64)", "rms Nullable(Float64)", "net Nullable(String)", "id String",
    "updated Nullable(DateTime64(3, 'UTC'))", "place Nullable(String)", "type Nullable(String)",
    "horizontalError Nullable(Float64)", "depthError Nullable(Float64)", "magError Nullable(Float64)",
    "magNst Nullable(Int32)", "status Nullable(String)", "locationSource Nullable(String)", "magSource Nullable(String)"])


def chdb_load(path, csv):
    """chDB's load: a MergeTree table ordered by time, from the CSV, in a session at path."""
    s = chdb_session.Session(path)
    s.query(f"CREATE TABLE quakes ({CH_SCHEMA}) ENGINE = MergeTree ORDER BY time")
    s.query(f"INSERT INTO quakes SELECT * FROM file('{csv}', 'CSVWithNames', \"{CH_SCHEMA}\") "
            "SETTINGS date_time_input_format = 'best_effort'")
    s.query("OPTIMIZE TABLE quakes FINAL")
    s.close()


def chdb_rows(text):
    """A chDB CSV result as rows, counts as ints, for the cross-check."""
    rows = [line.split(",") for line in str(text).splitlines() if line]
    if len(rows) == 1 and len(rows[0]) == 1 and rows[0][0].isdigit():
        return [(int(rows[0][0]),)]
    return rows


def timed(fn):
    t = time.perf_counter()
    r = fn()
    return (time.perf_counter() - t) * 1000, r


RUNS = int(os.environ.get("RUNS", "3"))


SLOW_MS = 1000


def per_draw(fn, text, draws_count):
    """Per draw: one warm-up, then the median of RUNS timed runs (one when the warm-up took over
    SLOW_MS), and the result. A query whose text is the same as an earlier draw's is not run again."""
    times, results, seen = [], [], {}
    for k in range(draws_count):
        if text(k) in seen:
            ms, r = seen[text(k)]
        else:
            w, r = timed(lambda: fn(k))
            ts = []
            for _ in range(1 if w > SLOW_MS else RUNS):
                t, r = timed(lambda: fn(k))
                ts.append(t)
            ms = statistics.median(ts)
            seen[text(k)] = (ms, r)
        times.append(ms)
        results.append(r)
    return times, results


def summary(rows):
    """A result as one number for the cross-check: the count, or the rows returned."""
    return rows[0][0] if len(rows) == 1 and len(rows[0]) == 1 and isinstance(rows[0][0], int) else len(rows)


def rss_of(cmd):
    """Runs cmd under /usr/bin/time -v; returns (seconds, peak RSS KiB, stdout)."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    secs = time.perf_counter() - t0
    if p.returncode != 0:
        print(p.stdout, p.stderr, file=sys.stderr)
        raise SystemExit(f"failed: {cmd}")
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    return secs, int(m.group(1)) if m else 0, p.stdout


def du(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quakes", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--csv", required=True)
    ap.add_argument("--params", required=True)
    ap.add_argument("--duckdb-cli", default="duckdb")
    ap.add_argument("--draws", type=int, default=20,
                    help="parameter draws: params.json's first set, then draws at random from the archive")
    ap.add_argument("--seed", type=int, default=None, help="the draws' seed (default: a new one, printed)")
    ap.add_argument("--skip-load", action="store_true", help="keep the stores of the last run in --work")
    ap.add_argument("--queries", default=None,
                    help="run only these queries, by number (e.g. 1,2,10,11); default: all")
    a = ap.parse_args()
    params = json.load(open(a.params))
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 31)
    print(f"seed {seed}", file=sys.stderr)
    csv_bytes = os.path.getsize(a.csv)
    qs, ddb, dcli, sdb, cdb = (os.path.join(a.work, x) for x in
                               ("quakes.store", "quakes.duckdb", "quakes-cli.duckdb", "quakes.sqlite", "quakes.chdb"))
    loads, old = {}, None
    if not a.skip_load:
        # Move earlier stores aside and delete them only at the end: ext4 makes file creation slow
        # right after many deletions (recently_deleted inode scans), which would skew the loads.
        old = os.path.join(a.work, "old-%d" % int(time.time()))
        os.makedirs(old)
        for p in (qs, ddb, dcli, sdb, cdb):
            if os.path.exists(p):
                os.rename(p, os.path.join(old, os.path.basename(p)))
        time.sleep(int(os.environ.get("SETTLE", "10")))

        secs, rss, _ = rss_of([a.quakes, "load", "--store", qs, a.csv])
        loads["quakes (whole process)"] = (secs, rss, du(qs))
        secs, rss, _ = rss_of([sys.executable, "-c",
                               f"import duckdb; c=duckdb.connect({ddb!r}); c.execute(\"CREATE TABLE quakes AS SELECT * FROM read_csv({a.csv!r}, header=true)\"); c.execute('CHECKPOINT')"])
        loads[f"DuckDB {duckdb.__version__} (Python module, in-process)"] = (secs, rss, du(ddb))
        secs, rss, _ = rss_of([a.duckdb_cli, dcli, "-c", f"CREATE TABLE quakes AS SELECT * FROM read_csv('{a.csv}', header=true); CHECKPOINT;"])
        cli_version = subprocess.run([a.duckdb_cli, "-version"], capture_output=True, text=True).stdout.split()[0]
        loads[f"duckdb CLI {cli_version}"] = (secs, rss, du(dcli))
        script = f"{SQLITE_SCHEMA}\n.mode csv\n.import --skip 1 {a.csv} quakes\nCREATE INDEX quakes_time ON quakes(time);\nCREATE INDEX quakes_mag ON quakes(mag);\n"
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-v", "sqlite3", sdb], input=script, capture_output=True, text=True)
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
        loads[f"sqlite3 {sqlite3.sqlite_version} (+ 2 indexes)"] = (time.perf_counter() - t0, int(m.group(1)) if m else 0, du(sdb))
        secs, rss, _ = rss_of([sys.executable, "-c", f"import sys; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); "
                               f"import compare; compare.chdb_load({cdb!r}, {a.csv!r})"])
        loads[f"chDB {chdb.__version__} (MergeTree by time, in-process)"] = (secs, rss, du(cdb))

    scon = sqlite3.connect(sdb)
    D = draws.draws(params, scon, a.draws, seed)
    only = {int(x) for x in a.queries.split(",")} if a.queries else None
    W = [[q for i, q in enumerate(queries(d)) if only is None or i + 1 in only] for d in D]
    n, m = len(W[0]), len(D)

    # in-process: quakes runs each line RUNS times after a warm-up; line k*n+i is query i of draw k
    qfile = os.path.join(a.work, "queries.txt")
    with open(qfile, "w") as f:
        for k in range(m):
            for _, cli, _, _ in W[k]:
                f.write(re.sub(r" --format \w+", "", cli) + "\n")
    out = subprocess.run([a.quakes, "bench", "--store", qs, "--queries", qfile, "--runs", str(RUNS), "--json"],
                         capture_output=True, text=True, check=True)
    res = json.loads(out.stdout)["cases"]
    quakes_in = [[res[k * n + i]["timing"]["medianMs"] for k in range(m)] for i in range(n)]
    quakes_rows = [sum(res[k * n + i]["rowsReturned"] for k in range(m)) for i in range(n)]
    dcon = duckdb.connect(ddb, read_only=True)
    ccon = chdb_session.Session(cdb)
    duck_in, lite_in, ch_in, duck_rows, lite_rows, ch_rows = [], [], [], [], [], []
    for i in range(n):
        ms, r = per_draw(lambda k: dcon.execute(W[k][i][2]).fetchall(), lambda k: W[k][i][2], m)
        duck_in.append(ms); duck_rows.append(sum(summary(x) for x in r))
        ms, r = per_draw(lambda k: scon.execute(W[k][i][3]).fetchall(), lambda k: W[k][i][3], m)
        lite_in.append(ms); lite_rows.append(sum(summary(x) for x in r))
        ms, r = per_draw(lambda k: chdb_rows(ccon.query(clickhouse(W[k][i][2]), "CSV")), lambda k: W[k][i][2], m)
        ch_in.append(ms); ch_rows.append(sum(summary(x) for x in r))
    ccon.close()

    # whole processes
    def proc(cmd):
        return lambda k: subprocess.run(cmd(k), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    quakes_cli, duck_cli, lite_cli = [], [], []
    for i in range(n):
        quakes_cli.append(per_draw(proc(lambda k: [a.quakes] + shlex.split(W[k][i][1]) + ["--store", qs]),
                                   lambda k: W[k][i][1], m)[0])
        duck_cli.append(per_draw(proc(lambda k: [a.duckdb_cli, "-readonly", dcli, "-c", W[k][i][2]]),
                                 lambda k: W[k][i][2], m)[0])
        lite_cli.append(per_draw(proc(lambda k: ["sqlite3", sdb, W[k][i][3]]), lambda k: W[k][i][3], m)[0])

    if old:
        shutil.rmtree(old, ignore_errors=True)
    cli_version = subprocess.run([a.duckdb_cli, "-version"], capture_output=True, text=True).stdout.split()[0]
    print(f"# quakes vs DuckDB {duckdb.__version__} (duckdb CLI {cli_version}) vs SQLite {sqlite3.sqlite_version} "
          f"vs chDB {chdb.__version__}, {os.path.basename(a.csv)} ({csv_bytes / 1e6:.0f} MB), {m} draws, seed {seed}\n")
    print(f"Draw 0 is params.json's first set; draws 1-{m - 1} are drawn at random from the archive (draws.py). "
          f"Run them again with `--seed {seed} --draws {m}`.\n")
    print("| draw | day | locality | country | year | mag | offset | like | box | box mag | net | net mag |\n"
          "|---:|---|---|---|---:|---:|---:|---|---|---:|---|---:|")
    for k, d in enumerate(D):
        print(f"| {k} | {d['day']} | {d['locality']} | {d['country']} | {d['year']} | {d['mag']} | {d['offset']} | "
              f"{d['like']} | {','.join(str(x) for x in d['box'])} | {d['box_mag']} | {d['net']} | {d['net_mag']} |")
    if loads:
        print("\n| load | seconds | MB/s | peak RSS MiB | size MB |\n|---|---:|---:|---:|---:|")
        for key, (sec, r, b) in loads.items():
            print(f"| {key} | {sec:.1f} | {csv_bytes / 1e6 / sec:.0f} | {r / 1024:.0f} | {b / 1e6:.0f} |")
    print(f"\nIn-process, warm: per draw, the median of {RUNS} timed runs after a warm-up (1 run when the warm-up "
          f"took over {SLOW_MS} ms); times are the median over the {m} draws (ms). A ratio is quakes / peer on the "
          "same draw, below 1 means quakes is faster: the median over the draws, and the worst (with its draw). "
          "Best = the fastest peer on that draw. Rows: summed over the draws, quakes/DuckDB/SQLite/chDB.\n")
    print("| query | quakes | DuckDB | SQLite | chDB | q/DuckDB med | worst | q/SQLite med | worst | q/best med | worst "
          "| rows q/d/s/c |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for i in range(n):
        best = [min(duck_in[i][k], lite_in[i][k], ch_in[i][k]) for k in range(m)]
        print(f"| {W[0][i][0]} | {med(quakes_in[i]):.2f} | {med(duck_in[i]):.2f} | {med(lite_in[i]):.2f} | "
              f"{med(ch_in[i]):.2f} | {ratios(quakes_in[i], duck_in[i])} | {ratios(quakes_in[i], lite_in[i])} | "
              f"{ratios(quakes_in[i], best)} | {quakes_rows[i]}/{duck_rows[i]}/{lite_rows[i]}/{ch_rows[i]} |")
    print(f"\nWhole CLI processes: per draw, the median of {RUNS} runs after a warm-up; times are the median over "
          f"the {m} draws (ms); ratios as above.\n")
    print("| query | quakes | duckdb CLI | sqlite3 CLI | q/duckdb med | worst | q/sqlite3 med | worst |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|")
    for i in range(n):
        print(f"| {W[0][i][0]} | {med(quakes_cli[i]):.1f} | {med(duck_cli[i]):.1f} | {med(lite_cli[i]):.1f} | "
              f"{ratios(quakes_cli[i], duck_cli[i])} | {ratios(quakes_cli[i], lite_cli[i])} |")


def med(xs):
    return statistics.median(xs)


def ratios(mine, theirs):
    """The median and the worst of the per-draw ratios, as two table cells."""
    rs = [x / y if y > 0 else float("inf") for x, y in zip(mine, theirs)]
    worst = max(range(len(rs)), key=lambda k: rs[k])
    return f"{statistics.median(rs):.2f} | {rs[worst]:.2f} (d{worst})"


if __name__ == "__main__":
    main()
