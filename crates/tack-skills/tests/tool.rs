//! The Skill tool on its own: a skill sent once per conversation, or every
//! time for a server whose clients' conversations tack cannot see.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::sync::Arc;

use serde_json::json;
use tack_skills::{Places, SkillSet, TrustAll, discover};
use tack_tool::{Tool, ToolContext};
use tokio_util::sync::CancellationToken;

fn set(dir: &std::path::Path) -> SkillSet {
    let skills = dir.join("skills/notes");
    std::fs::create_dir_all(&skills).unwrap();
    std::fs::write(
        skills.join("SKILL.md"),
        "---\nname: notes\ndescription: Take notes.\n---\nNOTES-BODY\n",
    )
    .unwrap();
    let places = Places {
        user: vec![dir.join("skills")],
        ..Places::default()
    };
    SkillSet::new(discover(&places), 4000, &|_| "user skills".into())
}

async fn load(tool: &dyn Tool, id: &str) -> String {
    let ctx = ToolContext::new("/", "s", id, CancellationToken::new());
    let out = tool.call(json!({"skill": "notes"}), ctx).await.unwrap();
    serde_json::to_string(&out.content).unwrap()
}

#[tokio::test]
async fn a_skill_is_sent_once_per_conversation_unless_dedupe_is_off() {
    let dir = tempfile::tempdir().unwrap();
    let set = set(dir.path());
    let tool = set.tool(Arc::new(TrustAll), "s").unwrap();
    assert!(
        tool.description()
            .contains("loading it again only returns a short reminder")
    );
    assert!(load(&tool, "a").await.contains("NOTES-BODY"));
    let again = load(&tool, "b").await;
    assert!(
        !again.contains("NOTES-BODY") && again.contains("already loaded"),
        "{again}"
    );
    assert!(tool.skill_load("b").unwrap().repeat);
    // Another conversation's instance starts with nothing loaded.
    assert!(load(&tool.fresh(), "c").await.contains("NOTES-BODY"));

    let served = set.tool(Arc::new(TrustAll), "s").unwrap().without_dedupe();
    assert!(!served.description().contains("short reminder"));
    assert!(served.description().ends_with(&set.catalog.text));
    for id in ["x", "y"] {
        assert!(load(&served, id).await.contains("NOTES-BODY"));
        assert!(!served.skill_load(id).unwrap().repeat);
    }
}
