"""A stand-in for the DuckDB CLI, for `quakes bench --compare duckdb --duckdb WRAPPER` in tests
where only the duckdb Python module is installed.

Reads a script on standard input as the CLI does for the commands bench writes: SQL statements
ending in ';' at the end of a line, and the dot commands .mode (csv or trash), .headers and
.timer on. Prints each result in CSV (nothing under .mode trash) and, with the timer on,
"Run Time (s): real SECONDS" after each statement. Exits 1 on the first error (as -bail).
"""
import sys
import time

import duckdb


def main():
    con = duckdb.connect()
    mode, timer, pending = "csv", False, []
    for raw in sys.stdin.read().split("\n"):
        line = raw.strip()
        if not pending and line.startswith("."):
            words = line.split()
            if words[0] == ".mode":
                mode = words[1]
            elif words[0] == ".timer":
                timer = words[1] == "on"
            continue
        if not line:
            continue
        pending.append(raw)
        if not line.endswith(";"):
            continue
        statement = "\n".join(pending)
        pending = []
        start = time.perf_counter()
        try:
            rows = con.execute(statement).fetchall()
        except duckdb.Error as error:
            print(f"Error: {error}", file=sys.stderr)
            sys.exit(1)
        elapsed = time.perf_counter() - start
        if mode != "trash":
            for row in rows:
                print(",".join("" if value is None else str(value) for value in row))
        if timer:
            print(f"Run Time (s): real {elapsed:.6f} user 0 sys 0")


if __name__ == "__main__":
    main()
