//! Seventh round: what an MCP tool's input reaches. A shell command a
//! server runs (`{"command": "curl evil.test"}`, `{"command": "curl",
//! "args": […]}`) reaches the hosts it would reach as a Bash command, with or
//! without a scheme; an address under a key named for one (`ip`, `addr`,
//! `dsn`, `connection_string`) is a host. Each command in it meets the Bash
//! deny and ask rules, as the form of the call (and of what it amounts to).

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{case, run};

#[test]
fn a_command_or_an_address_in_an_mcp_tools_input_meets_the_domain_rules() {
    const EVIL: &[&str] = &[
        "allow mcp__x",
        "deny WebFetch(domain:evil.test)",
        "deny WebFetch(domain:127.0.0.2)",
    ];
    const T: &str = "mcp__x__run";
    run(&[
        case(EVIL, T, r#"{"command": "curl 127.0.0.2:8099"}"#, Deny),
        case(EVIL, T, r#"{"cmd": "ssh evil.test true"}"#, Deny),
        case(
            EVIL,
            T,
            r#"{"command": ["curl", "-s", "evil.test/x"]}"#,
            Deny,
        ),
        case(
            EVIL,
            T,
            r#"{"command": "curl", "args": ["-s", "evil.test/x"]}"#,
            Deny,
        ),
        case(
            EVIL,
            T,
            r#"{"shell_command": "git clone evil.test:r"}"#,
            Deny,
        ),
        case(EVIL, T, r#"{"command": "curl \"$TARGET\""}"#, Ask),
        case(EVIL, T, r#"{"ip": "127.0.0.2"}"#, Deny),
        case(EVIL, T, r#"{"ip_address": "127.0.0.2"}"#, Deny),
        case(EVIL, T, r#"{"addr": "evil.test:5432"}"#, Deny),
        case(EVIL, T, r#"{"dsn": "postgresql://u@evil.test/db"}"#, Deny),
        case(
            EVIL,
            T,
            r#"{"connection_string": "mysql://root@127.0.0.2/x"}"#,
            Deny,
        ),
        case(
            EVIL,
            T,
            r#"{"dsn": "postgresql:///x?host=127.0.0.2&port=8099"}"#,
            Deny,
        ),
        case(EVIL, T, r#"{"url": "http:///evil.test/x"}"#, Deny),
        case(
            EVIL,
            T,
            r#"{"command": "curl 'http://ok.test\\@evil.test/'"}"#,
            Deny,
        ),
        // What reaches no forbidden host.
        case(EVIL, T, r#"{"command": "curl ok.test/x"}"#, Allow),
        case(EVIL, T, r#"{"command": "ls -la"}"#, Allow),
        case(EVIL, T, r#"{"command": "echo evil.test"}"#, Allow),
        case(EVIL, T, r#"{"ip": "10.0.0.1"}"#, Allow),
        case(EVIL, T, r#"{"body": "ssh evil.test"}"#, Allow),
    ]);
}

#[test]
fn a_shell_command_in_an_mcp_tools_input_meets_the_bash_restrictions() {
    const RM: &[&str] = &["allow mcp__x", "deny Bash(rm *)", "ask Bash(git push *)"];
    const T: &str = "mcp__x__start_process";
    run(&[
        case(RM, T, r#"{"command": "rm -rf build"}"#, Deny),
        case(RM, T, r#"{"command": "cd src && rm x"}"#, Deny),
        case(RM, T, r#"{"command": "bash -c 'rm x'"}"#, Deny),
        case(RM, T, r#"{"command": "unlink x"}"#, Deny),
        case(RM, T, r#"{"command": "rm", "args": ["-rf", "x"]}"#, Deny),
        case(RM, T, r#"{"cmd": ["git", "push", "origin"]}"#, Ask),
        case(RM, T, r#"{"command": "ls -la"}"#, Allow),
        case(RM, T, r#"{"command": "git status"}"#, Allow),
        // Not a command a server runs.
        case(RM, T, r#"{"message": "rm -rf build"}"#, Allow),
    ]);
}
