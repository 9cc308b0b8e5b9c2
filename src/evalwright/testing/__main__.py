"""``python -m evalwright.testing``: run the fake chat API server in the foreground."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys

from evalwright.testing.fake_server import FakeServer


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line: ``--port``, ``--host``, ``--latency-ms`` and ``--text``."""
    parser = argparse.ArgumentParser(
        prog="python -m evalwright.testing",
        description="Serve fake OpenAI, Azure, Anthropic, Gemini and Responses API answers.",
    )
    parser.add_argument("--port", type=int, default=8123, help="port to listen on (0: any free)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="delay before each answer")
    parser.add_argument("--text", default="fake answer", help="the text every answer carries")
    return parser.parse_args(argv)


async def serve(args: argparse.Namespace) -> None:
    """Serve until SIGINT or SIGTERM, after printing ``listening on URL``."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows loops
            loop.add_signal_handler(signum, stop.set)
    server = FakeServer(
        host=args.host, port=args.port, latency_ms=args.latency_ms, default_text=args.text
    )
    async with server:
        print(f"listening on {server.url}", flush=True)
        await stop.wait()


def main(argv: list[str] | None = None) -> int:
    """Run the server; the exit status is 0 after a clean stop."""
    args = parse_args(argv)
    try:
        asyncio.run(serve(args))
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
