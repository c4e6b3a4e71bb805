//! NotebookEdit: replace, insert or delete one cell of a Jupyter notebook.
//!
//! The notebook is changed as JSON and written back the way it was written
//! (indent, key order, final newline), so the diff shows only the cell that
//! changed. The read-before-write guard of Edit applies.

use std::io::Read as _;
use std::path::Path;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tack_tool::{ToolAnnotations, ToolContext, ToolError, ToolOutput, TypedTool};

use super::notebook::{Notebook, cell_label, is_notebook, serialize_like};
use super::paths::{blocking, io_error, missing_path_error, require_absolute};
use super::state::{FileState, Snapshot, hash_bytes};
use super::write::{Opened, check_regular, check_replaceable};

const DESCRIPTION: &str = "Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb). \
Read the notebook first (it must not change on disk since): Read shows each cell's id, e.g. <cell index=\"2\" id=\"a1b2c3\" …>; \"cell-N\" (N the 0-based index) also works. \
edit_mode \"replace\" (default) sets the whole source of cell cell_id and clears a code cell's outputs; \
\"insert\" adds a cell of cell_type after cell_id (at the top without cell_id); \"delete\" removes cell_id (pass new_source \"\"). \
The file keeps its formatting; the write is atomic. To change notebook metadata use Edit.";

/// The type of a notebook cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Code,
    Markdown,
}

impl CellType {
    fn as_str(self) -> &'static str {
        match self {
            CellType::Code => "code",
            CellType::Markdown => "markdown",
        }
    }
}

/// What NotebookEdit does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EditMode {
    #[default]
    Replace,
    Insert,
    Delete,
}

impl EditMode {
    fn as_str(self) -> &'static str {
        match self {
            EditMode::Replace => "replace",
            EditMode::Insert => "insert",
            EditMode::Delete => "delete",
        }
    }
}

// Input of NotebookEdit. Field doc comments are the schema descriptions the model reads.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotebookEditInput {
    /// Absolute path of the notebook, e.g. "/home/me/project/analysis.ipynb".
    pub notebook_path: String,
    /// The cell's id as Read shows it, e.g. "a1b2c3", or "cell-3" (0-based index). Insert goes after it (at the top if omitted).
    pub cell_id: Option<String>,
    /// The new source of the cell (the whole cell, not a diff). Ignored for delete.
    pub new_source: String,
    /// "code" or "markdown". Required for insert; for replace, changes the type (default: keep it).
    pub cell_type: Option<CellType>,
    /// "replace" (default), "insert" or "delete".
    pub edit_mode: Option<EditMode>,
}

/// The NotebookEdit tool.
#[derive(Debug, Clone)]
pub struct NotebookEditTool {
    state: FileState,
}

impl NotebookEditTool {
    pub fn new(state: FileState) -> Self {
        Self { state }
    }
}

#[async_trait]
impl TypedTool for NotebookEditTool {
    type Input = NotebookEditInput;

    fn name(&self) -> &str {
        "NotebookEdit"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations {
            destructive: true,
            ..Default::default()
        }
    }

    fn validate(&self, input: &NotebookEditInput, ctx: &ToolContext) -> Result<(), ToolError> {
        let path = require_absolute("notebook_path", &input.notebook_path, &ctx.cwd)?;
        if !is_notebook(&path) {
            return Err(ToolError::InvalidInput(format!(
                "{} is not a notebook (.ipynb). To change another file use Edit.",
                path.display()
            )));
        }
        let mode = input.edit_mode.unwrap_or_default();
        if mode == EditMode::Insert && input.cell_type.is_none() {
            return Err(ToolError::InvalidInput(
                "edit_mode \"insert\" needs cell_type (\"code\" or \"markdown\") for the new cell."
                    .into(),
            ));
        }
        if mode != EditMode::Insert && input.cell_id.is_none() {
            return Err(ToolError::InvalidInput(format!(
                "edit_mode \"{}\" needs cell_id: the id of the cell, as Read shows it (or \"cell-N\" for the cell at 0-based index N).",
                if mode == EditMode::Delete {
                    "delete"
                } else {
                    "replace"
                }
            )));
        }
        Ok(())
    }

