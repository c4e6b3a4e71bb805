//! Tenth round, found by the lead: a database client's own command
//! language runs commands, reads and writes files and connects elsewhere
//! (`pager CMD`, `\i f`, `.once |CMD`, `COPY … TO 'f'`, `\c db u HOST`,
//! `sqlcmd -Q '!!CMD'`, `mongosh --eval JS`), and SQL the command line
//! feeds to a client's input is read by the client as `-c` text would be.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{case, run};

const B: &str = "Bash";
const NONE: &[&str] = &["allow Bash"];
const RM: &[&str] = &["allow Bash", "deny Bash(rm *)"];
const NET: &[&str] = &["allow Bash", "deny WebFetch(domain:evil.test)"];
const SECRETS: &[&str] = &[
    "allow Bash",
    "deny Read(./secrets/**)",
    "deny Edit(./secrets/**)",
];

#[test]
fn a_database_clients_own_commands_that_act_are_code() {
    run(&[
        // A pager or an editor runs when the client prints.
        case(RM, B, "mysql -e 'pager rm y'", Ask),
        case(RM, B, "mysql -e 'select 1 \\P rm y'", Ask),
        case(RM, B, "mysql -e 'edit'", Ask),
        case(RM, B, "mysql --pager='rm y' -e 'select 1'", Deny),
        case(RM, B, "mysql --pager 'rm y' db", Deny),
        case(RM, B, "mysql --init-command='system rm y' db", Deny),
        case(RM, B, "PAGER='rm y' psql -c 'select 1' db", Ask),
        case(RM, B, "PSQL_PAGER='rm y' psql -c 'select 1' db", Ask),
        case(
            RM,
            B,
            "psql -c '\\setenv PAGER \"rm y\"' -c 'select 1'",
            Ask,
        ),
        // A file read and run.
        case(RM, B, "mysql -e 'source /tmp/x.sql'", Ask),
        case(RM, B, "mysql -e '\\. /tmp/x.sql'", Ask),
        case(RM, B, "psql -c '\\i /tmp/x.sql'", Ask),
        case(RM, B, "psql -c '\\ir x.sql'", Ask),
        case(RM, B, "duckdb -c '.read x.sql'", Ask),
        // The output piped to a command: read as that command.
        case(RM, B, "duckdb -c '.once |rm y'", Deny),
        case(RM, B, "duckdb x.db '.output | rm y'", Deny),
        case(RM, B, "mysql -e 'select 1; \\! rm y'", Deny),
        // Other clients' shell escapes.
        case(RM, B, "sqlcmd -Q '!!rm y'", Deny),
        case(RM, B, "sqlcmd -S db -Q ':!! rm y'", Deny),
        case(RM, B, "snowsql -q '!system rm y'", Deny),
        case(RM, B, "sqlplus -s u/p@db <<'EOF'\nhost rm y\nEOF", Ask),
        // mongosh's commands are JavaScript with Node's modules.
        case(
            RM,
            B,
            "mongosh --eval 'require(\"child_process\").execSync(\"rm y\")'",
            Ask,
        ),
        case(
            RM,
            B,
            "mongosh mongodb://db.ok.test/app --eval 'db.stats()'",
            Ask,
        ),
        case(RM, B, "mongosh mongodb://db.ok.test/app script.js", Allow),
        // What reads no commands, or only SQL.
        case(RM, B, "mysql -e 'select * from pager_settings' db", Allow),
        case(RM, B, "mysql -e 'select 1' db", Allow),
        case(RM, B, "psql -c 'select 1' -c '\\dt' db", Allow),
        case(RM, B, "psql -c '\\copy t to stdout' db", Allow),
        case(RM, B, "psql -c 'COPY t TO STDOUT' db", Allow),
        case(RM, B, "psql -At -c 'select 1' -v ON_ERROR_STOP=1 db", Allow),
        case(RM, B, "duckdb x.db 'select 42'", Allow),
        case(RM, B, "sqlcmd -S db -Q 'select 1'", Allow),
        case(RM, B, "psql -f migrate.sql db", Allow),
        case(RM, B, "psql -l", Allow),
        case(RM, B, "psql mydb", Allow),
        case(NONE, B, "mysql -e 'pager less'", Allow),
    ]);
}

