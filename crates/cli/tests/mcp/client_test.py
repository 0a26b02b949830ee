"""Drives `oro-mem mcp` with the official Python MCP client (the `mcp` package), on a SQLite
store and, when ORO_MEM_TEST_PG_URL names a PostgreSQL server (as scripts/test does), on a
schema of that server too; then sends it raw lines no client library would (a line ending in
a backslash, ids JSON-RPC allows but rmcp cannot hold, batches).

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


def server_env(db):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORO_MEM_")}
    env["ORO_MEM_DB"] = db
    return env


async def run(binary, workdir, db):
    env = server_env(db)
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
            # What it was taken for comes with its text, for the agent to judge.
            assert again["duplicate_of"] == mid, again
            assert again["existing"] == "ruff --fix must run before pyright", again
            assert again["similarity"] >= 0.7, again
            more = ok(await session.call_tool(
                "memory_remember",
                {"content": "ruff --fix must run before pyright", "confidence": 0.95}))
            assert more == {"merged_into": mid, "existing": "ruff --fix must run before pyright",
                            "similarity": more["similarity"]}, more
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

            # A changed fact: the newer version supersedes the old one, which search leaves out.
            port = ok(await session.call_tool(
                "memory_remember",
                {"content": "The staging API runs on port 8080", "type": "fact"}))["stored"]
            newer = ok(await session.call_tool(
                "memory_remember",
                {"content": "The staging API runs on port 9090", "type": "fact",
                 "supersedes": [port]}))
            assert newer == {"stored": newer["stored"], "supersedes": [port],
                             "superseded": [{"id": port,
                                             "content": "The staging API runs on port 8080"}]}, newer
            found = ok(await session.call_tool("memory_search", {"query": "staging API port"}))
            assert [r["id"] for r in found["results"]] == [newer["stored"]], found
            both = ok(await session.call_tool(
                "memory_search", {"query": "staging API port", "include_superseded": True}))
            assert {r["id"] for r in both["results"]} == {port, newer["stored"]}, both
            # Each says what it is: the older one superseded, by the newer.
            marks = {r["id"]: (r.get("status"), r.get("superseded_by")) for r in both["results"]}
            assert marks == {port: ("superseded", newer["stored"]),
                             newer["stored"]: (None, None)}, both
            old = ok(await session.call_tool("memory_get", {"id": port}))
            assert old["status"] == "superseded" and old["superseded_by"] == newer["stored"], old
            fails(await session.call_tool(
                "memory_remember",
                {"content": "The staging API runs on port 7070", "supersedes": [port]}),
                "already superseded by")
            # A changed value supersedes by itself, unless asked not to.
            base = ok(await session.call_tool(
                "memory_remember",
                {"content": "The docs site builds with mkdocs 1.5 on every merge", "type": "fact"}))
            beside = ok(await session.call_tool(
                "memory_remember",
                {"content": "The docs site builds with mkdocs 1.6 on every merge", "type": "fact",
                 "supersede": False}))
            assert set(beside) == {"stored"}, beside
            newest = ok(await session.call_tool(
                "memory_remember",
                {"content": "The docs site builds with mkdocs 1.7 on every merge", "type": "fact"}))
            assert newest.get("supersedes"), newest
            assert [o["id"] for o in newest["superseded"]] == newest["supersedes"], newest
            assert {o["content"] for o in newest["superseded"]} <= {
                "The docs site builds with mkdocs 1.5 on every merge",
                "The docs site builds with mkdocs 1.6 on every merge"}, newest

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
            fails(await session.call_tool("memory_search", {"query": " "}), "query is empty")
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


INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}}


def raw(binary, workdir, db, lines):
    """Sends `lines` (text, one message each) after the handshake; returns the replies' text
    without the handshake's. Errors the transport answers itself may come before the
    answers of earlier requests: callers do not rely on the order."""
    text = "\n".join([json.dumps(INIT),
                      '{"jsonrpc":"2.0","method":"notifications/initialized"}', *lines]) + "\n"
    done = subprocess.run(["timeout", "60", binary, "mcp"], input=text.encode(),
                          capture_output=True, env=server_env(db), cwd=workdir)
    assert done.returncode == 0, (done.returncode, done.stderr.decode())
    replies = done.stdout.decode().splitlines()
    handshake = [r for r in replies if r.startswith('{"jsonrpc":"2.0","id":0,"result"')]
    assert len(handshake) == 1, replies
    return [r for r in replies if r not in handshake]


def raw_lines(binary, workdir, db):
    ping = '{"jsonrpc":"2.0","id":%s,"method":"ping"}'
    # A line ending in a backslash is a parse error, and the server reads on.
    replies = raw(binary, workdir, db, [ping % 1, "x\\", ping % 2])
    assert sorted(replies) == sorted([
        '{"jsonrpc":"2.0","id":1,"result":{}}',
        '{"jsonrpc":"2.0","id":2,"result":{}}',
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":'
        '"Parse error: expected value at line 1 column 1"}}']), replies

    # Ids: an invalid one is answered with null; a number rmcp cannot hold comes back as the
    # exact token sent; the largest i64 is served.
    lines = [ping % "null", ping % "true", ping % "{}", ping % "[]",
             ping % "18446744073709551616", ping % "1e30", ping % "9223372036854775807",
             ping % '"s"']
    replies = raw(binary, workdir, db, lines)
    assert len(replies) == len(lines), replies
    invalid = [r for r in replies if '"id":null' in r]
    assert len(invalid) == 4, replies
    assert all(json.loads(r)["error"]["code"] == -32600 for r in invalid), invalid
    assert any('"id":18446744073709551616,' in r for r in replies), replies
    assert any('"id":1e30,' in r for r in replies), replies
    assert any(r == '{"jsonrpc":"2.0","id":9223372036854775807,"result":{}}'
               for r in replies), replies
    assert any(r == '{"jsonrpc":"2.0","id":"s","result":{}}' for r in replies), replies

    # A batch: each request in it answered (not served), notifications not; a batch of
    # notifications gets nothing, an empty one a single error.
    replies = raw(binary, workdir, db, [
        '[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","method":"x"},1]',
        '[{"jsonrpc":"2.0","method":"x"}]',
        "[]",
        ping % 8,
    ])
    assert len(replies) == 3, replies
    batch = json.loads(next(r for r in replies if r.startswith("[")))
    assert [m["id"] for m in batch] == [7, None], batch
    assert all(m["error"]["code"] == -32600 for m in batch), batch
    assert {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": "Invalid request: an empty batch"}} in map(json.loads, replies)
    assert {"jsonrpc": "2.0", "id": 8, "result": {}} in map(json.loads, replies), replies


def postgres_schema(url):
    """A schema of its own on the test server (left to the throwaway server to drop)."""
    name = f"oro_mcp_test_{os.getpid()}"
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csearch_path%3D{name}"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: client_test.py PATH/TO/oro-mem")
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as workdir:
        db = os.path.join(workdir, ".oro", "state.db")
        subprocess.run([binary, "--db", db, "init"], check=True, capture_output=True)
        asyncio.run(run(binary, workdir, db))
        raw_lines(binary, workdir, db)
        print("mcp client test, SQLite store: ok")
        url = os.environ.get("ORO_MEM_TEST_PG_URL")
        if url:
            asyncio.run(run(binary, workdir, postgres_schema(url)))
            print("mcp client test, PostgreSQL store: ok")
        else:
            print("mcp client test, PostgreSQL store: skipped (no ORO_MEM_TEST_PG_URL)")


if __name__ == "__main__":
    main()
