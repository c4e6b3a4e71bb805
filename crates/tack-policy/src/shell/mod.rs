//! Shell-command analysis on a parsed command (brush-parser's AST), never on
//! the string.
//!
//! The analyser walks every construct that can run something — lists,
//! pipelines, subshells, groups, `$(…)`, backticks, process substitution,
//! if/while/for/case bodies, function bodies, here-documents, parameter
//! expansions — and the strings run by `bash -c`, `eval`, `trap` and friends
//! (parsed recursively up to [`MAX_DEPTH`]), and the commands options run
//! (`git grep -O`, `rsync -e`; see [`programs`] and [`git`]). Wrappers
//! (`env`, `timeout`, `xargs`, `find -exec`, `sudo`, …) are seen through; they
//! always run the program, so only a bare call reaches a function defined
//! earlier in the command (whose body was checked where it was defined). The
//! result is a flat
//! list of [`Item`]s: simple commands, files written, files touched, and
//! uncertainties (anything that cannot be known before running, which the
//! policy turns into `ask`). What a command may cost to check is bounded
//! (size, nesting, tokens, bytes parsed, time; see [`limits`]): beyond a
//! bound it is uncertain too.

mod aliases;
mod commands;
mod equivalents;
pub(crate) use commands::{runs_the_command_it_is_given, runs_what_it_is_given, unversioned_names};
mod config_files;
mod credentials;
mod database_clients;
mod git;
mod git_writes;
mod guesses;
mod hosts;
mod interpreters;
mod limits;
mod options;
mod programs;
mod read_only;
mod reads;
mod removals;
mod simple;
mod system_programs;
mod variables;
pub(crate) mod words;

pub(crate) use hosts::{conninfo_hosts, url_or_host};
pub(crate) use options::could_be_option;
pub(crate) use read_only::ReadOnly;
pub(crate) use reads::is_reader;
pub(crate) use simple::{computed_prefix_tails, fixed_words, simple_command_words};

use std::path::{Path, PathBuf};
use std::sync::Arc;

use brush_parser::ast;
use brush_parser::word::{ParameterExpr, TildeExpr, WordPiece, WordPieceWithSource};

use crate::paths::{Resolution, ResolvedPath, Resolver};
use commands::Frame;

/// How deep `bash -c`, `eval` and substitutions may nest before the command
/// is considered unreadable.
pub(crate) const MAX_DEPTH: usize = 8;
/// Possible working directories tracked through `cd` before giving up.
const MAX_CWDS: usize = 8;
/// Items collected before giving up.
const MAX_ITEMS: usize = 1024;
/// POSIX special builtins: in POSIX mode they are found before functions
/// (and a function cannot be defined with their name), so a function so
/// named is never taken to shadow them.
const SPECIAL_BUILTINS: &[&str] = &[
    "break", ":", ".", "continue", "eval", "exec", "exit", "export", "readonly", "return", "set",
    "shift", "times", "trap", "unset", "source",
];

/// What an uncertainty is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UncertainKind {
    /// Which command runs (or what it does) cannot be known.
    Command,
    /// Which file is written cannot be known.
    Edit,
    /// The command runs code that is not written here (a script file,
    /// stdin, `git -c core.pager=…`): it matters only when deny or ask
    /// rules could be circumvented through it.
    Opaque,
    /// Which file a command reads (or changes) cannot be known: it matters
    /// only when Read (or Edit) deny or ask rules exist, since a path a
    /// command touches is checked against those alone.
    Touch(Family),
    /// Which host a command reaches cannot be known (`curl "$URL"`): it
    /// matters only when `WebFetch(domain:…)` deny or ask rules exist.
    Host,
}

/// Read or Edit family, for paths a command touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    Read,
    Edit,
    /// A path given to a program not known to leave the files it is given
    /// alone (`black f.py`, `gcc -o f`, `python3 tool.py f`): it may change
    /// it. Edit deny and ask rules make it an ask, not a deny.
    MaybeEdit,
}

impl Family {
    /// The tool whose path rules govern it: `Read`, or `Edit` for a file
    /// changed or maybe changed.
    pub(crate) fn rules_tool(self) -> &'static str {
        match self {
            Family::Read => "Read",
            Family::Edit | Family::MaybeEdit => "Edit",
        }
    }
}

/// One thing found in a command.
#[derive(Debug, Clone)]
pub(crate) enum Item {
    /// A simple command, wrappers removed.
    Command(Command),
    /// A file written by a redirection, `tee`, `time -o`, `find -fprint` or
    /// a program's option (`sort -o`, `sed -i`; see [`programs`]): checked
    /// as an edit (must be allowed).
    Edit { written: String, path: ResolvedPath },
    /// Files whose names only the run knows, written inside a directory
    /// (`tar -x -C dir`, `unzip -d dir`, `find dir -delete`): checked as
    /// edits of everything inside it, asked when a deny or ask rule applies
    /// somewhere inside. They must be allowed as edits, unless
    /// `restrict_only` (`rm -r dir`, `git checkout`: commands whose Bash rule
    /// is the user's word for the files they change), when only deny and
    /// ask rules count.
    EditInside {
        written: String,
        path: ResolvedPath,
        restrict_only: bool,
    },
    /// A file the shell opens for a command's input (`< f`, `$(< f)`,
    /// `exec 3< f`): read whatever the command is, so it is held to the
    /// working directories where the rest needs no rule.
    Input { path: ResolvedPath },
    /// A path a command names (argument or input redirection): checked
    /// against deny and ask rules only.
    Touch {
        family: Family,
        written: String,
        path: ResolvedPath,
        /// Everything under it is read (`grep -r`, `tar -c`): a Read deny
        /// or ask rule for something inside applies (the request looks
        /// inside; see [`crate::request`]).
        recursive: bool,
    },
    /// A directory read whole by a program that leaves hidden entries out
    /// (`rg KEY .` without `--hidden`, `-uu`, or globs, types and ignore
    /// files that can let one in): a recursive Read [`Item::Touch`] of what
    /// is not hidden under it (`.env`, `.aws/` are not read), and of the
    /// path itself. With `ignores`, what its ignore files leave out
    /// (`.gitignore` in a repository, `.ignore`, `.rgignore`, git's
    /// excludes) is not read either, as ripgrep walks it.
    ReadVisible {
        written: String,
        path: ResolvedPath,
        ignores: bool,
    },
    /// A directory read whole by a program whose own filters narrow what
    /// it reads (`rg -g '*.rs'`, `grep -r --exclude=.env`, `tar
    /// --exclude=.env`, `zip -r . -x .env`): a recursive Read
    /// [`Item::Touch`] of what they let through, and of the path itself.
    ReadNarrowed {
        written: String,
        path: ResolvedPath,
        names: reads::NameFilter,
    },
    /// What git prints from the files it tracks without their names being
    /// written (`git log -p`, `git show`, `git diff`, `git grep`, `git
    /// archive`, `git cat-file -p OBJECT`): checked against the Read deny
    /// and ask rules for each file git tracks in `worktree` under `within`
    /// (everywhere when empty) and not under `except` (see
    /// [`crate::git_index`]); when what it tracks cannot be known, as a
    /// read of everything under `worktree`.
    GitContent {
        written: String,
        worktree: ResolvedPath,
        within: Vec<ResolvedPath>,
        except: Vec<ResolvedPath>,
    },
    /// A file or directory a file-changing command (`cp`'s destination,
    /// `rm`'s, `mv`'s, `chmod`'s operands) changes: checked against the
    /// protected paths (see [`crate::safeguard`]); deny and ask rules see
    /// it as a [`Item::Touch`].
    Written { written: String, path: ResolvedPath },
    /// What `rm` or `rmdir` removes: checked against the critical paths.
    Removal {
        written: String,
        removed: crate::safeguard::Removed,
    },
    /// A host a command reaches (`curl https://host/x`, `ssh host`):
    /// checked against `WebFetch(domain:…)` deny and ask rules only (see
    /// [`hosts`]).
    Host { written: String, host: String },
    /// Something that cannot be known before running.
    Uncertain {
        kind: UncertainKind,
        snippet: String,
        reason: String,
    },
}

