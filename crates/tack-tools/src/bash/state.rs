//! The session's shell state shared by Bash, BashOutput and KillShell: the
//! working directory carried across calls, the background jobs, the groups
//! commands left running, and how a shell is started.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tack_process::{Group, Process, Spec};
use tack_sandbox::Watch;
use tack_tool::ToolError;

use super::jobs::Job;
use super::sandbox::{Confinement, ShellSandbox, precreate};

/// The session's shell: its working directory, background jobs and groups
/// left running. Dropping it kills every job and leftover group.
pub(crate) struct BashState {
    shell: PathBuf,
    session_cwd: PathBuf,
    cwd: Mutex<PathBuf>,
    jobs: Mutex<BTreeMap<u64, Arc<Job>>>,
    /// Groups foreground commands left running, with what was absent of
    /// the protected paths when each started (looked at again at the end).
    leftovers: Mutex<Vec<(Group, Option<Watch>)>>,
    next_job: AtomicU64,
    next_call: AtomicU64,
    temp_dir: Mutex<Option<PathBuf>>,
    /// The session's OS sandbox, when it has one.
    pub(crate) sandbox: Option<Arc<ShellSandbox>>,
}

impl BashState {
    /// A fresh shell state starting in `session_cwd`, its shell found
    /// outside `session_cwd` and `roots` ([`find_shell`]).
    pub(crate) fn new(
        session_cwd: PathBuf,
        roots: &[PathBuf],
        sandbox: Option<Arc<ShellSandbox>>,
    ) -> Self {
        let mut avoid: Vec<&Path> = vec![&session_cwd];
        avoid.extend(roots.iter().map(PathBuf::as_path));
        let shell = find_shell(&avoid);
        Self {
            sandbox,
            shell,
            cwd: Mutex::new(session_cwd.clone()),
            session_cwd,
            jobs: Mutex::new(BTreeMap::new()),
            leftovers: Mutex::new(Vec::new()),
            next_job: AtomicU64::new(1),
            next_call: AtomicU64::new(1),
            temp_dir: Mutex::new(None),
        }
    }

    /// Where the next command would run: the shell's directory, or the
    /// session's when that one is gone (see [`BashState::current_cwd`]).
    pub(crate) fn next_cwd(&self) -> PathBuf {
        let cwd = lock(&self.cwd);
        if cwd.is_dir() {
            cwd.clone()
        } else {
            self.session_cwd.clone()
        }
    }

    /// The shell's current directory; a note when it had to fall back to the
    /// session directory because the old one is gone.
    pub(crate) fn current_cwd(&self) -> Result<(PathBuf, Option<String>), ToolError> {
        let mut cwd = lock(&self.cwd);
        if cwd.is_dir() {
            return Ok((cwd.clone(), None));
        }
        if !self.session_cwd.is_dir() {
            return Err(ToolError::Unavailable(format!(
                "the working directory {} and the session directory {} no longer exist; \
                 restore the session directory or start a new session",
                cwd.display(),
                self.session_cwd.display()
            )));
        }
        let note = format!(
            "[The working directory {} no longer exists; this command ran in the session directory {}.]",
            cwd.display(),
            self.session_cwd.display()
        );
        *cwd = self.session_cwd.clone();
        Ok((cwd.clone(), Some(note)))
    }

    /// Fresh paths for one call's files in the session's private directory
    /// (made on first use, mode 0700): the script to run and the file its
    /// EXIT trap writes the final directory into.
    pub(crate) fn call_files(&self) -> Result<CallFiles, ToolError> {
        let mut dir = lock(&self.temp_dir);
        let dir = match &*dir {
            Some(d) if d.is_dir() => d.clone(),
            _ => {
                let made = make_private_dir().map_err(|e| {
                    ToolError::Unavailable(format!(
                        "could not create a temporary directory in {}: {e}; check TMPDIR",
                        std::env::temp_dir().display()
                    ))
                })?;
                *dir = Some(made.clone());
                made
            }
        };
        let n = self.next_call.fetch_add(1, Ordering::Relaxed);
        Ok(CallFiles {
            script: dir.join(format!("script-{n}")),
            cwd: dir.join(format!("cwd-{n}")),
        })
    }

    /// Reads the directory the trap recorded; returns it when it changed.
    pub(crate) fn record_cwd(&self, cwd_file: &Path, before: &Path) -> Option<PathBuf> {
        let text = std::fs::read_to_string(cwd_file).ok();
        let _ = std::fs::remove_file(cwd_file);
        let recorded = text?;
        let path = PathBuf::from(recorded.strip_suffix('\n').unwrap_or(&recorded));
        if !path.is_absolute() || !path.is_dir() {
            return None;
        }
        let mut cwd = lock(&self.cwd);
        *cwd = path.clone();
        (path != before).then_some(path)
    }

