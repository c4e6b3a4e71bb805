//! The record of what Read saw, and the guard Write and Edit apply with it.

use std::collections::HashMap;
use std::fs::Metadata;
use std::hash::Hasher as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use tack_tool::ToolError;

/// What the session last saw of a file: enough to tell whether it changed on
/// disk since.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot {
    /// Modification time when it was read or written (if the platform has one).
    pub mtime: Option<SystemTime>,
    /// Size in bytes.
    pub size: u64,
    /// A hash of the whole content (not cryptographic: it detects changes, it
    /// does not resist forgery).
    pub hash: u64,
}

impl Snapshot {
    pub(crate) fn of(meta: &Metadata, hash: u64) -> Self {
        Self {
            mtime: meta.modified().ok(),
            size: meta.len(),
            hash,
        }
    }
}

/// Files read (or written) in this session, by canonical path. Cloning shares
/// the record.
#[derive(Debug, Clone, Default)]
pub struct FileState {
    inner: Arc<Mutex<HashMap<PathBuf, Snapshot>>>,
}

impl FileState {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<PathBuf, Snapshot>> {
        // A panic while holding the lock cannot leave the map half-updated
        // (every operation is a single insert/get/remove), so poison is moot.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What was last seen of `path` (a canonical path).
    pub fn get(&self, path: &Path) -> Option<Snapshot> {
        self.lock().get(path).copied()
    }

    /// Records what was just seen of `path` (a canonical path).
    pub fn record(&self, path: PathBuf, snapshot: Snapshot) {
        self.lock().insert(path, snapshot);
    }

    /// Forgets `path`, so the next Write or Edit of it needs a Read first.
    pub fn forget(&self, path: &Path) -> Option<Snapshot> {
        self.lock().remove(path)
    }

    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }
}

/// A streaming content hash: feeding bytes in pieces gives the same result as
/// feeding them at once.
#[derive(Default)]
pub(crate) struct ContentHasher(std::collections::hash_map::DefaultHasher);

impl ContentHasher {
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
    }

    pub(crate) fn finish(&self) -> u64 {
        self.0.finish()
    }
}

pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = ContentHasher::default();
    h.update(bytes);
    h.finish()
}

/// The read-before-write guard: `path` (canonical, existing, with metadata
/// `meta`) may be replaced only if it was read in this session and its content
/// is still what was read. `content` is the current content when the caller
/// already has it; otherwise it is read here if needed.
pub(crate) fn check_fresh(
    state: &FileState,
    path: &Path,
    meta: &Metadata,
    content: Option<&[u8]>,
) -> Result<(), ToolError> {
    let Some(seen) = state.get(path) else {
        return Err(ToolError::InvalidInput(format!(
            "{} already exists and has not been read in this session. Read it first with the Read tool, then call again.",
            path.display()
        )));
    };
    let changed = if meta.len() != seen.size {
        true
    } else {
        let hash = match content {
            Some(c) => hash_bytes(c),
            None => match std::fs::read(path) {
                Ok(c) => hash_bytes(&c),
                Err(e) => return Err(super::paths::io_error("read", path, &e)),
            },
        };
        hash != seen.hash
    };
    if changed {
        let size = if meta.len() == seen.size {
            format!("same size, {} bytes, different content", meta.len())
        } else {
            format!("{} bytes when read, {} bytes now", seen.size, meta.len())
        };
        return Err(ToolError::InvalidInput(format!(
            "{} has changed on disk since it was last read ({size}): someone else (the user, a formatter, a Bash command) modified it. Read it again to see its current content, then call again.",
            path.display()
        )));
    }
    Ok(())
}
