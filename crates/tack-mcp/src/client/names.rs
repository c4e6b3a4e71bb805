//! Tool names as the model APIs accept them: `mcp__<server>__<tool>`, within
//! `^[a-zA-Z0-9_-]{1,64}$`.
//!
//! Characters outside the set become `_`; a name longer than 64 is cut and
//! ends in `_` + 6 hex digits of a hash of the original pair; a name already
//! taken by another (server, tool) pair gets the same hash suffix. The rule is
//! deterministic, so a tool keeps its name from one session to the next (as
//! long as the colliding set is the same), which keeps prompt caches warm;
//! of two that collide, the one whose name needed no rewriting keeps the
//! plain name whatever order the server lists them in ([`naming_order`]).
//! Permission rules match a tool by its server's names too (tack-tool's
//! `Tool::mcp_origin`), so no rewriting hides a tool from a rule naming it.

use std::collections::HashMap;

use super::hash_hex;

const MAX: usize = 64;
const SUFFIX_LEN: usize = 7; // '_' + 6 hex digits

pub(crate) fn sanitize(part: &str) -> String {
    tack_protocol::tool_name_part(part)
}

fn suffix(server: &str, tool: &str) -> String {
    let hash = hash_hex(format!("{server}\0{tool}").as_bytes());
    format!("_{}", &hash[..SUFFIX_LEN - 1])
}

fn with_suffix(base: &str, server: &str, tool: &str) -> String {
    let keep = base.len().min(MAX - SUFFIX_LEN);
    format!("{}{}", &base[..keep], suffix(server, tool))
}

/// The model-facing name of `tool` on `server`, before collision handling.
pub fn model_tool_name(server: &str, tool: &str) -> String {
    let base = format!("mcp__{}__{}", sanitize(server), sanitize(tool));
    if base.len() <= MAX {
        base
    } else {
        // `base` is ASCII after sanitising, so byte slicing is safe.
        with_suffix(&base, server, tool)
    }
}

/// `tools` in the order their names are handed out: first those whose own
/// name goes into the model-facing name unchanged (`rm_rf`), then those
/// whose name had to be rewritten (`rm.rf`). So when two collide, the tool
/// named as written keeps the plain name and the rewritten one gets the
/// hash suffix, whatever order the server lists them in; the plain name is
/// what a reader of the list (and of a rule `mcp__srv__rm_rf`) takes it for.
pub(crate) fn naming_order<T>(tools: &[T], name: impl Fn(&T) -> &str) -> Vec<&T> {
    let (plain, rewritten): (Vec<&T>, Vec<&T>) =
        tools.iter().partition(|t| sanitize(name(t)) == name(t));
    plain.into_iter().chain(rewritten).collect()
}

/// The names handed out in one session: a name, once given, stays with its
/// (server, tool) pair.
#[derive(Debug, Default)]
pub(crate) struct NameTable {
    owners: HashMap<String, (String, String)>,
    given: HashMap<(String, String), String>,
}

impl NameTable {
    /// The name for (server, tool): the same as before if it already has one.
    pub(crate) fn assign(&mut self, server: &str, tool: &str) -> String {
        let key = (server.to_owned(), tool.to_owned());
        if let Some(name) = self.given.get(&key) {
            return name.clone();
        }
        let mut name = model_tool_name(server, tool);
        if self.owners.contains_key(&name) {
            name = with_suffix(&name, server, tool);
        }
        // A second collision (astronomically unlikely): extend with a counter.
        let mut n = 2u32;
        while self.owners.contains_key(&name) {
            let base = with_suffix(&name, server, &format!("{tool}\0{n}"));
            name = base;
            n += 1;
        }
        self.owners.insert(name.clone(), key.clone());
        self.given.insert(key, name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::is_valid_tool_name;

    #[test]
    fn sanitises_truncates_and_resolves_collisions() {
        assert_eq!(model_tool_name("fs", "read_file"), "mcp__fs__read_file");
        assert_eq!(
            model_tool_name("my.server", "get thing/x"),
            "mcp__my_server__get_thing_x"
        );
        assert_eq!(model_tool_name("é", "ok"), "mcp_____ok");
        let long = model_tool_name("server", &"x".repeat(100));
        assert_eq!(long.len(), 64);
        assert!(is_valid_tool_name(&long));
        assert_ne!(long, model_tool_name("server", &"x".repeat(101)));

        let mut table = NameTable::default();
        let a = table.assign("s", "a.b");
        let b = table.assign("s", "a_b");
        assert_eq!(a, "mcp__s__a_b");
        assert!(
            b.starts_with("mcp__s__a_b_") && b.len() == "mcp__s__a_b".len() + 7,
            "{b}"
        );
        assert!(is_valid_tool_name(&b));
        assert_eq!(table.assign("s", "a_b"), b, "stable within a session");
        assert_eq!(table.assign("s", "a.b"), a);
    }

    #[test]
    fn a_tool_named_as_written_keeps_the_plain_name_in_any_order() {
        for listed in [["rm.rf", "rm_rf"], ["rm_rf", "rm.rf"]] {
            let mut table = NameTable::default();
            for tool in naming_order(&listed, |t| t) {
                table.assign("srv", tool);
            }
            assert_eq!(
                table.assign("srv", "rm_rf"),
                "mcp__srv__rm_rf",
                "{listed:?}"
            );
            let decoy = table.assign("srv", "rm.rf");
            assert!(
                decoy.starts_with("mcp__srv__rm_rf_") && decoy.len() == 22,
                "{decoy}"
            );
        }
    }
}
