//! `tack tools list|show|call` on a project whose local settings declare
//! command tools: a real script of the test's own, run through the whole
//! pipeline. Each test has its own home, config and state directories, so
//! nothing of the real home is read.

use std::path::PathBuf;
use std::process::Output;

use serde_json::{Value, json};

use super::{stderr, stdout};

/// A home, a project with a script and a state directory, all private.
struct Project {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    root: PathBuf,
    state: PathBuf,
    /// Where the script writes each name it was called with.
    calls: PathBuf,
}

/// The script behind `greet`: says hello, or exits 3 for the name `bad`.
const GREET: &str = "#!/bin/sh\necho \"$1\" >> \"$(dirname \"$0\")/calls.log\"\nif [ \"$1\" = bad ]; then echo \"no such name: $1\" >&2; exit 3; fi\necho \"hello, $1\"\n";

impl Project {
    /// A project whose `.tack/settings.local.json` (applied without an
    /// approval) declares `greet` and one broken tool, with `extra` merged
    /// into the file's top level.
    fn new(extra: Value) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let (home, root, state) = (base.join("home"), base.join("project"), base.join("state"));
        for dir in [&home, &root.join(".tack"), &state] {
            std::fs::create_dir_all(dir).unwrap();
        }
        super::git_init(&root);
        let script = root.join("greet.sh");
        std::fs::write(&script, GREET).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let mut settings = json!({
            "tools": {
                "greet": {
                    "description": "Greets one person by name. Use it to say hello; returns one line of text.",
                    "command": [script, "{who}"],
                    "inputSchema": {"type": "object",
                                    "properties": {"who": {"type": "string", "description": "the name, e.g. Ada"}},
                                    "required": ["who"]},
                    "inputExamples": [{"who": "Ada"}],
                    "readOnly": true,
                    "exitCodes": {"3": "invalid_input"}
                },
                "nap": {
                    "description": "Sleeps for the given number of seconds and prints nothing. Use it to wait.",
                    "command": ["sleep", "{seconds}"],
                    "inputSchema": {"type": "object",
                                    "properties": {"seconds": {"type": "string", "description": "e.g. 5"}},
                                    "required": ["seconds"]},
                    "timeoutMs": 300
                },
                "broken": {
                    "description": "Runs a program that is not there.",
                    "command": ["/nonexistent/tack-test-program"]
                }
            }
        });
        if let (Some(to), Value::Object(from)) = (settings.as_object_mut(), extra) {
            to.extend(from);
        }
        let text = serde_json::to_string_pretty(&settings).unwrap();
        std::fs::write(root.join(".tack/settings.local.json"), text).unwrap();
        Self {
            _tmp: tmp,
            calls: root.join("calls.log"),
            home,
            root,
            state,
        }
    }

    /// `tack ARGS` in the project, no terminal.
    fn tack(&self, args: &[&str]) -> Output {
        super::isolated_tack(&self.home, &self.state, &self.root)
            .args(args)
            .output()
            .unwrap()
    }

    fn settings_file(&self) -> PathBuf {
        self.root.join(".tack/settings.local.json")
    }

    /// The line (from 1) of the first `key` after the line holding
    /// `after`, in the settings file: where a declaration's key is.
    fn line_of(&self, after: &str, key: &str) -> usize {
        let text = std::fs::read_to_string(self.settings_file()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let start = lines.iter().position(|l| l.contains(after)).unwrap();
        start + lines[start..].iter().position(|l| l.contains(key)).unwrap() + 1
    }

    /// The names the script was called with.
    fn calls(&self) -> Vec<String> {
        std::fs::read_to_string(&self.calls)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// Every event of every transcript in the state directory.
    fn recorded(&self) -> Vec<Value> {
        let dir = self.state.join("sessions");
        let mut events = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            events.extend(super::read_lines(&entry.unwrap().path()));
        }
        events
    }
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap()
}