/// A simple command as the policy sees it.
#[derive(Debug, Clone)]
pub(crate) struct Command {
    /// The program's base name (`rm` for `/bin/rm`).
    pub base: String,
    /// Canonical form: literal words quoted only when needed, dynamic words
    /// as written, ` …` when more arguments come from elsewhere (`xargs`).
    pub text: String,
    /// The words as written, joined by single spaces.
    pub raw: String,
    /// Literal words unquoted (deny/ask matching).
    pub plain: String,
    /// Forms with the program's base name, when it was written as a path.
    pub basename_forms: Vec<String>,
    /// Text of the wrappers around it (`timeout 5 rm x`): deny/ask only.
    pub outer: Vec<Arc<str>>,
    /// Text of privilege wrappers (`sudo …`): must be allowed as well.
    pub privileged: Vec<Arc<str>>,
    /// Known text before the first dynamic word, when there is one.
    pub dynamic_prefix: Option<String>,
    /// Resolved operands (None when one is dynamic or the directory is unknown).
    pub path_args: Option<Vec<ResolvedPath>>,
    /// What it does is checked in another form, so it meets deny and ask
    /// rules but needs no allow rule of its own; says which form. A call of
    /// a function defined earlier in the command (its body was checked where
    /// it was defined); the `rm -rf …` that `find -delete` amounts to (what
    /// it removes was checked as edits).
    pub checked_elsewhere: Option<&'static str>,
    /// Whether it is one of the commands that only read (see
    /// [`read_only`]), and how it reads.
    pub read_only: ReadOnly,
    /// Not a command of its own but the form of the one written (in
    /// [`Command::outer`]'s last entry) that it amounts to: `rm a.txt` for
    /// `unlink a.txt` (see [`equivalents`]). Met with deny and ask rules
    /// only; says what makes them alike.
    pub equivalent: Option<&'static str>,
    /// Not seen to run, only guessed: words a program tack does not know
    /// may run as a command (`devbox run rm -rf x`, `xonsh -c 'rm x'`; see
    /// [`guesses`]). A deny or ask rule that matches makes it an ask; it
    /// needs no allow rule.
    pub guessed: bool,
}

/// Where the shell might be when a command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cwds {
    Known(Vec<PathBuf>),
    Unknown,
}

/// A word after analysis.
#[derive(Debug, Clone)]
pub(crate) struct WordVal {
    /// As written.
    pub raw: String,
    /// Its value when it is fixed before running (quotes removed).
    pub literal: Option<String>,
    /// Starts with `~` (home directory).
    pub tilde: bool,
    /// Holds an unquoted `*`, `?` or `[`: the shell expands it to file names.
    pub glob: bool,
}

impl WordVal {
    /// A word whose value is `s` as written.
    fn literal(s: &str) -> WordVal {
        WordVal {
            raw: s.to_string(),
            literal: Some(s.to_string()),
            tilde: false,
            glob: false,
        }
    }

    fn dynamic(raw: impl Into<String>) -> WordVal {
        WordVal {
            raw: raw.into(),
            literal: None,
            tilde: false,
            glob: false,
        }
    }
}

/// Whether a command line may name a file tack's tools never read (a
/// process's `environ` or `mem`, tack's `mcp-oauth.json` in its state
/// directory; see `evaluate::process_secret`): then the paths it names are
/// collected even with no Read or Edit rule. A look at the text, so a
/// command that names none pays nothing.
pub(crate) fn may_name_a_secret(command: &str) -> bool {
    ["environ", "mem", "proc", "oauth", "state"]
        .iter()
        .any(|w| command.contains(w))
}

/// Analyse a command line run with working directory `cwd`. With
/// `touches`, paths named as arguments are collected for deny/ask checks.
pub(crate) fn analyze(
    command: &str,
    cwd: &Path,
    home: Option<&Path>,
    how: Resolution,
    touches: bool,
) -> Vec<Item> {
    // bash drops the NUL bytes of a script it reads (`r\0m x` runs rm):
    // the command is read as bash will run it.
    let without_nul;
    let command = if command.contains('\0') {
        without_nul = command.replace('\0', "");
        without_nul.as_str()
    } else {
        command
    };
    let mut a = Analyzer::new(
        Resolver::new(how),
        touches,
        home.map(Path::to_path_buf),
        cwd,
        limits::Budget::new(command.len()),
    );
    if let Err(reason) = limits::check_size(command) {
        a.uncertain(UncertainKind::Command, command, reason);
        return a.items;
    }
    a.script(command);
    if a.function_called && a.functions_changed {
        // Something may remove or replace a function (`unset`, `source`),
        // and order alone (loops, traps, function bodies, `eval`) cannot
        // tell which calls still reach it: judge every call as the program.
        a = Analyzer::new(
            a.resolver,
            touches,
            a.home,
            cwd,
            limits::Budget::new(command.len()),
        );
        a.no_functions = true;
        a.script(command);
    }
    a.items
}

impl Analyzer {
    fn new(
        resolver: Resolver,
        touches: bool,
        home: Option<PathBuf>,
        cwd: &Path,
        budget: limits::Budget,
    ) -> Analyzer {
        Analyzer {
            resolver,
            touches,
            home,
            cwds: Cwds::Known(vec![cwd.to_path_buf()]),
            items: Vec::new(),
            depth: 0,
            outer: Vec::new(),
            privileged: Vec::new(),
            frames: Vec::new(),
            open_tail: false,
            output_read: false,
            input_fed: false,
            cd_seen: 0,
            functions: Vec::new(),
            glob_options_changed: false,
            input_files: Vec::new(),
            git_aliases: Vec::new(),
            remotes: std::cell::RefCell::new(None),
            git_elsewhere: false,
            runner_depth: 0,
            simple_start: 0,
            option_runner: None,
            extra_forms: Vec::new(),
            no_functions: false,
            functions_changed: false,
            function_called: false,
            relinked: Vec::new(),
            find_roots: None,
            command_start: 0,
            start: cwd.to_path_buf(),
            opts: brush_parser::ParserOptions::default(),
            budget,
            config: config_files::ConfigState::default(),
            aliases: aliases::Aliases::default(),
            located: variables::Located::default(),
            child_home: None,
        }
    }
}

/// Whether `text` reads as shell code: the shell parser takes it whole,
/// within the bounds of an analysis. Text that may be code of another
/// language (an MCP input's `script`: JavaScript for a browser, Python) is
/// read as a shell's only then.
pub(crate) fn reads_as_shell(text: &str) -> bool {
    let opts = brush_parser::ParserOptions::default();
    let mut budget = limits::Budget::new(text.len());
    let Ok(tokens) = limits::tokenize(text, &opts, &mut budget) else {
        return false;
    };
    let Ok(levels) = limits::token_nesting(&tokens, &mut budget) else {
        return false;
    };
    limits::with_stack(levels, || parse_tokens(&tokens, &opts).is_ok())
}

/// Parse tokens into a program, turning parser panics into errors.
fn parse_tokens(
    tokens: &[brush_parser::Token],
    opts: &brush_parser::ParserOptions,
) -> Result<ast::Program, String> {
    match std::panic::catch_unwind(|| brush_parser::parse_tokens(tokens, opts)) {
        Ok(Ok(p)) => Ok(p),
        Ok(Err(e)) => Err(format!("the shell parser cannot read it ({e})")),
        Err(_) => Err("the shell parser failed on it".into()),
    }
}