    /// How `command` runs: in the session's sandbox, outside it (and why),
    /// or with none configured.
    /// In `cwd`; `note` says why an excluded command runs sandboxed there.
    pub(crate) fn confinement(
        &self,
        command: &str,
        disable: bool,
        cwd: &Path,
        note: &mut Option<String>,
    ) -> Result<Confinement, ToolError> {
        match &self.sandbox {
            None => Ok(Confinement::None),
            Some(sandbox) => sandbox.confinement(command, disable, cwd, &self.session_cwd, note),
        }
    }

    /// Writes `script` to `files.script` (mode 0600) and starts `shell file`
    /// in `cwd` (tack-process's defaults: its own group, a new session on a
    /// terminal, empty stdin, stdout and stderr on one pipe within 30 MB,
    /// 250 ms between SIGTERM and SIGKILL), inside the sandbox when
    /// `confinement` says so (then it may write only `files.cwd` of tack's
    /// own files, not the scripts). The script goes in a file, not in
    /// argv, so a command of any size runs: one argument is limited to
    /// 128 KiB by the kernel. The shell reads the file as it runs, so it must
    /// stay until the process ends; `remove_script` then deletes it (the
    /// directory goes at session end in any case). Also returns a note for
    /// the answer (a command that ran without the sandbox it should have had).
    pub(crate) async fn spawn(
        &self,
        script: &str,
        files: &CallFiles,
        cwd: &Path,
        confinement: &Confinement,
    ) -> Result<(Process, Option<String>), ToolError> {
        let file = &files.script;
        write_private(file, script).map_err(|e| {
            ToolError::Unavailable(format!(
                "could not write the command to {}: {e}; check TMPDIR",
                file.display()
            ))
        })?;
        let mut spec = Spec::new(&self.shell).arg(file).cwd(cwd);
        let mut note = None;
        if let (Confinement::Sandboxed, Some(sandbox)) = (confinement, &self.sandbox) {
            let cwd_file = precreate(&files.cwd)?;
            match sandbox.wrap(spec, std::slice::from_ref(&cwd_file)).await {
                Ok((wrapped, why)) => {
                    spec = wrapped;
                    note = why;
                }
                Err(e) => {
                    let _ = std::fs::remove_file(file);
                    return Err(e);
                }
            }
        }
        let shell = self.shell.display().to_string();
        tack_process::spawn(spec).map(|p| (p, note)).map_err(|e| {
            let _ = std::fs::remove_file(file);
            ToolError::Unavailable(format!(
                "could not start the shell {shell}: {}",
                e.io_error()
            ))
        })
    }

    /// Keeps a group a foreground command left running, to kill at session
    /// end (and then to look for protected paths it created, `watch`).
    pub(crate) fn remember_leftover(&self, group: Group, watch: Option<Watch>) {
        let mut leftovers = lock(&self.leftovers);
        let (ended, running): (Vec<_>, Vec<_>) = std::mem::take(&mut *leftovers)
            .into_iter()
            .partition(|(g, _)| !g.is_alive());
        *leftovers = running;
        leftovers.push((group, watch));
        drop(leftovers);
        for line in ended
            .iter()
            .flat_map(|(_, w)| self.move_aside_created(w.as_ref()))
        {
            tracing::warn!("{line}");
        }
    }

    /// What is absent of the protected paths now, for a command about to
    /// run in the sandbox (`None` for one that runs outside it).
    pub(crate) fn watch(&self, confinement: &Confinement) -> Option<Watch> {
        match (confinement, &self.sandbox) {
            (Confinement::Sandboxed, Some(s)) => Some(s.sandbox.watch()),
            _ => None,
        }
    }

    /// Moves aside each protected path `watch` saw absent that a command
    /// has created since; a line for the answer about each.
    pub(crate) fn move_aside_created(&self, watch: Option<&Watch>) -> Vec<String> {
        let (Some(watch), Some(s)) = (watch, &self.sandbox) else {
            return Vec::new();
        };
        s.sandbox.move_aside_created(watch, self.others_running())
    }

    /// Whether a background job or a group a command left is still running
    /// (what either creates is seen by the next command's watch too).
    fn others_running(&self) -> bool {
        let jobs = lock(&self.jobs)
            .values()
            .any(|j| j.status() == super::jobs::JobStatus::Running);
        jobs || lock(&self.leftovers).iter().any(|(g, _)| g.is_alive())
    }

