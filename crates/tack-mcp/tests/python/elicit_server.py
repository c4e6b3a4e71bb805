"""An MCP server that asks the client for input, on the Python SDK (mcp==2.3.0).

At 2026-07-28 the SDK sends its questions as multi-round-trip results
(`resultType: "input_required"`); at 2025-11-25 as `elicitation/create`
requests during the call.

Tools:
    book          a form (name: string, guests: integer 1-12, vegetarian: boolean,
                  email: string/email) through the SDK's Resolve/Elicit; says what came back
    visit         URL-mode elicitation through hand-rolled input_required rounds
    forced_ask    asks with a hand-rolled input_required even when the client did not
                  declare elicitation; reports the action the client sent
    looping       answers input_required forever, with requestState the client must
                  echo byte-exact; each state seen is appended to $TACK_TEST_MARKERS/states
    rooted        asks roots/list; returns the roots' URIs
"""

import json
import os
from typing import Annotated

from mcp_types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    InputRequiredResult,
    ListRootsResult,
)
from pydantic import BaseModel, Field

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, ElicitationResult, ListRoots, Resolve

server = MCPServer(name="tack-test-elicit", version="1.0.0")


class Booking(BaseModel):
    name: str = Field(description="Whose name the table is under")
    guests: int = Field(ge=1, le=12, description="How many people")
    vegetarian: bool = Field(default=False, description="A vegetarian menu?")
    email: str = Field(json_schema_extra={"format": "email"}, description="Where to confirm")


def ask_booking() -> Elicit[Booking]:
    return Elicit("Book a table: who is coming?", Booking)


@server.tool(description="Books a table, asking the user for the details.")
def book(details: Annotated[ElicitationResult[Booking], Resolve(ask_booking)]) -> str:
    if details.action == "accept":
        d = details.data
        return f"booked for {d.name}, {d.guests} guests, vegetarian={d.vegetarian}, confirm to {d.email}"
    return f"not booked: the client answered {details.action}"


def _action(answer) -> str:
    if isinstance(answer, dict):
        return answer.get("action")
    return getattr(answer, "action", repr(answer))


@server.tool(description="Sends the user to a web page (URL-mode elicitation).")
def visit(ctx: Context) -> InputRequiredResult | str:
    answers = ctx.input_responses or {}
    if "go" in answers:
        return f"visit: the client answered {_action(answers['go'])}"
    return InputRequiredResult(
        input_requests={
            "go": ElicitRequest(
                params=ElicitRequestURLParams(
                    message="Link your account",
                    url="https://accounts.example.com/link?session=42",
                    elicitation_id="link-42",
                )
            )
        },
        request_state="visit-1",
    )


@server.tool(description="Asks for input whether or not the client can answer.")
def forced_ask(ctx: Context) -> InputRequiredResult | str:
    answers = ctx.input_responses or {}
    if "q" in answers:
        return f"forced_ask: the client answered {_action(answers['q'])}"
    return InputRequiredResult(
        input_requests={
            "q": ElicitRequest(
                params=ElicitRequestFormParams(
                    message="Which branch should I deploy?",
                    requested_schema={"type": "object", "properties": {"branch": {"type": "string"}}},
                )
            )
        },
        request_state="forced-1",
    )


# Spaces, quotes, unicode and a trailing newline: any re-encoding shows.
LOOP_STATE = 'round {n} "\u00e9t\u00e9" \\u00e9 {{"k": [1, 2.50]}}\n'


@server.tool(description="Never finishes: asks for another round each time.")
def looping(ctx: Context) -> InputRequiredResult | str:
    state = ctx.request_state
    markers = os.environ.get("TACK_TEST_MARKERS")
    if markers:
        with open(os.path.join(markers, "states"), "a") as f:
            f.write(json.dumps(state) + "\n")
    n = 0
    if state is not None:
        expected = [LOOP_STATE.format(n=i) for i in range(100)]
        if state not in expected:
            return f"looping: the state came back changed: {state!r}"
        n = expected.index(state) + 1
    return InputRequiredResult(request_state=LOOP_STATE.format(n=n))


def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool(description="Returns the client's roots.")
def rooted(roots: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
    return "roots: " + " ".join(r.uri for r in roots.roots)


if __name__ == "__main__":
    server.run()
