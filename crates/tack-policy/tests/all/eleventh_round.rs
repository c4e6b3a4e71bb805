//! Eleventh round: a command that reads a process's environment or memory,
//! or tack's file of MCP sign-in tokens, by name is refused as the file
//! tools refuse it, whatever the rules (`allow Bash` included) and the
//! mode say; what only lists such a file, and the rest of `/proc`, stay
//! allowed.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{case, run};

const B: &str = "Bash";
const ALL: &[&str] = &["allow Bash"];
const ACCEPT: &[&str] = &["allow Bash", "mode acceptEdits"];
const DEFAULT: &[&str] = &[];

#[test]
fn a_command_never_reads_a_process_secret_or_tacks_sign_in_tokens() {
    run(&[
        case(ALL, B, "cat /proc/1/environ", Deny),
        case(ALL, B, "strings /proc/1/environ", Deny),
        case(ALL, B, "tr '\\0' '\\n' < /proc/self/environ", Deny),
        case(ALL, B, "cat /proc/1/task/1/environ | tr '\\0' '\\n'", Deny),
        case(ALL, B, "xxd /proc/1/mem | head", Deny),
        case(ALL, B, "cat /proc/1/env*", Deny),
        case(ALL, B, "cd /proc/1 && cat environ", Deny),
        case(ALL, B, "cat ~/.local/state/tack/mcp-oauth.json", Deny),
        case(
            ALL,
            B,
            "grep token ~/.local/state/tack/mcp-oauth.json",
            Deny,
        ),
        case(ALL, B, "base64 < ~/.local/state/tack/mcp-oauth.json", Deny),
        case(ALL, B, "cp ~/.local/state/tack/mcp-oauth.json x", Deny),
        case(
            ALL,
            B,
            "cd ~/.local/state/tack && jq . mcp-oauth.json",
            Deny,
        ),
        case(ACCEPT, B, "cat /proc/1/environ", Deny),
        case(DEFAULT, B, "cat ~/.local/state/tack/mcp-oauth.json", Deny),
        // The rest of /proc, and a look that reads nothing, stay as they were.
        case(ALL, B, "cat /proc/meminfo", Allow),
        case(ALL, B, "cat /proc/1/status", Allow),
        case(
            ALL,
            B,
            "free -m; cat /proc/cpuinfo | grep -c processor",
            Allow,
        ),
        case(ALL, B, "ls -l /proc/1/environ", Allow),
        case(ALL, B, "cat ~/.local/state/tack/other.json", Allow),
        case(DEFAULT, B, "cat /proc/meminfo", Ask),
    ]);
}