/// Shorten long snippets for messages.
pub(crate) fn snippet(s: &str) -> String {
    const MAX: usize = 120;
    let s = s.trim();
    // Bounded by MAX, not by the text: a long command is cut many times.
    if s.chars().take(MAX + 1).count() <= MAX {
        return s.to_string();
    }
    let cut: String = s.chars().take(MAX).collect();
    format!("{cut}…")
}

#[derive(Default)]
struct WordState {
    out: String,
    skeleton: String,
    dynamic: bool,
    tilde: bool,
}

/// Whether unquoted text holds pathname-expansion characters: `*`, `?`,
/// `[` with a `]` after it (an unmatched `[`, as in the command `[ -f x ]`,
/// matches itself), or an extended pattern (`@(…)`, `+(…)`, `!(…)`), which
/// bash expands once `shopt -s extglob` is on.
fn has_glob(text: &str) -> bool {
    let bracket = text.find('[').is_some_and(|i| text[i + 1..].contains(']'));
    text.contains(['*', '?']) || bracket || ["@(", "+(", "!("].iter().any(|p| text.contains(p))
}

/// A git command's words, where it runs, and the remotes they reach.
type RemotesSeen = ((Vec<String>, Cwds), (Vec<WordVal>, Vec<String>));

pub(crate) struct Analyzer {
    resolver: Resolver,
    /// Collect paths named as arguments (only when rules could deny them).
    touches: bool,
    home: Option<PathBuf>,
    cwds: Cwds,
    items: Vec<Item>,
    depth: usize,
    outer: Vec<Arc<str>>,
    privileged: Vec<Arc<str>>,
    /// The command lines being read, outermost first, each with its text
    /// once written out (see [`Analyzer::text`]).
    frames: Vec<Frame>,
    /// The next emitted command gets more arguments at run time (xargs).
    open_tail: bool,
    /// What the commands read now print is read by a program that may run
    /// or fetch it (`echo … | sh`, `$(echo …)`; see
    /// [`hosts::text_words`]).
    output_read: bool,
    /// The command line feeds the commands read now their input: a pipe
    /// from an earlier stage, `< f`, a here-document or here-string.
    input_fed: bool,
    /// Directory changes seen so far.
    cd_seen: usize,
    /// Functions defined so far and visible here.
    functions: Vec<String>,
    /// Inside a package runner's command (see `package_runner`).
    runner_depth: usize,
    /// git aliases set so far (`git config alias.p push`): name, value.
    git_aliases: Vec<(String, String)>,
    /// The last git command's remotes ([`Analyzer::remote_urls`]), by its
    /// words: read once for its hosts and its copies.
    remotes: std::cell::RefCell<Option<RemotesSeen>>,
    /// The git command being analysed names its repository or working
    /// tree itself (`--git-dir`, `--work-tree`): not the one found from
    /// the working directory.
    git_elsewhere: bool,
    /// More forms of the next emitted command for deny and ask rules (see
    /// [`Command::basename_forms`]).
    extra_forms: Vec<String>,
    /// A `shopt` ran: patterns may match otherwise than the resolver
    /// expands them (`nocaseglob`, `extglob`, `dotglob`, `nullglob`, …).
    glob_options_changed: bool,
    /// Files redirected to the input so far (`< f`, `exec < f`): writing
    /// `/dev/stdin` reopens one of them for writing.
    input_files: Vec<WordVal>,
    /// Judge every call as the program, functions or not.
    no_functions: bool,
    /// Something may have removed or replaced a function (`unset`,
    /// `source`).
    functions_changed: bool,
    /// A call was judged as a call of a function defined earlier.
    function_called: bool,
    /// Paths that an earlier command may have replaced by a link (`ln`,
    /// `mv`, `cp` operands): what lies under them is unknown until run time.
    relinked: Vec<PathBuf>,
    /// The starting points of the `find` whose `-exec` command is being
    /// read: its `{}` is a file under them.
    find_roots: Option<Vec<WordVal>>,
    /// Where the items of the simple command last emitted begin (its
    /// operands' touches come before its own item).
    command_start: usize,
    /// Where the items of the simple command being read begin (its
    /// redirections and the commands its words run aside).
    simple_start: usize,
    /// The items of the program whose option runs the command being read
    /// (see [`Analyzer::option_script`]).
    option_runner: Option<std::ops::Range<usize>>,
    /// The directory the command starts in.
    start: PathBuf,
    opts: brush_parser::ParserOptions,
    /// What is left of the work this command may cost (see [`limits`]).
    budget: limits::Budget,
    /// Variables that move a program's configuration, and the
    /// configuration files read (see [`config_files`]).
    config: config_files::ConfigState,
    /// The aliases defined so far (see [`aliases`]).
    aliases: aliases::Aliases,
    /// The values given to the variables that locate git's configuration
    /// (see [`variables`]).
    located: variables::Located,
    /// The HOME a command's own assignment gives the program it runs
    /// (`HOME=d bash -c …`, `env HOME=d …`), while the shell expands `~`
    /// in the command's words with its own: a script the program runs
    /// follows it (see [`Analyzer::script`]).
    child_home: Option<Option<PathBuf>>,
}

impl Analyzer {
    fn push(&mut self, item: Item) {
        if self.items.len() == MAX_ITEMS {
            self.items.push(Item::Uncertain {
                kind: UncertainKind::Command,
                snippet: String::new(),
                reason: "the command is too large to check".into(),
            });
        }
        if self.items.len() <= MAX_ITEMS {
            self.items.push(item);
        }
    }

    /// More items than are checked were found: the command is uncertain
    /// already, and finding more (resolving their paths) is wasted work.
    pub(crate) fn is_full(&self) -> bool {
        self.items.len() > MAX_ITEMS
    }

    fn uncertain(&mut self, kind: UncertainKind, snip: &str, reason: impl Into<String>) {
        self.push(Item::Uncertain {
            kind,
            snippet: snippet(snip),
            reason: reason.into(),
        });
    }

    /// Text that was not parsed: uncertain, said once when the budget ran out.
    fn refused(&mut self, snip: &str, refusal: limits::Refusal) {
        if let limits::Refusal::Bound(reason) = refusal {
            self.uncertain(UncertainKind::Command, snip, reason);
        }
    }

    /// Parse and walk a script (the top level, `bash -c`, `eval`, `$(…)`).
    fn script(&mut self, src: &str) {
        if self.depth >= MAX_DEPTH {
            self.uncertain(
                UncertainKind::Command,
                src,
                "commands are nested too deeply to check",
            );
            return;
        }
        let tokens = match limits::tokenize(src, &self.opts, &mut self.budget) {
            Ok(tokens) => tokens,
            Err(refusal) => return self.refused(src, refusal),
        };
        let levels = match limits::token_nesting(&tokens, &mut self.budget) {
            Ok(levels) => levels,
            Err(refusal) => return self.refused(src, refusal),
        };
        self.depth += 1;
        let child_home = self.child_home.take();
        let home = match child_home.clone() {
            Some(h) => Some(std::mem::replace(&mut self.home, h)),
            None => None,
        };
        let tail = std::mem::take(&mut self.open_tail);
        let functions = std::mem::take(&mut self.functions);
        // Parse, walk and drop the tree on a stack deep enough for it.
        let unreadable = limits::with_stack(levels, || match parse_tokens(&tokens, &self.opts) {
            Ok(program) => {
                for list in &program.complete_commands {
                    self.compound_list(list);
                }
                false
            }
            Err(reason) => {
                // What the parser rejects bash may still run whole (`select
                // … do … done`, `f() [[ … ]]`), and it runs the lines before
                // one it cannot read: what the text reaches, reads and
                // writes is unknown, to the path rules and the protected
                // paths as to the Bash rules.
                self.uncertain(
                    UncertainKind::Host,
                    src,
                    "the shell parser cannot read it, and bash may run it (or the lines before the error) and reach any host",
                );
                for family in [Family::Read, Family::Edit] {
                    self.uncertain(
                        UncertainKind::Touch(family),
                        src,
                        "the shell parser cannot read it, and bash may run it (or the lines before the error) and touch any file",
                    );
                }
                self.uncertain(
                    UncertainKind::Edit,
                    src,
                    "the shell parser cannot read it, and the files bash may write when it runs it are unknown",
                );
                self.uncertain(UncertainKind::Command, src, reason);
                true
            }
        });
        self.open_tail = tail;
        self.functions = functions;
        if let Some(h) = home {
            self.home = h;
        }
        self.child_home = child_home;
        self.depth -= 1;
        if unreadable {
            self.lines_before_the_error(src);
        }
    }

