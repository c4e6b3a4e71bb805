//! Variables, however bash sets them, and what they make programs do.
//!
//! Every way of assigning comes here: a prefix or plain assignment, `export`,
//! `declare`, `typeset`, `readonly` and `local` with any value, `env NAME=…`,
//! `read`, `printf -v`, `mapfile`, `getopts`, `wait -p`, `for NAME in …`.
//! [`Analyzer::variable_set`] applies the same checks to each: what the name
//! can change ([`super::words::variable_danger`]), the hosts it names
//! ([`Analyzer::assigned_value`]), the code it holds
//! ([`Analyzer::code_variable`]), and the file it names for a program to
//! read or write ([`named_file`]), which meets the Read and Edit rules and
//! the protected paths as that read or write would. A value known only at
//! run time leaves each of them unknown. A name known only at run time
//! (`export "$k=$v"`, `export $(cat .env)`, a name reference) may be any
//! variable: [`Analyzer::unknown_variable_set`].

use std::path::PathBuf;

use super::{Analyzer, Cwds, Family, Item, UncertainKind, WordVal};

/// What a program does with the file (or directory) an environment variable
/// names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NamedFile {
    /// It reads the file: a startup file run (`BASH_ENV`, `ENV`,
    /// `PYTHONSTARTUP`), a configuration (`INPUTRC`, `WGETRC`, `PSQLRC`,
    /// `KUBECONFIG`, `GIT_CONFIG_GLOBAL`).
    Read,
    /// It reads these files in the directory (`CURL_HOME`'s `.curlrc`,
    /// `ZDOTDIR`'s startup files).
    ReadIn(&'static [&'static str]),
    /// It writes the file, and reads it back (`GIT_INDEX_FILE`).
    Written,
    /// It writes files of its own naming inside the directory (`TMPDIR`,
    /// `GIT_OBJECT_DIRECTORY`, `PYTHONPYCACHEPREFIX`).
    WrittenInside,
    /// Options of node's, some of which name a file it loads
    /// (`NODE_OPTIONS='--require ./x'`).
    NodeOptions,
}

/// The variables that name a file a program reads or writes (a log file
/// written is [`super::words::writes_named_file`]'s).
fn named_file(name: &str) -> Option<NamedFile> {
    const READ: &[&str] = &[
        "BASH_ENV",
        "ENV",
        "INPUTRC",
        "PYTHONSTARTUP",
        "WGETRC",
        "SYSTEM_WGETRC",
        "PSQLRC",
        "MYSQL_HISTFILE",
        "GIT_CONFIG",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "KUBECONFIG",
        "NETRC",
        "MYVIMRC",
        "LESSKEY",
        "LESSKEYIN",
        "RIPGREP_CONFIG_PATH",
        "PIP_CONFIG_FILE",
        "NPM_CONFIG_USERCONFIG",
        "NPM_CONFIG_GLOBALCONFIG",
        // npm reads its variables in any case.
        "npm_config_userconfig",
        "npm_config_globalconfig",
        "AWS_CONFIG_FILE",
        "AWS_SHARED_CREDENTIALS_FILE",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "PGPASSFILE",
        "PGSERVICEFILE",
        "DOCKER_CONFIG",
        "SSL_CERT_FILE",
        "CURL_CA_BUNDLE",
        "REQUESTS_CA_BUNDLE",
        "NODE_EXTRA_CA_CERTS",
        "OPENSSL_CONF",
    ];
    const WRITTEN_INSIDE: &[&str] = &[
        "TMPDIR",
        "TMP",
        "TEMP",
        "TEMPDIR",
        "GIT_OBJECT_DIRECTORY",
        "PYTHONPYCACHEPREFIX",
        "NODE_COMPILE_CACHE",
        "CARGO_TARGET_DIR",
    ];
    // Programs read these names as written (`env=x` is not sh's `ENV`).
    match name {
        "NODE_OPTIONS" => Some(NamedFile::NodeOptions),
        "GIT_INDEX_FILE" => Some(NamedFile::Written),
        "CURL_HOME" => Some(NamedFile::ReadIn(&[".curlrc", ".config/curlrc"])),
        "ZDOTDIR" => Some(NamedFile::ReadIn(&[
            ".zshenv",
            ".zprofile",
            ".zshrc",
            ".zlogin",
        ])),
        u if READ.contains(&u) => Some(NamedFile::Read),
        u if WRITTEN_INSIDE.contains(&u) => Some(NamedFile::WrittenInside),
        // `KUBECONFIG_FILE`, `APP_CONFIG_FILE`, `ENV_FILE`: a file read.
        u if ["_CONFIG_FILE", "_CONFIG_PATH", "_ENV_FILE", "RCFILE"]
            .iter()
            .any(|s| u.len() > s.len() && u.ends_with(s))
            || u == "ENV_FILE" =>
        {
            Some(NamedFile::Read)
        }
        _ => None,
    }
}

