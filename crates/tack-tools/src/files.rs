//! Read, Write, Edit and NotebookEdit: the file tools, with Claude Code's
//! names and inputs. Read also shows Jupyter notebooks (cells with outputs)
//! and the text of PDFs page by page.
//!
//! The key design decision is the **read-before-write guard**: the tools
//! share one [`FileState`], a record of what Read saw of each file (its
//! canonical path, mtime, size and content hash). Write and Edit refuse to
//! change an existing file that was not read in this session, or whose content
//! changed on disk since it was read, so the model never overwrites work it has
//! not seen. A successful Write or Edit records the new content, so a following
//! Edit works without reading again.
//!
//! Every path is absolute (a relative one is refused with the absolute path it
//! would be under the working directory) and canonicalised before use, so a
//! file read through a symlink and edited through its target is one file.
//! The canonical path is the one the permission check judged, and it is
//! opened without following a link in any component (`physical.rs`), so a
//! directory swapped for a link after the check fails the open instead of
//! leading elsewhere. Writes are atomic (a temporary file in the directory so
//! opened, then a rename within it) and keep the file's permissions.
//!
//! ```no_run
//! # async fn demo(ctx: tack_tool::ToolContext) -> Result<(), tack_tool::ToolError> {
//! let tools = tack_tools::files::file_tools(); // Read, Write, Edit sharing one FileState
//! let read = &tools[0];
//! let out = read.call(serde_json::json!({"file_path": "/etc/hostname"}), ctx).await?;
//! # let _ = out; Ok(()) }
//! ```

use std::sync::Arc;

use tack_tool::{Tool, Typed};

mod edit;
mod notebook;
mod notebook_edit;
mod patch;
mod paths;
mod pdf;
mod physical;
mod read;
mod state;
mod write;

pub use edit::{EditInput, EditTool};
pub use notebook::{
    MAX_IMAGES as MAX_NOTEBOOK_IMAGES, MAX_OUTPUT_CHARS as MAX_NOTEBOOK_OUTPUT_CHARS,
};
pub use notebook_edit::{CellType, EditMode, NotebookEditInput, NotebookEditTool};
pub use pdf::{MAX_PAGES as MAX_PDF_PAGES, PDF_TEXT_BYTES};
pub use read::{ReadInput, ReadTool};
pub use state::{FileState, Snapshot};
pub use write::{WriteInput, WriteTool};

pub(crate) use paths::{missing_path_error, plural};
pub(crate) use physical::{is_replaced as replaced_while_opening, open_file as open_physical};

/// Read, Write, Edit and NotebookEdit, sharing one new [`FileState`].
pub fn file_tools() -> Vec<Arc<dyn Tool>> {
    file_tools_with_state(FileState::new())
}

/// Read, Write, Edit and NotebookEdit sharing the given [`FileState`] (to inspect it, or to
/// share it with other tools).
pub fn file_tools_with_state(state: FileState) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(Typed(ReadTool::new(state.clone()))),
        Arc::new(Typed(WriteTool::new(state.clone()))),
        Arc::new(Typed(EditTool::new(state.clone()))),
        Arc::new(Typed(NotebookEditTool::new(state))),
    ]
}
