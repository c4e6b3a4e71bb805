//! Programs that write files through their options, through the whole
//! pipeline: under `Bash(sed *)` and `Bash(tar *)` a write into a directory
//! an Edit deny rule protects does not happen, while the same program
//! writing where Edit rules allow it does.

use serde_json::json;
use tack_protocol::RunStatus;
use tack_session::{Session, SessionOptions};
use tack_testkit::{MockServer, Step};
use tokio_util::sync::CancellationToken;

use crate::support::{Project, client, results_of};

#[tokio::test]
async fn writes_through_program_options_meet_edit_deny_rules() {
    let project = Project::new();
    // The user's own file: `Bash(sed *)` and `Bash(tar *)` change paths
    // outside the project too, so a checked-in file's would wait for
    // approval.
    project.local_settings(json!({"permissions": {
        "allow": ["Bash(sed *)", "Bash(sort *)", "Bash(tar *)", "Edit(./out/**)"],
        "deny": ["Edit(./secrets/**)"]
    }}));
    project.write("secrets/key.txt", "token=1\n");
    project.write("out/a.txt", "token=1\n");
    let dir = project.path();
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use(
            "t1",
            "Bash",
            json!({"command": "sed -i.bak s/token/leaked/ secrets/key.txt"}),
        ),
        Step::tool_use(
            "t2",
            "Bash",
            json!({"command": "sed -n 's/token/x/w secrets/copy' out/a.txt"}),
        ),
        Step::tool_use(
            "t3",
            "Bash",
            json!({"command": "sort -o secrets/key.txt out/a.txt"}),
        ),
        Step::tool_use(
            "t4",
            "Bash",
            json!({"command": "tar -cf secrets/out.tar out"}),
        ),
        // Allowed: the same program, writing where an Edit rule allows it.
        Step::tool_use(
            "t5",
            "Bash",
            json!({"command": "sed -i s/token/changed/ out/a.txt"}),
        ),
        Step::text("done"),
    ]);
    let ctx = project.context();
    let session = Session::assemble(&ctx, SessionOptions::new("w1"))
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

    assert_eq!(
        std::fs::read_to_string(dir.join("secrets/key.txt")).unwrap(),
        "token=1\n"
    );
    for never in ["secrets/key.txt.bak", "secrets/copy", "secrets/out.tar"] {
        assert!(!dir.join(never).exists(), "{never} was written");
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("out/a.txt")).unwrap(),
        "changed=1\n",
        "the allowed sed ran"
    );
    let messages = agent.messages();
    for (k, id) in ["t1", "t2", "t3", "t4"].iter().enumerate() {
        let result = &results_of(&messages[2 + 2 * k])[0];
        assert_eq!(result.tool_use_id, *id);
        assert!(result.is_error, "{id}: {}", result.text());
        assert!(
            result.text().contains("Edit(./secrets/**)"),
            "{id}: {}",
            result.text()
        );
    }
}