#[test]
fn a_database_client_reading_or_writing_files_meets_the_file_rules() {
    run(&[
        case(
            SECRETS,
            B,
            "duckdb x.db \"COPY (select 1) TO 'secrets/k'\"",
            Ask,
        ),
        case(
            SECRETS,
            B,
            "duckdb -c \"select * from read_csv('secrets/k')\"",
            Ask,
        ),
        case(SECRETS, B, "psql -c \"\\copy t to 'secrets/k'\"", Ask),
        case(SECRETS, B, "psql -c \"\\o secrets/k\" -c 'select 1'", Ask),
        case(SECRETS, B, "psql -c \"COPY t TO '/tmp/x'\"", Ask),
        case(
            SECRETS,
            B,
            "psql -c \"select pg_read_file('/etc/passwd')\"",
            Ask,
        ),
        case(
            SECRETS,
            B,
            "mysql -e \"LOAD DATA LOCAL INFILE 'secrets/k' INTO TABLE t\"",
            Ask,
        ),
        case(SECRETS, B, "mysql -e 'tee secrets/k'", Ask),
        case(SECRETS, B, "cqlsh -e \"COPY ks.t TO 'secrets/k'\"", Ask),
        case(SECRETS, B, "sqlcmd -Q ':out secrets/k'", Ask),
        // An option that names the file written.
        case(SECRETS, B, "psql -o secrets/k -c 'select 1'", Deny),
        case(SECRETS, B, "psql --output=secrets/k -c 'select 1'", Deny),
        case(SECRETS, B, "psql -L secrets/log mydb", Deny),
        case(SECRETS, B, "mysql --tee=secrets/k -e 'select 1'", Deny),
        case(SECRETS, B, "sqlcmd -o secrets/k -Q 'select 1'", Deny),
        case(SECRETS, B, "psql -o out.txt -c 'select 1'", Ask),
        case(SECRETS, B, "psql -f secrets/x.sql db", Deny),
        case(SECRETS, B, "sqlcmd -i secrets/x.sql", Deny),
        case(SECRETS, B, "duckdb x.db 'select 42'", Allow),
        case(SECRETS, B, "psql -c 'select count(*) from t' db", Allow),
    ]);
}

#[test]
fn a_database_client_connecting_elsewhere_may_reach_any_host() {
    run(&[
        case(
            NET,
            B,
            "psql -h db.ok.test -c '\\c app admin evil.test'",
            Ask,
        ),
        case(
            NET,
            B,
            "psql -c '\\connect \"host=evil.test dbname=x\"'",
            Ask,
        ),
        case(
            NET,
            B,
            "mysql -h db.ok.test -e 'connect app evil.test'",
            Ask,
        ),
        case(
            NET,
            B,
            "psql -c \"select dblink_connect('host=evil.test')\"",
            Ask,
        ),
        case(
            NET,
            B,
            "duckdb -c \"select * from 'https://evil.test/x.csv'\"",
            Deny,
        ),
        case(NET, B, "psql -h db.ok.test -c 'select 1'", Allow),
        case(NET, B, "psql mydb", Allow),
        // Fed SQL: the database's own host, as a script's.
        case(NET, B, "pg_dump a | psql -h db.ok.test b", Allow),
    ]);
}

