//! Options that run commands, through the whole pipeline: under the
//! read-only-looking rule `Bash(git grep *)`, `git grep -O'touch pwned'`
//! does not run `touch` (nobody is there to allow it), while a plain
//! `git grep` does run. A command built to overflow the parser's stack is
//! answered, not a crash.

use serde_json::json;
use tack_protocol::RunStatus;
use tack_session::{Session, SessionOptions};
use tack_testkit::{MockServer, Step};
use tokio_util::sync::CancellationToken;

use crate::support::{Project, client, results_of};

#[tokio::test]
async fn a_git_grep_option_that_runs_a_command_does_not_run_it() {
    let project = Project::new();
    project.settings(json!({"permissions": {"allow": ["Bash(git grep *)"]}}));
    project.write("a.txt", "needle\n");
    let dir = project.path();
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use(
            "t1",
            "Bash",
            json!({"command": "git grep --no-index -O'touch pwned' needle"}),
        ),
        Step::tool_use(
            "t2",
            "Bash",
            json!({"command": "git grep --no-index --open-files-in-pager='touch pwned2' needle"}),
        ),
        Step::tool_use(
            "t3",
            "Bash",
            json!({"command": "git grep --no-index -n needle"}),
        ),
        Step::text("done"),
    ]);
    let ctx = project.context();
    let session = Session::assemble(&ctx, SessionOptions::new("c1"))
        .await
        .unwrap();
    let mut agent = session.agent(client(&mock).await, Default::default());
    let out = agent
        .run(
            Some(vec![tack_protocol::ContentBlock::text("go")]),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);

    assert!(!dir.join("pwned").exists(), "git grep -O ran touch");
    assert!(
        !dir.join("pwned2").exists(),
        "git grep --open-files-in-pager ran touch"
    );
    let messages = agent.messages();
    for (k, id) in ["t1", "t2"].iter().enumerate() {
        let result = &results_of(&messages[2 + 2 * k])[0];
        assert!(result.is_error, "{id}: {}", result.text());
        assert!(
            result.text().contains("touch pwned"),
            "{id}: {}",
            result.text()
        );
    }
    let grep = &results_of(&messages[6])[0];
    assert!(!grep.is_error, "{}", grep.text());
    assert!(grep.text().contains("a.txt:1:needle"), "{}", grep.text());
}

#[tokio::test]
async fn commands_built_to_exhaust_the_checker_are_answered() {
    let project = Project::new();
    project.settings(json!({"permissions": {"allow": ["Bash(echo *)"]}}));
    let mock = MockServer::start().await;
    mock.push_all([
        // 1,459 nested `{ ` overflowed the stack; `x <<'' $(` looped
        // allocating; 3,000 nested `${x:-` took seconds.
        Step::tool_use("t1", "Bash", json!({"command": "{ ".repeat(1459)})),
        Step::tool_use("t2", "Bash", json!({"command": "x <<'' $("})),
        Step::tool_use(
            "t3",
            "Bash",
            json!({"command": format!("echo {}x{}", "${x:-".repeat(3000), "}".repeat(3000))}),
        ),
        Step::tool_use("t4", "Bash", json!({"command": "echo still here"})),
        Step::text("done"),
    ]);
    let ctx = project.context();
    let session = Session::assemble(&ctx, SessionOptions::new("c2"))
        .await
        .unwrap();
    let mut agent = session.agent(client(&mock).await, Default::default());
    let started = std::time::Instant::now();
    let out = agent
        .run(
            Some(vec![tack_protocol::ContentBlock::text("go")]),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    let messages = agent.messages();
    for k in 0..3 {
        let result = &results_of(&messages[2 + 2 * k])[0];
        assert!(result.is_error, "{}", result.text());
    }
    let last = &results_of(&messages[8])[0];
    assert!(!last.is_error, "{}", last.text());
    assert!(last.text().contains("still here"), "{}", last.text());
}
