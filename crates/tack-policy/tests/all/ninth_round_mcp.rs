//! Ninth round: what an MCP tool's input makes its server do, held to the
//! rules as the same thing done through Bash. A shell command the input
//! gives a server to run (under `command`, `cmd`, `commandLine`, `shell`,
//! `bash`, `script`; a string, an argv, or `command` + `args`) reads and
//! writes the files Bash's analysis finds: reads meet the Read deny and ask
//! rules (a directory read whole is looked inside), writes the Edit rules,
//! the protected paths and the working directories. A tool whose name says
//! it searches what files hold reads a directory it is given whole, as
//! `grep -r KEY DIR` does. Shell code tack cannot read (fed to a shell,
//! computed at run time) may reach any host, as python's may. Hosts in an
//! input's repository, broker and node lists, and in connection strings, are
//! read.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{case, run};

const FS: &[&str] = &[
    "allow mcp__fs",
    "deny Read(./.env)",
    "deny Read(./secrets/**)",
    "deny Read(~/.ssh/**)",
    "deny Edit(./src/generated/**)",
    "deny Bash(rm *)",
];

#[test]
fn a_shell_command_given_to_an_mcp_server_reads_what_it_would_read_through_bash() {
    const T: &str = "mcp__fs__run";
    run(&[
        // As Bash decides them.
        case(FS, "Bash", "cat .env", Deny),
        case(FS, "Bash", "grep -r ENV .", Deny),
        case(FS, T, r#"{"command": "cat .env"}"#, Deny),
        case(FS, T, r#"{"command": ["cat", ".env"]}"#, Deny),
        case(FS, T, r#"{"command": "cat", "args": [".env"]}"#, Deny),
        case(FS, T, r#"{"cmd": "cat secrets/key.txt"}"#, Deny),
        case(FS, T, r#"{"commandLine": "head -n 1 ~/.ssh/id_rsa"}"#, Deny),
        case(FS, T, r#"{"shell": "grep -r ENV ."}"#, Deny),
        case(FS, T, r#"{"bash": "tar -cf - ."}"#, Deny),
        case(FS, T, r#"{"script": "cd secrets && cat key.txt"}"#, Deny),
        case(FS, T, r#"{"command": "wc -l < .env"}"#, Deny),
        case(FS, T, r#"{"options": {"cmd": "base64 .env"}}"#, Deny),
        // What reads no denied file.
        case(FS, T, r#"{"command": "ls"}"#, Allow),
        case(FS, T, r#"{"command": "cargo test"}"#, Allow),
        case(
            FS,
            T,
            r#"{"command": "cat src/main.rs .env.example"}"#,
            Allow,
        ),
        case(FS, T, r#"{"command": "grep -r main src"}"#, Allow),
        case(FS, T, r#"{"command": ["ls", "-la", "docs"]}"#, Allow),
        case(FS, T, r#"{"message": "cat .env"}"#, Allow),
        // A script that is no shell code (a browser's JavaScript) is not
        // read as a shell's; one that is, is.
        case(FS, T, r#"{"script": "rm -rf build"}"#, Deny),
        case(
            FS,
            "mcp__fs__evaluate",
            r#"{"script": "document.querySelector('h1').textContent"}"#,
            Allow,
        ),
        case(
            FS,
            "mcp__fs__evaluate",
            r#"{"script": "() => [...document.links].map(a => a.href)"}"#,
            Allow,
        ),
    ]);
}

#[test]
fn a_shell_command_given_to_an_mcp_server_writes_what_it_would_write_through_bash() {
    const T: &str = "mcp__fs__run";
    const NO_RM: &[&str] = &["allow mcp__fs"];
    run(&[
        case(FS, T, r#"{"command": "echo x > src/generated/g.rs"}"#, Deny),
        case(
            FS,
            T,
            r#"{"cmd": "sed -i s/a/b/ src/generated/g.rs"}"#,
            Deny,
        ),
        case(
            FS,
            T,
            r#"{"command": "cp src/main.rs src/generated/"}"#,
            Deny,
        ),
        // The protected paths, as a Bash write of them.
        case(FS, T, r#"{"command": "echo x >> .git/config"}"#, Ask),
        case(
            FS,
            T,
            r#"{"shell": "cp a.txt .claude/settings.local.json"}"#,
            Ask,
        ),
        case(FS, T, r#"{"commandLine": "echo x > ~/.bashrc"}"#, Ask),
        case(
            NO_RM,
            T,
            r#"{"command": "tee .git/hooks/pre-commit < x.sh"}"#,
            Ask,
        ),
        // A file outside the working directories, as Bash's edit of it.
        case(NO_RM, T, r#"{"command": "echo x > {root}/outside/f"}"#, Ask),
        // The critical removals.
        case(NO_RM, T, r#"{"command": "rm -rf ~"}"#, Ask),
        // Writes inside the working directories that no rule names.
        case(FS, T, r#"{"command": "echo x > out/log.txt"}"#, Allow),
        case(
            NO_RM,
            T,
            r#"{"command": "sed -i s/a/b/ src/main.rs"}"#,
            Allow,
        ),
        case(NO_RM, T, r#"{"command": "rm -rf out"}"#, Allow),
    ]);
}

#[test]
fn an_mcp_tool_that_searches_file_contents_reads_a_directory_whole() {
    run(&[
        // As Bash's `grep -r` of the same directory.
        case(FS, "Bash", "grep -r SECRET .", Deny),
        case(
            FS,
            "mcp__fs__grep",
            r#"{"path": ".", "pattern": "SECRET"}"#,
            Deny,
        ),
        case(
            FS,
            "mcp__fs__search_files",
            r#"{"path": ".", "pattern": "SECRET"}"#,
            Deny,
        ),
        case(
            FS,
            "mcp__fs__search",
            r#"{"directory": ".", "query": "x"}"#,
            Deny,
        ),
        case(
            FS,
            "mcp__fs__find_in_files",
            r#"{"root": "{project}", "text": "x"}"#,
            Deny,
        ),
        case(
            FS,
            "mcp__fs__searchCode",
            r#"{"dir": "secrets", "q": "x"}"#,
            Deny,
        ),
        // A directory where no denied file lies.
        case(
            FS,
            "mcp__fs__grep",
            r#"{"path": "src", "pattern": "SECRET"}"#,
            Allow,
        ),
        case(FS, "mcp__fs__search", r#"{"directory": "docs"}"#, Allow),
        // Listing a directory reads no file in it.
        case(FS, "mcp__fs__list_directory", r#"{"path": "."}"#, Allow),
        case(
            FS,
            "mcp__fs__read_file",
            r#"{"path": "src/main.rs"}"#,
            Allow,
        ),
    ]);
}

#[test]
fn shell_code_tack_cannot_read_may_reach_any_host() {
    const NET: &[&str] = &[
        "allow Bash",
        "allow mcp__x",
        "deny WebFetch(domain:evil.test)",
    ];
    const ASK_NET: &[&str] = &["allow Bash", "ask WebFetch(domain:evil.test)"];
    const PLAIN: &[&str] = &["allow Bash", "deny Read(./.env)"];
    run(&[
        case(NET, "Bash", "echo 'curl evil.test' | bash", Ask),
        case(NET, "Bash", "printf 'curl %s' evil.test | sh -s", Ask),
        case(NET, "Bash", "cat s.sh | dash", Ask),
        case(NET, "Bash", "bash <<< \"$X\"", Ask),
        case(NET, "Bash", "bash <<EOF\ncurl evil.test\nEOF", Ask),
        case(NET, "Bash", "H=evil.test; bash -c \"curl $H\"", Ask),
        case(NET, "Bash", "sh -c \"nc $(echo evil.test) 80\"", Ask),
        case(NET, "Bash", "eval \"$S\"", Ask),
        case(NET, "Bash", "eval \"curl $(echo evil.test)\"", Ask),
        case(NET, "Bash", "source <(echo curl evil.test)", Ask),
        case(NET, "Bash", "bash <(echo curl evil.test)", Ask),
        case(NET, "Bash", ". /dev/stdin", Ask),
        case(ASK_NET, "Bash", "echo 'curl evil.test' | zsh", Ask),
        case(
            NET,
            "mcp__x__run",
            r#"{"command": "echo 'curl evil.test' | bash"}"#,
            Ask,
        ),
        // Shell code read as written.
        case(NET, "Bash", "bash -c 'curl evil.test'", Deny),
        case(NET, "Bash", "bash -c 'ls -la'", Allow),
        case(NET, "Bash", "eval 'echo hi'", Allow),
        case(NET, "Bash", "bash -lc 'cargo test'", Allow),
        case(NET, "mcp__x__run", r#"{"command": "ls"}"#, Allow),
        // Without domain rules, nothing changes.
        case(&["allow Bash"], "Bash", "echo hi | bash", Allow),
        case(PLAIN, "Bash", "echo hi | bash", Allow),
        case(PLAIN, "Bash", "bash -c \"$CMD\"", Allow),
    ]);
}

#[test]
fn hosts_in_repository_cluster_and_connection_string_inputs_are_read() {
    const EVIL: &[&str] = &["allow mcp__x", "deny WebFetch(domain:evil.test)"];
    const T: &str = "mcp__x__call";
    run(&[
        case(EVIL, T, r#"{"repo": "evil.test:r"}"#, Deny),
        case(EVIL, T, r#"{"repository": "git@evil.test:r.git"}"#, Deny),
        case(EVIL, T, r#"{"repository": "evil.test/owner/name"}"#, Deny),
        case(EVIL, T, r#"{"repo": "https://evil.test/o/r.git"}"#, Deny),
        case(EVIL, T, r#"{"source_repo": "evil.test/o/r"}"#, Deny),
        case(EVIL, T, r#"{"brokers": ["evil.test:9092"]}"#, Deny),
        case(
            EVIL,
            T,
            r#"{"bootstrap_servers": "ok.test:9092,evil.test:9092"}"#,
            Deny,
        ),
        case(EVIL, T, r#"{"addresses": ["evil.test"]}"#, Deny),
        case(EVIL, T, r#"{"endpoints": ["evil.test:2379"]}"#, Deny),
        case(EVIL, T, r#"{"nodes": ["evil.test:7000"]}"#, Deny),
        case(EVIL, T, r#"{"seeds": "ok.test evil.test"}"#, Deny),
        case(EVIL, T, r#"{"kafka_brokers": "evil.test:9092"}"#, Deny),
        case(
            EVIL,
            T,
            r#"{"connectionString": "Server=evil.test;Database=x"}"#,
            Deny,
        ),
        case(
            EVIL,
            T,
            r#"{"connection_string": "host=evil.test dbname=x"}"#,
            Deny,
        ),
        case(
            EVIL,
            T,
            r#"{"database": "Server=tcp:evil.test,1433;Initial Catalog=x;"}"#,
            Deny,
        ),
        case(
            EVIL,
            T,
            r#"{"config": {"db": "Data Source=evil.test\\SQLEXPRESS;User ID=sa"}}"#,
            Deny,
        ),
        case(
            EVIL,
            T,
            r#"{"conn": "host=evil.test port=5432 dbname=x"}"#,
            Deny,
        ),
        case(
            EVIL,
            T,
            r#"{"mongo": "mongodb://u:p@ok.test:27017,evil.test:27017/db?replicaSet=rs"}"#,
            Deny,
        ),
        case(
            EVIL,
            T,
            r#"{"db": "jdbc:postgresql://evil.test:5432/db"}"#,
            Deny,
        ),
        case(
            EVIL,
            T,
            r#"{"cache": "redis://:pw@evil.test:6379/0"}"#,
            Deny,
        ),
        case(
            EVIL,
            T,
            r#"{"options": {"store": "jdbc:mysql://evil.test/db"}}"#,
            Deny,
        ),
        // What names no forbidden host.
        case(
            EVIL,
            T,
            r#"{"owner": "octo", "repo": "hello-world"}"#,
            Allow,
        ),
        case(EVIL, T, r#"{"repo": "octo/hello-world"}"#, Allow),
        case(EVIL, T, r#"{"repository": "octo/evil.test"}"#, Allow),
        case(EVIL, T, r#"{"brokers": ["ok.test:9092"]}"#, Allow),
        case(
            EVIL,
            T,
            r#"{"connectionString": "Server=ok.test;Database=evil.test"}"#,
            Allow,
        ),
        case(
            EVIL,
            T,
            r#"{"query": "SELECT host FROM t WHERE host = 'evil.test'"}"#,
            Allow,
        ),
        case(
            EVIL,
            T,
            r#"{"text": "set host=evil.test in the file"}"#,
            Allow,
        ),
    ]);
}