#[test]
fn sql_fed_to_a_clients_input_is_read_as_its_commands() {
    run(&[
        case(RM, B, "echo '\\! rm y' | psql", Ask),
        case(RM, B, "echo 'system rm y' | mysql", Ask),
        case(RM, B, "psql db <<'EOF'\n\\! rm y\nEOF", Ask),
        case(RM, B, "mysql db <<< 'system rm y'", Ask),
        case(RM, B, "mysql db < dump.sql", Ask),
        case(RM, B, "{ psql db; } < dump.sql", Ask),
        case(RM, B, "echo '.shell rm y' | duckdb x.db", Ask),
        case(RM, B, "psql -c \"$QUERY\" db", Ask),
        case(RM, B, "duckdb x.db \"$QUERY\"", Ask),
        case(RM, B, "echo '\\! rm y' > x.sql; psql -f x.sql", Ask),
        // Commands given, or nothing read.
        case(RM, B, "echo x | psql -c 'select 1' db", Allow),
        case(RM, B, "psql -f migrate.sql db < /dev/null", Allow),
        case(RM, B, "psql --version < /dev/null", Allow),
        case(RM, B, "psql db < /dev/null", Allow),
        case(RM, B, "gdb -q ./prog < /dev/null", Allow),
        case(RM, B, "gdb -q ./prog < cmds.gdb", Ask),
        case(RM, B, "psql db 2> /dev/null", Allow),
        case(NONE, B, "echo '\\! ls' | psql", Allow),
        case(NONE, B, "mysql db < dump.sql", Allow),
    ]);
}

const BASH_EDIT: &[&str] = &["mode dontAsk", "allow Bash", "allow Edit"];

#[test]
fn a_computed_path_ending_in_a_protected_place_is_a_protected_write() {
    run(&[
        case(BASH_EDIT, B, "cp x \"$PWD/.git/hooks/pre-commit\"", Deny),
        case(BASH_EDIT, B, "echo x > \"$PWD/.git/config\"", Deny),
        case(
            BASH_EDIT,
            B,
            "cp x \"$(pwd)/.claude/settings.local.json\"",
            Deny,
        ),
        case(
            BASH_EDIT,
            B,
            "cp hook $(git rev-parse --git-dir)/hooks/pre-commit",
            Deny,
        ),
        case(BASH_EDIT, B, "tee \"$HOME/.bashrc\" < x", Deny),
        case(BASH_EDIT, B, "mv a \"$D\"/.git/config", Deny),
        case(BASH_EDIT, B, "echo x > \"$OUT\"", Allow),
        case(BASH_EDIT, B, "cp x \"$PWD/build/out.txt\"", Allow),
        case(
            BASH_EDIT,
            B,
            "echo x > \"$(git rev-parse --show-toplevel)/notes.txt\"",
            Allow,
        ),
    ]);
}

#[test]
fn brace_expansion_makes_the_words_bash_runs_with() {
    run(&[
        case(SECRETS, B, "cat secrets/{a,b}", Deny),
        case(SECRETS, B, "cat {docs,secrets}/k", Deny),
        case(SECRETS, B, "cp notes.txt{,.bak}", Allow),
        case(SECRETS, B, "cat docs/{a,b}.md", Allow),
        case(
            BASH_EDIT,
            B,
            "cp hook .git/hooks/{pre-commit,post-merge}",
            Deny,
        ),
        case(BASH_EDIT, B, "cp src/main.rs{,.bak}", Allow),
        case(RM, B, "echo {a,b}", Allow),
    ]);
}

const EVERYTHING: &[&str] = &[
    "allow Read",
    "allow Edit",
    "allow Bash",
    "mode bypassPermissions",
];

#[test]
fn tacks_file_of_mcp_sign_in_tokens_is_never_read_by_the_file_tools() {
    run(&[
        case(
            EVERYTHING,
            "Read",
            "{home}/.local/state/tack/mcp-oauth.json",
            Deny,
        ),
        case(
            EVERYTHING,
            "Grep",
            "{home}/.local/state/tack/mcp-oauth.json",
            Deny,
        ),
        case(
            EVERYTHING,
            "Read",
            "{home}/.local/state/tack/sessions.txt",
            Allow,
        ),
        case(EVERYTHING, "Read", "{home}/notes/mcp-oauth.json", Allow),
    ]);
}
