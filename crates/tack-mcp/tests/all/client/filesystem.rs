//! @modelcontextprotocol/server-filesystem: real files, isError answers.

use serde_json::json;
use tack_tool::ToolError;

use super::support::*;

#[tokio::test]
async fn reads_real_files_and_refuses_paths_outside_with_its_own_words() {
    let peers = require_peers!();
    let home = Home::new();
    let root = home.project();
    std::fs::write(root.join("notes.txt"), "first line\nsecond line\n").unwrap();
    let manager = home.manager(vec![peers.filesystem("fs", &root)]);
    start_ok(&manager, &["fs"]).await;

    let read = tool(&manager, "mcp__fs__read_text_file");
    assert!(read.annotations().read_only && read.is_concurrency_safe(&json!({})));
    let write = tool(&manager, "mcp__fs__write_file");
    assert!(!write.annotations().read_only && !write.is_concurrency_safe(&json!({})));

    let path = root.join("notes.txt");
    let out = read.call(json!({"path": path}), ctx()).await.unwrap();
    assert_eq!(text(&out).trim_end(), "first line\nsecond line");

    let out = write
        .call(
            json!({"path": root.join("new.txt"), "content": "written by the model"}),
            ctx(),
        )
        .await
        .unwrap();
    assert!(!text(&out).is_empty());
    assert_eq!(
        std::fs::read_to_string(root.join("new.txt")).unwrap(),
        "written by the model"
    );

    let outside = home.dir.path().join("secret.txt");
    std::fs::write(&outside, "secret").unwrap();
    let err = read
        .call(json!({"path": outside}), ctx())
        .await
        .unwrap_err();
    match err {
        ToolError::Failed(text) => {
            assert!(
                text.to_lowercase().contains("denied") || text.contains("outside"),
                "{text}"
            );
            assert!(!text.contains("secret\n"));
        }
        other => panic!("expected the server's isError answer, got {other:?}"),
    }
    manager.shutdown().await;
}
