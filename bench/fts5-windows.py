#!/usr/bin/env python3
"""Native reference for issue 34's index-time ratios: Python's sqlite3 FTS5 over 40-line
windows of exactly the files given, process start included when timed from outside.

Usage: python3 bench/fts5-windows.py ROOT FILE_LIST DB
FILE_LIST holds one path per line, relative to ROOT (the files Sift indexed). Prints
"<files> <windows>" on stdout. Binary (NUL byte) files are skipped, text is read as UTF-8
with replacement, as a simple indexer would.
"""
import os
import sqlite3
import sys

WINDOW_LINES = 40


def main() -> None:
    root, file_list, db = sys.argv[1], sys.argv[2], sys.argv[3]
    if os.path.exists(db):
        os.remove(db)
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=OFF")
    con.execute("PRAGMA synchronous=OFF")
    con.execute("CREATE VIRTUAL TABLE windows USING fts5(content, path, start_line UNINDEXED)")
    files = 0
    rows = []
    with open(file_list, encoding="utf-8") as f:
        paths = [line.rstrip("\n") for line in f if line.strip()]
    for rel in paths:
        try:
            with open(os.path.join(root, rel), "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        if b"\0" in data:
            continue
        files += 1
        lines = data.decode("utf-8", "replace").split("\n")
        for s in range(0, len(lines), WINDOW_LINES):
            rows.append(("\n".join(lines[s:s + WINDOW_LINES]), rel, s + 1))
    with con:
        con.executemany("INSERT INTO windows(content, path, start_line) VALUES (?, ?, ?)", rows)
    con.close()
    print(files, len(rows))


if __name__ == "__main__":
    main()
