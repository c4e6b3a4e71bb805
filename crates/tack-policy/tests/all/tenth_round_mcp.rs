//! Tenth round: what an MCP tool's input names, under any key and in any
//! shape. A key names a path by its words wherever they stand (`dst`,
//! `dst_path`, `outputFile`, `attachments`), a key that names a path as
//! often as not (`name`, `old`, `new`, `in`, `inputs`) by a value that
//! reads as a file name, and any other key but one named for text by a
//! value that names a file or directory that exists. Commands are read
//! under a lone `argv`, `program`/`executable` beside `arguments`/`args`,
//! one a line under `commands`, and under `run` (`steps[].run`). Hosts are
//! read under keys named for them by their words (`proxy_server`,
//! `registry`, `peer`, `upstream`), in special-scheme URLs written without
//! `//` and scheme-relative ones under any key, in a URL inside an option
//! word (`--registry=URL`), in an image reference's registry, and in a
//! number in a host's place.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{case, run, run_with_files};

const FS: &[&str] = &[
    "allow mcp__fs",
    "allow mcp__x",
    "deny Read(./secrets/**)",
    "deny Read(./.env)",
    "deny Edit(./src/locked/**)",
];

const EDIT: &[&str] = &["allow mcp__fs", "deny Edit(./src/locked/**)"];

const LOCKED: &[(&str, &str, bool)] = &[("src/locked/a.rs", "x", false)];

