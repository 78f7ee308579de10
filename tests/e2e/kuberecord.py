#!/usr/bin/env python3
"""kuberecord.py: a recording HTTPS Kubernetes API server and a recording HTTPS proxy, for the
end-to-end tests that compare what veltop and the real kubectl send (standard library only).

usage: kuberecord.py api CERT KEY PORTFILE LOG
       kuberecord.py proxy CERT KEY PORTFILE LOG HOST=IP

api: serves HTTPS (HTTP/1.1, so header names arrive as the client wrote them) and appends one
JSON line per request to LOG: method, path, User-Agent and every header in order. It answers
/version (minor 30, which picks kubectl 1.30 behind the dispatcher), discovery of velero.io,
an empty list for any other GET under /api/ or /apis/, and a watch that stays silent for two
seconds then ends.

proxy: an HTTPS proxy (TLS to the proxy, then CONNECT): appends {"connect": "host:port"} to LOG
for each tunnel and dials HOST as IP (a name that resolves nowhere else, so a client that
bypasses the proxy cannot reach the server).

Writes the port it listens on to PORTFILE once it serves. Runs until killed.
"""
import http.server
import json
import select
import socket
import socketserver
import ssl
import sys
import threading
import time

lock = threading.Lock()


def record(log, entry):
    with lock:
        with open(log, "a") as f:
            f.write(json.dumps(entry) + "\n")


def tls_context(cert, key):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    return ctx


DISCOVERY = {
    "/apis/velero.io/v1": ["backups", "restores", "schedules", "backupstoragelocations",
                           "podvolumebackups", "podvolumerestores", "downloadrequests"],
    "/apis/velero.io/v2alpha1": ["datauploads", "datadownloads"],
}


class Api(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_json(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        record(self.server.log, {"method": "GET", "path": self.path,
                                 "ua": self.headers.get("User-Agent", ""),
                                 "headers": [[k, v] for k, v in self.headers.items()]})
        path, _, query = self.path.partition("?")
        if path == "/version":
            return self.send_json(200, {"major": "1", "minor": "30", "gitVersion": "v1.30.0",
                                        "gitCommit": "0" * 40, "gitTreeState": "clean",
                                        "buildDate": "2024-01-01T00:00:00Z",
                                        "goVersion": "go1.22.0", "compiler": "gc",
                                        "platform": "linux/amd64"})
        if path in DISCOVERY:
            gv = path[len("/apis/"):]
            return self.send_json(200, {"kind": "APIResourceList", "apiVersion": "v1",
                                        "groupVersion": gv,
                                        "resources": [{"name": r, "namespaced": True,
                                                       "kind": r.capitalize()[:-1],
                                                       "verbs": ["get", "list", "watch"]}
                                                      for r in DISCOVERY[path]]})
        if "watch=true" in query.split("&"):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.flush()
            time.sleep(2)
            self.close_connection = True
            return
        if path.startswith("/api/") or path.startswith("/apis/"):
            return self.send_json(200, {"kind": "List", "apiVersion": "v1",
                                        "metadata": {"resourceVersion": "1"}, "items": []})
        self.send_json(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                             "message": "not found", "reason": "NotFound", "code": 404})


class Proxy(socketserver.StreamRequestHandler):
    rbufsize = 0  # unbuffered: nothing past the CONNECT's headers is read here

    def handle(self):
        line = self.rfile.readline(65536).decode("latin-1").strip()
        while True:  # the request's headers, up to the blank line
            h = self.rfile.readline(65536)
            if h in (b"\r\n", b"\n", b""):
                break
        parts = line.split()
        if len(parts) < 2 or parts[0] != "CONNECT":
            self.wfile.write(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
            return
        record(self.server.log, {"connect": parts[1]})
        host, _, port = parts[1].rpartition(":")
        host = host.strip("[]")
        host = self.server.map.get(host, host)
        try:
            up = socket.create_connection((host, int(port)), timeout=10)
        except OSError:
            self.wfile.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        self.wfile.flush()
        down = self.connection
        try:
            while True:
                # an SSL socket may hold decrypted bytes select cannot see
                if isinstance(down, ssl.SSLSocket) and down.pending():
                    r = [down]
                else:
                    r, _, _ = select.select([down, up], [], [], 30)
                if not r:
                    break
                for s in r:
                    data = s.recv(65536)
                    if not data:
                        return
                    (up if s is down else down).sendall(data)
        except OSError:
            pass
        finally:
            up.close()


class TLSThreadingServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, handler, ctx):
        super().__init__(addr, handler, bind_and_activate=False)
        self.socket = ctx.wrap_socket(self.socket, server_side=True, do_handshake_on_connect=True)
        self.server_bind()
        self.server_activate()


def main():
    role, cert, key, portfile, log = sys.argv[1:6]
    ctx = tls_context(cert, key)
    handler = Api if role == "api" else Proxy
    srv = TLSThreadingServer(("127.0.0.1", 0), handler, ctx)
    srv.log = log
    srv.map = {}
    for m in sys.argv[6:]:
        h, _, ip = m.partition("=")
        srv.map[h] = ip
    with open(portfile + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(portfile + ".tmp", portfile)
    srv.serve_forever()


if __name__ == "__main__":
    main()