/// node's options that name a module or a file it reads: `--require X`,
/// `-r X`, `--import X`, `--loader X`, `--env-file X` (also `--opt=X`).
const NODE_FILE_OPTIONS: &[&str] = &[
    "--require",
    "-r",
    "--import",
    "--loader",
    "--experimental-loader",
    "--env-file",
    "--env-file-if-exists",
];

/// The variables whose value `git config --global`/`--system` and the
/// getters follow to a file (see [`Analyzer::env_value`]).
const LOCATING: &[&str] = &[
    "HOME",
    "XDG_CONFIG_HOME",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
];

/// What a variable that locates a file holds (see [`LOCATING`]).
#[derive(Debug, Clone, Default)]
pub(super) struct Located {
    /// Each assignment so far, in order: the name and its value, None when
    /// known only at run time.
    values: Vec<(String, Option<String>)>,
}

impl Analyzer {
    /// A variable `name` set (see the module's documentation); `value` is
    /// None when the run alone knows it (`read NAME`, `printf -v NAME`).
    pub(super) fn variable_set(&mut self, name: &str, value: Option<&WordVal>) {
        self.assigned_name(name);
        let unknown = WordVal::dynamic(format!("${name}"));
        let value = value.unwrap_or(&unknown);
        self.code_variable(name, value);
        self.named_file_variable(name, value);
        if LOCATING.contains(&name) {
            self.located
                .values
                .push((name.to_string(), value.literal.clone()));
        }
        if name == "HOME" {
            // `~` and a bare `cd` follow the shell's HOME from now on.
            self.home = self.home_from(value);
        }
    }

    /// A variable whose name is known only at run time (`export "$k=$v"`,
    /// `export $(cat .env)`, `declare -n ref=…`, `printf -v "$n"`): it may
    /// be any variable, one that runs a command, names a proxy or names a
    /// file read or written.
    pub(super) fn unknown_variable_set(&mut self, text: &str) {
        self.uncertain(
            UncertainKind::Command,
            text,
            "a variable name or expression computed at run time can run commands when evaluated",
        );
        self.uncertain(
            UncertainKind::Host,
            text,
            "the variable set is known only at run time, and a proxy or a server variable names the host reached",
        );
        for family in [Family::Read, Family::Edit] {
            self.uncertain(
                UncertainKind::Touch(family),
                text,
                "the variable set is known only at run time, and one that names a file makes a program read or write it",
            );
        }
    }

    /// The file a variable names, read or written where the program that
    /// sees it runs: checked as that read or write (a write only against
    /// Edit deny and ask rules and the protected paths: the program writes
    /// files of its own anyway, the variable only says where).
    fn named_file_variable(&mut self, name: &str, value: &WordVal) {
        let Some(kind) = named_file(name) else {
            return;
        };
        if value.literal.as_deref() == Some("") {
            return;
        }
        match kind {
            NamedFile::Read => self.variable_reads(name, value),
            NamedFile::ReadIn(files) => match &value.literal {
                Some(dir) => {
                    for f in files {
                        let mut w = WordVal::literal(&format!("{}/{f}", dir.trim_end_matches('/')));
                        w.tilde = value.tilde;
                        self.variable_reads(name, &w);
                    }
                }
                None => self.variable_reads(name, value),
            },
            NamedFile::Written => {
                self.variable_reads(name, value);
                self.variable_writes(name, value, false);
            }
            NamedFile::WrittenInside => self.variable_writes(name, value, true),
            NamedFile::NodeOptions => self.node_options_files(name, value),
        }
    }