#[test]
fn a_path_under_a_key_named_for_one_by_its_words_meets_the_path_rules() {
    run_with_files(
        LOCKED,
        &[
            case(FS, "mcp__fs__read_file", r#"{"name": ".env"}"#, Deny),
            case(FS, "mcp__fs__read_note", r#"{"name": ".env"}"#, Deny),
            case(
                FS,
                "mcp__fs__copy",
                r#"{"src": "docs/guide.md", "dst": "src/locked/a.rs"}"#,
                Deny,
            ),
            case(
                FS,
                "mcp__fs__copy",
                r#"{"src": "docs/guide.md", "dst_path": "src/locked/b.rs"}"#,
                Deny,
            ),
            // A tool whose name says nothing of changing may change it.
            case(
                FS,
                "mcp__fs__export",
                r#"{"outputFile": "src/locked/b.rs"}"#,
                Ask,
            ),
            case(
                FS,
                "mcp__fs__write_file",
                r#"{"name": "src/locked/a.rs", "content": "x"}"#,
                Deny,
            ),
            case(
                FS,
                "mcp__fs__rename",
                r#"{"old": "docs/guide.md", "new": "src/locked/a.rs"}"#,
                Deny,
            ),
            case(
                FS,
                "mcp__fs__rename",
                r#"{"oldName": "docs/guide.md", "newName": "src/locked/new.rs"}"#,
                Deny,
            ),
            case(
                FS,
                "mcp__fs__rename",
                r#"{"oldName": ".env", "newName": "docs/env.txt"}"#,
                Deny,
            ),
            case(
                FS,
                "mcp__fs__copy",
                r#"{"in": ".env", "out": "docs/x"}"#,
                Deny,
            ),
            case(
                FS,
                "mcp__fs__zip",
                r#"{"inputs": [".env"], "archive": "docs/x.zip"}"#,
                Deny,
            ),
            case(FS, "mcp__fs__attach", r#"{"attachment": ".env"}"#, Deny),
            case(
                FS,
                "mcp__fs__send_mail",
                r#"{"to": "a@b.c", "attachments": ["secrets/key.txt"]}"#,
                Deny,
            ),
            case(
                FS,
                "mcp__fs__send_mail",
                r#"{"attachments": [{"filename": "k", "source": "secrets/key.txt"}]}"#,
                Deny,
            ),
            // The same shapes naming what no rule covers.
            case(
                FS,
                "mcp__fs__read_file",
                r#"{"name": "docs/guide.md"}"#,
                Allow,
            ),
            case(
                FS,
                "mcp__fs__copy",
                r#"{"src": "docs/guide.md", "dst": "docs/copy.md"}"#,
                Allow,
            ),
            case(
                FS,
                "mcp__fs__rename",
                r#"{"oldName": "docs/guide.md", "newName": "docs/g.md"}"#,
                Allow,
            ),
            case(
                FS,
                "mcp__fs__zip",
                r#"{"inputs": ["docs", "src/main.rs"], "archive": "out/x.zip"}"#,
                Allow,
            ),
            case(
                FS,
                "mcp__fs__attach",
                r#"{"attachment": ".env.example"}"#,
                Allow,
            ),
        ],
    );
}

#[test]
fn a_string_that_names_an_existing_file_is_a_path_under_any_key_but_text() {
    run_with_files(
        LOCKED,
        &[
            case(FS, "mcp__fs__open", r#"{"id": ".env"}"#, Deny),
            case(FS, "mcp__fs__open", r#"{"ref": "secrets/key.txt"}"#, Deny),
            case(
                FS,
                "mcp__fs__open",
                r#"{"opts": {"what": ["secrets"]}}"#,
                Deny,
            ),
            case(FS, "mcp__x__tool", r#"{"extra": ["--input=.env"]}"#, Deny),
            case(
                FS,
                "mcp__fs__update",
                r#"{"which": "src/locked/a.rs"}"#,
                Deny,
            ),
            case(FS, "mcp__fs__ingest", r#"{"args": ["cat", ".env"]}"#, Deny),
            // Text that names a file is no file read: what a file is
            // written to hold, what an edit looks for, a search's pattern,
            // a message.
            case(
                FS,
                "mcp__fs__write_file",
                r#"{"path": ".gitignore", "content": ".env"}"#,
                Allow,
            ),
            case(
                FS,
                "mcp__fs__edit_file",
                r#"{"path": "docs/guide.md", "old_string": ".env", "new_string": "secrets"}"#,
                Allow,
            ),
            case(
                FS,
                "mcp__fs__edit_file",
                r#"{"path": "docs/guide.md", "old_text": "src/locked/a.rs", "new_text": "x"}"#,
                Allow,
            ),
            case(
                FS,
                "mcp__fs__search_files",
                r#"{"pattern": ".", "path": "docs"}"#,
                Allow,
            ),
            case(
                FS,
                "mcp__fs__post",
                r#"{"message": ".env", "title": "secrets"}"#,
                Allow,
            ),
            // A name that is no file, and a file no rule covers.
            case(FS, "mcp__fs__open", r#"{"id": "env"}"#, Allow),
            case(FS, "mcp__fs__open", r#"{"id": "docs/guide.md"}"#, Allow),
            case(
                FS,
                "mcp__x__create_label",
                r#"{"name": "bug", "color": "red"}"#,
                Allow,
            ),
            case(
                FS,
                "mcp__x__create_issue",
                r#"{"name": "src", "body": "x"}"#,
                Allow,
            ),
            // Something to change that merely exists, given to a tool that
            // says nothing of changing it, is read only.
            case(
                FS,
                "mcp__fs__tool",
                r#"{"which": "src/locked/a.rs"}"#,
                Allow,
            ),
            // With Edit rules alone, a tool that changes things still has
            // what it is given looked up.
            case(
                EDIT,
                "mcp__fs__update",
                r#"{"which": "src/locked/a.rs"}"#,
                Deny,
            ),
            case(
                EDIT,
                "mcp__fs__update",
                r#"{"which": "docs/guide.md"}"#,
                Allow,
            ),
        ],
    );
}

#[test]
fn a_command_in_any_shape_an_mcp_input_gives_is_read() {
    const T: &str = "mcp__x__run";
    run(&[
        case(FS, T, r#"{"argv": ["cat", ".env"]}"#, Deny),
        case(
            FS,
            T,
            r#"{"argv": ["head", "-c", "10", "secrets/key.txt"]}"#,
            Deny,
        ),
        case(
            FS,
            "mcp__x__exec",
            r#"{"program": "cat", "arguments": [".env"]}"#,
            Deny,
        ),
        case(
            FS,
            "mcp__x__exec",
            r#"{"executable": "cat", "args": [".env"]}"#,
            Deny,
        ),
        case(FS, T, r#"{"commands": ["ls", "cat .env"]}"#, Deny),
        case(
            FS,
            T,
            r#"{"commands": ["ls", ["cat", "secrets/key.txt"]]}"#,
            Deny,
        ),
        case(
            FS,
            T,
            r#"{"steps": [{"name": "a", "run": "cat .env"}]}"#,
            Deny,
        ),
        case(FS, T, r#"{"build_command": "base64 .env"}"#, Deny),
        case(FS, T, r#"{"exec": "grep -r KEY secrets"}"#, Deny),
        // What reads no denied file.
        case(FS, T, r#"{"argv": ["ls", "-la", "docs"]}"#, Allow),
        case(
            FS,
            T,
            r#"{"commands": ["cargo build", "cargo test"]}"#,
            Allow,
        ),
        case(
            FS,
            T,
            r#"{"steps": [{"name": "test", "run": "cargo test"}]}"#,
            Allow,
        ),
        case(
            FS,
            "mcp__x__exec",
            r#"{"program": "cat", "arguments": ["docs/guide.md"]}"#,
            Allow,
        ),
        case(FS, T, r#"{"program": "make", "args": ["build"]}"#, Allow),
    ]);
    // A Bash deny rule holds for each command of a list.
    const RM: &[&str] = &["allow mcp__x", "deny Bash(rm *)"];
    run(&[
        case(RM, T, r#"{"commands": ["ls", "rm -rf build"]}"#, Deny),
        case(
            RM,
            T,
            r#"{"program": "rm", "arguments": ["-rf", "build"]}"#,
            Deny,
        ),
        case(RM, T, r#"{"argv": ["rm", "-rf", "build"]}"#, Deny),
        case(RM, T, r#"{"steps": [{"run": "rm -rf build"}]}"#, Deny),
        case(RM, T, r#"{"commands": ["ls", "make"]}"#, Allow),
        case(RM, T, r#"{"argv": ["ls", "rm"]}"#, Allow),
    ]);
}

const NET: &[&str] = &[
    "allow mcp__srv",
    "deny WebFetch(domain:127.0.0.2)",
    "deny WebFetch(domain:evil.test)",
];

#[test]
fn a_host_under_a_key_named_for_one_by_its_words_meets_the_domain_rules() {
    const T: &str = "mcp__srv__fetch";
    let mut table = Vec::new();
    for key in [
        "peer",
        "proxy_server",
        "upstream",
        "registry",
        "mirror",
        "index",
        "smtp_server",
        "dns_server",
        "nameserver",
        "resolver",
        "bastion",
        "dest",
        "origin",
        "server_name",
        "serverAddress",
        "domain_name",
        "server",
        "proxy",
        "jump_host",
        "upstreamUrl",
    ] {
        let input: &'static str =
            Box::leak(format!(r#"{{"{key}": "127.0.0.2:8099"}}"#).into_boxed_str());
        table.push(case(NET, T, input, Deny));
        let input: &'static str =
            Box::leak(format!(r#"{{"{key}": "ok.test:8099"}}"#).into_boxed_str());
        table.push(case(NET, T, input, Allow));
    }
    table.extend([
        case(NET, T, r#"{"targets": ["ok.test", "evil.test"]}"#, Deny),
        case(NET, T, r#"{"targets": ["ok.test", "a.test"]}"#, Allow),
        // A listening address reaches no host.
        case(NET, T, r#"{"bind_address": "127.0.0.2:8099"}"#, Allow),
        case(NET, T, r#"{"listen_addr": "127.0.0.2"}"#, Allow),
        // Text about a host is only written.
        case(NET, T, r#"{"link_text": "evil.test"}"#, Allow),
    ]);
    run(&table);
}

#[test]
fn a_url_in_any_spelling_a_server_reads_meets_the_domain_rules_under_any_key() {
    const T: &str = "mcp__srv__fetch";
    run(&[
        case(NET, T, r#"{"u": "http:127.0.0.2:8099/mcp-noslash"}"#, Deny),
        case(
            NET,
            T,
            r#"{"u": "http:\\\\127.0.0.2:8099/mcp-backslash"}"#,
            Deny,
        ),
        case(NET, T, r#"{"u": "https:/evil.test/x"}"#, Deny),
        case(NET, T, r#"{"u": "//127.0.0.2:8099/"}"#, Deny),
        case(NET, T, r#"{"u": "//evil.test/x"}"#, Deny),
        case(
            NET,
            "mcp__srv__run",
            r#"{"extraArgs": ["--registry=http://127.0.0.2:8099/mcp-extra"]}"#,
            Deny,
        ),
        case(
            NET,
            T,
            r#"{"flags": ["--index-url=https://evil.test/simple"]}"#,
            Deny,
        ),
        case(NET, T, r#"{"opt": "--mirror=https://evil.test/"}"#, Deny),
        // The same naming an allowed host, and text that is no URL.
        case(NET, T, r#"{"u": "http:ok.test/x"}"#, Allow),
        case(NET, T, r#"{"u": "//ok.test/x"}"#, Allow),
        case(
            NET,
            "mcp__srv__run",
            r#"{"extraArgs": ["--registry=http://ok.test/"]}"#,
            Allow,
        ),
        case(NET, T, r#"{"note": "see evil.test for details"}"#, Allow),
        case(
            NET,
            T,
            r#"{"body": "compare with http:evil.test later"}"#,
            Allow,
        ),
        case(NET, T, r#"{"u": "// evil.test"}"#, Allow),
        case(NET, T, r#"{"body": "x=https://evil.test"}"#, Allow),
        case(NET, T, r#"{"ratio": "http:x"}"#, Allow),
    ]);
}

const LOCAL: &[&str] = &["allow mcp__srv", "deny WebFetch(domain:localhost)"];

#[test]
fn an_image_registry_and_a_number_in_a_hosts_place_meet_the_domain_rules() {
    run(&[
        case(
            NET,
            "mcp__srv__pull_image",
            r#"{"image": "127.0.0.2:8099/app:latest"}"#,
            Deny,
        ),
        case(
            NET,
            "mcp__srv__pull_image",
            r#"{"image": "evil.test/app"}"#,
            Deny,
        ),
        case(
            NET,
            "mcp__srv__run_container",
            r#"{"config": {"base_image": "evil.test/team/app@sha256:abc"}}"#,
            Deny,
        ),
        case(
            NET,
            "mcp__srv__pull_image",
            r#"{"images": ["ubuntu", "evil.test/x"]}"#,
            Deny,
        ),
        case(
            NET,
            "mcp__srv__pull_image",
            r#"{"image": "ubuntu:22.04"}"#,
            Allow,
        ),
        case(
            NET,
            "mcp__srv__pull_image",
            r#"{"image": "library/ubuntu"}"#,
            Allow,
        ),
        case(
            NET,
            "mcp__srv__pull_image",
            r#"{"image": "ghcr.io/o/app:1"}"#,
            Allow,
        ),
        case(
            NET,
            "mcp__srv__fetch",
            r#"{"host": 2130706434, "port": 8099}"#,
            Deny,
        ),
        case(
            NET,
            "mcp__srv__fetch",
            r#"{"host": "2130706434", "port": 8099}"#,
            Deny,
        ),
        case(NET, "mcp__srv__fetch", r#"{"ip": 2130706434}"#, Deny),
        case(
            NET,
            "mcp__srv__fetch",
            r#"{"host": 2130706433, "port": 8099}"#,
            Allow,
        ),
        case(NET, "mcp__srv__fetch", r#"{"count": 2130706434}"#, Allow),
        // A position or a count under a key that may name a host is none.
        case(LOCAL, "mcp__srv__fetch", r#"{"host": 0}"#, Deny),
        case(LOCAL, "mcp__srv__fetch", r#"{"server": "0"}"#, Deny),
        case(
            LOCAL,
            "mcp__srv__search",
            r#"{"index": 0, "query": "x"}"#,
            Allow,
        ),
        case(
            LOCAL,
            "mcp__srv__search",
            r#"{"index": "0", "query": "x"}"#,
            Allow,
        ),
        case(
            LOCAL,
            "mcp__srv__pick",
            r#"{"target": "1", "node": 2}"#,
            Allow,
        ),
        // A mailbox is no host reached.
        case(
            NET,
            "mcp__srv__send",
            r#"{"email_address": "a@evil.test"}"#,
            Allow,
        ),
        case(
            NET,
            "mcp__srv__send",
            r#"{"mail_server": "evil.test"}"#,
            Deny,
        ),
    ]);
}

#[test]
fn ask_rules_hold_as_deny_rules_do() {
    const ASK: &[&str] = &[
        "allow mcp__fs",
        "ask Read(./.env)",
        "ask WebFetch(domain:evil.test)",
    ];
    run(&[
        case(ASK, "mcp__fs__read_file", r#"{"name": ".env"}"#, Ask),
        case(ASK, "mcp__fs__run", r#"{"argv": ["cat", ".env"]}"#, Ask),
        case(
            ASK,
            "mcp__fs__fetch",
            r#"{"proxy_server": "evil.test:3128"}"#,
            Ask,
        ),
        case(
            ASK,
            "mcp__fs__fetch",
            r#"{"proxy_server": "ok.test:3128"}"#,
            Allow,
        ),
    ]);
}
