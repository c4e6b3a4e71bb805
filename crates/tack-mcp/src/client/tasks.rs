//! Tasks that outlive a call: the ids of tasks still running are kept in a
//! small JSON file (`ManagerOptions::task_file`, one per session), written
//! when a server turns a call into a task and cleared when the task ends.
//! A call that does not see its task end (tack exits, the call is dropped)
//! leaves its entry; [`McpManager::resume_tasks`] polls those tasks and
//! hands their results back as [`LateResult`]s for the session to show the
//! model on its next turn.
//!
//! [`McpManager::resume_tasks`]: super::McpManager::resume_tasks

use std::path::Path;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tack_tool::{ToolError, ToolOutput};

/// One task whose end tack has not seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingTask {
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    pub task_id: String,
    /// Seconds since the Unix epoch.
    pub started_at: u64,
}

/// The end of a task found on resume.
#[derive(Debug)]
pub struct LateResult {
    pub task: PendingTask,
    pub outcome: Result<ToolOutput, ToolError>,
}

/// Writers of task files in this process take turns.
static FILE_LOCK: Mutex<()> = Mutex::new(());

/// The pending tasks recorded in `file` (none when it is missing or unreadable).
pub fn read_pending(file: &Path) -> Vec<PendingTask> {
    std::fs::read(file)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

fn update(file: &Path, change: impl FnOnce(&mut Vec<PendingTask>)) {
    let _turn = FILE_LOCK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut tasks = read_pending(file);
    change(&mut tasks);
    let written = (|| -> std::io::Result<()> {
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = file.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_vec_pretty(&tasks)?)?;
        std::fs::rename(&tmp, file)
    })();
    if let Err(e) = written {
        tracing::warn!("could not update the MCP task file {}: {e}", file.display());
    }
}

pub(crate) fn remember(file: &Path, task: PendingTask) {
    update(file, |tasks| {
        tasks.retain(|t| !(t.server == task.server && t.task_id == task.task_id));
        tasks.push(task);
    });
}

pub(crate) fn forget(file: &Path, server: &str, task_id: &str) {
    update(file, |tasks| {
        tasks.retain(|t| !(t.server == server && t.task_id == task_id));
    });
}

pub(crate) fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_are_remembered_and_forgotten_by_server_and_id() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s").join("mcp-tasks.json");
        let task = |server: &str, id: &str| PendingTask {
            server: server.into(),
            tool: "brew".into(),
            task_id: id.into(),
            started_at: 1,
        };
        remember(&file, task("a", "t1"));
        remember(&file, task("b", "t1"));
        remember(&file, task("a", "t1"));
        assert_eq!(read_pending(&file), [task("b", "t1"), task("a", "t1")]);
        forget(&file, "a", "t1");
        assert_eq!(read_pending(&file), [task("b", "t1")]);
        assert!(read_pending(&dir.path().join("missing.json")).is_empty());
    }
}
