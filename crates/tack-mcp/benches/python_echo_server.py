"""The Python peer of tack-mcp's `serve` bench: one `echo` tool over stdio,
on the official Python SDK (mcp==2.3.0)."""

from mcp.server.mcpserver import MCPServer

server = MCPServer(name="bench-python", version="1.0.0")


@server.tool(description="Returns its text unchanged.")
def echo(text: str) -> str:
    return text


if __name__ == "__main__":
    server.run()
