//! Glob: files whose path matches a glob pattern, newest first.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use async_trait::async_trait;
use globset::GlobBuilder;
use ignore::{WalkBuilder, WalkState};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tack_tool::{ToolAnnotations, ToolContext, ToolError, ToolOutput, TypedTool};

use super::{WalkErrors, cancelled, search_root, walk_collect};

/// Paths returned at most.
pub const MAX_RESULTS: usize = 100;

const DESCRIPTION: &str = "Finds files by name with a glob pattern such as \"**/*.rs\" or \"src/**/test_*.{ts,tsx}\". \
Returns absolute paths, one per line, most recently modified first, at most 100 (with a count of the rest). \
The pattern is matched against paths relative to path (default: the working directory): \"*\" does not cross \"/\", \"**\" matches any number of directories, so \"*.rs\" finds only the top level. \
Files ignored by .gitignore and the .git directory are skipped; hidden files are included. \
Use Grep to search file contents, Read to open a file you found.";

// Input of Glob. Field doc comments are the schema descriptions the model reads.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobInput {
    /// Glob pattern matched against paths relative to `path`, e.g. "**/*.rs", "src/**/*.{ts,tsx}" or "Cargo.toml".
    pub pattern: String,
    /// Directory to search in, absolute. Omit it to search the working directory.
    pub path: Option<String>,
}

/// The Glob tool.
#[derive(Clone, Default)]
pub struct GlobTool {
    /// Files the permission rules forbid reading are left out.
    pub filter: Option<super::ReadFilter>,
}

impl std::fmt::Debug for GlobTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GlobTool")
            .field("filtered", &self.filter.is_some())
            .finish()
    }
}

#[async_trait]
impl TypedTool for GlobTool {
    fn output(&self) -> tack_tool::OutputBehaviour {
        tack_tool::OutputBehaviour::with_hint(" You can also use a more specific pattern or path.")
    }
    type Input = GlobInput;

    fn name(&self) -> &str {
        "Glob"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn is_concurrency_safe(&self, _input: &GlobInput) -> bool {
        true
    }

    /// The paths found (the result itself; the text lists the same paths).
    fn output_schema(&self) -> Option<serde_json::Value> {
        Some(json!({
            "type": "object",
            "properties": {
                "files": {"type": "array", "items": {"type": "string"},
                          "description": "The matching paths shown, newest first."},
                "total": {"type": "integer", "minimum": 0,
                          "description": "How many paths matched (more than shown when truncated)."},
                "truncated": {"type": "boolean"}
            },
            "required": ["files", "total", "truncated"],
            "additionalProperties": false
        }))
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only()
    }

    async fn call(&self, input: GlobInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        // Split as the permission policy splits it, so the directory walked is
        // the one it checked.
        let (base, pattern) =
            tack_policy::tool_paths::split_glob(&input.pattern, input.path.as_deref());
        let root = search_root(base.as_deref(), &ctx.cwd)?;
        if !root.is_dir() {
            return Err(ToolError::InvalidInput(format!(
                "path must be a directory, but {} is a file. To open it use Read; to search inside it use Grep.",
                root.display()
            )));
        }
        if pattern.is_empty() {
            return Err(ToolError::InvalidInput(
                "pattern is empty: give a glob such as \"**/*.rs\"".into(),
            ));
        }
        let glob = GlobBuilder::new(&pattern)
            .literal_separator(true)
            .backslash_escape(true)
            .empty_alternates(true)
            .build()
            .map_err(|e| ToolError::InvalidInput(format!("invalid glob pattern {pattern:?}: {e}")))?
            .compile_matcher();
        let cancel = ctx.cancel.clone();
        let filter = self.filter.clone();
        let started = std::time::Instant::now();
        let result = tokio::task::spawn_blocking(move || {
            let errors = WalkErrors::default();
            let withheld = std::sync::atomic::AtomicUsize::new(0);
            let walk = WalkBuilder::new(&root)
                .hidden(false)
                .add_custom_ignore_filename(".rgignore")
                .filter_entry(|e| e.file_name() != ".git")
                .build_parallel();
            let mut found: Vec<(SystemTime, PathBuf)> =
                walk_collect(walk, &cancel, &errors, || {
                    let glob = &glob;
                    let root = &root;
                    let (filter, withheld) = (&filter, &withheld);
                    move |entry: ignore::DirEntry, local: &mut Vec<(SystemTime, PathBuf)>| {
                        let is_file = match entry.file_type() {
                            Some(t) if t.is_file() => true,
                            Some(t) if t.is_symlink() => entry.path().is_file(),
                            _ => false,
                        };
                        if !is_file {
                            return WalkState::Continue;
                        }
                        let relative = entry.path().strip_prefix(root).unwrap_or(entry.path());
                        if glob.is_match(relative)
                            && super::allowed(filter, "Glob", entry.path(), withheld)
                        {
                            let mtime = std::fs::metadata(entry.path())
                                .and_then(|m| m.modified())
                                .unwrap_or(SystemTime::UNIX_EPOCH);
                            local.push((mtime, entry.into_path()));
                        }
                        WalkState::Continue
                    }
                });
            if cancel.is_cancelled() {
                return Err(cancelled("Glob"));
            }
            found.sort_unstable_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            let mut out = render(&found, &pattern, &root, &errors, started);
            if let Some(note) = super::withheld_note(withheld.into_inner())
                && let Some(tack_protocol::ContentBlock::Text(t)) = out.content.first_mut()
            {
                t.text.push('\n');
                t.text.push_str(&note);
            }
            Ok(out)
        });
        tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => Err(cancelled("Glob")),
            joined = result => joined.map_err(|e| ToolError::Internal(format!("Glob failed: {e}")))?,
        }
    }
}

fn render(
    found: &[(SystemTime, PathBuf)],
    pattern: &str,
    root: &Path,
    errors: &WalkErrors,
    started: std::time::Instant,
) -> ToolOutput {
    let shown: Vec<String> = found
        .iter()
        .take(MAX_RESULTS)
        .map(|(_, p)| p.display().to_string())
        .collect();
    let mut text = if found.is_empty() {
        let mut none = format!(
            "No files match {pattern:?} under {} (files ignored by .gitignore are skipped).",
            root.display()
        );
        if !pattern.contains('/') {
            none.push_str(&format!(
                " \"*\" does not cross directories: use \"**/{pattern}\" to search at any depth."
            ));
        }
        none
    } else {
        shown.join("\n")
    };
    if found.len() > MAX_RESULTS {
        text.push_str(&format!(
            "\n({} more files match, {} in all; these are the {MAX_RESULTS} most recently modified. Narrow the pattern or path to see the others.)",
            found.len() - MAX_RESULTS,
            found.len()
        ));
    }
    if let Some(note) = errors.note() {
        text.push('\n');
        text.push_str(&note);
    }
    // Claude Code's `GlobOutput`.
    let response = json!({
        "durationMs": u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        "numFiles": shown.len(),
        "filenames": shown,
        "truncated": found.len() > MAX_RESULTS,
        "totalMatches": found.len(),
    });
    ToolOutput::text(text)
        .with_structured(json!({
            "files": shown,
            "total": found.len(),
            "truncated": found.len() > MAX_RESULTS,
        }))
        .with_response(response)
}
