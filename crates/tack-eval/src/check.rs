//! Completion checks: does the final answer (and the state the run left)
//! show the task done?

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use tack_process::{Hold, Spec, Streams};

use crate::analyze::cut;
use crate::record::CheckResult;
use crate::suite::{Expect, Task};

/// How long a check command may run.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// The task's checks on a run's answer, and its command in `work`, with
/// `env` (the run's environment: PATH, the suite directory).
pub async fn run_checks(
    task: &Task,
    answer: &str,
    work: &Path,
    env: &[(String, String)],
) -> Vec<CheckResult> {
    let mut out = Vec::new();
    for re in &task.check.answer_matches {
        let passed = re.is_match(answer);
        out.push(CheckResult {
            check: format!("answer matches /{}/", re.as_str()),
            passed,
            detail: if passed {
                String::new()
            } else {
                format!("the answer was {:?}", cut(answer, 300))
            },
        });
    }
    for re in &task.check.answer_not_matches {
        let found = re.find(answer).map(|m| m.as_str().to_owned());
        out.push(CheckResult {
            check: format!("answer does not match /{}/", re.as_str()),
            passed: found.is_none(),
            detail: found
                .map(|m| format!("the answer says {m:?}"))
                .unwrap_or_default(),
        });
    }
    if !task.check.answer_json.is_empty() {
        let parsed = json_in(answer);
        for (pointer, expected) in &task.check.answer_json {
            let got = parsed.as_ref().and_then(|v| v.pointer(pointer));
            let passed = got.is_some_and(|g| json_equal(g, expected));
            out.push(CheckResult {
                check: format!("answer {pointer} = {expected}"),
                passed,
                detail: match (&parsed, got) {
                    (None, _) => "the answer holds no JSON value".into(),
                    (Some(_), None) => format!("no {pointer} in the answer's JSON"),
                    (Some(_), Some(g)) if !passed => format!("it is {g}"),
                    _ => String::new(),
                },
            });
        }
    }
    if task.expect == Expect::Ask {
        let asked = asks(answer);
        out.push(CheckResult {
            check: "asks the user".into(),
            passed: asked,
            detail: if asked {
                String::new()
            } else {
                format!("the answer asks nothing: {:?}", cut(answer, 300))
            },
        });
    }
    if let Some(argv) = &task.check.command {
        out.push(command_check(argv, work, env).await);
    }
    out
}

/// Whether an answer asks the user something: a sentence ending in `?`.
pub fn asks(answer: &str) -> bool {
    answer.contains('?')
}

async fn command_check(argv: &[String], work: &Path, env: &[(String, String)]) -> CheckResult {
    let check = format!("command: {}", argv.join(" "));
    let Some((program, args)) = argv.split_first() else {
        return CheckResult {
            check,
            passed: false,
            detail: "the command is empty".into(),
        };
    };
    let mut spec = Spec::new(program)
        .args(args)
        .cwd(work)
        .streams(Streams::Merged);
    for (k, v) in env {
        spec = spec.env(k, v);
    }
    let process = match tack_process::spawn(spec) {
        Ok(p) => p,
        Err(e) => {
            return CheckResult {
                check,
                passed: false,
                detail: format!("could not start it: {e}"),
            };
        }
    };
    let ending = process.wait(Some(COMMAND_TIMEOUT), None).await;
    process.output_closed(Duration::from_secs(1)).await;
    let output = process.stdout().take(Hold::Nothing).head;
    let passed = ending.exit().is_some_and(|e| e.success());
    let status = if ending.timed_out() {
        format!("timed out after {}s", COMMAND_TIMEOUT.as_secs())
    } else {
        match ending.exit().and_then(|e| e.code()) {
            Some(code) => format!("exit {code}"),
            None => "killed".into(),
        }
    };
    CheckResult {
        check,
        passed,
        detail: if passed {
            String::new()
        } else {
            format!("{status}: {}", cut(output.trim(), 1000))
        },
    }
}

/// The answer as JSON: the whole of it, else a fenced ```json block, else
/// the outermost `{…}`.
fn json_in(answer: &str) -> Option<Value> {
    if let Ok(v) = serde_json::from_str(answer.trim()) {
        return Some(v);
    }
    if let Some(start) = answer.find("```json") {
        let rest = &answer[start + 7..];
        if let Some(end) = rest.find("```")
            && let Ok(v) = serde_json::from_str(rest[..end].trim())
        {
            return Some(v);
        }
    }
    let (start, end) = (answer.find('{')?, answer.rfind('}')?);
    serde_json::from_str(answer.get(start..=end)?).ok()
}

/// Equal as JSON values, numbers compared as numbers (`1` = `1.0`).
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::suite::Suite;

    fn task(check: &str) -> Task {
        let text = format!(
            "name = \"s\"\n[[variant]]\nname = \"v\"\ninterface = \"builtin\"\n[[task]]\nid = \"t\"\nprompt = \"p\"\n{check}"
        );
        Suite::parse(&text, Path::new("s.toml"))
            .unwrap()
            .tasks
            .remove(0)
    }

    #[tokio::test]
    async fn answers_are_checked_by_pattern_json_and_command() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("done"), "").unwrap();
        let t = task(
            "[task.check]\nanswer_matches = ['\\$\\d+']\nanswer_not_matches = ['\\$0\\b']\nanswer_json = { \"/price\" = 231.0 }\ncommand = [\"test\", \"-f\", \"done\"]",
        );
        let good = run_checks(
            &t,
            "Here: ```json\n{\"price\": 231}\n``` so $231",
            dir.path(),
            &[],
        )
        .await;
        assert!(good.iter().all(|c| c.passed), "{good:?}");
        let bad = run_checks(&t, "{\"price\": 0} is $0", dir.path(), &[]).await;
        let failed: Vec<&str> = bad
            .iter()
            .filter(|c| !c.passed)
            .map(|c| c.check.as_str())
            .collect();
        assert_eq!(failed.len(), 2, "{bad:?}");
        assert!(bad[2].detail.contains("it is 0"), "{bad:?}");
        let missing = run_checks(&t, "x", Path::new("/"), &[]).await;
        assert!(missing[3].detail.starts_with("exit 1"), "{missing:?}");
    }

    #[tokio::test]
    async fn an_ask_task_wants_a_question() {
        let t = task("expect = \"ask\"");
        assert!(run_checks(&t, "Which Apex do you mean?", Path::new("."), &[]).await[0].passed);
        assert!(!run_checks(&t, "Apex is at $3.", Path::new("."), &[]).await[0].passed);
        assert_eq!(json_in("x {\"a\": [1]} y"), Some(json!({"a": [1]})));
    }
}
