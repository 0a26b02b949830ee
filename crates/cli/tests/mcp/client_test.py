"""Drives `oro-mem mcp` with the official Python MCP client (the `mcp` package).

Usage: python client_test.py PATH/TO/oro-mem
Run by scripts/test-mcp, which installs the client into a virtual environment.
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

TOOLS = {"memory_search", "memory_remember", "memory_get", "memory_forget"}


def text(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def ok(result):
    assert not result.is_error, f"unexpected tool error: {text(result)}"
    return json.loads(text(result))


def fails(result, says):
    assert result.is_error, f"expected a tool error, got {text(result)}"
    assert says in text(result), f"{says!r} not in {text(result)!r}"


async def run(binary, workdir):
    db = os.path.join(workdir, ".oro", "state.db")
    subprocess.run([binary, "--db", db, "init"], check=True, capture_output=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORO_MEM_")}
    env["ORO_MEM_DB"] = db
    server = StdioServerParameters(command=binary, args=["mcp"], env=env, cwd=workdir)
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "oro-mem", init.server_info

            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) == TOOLS, sorted(tools)
            for t in tools.values():
                assert t.description and len(t.description) < 200, t
            assert tools["memory_search"].input_schema["required"] == ["query"]
            assert "type" in tools["memory_remember"].input_schema["properties"]

            stored = ok(await session.call_tool(
                "memory_remember",
                {"content": "ruff --fix must run before pyright", "type": "gotcha",
                 "tags": ["python", "lint"]},
            ))
            mid = stored["stored"]
            again = ok(await session.call_tool(
                "memory_remember", {"content": "ruff --fix must run before pyright"}
            ))
            assert again == {"duplicate_of": mid}, again
            ok(await session.call_tool(
                "memory_remember", {"content": "Use WAL mode so readers never block the writer"}
            ))

            found = ok(await session.call_tool(
                "memory_search", {"query": "set up pyright linting", "explain": True}
            ))
            assert found["mode"] == "fts", found
            first = found["results"][0]
            assert first["id"] == mid and first["type"] == "gotcha", found
            assert first["tags"] == ["python", "lint"], first
            assert any(l["name"] == "bm25" for l in first["lists"]), first
            only = ok(await session.call_tool(
                "memory_search", {"query": "pyright WAL", "type": "pattern"}
            ))
            assert only["results"] == [], only

            # The search returned it (once); getting it is a use, shown with that use counted.
            got = ok(await session.call_tool("memory_get", {"id": mid}))
            assert got["content"] == "ruff --fix must run before pyright", got
            assert got["return_count"] == 1 and got["access_count"] == 1, got
            got = ok(await session.call_tool("memory_get", {"id": mid}))
            assert got["access_count"] == 2, got

            # Bad arguments: tool errors that say what was wrong; the server lives on.
            fails(await session.call_tool(
                "memory_remember", {"content": "x", "type": "bogus"}), "unknown memory type")
            fails(await session.call_tool("memory_remember", {"content": "   "}),
                  "content is empty")
            fails(await session.call_tool(
                "memory_remember", {"content": "x", "confidence": 3}), "between 0 and 1")
            fails(await session.call_tool("memory_get", {"id": 999}), "no memory with id 999")
            fails(await session.call_tool(
                "memory_search", {"query": "x", "mode": "psychic"}), "unknown mode")
            fails(await session.call_tool(
                "memory_search", {"query": "x", "limit": 0}), "limit must be a whole number from 1 to 100")
            try:
                result = await session.call_tool("memory_get", {"id": "seven"})
                assert result.is_error, text(result)
            except MCPError as e:
                assert "id" in str(e), e

            gone = ok(await session.call_tool("memory_forget", {"id": mid}))
            assert gone == {"forgotten": mid, "reembedded": 0}, gone
            fails(await session.call_tool("memory_get", {"id": mid}), "no memory with id")
            fails(await session.call_tool("memory_forget", {"id": mid}), "no memory with id")
            after = ok(await session.call_tool("memory_search", {"query": "pyright"}))
            assert all(r["id"] != mid for r in after["results"]), after
    print("mcp client test: ok")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: client_test.py PATH/TO/oro-mem")
    with tempfile.TemporaryDirectory() as workdir:
        asyncio.run(run(os.path.abspath(sys.argv[1]), workdir))


if __name__ == "__main__":
    main()
