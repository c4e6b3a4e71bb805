//! What to start and how: the argv, its directory, environment and stdin,
//! how its output is captured and how it is detached from tack.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::output::Cap;

/// How long a stopped group gets between SIGTERM and SIGKILL by default.
/// Kept under the agent pipeline's cancel grace (500 ms), so a cancelled
/// tool call still answers itself.
pub const DEFAULT_GRACE: Duration = Duration::from_millis(250);

/// A process to start with [`spawn`](crate::spawn): a program and its
/// arguments (a shell script is `bash -c SCRIPT`, built by the caller).
///
/// Defaults: tack's directory and environment less its credentials
/// ([`WITHHELD_ENV`](crate::WITHHELD_ENV)), stdin empty
/// ([`Stdin::Null`]), stdout and stderr on one pipe ([`Streams::Merged`])
/// kept within [`Cap::DEFAULT`], detached with
/// [`Detach::SessionIfTerminal`], stopped with [`DEFAULT_GRACE`].
#[derive(Debug, Clone)]
pub struct Spec {
    pub(crate) program: OsString,
    pub(crate) args: Vec<OsString>,
    pub(crate) cwd: Option<PathBuf>,
    /// In order; `None` removes the variable.
    pub(crate) env: Vec<(OsString, Option<OsString>)>,
    pub(crate) stdin: Stdin,
    pub(crate) streams: Streams,
    pub(crate) cap: Cap,
    pub(crate) detach: Detach,
    pub(crate) grace: Duration,
}

impl Spec {
    /// `program` (looked up in `PATH` unless it contains a `/`) with no arguments.
    pub fn new(program: impl Into<OsString>) -> Spec {
        Spec {
            program: program.into(),
            args: Vec::new(),
            cwd: None,
            env: Vec::new(),
            stdin: Stdin::Null,
            streams: Streams::Merged,
            cap: Cap::DEFAULT,
            detach: Detach::SessionIfTerminal,
            grace: DEFAULT_GRACE,
        }
    }

    /// Adds one argument.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Spec {
        self.args.push(arg.into());
        self
    }

    /// Adds arguments.
    pub fn args<I, A>(mut self, args: I) -> Spec
    where
        I: IntoIterator<Item = A>,
        A: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// The working directory (default: tack's).
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Spec {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets a variable on top of tack's environment. Setting one of
    /// [`WITHHELD_ENV`](crate::WITHHELD_ENV) passes tack's credential on.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Spec {
        self.env.push((key.into(), Some(value.into())));
        self
    }

    /// Removes a variable from the environment the process inherits.
    pub fn env_remove(mut self, key: impl Into<OsString>) -> Spec {
        self.env.push((key.into(), None));
        self
    }

    /// What the process reads on stdin.
    pub fn stdin(mut self, stdin: Stdin) -> Spec {
        self.stdin = stdin;
        self
    }

    /// Whether stdout and stderr are captured together or apart.
    pub fn streams(mut self, streams: Streams) -> Spec {
        self.streams = streams;
        self
    }

    /// How much of each captured stream is kept in memory.
    pub fn cap(mut self, cap: Cap) -> Spec {
        self.cap = cap;
        self
    }

    /// How the process is detached from tack.
    pub fn detach(mut self, detach: Detach) -> Spec {
        self.detach = detach;
        self
    }

    /// How long [`Process::terminate`](crate::Process::terminate) waits
    /// between SIGTERM and SIGKILL; zero sends SIGKILL at once.
    pub fn grace(mut self, grace: Duration) -> Spec {
        self.grace = grace;
        self
    }

    /// The same process started through `wrapper`: it runs
    /// `wrapper leading… program args…` (the wrapper is expected to exec the
    /// program), with everything else (directory, environment, stdin,
    /// capture, detaching, grace) unchanged. The OS sandbox starts commands
    /// this way.
    pub fn wrapped<I, A>(mut self, wrapper: impl Into<OsString>, leading: I) -> Spec
    where
        I: IntoIterator<Item = A>,
        A: Into<OsString>,
    {
        let mut args: Vec<OsString> = leading.into_iter().map(Into::into).collect();
        args.push(std::mem::replace(&mut self.program, wrapper.into()));
        args.append(&mut self.args);
        self.args = args;
        self
    }

    /// The arguments, as given.
    pub fn arguments(&self) -> &[OsString] {
        &self.args
    }

    /// The program, as given.
    pub fn program(&self) -> &OsStr {
        &self.program
    }

    /// The working directory, if one was set.
    pub fn dir(&self) -> Option<&Path> {
        self.cwd.as_deref()
    }
}

/// What a process reads on stdin.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stdin {
    /// Nothing: end-of-file at once (`/dev/null`).
    #[default]
    Null,
    /// These bytes, then end-of-file. Written from a task of its own, so a
    /// process that prints before it reads cannot deadlock against tack; a
    /// process that exits without reading them all just closes the pipe.
    Bytes(Vec<u8>),
}

/// How stdout and stderr are captured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Streams {
    /// Both on one pipe, so they interleave as printed; read with
    /// [`Process::stdout`](crate::Process::stdout).
    #[default]
    Merged,
    /// Each on its own pipe and buffer (each within the cap), for callers that
    /// parse one and show the other.
    Separate,
}

/// How a process is detached from tack. Every choice puts it in a new
/// process group (its pid is the group id), so stopping it stops everything
/// it started and Ctrl-C in tack's terminal does not reach it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Detach {
    /// A new process group in tack's session.
    Group,
    /// A new session (`setsid`), so also no controlling terminal: a program
    /// that opens `/dev/tty` (sudo's or ssh's password prompt, git's
    /// credential prompt) fails at once instead of stopping on tack's
    /// terminal until its timeout, and cannot write over tack's screen.
    Session,
    /// [`Detach::Session`] when tack has a controlling terminal, else
    /// [`Detach::Group`]: without a terminal there is none to reach, and a
    /// plain group spares the `fork` that `setsid` needs (`posix_spawn` is
    /// ~0.2 ms faster).
    #[default]
    SessionIfTerminal,
}
