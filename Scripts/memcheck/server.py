"""The loopback HTTP server of Scripts/memory-check.sh.

    python3 Scripts/memcheck/server.py --hosts 16 --small TestImages/small-320x240.jpg --files DIR

Listens on 127.0.0.1 ... 127.0.0.N (all of 127/8 is loopback on Linux; several hosts, because
`prepare` lets at most --per-host downloads at once go to one host, and the endless-body cases
need 64 in flight) and prints one line, "ADDRESS:PORT ..." for each host, when ready. The query
string is ignored everywhere (it only makes URLs distinct). Paths:

    /img/ANY                 the --small image (image/jpeg, with Content-Length)
    /files/NAME              NAME from --files (type from the extension, with Content-Length)
    /endless-zeros           zeros forever, image/jpeg, no Content-Length
    /endless-jpeg            a JPEG start (FF D8 FF E0), then zeros forever, image/jpeg
    /endless-mp4             an `ftyp` box, an `mdat` header claiming 2^62 bytes, then zeros
                             forever, video/mp4, no Content-Length
"""
import argparse, http.server, os, struct, sys, threading

TYPES = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".webp": "image/webp"}
FTYP = b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isommp41"
MDAT = struct.pack(">I", 1) + b"mdat" + struct.pack(">Q", 1 << 62)  # 64-bit size: "huge"


def handler(small, files):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def endless(self, kind):
            content_type, start = {"zeros": ("image/jpeg", b""), "jpeg": ("image/jpeg", b"\xff\xd8\xff\xe0"),
                                   "mp4": ("video/mp4", FTYP + MDAT)}[kind]
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Connection", "close")
            self.end_headers()
            chunk = bytes(1 << 20)  # large writes: 64 bodies of 50 MB on 2 shared cores
            try:
                self.wfile.write(start + chunk[len(start):])
                while True:
                    self.wfile.write(chunk)
            except OSError:  # the client cut it at its byte cap
                return

        def send(self, data, content_type):
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                self.wfile.write(data)
            except OSError:
                pass

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            if path.startswith("/endless-"):
                kind = path[len("/endless-"):]
                if kind in ("zeros", "jpeg", "mp4"):
                    return self.endless(kind)
            elif path.startswith("/img/"):
                return self.send(small, "image/jpeg")
            elif path.startswith("/files/") and path[len("/files/"):] in files:
                name = path[len("/files/"):]
                return self.send(files[name], TYPES.get(os.path.splitext(name)[1].lower(), "application/octet-stream"))
            self.send_error(404)

    return Handler


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # 64 connections may arrive at once


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", type=int, default=1)
    ap.add_argument("--small", required=True)
    ap.add_argument("--files", action="append", default=[], help="a folder whose files are served under /files/")
    args = ap.parse_args()
    small = open(args.small, "rb").read()
    files = {}
    for folder in args.files:
        for name in sorted(os.listdir(folder)):
            full = os.path.join(folder, name)
            if os.path.isfile(full):
                files[name] = open(full, "rb").read()
    cls = handler(small, files)
    servers, port = [], 0
    for i in range(1, args.hosts + 1):
        address = f"127.0.0.{i}"
        try:
            server = Server((address, port), cls)
        except OSError:  # that port is taken on this address: any port
            server = Server((address, 0), cls)
        port = port or server.server_address[1]
        servers.append(server)
    for server in servers[1:]:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print(" ".join(f"{s.server_address[0]}:{s.server_address[1]}" for s in servers), flush=True)
    servers[0].serve_forever()


if __name__ == "__main__":
    sys.exit(main())