    pub(crate) async fn start_job(
        &self,
        command: &str,
        cwd: &Path,
        confinement: &Confinement,
    ) -> Result<(String, Group, Option<String>), ToolError> {
        let files = self.call_files()?;
        let watch = self.watch(confinement);
        let (process, note) = self.spawn(command, &files, cwd, confinement).await?;
        let n = self.next_job.fetch_add(1, Ordering::Relaxed);
        let id = format!("bash_{n}");
        let group = process.group();
        let job = Job::new(id.clone(), command.to_owned(), process, watch);
        lock(&self.jobs).insert(n, Arc::new(job));
        Ok((id, group, note))
    }

    pub(crate) fn job(&self, id: &str) -> Result<Arc<Job>, ToolError> {
        let jobs = lock(&self.jobs);
        let job = id
            .strip_prefix("bash_")
            .and_then(|n| n.parse::<u64>().ok())
            .and_then(|n| jobs.get(&n));
        job.cloned().ok_or_else(|| {
            let known: Vec<&str> = jobs.values().map(|j| j.id.as_str()).collect();
            ToolError::InvalidInput(if known.is_empty() {
                format!(
                    "there is no background shell {id:?}: none was started in this session \
                     (start one with Bash and run_in_background: true)"
                )
            } else {
                format!(
                    "there is no background shell {id:?}; the ids of this session are: {}",
                    known.join(", ")
                )
            })
        })
    }
}

impl Drop for BashState {
    fn drop(&mut self) {
        let mut watches = Vec::new();
        for job in lock(&self.jobs).values() {
            job.kill_now();
            watches.push(job.take_watch());
        }
        for (group, watch) in lock(&self.leftovers).drain(..) {
            if group.is_alive() {
                group.kill();
            }
            watches.push(watch);
        }
        // What the last commands created is moved aside before the next
        // session reads it (no one is left to answer: the log says so).
        for line in watches
            .iter()
            .flat_map(|w| self.move_aside_created(w.as_ref()))
        {
            tracing::warn!("{line}");
        }
        if let Some(dir) = lock(&self.temp_dir).take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The files of one call: its script and where its EXIT trap records the
/// final directory.
pub(crate) struct CallFiles {
    pub script: PathBuf,
    pub cwd: PathBuf,
}

/// Creates `path` (it must not exist) readable and writable by the owner only,
/// holding `text`.
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(text.as_bytes())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn make_private_dir() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt as _;
    let base = std::env::temp_dir();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let mut last = None;
    for attempt in 0..16u32 {
        let dir = base.join(format!(
            "tack-bash-{}-{nanos:x}-{attempt}",
            std::process::id()
        ));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no attempt made")))
}

/// The shell to run commands with: `bash`, else `sh`, from the system
/// directories or an absolute `PATH` entry outside `roots` (the project,
/// the working directories; see [`tack_process::find_program`]), else
/// `/bin/sh`. A `bash` the repository puts on `PATH` is never the shell.
pub fn find_shell(roots: &[&Path]) -> PathBuf {
    tack_process::find_program("bash", roots)
        .or_else(|_| tack_process::find_program("sh", roots))
        .unwrap_or_else(|_| PathBuf::from("/bin/sh"))
}

/// Quotes `s` for a POSIX shell.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The script that runs `command` and records the shell's final directory in
/// `cwd_file` from an EXIT trap (a builtin, so no extra process; the trap keeps
/// the command's exit status, including for `exit N`).
pub(crate) fn wrap_command(command: &str, cwd_file: &Path) -> String {
    let record = format!(
        "pwd -P >| {} 2>/dev/null",
        sh_quote(&cwd_file.to_string_lossy())
    );
    format!("trap {} EXIT\n{command}\n", sh_quote(&record))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn the_wrapper_records_the_directory_and_keeps_the_exit_status() {
        let dir = tempfile::tempdir().unwrap();
        let odd = dir.path().join("it's a \"dir\" $HOME");
        std::fs::create_dir(&odd).unwrap();
        let cwd_file = odd.join("cwd");
        for shell in ["sh", "bash"] {
            let script = wrap_command("cd / && exit 7", &cwd_file);
            let file = dir.path().join(format!("script-{shell}"));
            write_private(&file, &script).unwrap();
            let process = tack_process::spawn(Spec::new(shell).arg(&file)).unwrap();
            let ending = process.wait(Some(Duration::from_secs(10)), None).await;
            assert_eq!(ending.exit().and_then(|e| e.code()), Some(7), "{shell}");
            assert_eq!(
                std::fs::read_to_string(&cwd_file).unwrap(),
                "/\n",
                "{shell}"
            );
            std::fs::remove_file(&cwd_file).unwrap();
        }
    }
}
