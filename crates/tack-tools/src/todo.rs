//! TodoWrite: the session's plan, as a list the model rewrites whole on each
//! call (Claude Code's shape). The tool keeps the latest list; the result
//! carries it rendered for the model and as JSON (`{"todos": [...]}`) for a UI.
//!
//! ```
//! use tack_tools::todo::TodoWrite;
//! let todo = TodoWrite::default();
//! assert!(todo.todos().is_empty());
//! ```

use std::sync::{Mutex, PoisonError};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tack_tool::{ToolAnnotations, ToolContext, ToolError, ToolOutput, TypedTool};

/// The most items a plan may hold.
pub const MAX_TODOS: usize = 100;

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

/// One task of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TodoItem {
    /// The task in the imperative, e.g. "Run the test suite".
    pub content: String,
    /// "pending", "in_progress" (at most one task at a time) or "completed".
    pub status: TodoStatus,
    /// The task in the present continuous, shown while it runs, e.g. "Running the test suite".
    #[serde(rename = "activeForm")]
    pub active_form: String,
}

// The input of TodoWrite. Not a doc comment: that would become the schema's
// description, sent with every request.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TodoWriteInput {
    /// The whole updated list; it replaces the previous one. An empty list clears the plan.
    pub todos: Vec<TodoItem>,
}

/// Keeps the session's plan.
#[derive(Debug, Default)]
pub struct TodoWrite {
    todos: Mutex<Vec<TodoItem>>,
}