    async fn call(
        &self,
        input: NotebookEditInput,
        ctx: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        self.validate(&input, &ctx)?;
        let path = require_absolute("notebook_path", &input.notebook_path, &ctx.cwd)?;
        let state = self.state.clone();
        let checked = ctx.checked_files;
        // Not cancellable: an edit is short and must not be left half-reported.
        blocking("NotebookEdit", None, move || {
            edit_notebook(&state, &path, &checked, &input)
        })
        .await
    }
}

fn edit_notebook(
    state: &FileState,
    path: &Path,
    checked: &[std::path::PathBuf],
    input: &NotebookEditInput,
) -> Result<ToolOutput, ToolError> {
    let mut opened = Opened::open(path, checked)?;
    let Some(mut file) = opened.file.take() else {
        return Err(missing_path_error(path, "Notebook"));
    };
    let meta = file.metadata().map_err(|e| io_error("edit", path, &e))?;
    check_regular(path, &meta)?;
    let mut raw = Vec::new();
    file.read_to_end(&mut raw)
        .map_err(|e| io_error("read", path, &e))?;
    drop(file);
    let target = opened.target.clone();
    check_replaceable(state, path, &target, &meta, Some(&raw))?;
    let mut notebook = Notebook::parse(path, &raw)?;
    let with_ids = notebook.has_cell_ids();
    let mode = input.edit_mode.unwrap_or_default();
    let found = match &input.cell_id {
        Some(id) => Some(find_cell(&notebook, id).ok_or_else(|| not_found(path, &notebook, id))?),
        None => None,
    };
    let language = notebook.language();
    let Some(cells) = notebook.cells_mut() else {
        return Err(ToolError::Internal(
            "the parsed notebook has no cell list".into(),
        ));
    };

    let summary = match (mode, found) {
        (EditMode::Insert, at) => {
            let index = at.map_or(0, |i| i + 1);
            let kind = input.cell_type.unwrap_or(CellType::Code);
            let id = with_ids.then(|| new_cell_id(cells));
            cells.insert(index, new_cell(kind, &input.new_source, id.as_deref()));
            format!(
                "Inserted a {} cell at index {index} (id {}).",
                kind.as_str(),
                cell_label(&cells[index], index)
            )
        }
        (EditMode::Delete, Some(index)) => {
            let label = cell_label(&cells[index], index);
            cells.remove(index);
            format!(
                "Deleted cell {label} (index {index}); the notebook now has {} cells.",
                cells.len()
            )
        }
        (EditMode::Replace, Some(index)) => {
            let Some(cell) = cells[index].as_object_mut() else {
                return Err(ToolError::Internal("a parsed cell is not an object".into()));
            };
            replace_cell(cell, &input.new_source, input.cell_type);
            let kind = cell
                .get("cell_type")
                .and_then(Value::as_str)
                .unwrap_or("code")
                .to_owned();
            format!(
                "Replaced the source of {kind} cell {} (index {index}).",
                cell_label(&cells[index], index)
            )
        }
        (EditMode::Delete | EditMode::Replace, None) => {
            return Err(ToolError::InvalidInput("cell_id is required".into()));
        }
    };

    let cell_id = input.cell_id.clone();
    let edited = serialize_like(&notebook.root, &raw);
    let written = opened.replace(path, &edited, Some(&meta))?;
    state.record(target, Snapshot::of(&written, hash_bytes(&edited)));
    // Claude Code's NotebookEdit output object (hooks, stream-json).
    let response = json!({
        "new_source": input.new_source,
        "cell_id": cell_id,
        "cell_type": input.cell_type.map(CellType::as_str),
        "language": language,
        "edit_mode": mode.as_str(),
        "notebook_path": path.display().to_string(),
        "original_file": String::from_utf8_lossy(&raw),
        "updated_file": String::from_utf8_lossy(&edited),
    });
    Ok(ToolOutput::text(format!(
        "{summary} Wrote {} ({language} notebook).",
        path.display()
    ))
    .with_response(response))
}

