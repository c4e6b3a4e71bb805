//! Developer tools that run commands they are given: `hyperfine` and
//! `nodemon` run shell command lines (analysed like `bash -c`), `cmake -E`
//! runs a command after its `env`, `chdir` and `time` modes and changes
//! files in others.

use crate::shell::options::could_be_option;
use crate::shell::{Analyzer, Cwds, Family, UncertainKind, WordVal};

/// What a `hyperfine` option is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hf {
    /// A value or a switch that changes nothing checked here.
    Plain,
    /// Its value is a command line run by the benchmark's shell.
    Command,
    /// Its value is a file it writes.
    Writes,
    /// `--output WHERE`: `null`, `pipe`, `inherit` or a file it writes.
    Output,
    /// `--input WHERE`: `null` or a file the commands read.
    Input,
    /// `-S SHELL`: the shell (a command line; `none`, `default`).
    Shell,
    /// `-N`: no shell.
    NoShell,
    /// `-P VAR MIN MAX`: `{VAR}` in the commands becomes a number.
    Scan,
    /// `-L VAR V1,V2,…`: `{VAR}` becomes each value.
    List,
    /// `--help`, `--version`: nothing runs.
    Stop,
}

/// hyperfine's options (clap: anywhere among the commands, clusters,
/// `--opt=value`): short name, long name, how many values, what it is.
const HYPERFINE: &[(Option<char>, &str, usize, Hf)] = &[
    (Some('w'), "--warmup", 1, Hf::Plain),
    (Some('m'), "--min-runs", 1, Hf::Plain),
    (Some('M'), "--max-runs", 1, Hf::Plain),
    (Some('r'), "--runs", 1, Hf::Plain),
    (Some('s'), "--setup", 1, Hf::Command),
    (None, "--reference", 1, Hf::Command),
    (None, "--reference-name", 1, Hf::Plain),
    (Some('p'), "--prepare", 1, Hf::Command),
    (Some('C'), "--conclude", 1, Hf::Command),
    (Some('c'), "--cleanup", 1, Hf::Command),
    (Some('P'), "--parameter-scan", 3, Hf::Scan),
    (Some('D'), "--parameter-step-size", 1, Hf::Plain),
    (Some('L'), "--parameter-list", 2, Hf::List),
    (Some('S'), "--shell", 1, Hf::Shell),
    (Some('N'), "", 0, Hf::NoShell),
    // Its value only after `=` (`--ignore-failure=1,2`).
    (Some('i'), "--ignore-failure", 0, Hf::Plain),
    (None, "--style", 1, Hf::Plain),
    (None, "--sort", 1, Hf::Plain),
    (Some('u'), "--time-unit", 1, Hf::Plain),
    (None, "--export-asciidoc", 1, Hf::Writes),
    (None, "--export-csv", 1, Hf::Writes),
    (None, "--export-json", 1, Hf::Writes),
    (None, "--export-markdown", 1, Hf::Writes),
    (None, "--export-orgmode", 1, Hf::Writes),
    (None, "--show-output", 0, Hf::Plain),
    (None, "--output", 1, Hf::Output),
    (None, "--input", 1, Hf::Input),
    (Some('n'), "--command-name", 1, Hf::Plain),
    (None, "--min-benchmarking-time", 1, Hf::Plain),
    (None, "--debug-mode", 0, Hf::Plain),
    (Some('h'), "--help", 0, Hf::Stop),
    (Some('V'), "--version", 0, Hf::Stop),
];

/// More `{VAR}` substitutions than this are not tried one by one.
const MAX_PARAMETER_RUNS: usize = 64;

/// More arguments than this, each of which may be the script nodemon puts
/// for `{{filename}}`, are not tried one by one.
const MAX_SCRIPT_GUESSES: usize = 8;

/// An option of hyperfine found: what it is and its values.
struct HfFound {
    kind: Hf,
    values: Vec<WordVal>,
}

