//! Database clients and the command languages of their own.
//!
//! A client runs more than SQL on the database: its own commands run shell
//! commands on this machine (`mysql -e 'system CMD'`, `psql -c '\! CMD'`,
//! `duckdb '.shell CMD'`, `sqlcmd -Q '!!CMD'`, `snowsql -q '!system CMD'`,
//! sqlplus's `HOST CMD`), set a pager or an editor that runs when it prints
//! (`pager CMD`, `\setenv PAGER`), read and run a file (`\i f`, `source f`,
//! `.read f`), write or read files (`\o f`, `tee f`, `\copy … to 'f'`,
//! `COPY … TO 'f'`, `LOAD DATA LOCAL INFILE`, duckdb's `FROM 'f'`), or
//! connect elsewhere (`\c db user HOST`, `connect db HOST`, `dblink`).
//!
//! A shell command written in the SQL is checked as the shell would run it.
//! Anything else of that list is code that acts as an interpreter's does
//! ([`Analyzer::code_acts`]): uncertain where rules of its kind exist. SQL
//! that cannot be read here — computed at run time, or fed to the client's
//! input by the command line (`echo '\! rm x' | psql`, a here-document,
//! `< dump.sql`) — may run commands and touch files; the hosts it reaches
//! are the database's, as a script's are. A script file named by an option
//! (`psql -f f`, `sqlplus @f`) is code not written here, as any script is,
//! unless an earlier part of the command may have written it.

use super::options::could_be_option;
use super::{Analyzer, Family, UncertainKind, WordVal};

/// How a client's own commands are written.
#[derive(Clone, Copy, PartialEq)]
enum Dialect {
    MySql,
    Postgres,
    DuckDb,
    SqlCmd,
    SnowSql,
    SqlPlus,
    Cql,
    Mongo,
}

struct Client {
    names: &'static [&'static str],
    dialect: Dialect,
    /// Options whose value is commands to run (`-e SQL`).
    text: &'static [&'static str],
    /// Options whose value is a script file to run.
    files: &'static [&'static str],
    /// Options whose value is a file the client writes (`psql -o f`).
    writes: &'static [&'static str],
    /// Options that take a value (not an operand).
    values: &'static [&'static str],
    /// Options after which the client reads no input (`--version`).
    no_input: &'static [&'static str],
}

const CLIENTS: &[Client] = &[
    Client {
        names: &["mysql", "mariadb", "mycli"],
        dialect: Dialect::MySql,
        text: &["-e", "--execute", "--init-command"],
        files: &[],
        writes: &["--tee"],
        values: &[
            "-h",
            "--host",
            "-u",
            "--user",
            "-P",
            "--port",
            "-D",
            "--database",
            "-S",
            "--socket",
            "--pager",
        ],
        no_input: &["-V", "--version", "-?", "--help", "-I"],
    },
    Client {
        names: &["psql", "pgcli"],
        dialect: Dialect::Postgres,
        text: &["-c", "--command"],
        files: &["-f", "--file"],
        writes: &["-o", "--output", "-L", "--log-file"],
        values: &[
            "-h",
            "--host",
            "-U",
            "--username",
            "-p",
            "--port",
            "-d",
            "--dbname",
            "-v",
            "--set",
            "--variable",
            "-P",
            "--pset",
            "-F",
            "-R",
        ],
        no_input: &["-V", "--version", "-?", "--help", "-l", "--list"],
    },
    Client {
        names: &["duckdb"],
        dialect: Dialect::DuckDb,
        text: &["-c", "-cmd", "-s"],
        files: &["-f", "-init"],
        writes: &[],
        values: &["-separator", "-newline", "-nullvalue", "-storage_version"],
        no_input: &["-version", "--version", "-help", "--help"],
    },
    Client {
        names: &["sqlcmd"],
        dialect: Dialect::SqlCmd,
        text: &["-Q", "-q", "--query", "--initial-query"],
        files: &["-i", "--input-file"],
        writes: &["-o", "--output-file"],
        values: &[
            "-S",
            "--server",
            "-U",
            "--user-name",
            "-P",
            "--password",
            "-d",
            "--database-name",
            "-v",
            "--variables",
        ],
        no_input: &["-?", "--help", "--version"],
    },
    Client {
        names: &["snowsql"],
        dialect: Dialect::SnowSql,
        text: &["-q", "--query"],
        files: &["-f", "--filename"],
        writes: &[],
        values: &[
            "-a",
            "--accountname",
            "-u",
            "--username",
            "-d",
            "--dbname",
            "-s",
            "--schemaname",
            "-r",
            "--rolename",
            "-w",
            "--warehouse",
            "-c",
            "--connection",
            "-o",
            "--option",
        ],
        no_input: &["-v", "--version", "-?", "--help"],
    },
    Client {
        names: &["sqlplus"],
        dialect: Dialect::SqlPlus,
        text: &[],
        files: &[],
        writes: &[],
        values: &["-M", "-MARKUP", "-R"],
        no_input: &["-V", "-v", "-H", "-h", "-HELP", "-help", "-version"],
    },
    Client {
        names: &["cqlsh"],
        dialect: Dialect::Cql,
        text: &["-e", "--execute"],
        files: &["-f", "--file"],
        writes: &[],
        values: &[
            "-u",
            "--username",
            "-p",
            "--password",
            "-k",
            "--keyspace",
            "--cqlshrc",
            "--encoding",
            "--cqlversion",
            "--connect-timeout",
            "--request-timeout",
        ],
        no_input: &["--version", "-h", "--help"],
    },
    Client {
        names: &["mongosh", "mongo"],
        dialect: Dialect::Mongo,
        text: &["--eval"],
        files: &["-f", "--file"],
        writes: &[],
        values: &[
            "--host",
            "--port",
            "-u",
            "--username",
            "-p",
            "--password",
            "--authenticationDatabase",
            "--authenticationMechanism",
            "--tlsCertificateKeyFile",
            "--tlsCAFile",
        ],
        no_input: &["--version", "-h", "--help", "--build-info"],
    },
];