/// The index of the cell `id` names: a cell id, or `cell-N` for index N.
fn find_cell(notebook: &Notebook, id: &str) -> Option<usize> {
    let cells = notebook.cells();
    cells
        .iter()
        .position(|c| c.get("id").and_then(Value::as_str) == Some(id))
        .or_else(|| {
            id.strip_prefix("cell-")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| n < cells.len())
        })
}

fn not_found(path: &Path, notebook: &Notebook, id: &str) -> ToolError {
    let cells = notebook.cells();
    let ids: Vec<String> = cells
        .iter()
        .enumerate()
        .take(20)
        .map(|(i, c)| cell_label(c, i))
        .collect();
    let more = if cells.len() > ids.len() {
        format!(" and {} more", cells.len() - ids.len())
    } else {
        String::new()
    };
    ToolError::InvalidInput(format!(
        "{} has no cell {id:?}. Its cells, in order: {}{more}. Read the notebook to see them, then call again with one of these ids.",
        path.display(),
        if ids.is_empty() {
            "none".to_owned()
        } else {
            ids.join(", ")
        }
    ))
}

/// Source in nbformat's list form: lines with their newlines.
fn source_lines(source: &str) -> Value {
    Value::Array(
        source
            .split_inclusive('\n')
            .map(|l| Value::String(l.to_owned()))
            .collect(),
    )
}

/// A new cell, keys in the order nbformat writes them (sorted).
fn new_cell(kind: CellType, source: &str, id: Option<&str>) -> Value {
    let mut cell = Map::new();
    cell.insert("cell_type".into(), json!(kind.as_str()));
    if kind == CellType::Code {
        cell.insert("execution_count".into(), Value::Null);
    }
    if let Some(id) = id {
        cell.insert("id".into(), json!(id));
    }
    cell.insert("metadata".into(), json!({}));
    if kind == CellType::Code {
        cell.insert("outputs".into(), json!([]));
    }
    cell.insert("source".into(), source_lines(source));
    Value::Object(cell)
}

/// Sets the source (in the form the cell had) and type of `cell`; a code
/// cell's outputs and execution count are cleared.
fn replace_cell(cell: &mut Map<String, Value>, source: &str, kind: Option<CellType>) {
    let sorted = cell.keys().is_sorted();
    let as_string = matches!(cell.get("source"), Some(Value::String(_)));
    let new_source = if as_string {
        Value::String(source.to_owned())
    } else {
        source_lines(source)
    };
    cell.insert("source".into(), new_source);
    let kind = kind.map_or_else(
        || {
            cell.get("cell_type")
                .and_then(Value::as_str)
                .unwrap_or("code")
                .to_owned()
        },
        |k| k.as_str().to_owned(),
    );
    cell.insert("cell_type".into(), Value::String(kind.clone()));
    if kind == "code" {
        cell.insert("execution_count".into(), Value::Null);
        cell.insert("outputs".into(), json!([]));
    } else {
        cell.shift_remove("execution_count");
        cell.shift_remove("outputs");
    }
    if sorted {
        cell.sort_keys();
    }
}

/// An id no cell has: 8 hex digits, as Jupyter makes them.
fn new_cell_id(cells: &[Value]) -> String {
    use std::hash::{BuildHasher as _, Hasher as _};
    let random = std::collections::hash_map::RandomState::new();
    let mut attempt = 0u64;
    loop {
        attempt += 1;
        let mut h = random.build_hasher();
        h.write_u64(attempt);
        h.write_usize(cells.len());
        let id = format!("{:08x}", h.finish() as u32);
        if !cells
            .iter()
            .any(|c| c.get("id").and_then(Value::as_str) == Some(id.as_str()))
        {
            return id;
        }
    }
}