/// A hyperfine command line read: its options and its commands, or why it
/// cannot be read (an unknown option, a word that may be an option).
fn hyperfine_words(argv: &[WordVal]) -> Result<(Vec<HfFound>, Vec<WordVal>), String> {
    let mut found = Vec::new();
    let mut commands = Vec::new();
    let mut only_commands = false;
    let mut i = 1;
    // The values of an option: `n` words from `at`.
    let take =
        |at: usize, n: usize| -> Vec<WordVal> { argv.iter().skip(at).take(n).cloned().collect() };
    while let Some(w) = argv.get(i) {
        i += 1;
        let Some(lit) = w.literal.as_deref() else {
            if !only_commands && could_be_option(&w.raw) {
                return Err(format!(
                    "`{}` is computed at run time and may be an option of hyperfine",
                    w.raw
                ));
            }
            commands.push(w.clone());
            continue;
        };
        if only_commands || !lit.starts_with('-') || lit == "-" {
            commands.push(w.clone());
            continue;
        }
        if lit == "--" {
            only_commands = true;
            continue;
        }
        if let Some(long) = lit.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v)),
                None => (lit.to_string(), None),
            };
            let Some(&(_, _, n, kind)) = HYPERFINE
                .iter()
                .find(|(_, l, ..)| !l.is_empty() && *l == name)
            else {
                return Err(format!("unknown option `{lit}` of hyperfine"));
            };
            let values = match (n, attached) {
                (0, None) => Vec::new(),
                (0, Some(v)) if name == "--ignore-failure" => vec![WordVal::literal(v)],
                (1, Some(v)) => vec![WordVal::literal(v)],
                (_, None) => {
                    i += n;
                    take(i - n, n)
                }
                _ => return Err(format!("cannot read `{lit}`")),
            };
            found.push(HfFound { kind, values });
            continue;
        }
        let cluster = &lit[1..];
        for (k, c) in cluster.char_indices() {
            let rest = &cluster[k + c.len_utf8()..];
            let Some(&(_, _, n, kind)) = HYPERFINE.iter().find(|(s, ..)| *s == Some(c)) else {
                return Err(format!("unknown option `-{c}` of hyperfine"));
            };
            if n == 0 {
                if c == 'i' && rest.starts_with('=') {
                    found.push(HfFound {
                        kind,
                        values: vec![WordVal::literal(&rest[1..])],
                    });
                    break;
                }
                found.push(HfFound {
                    kind,
                    values: Vec::new(),
                });
                continue;
            }
            let values = if rest.is_empty() {
                i += n;
                take(i - n, n)
            } else if n == 1 {
                vec![WordVal::literal(rest.strip_prefix('=').unwrap_or(rest))]
            } else {
                return Err(format!("cannot read `{lit}`"));
            };
            found.push(HfFound { kind, values });
            break;
        }
    }
    Ok((found, commands))
}

/// Replace `{name}` by `value` in `text`.
fn substitute(text: &str, name: &str, value: &str) -> String {
    text.replace(&format!("{{{name}}}"), value)
}

/// An argument as nodemon writes it into the command line it gives to
/// `sh -c`: as it is, or (empty or holding a space) as a JSON string.
fn nodemon_quote(arg: &str) -> String {
    if !arg.is_empty() && !arg.contains(' ') {
        return arg.to_string();
    }
    serde_json::to_string(arg).unwrap_or_else(|_| format!("\"{arg}\""))
}

/// The line nodemon gives `sh -c`: `exec` and the arguments.
fn nodemon_line<'a>(exec: &str, args: impl Iterator<Item = &'a str>) -> String {
    let mut line = exec.to_string();
    for a in args {
        line.push(' ');
        line.push_str(&nodemon_quote(a));
    }
    line
}

/// Whether an argument nodemon writes into its `sh -c` line stays one
/// plain word there.
fn plain_for_shell(arg: &str) -> bool {
    if !arg.is_empty() && !arg.contains(' ') {
        arg.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./,:@%+=-".contains(c))
    } else {
        !arg.contains(['$', '`'])
    }
}

