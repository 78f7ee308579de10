#!/usr/bin/env python3
"""slowloris.py PORT SECONDS SLOW: SLOW connections to 127.0.0.1:PORT from 127.0.0.1-127.0.0.4
that send a request's headers one line every 2 s (and connect again when dropped), for SECONDS;
meanwhile an honest scraper GETs /metrics ten times a second, alternately from 127.0.0.1 (an
address the slow ones share) and 127.0.0.9, each on a new connection. Prints one JSON line of
figures; exits 1 when a scrape took 1 s or more, failed or was not a 200 with metrics. Loopback
only, bounded in count and time: it stops by itself."""
import asyncio, json, resource, sys, time

PORT, SECONDS, SLOW = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
SLOW_ADDRS = ["127.0.0.%d" % i for i in range(1, 5)]
HONEST_ADDRS = ["127.0.0.9", "127.0.0.10"]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # our side of SLOW connections

stats = {"connects": 0, "dropped": 0, "refused": 0, "open": 0, "peak_open": 0}
lat, bad = [], []


async def slow(i, end):
    src = SLOW_ADDRS[i % len(SLOW_ADDRS)]
    while time.monotonic() < end:
        try:
            r, w = await asyncio.open_connection("127.0.0.1", PORT, local_addr=(src, 0))
        except OSError:
            stats["refused"] += 1
            await asyncio.sleep(0.5)
            continue
        stats["connects"] += 1
        stats["open"] += 1
        stats["peak_open"] = max(stats["peak_open"], stats["open"])
        try:
            w.write(b"GET /metrics HTTP/1.1\r\n")
            n = 0
            while time.monotonic() < end:
                # a line every 2 s; the server ending the connection shows as EOF
                try:
                    data = await asyncio.wait_for(r.read(1), 2.0)
                    if not data:
                        stats["dropped"] += 1
                        break
                except asyncio.TimeoutError:
                    pass
                w.write(b"X-Slow-%d: %d\r\n" % (n, i))
                n += 1
                await w.drain()
        except OSError:
            stats["dropped"] += 1
        finally:
            stats["open"] -= 1
            w.close()
        await asyncio.sleep(0.2)


async def scrape(src):
    t0 = time.monotonic()
    try:
        r, w = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", PORT, local_addr=(src, 0)), 3)
        w.write(b"GET /metrics HTTP/1.1\r\nHost: veltop\r\nConnection: close\r\n\r\n")
        body = await asyncio.wait_for(r.read(), 3)
        w.close()
    except (OSError, asyncio.TimeoutError) as e:
        bad.append("%s: %s after %.2fs" % (src, type(e).__name__, time.monotonic() - t0))
        return
    dt = time.monotonic() - t0
    lat.append(dt)
    if not body.startswith(b"HTTP/1.1 200") or b"veltop_cluster_reachable" not in body:
        bad.append("%s: %r" % (src, body[:80]))
    elif dt >= 1.0:
        bad.append("%s: answered in %.2fs" % (src, dt))


async def main():
    end = time.monotonic() + SECONDS
    tasks = [asyncio.ensure_future(slow(i, end)) for i in range(SLOW)]
    await asyncio.sleep(1.0)  # the slow ones are in
    k = 0
    while time.monotonic() < end - 0.5:
        asyncio.ensure_future(scrape(HONEST_ADDRS[k % 2]))
        k += 1
        await asyncio.sleep(0.1)
    await asyncio.sleep(3.5)  # the last scrapes end (or time out)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    lat.sort()
    q = lambda p: round(lat[min(len(lat) - 1, int(p * len(lat)))], 4) if lat else None
    fig = dict(stats, scrapes=k, answered=len(lat), p50=q(0.5), p99=q(0.99),
               max=round(lat[-1], 4) if lat else None, bad=len(bad))
    print(json.dumps(fig))
    for b in bad[:10]:
        print("bad scrape:", b, file=sys.stderr)
    return 1 if bad or len(lat) != k else 0


sys.exit(asyncio.run(main()))
