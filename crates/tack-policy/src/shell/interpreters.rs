//! Code for another language written in the command: `python3 -c CODE`,
//! `perl -e CODE`, `node -e CODE`, `ruby -e CODE`, `php -r CODE`, ….
//!
//! The interpreter itself must be allowed like any program, and allowing it
//! is consenting to code (see [`crate::wide`]). But deny and ask rules say
//! what must not run whatever is allowed: `deny Bash(rm *)` would mean
//! nothing if `python3 -c 'import os; os.system("rm -rf x")'` ran because
//! `Bash(python3 *)` is allowed, and `deny Read(./.env)` nothing if
//! `python3 -c 'print(open(".env").read())'` did. So code that may run a
//! command, read or write a file is uncertain in those three ways; each
//! matters only where rules of its kind exist (Bash deny/ask rules, Read or
//! Edit deny/ask rules).
//!
//! Which code can do none of that: Python is checked against an allowlist
//! ([`python_is_inert`]): modules that do no IO, names and attributes that
//! reach nothing else; a name the code binds itself is its own. Perl is
//! checked against the functions and forms that act ([`perl_may_act`]).
//! Any other language's code is taken to act.

use super::options::{self, Spec, could_be_option};
use super::{Analyzer, Family, UncertainKind, WordVal};

/// JavaScript runtimes' options that take code.
const JS_CODE: &[&str] = &["-e", "--eval", "-p", "--print"];
/// PowerShell's options that take code.
const POWERSHELL_CODE: &[&str] = &[
    "-c",
    "-command",
    "-Command",
    "-encodedcommand",
    "-EncodedCommand",
];

/// Interpreters whose inline code is taken to act, and their options that
/// take it (`-e CODE`; a cluster ending in `e` too, `ruby -ne CODE`).
const OTHER_INTERPRETERS: &[(&str, &[&str], Option<char>)] = &[
    ("node", JS_CODE, Some('e')),
    ("nodejs", JS_CODE, Some('e')),
    ("bun", JS_CODE, Some('e')),
    ("deno", &["eval"], None),
    ("ruby", &["-e"], Some('e')),
    ("php", &["-r", "-B", "-R", "-E"], Some('r')),
    ("lua", &["-e"], Some('e')),
    ("luajit", &["-e"], Some('e')),
    ("Rscript", &["-e", "--expr"], Some('e')),
    ("R", &["-e"], Some('e')),
    ("tclsh", &[], None),
    ("pwsh", POWERSHELL_CODE, None),
    ("powershell", POWERSHELL_CODE, None),
    ("osascript", &["-e"], Some('e')),
    ("jshell", &[], None),
    (
        "gdb",
        &[
            "-ex",
            "-iex",
            "-x",
            "-ix",
            "--ex",
            "--eval-command",
            "-eval-command",
            "--command",
            "-command",
            "--init-command",
            "--init-eval-command",
        ],
        None,
    ),
    (
        "lldb",
        &[
            "-o",
            "--one-line",
            "-s",
            "--source",
            "-O",
            "--one-line-before-file",
            "-S",
            "--source-before-file",
            "-k",
            "--one-line-on-crash",
            "-K",
            "--source-on-crash",
        ],
        None,
    ),
    (
        "emacs",
        &[
            "--eval",
            "-eval",
            "--execute",
            "-l",
            "--load",
            "-f",
            "--funcall",
            "--script",
            "-x",
        ],
        None,
    ),
    ("ed", &[], None),
    // dc's `!` runs a shell command; m4's `syscmd`/`esyscmd` do.
    ("dc", &["-e", "--expression"], Some('e')),
    ("m4", &["-D", "--define"], Some('D')),
    ("sqlite3", &["-cmd", "-init"], None),
];

/// Interpreters each of whose operands is a file of code (m4's input
/// files, dc's scripts): `-` among them is code read from the input.
const EVERY_OPERAND_CODE: &[&str] = &["m4", "dc"];

/// sqlite3's dot-commands and SQL functions that run a command, read or
/// write a file or load code.
const SQLITE_ACTS: &[&str] = &[
    ".shell",
    ".system",
    ".output",
    ".once",
    ".load",
    ".import",
    ".save",
    ".backup",
    ".restore",
    ".excel",
    ".read",
    ".cd",
    ".open",
    ".log",
    ".dump",
    ".clone",
    ".archive",
    ".ar ",
    ".edit",
    "writefile",
    "readfile",
    "edit(",
    "load_extension",
    "attach",
    "vacuum",
];

