#!/usr/bin/env python3
"""A foreign client of the profiler's collector, for tests/e2e/profiler_security.sh.

  lbsprof_client.py forge ADDR          no answer to the challenge; a forged run's frames
  lbsprof_client.py wrongtoken ADDR     a wrong answer, then the forged frames
  lbsprof_client.py big ADDR [TOKEN]    a frame announcing 2 GiB, then 64 MiB of zeros
                                        (with TOKEN: authenticated, after a hello)
  lbsprof_client.py idle ADDR N SECS    N connections that send nothing, held SECS
  lbsprof_client.py connect ADDR        connect only: prints "connected" or the error

ADDR is unix:/path or tcp:HOST:PORT. The wire format is profiler/prof_int.h's."""
import hashlib
import hmac
import os
import socket
import struct
import sys
import time
import zlib

MAGIC, VERSION = 0x4C425346, 9
HELLO, MESH, STEP, END, CHALLENGE, AUTH = 1, 2, 3, 4, 5, 6


def frame(ftype, payload, length=None):
    n = len(payload) if length is None else length
    return struct.pack("<IHHII", MAGIC, VERSION, ftype, n, zlib.crc32(payload) & 0xFFFFFFFF) + payload


def connect(addr):
    if addr.startswith("unix:"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(addr[5:])
    else:
        host, port = addr[4:].rsplit(":", 1)
        s = socket.create_connection((host, int(port)))
    return s


def challenge(s):
    data = b""
    while len(data) < 48:
        got = s.recv(48 - len(data))
        if not got:
            raise SystemExit("no challenge")
        data += got
    magic, ver, ftype, n, _ = struct.unpack("<IHHII", data[:16])
    assert magic == MAGIC and ver == VERSION and ftype == CHALLENGE and n == 32, (magic, ver, ftype, n)
    return data[16:]


def meta(elements=800, nodes=1, ranks=1):
    """prof_meta: a run of `elements` cells (box 20x20x2), one value metric."""
    names = b"weight".ljust(32, b"\0") + b"\0" * 32 * 15
    units = b"units".ljust(16, b"\0") + b"\0" * 16 * 15
    app = b"\0" * 1024  # the application's keys (lbsprof_meta): none
    events = struct.pack("<ii", 0, 0) + b"\0" * 32 * 8 + struct.pack("<ii", 0, 0)  # no events, phases, arc weights, weights per step
    return struct.pack("<qiidiiiiiiiiq3q", elements, 1, 1, 0.0, 1, 0, 0, 1, 0, nodes, ranks, 0, 0, 20, 20, 2) + names + units + app + events


def forged_frames():
    node = struct.pack("<ii", 0, 0)
    out = frame(HELLO, node + meta())
    gids = struct.pack("<800q", *range(800))
    part = struct.pack("<qqqq", 800, 0, 0, 0) + gids  # n, dim, has_adj, rank
    out += frame(MESH, struct.pack("<ii", 0, 1) + struct.pack("<Q", len(part)) + part)
    for step in range(3):
        blob = struct.pack("<800d", *([1e9] * 800))
        out += frame(STEP, struct.pack("<iiqqq", 0, 1, step, step, 800) + struct.pack("<iiQ", 1, 0, len(blob)) + blob)
    return out


def send_all(s, data):
    try:
        s.sendall(data)
        return True
    except OSError:
        return False


def wait_closed(s, secs=10):
    s.settimeout(secs)
    try:
        while s.recv(65536):
            pass
        return True
    except ConnectionResetError:  # closed with our data unread: a reset
        return True
    except OSError:
        return False


def main():
    mode, addr = sys.argv[1], sys.argv[2]
    if mode == "connect":
        try:
            connect(addr).close()
            print("connected")
        except OSError as e:
            print("refused: %s" % e.strerror)
        return
    if mode == "idle":
        n, secs = int(sys.argv[3]), float(sys.argv[4])
        conns = [connect(addr) for _ in range(n)]
        print("opened %d" % len(conns), flush=True)
        time.sleep(secs)
        closed = 0
        for c in conns:
            c.setblocking(False)
            try:
                while True:
                    if not c.recv(65536):
                        closed += 1
                        break
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
        print("closed by the collector %d of %d" % (closed, n))
        return
    s = connect(addr)
    nonce = challenge(s)
    if mode == "forge":
        send_all(s, forged_frames())
    elif mode == "wrongtoken":
        send_all(s, frame(AUTH, struct.pack("<ii", 0, 0) + os.urandom(32)) + forged_frames())
    elif mode == "big":
        if len(sys.argv) > 3:
            secret = bytes.fromhex(open(sys.argv[3]).read().strip())
            mac = hmac.new(secret, b"lbsprof-auth-3" + nonce, hashlib.sha256).digest()
            # a run of two nodes: the collector stays up after this one is dropped
            hello = frame(HELLO, struct.pack("<ii", 0, 0) + meta(nodes=2, ranks=2))
            send_all(s, frame(AUTH, struct.pack("<ii", 0, 0) + mac) + hello)
            header = frame(MESH, b"", 1 << 31)[:16]
        else:
            header = frame(AUTH, b"", 1 << 31)[:16]
        sent = 0
        if send_all(s, header):
            zeros = bytes(1 << 20)
            while sent < 64 and send_all(s, zeros):
                sent += 1
        print("sent %d MiB after the header" % sent)
    print("closed by the collector" if wait_closed(s) else "still open")


if __name__ == "__main__":
    main()
