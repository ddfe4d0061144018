#!/usr/bin/env python3
"""Submits one background download to sandboxd and times it to 'completed'. Usage: download.py SOCKET HOME APP URL"""
import json, socket, struct, sys, time
path, home, app, url = sys.argv[1:5]
def frame(o):
    b = json.dumps(o).encode(); return struct.pack('>I', len(b)) + b
def rx(c, n):
    d = b''
    while len(d) < n:
        p = c.recv(n - len(d))
        if not p: raise EOFError
        d += p
    return d
def rf(c):
    return json.loads(rx(c, struct.unpack('>I', rx(c, 4))[0]))
c = socket.socket(socket.AF_UNIX); c.connect(path)
c.sendall(frame({'type': 'hello', 'protocolVersion': 1, 'hello': {'app': app, 'session': 'bench%d' % int(time.time()*1000), 'home': home, 'attach': True}}))
assert rf(c)['type'] == 'welcome'
t0 = time.time()
c.sendall(frame({'type': 'submit', 'requestID': 1, 'request': {'url': url, 'headers': {}}}))
while True:
    m = rf(c)
    if m['type'] == 'event':
        e = m['event']
        c.sendall(frame({'type': 'acknowledge', 'sequence': e['sequence']}))
        if e['kind'] == 'completed':
            break
    elif m['type'] == 'failure':
        print('failure', m); sys.exit(1)
dt = time.time() - t0
print('%.2f s, %.0f MiB/s' % (dt, 1024 / dt))
