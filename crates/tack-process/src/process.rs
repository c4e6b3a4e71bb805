//! A started process: its group, its output, how it ended, and stopping it.

use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::process::ExitStatusExt as _;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::unix::pipe;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::command;
use crate::error::{Error, Result};
use crate::group::Group;
use crate::output::Output;
use crate::spec::{Spec, Stdin, Streams};

/// How long [`Process::terminate`] waits for the leader to be reaped after
/// SIGKILL.
const REAP_AFTER_KILL: Duration = Duration::from_secs(2);
/// How often [`Process::terminate`] looks whether the group is gone.
const POLL: Duration = Duration::from_millis(10);
const READ_CHUNK: usize = 64 * 1024;

/// How the leader ended: an exit code or the signal that killed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit(ExitStatus);

impl Exit {
    /// The exit code; `None` when a signal ended it.
    pub fn code(self) -> Option<i32> {
        self.0.code()
    }

    /// The signal that ended it; `None` when it exited.
    pub fn signal(self) -> Option<i32> {
        self.0.signal()
    }

    /// Exit code 0.
    pub fn success(self) -> bool {
        self.0.success()
    }

    /// The status as std has it.
    pub fn status(self) -> ExitStatus {
        self.0
    }
}

/// Where the leader is now.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum State {
    Running,
    /// Reaped: it exited or a signal ended it.
    Exited(Exit),
    /// Waiting for it failed (the message says how); treat it as gone.
    Lost(String),
}

/// How [`Process::wait`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ending {
    /// The leader ended on its own; processes it started may still run
    /// ([`Group::is_alive`]).
    Exited(Exit),
    /// The time limit passed and the group was stopped; how the leader ended,
    /// if it could be reaped.
    TimedOut(Option<Exit>),
    /// The token was cancelled and the group was stopped.
    Cancelled(Option<Exit>),
    /// Waiting for the leader failed and the group was stopped.
    Lost(String),
}

impl Ending {
    /// How the leader ended, whoever ended it.
    pub fn exit(&self) -> Option<Exit> {
        match self {
            Ending::Exited(exit) => Some(*exit),
            Ending::TimedOut(exit) | Ending::Cancelled(exit) => *exit,
            Ending::Lost(_) => None,
        }
    }

    pub fn timed_out(&self) -> bool {
        matches!(self, Ending::TimedOut(_))
    }

    pub fn cancelled(&self) -> bool {
        matches!(self, Ending::Cancelled(_))
    }
}

/// A running (or finished) process and the group it leads.
///
/// Its output is read by tasks of its own into [`Output`] buffers from the
/// start, and it is reaped by a task of its own: every method takes `&self`,
/// so the output can be read, and the process stopped, while another task
/// waits for it. **Dropping it while the leader runs kills the whole group**
/// (SIGKILL): an aborted call leaves nothing behind. Once the leader has
/// ended, dropping it leaves what the leader started running; keep its
/// [`Group`] to kill that later.
#[derive(Debug)]
pub struct Process {
    pid: u32,
    group: Group,
    state: Arc<watch::Sender<State>>,
    stdout: Output,
    stderr: Option<Output>,
    grace: Duration,
    stop_reading: CancellationToken,
    stdin_writer: Option<JoinHandle<()>>,
}

/// Starts `spec`. Needs a tokio runtime (with IO and time enabled).
pub fn spawn(spec: Spec) -> Result<Process> {
    let program = spec.program.to_string_lossy().into_owned();
    let pipe_error = |source| Error::Pipe {
        program: program.clone(),
        source,
    };
    let stdin = match spec.stdin {
        Stdin::Null => Stdio::null(),
        Stdin::Bytes(_) => Stdio::piped(),
    };
    let (stdout, stderr, merged) = match spec.streams {
        Streams::Merged => {
            // One pipe for both, so they interleave as printed.
            let (reader, writer) = io::pipe().map_err(pipe_error)?;
            let writer_err = writer.try_clone().map_err(pipe_error)?;
            let reader =
                pipe::Receiver::from_owned_fd(OwnedFd::from(reader)).map_err(pipe_error)?;
            (Stdio::from(writer), Stdio::from(writer_err), Some(reader))
        }
        Streams::Separate => (Stdio::piped(), Stdio::piped(), None),
    };
    crate::sentinel::ensure();
    crate::adopted::reap_now_and_then();
    let tag = crate::group::new_tag();
    let mut command = command::build(&spec, tag, stdin, stdout, stderr);
    let spawned = command.spawn();
    // The command holds our copies of the write end: drop it so the pipe
    // reaches end-of-file once the process and its children are done.
    drop(command);
    let spawn_error = |source| Error::Spawn {
        program: program.clone(),
        cwd: spec.cwd.clone(),
        source,
    };
    let mut child = spawned.map_err(spawn_error)?;
    let Some((pid, group)) = child
        .id()
        .and_then(|pid| Some((pid, Group::led_by(pid, tag)?)))
    else {
        return Err(spawn_error(io::Error::other(
            "the process ended before its pid was known",
        )));
    };

    let stop_reading = CancellationToken::new();
    let out = Output::new(spec.cap);
    let mut err = None;
    match merged {
        Some(reader) => start_reader(Some(reader), &out, &stop_reading),
        None => {
            start_reader(child.stdout.take(), &out, &stop_reading);
            let stderr = Output::new(spec.cap);
            start_reader(child.stderr.take(), &stderr, &stop_reading);
            err = Some(stderr);
        }
    }
    let stdin_writer = match (spec.stdin, child.stdin.take()) {
        (Stdin::Bytes(bytes), Some(mut pipe)) => Some(tokio::spawn(async move {
            // A process that does not read its input closes the pipe early.
            let _ = pipe.write_all(&bytes).await;
            let _ = pipe.shutdown().await;
        })),
        _ => None,
    };
    let state = Arc::new(watch::Sender::new(State::Running));
    let reaped = Arc::clone(&state);
    tokio::spawn(async move {
        let ended = match child.wait().await {
            Ok(status) => State::Exited(Exit(status)),
            Err(e) => State::Lost(e.to_string()),
        };
        reaped.send_replace(ended);
    });
    Ok(Process {
        pid,
        group,
        state,
        stdout: out,
        stderr: err,
        grace: spec.grace,
        stop_reading,
        stdin_writer,
    })
}

