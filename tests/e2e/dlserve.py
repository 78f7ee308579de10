#!/usr/bin/env python3
"""dlserve.py: a stand-in for Velero's DownloadRequest controller and object store, for e2e tests.

usage: dlserve.py SIM_URL NAMESPACE MODE PORTFILE

Watches (polls) the DownloadRequests of NAMESPACE on veltop-sim (whose own controller only looks
at its Velero namespace) and sets status.downloadURL on each by MODE:
  bomb      a URL here serving a gzip stream of a few log lines, then zeros without end
  relative  "/api/v1/namespaces/kube-system/secrets" (not an absolute URL)
  userinfo  "http://user:S3cretPass@127.0.0.1:1/log.gz" (a closed port: the fetch fails)
Writes the port it serves on to PORTFILE once it serves. Runs until killed.
"""
import http.server
import json
import sys
import threading
import time
import urllib.request
import zlib

sim, ns, mode, portfile = sys.argv[1:5]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # the body ends when the connection closes

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        z = zlib.compressobj(9, zlib.DEFLATED, 31)
        head = b"".join(b'time="2026-01-01T00:00:0%dZ" level=info msg="line %d" backup=%s/bomb\n'
                        % (i, i, ns.encode()) for i in range(3))
        zeros = bytes(1 << 20)
        try:
            self.wfile.write(z.compress(head))
            while True:
                out = z.compress(zeros)
                if out:
                    self.wfile.write(out)
        except (BrokenPipeError, ConnectionResetError):
            pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
port = srv.server_address[1]
threading.Thread(target=srv.serve_forever, daemon=True).start()
url = {"bomb": "http://127.0.0.1:%d/log.gz" % port,
       "relative": "/api/v1/namespaces/kube-system/secrets",
       "userinfo": "http://user:S3cretPass@127.0.0.1:1/log.gz"}[mode]
with open(portfile + ".tmp", "w") as f:
    f.write(str(port))
import os
os.rename(portfile + ".tmp", portfile)

base = "%s/apis/velero.io/v1/namespaces/%s/downloadrequests" % (sim, ns)
while True:
    try:
        items = json.load(urllib.request.urlopen(base))["items"]
        for dr in items:
            if (dr.get("status") or {}).get("downloadURL"):
                continue
            body = json.dumps({"status": {"phase": "Processed", "downloadURL": url}}).encode()
            req = urllib.request.Request(base + "/" + dr["metadata"]["name"], data=body,
                                         method="PATCH",
                                         headers={"Content-Type": "application/merge-patch+json"})
            urllib.request.urlopen(req)
    except Exception as e:  # the sim going away ends the test anyway
        print("dlserve:", e, file=sys.stderr)
    time.sleep(0.1)
