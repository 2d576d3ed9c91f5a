from urllib.parse import urlsplit

import httpx

from planner.executors.base import ExecContext, ExecutorError

MAX_BYTES = 1_000_000
TIMEOUT_S = 10.0


def run(args: dict, ctx: ExecContext) -> dict:
    entries = []
    with httpx.Client(timeout=httpx.Timeout(TIMEOUT_S, connect=5.0), follow_redirects=True, max_redirects=5) as client:
        for url in args["urls"]:
            if urlsplit(url).scheme not in ("http", "https"):
                raise ExecutorError("invalid_args", f"only http and https URLs can be fetched, not {url!r}")
            try:
                with client.stream("GET", url, headers={"User-Agent": "Metnos/1"}) as response:
                    body = b""
                    for chunk in response.iter_bytes():
                        body += chunk
                        if len(body) > MAX_BYTES:
                            break
            except httpx.TimeoutException:
                raise ExecutorError("timeout", f"{url} did not answer within {TIMEOUT_S:.0f} s") from None
            except httpx.HTTPError as exc:
                raise ExecutorError("network", f"{url}: {exc.__class__.__name__}") from None
            entries.append(
                {
                    "url": url,
                    "status": response.status_code,
                    "content_type": response.headers.get("content-type", ""),
                    "content": body[:MAX_BYTES].decode(response.encoding or "utf-8", errors="replace"),
                    "truncated": len(body) > MAX_BYTES,
                }
            )
    return {"ok": True, "entries": entries, "count": len(entries)}
