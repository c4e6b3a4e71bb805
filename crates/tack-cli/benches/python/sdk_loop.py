"""The manual tool-use loop on the official Anthropic Python SDK, as its
documentation shows it (`while response.stop_reason == "tool_use"`), with a
no-op tool that answers each call with the text of one small file. The
long-session bench (benches/long_session.rs) runs it against `tack mock-server`
and measures its CPU beside `tack run`'s.

Reads ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY (the SDK's own variables) and
SDK_LOOP_FILE (the file every call "reads")."""

import os
import warnings

import anthropic

# The SDK warns once per call site that the model name is deprecated; the mock
# does not care which model is named.
warnings.filterwarnings("ignore", category=DeprecationWarning)

FILE = os.environ["SDK_LOOP_FILE"]
TOOLS = [
    {
        "name": "Read",
        "description": "Reads a file from the local filesystem.",
        "input_schema": {
            "type": "object",
            "properties": {"file_path": {"type": "string"}},
            "required": ["file_path"],
        },
    }
]


def read(file_path):
    with open(file_path) as f:
        lines = f.read().splitlines()
    return "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(lines, 1))


def main():
    client = anthropic.Anthropic(max_retries=0)
    messages = [{"role": "user", "content": "read notes.txt again and again"}]
    response = client.messages.create(
        model="claude-sonnet-4-5", max_tokens=8192, tools=TOOLS, messages=messages
    )
    turns = 1
    while response.stop_reason == "tool_use":
        results = []
        for block in response.content:
            if block.type == "tool_use":
                results.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": block.id,
                        "content": read(block.input["file_path"]),
                    }
                )
        messages.append({"role": "assistant", "content": response.content})
        messages.append({"role": "user", "content": results})
        response = client.messages.create(
            model="claude-sonnet-4-5", max_tokens=8192, tools=TOOLS, messages=messages
        )
        turns += 1
    print(f"{turns} requests; last stop_reason {response.stop_reason}")


if __name__ == "__main__":
    main()
