"""An MCP server that asks the client's model for completions, on the Python SDK (mcp==2.3.0).

Tools:
    summarize      asks for a summary of `text` through the SDK's Resolve/Sample
                   (a multi-round-trip result at 2026-07-28); returns "summary: <answer>"
    forced_sample  asks with a hand-rolled input_required whether or not the client
                   declared sampling (to see a refusal)
"""

from typing import Annotated

from mcp_types import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    InputRequiredResult,
    SamplingMessage,
    TextContent,
)

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Resolve, Sample

server = MCPServer(name="tack-test-sample", version="1.0.0")


def ask_summary(text: str) -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarize: {text}"))],
        max_tokens=200,
        system_prompt="You write one-line summaries.",
    )


@server.tool(description="Summarizes text with the client's model.")
def summarize(text: str, answer: Annotated[CreateMessageResult, Resolve(ask_summary)]) -> str:
    content = answer.content
    blocks = content if isinstance(content, list) else [content]
    return "summary: " + "".join(getattr(b, "text", "") for b in blocks)


@server.tool(description="Asks for a completion whether or not the client allows it.")
def forced_sample(ctx: Context) -> InputRequiredResult | str:
    answers = ctx.input_responses or {}
    if "s" in answers:
        return f"forced_sample: got {answers['s']!r}"
    return InputRequiredResult(
        input_requests={
            "s": CreateMessageRequest(
                params=CreateMessageRequestParams(
                    messages=[SamplingMessage(role="user", content=TextContent(type="text", text="hi"))],
                    max_tokens=10,
                )
            )
        },
        request_state="forced-1",
    )


if __name__ == "__main__":
    server.run()
