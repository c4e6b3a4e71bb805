//! Glob and Grep: finding files by name and by content, with ripgrep's crates.
//!
//! Both walk the tree in parallel with `ignore` (ripgrep's walker), so they
//! skip what `rg` skips: files ignored by `.gitignore` (inside a git
//! repository), `.ignore` and `.rgignore`. Grep also skips hidden and binary
//! files, as `rg` does; Glob lists hidden files (not `.git`), because a name
//! pattern such as `.github/**/*.yml` asks for them by name. Results are
//! absolute paths; both tools are read-only and safe to run concurrently.
//!
//! ```no_run
//! # async fn demo(ctx: tack_tool::ToolContext) -> Result<(), tack_tool::ToolError> {
//! let tools = tack_tools::search::search_tools(); // Glob, Grep
//! let out = tools[1].call(serde_json::json!({"pattern": "fn main", "type": "rust"}), ctx).await?;
//! # let _ = out; Ok(()) }
//! ```

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkParallel, WalkState};
use tack_tool::{Tool, ToolError, Typed};
use tokio_util::sync::CancellationToken;

use crate::files::missing_path_error;

mod glob;
mod grep;

pub use glob::{GlobInput, GlobTool};
pub use grep::{GrepInput, GrepTool, OutputMode};

/// Glob and Grep.
pub fn search_tools() -> Vec<Arc<dyn Tool>> {
    search_tools_filtered(None)
}

/// Decides, per file found, whether it may be shown: called with the name
/// of the tool searching ("Grep", "Glob") and the file, it applies the
/// permission policy's rules for that tool and for Read (a `.env` denied to
/// Read, or to Grep, must not show up in Grep's results).
pub type ReadFilter = Arc<dyn Fn(&str, &Path) -> bool + Send + Sync>;

/// Glob and Grep that leave out every file `filter` refuses.
pub fn search_tools_filtered(filter: Option<ReadFilter>) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(Typed(GlobTool {
            filter: filter.clone(),
        })),
        Arc::new(Typed(GrepTool { filter })),
    ]
}

/// The note for files left out by the read filter.
fn withheld_note(count: usize) -> Option<String> {
    (count > 0).then(|| {
        format!("({count} matching file(s) left out: permission rules deny reading them.)")
    })
}

fn allowed(
    filter: &Option<ReadFilter>,
    tool: &str,
    path: &Path,
    withheld: &std::sync::atomic::AtomicUsize,
) -> bool {
    match filter {
        Some(f) if !f(tool, path) => {
            withheld.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            false
        }
        _ => true,
    }
}

/// The directory or file a search starts from: `path` (absolute, or relative
/// to `cwd`), or `cwd` when it is absent. It must exist. Read and resolved
/// as the permission policy reads and resolves it
/// ([`tack_policy::tool_paths`]: whitespace trimmed, `..` applied where the
/// symlink before it led), so the tree searched is the one the policy
/// checked.
fn search_root(path: Option<&str>, cwd: &Path) -> Result<PathBuf, ToolError> {
    let written = match tack_policy::tool_paths::search_dir(path) {
        Some(p) => cwd.join(p),
        None => cwd.to_path_buf(),
    };
    let root = tack_policy::tool_paths::physical(&written, cwd).map_err(|why| {
        ToolError::InvalidInput(format!("cannot search {}: {why}", written.display()))
    })?;
    match std::fs::metadata(&root) {
        Ok(_) => Ok(root),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(missing_path_error(&root, "Path"))
        }
        Err(e) => Err(ToolError::Unavailable(format!(
            "cannot search {}: {e}",
            root.display()
        ))),
    }
}

/// A search stopped early because the call was cancelled.
fn cancelled(tool: &str) -> ToolError {
    ToolError::Interrupted(format!("{tool} was cancelled before it finished"))
}

/// Paths the walk could not read: counted, and the first one kept for the note.
#[derive(Default)]
struct WalkErrors {
    count: AtomicUsize,
    first: Mutex<Option<String>>,
}

impl WalkErrors {
    fn add(&self, err: impl std::fmt::Display) {
        if self.count.fetch_add(1, Ordering::Relaxed) == 0 {
            *self.first.lock().unwrap_or_else(|e| e.into_inner()) = Some(err.to_string());
        }
    }

    /// A note for the result, if any path could not be read.
    fn note(&self) -> Option<String> {
        let count = self.count.load(Ordering::Relaxed);
        let first = self
            .first
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()?;
        Some(if count == 1 {
            format!("(1 path could not be read: {first})")
        } else {
            format!("({count} paths could not be read; the first: {first})")
        })
    }
}

/// Walks in parallel, calling a per-thread `visit(entry, &mut local)` for every
/// entry that is not an error, and returns every thread's `local` items.
/// Stops early when `cancel` fires.
fn walk_collect<T, V, M>(
    walk: WalkParallel,
    cancel: &CancellationToken,
    errors: &WalkErrors,
    make: M,
) -> Vec<T>
where
    T: Send,
    M: FnMut() -> V,
    V: FnMut(DirEntry, &mut Vec<T>) -> WalkState + Send,
{
    struct Builder<'s, T, M> {
        shared: &'s Mutex<Vec<T>>,
        cancel: &'s CancellationToken,
        errors: &'s WalkErrors,
        make: M,
    }
    struct Visitor<'s, T: Send, V> {
        shared: &'s Mutex<Vec<T>>,
        cancel: &'s CancellationToken,
        errors: &'s WalkErrors,
        local: Vec<T>,
        visit: V,
    }
    impl<'s, T, V, M> ParallelVisitorBuilder<'s> for Builder<'s, T, M>
    where
        T: Send + 's,
        M: FnMut() -> V,
        V: FnMut(DirEntry, &mut Vec<T>) -> WalkState + Send + 's,
    {
        fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
            Box::new(Visitor {
                shared: self.shared,
                cancel: self.cancel,
                errors: self.errors,
                local: Vec::new(),
                visit: (self.make)(),
            })
        }
    }
    impl<T, V> ParallelVisitor for Visitor<'_, T, V>
    where
        T: Send,
        V: FnMut(DirEntry, &mut Vec<T>) -> WalkState + Send,
    {
        fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
            if self.cancel.is_cancelled() {
                return WalkState::Quit;
            }
            match entry {
                Ok(entry) => (self.visit)(entry, &mut self.local),
                Err(err) => {
                    self.errors.add(err);
                    WalkState::Continue
                }
            }
        }
    }
    impl<T: Send, V> Drop for Visitor<'_, T, V> {
        fn drop(&mut self) {
            let local = std::mem::take(&mut self.local);
            self.shared
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend(local);
        }
    }

    let shared = Mutex::new(Vec::new());
    walk.visit(&mut Builder {
        shared: &shared,
        cancel,
        errors,
        make,
    });
    shared.into_inner().unwrap_or_else(|e| e.into_inner())
}