/// Whether `base` names a Python interpreter (`python`, `python3.12`,
/// `pypy3`).
pub(super) fn is_python(base: &str) -> bool {
    let rest = base
        .strip_prefix("python")
        .or_else(|| base.strip_prefix("pypy"));
    rest.is_some_and(|r| r.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// Whether `base` is an interpreter whose inline code is taken to act.
pub(super) fn is_other_interpreter(base: &str) -> bool {
    OTHER_INTERPRETERS.iter().any(|(name, ..)| *name == base)
}

impl Analyzer {
    /// Code that may run commands, read and write files, none of it
    /// checkable here.
    pub(super) fn code_acts(&mut self, argv: &[WordVal], what: &str) {
        // A protected path the code names is taken as written: the
        // safeguard holds whatever the rules (`python3 -m timeit
        // "open('.git/hooks/pre-commit','w')…"`).
        for w in argv.iter().skip(1) {
            if let Some(code) = w.literal.as_deref() {
                self.protected_words(code);
            }
        }
        self.runs_unwritten(argv, &format!("{what} can run commands"));
        let text = super::programs::short_text(argv);
        self.uncertain(
            UncertainKind::Touch(Family::Read),
            &text,
            format!("{what} can read any file"),
        );
        self.uncertain(
            UncertainKind::Touch(Family::Edit),
            &text,
            format!("{what} can write any file"),
        );
        // A host it builds at run time (`'http://'+'evil.com'`, a socket)
        // gets past the `WebFetch(domain:…)` rules as a command would.
        self.uncertain(
            UncertainKind::Host,
            &text,
            format!("{what} can reach any host"),
        );
    }

    /// `python3 [options] -c CODE …`: the code checked. Code read from
    /// the input (no script, `-`, `-i`) is taken to act; a script file or a
    /// module (`-m`) is code not written here, as for any program.
    pub(super) fn python(&mut self, argv: &[WordVal]) {
        let mut interactive = false;
        let mut isolated = false;
        let mut i = 1;
        while let Some(w) = argv.get(i) {
            i += 1;
            let Some(l) = w.literal.as_deref() else {
                if could_be_option(&w.raw) {
                    self.code_acts(
                        argv,
                        "python, given options computed at run time (-c CODE),",
                    );
                }
                return;
            };
            match l {
                "--version" | "--help" => return,
                "-" => break,
                "--" => {
                    if argv.get(i).is_some() && !interactive {
                        return;
                    }
                    break;
                }
                _ if l.starts_with("--") => continue,
                _ if !l.starts_with('-') => {
                    if interactive {
                        break;
                    }
                    return;
                }
                _ => {}
            }
            let cluster = &l[1..];
            for (k, c) in cluster.char_indices() {
                let rest = &cluster[k + c.len_utf8()..];
                match c {
                    'c' => {
                        let code = if rest.is_empty() {
                            argv.get(i).and_then(|w| w.literal.clone())
                        } else {
                            Some(rest.to_string())
                        };
                        let inert = code.is_some_and(|code| {
                            python_is_inert(&code)
                                && (isolated || !code.contains("import") || !self.python_shadowed())
                        });
                        if interactive || !inert {
                            self.code_acts(argv, "the Python code");
                        }
                        return;
                    }
                    'm' => {
                        let (module, next) = if rest.is_empty() {
                            (argv.get(i).and_then(|w| w.literal.clone()), i + 1)
                        } else {
                            (Some(rest.to_string()), i)
                        };
                        match module {
                            Some(m) => self.python_module(argv, &m, next),
                            None => {
                                self.code_acts(argv, "python, running a module named at run time,")
                            }
                        }
                        return;
                    }
                    'V' | 'h' | '?' => return,
                    'i' => interactive = true,
                    // The working directory is not put on the module path.
                    'I' | 'P' => isolated = true,
                    'W' | 'X' | 'Q' => {
                        if rest.is_empty() {
                            i += 1;
                        }
                        break;
                    }
                    _ => {}
                }
            }
        }
        self.code_acts(argv, "python, reading code from its input,");
    }

    /// Whether the standard library's modules may be the project's here:
    /// python puts the working directory first on the module path (`-c`,
    /// `-m`, code from the input), so `json.py`, `re.py` or a `json/`
    /// package there is what `import json` runs, and what json imports
    /// in turn. So one of them in a directory the command may run in, a
    /// directory not known, or a file written earlier in the command
    /// (`echo … > json.py; python3 -c 'import json'`) makes code that
    /// imports act.
    fn python_shadowed(&self) -> bool {
        let super::Cwds::Known(dirs) = &self.cwds else {
            return true;
        };
        self.written_before()
            || dirs.iter().any(|dir| {
                std::fs::read_dir(dir).is_ok_and(|entries| {
                    entries.flatten().any(|e| {
                        let name = e.file_name();
                        let name = name.to_string_lossy();
                        let (stem, ext) = name.split_once('.').unwrap_or((&name, ""));
                        let module = match ext {
                            "" => e.path().join("__init__.py").exists(),
                            _ => ext == "py" || ext == "pyc" || ext.ends_with("so"),
                        };
                        module && (PY_MODULES.contains(&stem) || PY_IMPORTED_TOO.contains(&stem))
                    })
                })
            })
    }

    /// `python3 -m MODULE ARGS…`, `ARGS` from `argv[next..]`. A module run
    /// this way is a program like any other (its operands judged as a
    /// program's; a module of the repository is code not written here, as
    /// a script file is), except the standard library's modules that take
    /// code on their command line or input (`timeit`, `pdb`, `code`,
    /// `trace`, `asyncio`, …: the code acts, as `-c` code does, unless
    /// `timeit`'s statements are inert; `cProfile -m` runs a module the
    /// same way), that serve
    /// a directory (`http.server`: everything under it is read) or that
    /// write files their operands name only in part (`zipfile -e`,
    /// `tarfile -e`, `venv`, `json.tool IN OUT`, `cProfile -o`).
    pub(super) fn python_module(&mut self, argv: &[WordVal], module: &str, next: usize) {
        let args = argv.get(next..).unwrap_or(&[]);
        let lit = |k: usize| args.get(k).and_then(|w| w.literal.as_deref());
        let what = format!("the code given to python's {module} module");
        let top = module.split('.').next().unwrap_or(module);
        if (PY_MODULES.contains(&top) || top == "timeit") && self.python_shadowed() {
            // `echo … > json.py; python3 -m json.tool`: the project's json.
            return self.code_acts(
                argv,
                &format!("python's {module}, which a file here may be,"),
            );
        }
        match module {
            "timeit" => {
                let p = options::parse(
                    args,
                    &Spec {
                        flags: "pvh",
                        with_arg: "nrsu",
                        long_with_arg: &["--number", "--repeat", "--setup", "--unit"],
                        long_flags: &["--process", "--verbose", "--help"],
                        ..Spec::default()
                    },
                );
                let setups = p
                    .values(&["-s", "--setup"])
                    .map(|v| v.and_then(|w| w.literal.clone()));
                let statements = p.operands.iter().map(|w| w.literal.clone());
                let inert = !p.dynamic
                    && setups
                        .chain(statements)
                        .collect::<Vec<_>>()
                        .iter()
                        .all(|c| c.as_deref().is_some_and(python_is_inert));
                if !inert {
                    self.code_acts(argv, &what);
                }
            }
            "cProfile" | "profile" => {
                // `-o FILE` written; `-m MODULE ARGS` run as `python3 -m`
                // would; a script is code not written here, as for python.
                let mut k = 0;
                while let Some(w) = args.get(k) {
                    k += 1;
                    match w.literal.as_deref() {
                        Some("-o" | "--outfile") => {
                            if let Some(out) = args.get(k) {
                                let out = out.clone();
                                self.edit_target(&out);
                            }
                            k += 1;
                        }
                        Some("-s" | "--sort") => k += 1,
                        Some("-m") => {
                            return match lit(k) {
                                Some(m) => self.python_module(argv, m, next + k + 1),
                                None => self.code_acts(argv, &what),
                            };
                        }
                        Some(l) if l.starts_with('-') => {}
                        Some(_) => return,
                        None => return self.code_acts(argv, &what),
                    }
                }
            }
            "pdb" | "code" | "trace" | "asyncio" | "IPython" | "idlelib" | "idle" | "sqlite3" => {
                self.code_acts(argv, &what);
            }
            "http.server" => {
                let mut dir = ".".to_owned();
                for (k, w) in args.iter().enumerate() {
                    match w.literal.as_deref() {
                        Some("-d" | "--directory") => match lit(k + 1) {
                            Some(d) => dir = d.to_owned(),
                            None => return self.code_acts(argv, &what),
                        },
                        Some(l) if l.starts_with("--directory=") => {
                            dir = l["--directory=".len()..].to_owned();
                        }
                        Some("--cgi") => self.code_acts(argv, &what),
                        None => return self.code_acts(argv, &what),
                        _ => {}
                    }
                }
                self.touch_inside(&WordVal::literal(&dir));
            }
            "zipfile" | "tarfile" => {
                // `-e ARCHIVE DIR`: the archive's names written in DIR;
                // `-c ARCHIVE FILES…`: the archive written.
                match (lit(0), args.get(1), args.get(2)) {
                    (Some("-e" | "--extract"), _, Some(dir)) => {
                        let dir = dir.clone();
                        self.writes_inside(&dir);
                    }
                    (Some("-e" | "--extract"), _, None) => {
                        self.writes_inside(&WordVal::literal("."));
                    }
                    (Some("-c" | "--create"), Some(archive), _) => {
                        let archive = archive.clone();
                        self.edit_target(&archive);
                        // What goes in is read, directories whole.
                        for source in args.get(2..).unwrap_or(&[]).to_vec() {
                            self.touch_inside(&source);
                        }
                    }
                    (Some("-l" | "--list" | "-t" | "--test"), _, _) => {}
                    _ => self.writes_unknown(argv, "cannot tell what this archive module writes"),
                }
            }
            "venv" | "virtualenv" => {
                // A tree of its own making: only rules that speak for
                // something inside count.
                for w in args {
                    if w.literal.as_deref().is_none_or(|l| !l.starts_with('-')) {
                        let w = w.clone();
                        self.changes_inside(&w);
                    }
                }
            }
            // The standard library's network clients: `telnetlib HOST
            // PORT`, `ftplib [-d] HOST`, `poplib HOST USER PASS`,
            // `imaplib [-d N] HOST`, `nntplib -s HOST`.
            "telnetlib" | "ftplib" | "poplib" | "imaplib" | "nntplib" => {
                let mut words = vec![WordVal::literal(module)];
                words.extend(args.iter().cloned());
                if module == "nntplib" {
                    self.host_options(module, &words);
                } else {
                    self.host_operands(module, &words);
                }
            }
            "json.tool" => {
                let p = options::parse(
                    args,
                    &Spec {
                        long_with_arg: &["--indent"],
                        long_flags: &[
                            "--sort-keys",
                            "--no-ensure-ascii",
                            "--json-lines",
                            "--tab",
                            "--no-indent",
                            "--compact",
                        ],
                        ..Spec::default()
                    },
                );
                if let Some(out) = p.operands.get(1) {
                    let out = out.clone();
                    self.edit_target(&out);
                }
            }
            _ => {}
        }
    }

    /// `expect [-dinNv] [-D N] [-c CODE]… [[-f|-b] SCRIPT | SCRIPT | -]
    /// [args]`: Tcl code in `-c` acts (it runs at once, while the options
    /// are read), and so does code read from the input (`-i`, `-`, no
    /// script) or options computed at run time; a script file is code not
    /// written here, as for any program.
    pub(super) fn expect(&mut self, argv: &[WordVal]) {
        const EXPECT: Spec = Spec {
            flags: "dinNv",
            with_arg: "bcfD",
            optional_arg: "",
            long_flags: &[],
            long_with_arg: &[],
            long_optional: &[],
            posix: true,
            abbreviations: false,
        };
        let p = options::parse(&argv[1..], &EXPECT);
        if p.dynamic || !p.unknown.is_empty() {
            return self.code_acts(argv, "expect, given options it may read as -c CODE,");
        }
        if p.has(&["-c"]) {
            return self.code_acts(argv, "the expect (Tcl) code");
        }
        if p.has(&["-v"]) {
            return;
        }
        let script = p
            .values(&["-f", "-b"])
            .last()
            .map(|v| v.and_then(|w| w.literal.as_deref()))
            .unwrap_or_else(|| {
                p.operands
                    .first()
                    .map(|w| w.literal.as_deref().unwrap_or(""))
            });
        if p.has(&["-i"]) || matches!(script, None | Some("-")) {
            self.code_acts(argv, "expect, reading code from its input,");
        }
    }

    /// Another interpreter: inline code is taken to act, and so is code
    /// it reads from its input (no script named) or options computed at
    /// run time.
    pub(super) fn other_interpreter(&mut self, base: &str, argv: &[WordVal]) {
        let Some((_, options, letter)) = OTHER_INTERPRETERS.iter().find(|(n, ..)| *n == base)
        else {
            return;
        };
        if base == "ed" {
            // ed reads its commands (`!cmd`, `w file`) from its input.
            if !argv[1..].iter().any(|w| {
                matches!(
                    w.literal.as_deref(),
                    Some("-V" | "--version" | "-h" | "--help")
                )
            }) {
                self.code_acts(argv, "ed, running the commands it reads from its input,");
            }
            return;
        }
        if base == "sqlite3" {
            return self.sqlite(argv);
        }
        let mut script = false;
        // gdb and lldb read commands from their input whatever program
        // they are given, unless told to quit once their options are done.
        let mut commands_from_input = matches!(base, "gdb" | "lldb");
        for w in &argv[1..] {
            let Some(l) = w.literal.as_deref() else {
                if could_be_option(&w.raw) {
                    return self.code_acts(
                        argv,
                        &format!("{base}, given options computed at run time,"),
                    );
                }
                script = true;
                continue;
            };
            if l == "-" && (!script || EVERY_OPERAND_CODE.contains(&base)) {
                // `perl -`, `node - arg`, `m4 defs.m4 -`: the program text
                // is the input, written in this command or piped in.
                return self.code_acts(argv, &format!("{base}, reading code from its input,"));
            }
            match (base, l) {
                ("gdb", "-batch" | "--batch") | ("lldb", "-b" | "--batch") => {
                    commands_from_input = false;
                }
                ("node" | "nodejs" | "bun", "inspect" | "debug" | "-i" | "--interactive")
                    if !script =>
                {
                    commands_from_input = true;
                }
                ("lua" | "luajit", "-i") | ("php", "-a") | ("ruby", "-rdebug") => {
                    commands_from_input = true;
                }
                _ => {}
            }
            let (name, _) = l.split_once('=').unwrap_or((l, ""));
            let clustered = letter.is_some_and(|c| {
                l.len() > 2 && !l.starts_with("--") && l.starts_with('-') && l.ends_with(c)
            });
            if options.contains(&name) || clustered || (base == "deno" && l == "repl") {
                return self.code_acts(argv, &format!("the {base} code"));
            }
            if matches!(
                l,
                "-v" | "-V" | "--version" | "-version" | "-h" | "--help" | "-help"
            ) {
                return;
            }
            script |= !l.starts_with('-');
        }
        if !script {
            self.code_acts(argv, &format!("{base}, reading code from its input,"));
        } else if commands_from_input {
            self.commands_from_input(argv, base);
        }
    }

    /// A debugger, a REPL or an editor that reads its commands from its
    /// input whatever program or file it is given (`gdb PROG`, `perl -d
    /// s.pl`, `node inspect s.js`, `vim -es f`, vi reading keys): when the
    /// command line feeds that input (a pipe, `<`, a here-document or
    /// here-string) the commands are code written here or piped in, and
    /// they act as inline code does (`gdb -q PROG <<< 'shell rm x'`).
    pub(super) fn commands_from_input(&mut self, argv: &[WordVal], what: &str) {
        if self.input_fed {
            self.code_acts(
                argv,
                &format!("{what}, running the commands it reads from its input,"),
            );
        }
    }
}

impl Analyzer {
    /// `sqlite3 [options] [DB [SQL…]]`: SQL and dot-commands given as
    /// arguments are checked for those that act ([`SQLITE_ACTS`]); with no
    /// SQL it runs what it reads from its input.
    fn sqlite(&mut self, argv: &[WordVal]) {
        const WITH_VALUE: &[&str] = &[
            "-cmd",
            "-init",
            "-separator",
            "-newline",
            "-nullvalue",
            "-escape",
            "-vfs",
            "-maxsize",
            "-pagecache",
            "-lookaside",
            "-mmap",
            "-heap",
            "-A",
            "-archive",
        ];
        let mut operands = 0;
        let mut i = 1;
        while let Some(w) = argv.get(i) {
            i += 1;
            let Some(l) = w.literal.as_deref() else {
                return self.code_acts(argv, "sqlite3, given words computed at run time,");
            };
            if matches!(l, "-version" | "--version" | "-help" | "--help") {
                return;
            }
            let name = l.trim_start_matches('-');
            if l.starts_with('-') && WITH_VALUE.contains(&format!("-{name}").as_str()) {
                let value = argv.get(i).and_then(|v| v.literal.as_deref());
                i += 1;
                if matches!(name, "init" | "A" | "archive")
                    || (name == "cmd" && value.is_none_or(sqlite_acts))
                {
                    return self.code_acts(argv, "sqlite3's commands");
                }
                continue;
            }
            if l.starts_with('-') {
                continue;
            }
            operands += 1;
            if operands > 1 && sqlite_acts(l) {
                return self.code_acts(argv, "the sqlite3 commands");
            }
        }
        if operands < 2 {
            self.code_acts(
                argv,
                "sqlite3, running the commands it reads from its input,",
            );
        }
    }
}

impl Analyzer {
    /// `make --eval=TEXT` and a makefile read from the input run code
    /// written here or piped in (a makefile on disk is code not written
    /// here, as a script is).
    pub(super) fn make(&mut self, argv: &[WordVal]) {
        let mut i = 1;
        while let Some(w) = argv.get(i) {
            i += 1;
            let Some(l) = w.literal.as_deref() else {
                if could_be_option(&w.raw) {
                    return self.code_acts(argv, "make, given options computed at run time,");
                }
                if make_variable(&w.raw).is_some() {
                    return self
                        .code_acts(argv, "make, given a variable's value computed at run time,");
                }
                continue;
            };
            if l == "--" {
                break;
            }
            if let Some((name, value)) = make_variable(l)
                && (MAKE_RUNS_RECIPES_WITH.contains(&name) || value.contains(SHELL_SYNTAX))
            {
                // `make SHELL=/bin/rm`, `make 'LINK.c=rm x;:' x`: a
                // variable set here is make code, which recipes run.
                return self.code_acts(argv, &format!("make's {name}, which its recipes run,"));
            }
            let file = match l {
                "-f" | "--file" | "--makefile" => {
                    i += 1;
                    argv.get(i - 1).and_then(|v| v.literal.as_deref())
                }
                _ if l.starts_with("--eval")
                    || l == "-E"
                    || (l.starts_with("-E") && !l.starts_with("--")) =>
                {
                    return self.code_acts(argv, "make --eval's code");
                }
                _ => l
                    .strip_prefix("--file=")
                    .or_else(|| l.strip_prefix("--makefile="))
                    .or_else(|| l.strip_prefix("-f").filter(|v| !v.is_empty())),
            };
            if let Some(f) = file
                && matches!(f, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0")
            {
                return self.code_acts(argv, "make, reading its makefile from its input,");
            }
        }
    }
}

/// make's variables that decide how every recipe runs or what make reads:
/// set on the command line, they are code whatever they hold.
const MAKE_RUNS_RECIPES_WITH: &[&str] = &[
    "SHELL",
    ".SHELLFLAGS",
    "MAKEFLAGS",
    "MFLAGS",
    "GNUMAKEFLAGS",
    "MAKEFILES",
    "MAKESHELL",
    ".RECIPEPREFIX",
    ".ONESHELL",
];

/// Characters of a value that a shell reading it in a recipe reads as more
/// than words: `;`, `|`, `&`, `$(…)`, backquotes, redirections, a newline.
const SHELL_SYNTAX: &[char] = &[';', '|', '&', '$', '`', '<', '>', '(', ')', '\n', '{', '}'];

/// A make operand that sets a variable (`NAME=VALUE`, `NAME:=VALUE`,
/// `NAME+=VALUE`, `override NAME=VALUE`): its name and value.
pub(super) fn make_variable(word: &str) -> Option<(&str, &str)> {
    let word = word.strip_prefix("override ").unwrap_or(word).trim_start();
    let (name, value) = word.split_once('=')?;
    let name = name.trim_end_matches([':', '+', '?', '!']).trim();
    (!name.is_empty() && !name.starts_with('-') && !name.contains(char::is_whitespace))
        .then_some((name, value))
}

/// Whether sqlite3 SQL or a dot-command acts (see [`SQLITE_ACTS`]).
fn sqlite_acts(sql: &str) -> bool {
    let lower = sql.to_ascii_lowercase();
    SQLITE_ACTS.iter().any(|a| lower.contains(a))
}

/// Standard modules that those of [`PY_MODULES`] import in turn (`json`
/// imports `re`, `re` imports `enum`, …): a file of the working directory
/// by one of these names runs too.
const PY_IMPORTED_TOO: &[&str] = &[
    "abc",
    "ast",
    "base64",
    "binascii",
    "codecs",
    "contextlib",
    "copyreg",
    "dataclasses",
    "dis",
    "encodings",
    "genericpath",
    "hashlib",
    "importlib",
    "inspect",
    "io",
    "keyword",
    "linecache",
    "locale",
    "numbers",
    "opcode",
    "operator",
    "os",
    "posixpath",
    "reprlib",
    "selectors",
    "signal",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "stat",
    "struct",
    "threading",
    "token",
    "tokenize",
    "types",
    "typing",
    "warnings",
    "weakref",
    "_collections_abc",
];

/// Python modules that do no IO and reach no module that does through the
/// attributes [`PY_ATTRS`] allows.
const PY_MODULES: &[&str] = &[
    "json",
    "re",
    "math",
    "cmath",
    "statistics",
    "decimal",
    "fractions",
    "random",
    "string",
    "textwrap",
    "datetime",
    "time",
    "calendar",
    "collections",
    "itertools",
    "functools",
    "heapq",
    "bisect",
    "copy",
    "pprint",
    "enum",
    "typing",
    "base64",
    "binascii",
    "hashlib",
    "hmac",
    "uuid",
    "unicodedata",
    "html",
    "csv",
    "struct",
    "zlib",
    "difflib",
    "fnmatch",
    "ipaddress",
    "shlex",
    "secrets",
    "sys",
    "urllib.parse",
    "numbers",
    "keyword",
    "colorsys",
];

/// Names usable without binding them: builtins that do no IO and reach
/// nothing else.
const PY_GLOBALS: &[&str] = &[
    "print",
    "len",
    "sum",
    "min",
    "max",
    "sorted",
    "reversed",
    "range",
    "enumerate",
    "zip",
    "map",
    "filter",
    "list",
    "dict",
    "set",
    "frozenset",
    "tuple",
    "str",
    "int",
    "float",
    "bool",
    "complex",
    "abs",
    "round",
    "repr",
    "any",
    "all",
    "isinstance",
    "chr",
    "ord",
    "hex",
    "bin",
    "oct",
    "divmod",
    "pow",
    "format",
    "hash",
    "iter",
    "next",
    "slice",
    "bytes",
    "bytearray",
    "ascii",
    "callable",
    "id",
    "exit",
    "quit",
    "Exception",
    "ValueError",
    "KeyError",
    "TypeError",
    "IndexError",
    "StopIteration",
    "ZeroDivisionError",
    "AttributeError",
    "RuntimeError",
    "ArithmeticError",
    "LookupError",
    "NameError",
    "UnicodeDecodeError",
    "OverflowError",
];

/// Python's other builtins: never bound by the code (a binding would make
/// later uses look like the code's own).
const PY_OTHER_BUILTINS: &[&str] = &[
    "aiter",
    "anext",
    "breakpoint",
    "classmethod",
    "compile",
    "copyright",
    "credits",
    "delattr",
    "dir",
    "eval",
    "exec",
    "getattr",
    "globals",
    "hasattr",
    "help",
    "input",
    "issubclass",
    "license",
    "locals",
    "memoryview",
    "object",
    "open",
    "property",
    "setattr",
    "staticmethod",
    "super",
    "type",
    "vars",
];

/// Attributes the code may use: methods and values of the allowed modules
/// and of the values they give, none of which reaches IO or another module.
const PY_ATTRS: &[&str] = &[
    // str, bytes
    "split",
    "rsplit",
    "splitlines",
    "strip",
    "lstrip",
    "rstrip",
    "join",
    "replace",
    "lower",
    "upper",
    "title",
    "capitalize",
    "casefold",
    "startswith",
    "endswith",
    "find",
    "rfind",
    "index",
    "rindex",
    "count",
    "format",
    "format_map",
    "encode",
    "decode",
    "isdigit",
    "isalpha",
    "isalnum",
    "isspace",
    "isupper",
    "islower",
    "isnumeric",
    "isdecimal",
    "isidentifier",
    "zfill",
    "center",
    "ljust",
    "rjust",
    "partition",
    "rpartition",
    "expandtabs",
    "swapcase",
    "translate",
    "maketrans",
    "removeprefix",
    "removesuffix",
    "hex",
    "fromhex",
    // list, dict, set, deque, Counter
    "append",
    "extend",
    "insert",
    "remove",
    "pop",
    "clear",
    "sort",
    "reverse",
    "copy",
    "keys",
    "values",
    "items",
    "get",
    "setdefault",
    "update",
    "fromkeys",
    "add",
    "discard",
    "union",
    "intersection",
    "difference",
    "symmetric_difference",
    "issubset",
    "issuperset",
    "isdisjoint",
    "most_common",
    "elements",
    "subtract",
    "total",
    "popleft",
    "appendleft",
    "extendleft",
    "rotate",
    "maxlen",
    // sys and its streams
    "stdin",
    "stdout",
    "stderr",
    "argv",
    "version",
    "version_info",
    "platform",
    "maxsize",
    "byteorder",
    "getsizeof",
    "read",
    "readline",
    "readlines",
    "write",
    "writelines",
    "flush",
    "buffer",
    // json
    "loads",
    "load",
    "dumps",
    "dump",
    "JSONDecodeError",
    // re
    "compile",
    "match",
    "fullmatch",
    "search",
    "findall",
    "finditer",
    "sub",
    "subn",
    "escape",
    "group",
    "groups",
    "groupdict",
    "start",
    "end",
    "span",
    "pattern",
    "IGNORECASE",
    "MULTILINE",
    "DOTALL",
    "VERBOSE",
    "I",
    "M",
    "S",
    "X",
    // math, cmath, statistics, random
    "sqrt",
    "floor",
    "ceil",
    "log",
    "log2",
    "log10",
    "exp",
    "pi",
    "e",
    "tau",
    "inf",
    "nan",
    "isnan",
    "isinf",
    "isfinite",
    "fabs",
    "factorial",
    "gcd",
    "lcm",
    "comb",
    "perm",
    "prod",
    "fsum",
    "trunc",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "hypot",
    "degrees",
    "radians",
    "isclose",
    "copysign",
    "modf",
    "isqrt",
    "dist",
    "mean",
    "median",
    "mode",
    "stdev",
    "pstdev",
    "variance",
    "pvariance",
    "quantiles",
    "fmean",
    "random",
    "randint",
    "choice",
    "choices",
    "shuffle",
    "sample",
    "uniform",
    "seed",
    "gauss",
    "randrange",
    "real",
    "imag",
    "conjugate",
    "bit_length",
    "to_bytes",
    "from_bytes",
    // datetime, time, calendar
    "datetime",
    "date",
    "time",
    "timedelta",
    "timezone",
    "now",
    "utcnow",
    "today",
    "fromtimestamp",
    "fromisoformat",
    "isoformat",
    "strftime",
    "strptime",
    "timestamp",
    "year",
    "month",
    "day",
    "hour",
    "minute",
    "second",
    "microsecond",
    "weekday",
    "isoweekday",
    "utc",
    "total_seconds",
    "days",
    "seconds",
    "astimezone",
    "combine",
    "localtime",
    "gmtime",
    "monotonic",
    "perf_counter",
    "time_ns",
    "mktime",
    "sleep",
    "monthrange",
    "isleap",
    // collections, itertools, functools, heapq, bisect, copy, pprint, textwrap
    "Counter",
    "defaultdict",
    "OrderedDict",
    "deque",
    "chain",
    "from_iterable",
    "groupby",
    "islice",
    "cycle",
    "repeat",
    "product",
    "permutations",
    "combinations",
    "combinations_with_replacement",
    "accumulate",
    "zip_longest",
    "starmap",
    "takewhile",
    "dropwhile",
    "compress",
    "pairwise",
    "batched",
    "filterfalse",
    "reduce",
    "lru_cache",
    "cache",
    "cmp_to_key",
    "heappush",
    "heappop",
    "heapify",
    "nlargest",
    "nsmallest",
    "bisect",
    "bisect_left",
    "bisect_right",
    "insort",
    "deepcopy",
    "pprint",
    "pformat",
    "dedent",
    "indent",
    "wrap",
    "fill",
    "shorten",
    // base64, binascii, hashlib, hmac, uuid, zlib, struct
    "b64encode",
    "b64decode",
    "urlsafe_b64encode",
    "urlsafe_b64decode",
    "b32encode",
    "b32decode",
    "b16encode",
    "b16decode",
    "hexlify",
    "unhexlify",
    "crc32",
    "md5",
    "sha1",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "blake2b",
    "sha3_256",
    "hexdigest",
    "digest",
    "compare_digest",
    "uuid4",
    "uuid1",
    "uuid5",
    "UUID",
    "NAMESPACE_DNS",
    "compress",
    "decompress",
    "pack",
    "unpack",
    "calcsize",
    // unicodedata, html, csv, difflib, fnmatch, ipaddress, shlex, secrets, string
    "name",
    "normalize",
    "category",
    "unescape",
    "reader",
    "writer",
    "DictReader",
    "DictWriter",
    "writerow",
    "writerows",
    "writeheader",
    "unified_diff",
    "ndiff",
    "SequenceMatcher",
    "ratio",
    "get_close_matches",
    "fnmatch",
    "fnmatchcase",
    "ip_address",
    "ip_network",
    "quote",
    "token_hex",
    "token_urlsafe",
    "ascii_letters",
    "ascii_lowercase",
    "ascii_uppercase",
    "digits",
    "hexdigits",
    "punctuation",
    "whitespace",
    "printable",
    // urllib.parse
    "parse",
    "urlparse",
    "urlsplit",
    "urlencode",
    "unquote",
    "quote_plus",
    "unquote_plus",
    "parse_qs",
    "parse_qsl",
    "urljoin",
    "netloc",
    "path",
    "query",
    "scheme",
    "fragment",
    "hostname",
    "port",
];

const PY_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "match", "case",
];

/// A token of Python code, strings left out (an f-string's expressions are
/// tokens).
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    Punct(char),
}

/// Split Python code into names and punctuation, leaving out comments and
/// string literals (but reading an f-string's `{…}` as code). `None` when
/// a string does not end.
fn py_tokens(code: &str, out: &mut Vec<Tok>, depth: usize) -> Option<()> {
    if depth > 8 {
        return None;
    }
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // A string prefix (`f"…"`, `rb'…'`).
            if i < chars.len()
                && matches!(chars[i], '\'' | '"')
                && word.len() <= 2
                && word.chars().all(|p| "rRbBuUfF".contains(p))
            {
                let f = word.contains(['f', 'F']);
                let raw = word.contains(['r', 'R']);
                i = py_string(&chars, i, f, raw, out, depth)?;
                continue;
            }
            out.push(Tok::Name(word));
            continue;
        }
        if matches!(c, '\'' | '"') {
            i = py_string(&chars, i, false, false, out, depth)?;
            continue;
        }
        if c.is_ascii_digit() {
            // A number, its letters too (`1e5`, `0x1F`, `3j`).
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '.' || chars[i] == '_')
            {
                i += 1;
            }
            continue;
        }
        if !c.is_whitespace() {
            out.push(Tok::Punct(c));
        }
        i += 1;
    }
    Some(())
}