    /// A script the parser cannot read: bash reads it line by line and runs
    /// each complete command before the line it cannot read (`cat .env` on
    /// the line before a stray `)` runs). The longest run of whole lines
    /// that parses among the last [`MAX_PREFIXES`] is read as what runs
    /// too, so that the rules that name it decide; what the rest reads and
    /// writes is unknown (see [`Analyzer::script`]): bash may run lines
    /// the parser rejects.
    fn lines_before_the_error(&mut self, src: &str) {
        const MAX_PREFIXES: usize = 16;
        let ends: Vec<usize> = src
            .match_indices('\n')
            .map(|(i, _)| i)
            .filter(|&i| i > 0)
            .collect();
        for &end in ends.iter().rev().take(MAX_PREFIXES) {
            let prefix = &src[..end];
            let Ok(tokens) = limits::tokenize(prefix, &self.opts, &mut self.budget) else {
                break;
            };
            let Ok(levels) = limits::token_nesting(&tokens, &mut self.budget) else {
                break;
            };
            let opts = &self.opts;
            if limits::with_stack(levels, || parse_tokens(&tokens, opts).is_ok()) {
                return self.script(prefix);
            }
        }
    }

    /// Walk something that may not run, or runs in a subshell (a branch,
    /// a loop, `&&`/`||`, a pipeline, `( )`, `&`): functions defined there
    /// are visible inside it, not after it.
    fn conditionally(&mut self, walk: impl FnOnce(&mut Analyzer)) {
        let known = self.functions.len();
        walk(self);
        self.functions.truncate(known);
    }

    fn compound_list(&mut self, list: &ast::CompoundList) {
        for ast::CompoundListItem(and_or, separator) in &list.0 {
            if self.is_full() {
                // Too large to check already: reading on changes nothing.
                return;
            }
            let walk = |a: &mut Analyzer| {
                a.pipeline(&and_or.first);
                a.conditionally(|a| {
                    for next in &and_or.additional {
                        match next {
                            ast::AndOr::And(p) | ast::AndOr::Or(p) => a.pipeline(p),
                        }
                    }
                });
            };
            if matches!(separator, ast::SeparatorOperator::Async) {
                self.conditionally(walk);
            } else {
                walk(self);
            }
        }
    }

    fn pipeline(&mut self, p: &ast::Pipeline) {
        if p.seq.len() == 1 {
            for cmd in &p.seq {
                self.command(cmd);
            }
        } else {
            // Whether a stage's output goes on to a program that may run
            // or fetch it: one after it that does more than filter text.
            let mut read_after = vec![false; p.seq.len()];
            for k in (0..p.seq.len().saturating_sub(1)).rev() {
                read_after[k] = read_after[k + 1] || !hosts::filters_text(&p.seq[k + 1]);
            }
            for (k, cmd) in p.seq.iter().enumerate() {
                let read = read_after[k];
                let (saved, fed) = (self.output_read, self.input_fed);
                self.output_read = saved || read;
                self.input_fed = fed || k > 0;
                self.conditionally(|a| a.command(cmd));
                self.output_read = saved;
                self.input_fed = fed;
            }
        }
    }

    fn command(&mut self, cmd: &ast::Command) {
        match cmd {
            ast::Command::Simple(sc) => self.simple(sc),
            ast::Command::Compound(cc, redirects) => {
                let (saved, fed) = (self.output_read, self.input_fed);
                if let Some(r) = redirects {
                    self.redirect_list(r);
                    self.output_read |= r.0.iter().any(|r| writes_to_file(&r));
                    self.input_fed |= r.0.iter().any(feeds_input);
                }
                self.compound(cc);
                self.output_read = saved;
                self.input_fed = fed;
            }
            ast::Command::Function(f) => self.function(f),
            ast::Command::ExtendedTest(t, redirects) => {
                if let Some(r) = redirects {
                    self.redirect_list(r);
                }
                self.extended_test(&t.expr);
            }
        }
    }

    fn compound(&mut self, cc: &ast::CompoundCommand) {
        match cc {
            ast::CompoundCommand::Arithmetic(a) => self.arithmetic(&a.expr.value),
            ast::CompoundCommand::ArithmeticForClause(f) => {
                self.loop_body(|a| {
                    for e in [&f.initializer, &f.condition, &f.updater]
                        .into_iter()
                        .flatten()
                    {
                        a.arithmetic(&e.value);
                    }
                    a.compound_list(&f.body.list);
                });
            }
            ast::CompoundCommand::BraceGroup(g) => self.compound_list(&g.list),
            ast::CompoundCommand::Subshell(s) => self.conditionally(|a| a.compound_list(&s.list)),
            ast::CompoundCommand::ForClause(f) => {
                // `for PATH in ./evil; do ls; done` assigns PATH each value
                // in turn (the positional parameters without `in`).
                match &f.values {
                    Some(values) if !values.is_empty() => {
                        for w in values {
                            let v = self.eval_word(&w.value);
                            self.variable_set(&f.variable_name, Some(&v));
                        }
                    }
                    Some(_) => self.assigned_name(&f.variable_name),
                    None => self.variable_set(&f.variable_name, None),
                }
                self.loop_body(|a| a.compound_list(&f.body.list));
            }
            ast::CompoundCommand::CaseClause(c) => {
                self.eval_word(&c.value.value);
                self.conditionally(|a| {
                    for case in &c.cases {
                        for p in &case.patterns {
                            a.eval_word(&p.value);
                        }
                        if let Some(list) = &case.cmd {
                            a.compound_list(list);
                        }
                    }
                });
            }
            ast::CompoundCommand::IfClause(i) => {
                self.compound_list(&i.condition);
                self.conditionally(|a| {
                    a.compound_list(&i.then);
                    for e in i.elses.iter().flatten() {
                        if let Some(c) = &e.condition {
                            a.compound_list(c);
                        }
                        a.compound_list(&e.body);
                    }
                });
            }
            ast::CompoundCommand::WhileClause(w) | ast::CompoundCommand::UntilClause(w) => {
                self.loop_body(|a| {
                    a.compound_list(&w.0);
                    a.compound_list(&w.1.list);
                });
            }
            ast::CompoundCommand::Coprocess(c) => {
                if let Some(name) = &c.name {
                    // `coproc NAME …` assigns the array NAME and NAME_PID.
                    self.eval_word(&name.value);
                    self.assigned_name(&name.value);
                    self.assigned_name(&format!("{}_PID", name.value));
                }
                self.conditionally(|a| a.command(&c.body));
            }
        }
    }

