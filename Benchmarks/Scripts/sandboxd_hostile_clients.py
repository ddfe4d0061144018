#!/usr/bin/env python3
"""1,000 hostile connections to sandboxd (a quarter each: half a hello, a hello then half of a
1 MiB frame, a hello then 500 list requests never read, silent), held for HOLD seconds; prints the
daemon's VmHWM/VmRSS before and after. Usage: hostile.py SOCKET PID HOME APP HOLD"""
import json, os, socket, struct, sys, time
sock_path, pid, home, app, hold = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
def mem():
    out = {}
    for line in open(f'/proc/{pid}/status'):
        if line.startswith(('VmHWM', 'VmRSS')):
            k, v = line.split(':'); out[k] = int(v.split()[0]) // 1024
    return out
def frame(obj):
    b = json.dumps(obj).encode(); return struct.pack('>I', len(b)) + b
hello = frame({'type': 'hello', 'protocolVersion': 1, 'hello': {'app': app, 'home': home, 'attach': False}})
print('before', mem(), flush=True)
conns = []; refused = 0
for i in range(1000):
    try:
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); c.setblocking(True); c.settimeout(2)
        c.connect(sock_path)
        kind = i % 4
        if kind == 0:
            c.sendall(struct.pack('>I', 8192) + b'x' * 4096)
        elif kind == 1:
            c.sendall(hello + struct.pack('>I', 1 << 20) + b'y' * (512 << 10))
        elif kind == 2:
            c.sendall(hello + b''.join(frame({'type': 'list', 'requestID': n}) for n in range(500)))
        conns.append(c)
    except OSError:
        refused += 1
print('opened', len(conns), 'failed', refused, flush=True)
time.sleep(hold)
print('after', mem(), flush=True)