    /// A file read through a variable: checked against the Read rules.
    fn variable_reads(&mut self, name: &str, value: &WordVal) {
        match &value.literal {
            // `KUBECONFIG=a:b` names several.
            Some(l) => {
                for part in l.split(':').filter(|p| !p.is_empty()) {
                    let mut w = WordVal::literal(part);
                    w.tilde = part.starts_with('~');
                    self.touch(Family::Read, &w);
                }
            }
            None => self.uncertain(
                UncertainKind::Touch(Family::Read),
                &format!("{name}={}", value.raw),
                format!("{name} names a file a program reads, known only at run time"),
            ),
        }
    }

    /// A file written (or files written inside a directory) through a
    /// variable: Edit deny and ask rules, and the protected paths.
    fn variable_writes(&mut self, name: &str, value: &WordVal, inside: bool) {
        let Some(lit) = &value.literal else {
            return self.uncertain(
                UncertainKind::Touch(Family::Edit),
                &format!("{name}={}", value.raw),
                format!("{name} names where a program writes, known only at run time"),
            );
        };
        let paths = match self.resolve_word_path(lit, value.tilde, false) {
            Ok(paths) => paths,
            Err(reason) => return self.uncertain(UncertainKind::Touch(Family::Edit), lit, reason),
        };
        for path in paths {
            if inside {
                self.push(Item::EditInside {
                    written: lit.clone(),
                    path,
                    restrict_only: true,
                });
            } else {
                self.push(Item::Touch {
                    family: Family::Edit,
                    written: lit.clone(),
                    path: path.clone(),
                    recursive: false,
                });
                self.push(Item::Written {
                    written: lit.clone(),
                    path,
                });
            }
        }
    }

    /// `NODE_OPTIONS='--require ./x.js'`: each file node loads is read.
    fn node_options_files(&mut self, name: &str, value: &WordVal) {
        let Some(text) = &value.literal else {
            return self.uncertain(
                UncertainKind::Touch(Family::Read),
                &format!("{name}={}", value.raw),
                "NODE_OPTIONS may name files node loads, known only at run time",
            );
        };
        let words: Vec<&str> = text.split_whitespace().collect();
        let mut i = 0;
        while let Some(w) = words.get(i) {
            i += 1;
            let file = match w.split_once('=') {
                Some((o, v)) if NODE_FILE_OPTIONS.contains(&o) => Some(v),
                _ if NODE_FILE_OPTIONS.contains(w) => {
                    i += 1;
                    words.get(i - 1).copied()
                }
                // `-r./x`
                _ => w
                    .strip_prefix("-r")
                    .filter(|v| !v.is_empty() && !w.starts_with("--")),
            };
            if let Some(f) = file.filter(|f| !f.is_empty()) {
                let mut v = WordVal::literal(f);
                v.tilde = f.starts_with('~');
                self.touch(Family::Read, &v);
            }
        }
    }

    /// The shell's HOME after an assignment of `value`: where `~` leads,
    /// unknown when the value (or the directory it is relative to) is.
    fn home_from(&self, value: &WordVal) -> Option<PathBuf> {
        let lit = value.literal.as_deref()?;
        let path = if value.tilde {
            self.home
                .as_ref()?
                .join(lit.trim_start_matches('~').trim_start_matches('/'))
        } else {
            PathBuf::from(lit)
        };
        if path.is_absolute() {
            return Some(path);
        }
        match &self.cwds {
            Cwds::Known(dirs) if dirs.len() == 1 => {
                Some(crate::paths::lexical(&path, dirs.first()?))
            }
            _ => None,
        }
    }

    /// The value the command last gave one of the variables that locate
    /// git's configuration ([`LOCATING`]): None when it did not set it,
    /// `Some(None)` when the value is known only at run time.
    pub(super) fn env_value(&self, name: &str) -> Option<Option<String>> {
        self.located
            .values
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }

    /// How many located values are kept so far (see
    /// [`Analyzer::located_forget`]).
    pub(super) fn located_mark(&self) -> usize {
        self.located.values.len()
    }

    /// Forget the values set from `from` to `to`: a command's prefix
    /// assignments, which hold for that command alone.
    pub(super) fn located_forget(&mut self, from: usize, to: usize) {
        if from < to && to <= self.located.values.len() {
            self.located.values.drain(from..to);
        }
    }
}