/// Skip the string starting at `chars[i]` (its quote); an f-string's
/// expressions go to `out`. Returns the index after it.
fn py_string(
    chars: &[char],
    mut i: usize,
    f: bool,
    raw: bool,
    out: &mut Vec<Tok>,
    depth: usize,
) -> Option<usize> {
    let q = chars[i];
    let triple = chars.get(i + 1) == Some(&q) && chars.get(i + 2) == Some(&q);
    i += if triple { 3 } else { 1 };
    loop {
        let c = *chars.get(i)?;
        if c == '\\' && !raw {
            i += 2;
            continue;
        }
        if c == '\\' {
            i += 2;
            continue;
        }
        if c == q && (!triple || (chars.get(i + 1) == Some(&q) && chars.get(i + 2) == Some(&q))) {
            return Some(i + if triple { 3 } else { 1 });
        }
        if !triple && c == '\n' {
            return None;
        }
        if f && c == '{' {
            if chars.get(i + 1) == Some(&'{') {
                i += 2;
                continue;
            }
            // The expression, to its matching brace.
            let mut level = 1;
            let start = i + 1;
            i += 1;
            while level > 0 {
                match *chars.get(i)? {
                    '{' => level += 1,
                    '}' => level -= 1,
                    _ => {}
                }
                i += 1;
            }
            let expr: String = chars[start..i - 1].iter().collect();
            // Its own strings use the other quote; read them as code.
            py_tokens(&expr, out, depth + 1)?;
            out.push(Tok::Punct(';'));
            continue;
        }
        i += 1;
    }
}

