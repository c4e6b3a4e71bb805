//! How a run fails: [`CodeError`] says what went wrong (each limit by name
//! and value), [`RunError`] adds what the program printed before it did.

use std::fmt;
use std::time::Duration;

use crate::console::Console;
use crate::limits::Bytes;

/// A run that ended without a value: the error and what was printed first.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{error}")]
pub struct RunError {
    #[source]
    pub error: CodeError,
    /// What the program printed before it failed.
    pub console: Console,
    /// Tool calls it made (and `tools.search` requests).
    pub calls: u32,
}

/// What ended a run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CodeError {
    /// The code does not parse.
    #[error("syntax error: {0}")]
    Syntax(ScriptError),
    /// The program threw (or rejected) and nothing caught it.
    #[error("uncaught {0}")]
    Uncaught(ScriptError),
    /// [`Limits::memory_bytes`](crate::Limits::memory_bytes).
    #[error(
        "memory limit of {} reached: the program allocated more than that (keep less data at once)",
        Bytes(*limit_bytes)
    )]
    Memory { limit_bytes: usize },
    /// [`Limits::wall_time`](crate::Limits::wall_time).
    #[error(
        "wall time limit of {} reached: the program (with its tool calls) ran longer than that",
        Seconds(*limit)
    )]
    WallTime { limit: Duration },
    /// [`Limits::stack_bytes`](crate::Limits::stack_bytes).
    #[error(
        "stack limit of {} reached: calls nested too deep (unbounded recursion?){}",
        Bytes(*limit_bytes),
        At(*line, *column)
    )]
    Stack {
        limit_bytes: usize,
        /// Where the call that overflowed was made, when known.
        line: Option<u32>,
        column: Option<u32>,
    },
    /// [`Limits::max_calls`](crate::Limits::max_calls): the program did not
    /// catch the rejection of the call past it.
    #[error("tool call limit of {limit} calls per run reached")]
    Calls { limit: u32 },
    /// The caller cancelled the run.
    #[error("cancelled")]
    Cancelled,
    /// The engine itself failed (could not start a runtime): not the
    /// program's fault.
    #[error("the JavaScript engine failed: {0}")]
    Engine(String),
}

/// An error thrown by the program (or a syntax error in its code), with its
/// place in the code as the model wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptError {
    /// The error's `name`: `TypeError`, `SyntaxError`, `Error`… (`Error` for
    /// a thrown value that is not an error object).
    pub name: String,
    /// The error's `message` (for a thrown non-error, the value itself).
    pub message: String,
    /// 1-based line and column in the program's code, when known.
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// The innermost frames of the stack, innermost first, at most
    /// [`ScriptError::MAX_FRAMES`]: `at f (code:3:9)`, `at <anonymous>
    /// (code:7:1)`. Locations in the program read `code:LINE:COLUMN`.
    pub stack: Vec<String>,
    /// The `kind` of a tool call's rejection (`denied`, `not_found`…) when
    /// that is what went uncaught.
    pub kind: Option<String>,
}

impl ScriptError {
    /// How many stack frames are kept.
    pub const MAX_FRAMES: usize = 8;
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        if let Some(kind) = &self.kind {
            write!(f, " ({kind})")?;
        }
        write!(f, ": {}{}", self.message, At(self.line, self.column))?;
        for frame in &self.stack {
            write!(f, "\n    {frame}")?;
        }
        Ok(())
    }
}

/// ` at line 3, column 5`, or nothing when the place is unknown.
struct At(Option<u32>, Option<u32>);

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0, self.1) {
            (Some(line), Some(column)) => write!(f, " at line {line}, column {column}"),
            (Some(line), None) => write!(f, " at line {line}"),
            _ => Ok(()),
        }
    }
}

/// `30 s`, `200 ms`, `1.5 s`.
struct Seconds(Duration);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0.as_millis();
        if ms < 1000 {
            write!(f, "{ms} ms")
        } else if ms.is_multiple_of(1000) {
            write!(f, "{} s", ms / 1000)
        } else {
            write!(f, "{} s", self.0.as_secs_f64())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_limit_names_itself_and_its_value() {
        let memory = CodeError::Memory {
            limit_bytes: 64 * 1024 * 1024,
        };
        assert!(memory.to_string().starts_with("memory limit of 64 MiB"));
        let wall = CodeError::WallTime {
            limit: Duration::from_millis(200),
        };
        assert!(wall.to_string().starts_with("wall time limit of 200 ms"));
        let wall = CodeError::WallTime {
            limit: Duration::from_secs(30),
        };
        assert!(wall.to_string().starts_with("wall time limit of 30 s"));
        let stack = CodeError::Stack {
            limit_bytes: 1024 * 1024,
            line: Some(2),
            column: Some(20),
        };
        assert!(stack.to_string().starts_with("stack limit of 1 MiB"));
        assert!(stack.to_string().ends_with("at line 2, column 20"));
        let calls = CodeError::Calls { limit: 100 };
        assert_eq!(
            calls.to_string(),
            "tool call limit of 100 calls per run reached"
        );
    }
}
