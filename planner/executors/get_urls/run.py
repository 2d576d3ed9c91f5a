import httpx

from planner import netguard
from planner.executors.base import ExecContext, ExecutorError

MAX_BYTES = 1_000_000
TIMEOUT_S = 10.0
HTML_TYPES = ("text/html", "application/xhtml+xml")


def run(args: dict, ctx: ExecContext) -> dict:
    entries = [_fetch(url, ctx) for url in args["urls"]]
    return {"ok": True, "entries": entries, "count": len(entries)}


def _fetch(url: str, ctx: ExecContext) -> dict:
    timeout = httpx.Timeout(TIMEOUT_S, connect=5.0)
    try:
        with netguard.fetch(url, headers={"User-Agent": "Metnos/1"}, timeout=timeout) as response:
            body = b""
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_BYTES:
                    break
    except httpx.TimeoutException:
        raise ExecutorError("timeout", f"{url} did not answer within {TIMEOUT_S:.0f} s") from None
    except httpx.HTTPError as exc:
        raise ExecutorError("network", f"{url}: {exc.__class__.__name__}") from None
    content_type = response.headers.get("content-type", "")
    entry = {
        "url": url,
        "status": response.status_code,
        "content_type": content_type,
        "content": body[:MAX_BYTES].decode(response.encoding or "utf-8", errors="replace"),
        "truncated": len(body) > MAX_BYTES,
    }
    if content_type.split(";")[0].strip().lower() in HTML_TYPES:
        # Without a charset in the header, the page's own <meta charset> is the better guide:
        # trafilatura reads it from the bytes.
        page = entry["content"] if response.charset_encoding else body[:MAX_BYTES]
        if ctx.scratchpad is not None:  # the raw page stays readable (scratchpad_read), off the history
            entry["raw_scratchpad_id"] = ctx.scratchpad.keep(entry["content"])
        entry["title"], entry["content"] = _readable(page)
    return entry


def _readable(page: str | bytes) -> tuple[str, str]:
    """The page's title and its readable text: navigation, scripts, styles and footers are what a
    model does not need, and they are most of a page's bytes."""
    import trafilatura  # here, not at the top: loading the catalog should not pay for it (~0.15 s)

    document = trafilatura.bare_extraction(page, with_metadata=True, include_comments=False)
    text = (document.text if document is not None else "") or trafilatura.html2txt(page) or ""
    title = (document.title if document is not None else "") or ""
    return title, text
