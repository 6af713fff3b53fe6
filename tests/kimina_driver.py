"""Run by tests/test_serve_kimina.py under a Python >= 3.12 with kimina-client 0.2.1: drive a server at
argv[1] with kimina's own clients (sync and async) and print one JSON object of what they read."""

from __future__ import annotations

import asyncio
import json
import sys

from kimina_client import AsyncKiminaClient, KiminaClient, Snippet

URL = sys.argv[1]
KEY = sys.argv[2] if len(sys.argv) > 2 else None
CASES = {
    "ok": "import Mathlib\ntheorem t1 (a b : ℕ) : a + b = b + a := by\n  omega",
    "sorry": "import Mathlib\ntheorem t2 (a b : ℕ) : a + b = b + a := by\n  sorry",
    "err": "import Mathlib\ntheorem t3 (a : ℕ) : a + 1 = a := by\n  simp",
    "dup1": "theorem dup : 1 + 1 = 2 := by decide",
}


def main() -> None:
    out: dict = {}
    client = KiminaClient(api_url=URL, api_key=KEY)
    out["health"] = client.health() if hasattr(client, "health") else None
    resp = client.check(
        snips=[Snippet(id=i, code=c) for i, c in CASES.items()], timeout=20, show_progress=False
    )
    out["sync"] = {r.id: r.analyze().status.value for r in resp.results}
    out["lines"] = {
        r.id: [m["pos"]["line"] for m in (r.response or {}).get("messages", [])] for r in resp.results
    }
    again = client.check(snips=[Snippet(id="dup2", code=CASES["dup1"])], timeout=20, show_progress=False)
    out["dup2"] = again.results[0].analyze().status.value
    many = [Snippet(id=f"m{i}", code=CASES["ok" if i % 2 else "err"]) for i in range(10)]
    resp = client.check(snips=many, timeout=20, batch_size=1, max_workers=8, show_progress=False)
    out["interleaved"] = {r.id: r.analyze().status.value for r in resp.results}

    async def run_async() -> dict:
        a = AsyncKiminaClient(api_url=URL, api_key=KEY)
        r = await a.check(snips=many, timeout=20, batch_size=4, max_workers=3, show_progress=False)
        return {x.id: x.analyze().status.value for x in r.results}

    out["async"] = asyncio.run(run_async())
    if KEY is not None:
        bad = KiminaClient(api_url=URL, api_key="wrong-key")
        r = bad.check(snips=[Snippet(id="k", code=CASES["ok"])], timeout=20, show_progress=False)
        out["wrong_key"] = r.results[0].analyze().status.value
    print(json.dumps(out))


if __name__ == "__main__":
    main()