fn allow_greet() -> Value {
    json!({"permissions": {"allow": ["greet"]}})
}

#[test]
fn list_shows_each_tool_with_its_source_and_the_declarations_left_out() {
    let p = Project::new(json!({}));
    let out = p.tack(&["tools", "list"]);
    let text = stdout(&out);
    assert_eq!(
        code(&out),
        2,
        "a declaration was left out: {text}{}",
        stderr(&out)
    );
    let row = |name: &str| -> Vec<String> {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no row {name}: {text}"))
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(
        text.lines()
            .next()
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>(),
        ["NAME", "SOURCE", "EXPOSURE", "READ-ONLY", "TOKENS"]
    );
    let greet = row("greet");
    assert_eq!(greet[..4], ["greet", "declared", "direct", "yes"], "{text}");
    assert!(greet[4].parse::<u64>().unwrap() > 20, "{text}");
    assert_eq!(row("Read")[..4], ["Read", "built-in", "direct", "yes"]);
    assert_eq!(row("Bash")[..4], ["Bash", "built-in", "direct", "no"]);
    assert!(text.contains("\ntotal: "), "{text}");
    // The broken one is named with the file and line of its command.
    let at = format!(
        "{}:{}",
        p.settings_file().display(),
        p.line_of("\"broken\"", "\"command\"")
    );
    let broken = text
        .lines()
        .find(|l| l.trim_start().starts_with("broken: "))
        .unwrap_or_else(|| panic!("no left-out line: {text}"));
    assert!(
        broken.contains(&at) && broken.contains("does not exist"),
        "{broken}"
    );
    // …and said once: on stdout, not again on stderr.
    assert!(!stderr(&out).contains("`broken`"), "{}", stderr(&out));
}

#[test]
fn list_json_is_an_array_of_tools_then_the_left_out_ones() {
    let p = Project::new(json!({}));
    let out = p.tack(&["tools", "list", "--json"]);
    let all: Vec<Value> = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)));
    let get = |name: &str| all.iter().find(|t| t["name"] == name).unwrap().clone();
    let greet = get("greet");
    assert_eq!(greet["source"], "declared");
    assert_eq!(greet["exposure"], "direct");
    assert_eq!(greet["read_only"], true);
    assert!(greet["tokens"].as_u64().unwrap() > 20, "{greet}");
    assert_eq!(get("Agent")["source"], "built-in");
    let broken = get("broken");
    assert_eq!(broken["exposure"], "left_out");
    let at = broken["left_out"]["at"].as_str().unwrap();
    assert_eq!(
        at,
        format!(
            "{}:{}",
            p.settings_file().display(),
            p.line_of("\"broken\"", "\"command\"")
        )
    );
    assert_eq!(all.last().unwrap()["name"], "broken");
}

#[test]
fn show_prints_the_definition_as_each_api_receives_it() {
    let p = Project::new(json!({}));
    let out = p.tack(&["tools", "show", "greet"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("{\n  \"name\": \"greet\",\n  \"description\""),
        "{text}"
    );
    let expected = json!({
        "name": "greet",
        "description": "Greets one person by name. Use it to say hello; returns one line of text.",
        "input_schema": {"type": "object",
                         "properties": {"who": {"type": "string", "description": "the name, e.g. Ada"}},
                         "required": ["who"]},
        "input_examples": [{"who": "Ada"}]
    });
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), expected);
    // --json: the bytes sent, on one line.
    let out = p.tack(&["tools", "show", "greet", "--json"]);
    assert_eq!(stdout(&out), format!("{expected}\n"));
    // OpenAI-compatible servers have no field for the examples: they end the description.
    let out = p.tack(&["tools", "show", "greet", "--provider", "openai"]);
    let function: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(function["type"], "function");
    assert_eq!(function["function"]["parameters"], expected["input_schema"]);
    assert_eq!(
        function["function"]["description"],
        "Greets one person by name. Use it to say hello; returns one line of text.\n\nExamples:\n{\"who\":\"Ada\"}"
    );
}

