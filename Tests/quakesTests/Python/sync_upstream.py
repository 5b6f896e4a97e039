#!/usr/bin/env python3
"""A local stand-in for a remote quake source, for the `quakes sync` tests (nothing reaches the internet).

    sync_upstream.py --upstream http://127.0.0.1:PORT [--faults LIST] [--match TEXT] [--log FILE]
    sync_upstream.py --feed-dir DIR [--faults LIST] [--match TEXT] [--log FILE]

It prints its port on the first line of standard output, then serves until killed.

With --upstream it is a proxy in front of another server (a `quakes serve`); with --feed-dir it serves
the files of DIR as USGS serves its summary feeds: an ETag (a hash of the bytes) and Last-Modified,
and `304 Not Modified` for a matching If-None-Match or a not-older If-Modified-Since.

--faults is a comma-separated list, used up one per request whose path contains --match (default
`query`), before the request is answered for real:

    503      503 with Retry-After: 1           500      500 with an HTML body
    429      429 with Retry-After: 1           reset    the connection closed with no answer (RST)
    cut      the real answer's headers, half its body, then the connection closed
    html     200 with an HTML error page       badjson  200 with JSON that stops part way
    slow     200, a few bytes, then a 30 s stall (past the client's read timeout)
    gzipcut  200 with Content-Encoding: gzip, a gzip stream cut short, and the length it has
    toomany  413 "too many events" (as a service whose limit was passed)

--delay S waits S seconds before each answer (a slow link, so that a sync can be killed part way).
Each request is logged (method, path and query, the fault used) to --log, one per line.
"""
import argparse
import gzip
import hashlib
import http.server
import os
import socket
import struct
import sys
import threading
import time
import urllib.request
from email.utils import formatdate, parsedate_to_datetime

args = None
faults = []
lock = threading.Lock()


def log(line):
    if args.log:
        with lock, open(args.log, "a") as f:
            f.write(line + "\n")


def next_fault(path):
    with lock:
        if faults and args.match in path:
            return faults.pop(0)
    return None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def real(self):
        """The real answer: status, headers and body."""
        if args.upstream:
            req = urllib.request.Request(args.upstream + self.path, headers={
                k: v for k, v in self.headers.items() if k.lower() in ("if-none-match", "if-modified-since")})
            try:
                with urllib.request.urlopen(req, timeout=60) as r:
                    return r.status, [(k, v) for k, v in r.getheaders()
                                      if k.lower() not in ("transfer-encoding", "connection", "content-length")], r.read()
            except urllib.error.HTTPError as e:
                return e.code, [(k, v) for k, v in e.headers.items()
                                if k.lower() not in ("transfer-encoding", "connection", "content-length")], e.read()
        name = os.path.join(args.feed_dir, os.path.basename(self.path.split("?")[0]))
        if not os.path.isfile(name):
            return 404, [("Content-Type", "text/plain")], b"not found\n"
        with open(name, "rb") as f:
            body = f.read()
        etag = '"' + hashlib.sha1(body).hexdigest() + '"'
        mtime = os.path.getmtime(name)
        headers = [("ETag", etag), ("Last-Modified", formatdate(mtime, usegmt=True)),
                   ("Content-Type", "application/json" if name.endswith("json") else "text/csv")]
        inm = self.headers.get("If-None-Match")
        ims = self.headers.get("If-Modified-Since")
        if inm is not None:
            if inm == etag:
                return 304, headers, b""
        elif ims is not None:
            try:
                if int(mtime) <= parsedate_to_datetime(ims).timestamp():
                    return 304, headers, b""
            except (TypeError, ValueError):
                pass
        return 200, headers, body

    def send(self, status, headers, body, length=None):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def do_GET(self):
        if args.delay:
            time.sleep(args.delay)
        fault = next_fault(self.path)
        log("GET %s %s" % (self.path, fault or "-"))
        if fault == "503":
            return self.send(503, [("Retry-After", "1"), ("Content-Type", "text/plain")], b"Service unavailable\n")
        if fault == "500":
            return self.send(500, [("Content-Type", "text/html")], b"<html><body>Internal error</body></html>\n")
        if fault == "429":
            return self.send(429, [("Retry-After", "1"), ("Content-Type", "text/plain")], b"Too many requests\n")
        if fault == "toomany":
            return self.send(413, [("Content-Type", "text/plain")],
                             b"Error 413: 20001 matching events exceeds search limit of 20000.\n")
        if fault == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        if fault == "html":
            return self.send(200, [("Content-Type", "text/html")],
                             b"<!DOCTYPE html><html><body><h1>Service temporarily down</h1></body></html>\n")
        if fault == "badjson":
            return self.send(200, [("Content-Type", "application/json")],
                             b'{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"mag":')
        status, headers, body = self.real()
        if fault == "cut" and len(body) > 1:
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        if fault == "slow":
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[:10])
            self.wfile.flush()
            time.sleep(30)
            self.close_connection = True
            return
        if fault == "gzipcut":
            z = gzip.compress(body)
            z = z[: len(z) // 2]
            return self.send(status, headers + [("Content-Encoding", "gzip")], z)
        self.send(status, headers, body)


def main():
    global args, faults
    p = argparse.ArgumentParser()
    p.add_argument("--upstream")
    p.add_argument("--feed-dir")
    p.add_argument("--faults", default="")
    p.add_argument("--match", default="query")
    p.add_argument("--log")
    p.add_argument("--delay", type=float, default=0, help="seconds to wait before each answer")
    args = p.parse_args()
    faults = [f for f in args.faults.split(",") if f]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