impl Analyzer {
    /// `hyperfine [options] CMD…`: each command, and those of `--setup`,
    /// `--prepare`, `--conclude`, `--cleanup` and `--reference`, is a
    /// command line run by `sh -c` (or `-S SHELL -c`; split and run
    /// directly with `-N`, read here as a shell line too), with `{VAR}`
    /// replaced by the values of `-L` and `-P`. Exports and `--output FILE`
    /// are files written.
    pub(super) fn wrapper_hyperfine(&mut self, argv: &[WordVal]) {
        let (found, commands) = match hyperfine_words(argv) {
            Ok(x) => x,
            Err(reason) => {
                return self.uncertain(UncertainKind::Command, &self.text(argv), reason);
            }
        };
        if found.iter().any(|f| f.kind == Hf::Stop) || commands.is_empty() {
            return self.emit(argv);
        }
        // `$X` as an option's value splits into several words when not
        // quoted: later words would be options or commands.
        if let Some(w) = found
            .iter()
            .flat_map(|f| &f.values)
            .find(|w| w.literal.is_none() && !w.raw.starts_with('"'))
        {
            return self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                format!(
                    "`{}` is computed at run time and may split into several words, so which are commands is not known",
                    w.raw
                ),
            );
        }
        // The `{VAR}` substitutions: every combination of the lists.
        let mut runs: Vec<Vec<(String, String)>> = vec![Vec::new()];
        for f in &found {
            let (Some(var), Some(values)) = (f.values.first(), f.values.get(1)) else {
                continue;
            };
            let (Some(var), Some(values)) = (var.literal.as_deref(), values.literal.as_deref())
            else {
                return self.uncertain(
                    UncertainKind::Command,
                    &self.text(argv),
                    "a parameter of the commands is computed at run time",
                );
            };
            let values: Vec<&str> = match f.kind {
                // Numbers from MIN to MAX: MIN stands for them all.
                Hf::Scan => vec![values],
                Hf::List => values.split(',').collect(),
                _ => continue,
            };
            if runs.len() * values.len() > MAX_PARAMETER_RUNS {
                return self.uncertain(
                    UncertainKind::Command,
                    &self.text(argv),
                    "too many parameter combinations to check each command",
                );
            }
            runs = runs
                .iter()
                .flat_map(|run| {
                    values.iter().map(move |v| {
                        let mut run = run.clone();
                        run.push((var.to_string(), (*v).to_string()));
                        run
                    })
                })
                .collect();
        }
        let shell = found
            .iter()
            .rev()
            .find(|f| matches!(f.kind, Hf::Shell | Hf::NoShell))
            .map(|f| match f.kind {
                Hf::NoShell => Some("none".to_string()),
                _ => f.values.first().and_then(|v| v.literal.clone()),
            });
        let shell = match shell {
            None => None,
            Some(Some(s)) if matches!(s.trim(), "default" | "none") => None,
            Some(Some(s)) => Some(s),
            Some(None) => {
                return self.uncertain(
                    UncertainKind::Command,
                    &self.text(argv),
                    "the shell that runs the commands is computed at run time",
                );
            }
        };
        let scripts = found
            .iter()
            .filter(|f| f.kind == Hf::Command)
            .flat_map(|f| f.values.first())
            .chain(&commands);
        for script in scripts {
            let Some(text) = &script.literal else {
                self.uncertain(
                    UncertainKind::Command,
                    &self.text(argv),
                    "hyperfine runs a command computed at run time",
                );
                continue;
            };
            for run in &runs {
                let text = run
                    .iter()
                    .fold(text.clone(), |t, (var, value)| substitute(&t, var, value));
                match &shell {
                    Some(line) => self.shell_line(argv, line, &text),
                    None => self.nested_script(argv, &text),
                }
            }
        }
        for f in &found {
            let value = f.values.first();
            match (f.kind, value.and_then(|v| v.literal.as_deref())) {
                (Hf::Writes, _) => self.wrapper_output(argv, value, false),
                (Hf::Output | Hf::Input, Some("null" | "pipe" | "inherit")) => {}
                (Hf::Output, _) => self.wrapper_output(argv, value, false),
                (Hf::Input, _) if self.touches => {
                    if let Some(v) = value {
                        self.touch(Family::Read, v);
                    }
                }
                _ => {}
            }
        }
    }

    /// `nodemon [options] [script] [args]`: it runs `sh -c` with the
    /// command line `EXEC ARGS` (`EXEC` from `--exec`/`-x`, else `node` or
    /// what its configuration maps the script to), the arguments that are
    /// not its options written in as they are unless they hold a space.
    /// With `--exec` the line is analysed like `bash -c`; without, the
    /// program is its configuration's, and only arguments that would be
    /// shell syntax in that line are uncertain.
    pub(super) fn wrapper_nodemon(&mut self, argv: &[WordVal]) {
        const WITH_VALUE: &[&str] = &[
            "-x",
            "--exec",
            "--cwd",
            "-P",
            "--polling-interval",
            "--config",
            "-w",
            "--watch",
            "-i",
            "--ignore",
            "-d",
            "--delay",
            "-e",
            "--ext",
            "-s",
            "--signal",
        ];
        const FLAGS: &[&str] = &[
            "--no-update-notifier",
            "--spawn",
            "--verbose",
            "-V",
            "--legacy-watch",
            "-L",
            "--js",
            "--quiet",
            "-q",
            "--exitcrash",
            "--no-stdin",
            "-I",
            "--on-change-only",
            "-C",
            "--no-colours",
            "--no-colors",
        ];
        let mut exec: Option<WordVal> = None;
        let mut cwd: Option<WordVal> = None;
        let mut args: Vec<&WordVal> = Vec::new();
        let mut options_done = false;
        let mut i = 1;
        while let Some(w) = argv.get(i) {
            i += 1;
            let Some(lit) = w.literal.as_deref() else {
                return self.uncertain(
                    UncertainKind::Command,
                    &self.text(argv),
                    format!(
                        "`{}` is computed at run time: it may be an option of nodemon, and nodemon writes its arguments into the line `sh -c` runs",
                        w.raw
                    ),
                );
            };
            if options_done {
                args.push(w);
                continue;
            }
            match lit {
                "--" => options_done = true,
                // `--help [topic]`, `--version`, `--dump`: nothing runs.
                "--help" | "-h" | "-?" | "--version" | "-v" | "--dump" => {
                    return self.emit(argv);
                }
                _ if WITH_VALUE.contains(&lit) => {
                    let value = argv.get(i).cloned();
                    i += 1;
                    if let Some(v) = &value
                        && v.literal.is_none()
                        && !v.raw.starts_with('"')
                    {
                        return self.uncertain(
                            UncertainKind::Command,
                            &self.text(argv),
                            format!(
                                "`{}` is computed at run time and may split into several words, so which are nodemon's options is not known",
                                v.raw
                            ),
                        );
                    }
                    match lit {
                        "-x" | "--exec" => exec = value,
                        "--cwd" => cwd = value,
                        _ => {}
                    }
                }
                _ if FLAGS.contains(&lit) => {}
                _ => args.push(w),
            }
        }
        let literal_args: Vec<&str> = args.iter().filter_map(|w| w.literal.as_deref()).collect();
        let Some(exec) = exec else {
            self.emit(argv);
            if let Some(arg) = literal_args.iter().find(|a| !plain_for_shell(a)) {
                self.uncertain(
                    UncertainKind::Command,
                    &self.text(argv),
                    format!(
                        "nodemon writes `{arg}` into the command line `sh -c` runs, where it is shell syntax"
                    ),
                );
            }
            return;
        };
        let Some(exec) = exec.literal else {
            return self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                "nodemon --exec runs a command computed at run time",
            );
        };
        // `{{filename}}` is the script, one of the arguments (taken out of
        // them and written in as it is; from package.json when none is):
        // each is tried. `{{pwd}}` is the directory.
        let exec = exec.replace("{{pwd}}", "\"$PWD\"");
        let mut lines = Vec::new();
        if exec.contains("{{filename}}") {
            if literal_args.len() > MAX_SCRIPT_GUESSES
                || !literal_args
                    .iter()
                    .all(|a| plain_for_shell(a) && !a.contains(' '))
            {
                return self.uncertain(
                    UncertainKind::Command,
                    &self.text(argv),
                    "nodemon writes the script's name into its command line as it is, and which argument is the script is not known",
                );
            }
            for (k, script) in literal_args.iter().enumerate() {
                let others = literal_args
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != k)
                    .map(|(_, a)| *a);
                lines.push(nodemon_line(&exec.replace("{{filename}}", script), others));
            }
            if lines.is_empty() {
                lines.push(exec.replace("{{filename}}", "\"$nodemon_script\""));
            }
        } else {
            lines.push(nodemon_line(&exec, literal_args.iter().copied()));
        }
        let saved = self.cwds.clone();
        if let Some(dir) = &cwd {
            self.cwds = match &dir.literal {
                Some(l) => self.cwds_after_cd(Some(l), dir.tilde),
                None => Cwds::Unknown,
            };
        }
        for line in &lines {
            self.nested_script(argv, line);
        }
        self.cwds = saved;
    }

    /// `cmake -E MODE …` (`-E` must come first): `env`, `chdir` and `time`
    /// run a command; the file modes are read as the command each amounts
    /// to (`rm`, `mkdir -p`, `cp`, `mv`, `touch`, `ln`), which meets the
    /// deny and ask rules for it and whose operands are checked as edits;
    /// `tar` writes the archive or what it extracts; the modes that only
    /// print or compare are cmake's own. An unknown (or internal) mode may
    /// run anything. False when this is not `cmake -E`.
    pub(super) fn wrapper_cmake(&mut self, argv: &[WordVal]) -> bool {
        match argv.get(1) {
            Some(w) if w.literal.as_deref() == Some("-E") => {}
            // `cmake $X env rm x`: it may be `-E`.
            Some(w) if w.literal.is_none() && (!w.raw.starts_with('"') || argv.len() > 2) => {
                self.uncertain(
                    UncertainKind::Command,
                    &self.text(argv),
                    format!(
                        "`{}` is computed at run time and may be -E, which makes the words after it a command",
                        w.raw
                    ),
                );
                return true;
            }
            _ => return false,
        }
        let Some(mode) = argv.get(2) else {
            self.emit(argv);
            return true;
        };
        let Some(mode) = mode.literal.as_deref() else {
            self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                "the cmake -E mode is computed at run time",
            );
            return true;
        };
        let rest = &argv[3..];
        match mode {
            "env" => self.cmake_env(argv),
            "chdir" => {
                if argv.len() < 5 {
                    self.emit(argv);
                    return true;
                }
                let dir = &argv[3];
                let saved = self.cwds.clone();
                self.cwds = match &dir.literal {
                    Some(l) => self.cwds_after_cd(Some(l), dir.tilde),
                    None => Cwds::Unknown,
                };
                self.unwrap(argv, 4);
                self.cwds = saved;
            }
            "time" => {
                if argv.len() < 4 {
                    self.emit(argv);
                } else {
                    self.unwrap(argv, 3);
                }
            }
            "rm" => {
                // Options (`-r`, `-R`, `-f`, `-rf`, `--`) as rm's.
                self.emit(argv);
                self.cmake_as(argv, "rm", &[], rest);
                let mut options = true;
                let recursive = rest.iter().any(|w| {
                    w.literal
                        .as_deref()
                        .is_some_and(|l| l.starts_with('-') && l != "--" && l.contains(['r', 'R']))
                });
                for w in rest {
                    match w.literal.as_deref() {
                        Some("--") if options => options = false,
                        Some(l) if options && l.starts_with('-') => {}
                        _ if recursive => {
                            let w = w.clone();
                            self.changes_inside(&w);
                        }
                        _ => {}
                    }
                }
            }
            "remove" => {
                self.emit(argv);
                let files: Vec<WordVal> = rest
                    .iter()
                    .filter(|w| !matches!(w.literal.as_deref(), Some("-f" | "\\-f")))
                    .cloned()
                    .collect();
                let force = files.len() < rest.len();
                self.cmake_as(argv, "rm", if force { &["-f"] } else { &[] }, &files);
            }
            "remove_directory" => {
                self.emit(argv);
                self.cmake_as(argv, "rm", &["-rf", "--"], rest);
                for w in rest {
                    let w = w.clone();
                    self.changes_inside(&w);
                }
            }
            "make_directory" => {
                self.emit(argv);
                self.cmake_as(argv, "mkdir", &["-p", "--"], rest);
            }
            "touch" => {
                self.emit(argv);
                self.cmake_as(argv, "touch", &["--"], rest);
            }
            "touch_nocreate" => {
                self.emit(argv);
                self.cmake_as(argv, "touch", &["-c", "--"], rest);
            }
            "rename" => {
                self.emit(argv);
                self.cmake_as(argv, "mv", &["--"], rest);
            }
            "copy" | "copy_if_different" | "copy_if_newer" => {
                // `copy -t DEST FILE…` as cp's.
                self.emit(argv);
                self.cmake_as(argv, "cp", &[], rest);
            }
            "copy_directory" | "copy_directory_if_different" | "copy_directory_if_newer" => {
                self.emit(argv);
                self.cmake_as(argv, "cp", &["-r", "--"], rest);
            }
            "create_symlink" => {
                self.emit(argv);
                self.cmake_as(argv, "ln", &["-s", "--"], rest);
            }
            "create_hardlink" => {
                self.emit(argv);
                self.cmake_as(argv, "ln", &["--"], rest);
            }
            "tar" => {
                // `tar FLAGS ARCHIVE [FILE…] [--options]`: `x` extracts
                // here, `c` writes the archive.
                self.emit(argv);
                let flags = rest.first().map(|w| w.literal.as_deref());
                match flags {
                    Some(Some(f)) => {
                        if f.contains('x') {
                            self.writes_inside(&WordVal::literal("."));
                        }
                        if f.contains('c') {
                            self.wrapper_output(argv, rest.get(1), false);
                        }
                    }
                    Some(None) => self
                        .writes_unknown(argv, "cmake -E tar is given flags computed at run time"),
                    None => {}
                }
            }
            "echo" | "echo_append" | "cat" | "compare_files" | "md5sum" | "sha1sum"
            | "sha224sum" | "sha256sum" | "sha384sum" | "sha512sum" | "sleep" | "true"
            | "false" | "capabilities" | "environment" | "help" => self.emit(argv),
            _ => {
                self.emit(argv);
                self.uncertain(
                    UncertainKind::Command,
                    &self.text(argv),
                    format!(
                        "`cmake -E {mode}` is not one of the modes read here, and may run programs"
                    ),
                );
            }
        }
        true
    }

    /// `cmake -E env [--unset=NAME] [--modify NAME=OP:VALUE] [--]
    /// [NAME=VALUE]… COMMAND…`.
    fn cmake_env(&mut self, argv: &[WordVal]) {
        let mut i = 3;
        while let Some(w) = argv.get(i) {
            let Some(l) = w.literal.as_deref() else { break };
            if l == "--" {
                i += 1;
                break;
            }
            if let Some(name) = l.strip_prefix("--unset=") {
                self.assigned_name(name);
            } else if l == "--modify" {
                i += 1;
                match argv.get(i).and_then(|v| v.literal.as_deref()) {
                    Some(op) => {
                        // `NAME=OP:VALUE`: the value the operation gives.
                        let name = op.split_once('=').map_or(op, |(n, _)| n).to_string();
                        self.variable_set(&name, None);
                    }
                    None => {
                        return self.uncertain(
                            UncertainKind::Command,
                            &self.text(argv),
                            "the variable changed is computed at run time",
                        );
                    }
                }
            } else if l.starts_with('-') {
                return self.unknown_option(argv, l);
            } else if let Some((name, value)) = l.split_once('=') {
                self.variable_set(name, Some(&WordVal::literal(value)));
            } else {
                break;
            }
            i += 1;
        }
        if i >= argv.len() {
            return self.emit(argv);
        }
        self.unwrap(argv, i);
    }

    /// The command a file mode of `cmake -E` amounts to: `program`, then
    /// `options`, then the mode's operands; it meets the deny and ask
    /// rules for that program and its operands are checked as the
    /// program's, while the cmake command was allowed as written.
    fn cmake_as(
        &mut self,
        argv: &[WordVal],
        program: &str,
        options: &[&str],
        operands: &[WordVal],
    ) {
        let mut words = vec![WordVal::literal(program)];
        words.extend(options.iter().map(|o| WordVal::literal(o)));
        words.extend_from_slice(operands);
        self.outer.push(self.text(argv));
        self.emit_as(
            &words,
            Some("cmake -E does what this command would, and the cmake command was checked as written"),
        );
        self.outer.pop();
    }
}
