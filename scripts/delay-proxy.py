#!/usr/bin/env python3
"""A TCP proxy that adds latency: every chunk it forwards, in either direction, is held DELAY
seconds (default 0.02: a 40 ms round trip) and is otherwise passed on untouched, in order. The
kernel here has no sch_netem, so the S3 tests and the backup benchmark put this in front of the
Ceph gateway (issue 30).

    delay-proxy.py HOST:PORT [--delay SECONDS] [--port N] [--log FILE]

Listens on 127.0.0.1 (port N, or one the kernel picks) and prints `PROXY_PORT=<port>` once it
listens. With --log, appends a line to FILE for each connection accepted (the tests count them to
see that connections are reused). Runs until SIGTERM or SIGINT.
"""
import argparse
import asyncio
import signal
import sys


async def pipe(reader, writer, delay):
    """Forwards reader to writer, each chunk held `delay` seconds; EOF is forwarded the same way."""
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def send():
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                if writer.can_write_eof():
                    writer.write_eof()
                return
            writer.write(data)
            await writer.drain()

    sender = asyncio.ensure_future(send())
    try:
        while True:
            data = await reader.read(1 << 16)
            queue.put_nowait((loop.time() + delay, data))
            if not data:
                break
        await sender
    finally:
        sender.cancel()


async def serve(arguments):
    host, port = arguments.upstream.rsplit(":", 1)

    async def accepted(client_reader, client_writer):
        if arguments.log:
            with open(arguments.log, "a") as log:
                log.write("accepted\n")
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            client_writer.close()
            return
        try:
            await asyncio.gather(
                pipe(client_reader, upstream_writer, arguments.delay),
                pipe(upstream_reader, client_writer, arguments.delay),
            )
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            for writer in (client_writer, upstream_writer):
                writer.close()

    server = await asyncio.start_server(accepted, "127.0.0.1", arguments.port)
    print("PROXY_PORT=%d" % server.sockets[0].getsockname()[1], flush=True)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    async with server:
        await stop.wait()


def main():
    parser = argparse.ArgumentParser(description="A TCP proxy holding each chunk DELAY seconds.")
    parser.add_argument("upstream", help="HOST:PORT to forward to")
    parser.add_argument("--delay", type=float, default=0.02, help="seconds each chunk is held (0.02)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: any)")
    parser.add_argument("--log", help="a file to append a line to for each connection accepted")
    asyncio.run(serve(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