    /// A loop body runs again after its own `cd`: when it changes directory,
    /// walk it again with the directory unknown.
    fn loop_body(&mut self, walk: impl Fn(&mut Analyzer)) {
        let start = self.items.len();
        let seen = self.cd_seen;
        let known = self.functions.len();
        walk(self);
        if self.cd_seen != seen {
            self.items.truncate(start);
            self.functions.truncate(known);
            self.cwds = Cwds::Unknown;
            walk(self);
        }
        self.functions.truncate(known);
    }

    /// A function body runs whenever it is called, from wherever the shell
    /// is then: walk it with the directory unknown. Later bare calls of its
    /// name reach it (see [`Analyzer::call`]), unless it is named like a
    /// special builtin, which POSIX mode finds before any function.
    fn function(&mut self, f: &ast::FunctionDefinition) {
        let saved = std::mem::replace(&mut self.cwds, Cwds::Unknown);
        let seen = self.cd_seen;
        let ast::FunctionBody(body, redirects) = &f.body;
        self.conditionally(|a| {
            if let Some(r) = redirects {
                a.redirect_list(r);
            }
            a.compound(body);
        });
        let name = &f.fname.value;
        if !name.contains('/') && !SPECIAL_BUILTINS.contains(&name.as_str()) && !self.no_functions {
            self.functions.push(name.clone());
        }
        self.cwds = if self.cd_seen != seen {
            Cwds::Unknown
        } else {
            saved
        };
    }

    fn extended_test(&mut self, e: &ast::ExtendedTestExpr) {
        use ast::{BinaryPredicate as B, ExtendedTestExpr as E, UnaryPredicate as U};
        match e {
            E::And(a, b) | E::Or(a, b) => {
                self.extended_test(a);
                self.extended_test(b);
            }
            E::Not(a) | E::Parenthesized(a) => self.extended_test(a),
            E::UnaryTest(pred, w) => {
                let v = self.eval_word(&w.value);
                // bash expands the word, then evaluates the subscript of the
                // name it expands to: `[[ -v $x ]]` with x='a[$(cmd)]' runs cmd.
                if matches!(
                    pred,
                    U::ShellVariableIsSetAndAssigned | U::ShellVariableIsSetAndNameRef
                ) && (w.value.contains('[') || v.literal.is_none())
                {
                    self.uncertain(
                        UncertainKind::Command,
                        &w.value,
                        "testing an array element evaluates its subscript, which can run commands",
                    );
                }
            }
            E::BinaryTest(pred, l, r) => {
                let lv = self.eval_word(&l.value);
                let rv = self.eval_word(&r.value);
                let arithmetic = matches!(
                    pred,
                    B::ArithmeticEqualTo
                        | B::ArithmeticNotEqualTo
                        | B::ArithmeticLessThan
                        | B::ArithmeticLessThanOrEqualTo
                        | B::ArithmeticGreaterThan
                        | B::ArithmeticGreaterThanOrEqualTo
                );
                if arithmetic {
                    for v in [lv, rv] {
                        if !v
                            .literal
                            .as_deref()
                            .is_some_and(words::is_static_arithmetic)
                        {
                            self.uncertain(
                                UncertainKind::Command,
                                &v.raw,
                                "arithmetic on variables can run commands hidden in their values",
                            );
                        }
                    }
                }
            }
        }
    }

    fn arithmetic(&mut self, expr: &str) {
        if expr.contains('$') || expr.contains('`') {
            // Substitutions inside run first; collect them.
            self.eval_word(expr);
        }
        if !words::is_static_arithmetic(expr) {
            self.uncertain(
                UncertainKind::Command,
                expr,
                "arithmetic on variables can run commands hidden in their values",
            );
        }
    }

    fn redirect_list(&mut self, list: &ast::RedirectList) {
        for r in &list.0 {
            self.redirect(r);
        }
    }

    fn redirect(&mut self, r: &ast::IoRedirect) {
        use ast::{IoFileRedirectKind as K, IoFileRedirectTarget as T};
        match r {
            ast::IoRedirect::File(fd, kind, target) => match target {
                T::Filename(w) => {
                    let v = self.eval_word(&w.value);
                    self.bash_network_path(&v);
                    if matches!(kind, K::Read | K::ReadAndWrite) {
                        match fd {
                            // `echo x 1<f >/dev/stdout`: the output's
                            // descriptor is f now, and opening /dev/stdout
                            // opens f again, for writing.
                            Some(1 | 2) => self.edit_target(&v),
                            Some(0) | None => self.input_files.push(v.clone()),
                            _ => {}
                        }
                    }
                    if matches!(kind, K::Read | K::ReadAndWrite | K::DuplicateInput) {
                        self.input(&v);
                    }
                    match kind {
                        K::Read => self.touch(Family::Read, &v),
                        K::ReadAndWrite => {
                            self.touch(Family::Read, &v);
                            self.edit_target(&v);
                        }
                        K::Write | K::Append | K::Clobber => self.edit_target(&v),
                        K::DuplicateOutput => self.edit_target(&v),
                        K::DuplicateInput => self.touch(Family::Read, &v),
                    }
                }
                T::Fd(_) => {}
                T::ProcessSubstitution(_, sub) => {
                    let saved = std::mem::replace(&mut self.output_read, true);
                    self.compound_list(&sub.list);
                    self.output_read = saved;
                }
                T::Duplicate(w) => {
                    let v = self.eval_word(&w.value);
                    self.bash_network_path(&v);
                    let is_fd = v.literal.as_deref().is_some_and(|l| {
                        let l = l.strip_suffix('-').unwrap_or(l);
                        l.is_empty() || l.chars().all(|c| c.is_ascii_digit())
                    });
                    if !is_fd {
                        match kind {
                            K::DuplicateInput | K::Read => self.touch(Family::Read, &v),
                            _ => self.edit_target(&v),
                        }
                    }
                }
            },
            ast::IoRedirect::HereDocument(_, doc) => {
                if doc.requires_expansion {
                    self.read_word(&doc.doc.value, true, "cannot read this here-document");
                }
            }
            ast::IoRedirect::HereString(_, w) => {
                self.eval_word(&w.value);
            }
            ast::IoRedirect::OutputAndError(w, _) => {
                let v = self.eval_word(&w.value);
                self.edit_target(&v);
            }
        }
    }

    /// A file written whose path is computed at run time but whose tail,
    /// as written, names a protected place (`"$PWD/.git/hooks/pre-commit"`,
    /// `"$HOME/.bashrc"`, `$(git rev-parse --git-dir)/config`): a
    /// protected write wherever the computed part points, so that an
    /// `Edit` allow rule, which takes the unknown write, does not take it.
    pub(super) fn computed_protected(&mut self, raw: &str) {
        let Some(tail) = protected_tail(raw) else {
            return;
        };
        let path = Path::new("/").join(&tail);
        if crate::safeguard::protected(&path).is_some() {
            self.push(Item::Written {
                written: raw.to_string(),
                path: ResolvedPath {
                    lexical: path.clone(),
                    canonical: path,
                },
            });
        }
    }

    /// A file written: must be allowed as an edit.
    pub(super) fn edit_target(&mut self, v: &WordVal) {
        if self.is_full() {
            return;
        }
        let Some(lit) = &v.literal else {
            self.uncertain(
                UncertainKind::Edit,
                &v.raw,
                "the file written is computed at run time",
            );
            self.computed_protected(&v.raw);
            return;
        };
        if matches!(lit.as_str(), "/dev/stdin" | "/dev/fd/0") {
            // Opening the input for writing reopens whatever it is:
            // `echo x < f > /dev/stdin` overwrites f.
            if self.input_files.is_empty() {
                self.uncertain(
                    UncertainKind::Edit,
                    lit,
                    "writing to /dev/stdin writes whatever the input is",
                );
            }
            for f in self.input_files.clone() {
                self.edit_target(&f);
            }
            return;
        }
        if is_exempt_device(lit) {
            return;
        }
        match self.resolve_word_path(lit, v.tilde, v.glob) {
            Ok(paths) => {
                for path in paths {
                    if self.is_relinked(&path) {
                        self.uncertain(
                            UncertainKind::Edit,
                            lit,
                            "an earlier command may have replaced part of this path by a link",
                        );
                    } else if !is_exempt_device(&path.lexical.to_string_lossy()) {
                        self.push(Item::Edit {
                            written: lit.clone(),
                            path,
                        });
                    }
                }
            }
            Err(reason) => self.uncertain(UncertainKind::Edit, lit, reason),
        }
    }

