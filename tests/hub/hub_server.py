#!/usr/bin/env python3
"""A local server that answers like the Hugging Face Hub, for gpuprobe's hub tests and
tools/hub_bench.sh. Loopback only; Python's standard library only.

  hub_server.py --root TREE [--port 0] [--port-file PATH] [--log PATH]

TREE holds <org>/<name>/ folders (tests/hub/make_hub_tree.py writes them):
  config.json, model.safetensors.index.json, ...   served as files kept in git: 200, ETag =
                                                   the git blob id, X-Repo-Commit
  <shard>.safetensors.header                       makes <shard>.safetensors exist: the length,
                                                   this header, then zeros for the weights;
                                                   served as an LFS file: 302 to /cdn/... with
                                                   X-Repo-Commit, X-Linked-Etag, X-Linked-Size;
                                                   /cdn/ answers byte ranges (206, Content-Range)
  _repo.json                                       quirks: gated_token, cdn_host, no_repo_commit,
                                                   ignore_range, drop_after, stall, redirect_loop,
                                                   header_length {file: N}, file_size {file: bytes}
As the Hub does: an unknown repository is 401 RepoNotFound, a gated one 401 GatedRepo without
a token and 403 with the wrong one, an unknown revision 404 RevisionNotFound, a missing file
404 EntryNotFound. Every request is logged as one JSON line (method, path, range, whether a
token came, status, the Content-Length announced).
"""
import argparse
import hashlib
import http.server
import json
import os
import re
import socketserver
import struct
import sys
import threading
import time
import urllib.parse

CHUNK = 1 << 16


class Repo:
    def __init__(self, root, repo_id):
        self.id = repo_id
        self.dir = os.path.join(root, repo_id)
        quirks = os.path.join(self.dir, "_repo.json")
        self.quirks = json.load(open(quirks)) if os.path.exists(quirks) else {}
        self.commit = hashlib.sha1(("gpuprobe-test-hub:" + repo_id).encode()).hexdigest()

    def plain(self, name):
        path = os.path.join(self.dir, name)
        if name.startswith("_") or name.endswith(".header") or not os.path.isfile(path):
            return None
        return open(path, "rb").read()

    def virtual(self, name):
        """(prefix bytes, total size) of a made-up safetensors file, or None."""
        path = os.path.join(self.dir, name + ".header")
        if not name.endswith(".safetensors") or not os.path.isfile(path):
            return None
        header = open(path, "rb").read()
        data = 0
        try:
            for key, value in json.loads(header).items():
                if key != "__metadata__":
                    data = max(data, value["data_offsets"][1])
        except ValueError:
            pass
        length = self.quirks.get("header_length", {}).get(name, len(header))
        prefix = struct.pack("<Q", length) + header
        total = self.quirks.get("file_size", {}).get(name, len(prefix) + data)
        return prefix[:total], total

    def lfs_etag(self, name):
        prefix, total = self.virtual(name)
        # A stand-in for the file's sha256 (the real one would need the weights).
        return hashlib.sha256(prefix + str(total).encode()).hexdigest()


