"""A minimal aiohttp client: the best a Python client can do against the fake server.

    python bench/baseline_client.py URL CASES WORKERS

Posts CASES small Chat Completions requests, WORKERS at a time over one session, and prints
the seconds from the first request to the last answer as JSON.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

import aiohttp

BODY = json.dumps({"model": "bench-model", "messages": [{"role": "user", "content": "hi"}]})


async def run(url: str, cases: int, workers: int) -> float:
    """Seconds from the first request to the last answer."""
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(cases):
        queue.put_nowait(index)
    headers = {"content-type": "application/json", "authorization": "Bearer x"}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:

        async def work() -> None:
            while not queue.empty():
                queue.get_nowait()
                async with session.post(url, data=BODY, headers=headers) as response:
                    await response.read()

        started = time.monotonic()
        await asyncio.gather(*(work() for _ in range(workers)))
        return time.monotonic() - started


def main() -> int:
    """Parse the arguments, run, print ``{"steady_wall_s": ...}``."""
    url, cases, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    print(json.dumps({"steady_wall_s": asyncio.run(run(url, cases, workers))}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
