//! The interface folders stay in step with the typed tools.

use serde_json::Value;

use super::{Sandbox, example_dir, stdout};

fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_declared_settings_are_what_declared_settings_prints() {
    let out = Sandbox::new()
        .market_analyst()
        .arg("declared-settings")
        .output()
        .unwrap();
    assert!(out.status.success());
    let printed: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let path = example_dir().join("interfaces/declared/.tack/settings.json");
    assert!(
        read_json(&path) == printed,
        "{} is out of date: run `market-analyst declared-settings > {}`",
        path.display(),
        path.display()
    );
    let tools = printed["tools"].as_object().unwrap();
    for name in market_analyst::TOOL_NAMES
        .iter()
        .chain(&["list_reports", "show_report"])
    {
        assert!(tools.contains_key(*name), "{name} is declared");
        let declared = &tools[*name];
        assert_eq!(declared["command"][0], "market-analyst", "argv, no shell");
        assert!(declared["exitCodes"].is_object());
    }
    assert_eq!(
        printed["tools"]["get_stock_snapshot"]["exitCodes"]["3"],
        "unavailable"
    );
}

#[test]
fn every_interface_folder_is_a_project_with_its_tools() {
    let dir = example_dir().join("interfaces");
    let mcp = read_json(&dir.join("mcp/.mcp.json"));
    assert_eq!(mcp["mcpServers"]["market"]["command"], "market-analyst");
    assert_eq!(mcp["mcpServers"]["market"]["args"][0], "mcp");
    let mcp_settings = read_json(&dir.join("mcp/.tack/settings.json"));
    assert_eq!(mcp_settings["permissions"]["allow"][0], "mcp__market__*");
    // `market-analyst run` grants its own tools; these folders' settings
    // only make them project roots (a rule naming a Rust tool would be
    // reported by tack as naming no known tool).
    for folder in ["typed", "skill"] {
        let settings = read_json(&dir.join(folder).join(".tack/settings.json"));
        assert!(settings.is_object(), "{folder}");
    }
    let skill =
        std::fs::read_to_string(dir.join("skill/.tack/skills/stock-overview/SKILL.md")).unwrap();
    assert!(skill.starts_with("---\nname: stock-overview\ndescription: "));
}