def git_blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "gpuprobe-test-hub"
    # Headers and body go out in separate writes: with Nagle's algorithm the body would wait
    # for the client's delayed ACK (40 ms per answer on Linux).
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def record(self, status, length):
        # Logged before the answer goes out, so a client that has its answer finds the line.
        entry = {"method": self.command, "path": self.path, "range": self.headers.get("Range"),
                 "token": self.headers.get("Authorization") is not None, "status": status, "length": length}
        with self.server.log_lock:
            if self.server.log_path:
                with open(self.server.log_path, "a") as f:
                    f.write(json.dumps(entry) + "\n")

    def answer(self, status, headers=None, body=b""):
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.record(status, len(body))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def error(self, status, code, message):
        self.answer(status, {"X-Error-Code": code, "X-Error-Message": message, "Content-Type": "application/json"},
                    json.dumps({"error": message}).encode())

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        parts = [urllib.parse.unquote(p) for p in url.path.split("/")[1:]]
        if len(parts) >= 5 and parts[0] == "cdn":
            return self.cdn(parts[1] + "/" + parts[2], parts[3], "/".join(parts[4:]))
        if len(parts) < 5 or parts[2] != "resolve":
            return self.error(404, "EntryNotFound", "not a resolve URL")
        repo_id, revision, name = parts[0] + "/" + parts[1], parts[3], "/".join(parts[4:])
        if not os.path.isdir(os.path.join(self.server.root, repo_id)) or ".." in repo_id:
            return self.error(401, "RepoNotFound", "Repository not found")
        repo = Repo(self.server.root, repo_id)
        if repo.quirks.get("stall"):
            time.sleep(30)
            return
        token = repo.quirks.get("gated_token")
        if token is not None:
            sent = self.headers.get("Authorization")
            if sent is None:
                return self.error(401, "GatedRepo", "Access to model %s is restricted." % repo_id)
            if sent != "Bearer " + token:
                return self.error(403, "GatedRepo", "Access to model %s is restricted." % repo_id)
        if revision not in ("main", repo.commit):
            return self.error(404, "RevisionNotFound", "Invalid rev id: " + revision)
        headers = {} if repo.quirks.get("no_repo_commit") else {"X-Repo-Commit": repo.commit}
        body = repo.plain(name)
        if body is not None:
            headers["ETag"] = '"%s"' % git_blob_id(body)
            return self.answer(200, headers, body)
        if repo.virtual(name) is not None:
            etag = repo.lfs_etag(name)
            location = "/cdn/%s/%s/%s" % (repo_id, etag, urllib.parse.quote(name))
            if repo.quirks.get("cdn_host"):
                # Another host name for the same server, as the Hub's CDN is another host.
                location = "http://%s:%d%s" % (repo.quirks["cdn_host"], self.server.server_address[1], location)
            headers.update({"Location": location, "X-Linked-Etag": '"%s"' % etag,
                            "X-Linked-Size": str(repo.virtual(name)[1]), "ETag": '"%s"' % git_blob_id(etag.encode())})
            return self.answer(302, headers, ("Found. Redirecting to " + location).encode())
        return self.error(404, "EntryNotFound", "%s does not exist on %s" % (name, revision))

    def cdn(self, repo_id, etag, name):
        repo = Repo(self.server.root, repo_id)
        if repo.quirks.get("redirect_loop"):
            return self.answer(302, {"Location": self.path}, b"")
        made = repo.virtual(name)
        if made is None:
            return self.answer(404, {}, b"no such object")
        prefix, total = made
        first, last, status = 0, total - 1, 200
        wanted = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        if wanted and not repo.quirks.get("ignore_range"):
            first = int(wanted.group(1))
            last = min(int(wanted.group(2)) if wanted.group(2) else total - 1, total - 1)
            if first >= total:
                return self.answer(416, {"Content-Range": "bytes */%d" % total}, b"")
            status = 206
        length = last - first + 1
        self.send_response(status)
        self.send_header("Content-Length", str(length))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", '"%s"' % etag)
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (first, last, total))
        self.record(status, length)
        self.end_headers()
        limit = repo.quirks.get("drop_after")
        sent, position = 0, first
        try:
            while position <= last and (limit is None or sent < limit):
                n = min(CHUNK, last - position + 1, (limit - sent) if limit is not None else CHUNK)
                chunk = prefix[position:position + n]
                chunk += b"\0" * (n - len(chunk))
                self.wfile.write(chunk)
                sent += n
                position += n
        except (BrokenPipeError, ConnectionResetError):
            pass
        if limit is not None or position <= last:
            self.close_connection = True


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file")
    parser.add_argument("--log")
    args = parser.parse_args()
    server = Server(("127.0.0.1", args.port), Handler)
    server.root = os.path.abspath(args.root)
    server.log_path = args.log
    server.log_lock = threading.Lock()
    port = server.server_address[1]
    if args.port_file:
        temp = args.port_file + ".tmp"
        with open(temp, "w") as f:
            f.write("%d\n" % port)
        os.rename(temp, args.port_file)
    else:
        print(port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
