//! The tool source of command tools declared in settings (`"tools"` of the
//! user, project, local and managed files; a stronger level's tool of the
//! same name replaces a weaker one's). A project file's tools are commands
//! tack runs, so they apply only once the file is approved, like its hooks
//! ([`crate::trust`]).
//!
//! Each declaration is checked whole when the session starts
//! ([`tack_tools::declared::Declaration::parse`]); one that is wrong is left
//! out, and the session says once which file, line and tool, and the fix.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use tack_policy::{Level, SettingsFile};
use tack_tools::declared::{Declaration, DeclaredTool, LoadContext, Places};

use crate::error::Result;
use crate::project::ProjectContext;
use crate::sources::{SourceContext, SourcedTool, ToolSource};

/// Command tools declared in settings.
#[derive(Debug, Default, Clone, Copy)]
pub struct Declared;

/// One declaration as found in a file.
#[derive(Debug, Clone)]
pub struct Found {
    pub name: String,
    pub level: Level,
    pub file: PathBuf,
    /// The line of its name in the file, when it could be found.
    pub line: Option<usize>,
    pub result: std::result::Result<Declaration, Problem>,
}

/// Why a declaration was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// `file:line`, the line of the key at fault when known.
    pub at: String,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

impl Found {
    /// The notice for a declaration left out.
    pub fn notice(&self) -> Option<String> {
        let problem = self.result.as_ref().err()?;
        Some(format!(
            "{}: the tool `{}` is left out: {}",
            problem.at, self.name, problem.message
        ))
    }
}

/// Every declared tool of the project's settings, the strongest
/// declaration of each name, checked. Names are taken by tack's own tools
/// (and Claude Code's) first.
pub fn declarations(project: &ProjectContext) -> Vec<Found> {
    let files = project.settings.permissions.files();
    let home = project.home();
    let cx = LoadContext {
        places: Places::new(&project.project_root, &project.cwd, home.as_deref()),
        project_root: project.project_root.clone(),
        path: None,
        taken: tack_policy::lint::KNOWN_TOOLS
            .iter()
            .map(|t| (*t).to_owned())
            .collect(),
    };
    let mut by_name: BTreeMap<String, (usize, &SettingsFile, &Value)> = BTreeMap::new();
    let mut order = 0;
    for file in files {
        let Some(tools) = file.value.get("tools").and_then(Value::as_object) else {
            continue;
        };
        for (name, value) in tools {
            let first = by_name.get(name).map_or(order, |(o, ..)| *o);
            by_name.insert(name.clone(), (first, file, value));
            order += 1;
        }
    }
    let mut found: Vec<(usize, Found)> = by_name
        .into_iter()
        .map(|(name, (order, file, value))| {
            let line = line_in(&file.text, &[&name]);
            let result = Declaration::parse(&name, value, &cx).map_err(|e| {
                let key_line = e
                    .key
                    .as_deref()
                    .and_then(|k| line_in(&file.text, &[&name, k]))
                    .or(line);
                Problem {
                    at: at(&file.path, key_line),
                    message: e.message,
                }
            });
            (
                order,
                Found {
                    name,
                    level: file.level,
                    file: file.path.clone(),
                    line,
                    result,
                },
            )
        })
        .collect();
    found.sort_by_key(|(order, _)| *order);
    found.into_iter().map(|(_, f)| f).collect()
}

/// `"tools"` is not an object in some file: said once, with the file.
fn shape_notices(project: &ProjectContext) -> Vec<String> {
    project
        .settings
        .permissions
        .files()
        .iter()
        .filter(|f| f.value.get("tools").is_some_and(|t| !t.is_object()))
        .map(|f| {
            format!(
                "{}: \"tools\" must be an object of tool declarations ({{\"git_log\": {{\"description\": …, \"command\": […]}}}}); it is ignored",
                at(&f.path, line_in(&f.text, &[]))
            )
        })
        .collect()
}

fn at(path: &Path, line: Option<usize>) -> String {
    match line {
        Some(line) => format!("{}:{line}", path.display()),
        None => path.display().to_string(),
    }
}

/// The line of `"tools"`, then of each of `keys` in turn after it: the
/// first match of each after the one before (`["git_log"]`: the line of
/// that tool's declaration in a settings file's text).
pub fn line_in(text: &str, keys: &[&str]) -> Option<usize> {
    let mut at = text.find("\"tools\"")?;
    for key in keys {
        let needle = serde_json::to_string(key).ok()?;
        at += text[at..].find(&needle)?;
    }
    Some(text[..at].matches('\n').count() + 1)
}

#[async_trait]
impl ToolSource for Declared {
    fn name(&self) -> &str {
        "declared command tools"
    }

    fn strict(&self) -> bool {
        false
    }

    async fn load(&self, cx: &SourceContext<'_>) -> Result<Vec<SourcedTool>> {
        for notice in shape_notices(cx.project) {
            cx.interaction.notice(&notice);
        }
        let sandbox = cx.project.sandbox();
        let mut tools = Vec::new();
        for found in declarations(cx.project) {
            if let Some(notice) = found.notice() {
                cx.interaction.notice(&notice);
            }
            if let Ok(decl) = found.result {
                tools.push(SourcedTool::direct(Arc::new(DeclaredTool::new(
                    decl,
                    sandbox.clone(),
                ))));
            }
        }
        Ok(tools)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn lines_are_found_under_tools_and_the_tool() {
        let text = "{\n  \"description\": 1,\n  \"tools\": {\n    \"a\": {\n      \"description\": \"\"\n    }\n  }\n}";
        assert_eq!(super::line_in(text, &[]), Some(3));
        assert_eq!(super::line_in(text, &["a"]), Some(4));
        assert_eq!(super::line_in(text, &["a", "description"]), Some(5));
    }
}
