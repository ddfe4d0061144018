import Foundation
import Sandbox

/// A hostile app written in Python, run under `sandbox run` against a real `sandboxd`: it tries to
/// reach the daemon's socket itself, then uses the connections its launcher's broker hands it
/// (descriptor `SANDBOX_DAEMON_BROKER_FD`) to act for another app, bind twice, download without
/// the network and register a relaunch command. It prints one JSON object: what each attempt got.
///
/// The daemon's wire format: a 4-byte big-endian length, then a JSON body.
enum ConfinedClient {
    static let script = #"""
        import array, json, os, socket, struct, sys

        socket_path, victim, url, relaunch_script = sys.argv[1:5]
        out = {}

        def frame(obj):
            body = json.dumps(obj).encode()
            return struct.pack('>I', len(body)) + body

        def recv_exact(conn, count):
            data = b''
            while len(data) < count:
                part = conn.recv(count - len(data))
                if not part:
                    raise EOFError('closed')
                data += part
            return data

        def read_frame(conn):
            length = struct.unpack('>I', recv_exact(conn, 4))[0]
            return json.loads(recv_exact(conn, length))

        def brokered():
            broker = socket.socket(fileno=os.dup(int(os.environ['SANDBOX_DAEMON_BROKER_FD'])))
            broker.send(b'c')
            message, ancillary, _, _ = broker.recvmsg(4096, socket.CMSG_SPACE(4 * 8))
            fds = []
            for level, kind, data in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds += array.array('i', data[:len(data) - len(data) % 4]).tolist()
            broker.detach()
            if not fds:
                raise RuntimeError(message.decode(errors='replace'))
            conn = socket.socket(fileno=fds[0])
            conn.settimeout(20)
            return conn

        def hello(conn, app, session='s', attach=False):
            conn.sendall(frame({'type': 'hello', 'protocolVersion': 1, 'hello': {
                'app': app, 'session': session, 'home': '/nowhere', 'attach': attach}}))
            return read_frame(conn)

        def attempt(name, body):
            try:
                out[name] = body()
            except Exception as error:
                out[name] = {'exception': type(error).__name__, 'errno': getattr(error, 'errno', None),
                             'text': str(error)}

        def direct():
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.connect(socket_path)
            return 'connected'

        def other_app():
            conn = brokered()
            answer = hello(conn, victim)
            if answer.get('type') == 'welcome':
                conn.sendall(frame({'type': 'list', 'requestID': 1}))
                return {'hello': answer, 'list': read_frame(conn)}
            return {'hello': answer}
        attempt('otherApp', other_app)

        def rebind():
            conn = brokered()
            conn.sendall(frame({'type': 'bind', 'binding': {'app': victim, 'allowsNetwork': True}}))
            return read_frame(conn)
        attempt('rebind', rebind)

        def own_app():
            conn = brokered()
            answer = hello(conn, None)
            conn.sendall(frame({'type': 'relaunch', 'requestID': 1, 'relaunch': {
                'arguments': ['/usr/bin/python3', relaunch_script], 'timeLimitSeconds': 20}}))
            registered = read_frame(conn)
            conn.sendall(frame({'type': 'relaunch', 'requestID': 2, 'relaunch': {
                'arguments': ['/usr/bin/python3', relaunch_script], 'timeLimitSeconds': 1e300}}))
            infinite = read_frame(conn)
            conn.sendall(frame({'type': 'submit', 'requestID': 3, 'request': {'url': url, 'headers': {}}}))
            return {'hello': answer, 'relaunch': registered, 'infinite': infinite, 'submit': read_frame(conn)}
        attempt('ownApp', own_app)

        # Last, when the broker has started the daemon and the socket is there to be reached.
        attempt('direct', direct)

        print(json.dumps(out))
        """#

    /// The app the daemon relaunches, in Python (the daemon runs it confined, where the Swift test
    /// harness's runtime is out of reach). It records in `Documents/relaunched.json` who it runs
    /// as, whether it can read `/etc/shadow` or create a Unix socket, its environment's names;
    /// then, as a relaunched app does, attaches to its session through the broker its launcher
    /// gave it (descriptor `SANDBOX_DAEMON_BROKER_FD`), moves each finished file into
    /// `Library/Caches`, acknowledges every event until "all events delivered", and writes
    /// `tmp/relaunched`.
    static let relaunchScript = #"""
        import array, json, os, socket, struct
        out = {'uid': os.getuid(), 'environment': sorted(os.environ),
               'session': os.environ.get('SANDBOX_BACKGROUND_SESSION')}
        try:
            open('/etc/shadow').read()
            out['shadow'] = 'read'
        except OSError as error:
            out['shadow'] = error.errno
        try:
            socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            out['unixSocket'] = 'created'
        except OSError as error:
            out['unixSocket'] = error.errno

        def frame(obj):
            body = json.dumps(obj).encode()
            return struct.pack('>I', len(body)) + body

        def recv_exact(conn, count):
            data = b''
            while len(data) < count:
                part = conn.recv(count - len(data))
                if not part:
                    raise EOFError('closed')
                data += part
            return data

        def read_frame(conn):
            length = struct.unpack('>I', recv_exact(conn, 4))[0]
            return json.loads(recv_exact(conn, length))

        try:
            broker = socket.socket(fileno=int(os.environ['SANDBOX_DAEMON_BROKER_FD']))
            broker.send(b'c')
            message, ancillary, _, _ = broker.recvmsg(4096, socket.CMSG_SPACE(32))
            fds = [fd for level, kind, data in ancillary for fd in array.array('i', data[:4]).tolist()]
            out['broker'] = 'connection' if fds else message.decode(errors='replace')
            conn = socket.socket(fileno=fds[0])
            conn.settimeout(30)
            conn.sendall(frame({'type': 'hello', 'protocolVersion': 1, 'hello': {
                'session': out['session'], 'home': '', 'attach': True}}))
            out['welcome'] = read_frame(conn).get('type')
            events = []
            while True:
                message = read_frame(conn)
                if message['type'] == 'allEventsDelivered':
                    break
                if message['type'] != 'event':
                    continue
                event = message['event']
                events.append(event['kind'])
                if event['kind'] == 'finished' and event.get('path'):
                    name = event.get('suggestedFilename') or 'download'
                    os.rename(event['path'], 'Library/Caches/' + name)
                conn.sendall(frame({'type': 'acknowledge', 'sequence': event['sequence']}))
            out['events'] = events
            conn.close()
        except Exception as error:
            out['error'] = '%s: %s' % (type(error).__name__, error)
        with open('Documents/relaunched.json.tmp', 'w') as file:
            json.dump(out, file)
        os.rename('Documents/relaunched.json.tmp', 'Documents/relaunched.json')
        with open('tmp/relaunched', 'w') as file:
            file.write('attach')
        """#

    /// Writes ``relaunchScript`` into the app's `Documents` and returns its host path.
    static func installRelaunchScript(in fixture: DaemonFixture) throws -> String {
        let path = fixture.container.homeDirectory + "/Documents/relaunch.py"
        try Data(relaunchScript.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