    /// A file opened for input by a redirection.
    fn input(&mut self, v: &WordVal) {
        let Some(lit) = &v.literal else { return };
        if lit.is_empty() || is_exempt_device(lit) {
            return;
        }
        if let Ok(paths) = self.resolve_word_path(lit, v.tilde, v.glob) {
            for path in paths {
                self.push(Item::Input { path });
            }
        }
    }

    /// A path named: checked against deny and ask rules.
    fn touch(&mut self, family: Family, v: &WordVal) {
        if self.is_full() {
            return;
        }
        let Some(lit) = &v.literal else { return };
        if lit.is_empty() || is_exempt_device(lit) {
            return;
        }
        let paths = match self.resolve_word_path(lit, v.tilde, v.glob) {
            Ok(paths) => paths,
            Err(reason) => return self.uncertain(UncertainKind::Touch(family), lit, reason),
        };
        {
            for path in paths {
                if self.is_relinked(&path) {
                    self.uncertain(
                        UncertainKind::Edit,
                        lit,
                        "an earlier command may have replaced part of this path by a link",
                    );
                    continue;
                }
                self.push(Item::Touch {
                    family,
                    written: lit.clone(),
                    path,
                    recursive: false,
                });
            }
        }
    }

    /// Whether `path` lies under something an earlier command may have
    /// turned into a link.
    pub(crate) fn is_relinked(&self, path: &ResolvedPath) -> bool {
        self.relinked
            .iter()
            .any(|r| path.lexical.starts_with(r) || path.canonical.starts_with(r))
    }

    /// Resolve a literal path word against every possible working
    /// directory; a pattern (`glob`) also as every file it expands to.
    fn resolve_word_path(
        &self,
        lit: &str,
        tilde: bool,
        glob: bool,
    ) -> Result<Vec<ResolvedPath>, String> {
        // The process that opens `/proc/self/cwd/…` is the command the
        // shell starts, in the shell's directory; its root is `/`.
        let lit = match ["/proc/self/", "/proc/thread-self/"]
            .iter()
            .find_map(|p| lit.strip_prefix(p))
        {
            Some(rest) if rest == "cwd" || rest.starts_with("cwd/") => {
                std::borrow::Cow::Owned(format!(".{}", &rest[3..]))
            }
            Some(rest) if rest == "root" || rest.starts_with("root/") => {
                std::borrow::Cow::Owned(format!("/{}", &rest[4..]))
            }
            _ => std::borrow::Cow::Borrowed(lit),
        };
        let lit: &str = &lit;
        let path: PathBuf = if tilde {
            let Some(home) = &self.home else {
                return Err("the home directory is unknown".into());
            };
            let rest = lit.trim_start_matches('~').trim_start_matches('/');
            home.join(rest)
        } else {
            PathBuf::from(lit)
        };
        let bases: Vec<PathBuf> = if path.is_absolute() {
            vec![PathBuf::from("/")]
        } else {
            match &self.cwds {
                Cwds::Known(dirs) => dirs.clone(),
                Cwds::Unknown => {
                    return Err(format!(
                        "`{lit}` is relative and the directory it is in depends on an earlier `cd`"
                    ));
                }
            }
        };
        let mut out = Vec::new();
        for base in &bases {
            out.push(self.resolver.resolve(&path, base)?);
            if glob {
                if self.glob_options_changed {
                    return Err(format!(
                        "`{lit}` is a pattern, and `shopt` changed how the shell matches patterns"
                    ));
                }
                if !self.resolver.uses_file_system() {
                    return Err(format!(
                        "`{lit}` is a pattern the shell expands to file names"
                    ));
                }
                let Some(matches) = self.resolver.expand(&base.join(&path)) else {
                    return Err(format!("`{lit}` matches too many files to check"));
                };
                for m in matches {
                    out.push(self.resolver.resolve(&m, Path::new("/"))?);
                }
            }
        }
        Ok(out)
    }

    fn simple(&mut self, sc: &ast::SimpleCommand) {
        let mut argv: Vec<WordVal> = Vec::new();
        let mut redirects: Vec<&ast::IoRedirect> = Vec::new();
        let moved = self.config_mark();
        let located = self.located_mark();
        let home = self.home.clone();
        if let Some(prefix) = &sc.prefix {
            for item in &prefix.0 {
                match item {
                    ast::CommandPrefixOrSuffixItem::AssignmentWord(a, _) => self.assignment(a),
                    other => self.word_item(other, &mut argv, &mut redirects),
                }
            }
        }
        let prefixed = self.config_mark();
        let located_prefixed = self.located_mark();
        if let Some(w) = &sc.word_or_name {
            let v = self.eval_word(&w.value);
            argv.push(v);
        }
        if let Some(suffix) = &sc.suffix {
            for item in &suffix.0 {
                self.word_item(item, &mut argv, &mut redirects);
            }
        }
        self.named_fds(sc);
        // What it prints into a file may be read later as a configuration
        // (`echo proxy=h > .curlrc`).
        let writes_output = redirects.iter().any(writes_to_file);
        let feeds = redirects.iter().any(|r| feeds_input(r));
        for r in redirects {
            self.redirect(r);
        }
        // Assignments before a program hold for it alone; before nothing,
        // a special builtin (POSIX mode) or a function, for what follows.
        let scoped = argv
            .first()
            .and_then(|w| w.literal.as_deref())
            .is_some_and(|name| {
                !SPECIAL_BUILTINS.contains(&name) && !self.functions.iter().any(|f| f == name)
            });
        let child_home = self.child_home.clone();
        if scoped && self.home != home {
            // `HOME=x cmd ~/f`: the shell expands `~` with its own HOME,
            // what cmd runs with x.
            self.child_home = Some(std::mem::replace(&mut self.home, home));
        }
        let (saved, fed) = (self.output_read, self.input_fed);
        self.output_read |= writes_output;
        self.input_fed |= feeds;
        let outer = std::mem::replace(&mut self.simple_start, self.items.len());
        self.call(argv);
        self.simple_start = outer;
        self.output_read = saved;
        self.input_fed = fed;
        self.child_home = child_home;
        if scoped {
            self.config_forget(moved, prefixed);
            self.located_forget(located, located_prefixed);
        }
    }

    /// `{NAME}>file` opens a file and assigns its descriptor to NAME
    /// (the parser reads `{NAME}` as a word before the redirection).
    fn named_fds(&mut self, sc: &ast::SimpleCommand) {
        use ast::CommandPrefixOrSuffixItem as I;
        let name_item = sc.word_or_name.as_ref().map(|w| I::Word(w.clone()));
        let items: Vec<&I> = sc
            .prefix
            .iter()
            .flat_map(|p| p.0.iter())
            .chain(name_item.as_ref())
            .chain(sc.suffix.iter().flat_map(|s| s.0.iter()))
            .collect();
        for pair in items.windows(2) {
            if let [I::Word(w), I::IoRedirect(_)] = pair
                && let Some(name) = w.value.strip_prefix('{').and_then(|v| v.strip_suffix('}'))
                && words::is_name(name)
            {
                self.assigned_name(name);
            }
        }
    }

