//! Write: create a file or replace all of it.

use std::fs::Metadata;
use std::path::Path;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tack_tool::{ToolAnnotations, ToolContext, ToolError, ToolOutput, TypedTool};

use super::patch::structured_patch;
use super::paths::{blocking, canonical, io_error, plural, require_absolute, write_atomic};
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
    let (target, exists) = canonical(path, checked)?;
    let existing = if exists {
        let meta = std::fs::metadata(&target).map_err(|e| io_error("write", path, &e))?;
        check_replaceable(state, path, &target, &meta, None)?;
        // For the patch hooks see; a file that cannot be read as text
        // gives its lossy form.
        let original = std::fs::read(&target).map_err(|e| io_error("read", path, &e))?;
        Some((meta, original))
    } else {
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io_error("create", parent, &e))?;
        }
        None
    };
    let meta = write_atomic(&target, content, existing.as_ref().map(|(m, _)| m))
        .map_err(|e| io_error("write", path, &e))?;
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
    check_fresh(state, target, meta, content)?;
    if meta.permissions().readonly() {
        return Err(ToolError::Unavailable(format!(
            "{} is read-only; it was left unchanged. If it should be changed, ask the user or make it writable first (e.g. Bash chmod u+w).",
            path.display()
        )));
    }
    Ok(())
}