fn start_reader<R>(pipe: Option<R>, output: &Output, stop: &CancellationToken)
where
    R: AsyncRead + Unpin + Send + 'static,
{
    match pipe {
        Some(pipe) => {
            tokio::spawn(read_into(pipe, output.clone(), stop.clone()));
        }
        None => output.close(),
    }
}

/// Reads `pipe` into `output` until end-of-file, an error or `stop`.
async fn read_into<R: AsyncRead + Unpin>(mut pipe: R, output: Output, stop: CancellationToken) {
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        tokio::select! {
            biased;
            () = stop.cancelled() => break,
            read = pipe.read(&mut buf) => match read {
                Ok(0) => break,
                Ok(n) => output.push(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            },
        }
    }
    output.close();
}

impl Process {
    /// The leader's pid.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The group the leader leads (its id is the leader's pid).
    pub fn group(&self) -> Group {
        self.group
    }

    /// Stdout, or stdout and stderr interleaved with [`Streams::Merged`].
    pub fn stdout(&self) -> &Output {
        &self.stdout
    }

    /// Stderr with [`Streams::Separate`]; `None` when it is merged into stdout.
    pub fn stderr(&self) -> Option<&Output> {
        self.stderr.as_ref()
    }

    /// Where the leader is now.
    pub fn state(&self) -> State {
        self.state.borrow().clone()
    }

    /// How the leader ended, once it was reaped.
    pub fn exit(&self) -> Option<Exit> {
        match *self.state.borrow() {
            State::Exited(exit) => Some(exit),
            State::Running | State::Lost(_) => None,
        }
    }

    /// Waits for the leader to end, at most `timeout`, and until `cancel`;
    /// past either, the whole group is stopped ([`terminate`](Self::terminate)).
    /// Output may still be arriving: see [`output_closed`](Self::output_closed).
    pub async fn wait(
        &self,
        timeout: Option<Duration>,
        cancel: Option<&CancellationToken>,
    ) -> Ending {
        let deadline = async {
            match timeout {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending().await,
            }
        };
        let cancelled = async {
            match cancel {
                Some(token) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            ended = self.ended() => match ended {
                Ok(exit) => Ending::Exited(exit),
                Err(why) => {
                    self.terminate().await;
                    Ending::Lost(why)
                }
            },
            () = deadline => Ending::TimedOut(self.terminate().await),
            () = cancelled => Ending::Cancelled(self.terminate().await),
        }
    }

    /// Waits until the leader is reaped (or waiting for it failed).
    async fn ended(&self) -> std::result::Result<Exit, String> {
        let mut rx = self.state.subscribe();
        // The sender lives in `self`: waiting cannot fail.
        let state = rx
            .wait_for(|s| *s != State::Running)
            .await
            .map(|s| s.clone());
        match state {
            Ok(State::Exited(exit)) => Ok(exit),
            Ok(State::Lost(why)) => Err(why),
            Ok(State::Running) | Err(_) => Err("the process was not reaped".to_owned()),
        }
    }

    /// Stops the whole group: SIGTERM (and SIGCONT, so stopped members can act
    /// on it), up to the spec's grace for the group to go, then SIGKILL (at
    /// once with a zero grace). Returns how the leader ended, if it could be
    /// reaped within a moment.
    pub async fn terminate(&self) -> Option<Exit> {
        if self.grace.is_zero() {
            self.group.kill();
        } else {
            self.group.ask_to_terminate();
            let deadline = Instant::now() + self.grace;
            let mut rx = self.state.subscribe();
            loop {
                let leader_done = *rx.borrow_and_update() != State::Running;
                if leader_done && !self.group.is_alive() {
                    return self.exit();
                }
                if Instant::now() >= deadline {
                    break;
                }
                let _ = tokio::time::timeout(POLL, rx.changed()).await;
            }
            self.group.kill();
        }
        let _ = tokio::time::timeout(REAP_AFTER_KILL, self.ended()).await;
        self.exit()
    }

    /// Waits at most `limit` for end-of-file on every captured pipe; whether
    /// it came. Processes the leader started may hold a pipe open after it
    /// ended.
    pub async fn output_closed(&self, limit: Duration) -> bool {
        let all = async {
            self.stdout.closed().await;
            if let Some(stderr) = &self.stderr {
                stderr.closed().await;
            }
        };
        tokio::time::timeout(limit, all).await.is_ok()
    }

    /// Stops reading the pipes and closes them: what is still printed is lost
    /// (and its writer gets SIGPIPE). The outputs count as closed.
    pub fn stop_reading(&self) {
        self.stop_reading.cancel();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // While the leader is unreaped its pid (so the group id) cannot be
        // reused: the signal reaches this group and no other.
        if self.exit().is_none() {
            self.group.kill();
        }
        if let Some(writer) = &self.stdin_writer {
            writer.abort();
        }
    }
}