pub(super) fn is_client(base: &str) -> bool {
    CLIENTS.iter().any(|c| c.names.contains(&base))
}

/// What one option word is.
enum Word<'a> {
    /// Commands to run: the value's word, or the text after `-e`/`--x=`.
    Text(Option<&'a WordVal>, Option<String>),
    /// A script file (its word, or the text after `--file=`).
    File(Option<&'a WordVal>, Option<String>),
    /// A file written (its word, or the text after `--output=`).
    Writes(Option<&'a WordVal>, Option<String>),
    Value,
    NoInput,
    Other,
}

impl Client {
    fn word<'a>(&self, l: &str, next: Option<&'a WordVal>) -> Word<'a> {
        let matches = |set: &[&str]| -> Option<Option<String>> {
            for o in set {
                if l == *o {
                    return Some(None);
                }
                if let Some(v) = l.strip_prefix(o).and_then(|r| r.strip_prefix('=')) {
                    return Some(Some(v.to_string()));
                }
                // `-eSQL`, `-fFILE`: a one-letter option with its value.
                if o.len() == 2 && !o.starts_with("--") && l.len() > 2 && l.starts_with(o) {
                    return Some(Some(l[2..].to_string()));
                }
                // mysql takes a long option's unambiguous prefix
                // (`--exec=…`).
                if self.dialect == Dialect::MySql
                    && o.starts_with("--")
                    && let Some((name, v)) = l.split_once('=')
                    && name.len() >= 5
                    && o.starts_with(name)
                {
                    return Some(Some(v.to_string()));
                }
            }
            None
        };
        if let Some(v) = matches(self.text) {
            return match v {
                Some(t) => Word::Text(None, Some(t)),
                None => Word::Text(next, None),
            };
        }
        if let Some(v) = matches(self.files) {
            return match v {
                Some(t) => Word::File(None, Some(t)),
                None => Word::File(next, None),
            };
        }
        if let Some(v) = matches(self.writes) {
            return match v {
                Some(t) => Word::Writes(None, Some(t)),
                None => Word::Writes(next, None),
            };
        }
        if self.no_input.contains(&l) {
            return Word::NoInput;
        }
        if self.values.contains(&l) {
            return Word::Value;
        }
        Word::Other
    }
}

