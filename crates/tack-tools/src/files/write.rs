//! Write: create a file or replace all of it.

use std::fs::{File, Metadata};
use std::io::Read as _;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tack_tool::{ToolAnnotations, ToolContext, ToolError, ToolOutput, TypedTool};

use super::patch::structured_patch;
use super::paths::{Use, blocking, io_error, judged, plural, require_absolute, split};
use super::physical::Dir;
use super::state::{FileState, Snapshot, check_fresh, hash_bytes};

const DESCRIPTION: &str = "Writes a file to the local filesystem: creates it, or replaces all of its content; missing parent directories are created. \
file_path must be absolute. An existing file must have been Read in this session, and not changed on disk since, or the call is refused. \
To change part of an existing file prefer Edit, which sends only the changed text. \
The file's permissions are kept and the write is atomic; writing the same content again is harmless. \
Returns whether the file was created or updated, with its size.";

// Input of Write. Field doc comments are the schema descriptions the model reads.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteInput {
    /// Absolute path of the file to write, e.g. "/home/me/project/notes.md".
    pub file_path: String,
    /// The complete new content of the file.
    pub content: String,
}

/// The Write tool.
#[derive(Debug, Clone)]
pub struct WriteTool {
    state: FileState,
}

impl WriteTool {
    pub fn new(state: FileState) -> Self {
        Self { state }
    }
}

#[async_trait]
impl TypedTool for WriteTool {
    type Input = WriteInput;

    fn name(&self) -> &str {
        "Write"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations {
            destructive: true,
            idempotent: true,
            ..Default::default()
        }
    }

    fn validate(&self, input: &WriteInput, ctx: &ToolContext) -> Result<(), ToolError> {
        require_absolute("file_path", &input.file_path, &ctx.cwd).map(drop)
    }

    async fn call(&self, input: WriteInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let path = require_absolute("file_path", &input.file_path, &ctx.cwd)?;
        let state = self.state.clone();
        let checked = ctx.checked_files;
        // Not cancellable: a write is short and must not be left half-reported.
        blocking("Write", None, move || {
            write_file(&state, &path, &checked, input.content.as_bytes())
        })
        .await
    }
}

fn write_file(
    state: &FileState,
    path: &Path,
    checked: &[std::path::PathBuf],
    content: &[u8],
) -> Result<ToolOutput, ToolError> {
    if path.as_os_str().to_string_lossy().ends_with('/') {
        return Err(ToolError::InvalidInput(format!(
            "{} ends with '/': give the path of a file, not a directory.",
            path.display()
        )));
    }
    let mut opened = Opened::open(path, checked)?;
    let existing = match opened.file.take() {
        Some(mut file) => {
            let meta = file.metadata().map_err(|e| io_error("write", path, &e))?;
            check_replaceable(state, path, &opened.target, &meta, None)?;
            // For the patch hooks see; a file that cannot be read as text
            // gives its lossy form.
            let mut original = Vec::new();
            file.read_to_end(&mut original)
                .map_err(|e| io_error("read", path, &e))?;
            Some((meta, original))
        }
        None => None,
    };
    let exists = existing.is_some();
    let meta = opened.replace(path, content, existing.as_ref().map(|(m, _)| m))?;
    let target = opened.target;
    state.record(target, Snapshot::of(&meta, hash_bytes(content)));
    let lines = memchr::memchr_iter(b'\n', content).count()
        + usize::from(!content.is_empty() && !content.ends_with(b"\n"));
    let text = String::from_utf8_lossy(content);
    let original = existing.map(|(_, o)| String::from_utf8_lossy(&o).into_owned());
    let response = json!({
        "type": if exists { "update" } else { "create" },
        "filePath": path.display().to_string(),
        "content": text,
        "structuredPatch": match &original {
            Some(original) => structured_patch(original, &text),
            None => json!([]),
        },
        "originalFile": original,
    });
    Ok(ToolOutput::text(format!(
        "{} {} ({}, {}).",
        if exists { "Updated" } else { "Created" },
        path.display(),
        plural(lines, "line"),
        plural(content.len(), "byte")
    ))
    .with_response(response))
}

/// The file a Write, Edit or NotebookEdit changes, opened once at the path
/// the permission check judged ([`judged`]) with no link followed: its
/// directory (None while missing) and the file itself (None while
/// missing). The old content is read from `file` and the new file is put
/// in `dir`, so both are where the check looked even if a directory on
/// the path is swapped for a link meanwhile.
pub(super) struct Opened {
    /// The file's physical path, as judged.
    pub(super) target: PathBuf,
    dir: Option<Dir>,
    /// The existing file, open for reading.
    pub(super) file: Option<File>,
}

impl Opened {
    /// Opens the file `path` names; `checked` as for [`judged`].
    pub(super) fn open(path: &Path, checked: &[PathBuf]) -> Result<Self, ToolError> {
        let target = judged(path, checked, Use::Write)?;
        let (dir_path, name) = split(&target)?;
        let dir = match Dir::open(dir_path) {
            Ok(dir) => Some(dir),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(io_error("write", path, &e)),
        };
        let file = match &dir {
            Some(dir) => dir
                .open_file(name)
                .map_err(|e| io_error("write", path, &e))?,
            None => None,
        };
        Ok(Self { target, dir, file })
    }

    /// Replaces the file (`path` as asked) with `data` atomically, making
    /// missing directories first; `existing` as for [`Dir::replace`].
    pub(super) fn replace(
        &mut self,
        path: &Path,
        data: &[u8],
        existing: Option<&Metadata>,
    ) -> Result<Metadata, ToolError> {
        let (dir_path, name) = split(&self.target)?;
        let dir = match self.dir.take() {
            Some(dir) => dir,
            None => Dir::create_all(dir_path).map_err(|e| io_error("create", dir_path, &e))?,
        };
        let written = dir.replace(name, data, existing);
        self.dir = Some(dir);
        written.map_err(|e| io_error("write", path, &e))
    }
}

/// Checks that `meta` (of `path`) is a regular file, before its content is
/// read to change it.
pub(super) fn check_regular(path: &Path, meta: &Metadata) -> Result<(), ToolError> {
    if meta.is_dir() {
        return Err(ToolError::InvalidInput(format!(
            "{} is a directory: give the path of a file.",
            path.display()
        )));
    }
    if !meta.is_file() {
        return Err(ToolError::InvalidInput(format!(
            "{} is not a regular file (a device, FIFO or socket).",
            path.display()
        )));
    }
    Ok(())
}

/// Checks that the existing file `target` (asked for as `path`) may be
/// replaced: a regular, writable file, read in this session and unchanged
/// since.
pub(super) fn check_replaceable(
    state: &FileState,
    path: &Path,
    target: &Path,
    meta: &Metadata,
    content: Option<&[u8]>,
) -> Result<(), ToolError> {
    check_regular(path, meta)?;
    check_fresh(state, target, meta, content)?;
    if meta.permissions().readonly() {
        return Err(ToolError::Unavailable(format!(
            "{} is read-only; it was left unchanged. If it should be changed, ask the user or make it writable first (e.g. Bash chmod u+w).",
            path.display()
        )));
    }
    Ok(())
}