/// Whether Python code can neither run a command nor read or write a file:
/// it imports only modules of [`PY_MODULES`] (by name, not `*`), uses only
/// names of [`PY_GLOBALS`] or names it binds itself (never binding another
/// builtin), only attributes of [`PY_ATTRS`], and no `__` anywhere (the
/// way to everything else).
pub(super) fn python_is_inert(code: &str) -> bool {
    if code.contains("__") {
        return false;
    }
    let mut toks = Vec::new();
    if py_tokens(code, &mut toks, 0).is_none() {
        return false;
    }
    // Python reads identifiers in NFKC form (`ｏｐｅｎ` is `open`): a name
    // outside ASCII could be a builtin under another spelling.
    if toks
        .iter()
        .any(|t| matches!(t, Tok::Name(n) if !n.is_ascii()))
    {
        return false;
    }
    let name = |k: usize| match toks.get(k) {
        Some(Tok::Name(n)) => Some(n.as_str()),
        _ => None,
    };
    let punct = |k: usize| match toks.get(k) {
        Some(Tok::Punct(c)) => Some(*c),
        _ => None,
    };
    // Names the code binds: assignment targets, loop variables, `as`
    // names, parameters, functions and classes it defines, imports.
    let mut bound: Vec<&str> = Vec::new();
    // Tokens of import statements: checked there, not as names used.
    let mut imports = vec![false; toks.len()];
    let mut depth = 0i32;
    let mut k = 0;
    while k < toks.len() {
        match &toks[k] {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => depth -= 1,
            Tok::Name(n) => {
                let n = n.as_str();
                match n {
                    "import" => {
                        // `import a.b as c, d` or `from a.b import x as y, z`.
                        let from = (1..=k)
                            .rev()
                            .map(|j| &toks[j - 1])
                            .take_while(|t| {
                                !matches!(t, Tok::Punct(';')) && **t != Tok::Name("import".into())
                            })
                            .find_map(|t| match t {
                                Tok::Name(f) if f == "from" => Some(()),
                                _ => None,
                            })
                            .is_some();
                        let mut j = k + 1;
                        let mut parens = punct(j) == Some('(');
                        if parens {
                            j += 1;
                        }
                        loop {
                            let mut dotted = String::new();
                            while let Some(part) = name(j) {
                                dotted.push_str(part);
                                j += 1;
                                if punct(j) == Some('.') {
                                    dotted.push('.');
                                    j += 1;
                                } else {
                                    break;
                                }
                            }
                            if dotted.is_empty() {
                                return false;
                            }
                            if from {
                                // A name of the module: an attribute of it.
                                if !PY_ATTRS.contains(&dotted.as_str()) {
                                    return false;
                                }
                            } else if !PY_MODULES.contains(&dotted.as_str()) {
                                return false;
                            }
                            let mut local =
                                dotted.split('.').next().unwrap_or_default().to_string();
                            if name(j) == Some("as") {
                                local = name(j + 1).unwrap_or_default().to_string();
                                j += 2;
                            }
                            if let Some(Tok::Name(l)) =
                                toks.iter().find(|t| **t == Tok::Name(local.clone()))
                            {
                                bound.push(l.as_str());
                            }
                            if punct(j) == Some(',') {
                                j += 1;
                                continue;
                            }
                            if parens && punct(j) == Some(')') {
                                j += 1;
                                parens = false;
                            }
                            break;
                        }
                        imports[k..j.min(toks.len())].fill(true);
                        k = j;
                        continue;
                    }
                    "from" => {
                        // `from a.b import …`: the module.
                        let mut j = k + 1;
                        let mut dotted = String::new();
                        while let Some(part) = name(j) {
                            if part == "import" {
                                break;
                            }
                            dotted.push_str(part);
                            j += 1;
                            if punct(j) == Some('.') {
                                dotted.push('.');
                                j += 1;
                            }
                        }
                        if name(j) != Some("import") || !PY_MODULES.contains(&dotted.as_str()) {
                            return false;
                        }
                        if punct(j + 1) == Some('*') {
                            return false;
                        }
                        imports[k..j].fill(true);
                        k = j;
                        continue;
                    }
                    "for" | "as" | "lambda" | "def" | "class" | "global" | "nonlocal" => {
                        // The names up to `in`, `:` or `(`, or after `def`/`class`
                        // its name and its parameters up to `:`.
                        let mut j = k + 1;
                        let mut level = 0i32;
                        while j < toks.len() {
                            match &toks[j] {
                                Tok::Name(b) if b == "in" && n == "for" && level == 0 => break,
                                Tok::Name(b) => {
                                    let prev = punct(j - 1);
                                    // A parameter's default is a value, not a name bound.
                                    let is_default =
                                        (j >= 1) && matches!(prev, Some('=')) && level > 0;
                                    if !is_default && prev != Some('.') {
                                        bound.push(b.as_str());
                                    }
                                }
                                Tok::Punct('(' | '[') => level += 1,
                                Tok::Punct(')' | ']') => {
                                    level -= 1;
                                    if level < 0 {
                                        break;
                                    }
                                }
                                Tok::Punct(':') if level <= 0 => break,
                                Tok::Punct(';' | '=') if level <= 0 => break,
                                _ => {}
                            }
                            j += 1;
                        }
                    }
                    _ => {
                        // `x = …`, `x += …`, `a, b = …`, `x := …` at the top
                        // level of a statement.
                        let next = punct(k + 1);
                        let after = punct(k + 2);
                        let assigns = (next == Some('=') && after != Some('=') && depth == 0)
                            || (next == Some(':') && after == Some('='))
                            || (next.is_some_and(|c| "+-*/%&|^@<>".contains(c))
                                && after == Some('=')
                                && depth == 0);
                        let in_tuple = depth == 0
                            && next == Some(',')
                            && toks[k + 1..]
                                .iter()
                                .take_while(|t| !matches!(t, Tok::Punct(';' | ':')))
                                .any(|t| *t == Tok::Punct('='));
                        if assigns || in_tuple {
                            bound.push(n);
                        }
                    }
                }
            }
            _ => {}
        }
        k += 1;
    }
    if bound.iter().any(|b| PY_OTHER_BUILTINS.contains(b)) {
        return false;
    }
    // Every name used is allowed.
    depth = 0;
    for (k, t) in toks.iter().enumerate() {
        if imports[k] {
            continue;
        }
        match t {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => depth -= 1,
            Tok::Name(n) => {
                let n = n.as_str();
                if PY_KEYWORDS.contains(&n) {
                    continue;
                }
                if punct(k.wrapping_sub(1)) == Some('.') {
                    if !PY_ATTRS.contains(&n) {
                        return false;
                    }
                    continue;
                }
                // A keyword argument's name (`sorted(x, key=…)`).
                if depth > 0 && punct(k + 1) == Some('=') && punct(k + 2) != Some('=') {
                    continue;
                }
                if !(PY_GLOBALS.contains(&n) || bound.contains(&n) || PY_MODULES.contains(&n)) {
                    return false;
                }
                // A module name is usable only when imported (bound).
                if PY_MODULES.contains(&n) && !bound.contains(&n) && !PY_GLOBALS.contains(&n) {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}

/// Whether Perl code may run a command, read or write a file, or build code
/// from strings: any function or form that does (`system`, backquotes,
/// `qx`, `open`, `unlink`, `eval`, `require`, a `/e` substitution, a
/// symbolic reference `&{…}`, a package-qualified name `CORE::…`).
/// Whether `-M`/`-m` text names a module that only computes, importing
/// nothing that acts: `strict`, `warnings`, `List::Util=sum,max`, `-strict`
/// (no). Anything else (another module, text beyond a module's name and
/// import list: `strict;system "rm x"`) may act.
pub(super) fn perl_module_is_inert(text: &str) -> bool {
    const INERT: &[&str] = &[
        "strict",
        "warnings",
        "utf8",
        "feature",
        "integer",
        "bigint",
        "bignum",
        "bigrat",
        "constant",
        "English",
        "List::Util",
        "Scalar::Util",
        "Data::Dumper",
        "JSON::PP",
        "Time::HiRes",
        "Time::Local",
        "Text::Wrap",
        "MIME::Base64",
        "Digest::MD5",
        "Digest::SHA",
        "Math::BigInt",
        "Math::BigFloat",
        "Encode",
        "open",
    ];
    let text = text.strip_prefix('-').unwrap_or(text);
    let (module, imports) = text.split_once('=').unwrap_or((text, ""));
    let plain = |s: &str, extra: &[char]| {
        s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || extra.contains(&c))
    };
    INERT.contains(&module) && plain(imports, &[',', ':']) && !imports.split(',').any(perl_may_act)
}

pub(super) fn perl_may_act(code: &str) -> bool {
    const ACTS: &[&str] = &[
        "system", "exec", "qx", "open", "sysopen", "opendir", "unlink", "rename", "rmdir", "mkdir",
        "chmod", "chown", "chdir", "symlink", "link", "truncate", "utime", "kill", "fork", "pipe",
        "syscall", "eval", "do", "require", "use", "no", "glob", "socket", "connect", "dbmopen",
        "readpipe", "select", "binmode", "can", "SIG", "ENV", "INC", "readline", "sysread",
        "syswrite", "STDIN", "ARGVOUT", "getc", "read", "seek", "tie", "bless", "local", "goto",
        "dump", "exit",
    ];
    if code.contains('`')
        || code.contains('&')
        || code.contains("::")
        || code.contains("*{")
        || code.contains("->")
        || code.contains('<')
    {
        return true;
    }
    let mut word = String::new();
    let mut words = Vec::new();
    for c in code.chars().chain(std::iter::once(' ')) {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else if !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
    }
    if words.iter().any(|w| ACTS.contains(&w.as_str())) {
        return true;
    }
    // A substitution's `e` flag runs its replacement as code: flags after
    // a closing delimiter (`s/a/b/ge`).
    code.char_indices().any(|(k, c)| {
        "/|#!}])>,:;'\"".contains(c) && {
            let flags: String = code[k + c.len_utf8()..]
                .chars()
                .take_while(|f| f.is_ascii_lowercase())
                .collect();
            flags.contains('e') && flags.chars().all(|f| "msixpodualngcer".contains(f))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_that_computes_is_inert() {
        for code in [
            "print(1+1)",
            "import json,sys; print(json.load(sys.stdin)['version'])",
            "import sys, json\nd = json.load(sys.stdin)\nfor k, v in sorted(d.items()): print(k, v)",
            "import re; print(re.sub(r'\\s+', ' ', 'a  b'))",
            "print(f'{2**10:,}')",
            "import datetime as dt; print(dt.datetime.now().isoformat())",
            "from collections import Counter; print(Counter('hello').most_common(2))",
            "print(sorted([3,1,2], key=lambda x: -x))",
            "import sys; print(sys.version_info)",
            "import json; print(json.dumps({'a': 1}, indent=2))",
            "x = [i*i for i in range(10)]; print(sum(x))",
            "import math; print(math.sqrt(2))",
            "print('open the door')",
            "def f(n): return n*2\nprint(f(3))",
        ] {
            assert!(python_is_inert(code), "{code}");
        }
    }

    #[test]
    fn python_that_may_act_is_not() {
        for code in [
            "import os; os.system('rm x')",
            "import subprocess; subprocess.run(['rm', 'x'])",
            "print(open('.env').read())",
            "open('x', 'w').write('y')",
            "__import__('os').system('rm x')",
            "exec('import os')",
            "eval(input())",
            "import json; json.codecs.open('x', 'w')",
            "import sys; sys.modules['os'].system('rm x')",
            "import uuid; uuid.os.system('x')",
            "import shutil; shutil.rmtree('x')",
            "from os import system; system('x')",
            "from json import *",
            "import pathlib; pathlib.Path('x').unlink()",
            "open = print; open('x')",
            "[open for open in [1]]; open('x')",
            "def f(open=1): pass\nopen('x')",
            "print(f\"{open('x').read()}\")",
            "getattr(print, 'x')",
            "g = (x for x in []); g.gi_frame.f_builtins",
            "import operator; operator.attrgetter('x')",
            "print(x",
            "'unterminated",
            "os.system('x')",
            "breakpoint()",
            "print(vars())",
            "type(print)",
            "[ｏｐｅｎ for ｏｐｅｎ in [1]]; print(ｏｐｅｎ('x').read())",
            "ｅｘｅｃ('import os')",
        ] {
            assert!(!python_is_inert(code), "{code}");
        }
    }

    #[test]
    fn perl_that_acts() {
        for code in [
            "system('rm x')",
            "`rm x`",
            "qx{rm x}",
            "open(my $f, '>', 'x')",
            "unlink 'x'",
            "s/x/`rm x`/e",
            "s/x/y/ge",
            "&{'sys'.'tem'}('rm x')",
            "CORE::system('x')",
            "eval 'system 1'",
            "print <STDIN>",
            "print while <>",
        ] {
            assert!(perl_may_act(code), "{code}");
        }
        for code in [
            "print if /foo/",
            "s/foo/bar/g",
            "s/\\s+$//",
            "print uc",
            "$_ = lc; print",
            "tr/a-z/A-Z/",
            "print join(',', split(/:/))",
        ] {
            assert!(!perl_may_act(code), "{code}");
        }
    }

    #[test]
    fn python_names() {
        assert!(is_python("python3"));
        assert!(is_python("python3.12"));
        assert!(is_python("pypy3"));
        assert!(is_python("python"));
        assert!(!is_python("python-config"));
        assert!(!is_python("pythonw"));
    }
}
