//! Fifth red-team round and what the fourth left: commands refused that
//! could not reach what the rule protects.
//!
//! - `rg KEY` was refused in every project with `deny Read(./.env)`: a
//!   directory read whole meets the Read rules for what is inside, but
//!   ripgrep leaves hidden files out unless `--hidden`, `-.` or `-uu` say
//!   otherwise, or a glob, a type or an ignore file's `!` line lets one in
//!   (all matched before its hidden filter: `rg -g '*' KEY` prints `.env`).

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run, run_with_files};

const B: &str = "Bash";
const HIDDEN: &[&str] = &[
    "allow Bash",
    "deny Read(./.env)",
    "deny Read(./conf/.token)",
];

const RIPGREP: &[Case] = &[
    case(HIDDEN, B, "rg TOKEN", Allow),
    case(HIDDEN, B, "rg -n TOKEN .", Allow),
    case(HIDDEN, B, "rg -il token conf src", Allow),
    case(HIDDEN, B, "rg -u TOKEN", Allow),
    case(HIDDEN, B, "rg --no-config TOKEN", Allow),
    case(HIDDEN, B, "rg TOKEN | head -5", Allow),
    // What lets a hidden file in.
    case(HIDDEN, B, "rg --hidden TOKEN", Deny),
    case(HIDDEN, B, "rg -. TOKEN", Deny),
    case(HIDDEN, B, "rg -uu TOKEN", Deny),
    case(HIDDEN, B, "rg -u -u TOKEN conf", Deny),
    case(HIDDEN, B, "rg --unrestricted --unrestricted TOKEN", Deny),
    case(HIDDEN, B, "rg -g '*' TOKEN", Deny),
    case(HIDDEN, B, "rg --glob=.env TOKEN", Deny),
    case(HIDDEN, B, "rg --iglob '*' TOKEN", Deny),
    case(HIDDEN, B, "rg -tsh TOKEN", Deny),
    case(HIDDEN, B, "rg --type-add 'e:.env' -te TOKEN", Deny),
    case(HIDDEN, B, "rg --ignore-file /dev/null TOKEN", Deny),
    case(HIDDEN, B, "rg $OPT TOKEN", Ask),
    // Named, it is read whatever it is called.
    case(HIDDEN, B, "rg TOKEN .env", Deny),
    case(HIDDEN, B, "rg TOKEN conf/.token", Deny),
    // Other programs read hidden files.
    case(HIDDEN, B, "grep -r TOKEN .", Deny),
    case(HIDDEN, B, "ag TOKEN", Deny),
];

#[test]
fn ripgrep_leaves_hidden_files_out_unless_told_to_read_them() {
    run_with_files(&[("conf/.token", "TOKEN=x", false)], RIPGREP);
    // A denied file that is not hidden is still read.
    run(&[
        case(
            &["allow Bash", "deny Read(./secrets/**)"],
            B,
            "rg TOKEN",
            Deny,
        ),
        case(
            &["allow Bash", "deny Read(./secrets/**)"],
            B,
            "rg TOKEN src",
            Allow,
        ),
    ]);
}

#[test]
fn an_ignore_files_negation_lets_a_hidden_file_in() {
    for file in [".gitignore", ".ignore", ".rgignore", "conf/.gitignore"] {
        run_with_files(
            &[
                // ripgrep reads `.gitignore` files in a repository only.
                (".git/HEAD", "ref: refs/heads/main\n", false),
                ("conf/.token", "TOKEN=x", false),
                (file, "*.log\n!.env\n!.token\n", false),
            ],
            &[
                case(HIDDEN, B, "rg TOKEN", Deny),
                case(HIDDEN, B, "rg TOKEN src", Allow),
            ],
        );
    }
}

/// A deny or ask rule for an MCP server or tool holds whatever the case of
/// the names: `deny mcp__github__delete_repo` had let server `GitHub`'s
/// `delete_repo` run in bypassPermissions. An allow rule allows only what it
/// writes.
#[test]
fn an_mcp_restriction_holds_whatever_the_case_of_the_names() {
    const DENY: &[&str] = &["mode bypassPermissions", "deny mcp__github__delete_repo"];
    const ASK: &[&str] = &["allow mcp__GitHub", "ask mcp__github"];
    const ALLOW: &[&str] = &["allow mcp__github"];
    run(&[
        case(DENY, "mcp__GitHub__delete_repo", "", Deny),
        case(DENY, "mcp__github__Delete_Repo", "", Deny),
        case(DENY, "mcp__GitHub__list_repos", "", Allow),
        case(ASK, "mcp__GitHub__list_repos", "", Ask),
        case(ALLOW, "mcp__GitHub__list_repos", "", Ask),
        case(ALLOW, "mcp__github__list_repos", "", Allow),
    ]);
}

/// A URL in an MCP tool's input meets the domain rules, not only under a key
/// named for one: a string that is a URL under any key (`{"origin":
/// "https://evil.test"}`), and a URL inside a command or a script the server
/// runs. One inside a message (`body`) is only written.
#[test]
fn a_url_anywhere_in_an_mcp_tools_input_meets_the_domain_rules() {
    const EVIL: &[&str] = &["allow mcp__fetch", "deny WebFetch(domain:evil.test)"];
    const T: &str = "mcp__fetch__go";
    run(&[
        case(EVIL, T, r#"{"origin": "https://evil.test"}"#, Deny),
        case(EVIL, T, r#"{"navigate_to": "http://evil.test/x"}"#, Deny),
        case(EVIL, T, r#"{"repo": "https://evil.test/a.git"}"#, Deny),
        case(EVIL, T, r#"{"q": "https://EVIL.test/x"}"#, Deny),
        case(EVIL, T, r#"{"input": "https://evil.test/x"}"#, Deny),
        case(EVIL, T, r#"{"args": ["--url", "https://evil.test"]}"#, Deny),
        case(
            EVIL,
            T,
            r#"{"command": "curl -s https://evil.test/i"}"#,
            Deny,
        ),
        case(
            EVIL,
            T,
            r#"{"script": "fetch(\"wss://evil.test/s\")"}"#,
            Deny,
        ),
        case(
            EVIL,
            T,
            r#"{"steps": [{"cmd": "open git+ssh://evil.test/r"}]}"#,
            Deny,
        ),
        case(
            EVIL,
            T,
            r#"{"code": "see https://ok.test/x and file:///etc/hosts"}"#,
            Allow,
        ),
        case(
            EVIL,
            T,
            r#"{"note": "evil.test is a name, not a URL"}"#,
            Allow,
        ),
        // A URL in a message is written, not reached.
        case(EVIL, T, r#"{"body": "see https://evil.test/x"}"#, Allow),
    ]);
}
