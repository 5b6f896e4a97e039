#!/usr/bin/env python3
"""Small writes on a large store: quakes `load` (whole process) against SQLite and DuckDB.

    small_writes.py QUAKES STORE CSV DUCKDB WORK [--seed N] [--runs 5] [--commits 100]

STORE is a quakes store loaded from CSV (time-ordered, as `quakes generate` writes it); DUCKDB a
DuckDB file holding the same rows in table `quakes`. WORK receives copies of both and a SQLite
file built from CSV (kept between runs, as `WORK/s.sqlite`). Every change is drawn at random from
CSV with the seed printed: whole rows, with a newer `updated` and a magnitude 0.1 higher, written
as a CSV file for quakes and applied as whole rows to the others:

- SQLite (in-process, `id` primary key): `INSERT OR REPLACE` of the rows in one transaction;
- DuckDB (in-process, `id` unique): `DELETE` of the ids and `INSERT` of the rows, then `CHECKPOINT`.

Cases: 1 event; 10 and 1,000 events anywhere; 1,000 events in the newest month. Each is run
`--runs` times on fresh draws, and the median is printed; each engine's change starts after an
`os.sync()`, so that none pays for another's pages being written. Then `--commits` one-event loads in a
row, and `quakes query --id` with 1,000 ids drawn at random.
"""
import argparse
import csv
import io
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

CASES = [("1 event", 1, False), ("10 events anywhere", 10, False),
         ("1,000 events anywhere", 1000, False), ("1,000 events in the newest month", 1000, True)]


class Rows:
    """Draws whole rows of a time-ordered CSV at random byte offsets."""

    def __init__(self, path, rng):
        self.path = path
        self.rng = rng
        self.size = os.path.getsize(path)
        with open(path, "rb") as f:
            self.header_line = f.readline()
            self.start = len(self.header_line)
            f.seek(max(self.start, self.size - 65536))
            tail = f.read().decode().splitlines()
        self.header = next(csv.reader([self.header_line.decode()]))
        self.newest_month = tail[-1][:7]
        # the newest month's first byte, by bisection on the time prefix
        lo, hi = self.start, self.size
        with open(path, "rb") as f:
            while hi - lo > 4096:
                mid = (lo + hi) // 2
                f.seek(mid)
                f.readline()
                line = f.readline().decode()
                if line[:7] < self.newest_month:
                    lo = mid
                else:
                    hi = mid
        self.month_start = lo

    def draw(self, count, newest_month):
        low = self.month_start if newest_month else self.start
        rows = {}
        with open(self.path, "rb") as f:
            while len(rows) < count:
                f.seek(self.rng.randrange(low, self.size - 1))
                f.readline()
                line = f.readline().decode()
                if not line:
                    continue
                row = next(csv.reader([line]))
                if newest_month and not row[0].startswith(self.newest_month):
                    continue
                record = dict(zip(self.header, row))
                rows[record["id"]] = record
        return list(rows.values())