    fn word_item<'b>(
        &mut self,
        item: &'b ast::CommandPrefixOrSuffixItem,
        argv: &mut Vec<WordVal>,
        redirects: &mut Vec<&'b ast::IoRedirect>,
    ) {
        match item {
            ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(r),
            ast::CommandPrefixOrSuffixItem::Word(w) => {
                let v = self.eval_word(&w.value);
                // `cp f{,.bak}` is `cp f f.bak`: bash's brace expansion
                // makes words, each read as written.
                match hosts::expanded_words(&v) {
                    hosts::Expanded::Words(words) => {
                        argv.extend(words.iter().map(|w| self.eval_word(w)));
                    }
                    hosts::Expanded::Unexpanded | hosts::Expanded::Unknown => argv.push(v),
                }
            }
            ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                let v = self.eval_word(&w.value);
                argv.push(v);
            }
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(kind, sub) => {
                let saved = std::mem::replace(&mut self.output_read, true);
                self.compound_list(&sub.list);
                self.output_read = saved;
                let sigil = match kind {
                    ast::ProcessSubstitutionKind::Read => "<(…)",
                    ast::ProcessSubstitutionKind::Write => ">(…)",
                };
                argv.push(WordVal::dynamic(sigil));
            }
        }
    }

    fn assignment(&mut self, a: &ast::Assignment) {
        let name = match &a.name {
            ast::AssignmentName::VariableName(n) => n,
            ast::AssignmentName::ArrayElementName(n, index) => {
                self.subscript(index);
                n
            }
        };
        match &a.value {
            ast::AssignmentValue::Scalar(w) => {
                let v = self.eval_word(&w.value);
                self.variable_set(name, Some(&v));
            }
            ast::AssignmentValue::Array(elements) if elements.is_empty() => {
                self.variable_set(name, Some(&WordVal::literal("")));
            }
            ast::AssignmentValue::Array(elements) => {
                for (key, value) in elements {
                    if let Some(k) = key {
                        self.subscript(&k.value);
                    }
                    let v = self.eval_word(&value.value);
                    self.variable_set(name, Some(&v));
                }
            }
        }
    }

    /// A variable assigned (prefix, `env`, `export`, …).
    fn assigned_name(&mut self, name: &str) {
        if name == "CDPATH" {
            self.cwds = Cwds::Unknown;
        }
        self.config_variable(name);
        self.alias_variable(name);
        match words::variable_danger(name) {
            words::VariableDanger::None => {}
            words::VariableDanger::Command => self.uncertain(
                UncertainKind::Command,
                name,
                format!("setting {name} can change what later commands run"),
            ),
            words::VariableDanger::Code => self.uncertain(
                UncertainKind::Opaque,
                name,
                format!("{name} names a program, its options or a file of them, which can run commands not written here"),
            ),
        }
    }

    fn subscript(&mut self, index: &str) {
        let index = index.trim_start_matches('[').trim_end_matches(']');
        if !index.chars().all(|c| c.is_ascii_digit()) {
            self.arithmetic(index);
        }
    }

    /// Evaluate a word: its fixed value if any, and every command its
    /// expansions would run.
    pub(crate) fn eval_word(&mut self, raw: &str) -> WordVal {
        // `{a[SUB]}>file` opens the file and assigns its descriptor to an
        // array element, evaluating SUB as arithmetic (brush reads the
        // braces as a word).
        if let Some(sub) = raw
            .strip_prefix('{')
            .and_then(|r| r.strip_suffix("]}"))
            .and_then(|r| r.split_once('['))
            .and_then(|(name, sub)| words::is_name(name).then_some(sub))
        {
            self.subscript(sub);
        }
        let Some(st) = self.read_word(raw, false, "cannot read this word") else {
            return WordVal::dynamic(raw);
        };
        let brace = words::has_brace_expansion(&st.skeleton);
        WordVal {
            raw: raw.to_string(),
            literal: (!st.dynamic && !brace).then_some(st.out),
            tilde: st.tilde,
            glob: has_glob(&st.skeleton),
        }
    }

    /// Parse a word (or a here-document body) within the budget and walk
    /// its pieces, on a stack deep enough for both. None when it cannot be
    /// read (then it is uncertain).
    fn read_word(&mut self, raw: &str, heredoc: bool, unreadable: &str) -> Option<WordState> {
        let levels = match limits::check_word(raw, heredoc, &mut self.budget) {
            Ok(levels) => levels,
            Err(refusal) => {
                self.refused(raw, refusal);
                return None;
            }
        };
        limits::with_stack(levels, || {
            let parsed = std::panic::catch_unwind(|| {
                if heredoc {
                    brush_parser::word::parse_heredoc(raw, &self.opts)
                } else {
                    brush_parser::word::parse(raw, &self.opts)
                }
            });
            let Ok(Ok(pieces)) = parsed else {
                self.uncertain(UncertainKind::Command, raw, unreadable);
                return None;
            };
            let mut st = WordState::default();
            self.pieces(&pieces, heredoc, &mut st);
            Some(st)
        })
    }

    fn pieces(&mut self, pieces: &[WordPieceWithSource], quoted: bool, st: &mut WordState) {
        for p in pieces {
            match &p.piece {
                WordPiece::Text(s) => {
                    st.out.push_str(s);
                    if quoted {
                        st.skeleton.push('x');
                    } else {
                        st.skeleton.push_str(s);
                    }
                }
                WordPiece::SingleQuotedText(s) => {
                    st.out.push_str(s);
                    st.skeleton.push('x');
                }
                WordPiece::AnsiCQuotedText(s) => {
                    match words::decode_ansi_c(s) {
                        Some(d) => st.out.push_str(&d),
                        None => st.dynamic = true,
                    }
                    st.skeleton.push('x');
                }
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    self.pieces(inner, true, st);
                    st.skeleton.push('x');
                }
                WordPiece::TildeExpansion(t) => {
                    if matches!(t, TildeExpr::Home) && !quoted && st.out.is_empty() {
                        st.out.push('~');
                        st.tilde = true;
                    } else {
                        st.dynamic = true;
                    }
                    st.skeleton.push('x');
                }
                WordPiece::ParameterExpansion(ParameterExpr::Parameter {
                    parameter: brush_parser::word::Parameter::Named(name),
                    indirect: false,
                }) if name == "HOME" && st.out.is_empty() && self.home.is_some() => {
                    // `$HOME/x` is `~/x` (assigning HOME makes the command uncertain).
                    st.out.push('~');
                    st.tilde = true;
                    st.skeleton.push('x');
                }
                WordPiece::ParameterExpansion(e) => {
                    st.dynamic = true;
                    st.skeleton.push('x');
                    self.parameter(e);
                }
                WordPiece::CommandSubstitution(s) => {
                    st.dynamic = true;
                    st.skeleton.push('x');
                    let saved = std::mem::replace(&mut self.output_read, true);
                    self.script(s);
                    self.output_read = saved;
                }
                WordPiece::BackquotedCommandSubstitution(s) => {
                    st.dynamic = true;
                    st.skeleton.push('x');
                    let saved = std::mem::replace(&mut self.output_read, true);
                    self.script(&words::unescape_backquoted(s));
                    self.output_read = saved;
                }
                WordPiece::EscapeSequence(e) => {
                    let rest: String = e.chars().skip(1).collect();
                    if rest != "\n" {
                        st.out.push_str(&rest);
                    }
                    st.skeleton.push('x');
                }
                WordPiece::ArithmeticExpression(a) => {
                    st.dynamic = true;
                    st.skeleton.push('x');
                    self.arithmetic(&a.value);
                }
            }
        }
    }

    fn parameter(&mut self, e: &ParameterExpr) {
        use ParameterExpr as P;
        use brush_parser::word::{Parameter, ParameterTransformOp};
        let mut strings: Vec<&str> = Vec::new();
        let mut arith: Vec<&str> = Vec::new();
        let (parameter, indirect) = match e {
            P::Parameter {
                parameter,
                indirect,
            }
            | P::ParameterLength {
                parameter,
                indirect,
            } => (Some(parameter), *indirect),
            P::UseDefaultValues {
                parameter,
                indirect,
                default_value: v,
                ..
            }
            | P::AssignDefaultValues {
                parameter,
                indirect,
                default_value: v,
                ..
            }
            | P::IndicateErrorIfNullOrUnset {
                parameter,
                indirect,
                error_message: v,
                ..
            }
            | P::UseAlternativeValue {
                parameter,
                indirect,
                alternative_value: v,
                ..
            }
            | P::RemoveSmallestSuffixPattern {
                parameter,
                indirect,
                pattern: v,
            }
            | P::RemoveLargestSuffixPattern {
                parameter,
                indirect,
                pattern: v,
            }
            | P::RemoveSmallestPrefixPattern {
                parameter,
                indirect,
                pattern: v,
            }
            | P::RemoveLargestPrefixPattern {
                parameter,
                indirect,
                pattern: v,
            }
            | P::UppercaseFirstChar {
                parameter,
                indirect,
                pattern: v,
            }
            | P::UppercasePattern {
                parameter,
                indirect,
                pattern: v,
            }
            | P::LowercaseFirstChar {
                parameter,
                indirect,
                pattern: v,
            }
            | P::LowercasePattern {
                parameter,
                indirect,
                pattern: v,
            } => {
                strings.extend(v.as_deref());
                (Some(parameter), *indirect)
            }
            P::Substring {
                parameter,
                indirect,
                offset,
                length,
            } => {
                arith.push(&offset.value);
                if let Some(l) = length {
                    arith.push(&l.value);
                }
                (Some(parameter), *indirect)
            }
            P::Transform {
                parameter,
                indirect,
                op,
            } => {
                if matches!(op, ParameterTransformOp::PromptExpand) {
                    self.uncertain(
                        UncertainKind::Command,
                        "${…@P}",
                        "prompt expansion runs commands hidden in a variable's value",
                    );
                }
                (Some(parameter), *indirect)
            }
            P::ReplaceSubstring {
                parameter,
                indirect,
                pattern,
                replacement,
                ..
            } => {
                strings.push(pattern);
                strings.extend(replacement.as_deref());
                (Some(parameter), *indirect)
            }
            P::VariableNames { .. } | P::MemberKeys { .. } => (None, false),
        };
        if let P::AssignDefaultValues {
            parameter:
                Parameter::Named(name)
                | Parameter::NamedWithIndex { name, .. }
                | Parameter::NamedWithAllIndices { name, .. },
            ..
        } = e
        {
            // `${PATH:=./evil}` assigns PATH when it is unset or empty
            // (its value is the old one otherwise: known only at run time).
            self.variable_set(name, None);
        }
        if indirect {
            self.uncertain(
                UncertainKind::Command,
                "${!…}",
                "indirect expansion can evaluate array subscripts that run commands",
            );
        }
        if let Some(Parameter::NamedWithIndex { index, .. }) = parameter {
            let index = index.clone();
            self.subscript(&index);
        }
        let strings: Vec<String> = strings.into_iter().map(str::to_string).collect();
        let arith: Vec<String> = arith.into_iter().map(str::to_string).collect();
        for s in strings {
            // Only a substitution, a subscript, `${!…}` or `${…@P}` inside
            // can run something; reading nothing else again keeps nested
            // defaults (`${x:-${y:-…}}`) linear.
            if s.contains(['`', '(', '[', '!', '@']) {
                self.eval_word(&s);
            }
        }
        for a in arith {
            self.arithmetic(&a);
        }
    }
}