impl Analyzer {
    /// `mysql -e SQL`, `psql -c SQL`, `duckdb DB SQL`, `sqlcmd -Q SQL`,
    /// `echo SQL | psql`, …: see the module's documentation.
    pub(super) fn database_client(&mut self, base: &str, argv: &[WordVal]) {
        let Some(client) = CLIENTS.iter().find(|c| c.names.contains(&base)) else {
            return;
        };
        // `mongosh HOST`, `cqlsh HOST`.
        self.host_operands(base, argv);
        let mut texts: Vec<String> = Vec::new();
        let mut computed = false;
        let mut given = false;
        let mut no_input = false;
        let mut operands = 0;
        let mut i = 1;
        while let Some(w) = argv.get(i) {
            i += 1;
            let Some(l) = w.literal.as_deref() else {
                operands += 1;
                computed |=
                    could_be_option(&w.raw) || (client.dialect == Dialect::DuckDb && operands > 1);
                continue;
            };
            match client.word(l, argv.get(i)) {
                Word::Text(word, inline) => {
                    given = true;
                    if word.is_some() {
                        i += 1;
                    }
                    match inline.or_else(|| word.and_then(|w| w.literal.clone())) {
                        Some(t) => texts.push(t),
                        None => computed = true,
                    }
                }
                Word::File(word, inline) => {
                    given = true;
                    let inline_known = inline.is_some();
                    if word.is_some() {
                        i += 1;
                    }
                    match (inline, word) {
                        (Some(f), _) => self.touch(Family::Read, &WordVal::literal(&f)),
                        (None, Some(w)) => self.touch(Family::Read, w),
                        (None, None) => {}
                    }
                    let known = inline_known || word.is_some_and(|w| w.literal.is_some());
                    if !known || self.written_before() {
                        computed = true;
                    }
                }
                Word::Writes(word, inline) => {
                    if word.is_some() {
                        i += 1;
                    }
                    match inline {
                        Some(f) => self.writes(&WordVal::literal(&f)),
                        None => self.writes_value(argv, word),
                    }
                }
                // `mysql --pager=CMD`: the command its output goes to.
                Word::Value if client.dialect == Dialect::MySql && l == "--pager" => {
                    i += 1;
                    match argv.get(i - 1).and_then(|w| w.literal.clone()) {
                        Some(cmd) => self.nested_script(argv, &cmd),
                        None => computed = true,
                    }
                }
                Word::Value => i += 1,
                Word::NoInput => no_input = true,
                Word::Other if client.dialect == Dialect::MySql && l.starts_with("--pager=") => {
                    self.nested_script(argv, &l["--pager=".len()..]);
                }
                Word::Other if l.starts_with('-') && l.len() > 1 => {}
                Word::Other => {
                    operands += 1;
                    match client.dialect {
                        // duckdb's operands after the database are SQL.
                        Dialect::DuckDb if operands > 1 => {
                            given = true;
                            texts.push(l.to_string());
                        }
                        // `sqlplus user/pw@db @script.sql`.
                        Dialect::SqlPlus if l.starts_with('@') => {
                            given = true;
                            if self.written_before() {
                                computed = true;
                            }
                        }
                        // `mongosh URL script.js`.
                        Dialect::Mongo if l.ends_with(".js") || l.ends_with(".mongodb") => {
                            given = true;
                            if self.written_before() {
                                computed = true;
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        let what = format!("{base}'s commands");
        if client.dialect == Dialect::Mongo {
            // mongosh's commands are JavaScript, with Node's modules.
            if !texts.is_empty() || computed || (!given && !no_input && self.input_fed) {
                self.code_acts(argv, &what);
            }
            return;
        }
        for text in &texts {
            for cmd in shell_commands(client.dialect, text) {
                self.nested_script(argv, &cmd);
            }
        }
        if texts.iter().any(|t| acts(client.dialect, t)) {
            return self.code_acts(argv, &what);
        }
        if computed {
            return self.unread_commands(
                argv,
                &format!("{what}, computed at run time or in a file written here,"),
            );
        }
        if !given && !no_input && self.input_fed {
            self.unread_commands(
                argv,
                &format!("{base}, running the commands it reads from its input,"),
            );
        }
    }

    /// A client's commands that cannot be read here: they may run
    /// commands and touch files; the hosts they reach are the database's.
    fn unread_commands(&mut self, argv: &[WordVal], what: &str) {
        self.runs_unwritten(argv, &format!("{what} can run commands"));
        let text = super::programs::short_text(argv);
        for (family, verb) in [(Family::Read, "read"), (Family::Edit, "write")] {
            self.uncertain(
                UncertainKind::Touch(family),
                &text,
                format!("{what} can {verb} any file"),
            );
        }
    }
}

/// The places in `line` where one of a client's commands may start: the
/// line's start and each point after a statement's `;`, trimmed.
fn starts(line: &str) -> impl Iterator<Item = &str> {
    std::iter::once(0)
        .chain(line.match_indices(';').map(|(i, _)| i + 1))
        .map(move |at| line[at..].trim_start())
}

/// `st` after its first word `w` (any case, followed by a blank).
fn after_word<'a>(st: &'a str, w: &str) -> Option<&'a str> {
    let head = st.get(..w.len())?;
    let rest = &st[w.len()..];
    (head.eq_ignore_ascii_case(w) && rest.starts_with([' ', '\t'])).then_some(rest)
}

/// Whether `st` starts with `w`, in any case.
fn starts_with_ci(st: &str, w: &str) -> bool {
    st.get(..w.len()).is_some_and(|h| h.eq_ignore_ascii_case(w))
}

/// psql's backslash commands in `text` (a line may hold several): the
/// name and what follows it.
fn backslash_commands(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.match_indices('\\').map(move |(at, _)| {
        let rest = &text[at + 1..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let (name, after) = if end == 0 {
            rest.split_at(rest.chars().next().map_or(0, char::len_utf8))
        } else {
            rest.split_at(end)
        };
        (name, after)
    })
}

/// The shell commands `text` runs on this machine (`system CMD`, `\!
/// CMD`, `\o |CMD`, `.shell CMD`, `!!CMD`, `HOST CMD`, …); each runs to the
/// end of its line, so the first on a line holds the rest of it.
fn shell_commands(dialect: Dialect, text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        if let Some(cmd) = line_command(dialect, line) {
            let cmd = cmd.trim();
            if !cmd.is_empty() && !out.iter().any(|c| c == cmd) {
                out.push(cmd.to_string());
            }
        }
    }
    out
}

/// The first shell command of `line` (see [`shell_commands`]).
fn line_command(dialect: Dialect, line: &str) -> Option<&str> {
    match dialect {
        Dialect::MySql => {
            let escape = line.find("\\!").map(|at| (at, &line[at + 2..]));
            let system = line
                .match_indices(';')
                .map(|(i, _)| i + 1)
                .chain(std::iter::once(0))
                .filter_map(|at| {
                    let st = line[at..].trim_start();
                    after_word(st, "system").map(|r| (at, r))
                })
                .min_by_key(|(at, _)| *at);
            [escape, system]
                .into_iter()
                .flatten()
                .min_by_key(|(at, _)| *at)
                .map(|(_, r)| r)
        }
        Dialect::Postgres => {
            let st = line.trim_start();
            if starts_with_ci(st, "\\copy") {
                let lower = st.to_ascii_lowercase();
                if let Some(p) = lower.find(" program ")
                    && let Some(inner) = st[p + " program ".len()..]
                        .trim_start()
                        .strip_prefix('\'')
                        .and_then(|q| q.split('\'').next())
                {
                    return Some(inner);
                }
            }
            // Backslash commands may follow one another on a line.
            backslash_commands(line).find_map(|(name, after)| match name {
                "!" => Some(after),
                "gx" | "g" | "out" | "o" | "write" | "w" => after.trim_start().strip_prefix('|'),
                _ => None,
            })
        }
        Dialect::DuckDb => starts(line).find_map(|st| {
            [".shell", ".system", ".sh"]
                .iter()
                .find_map(|dot| after_word(st, dot))
                .or_else(|| {
                    [".output", ".once", ".o"]
                        .iter()
                        .find_map(|dot| after_word(st, dot))
                        .and_then(|r| r.trim_start().strip_prefix('|'))
                })
        }),
        Dialect::SqlCmd => {
            let st = line.trim_start();
            st.strip_prefix(":!!").or_else(|| st.strip_prefix("!!"))
        }
        Dialect::SnowSql => starts(line).find_map(|st| after_word(st, "!system")),
        Dialect::SqlPlus => {
            let st = line.trim_start();
            after_word(st, "host")
                .or_else(|| after_word(st, "ho"))
                .or_else(|| st.strip_prefix('!'))
                .or_else(|| st.strip_prefix('$'))
        }
        Dialect::Cql | Dialect::Mongo => None,
    }
}

/// Whether `text` holds a command of the client's other than a shell
/// command (those are read by [`shell_commands`]) that runs a program
/// unseen, reads or writes a file on this machine, or connects elsewhere.
fn acts(dialect: Dialect, text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    // SQL that reaches files or other servers, anywhere in the text.
    let anywhere: &[&str] = match dialect {
        Dialect::MySql => &[
            "local infile",
            "into outfile",
            "into dumpfile",
            "load_file(",
        ],
        Dialect::Postgres => &[
            "pg_read_file(",
            "pg_read_binary_file(",
            "lo_import(",
            "lo_export(",
            "dblink",
        ],
        Dialect::DuckDb => &[
            "read_",
            "glob(",
            "from '",
            "join '",
            "from \"",
            "'http",
            "'s3://",
            "'gs://",
            "'azure://",
            "'abfss://",
        ],
        Dialect::SqlCmd => &[
            "xp_cmdshell",
            "openrowset(",
            "opendatasource(",
            "bulk insert",
        ],
        Dialect::SqlPlus | Dialect::SnowSql | Dialect::Cql | Dialect::Mongo => &[],
    };
    if anywhere.iter().any(|w| lower.contains(w)) {
        return true;
    }
    // Commands at a statement's start (lower case; a trailing space is a
    // whole word).
    let leading: &[&str] = match dialect {
        Dialect::MySql => &["source ", "tee ", "pager ", "edit", "connect "],
        Dialect::Postgres => &["copy "],
        Dialect::DuckDb => &[
            ".read ",
            ".output ",
            ".once ",
            ".o ",
            ".import ",
            ".open ",
            ".cd ",
            ".log ",
            ".excel",
            ".save ",
            ".backup ",
            ".restore ",
            ".load ",
            ".clone ",
            ".edit",
            "copy ",
            "attach ",
            "install ",
            "load ",
            "export ",
            "import ",
            "force install ",
        ],
        Dialect::SqlCmd => &[
            ":r ",
            ":out ",
            ":error ",
            ":perftrace ",
            ":connect ",
            ":ed",
            ":setvar ",
        ],
        Dialect::SnowSql => &[
            "!source ",
            "!load ",
            "!spool ",
            "!connect ",
            "!edit",
            "!set ",
            "!options ",
        ],
        Dialect::SqlPlus => &[
            "@",
            "start ",
            "sta ",
            "spool ",
            "spo ",
            "connect ",
            "conn ",
            "edit",
            "ed ",
            "get ",
            "save ",
            "store ",
            "define _editor",
        ],
        Dialect::Cql => &["copy ", "source ", "capture "],
        Dialect::Mongo => &[],
    };
    let copy_reaches = |st: &str| {
        // `COPY t FROM STDIN` and `COPY t TO STDOUT` stay in the client;
        // a quoted file or a program is on the server's machine.
        let statement = st.split(';').next().unwrap_or(st).to_ascii_lowercase();
        dialect != Dialect::Postgres || statement.contains("program") || statement.contains('\'')
    };
    let starts_acting = text.lines().flat_map(starts).any(|st| {
        leading.iter().any(|w| {
            (st.eq_ignore_ascii_case(w.trim_end()) || starts_with_ci(st, w))
                && (!w.starts_with("copy") || copy_reaches(st))
        })
    });
    if starts_acting {
        return true;
    }
    // mysql's one-letter commands, wherever they stand (case matters):
    // `\.` source, `\T` tee, `\P` pager, `\e` edit, `\r` connect.
    if dialect == Dialect::MySql {
        return text
            .match_indices('\\')
            .any(|(at, _)| text[at + 1..].starts_with(['.', 'T', 'P', 'e', 'r']));
    }
    // psql's own commands, wherever they stand on a line (case matters).
    dialect == Dialect::Postgres
        && text.lines().any(|line| {
            backslash_commands(line).any(|(name, after)| {
                let arg = after.trim_start();
                let has_arg = !arg.is_empty() && !arg.starts_with('\\') && !arg.starts_with(';');
                match name {
                    "i" | "ir" | "include" | "include_relative" | "c" | "connect" | "setenv"
                    | "e" | "edit" | "ef" | "ev" | "lo_import" | "lo_export" | "cd" => true,
                    // `\copy t from stdin` stays in the client; a file or a
                    // program does not.
                    "copy" => {
                        let a = after.to_ascii_lowercase();
                        a.contains("program")
                            || !["stdin", "stdout", "pstdin", "pstdout"]
                                .iter()
                                .any(|s| a.contains(s))
                    }
                    "o" | "out" | "w" | "write" | "g" | "gx" | "s" => has_arg,
                    _ => false,
                }
            })
        })
}
