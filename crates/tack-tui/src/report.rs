//! What the report commands print (`/tools`, `/cost`, `/mcp`, `/skills`,
//! `/permissions`): lines for the scrollback, made from the session itself
//! (its registry, usage, servers and policy as they are now, a mode
//! changed with Shift-Tab included).

use tack_agent::context::group;
use tack_protocol::Usage;
use tack_session::Session;
use tack_tool::Exposure;

use crate::commands::Permissions;

/// `/tools`: each tool, where it is shown to the model, and what its
/// definition costs in every request (≈ bytes / 4, as `tack tools list`).
pub(crate) fn tools(session: &Session) -> Vec<String> {
    let registry = session.pipeline().registry();
    let mut rows: Vec<(String, &'static str, usize)> = registry
        .iter()
        .map(|t| {
            let bytes = serde_json::to_vec(&t.definition)
                .map(|v| v.len())
                .unwrap_or_default();
            let shown = match t.exposure {
                Exposure::Direct => "sent",
                Exposure::Deferred => "deferred",
                Exposure::Hidden => "hidden",
            };
            (t.definition.name.clone(), shown, bytes.div_ceil(4))
        })
        .collect();
    rows.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    let sent: usize = rows.iter().filter(|r| r.1 == "sent").map(|r| r.2).sum();
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(4).max(4);
    let mut lines = vec![format!(
        "{} tools; the definitions sent cost ≈{sent} tokens per request",
        rows.len()
    )];
    lines.push(format!(
        "  {:<width$}  {:<8}  {:>7}",
        "TOOL", "SHOWN", "≈TOKENS"
    ));
    for (name, shown, tokens) in rows {
        lines.push(format!("  {name:<width$}  {shown:<8}  {tokens:>7}"));
    }
    lines
}

/// `/cost`: the session's tokens, cache reads and what they cost at the
/// model's list price.
pub(crate) fn cost(model: &str, usage: &Usage) -> Vec<String> {
    let hit = usage.cache_read_percent().unwrap_or(0.0);
    let mut lines = vec![
        format!("tokens in this session (model {model}):"),
        format!("  input, uncached   {:>12}", group(usage.input_tokens)),
        format!(
            "  cache reads       {:>12}   ({hit:.0}% of input read from the cache)",
            group(usage.cache_read_input_tokens)
        ),
        format!(
            "  cache writes      {:>12}",
            group(usage.cache_creation_input_tokens)
        ),
        format!("  output            {:>12}", group(usage.output_tokens)),
    ];
    match tack_model::pricing::price(model) {
        Some(price) => lines.push(format!(
            "  cost              {:>12}   (list price of {})",
            format!("${:.4}", price.cost_usd(usage)),
            price.model
        )),
        None => lines.push(format!(
            "  cost              unknown: {model} is not in tack's price table"
        )),
    }
    lines
}

/// `/mcp`: the servers, their state and tools.
pub(crate) fn mcp(mcp: Option<&tack_session::sources::Mcp>) -> Vec<String> {
    let Some(manager) = mcp.and_then(|m| m.running()) else {
        return vec![
            "no MCP servers in this session (add them to .mcp.json or the settings' mcpServers)"
                .into(),
        ];
    };
    let servers = manager.list();
    if servers.is_empty() {
        return vec!["no MCP servers are configured here (.mcp.json, settings mcpServers)".into()];
    }
    let mut lines = vec![format!("{} MCP server(s):", servers.len())];
    for s in servers {
        let mut line = format!(
            "  {:<20} {:<14} {:<6} {} tools (≈{} tokens)",
            s.name,
            format!("{:?}", s.state).to_lowercase(),
            s.transport,
            s.tools,
            s.definition_tokens
        );
        if s.withheld > 0 {
            line.push_str(&format!(
                ", {} withheld: their definitions changed (/mcp approve {})",
                s.withheld, s.name
            ));
        }
        if s.state == tack_mcp::client::ServerState::NeedsApproval {
            line.push_str(&format!(
                ": a project server not approved yet (/mcp approve {})",
                s.name
            ));
        }
        lines.push(line);
    }
    lines
}

/// `/mcp approve NAME`: approves a project server, or the changed tools of
/// a running one.
pub(crate) async fn mcp_approve(
    mcp: Option<&tack_session::sources::Mcp>,
    server: &str,
) -> Vec<String> {
    let Some(manager) = mcp.and_then(|m| m.running()) else {
        return vec!["no MCP servers in this session".into()];
    };
    let listing = manager.list();
    let Some(found) = listing.iter().find(|s| s.name == server) else {
        let names: Vec<&str> = listing.iter().map(|s| s.name.as_str()).collect();
        return vec![format!(
            "no MCP server `{server}` here (servers: {})",
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        )];
    };
    if found.withheld > 0 {
        return match manager.approve_changes(server).await {
            Ok(changes) => vec![format!(
                "approved the changed definitions of {} tool(s) of `{server}`",
                changes.len()
            )],
            Err(e) => vec![format!("could not approve `{server}`'s changes: {e}")],
        };
    }
    match manager.approve_server(server) {
        Ok(()) => vec![format!(
            "approved `{server}`: it starts in the next session of this project (/clear starts one)"
        )],
        Err(e) => vec![format!("could not approve `{server}`: {e}")],
    }
}

/// `/skills`: the skills found, which the model can load and which are
/// `/name` commands.
pub(crate) fn skills(skills: Option<&tack_session::skills::Skills>) -> Vec<String> {
    let Some(set) = skills.and_then(|s| s.set()) else {
        return vec!["no skills in this session".into()];
    };
    let found = &set.discovery.skills;
    if found.is_empty() {
        return vec![
            "no skills found (.tack/skills, .claude/skills, ~/.config/tack/skills, ~/.claude/skills)"
                .into(),
        ];
    }
    let mut lines = vec![format!(
        "{} skill(s); the catalog costs ≈{} tokens per request",
        found.len(),
        set.catalog.tokens
    )];
    for s in found {
        let mut how = Vec::new();
        if set.catalog.names.contains(&s.name) {
            how.push("model");
        }
        if s.frontmatter.user_invocable {
            how.push("/command");
        }
        let description: String = s.description.chars().take(70).collect();
        lines.push(format!(
            "  {:<24} {:<16} {description}",
            s.name,
            if how.is_empty() {
                "(not offered)".to_owned()
            } else {
                how.join(", ")
            }
        ));
    }
    lines
}

/// `/permissions …`: the mode and the rules in force, what they say about
/// one call, or a rule added to or removed from the local settings.
pub(crate) fn permissions(session: &Session, command: Permissions) -> Vec<String> {
    match command {
        Permissions::Explain(spec) => match session.explain_permission(&spec) {
            Ok(text) => text.lines().map(str::to_owned).collect(),
            Err(e) => vec![format!("explain {spec}: {e}")],
        },
        Permissions::Add(kind, rule) => match session.add_permission_rule(kind, &rule) {
            Ok(path) => vec![format!(
                "{} rule `{rule}` added to {}: it applies from the next call",
                kind.as_str(),
                path.display()
            )],
            Err(e) => vec![format!("`{rule}` was not added: {e}")],
        },
        Permissions::Remove(rule) => match session.remove_permission_rule(&rule) {
            Ok(lists) if lists.is_empty() => {
                let holder = session
                    .permission_rules()
                    .into_iter()
                    .find(|r| r.contains(&format!(" {rule}  (")));
                vec![match holder {
                    Some(line) => format!(
                        "`{rule}` is not in the local settings; it is set here: {line} (edit that file)"
                    ),
                    None => format!("no rule `{rule}` in force"),
                }]
            }
            Ok(lists) => vec![format!(
                "`{rule}` removed from {} in .tack/settings.local.json",
                lists
                    .iter()
                    .map(|k| k.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )],
            Err(e) => vec![format!("`{rule}` was not removed: {e}")],
        },
        Permissions::Usage(text) => vec![text],
        Permissions::Show => {
            let mut lines = vec![format!(
                "permission mode: {} (Shift-Tab changes it for this session)",
                session.permission_mode().as_str()
            )];
            let rules = session.permission_rules();
            if rules.is_empty() {
                lines.push("no rules: every call that needs permission is asked".into());
            } else {
                lines.push(format!("{} rule(s), strongest first:", rules.len()));
                lines.extend(rules.into_iter().map(|r| format!("  {r}")));
            }
            lines.push(
                "/permissions explain CALL says which rule decides; allow|ask|deny RULE adds one and remove RULE takes one out of .tack/settings.local.json"
                    .into(),
            );
            lines
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_says_the_cache_share_and_the_price() {
        let usage = Usage {
            input_tokens: 1_000,
            output_tokens: 500,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 3_000,
        };
        let text = cost("claude-sonnet-4-5", &usage).join("\n");
        assert!(text.contains("75% of input read from the cache"), "{text}");
        assert!(text.contains("$0.0114"), "{text}");
        let unknown = cost("my-local-model", &usage).join("\n");
        assert!(unknown.contains("not in tack's price table"), "{unknown}");
    }
}