/// Device files a redirection may write without being an edit.
pub(super) fn is_exempt_device(path: &str) -> bool {
    matches!(
        path,
        "/dev/null"
            | "/dev/stdin"
            | "/dev/stdout"
            | "/dev/stderr"
            | "/dev/tty"
            | "/dev/fd/0"
            | "/dev/fd/1"
            | "/dev/fd/2"
    )
}

/// Whether a redirection sends a command's output into a file (not
/// `/dev/null` or another descriptor).
/// The literal components at the end of a word computed at run time
/// (`"$PWD/.git/hooks/x"`: `.git/hooks/x`), with a substitution that
/// prints git's own directory (`$(git rev-parse --git-dir)`,
/// `--git-common-dir`, `--absolute-git-dir`, `--git-path X`) read as
/// `.git`; None when nothing literal ends it.
fn protected_tail(raw: &str) -> Option<String> {
    let text: String = raw.chars().filter(|c| !matches!(c, '"' | '\'')).collect();
    let parts: Vec<&str> = text.split('/').collect();
    let computed = |p: &str| p.contains(['$', '`', ')', '}', '*', '?', '[']);
    let start = parts.iter().rposition(|p| computed(p)).map_or(0, |k| k + 1);
    let mut tail: Vec<&str> = parts[start..]
        .iter()
        .copied()
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if let Some(before) = start.checked_sub(1).and_then(|k| parts.get(k))
        && before.contains("rev-parse")
        && [
            "--git-dir",
            "--git-common-dir",
            "--absolute-git-dir",
            "--git-path",
        ]
        .iter()
        .any(|o| before.contains(o))
    {
        tail.insert(0, ".git");
    }
    (!tail.is_empty()).then(|| tail.join("/"))
}

/// Whether a redirection gives the command's input (fd 0) something to
/// read: `< f`, `<> f`, `<&3`, a here-document, a here-string (`<
/// /dev/null` gives nothing).
fn feeds_input(r: &ast::IoRedirect) -> bool {
    use ast::{IoFileRedirectKind as K, IoFileRedirectTarget as T};
    match r {
        ast::IoRedirect::File(fd, kind, target) => {
            matches!(kind, K::Read | K::ReadAndWrite | K::DuplicateInput)
                && fd.is_none_or(|fd| fd == 0)
                && !matches!(target, T::Filename(w) if w.value == "/dev/null")
        }
        ast::IoRedirect::HereDocument(fd, _) | ast::IoRedirect::HereString(fd, _) => {
            fd.is_none_or(|fd| fd == 0)
        }
        ast::IoRedirect::OutputAndError(..) => false,
    }
}

fn writes_to_file(r: &&ast::IoRedirect) -> bool {
    use ast::{IoFileRedirectKind as K, IoFileRedirectTarget as T};
    match r {
        ast::IoRedirect::File(_, kind, T::Filename(w)) => {
            matches!(kind, K::Write | K::Append | K::Clobber | K::ReadAndWrite)
                && !matches!(
                    w.value.as_str(),
                    "/dev/null" | "/dev/stdout" | "/dev/stderr"
                )
        }
        ast::IoRedirect::OutputAndError(w, _) => w.value != "/dev/null",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The time bound holds for the analysis too, not only where text is
    /// parsed: a command line reached after the time is spent is not read.
    #[test]
    fn a_command_line_reached_after_the_time_is_spent_is_uncertain() {
        let mut a = Analyzer::new(
            Resolver::new(Resolution::Lexical),
            false,
            None,
            Path::new("/w"),
            limits::Budget::out_of_time(),
        );
        a.argv(vec![WordVal::literal("ls")]);
        a.argv(vec![WordVal::literal("rm")]);
        let [Item::Uncertain { reason, .. }] = a.items.as_slice() else {
            panic!("{} items", a.items.len());
        };
        assert!(reason.contains("took longer than"), "{reason}");
    }
}