#[test]
fn show_of_a_missing_tool_exits_10_with_the_closest_name_or_the_reason() {
    let p = Project::new(json!({}));
    let out = p.tack(&["tools", "show", "greeet"]);
    assert_eq!(code(&out), 10);
    assert!(stdout(&out).is_empty());
    assert!(
        stderr(&out).contains("did you mean greet?"),
        "{}",
        stderr(&out)
    );
    let out = p.tack(&["tools", "show", "broken"]);
    assert_eq!(code(&out), 10);
    assert!(
        stderr(&out).contains("the tool `broken` is declared but left out:")
            && stderr(&out).contains("does not exist"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn call_runs_the_command_through_the_pipeline_and_records_it() {
    let p = Project::new(allow_greet());
    let out = p.tack(&["tools", "call", "greet", r#"{"who": "Ada"}"#]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "hello, Ada\n");
    assert_eq!(p.calls(), ["Ada"]);
    let out = p.tack(&["tools", "call", "greet", r#"{"who": "Grace"}"#, "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let result: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(result["outcome"], "ok");
    assert_eq!(result["is_error"], false);
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "hello, Grace\n"}])
    );
    assert!(result["session_id"].as_str().unwrap().starts_with("tools-"));
    // Each call is in the audit trail, allowed by the rule.
    let results: Vec<Value> = p
        .recorded()
        .into_iter()
        .filter(|e| e["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 2, "{results:?}");
    for result in &results {
        assert_eq!(result["name"], "greet");
        assert_eq!(result["outcome"], "ok");
        assert_eq!(result["audit"]["decision"], "allow", "{result}");
    }
    assert!(
        results
            .iter()
            .any(|r| r["audit"]["input"] == json!({"who": "Ada"}))
    );
}

#[test]
fn a_call_no_rule_allows_is_denied_without_a_terminal() {
    let p = Project::new(json!({}));
    let out = p.tack(&["tools", "call", "greet", r#"{"who": "Ada"}"#]);
    assert_eq!(code(&out), 16, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).is_empty());
    assert!(stderr(&out).contains("greet (denied)"), "{}", stderr(&out));
    assert!(p.calls().is_empty(), "the script ran");
    // The flag allows it.
    let out = p.tack(&[
        "tools",
        "call",
        "greet",
        r#"{"who": "Ada"}"#,
        "--allowed-tools",
        "greet",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(p.calls(), ["Ada"]);
}

#[test]
fn each_failure_class_has_its_exit_code() {
    let p = Project::new(allow_greet());
    // The schema refuses it: the script never runs.
    let out = p.tack(&["tools", "call", "greet", r#"{"who": 3}"#]);
    assert_eq!(code(&out), 15, "{}", stderr(&out));
    assert!(stderr(&out).contains("input.who"), "{}", stderr(&out));
    // Not JSON at all: a usage error, nothing called or recorded.
    let out = p.tack(&["tools", "call", "greet", "{who"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("not JSON"), "{}", stderr(&out));
    assert!(p.calls().is_empty());
    // The program's exit code 3 is declared invalid_input.
    let out = p.tack(&["tools", "call", "greet", r#"{"who": "bad"}"#]);
    assert_eq!(code(&out), 15, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no such name: bad"),
        "{}",
        stderr(&out)
    );
    assert_eq!(p.calls(), ["bad"]);
    // Stopped at its timeoutMs.
    let started = std::time::Instant::now();
    let out = p.tack(&[
        "tools",
        "call",
        "nap",
        r#"{"seconds": "30"}"#,
        "--allowed-tools",
        "nap",
    ]);
    assert_eq!(code(&out), 17, "{}", stderr(&out));
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    // No such tool: 10, with the name meant.
    let out = p.tack(&["tools", "call", "greeet", "{}"]);
    assert_eq!(code(&out), 10, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("did you mean greet?"),
        "{}",
        stderr(&out)
    );
}