impl TodoWrite {
    /// The current plan.
    pub fn todos(&self) -> Vec<TodoItem> {
        self.todos
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

fn check(todos: &[TodoItem]) -> Result<(), ToolError> {
    if todos.len() > MAX_TODOS {
        return Err(ToolError::InvalidInput(format!(
            "the list has {} tasks; keep it to at most {MAX_TODOS} by merging small steps",
            todos.len()
        )));
    }
    for (i, item) in todos.iter().enumerate() {
        if item.content.trim().is_empty() {
            return Err(ToolError::InvalidInput(format!(
                "todos[{i}].content is empty; describe the task, e.g. \"Run the test suite\""
            )));
        }
        if item.active_form.trim().is_empty() {
            return Err(ToolError::InvalidInput(format!(
                "todos[{i}].activeForm is empty; give the task in the present continuous, e.g. \"Running the test suite\""
            )));
        }
    }
    let active: Vec<usize> = todos
        .iter()
        .enumerate()
        .filter(|(_, t)| t.status == TodoStatus::InProgress)
        .map(|(i, _)| i)
        .collect();
    if active.len() > 1 {
        let list: Vec<String> = active.iter().map(|i| format!("todos[{i}]")).collect();
        return Err(ToolError::InvalidInput(format!(
            "{} tasks are in_progress ({}); at most one task may be in_progress at a time: \
             mark the others pending or completed",
            active.len(),
            list.join(", ")
        )));
    }
    Ok(())
}

/// The plan as the model reads it: `[x]` completed, `[~]` in progress, `[ ]` pending.
pub fn render(todos: &[TodoItem]) -> String {
    let mut out = String::new();
    for item in todos {
        let marker = match item.status {
            TodoStatus::Completed => "[x]",
            TodoStatus::InProgress => "[~]",
            TodoStatus::Pending => "[ ]",
        };
        out.push_str(marker);
        out.push(' ');
        out.push_str(item.content.trim());
        out.push('\n');
    }
    out
}

#[async_trait]
impl TypedTool for TodoWrite {
    type Input = TodoWriteInput;

    fn name(&self) -> &str {
        "TodoWrite"
    }

    fn description(&self) -> &str {
        "Writes the session's task list (the plan the user sees). Send the whole updated list \
         each time: it replaces the previous one. Use it for work of three or more steps or when \
         the user gives several tasks; skip it for a single simple task or a question. Mark a \
         task in_progress before starting it (at most one at a time) and completed as soon as \
         it is done; add tasks you discover. Returns the list as saved, with [x] completed, \
         [~] in progress, [ ] pending."
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations {
            idempotent: true,
            ..Default::default()
        }
    }

    /// The list as saved, `{"todos": [...]}`: the input's own shape.
    fn output_schema(&self) -> Option<serde_json::Value> {
        Some(tack_tool::schema_for::<TodoWriteInput>())
    }

    fn validate(&self, input: &TodoWriteInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        check(&input.todos)
    }

    async fn call(
        &self,
        input: TodoWriteInput,
        _ctx: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        check(&input.todos)?;
        let todos = input.todos;
        let count = |s: TodoStatus| todos.iter().filter(|t| t.status == s).count();
        let summary = if todos.is_empty() {
            "Task list cleared.".to_owned()
        } else {
            format!(
                "Task list saved: {} task{} ({} completed, {} in progress, {} pending).",
                todos.len(),
                if todos.len() == 1 { "" } else { "s" },
                count(TodoStatus::Completed),
                count(TodoStatus::InProgress),
                count(TodoStatus::Pending)
            )
        };
        let text = format!("{summary}\n{}", render(&todos));
        let structured = json!({ "todos": todos });
        let old = std::mem::replace(
            &mut *self.todos.lock().unwrap_or_else(PoisonError::into_inner),
            todos.clone(),
        );
        // Claude Code's `TodoWriteOutput`.
        let response = json!({ "oldTodos": old, "newTodos": todos });
        Ok(ToolOutput::text(text.trim_end().to_owned())
            .with_structured(structured)
            .with_response(response))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use serde_json::{Value, json};
    use tack_tool::Typed;
    use tokio_util::sync::CancellationToken;

    use super::*;

    fn ctx() -> ToolContext {
        ToolContext::new(std::env::temp_dir(), "s", "t", CancellationToken::new())
    }

    fn item(content: &str, status: &str) -> Value {
        json!({"content": content, "status": status, "activeForm": format!("Doing {content}")})
    }

    fn text(out: &ToolOutput) -> String {
        serde_json::to_value(&out.content[0]).unwrap()["text"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    #[tokio::test]
    async fn the_list_is_saved_rendered_and_returned_as_json() {
        let tool = TodoWrite::default();
        let input = json!({"todos": [
            item("Read the code", "completed"),
            item("Write the fix", "in_progress"),
            item("Run the tests", "pending"),
        ]});
        let out = tool
            .call(serde_json::from_value(input.clone()).unwrap(), ctx())
            .await
            .unwrap();
        assert_eq!(
            text(&out),
            "Task list saved: 3 tasks (1 completed, 1 in progress, 1 pending).\n\
             [x] Read the code\n[~] Write the fix\n[ ] Run the tests"
        );
        assert_eq!(out.structured.unwrap(), input);
        assert_eq!(tool.todos().len(), 3);
        assert_eq!(tool.todos()[1].active_form, "Doing Write the fix");

        // each call replaces the whole list
        let out = tool
            .call(
                serde_json::from_value(json!({"todos": [item("Ship", "pending")]})).unwrap(),
                ctx(),
            )
            .await
            .unwrap();
        assert_eq!(
            text(&out),
            "Task list saved: 1 task (0 completed, 0 in progress, 1 pending).\n[ ] Ship"
        );
        assert_eq!(tool.todos().len(), 1);

        let out = tool
            .call(serde_json::from_value(json!({"todos": []})).unwrap(), ctx())
            .await
            .unwrap();
        assert_eq!(text(&out), "Task list cleared.");
        assert!(tool.todos().is_empty());
    }

    #[tokio::test]
    async fn invalid_lists_are_refused_and_leave_the_plan_alone() {
        let tool = TodoWrite::default();
        tool.call(
            serde_json::from_value(json!({"todos": [item("Keep me", "pending")]})).unwrap(),
            ctx(),
        )
        .await
        .unwrap();
        let bad = [
            (
                json!({"todos": [item("a", "in_progress"), item("b", "in_progress")]}),
                "todos[0], todos[1]",
            ),
            (
                json!({"todos": [item("  ", "pending")]}),
                "todos[0].content",
            ),
            (
                json!({"todos": [{"content": "x", "status": "pending", "activeForm": ""}]}),
                "activeForm",
            ),
        ];
        for (input, expect) in bad {
            let parsed: TodoWriteInput = serde_json::from_value(input).unwrap();
            let err = tool.validate(&parsed, &ctx()).unwrap_err();
            assert!(
                matches!(&err, ToolError::InvalidInput(m) if m.contains(expect)),
                "{err:?}"
            );
            let err = tool.call(parsed, ctx()).await;
            assert!(err.is_err());
        }
        assert_eq!(tool.todos()[0].content, "Keep me");
    }

    #[test]
    fn the_schema_uses_claude_code_fields_and_checks_statuses() {
        let mut registry = tack_tool::ToolRegistry::new();
        registry
            .register(std::sync::Arc::new(Typed(TodoWrite::default())))
            .unwrap();
        let tool = registry.get("TodoWrite").unwrap();
        let item_schema = tool.tool.input_schema().to_string();
        for field in ["content", "status", "activeForm", "in_progress"] {
            assert!(
                item_schema.contains(field),
                "{field} missing: {item_schema}"
            );
        }
        let err = tool
            .check_input(&json!({"todos": [{"content": "x", "status": "done", "activeForm": "x"}]}))
            .unwrap_err();
        assert!(err.to_string().contains("status"), "{err}");
        tool.check_input(&json!({"todos": [item("x", "pending")]}))
            .unwrap();
    }
}