def changed(rows, stamp):
    out = []
    for index, row in enumerate(rows):
        row = dict(row)
        row["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(stamp)) + ".%03dZ" % (index % 1000)
        if row["mag"]:
            row["mag"] = "%.2f" % (float(row["mag"]) + 0.1)
        out.append(row)
    return out


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        for row in rows:
            writer.writerow([row[k] for k in header])


def sqlite_value(text):
    if text == "":
        return None
    try:
        return float(text)
    except ValueError:
        return text


def build_sqlite(path, csv_path, header):
    if os.path.exists(path):
        return
    started = time.time()
    db = sqlite3.connect(path + ".tmp")
    columns = ", ".join(f'"{h}" {"TEXT PRIMARY KEY" if h == "id" else ""}' for h in header)
    db.execute(f"CREATE TABLE quakes ({columns})")
    marks = ",".join("?" * len(header))
    with open(csv_path, newline="") as f:
        reader = csv.reader(f)
        next(reader)
        batch = []
        for row in reader:
            batch.append([sqlite_value(v) for v in row])
            if len(batch) == 100_000:
                db.executemany(f"INSERT OR REPLACE INTO quakes VALUES ({marks})", batch)
                batch.clear()
        db.executemany(f"INSERT OR REPLACE INTO quakes VALUES ({marks})", batch)
    db.execute("CREATE INDEX quakes_time ON quakes(time)")
    db.commit()
    db.close()
    os.rename(path + ".tmp", path)
    print(f"built {path} in {time.time() - started:.0f} s", file=sys.stderr)


def quakes_load(quakes, store, path):
    started = time.perf_counter()
    subprocess.run([quakes, "load", "--store", store, path], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def sqlite_apply(db, header, rows):
    marks = ",".join("?" * len(header))
    started = time.perf_counter()
    db.execute("BEGIN")
    db.executemany(f"INSERT OR REPLACE INTO quakes VALUES ({marks})",
                   [[sqlite_value(r[h]) for h in header] for r in rows])
    db.execute("COMMIT")
    return time.perf_counter() - started


def duckdb_apply(db, header, rows, types):
    values = [[None if r[h] == "" else r[h] for h in header] for r in rows]
    started = time.perf_counter()
    db.execute("BEGIN TRANSACTION")
    db.execute("DELETE FROM quakes WHERE id IN (SELECT unnest(?))", [[r["id"] for r in rows]])
    casts = ", ".join(f"CAST(? AS {types[h]})" for h in header)
    db.executemany(f"INSERT INTO quakes VALUES ({casts})", values)
    db.execute("COMMIT")
    db.execute("CHECKPOINT")
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("quakes")
    parser.add_argument("store")
    parser.add_argument("csv")
    parser.add_argument("duckdb")
    parser.add_argument("work")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--commits", type=int, default=100)
    parser.add_argument("--skip-others", action="store_true", help="quakes only")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    print(f"seed {seed}")
    rng = random.Random(seed)
    rows = Rows(args.csv, rng)
    os.makedirs(args.work, exist_ok=True)
    store = os.path.join(args.work, "q")
    shutil.rmtree(store, ignore_errors=True)
    shutil.copytree(args.store, store)
    engines = {"quakes": []}
    sqlite_db = duck = None
    types = {}
    if not args.skip_others:
        import duckdb
        sqlite_path = os.path.join(args.work, "s.sqlite")
        build_sqlite(sqlite_path, args.csv, rows.header)
        shutil.copy(sqlite_path, sqlite_path + ".work")
        sqlite_db = sqlite3.connect(sqlite_path + ".work", isolation_level=None)
        sqlite_db.execute("PRAGMA synchronous=FULL")
        duck_path = os.path.join(args.work, "d.duckdb")
        shutil.copy(args.duckdb, duck_path)
        duck = duckdb.connect(duck_path)
        types = dict(duck.execute("SELECT column_name, data_type FROM information_schema.columns "
                                  "WHERE table_name = 'quakes'").fetchall())
    # the copies' pages are written out first, so that no engine's timing pays for writing them
    os.sync()
    stamp = int(time.time())
    results = []
    for name, count, newest in CASES:
        times = {"quakes": [], "SQLite": [], "DuckDB": []}
        for run in range(args.runs):
            stamp += 1
            batch = changed(rows.draw(count, newest), stamp)
            path = os.path.join(args.work, f"change-{count}-{run}.csv")
            write_csv(path, rows.header, batch)
            # each engine starts with no other engine's pages waiting to be written
            os.sync()
            times["quakes"].append(quakes_load(args.quakes, store, path))
            if sqlite_db is not None:
                os.sync()
                times["SQLite"].append(sqlite_apply(sqlite_db, rows.header, batch))
                os.sync()
                times["DuckDB"].append(duckdb_apply(duck, rows.header, batch, types))
            os.remove(path)
        medians = {k: statistics.median(v) for k, v in times.items() if v}
        results.append((name, medians))
        print(name, {k: f"{v * 1000:.1f} ms" for k, v in medians.items()}, flush=True)
    print()
    print("| change | quakes `load` | SQLite | DuckDB | quakes / SQLite | quakes / DuckDB |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, m in results:
        q = m["quakes"] * 1000
        if "SQLite" in m:
            s, d = m["SQLite"] * 1000, m["DuckDB"] * 1000
            print(f"| {name} | {q:.1f} ms | {s:.1f} ms | {d:.1f} ms | {q / s:.2f} | {q / d:.2f} |")
        else:
            print(f"| {name} | {q:.1f} ms | | | | |")
    started = time.perf_counter()
    for commit in range(args.commits):
        stamp += 1
        path = os.path.join(args.work, "one.csv")
        write_csv(path, rows.header, changed(rows.draw(1, False), stamp))
        quakes_load(args.quakes, store, path)
    total = time.perf_counter() - started
    print(f"\n{args.commits} one-event commits in a row: {total:.2f} s ({total / max(args.commits, 1) * 1000:.1f} ms each)")
    ids = [r["id"] for r in rows.draw(1000, False)]
    command = [args.quakes, "query", "--store", store, "--format", "csv", "--limit", "2000", "--id", ",".join(ids)]
    times = []
    for run in range(args.runs):
        started = time.perf_counter()
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        times.append(time.perf_counter() - started)
    found = len(out.strip().splitlines()) - 1
    print(f"query --id with 1,000 ids: median {statistics.median(times) * 1000:.1f} ms, {found} rows")


if __name__ == "__main__":
    main()
