//! The OS sandbox end to end: the permission rules switched to allow
//! everything, and the kernel still stops what a rule would have missed.

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use tack_testkit::Step;

use super::{World, serve_bash_calls_with, stdout};

/// User settings that allow every Bash command without asking: only the
/// sandbox stands between a command and the machine.
fn allow_everything(sandbox: Value) -> Value {
    json!({"permissions": {"allow": ["Bash", "Read", "Edit", "Write"], "defaultMode": "bypassPermissions"},
           "sandbox": sandbox})
}

/// A listener on 127.0.0.1 that counts the connections it accepts.
fn counting_listener() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            seen.fetch_add(1, Ordering::SeqCst);
            let mut buf = [0u8; 1024];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 8\r\n\r\nUPSTREAM");
        }
    });
    (port, count)
}

/// Every file under `dir` with its contents, to compare before and after.
fn snapshot(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let name = path.strip_prefix(dir).unwrap().display().to_string();
            if meta.is_dir() {
                out.push((name, "<dir>".into()));
                stack.push(path);
            } else {
                out.push((name, std::fs::read_to_string(&path).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// The red team's classes of the permission-holes issue, aimed outside the
/// writable roots, with every rule allowing them: no write outside the roots
/// lands, no protected file changes, no connection is made.
#[test]
fn with_rules_allowing_everything_the_sandbox_still_stops_writes_and_connections() {
    let project = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let p = project.path().canonicalize().unwrap();
    let o = outside.path().canonicalize().unwrap();
    for (f, text) in [
        (".git/hooks/README", "hooks\n"),
        (".git/config", "[core]\n"),
        (".tack/settings.json", "{}\n"),
        (".claude/settings.json", "{}\n"),
        ("sub/readme", "hello\n"),
        ("evil.rc", &format!("touch {}/pwned-rc\n", o.display())),
    ] {
        std::fs::create_dir_all(p.join(f).parent().unwrap()).unwrap();
        std::fs::write(p.join(f), text).unwrap();
    }
    std::fs::write(o.join("keep"), "keep\n").unwrap();
    std::fs::create_dir(o.join("dir")).unwrap();
    std::fs::write(o.join("dir/file"), "file\n").unwrap();
    let (port, connections) = counting_listener();
    let before = snapshot(&o);
    let o = o.display().to_string();
    let commands: Vec<String> = vec![
        format!("echo gone > {o}/keep"),
        format!("echo new > {o}/new"),
        format!("sed -i s/keep/gone/ {o}/keep"),
        format!("tar -cf archive.tar sub && tar -C {o} -xf archive.tar"),
        format!("find {o}/dir -delete"),
        format!("rm -rf {o}/dir"),
        format!("mv {o}/keep moved"),
        format!("truncate -s 0 {o}/keep"),
        format!("ln -s {o} link && echo gone > link/keep"),
        format!("ln {o}/keep hard && echo gone >> hard"),
        format!("cp sub/readme {o}/copied"),
        format!("python3 -c \"open('{o}/py', 'w').write('x')\""),
        format!("trap -- 'touch {o}/pwned-trap' EXIT"),
        "bash --rcfile evil.rc -ic true".to_owned(),
        format!("git init -q g && git -C g grep -O'touch {o}/pwned-grep' x"),
        format!("(cd {o} && touch pwned-cd)"),
        format!(
            "cat /proc/self/cwd/../../{}/keep > /dev/null; touch /proc/self/cwd/{o}/pwned-proc",
            ""
        ),
        "echo '#!/bin/sh' > .git/hooks/pre-commit".to_owned(),
        "echo x >> .git/config".to_owned(),
        "echo '{\"hooks\":{}}' > .tack/settings.json".to_owned(),
        "rm -rf .claude".to_owned(),
        "mv .tack tack-moved".to_owned(),
        format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo hi >&3"),
        format!("curl -s -m 5 http://127.0.0.1:{port}/"),
        format!("python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 3)\""),
        "python3 -c \"import socket; socket.socket(socket.AF_UNIX).connect('/run/docker.sock')\""
            .to_owned(),
        // Still works: writing inside the root and to $TMPDIR.
        "echo inside > made-inside && echo t > \"$TMPDIR/t\" && cat made-inside".to_owned(),
    ];
    let refs: Vec<&str> = commands.iter().map(String::as_str).collect();
    let results = serve_bash_calls_with(&p, Some(&allow_everything(json!({}))), &refs);
    let (last_error, last) = results.last().unwrap();
    assert!(!last_error && last.contains("inside"), "{last}");
    assert_eq!(
        snapshot(Path::new(&o)),
        before,
        "something was written outside the roots"
    );
    assert_eq!(
        connections.load(Ordering::SeqCst),
        0,
        "a connection got through"
    );
    assert_eq!(
        std::fs::read_to_string(p.join(".tack/settings.json")).unwrap(),
        "{}\n"
    );
    assert_eq!(
        std::fs::read_to_string(p.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert!(!p.join(".git/hooks/pre-commit").exists());
    assert!(p.join(".claude/settings.json").exists());
    // A blocked write says so, naming the path and the roots.
    let first = &results[0].1;
    assert!(
        first.contains(&format!(
            "blocked by the sandbox: write to {o}/keep outside the writable roots"
        )),
        "{first}"
    );
    let hook = &results[17].1;
    assert!(hook.contains("stays read-only in the sandbox"), "{hook}");
    let net = &results[23].1;
    assert!(
        net.contains("blocked by the sandbox") && net.contains("network"),
        "{net}"
    );
}

/// An excluded command runs outside the sandbox only when it is the whole
/// command line: never a compound command around it.
#[test]
fn an_excluded_command_is_unsandboxed_only_alone() {
    let project = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let p = project.path().canonicalize().unwrap();
    let o = outside.path().canonicalize().unwrap().display().to_string();
    let commands = [
        format!("touch {o}/alone"),
        format!("true && touch {o}/and"),
        format!("touch {o}/semi; true"),
        format!("echo $(touch {o}/subst)"),
        format!("touch {o}/pipe | cat"),
    ];
    let refs: Vec<&str> = commands.iter().map(String::as_str).collect();
    let settings = allow_everything(json!({"excludedCommands": ["touch:*"]}));
    let results = serve_bash_calls_with(&p, Some(&settings), &refs);
    assert!(!results[0].0, "{:?}", results[0]);
    assert!(Path::new(&o).join("alone").exists());
    for name in ["and", "semi", "subst", "pipe"] {
        assert!(
            !Path::new(&o).join(name).exists(),
            "{name} was created: {results:?}"
        );
    }
}

/// The allowlist: an allowed domain is reached through tack's proxy, another
/// is refused, and dropping the proxy variables leaves no way out.
#[test]
fn the_network_allowlist_lets_allowed_domains_through_the_proxy_only() {
    let project = tempfile::tempdir().unwrap();
    let p = project.path().canonicalize().unwrap();
    let (port, connections) = counting_listener();
    let commands = [
        format!("curl -sS -m 10 http://allowed.localhost:{port}/"),
        format!("curl -sS -m 10 http://denied.localhost:{port}/"),
        format!("curl -sS -m 5 --noproxy '*' http://127.0.0.1:{port}/"),
        format!(
            "env -u HTTP_PROXY -u http_proxy -u ALL_PROXY -u all_proxy curl -sS -m 5 http://allowed.localhost:{port}/"
        ),
        format!("curl -sS -m 10 -p http://allowed.localhost:{port}/"),
    ];
    let refs: Vec<&str> = commands.iter().map(String::as_str).collect();
    let settings = allow_everything(json!({"network": {"allowedDomains": ["allowed.localhost"]}}));
    let results = serve_bash_calls_with(&p, Some(&settings), &refs);
    assert!(results[0].1.contains("UPSTREAM"), "{:?}", results[0]);
    assert!(!results[1].1.contains("UPSTREAM"), "{:?}", results[1]);
    assert!(
        results[1]
            .1
            .contains("blocked by the sandbox: network access to denied.localhost"),
        "{:?}",
        results[1]
    );
    assert!(!results[2].1.contains("UPSTREAM"), "{:?}", results[2]);
    assert!(!results[3].1.contains("UPSTREAM"), "{:?}", results[3]);
    assert!(results[4].1.contains("UPSTREAM"), "{:?}", results[4]);
    assert_eq!(connections.load(Ordering::SeqCst), 2, "{results:?}");
}

/// `WebFetch(domain:…)` rules are the network's lists too, as in Claude
/// Code: an allow rule lets sandboxed commands reach its domain with no
/// `allowedDomains` written, a deny rule is refused by the proxy even inside
/// an allowed wildcard, where the command does not show the host (code in
/// a file tack does not read); a command that names the denied host is
/// refused before it runs.
#[test]
fn domain_rules_are_the_sandboxed_network_lists() {
    let project = tempfile::tempdir().unwrap();
    let p = project.path().canonicalize().unwrap();
    let (port, connections) = counting_listener();
    // Code tack does not read (a Python file) reaching the denied host
    // through the proxy its environment names.
    std::fs::write(
        p.join("fetch.py"),
        format!(
            "import urllib.request\nhost = 'denied' + '.localhost'\n\
             print(urllib.request.urlopen(f'http://{{host}}:{port}/', timeout=10).read().decode())\n"
        ),
    )
    .unwrap();
    let commands = [
        format!("curl -sS -m 10 http://allowed.localhost:{port}/"),
        "python3 fetch.py".to_owned(),
        format!("curl -sS -m 10 http://denied.localhost:{port}/"),
        format!("curl -sS -m 10 http://other.localhost:{port}/"),
    ];
    let refs: Vec<&str> = commands.iter().map(String::as_str).collect();
    let settings = json!({
        "permissions": {
            "allow": ["Bash", "Read", "Edit", "Write", "WebFetch(domain:allowed.localhost)"],
            "deny": ["WebFetch(domain:denied.localhost)"],
            "defaultMode": "bypassPermissions"
        },
        "sandbox": {"network": {"allowedDomains": ["*.localhost"]}}
    });
    let results = serve_bash_calls_with(&p, Some(&settings), &refs);
    assert!(results[0].1.contains("UPSTREAM"), "{:?}", results[0]);
    assert!(!results[1].1.contains("UPSTREAM"), "{:?}", results[1]);
    assert!(
        results[1].1.contains("network access to denied.localhost")
            && results[1].1.contains("is denied"),
        "{:?}",
        results[1]
    );
    assert!(!results[2].1.contains("UPSTREAM"), "{:?}", results[2]);
    assert!(
        results[2].1.contains("WebFetch(domain:denied.localhost)"),
        "{:?}",
        results[2]
    );
    assert!(results[3].1.contains("UPSTREAM"), "{:?}", results[3]);
    assert_eq!(connections.load(Ordering::SeqCst), 2, "{results:?}");

    // Without the wildcard, the allow rule alone opens its domain.
    let settings = json!({
        "permissions": {
            "allow": ["Bash", "WebFetch(domain:allowed.localhost)"],
            "defaultMode": "bypassPermissions"
        }
    });
    let results = serve_bash_calls_with(&p, Some(&settings), &refs[..1]);
    assert!(results[0].1.contains("UPSTREAM"), "{:?}", results[0]);
    let results = serve_bash_calls_with(&p, Some(&settings), &refs[3..]);
    assert!(!results[0].1.contains("UPSTREAM"), "{:?}", results[0]);
}

/// Each call's audit record names the sandbox profile it ran under, and
/// `tack log` prints it; `tack sandbox check` says what this machine enforces.
#[tokio::test]
async fn the_audit_records_the_profile_and_check_reports_the_machine() {
    let w = World::new(vec![
        Step::tool_use("t1", "Bash", json!({"command": "echo hi"})),
        Step::text("done"),
    ])
    .await;
    // Nothing is left behind: the session's temporary directories go with it.
    let tmp = tempfile::tempdir().unwrap();
    let mut run = w.tack();
    run.env("TMPDIR", tmp.path())
        .args(["run", "--allowed-tools", "Bash", "hi"]);
    let out = tokio::task::spawn_blocking(move || run.output().unwrap())
        .await
        .unwrap();
    assert!(out.status.success(), "{}", super::stderr(&out));
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left behind in TMPDIR: {left:?}");
    let (_, events) = w.transcript();
    let result = events
        .iter()
        .find(|e| e["type"] == "tool_result")
        .expect("a tool_result");
    let profile = result["audit"]["sandbox"].as_str().unwrap_or_default();
    assert!(profile.starts_with("landlock v"), "{result}");
    assert!(profile.contains("network off"), "{profile}");
    let mut log = w.tack();
    log.arg("log");
    let log = tokio::task::spawn_blocking(move || log.output().unwrap())
        .await
        .unwrap();
    assert!(
        stdout(&log).contains("sandbox: landlock v"),
        "{}",
        stdout(&log)
    );

    let mut check = w.tack();
    check.args(["sandbox", "check"]);
    let check = tokio::task::spawn_blocking(move || check.output().unwrap())
        .await
        .unwrap();
    let text = stdout(&check);
    assert!(check.status.success(), "{text}");
    assert!(text.contains("landlock: ABI"), "{text}");
    assert!(text.contains("enforced:"), "{text}");
    assert!(
        text.contains(&w.cwd.path().canonicalize().unwrap().display().to_string()),
        "{text}"
    );
}

/// A repository cannot switch the sandbox off: its `.claude/settings.json`
/// saying `enabled: false` is not applied without the user's approval.
#[test]
fn a_checked_in_settings_file_cannot_turn_the_sandbox_off() {
    let project = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let p = project.path().canonicalize().unwrap();
    let o = outside.path().canonicalize().unwrap().display().to_string();
    std::fs::create_dir_all(p.join(".claude")).unwrap();
    std::fs::write(
        p.join(".claude/settings.json"),
        json!({"sandbox": {"enabled": false, "network": {"allowedDomains": ["*"]}}}).to_string(),
    )
    .unwrap();
    let commands = [format!("touch {o}/escaped")];
    let refs: Vec<&str> = commands.iter().map(String::as_str).collect();
    let results = serve_bash_calls_with(&p, Some(&allow_everything(json!({}))), &refs);
    assert!(!Path::new(&o).join("escaped").exists(), "{results:?}");
}

/// The red team's commands of the permission-holes issue as they were, with
/// the rules allowing everything: what the sandbox hides (`denyRead`) is
/// not printed and what it keeps read-only (`denyWrite`) is not changed,
/// whichever way the command takes.
#[test]
fn the_red_teams_commands_meet_hidden_and_read_only_paths() {
    let project = tempfile::tempdir().unwrap();
    let p = project.path().canonicalize().unwrap();
    for (f, text) in [
        ("secrets/key", "SECRET-KEY\n"),
        (".env", "TOKEN=SECRET-ENV\n"),
        ("sub/readme", "hello\n"),
        ("locked/keep", "keep\n"),
    ] {
        std::fs::create_dir_all(p.join(f).parent().unwrap()).unwrap();
        std::fs::write(p.join(f), text).unwrap();
    }
    let at = |f: &str| p.join(f).display().to_string();
    let settings = allow_everything(json!({"filesystem": {
        "denyRead": [at("secrets"), at(".env")],
        "denyWrite": [at("locked")]
    }}));
    let commands = [
        "trap -- 'rm -f locked/keep' EXIT",
        "find locked -delete",
        "sed -i s/keep/gone/ locked/keep",
        "sort -o locked/keep sub/readme",
        "mv locked gone",
        "cd sub",
        "cat ../secrets/key",
        "echo gone > ../locked/keep",
        "cat /proc/self/cwd/../.env",
        "grep -r SECRET ..",
        "tar -cf - .. | tar -tvf - >/dev/null; tar -cf - .. | strings | grep SECRET",
        "python3 -c \"print(open('../.env').read())\"",
        "cat readme",
    ];
    let results = serve_bash_calls_with(&p, Some(&settings), &commands);
    let (last_error, last) = results.last().unwrap();
    assert!(!last_error && last.contains("hello"), "{last}");
    for (i, (_, text)) in results.iter().enumerate() {
        assert!(
            !text.contains("SECRET-"),
            "`{}` printed a secret: {text}",
            commands[i]
        );
    }
    assert_eq!(
        std::fs::read_to_string(p.join("locked/keep")).unwrap(),
        "keep\n"
    );
    assert!(!p.join("gone").exists());
}

/// With the sandbox turned on in the user's own settings (Claude Code's
/// `autoAllowBashIfSandboxed` default), a command no rule covers runs
/// without asking when it stays inside the roots; one that reaches outside
/// is still asked (a deny without a terminal), and so is every request to
/// leave the sandbox, whatever the rules say.
#[tokio::test]
async fn auto_allow_and_leaving_the_sandbox_headless() {
    let outside = tempfile::tempdir().unwrap();
    let o = outside.path().canonicalize().unwrap().display().to_string();
    let w = World::new(vec![
        Step::tool_use(
            "t_in",
            "Bash",
            json!({"command": "echo hi > inside.txt && cat inside.txt"}),
        ),
        Step::tool_use("t_out", "Bash", json!({"command": format!("ls {o}")})),
        Step::tool_use(
            "t_leave",
            "Bash",
            json!({"command": "echo hi", "dangerouslyDisableSandbox": true}),
        ),
        Step::text("done"),
    ])
    .await;
    let config = w.state.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("settings.json"),
        json!({"permissions": {"allow": ["Bash(echo *)"]}, "sandbox": {"enabled": true}})
            .to_string(),
    )
    .unwrap();
    let out = w.run(&["go"]).await;
    assert!(out.status.success(), "{}", super::stderr(&out));
    let (_, events) = w.transcript();
    let result = |id: &str| -> Value {
        events
            .iter()
            .find(|e| e["type"] == "tool_result" && e["tool_use_id"] == id)
            .unwrap_or_else(|| panic!("no result for {id}: {events:?}"))
            .clone()
    };
    let inside = result("t_in");
    assert_eq!(inside["audit"]["decision"], "allow", "{inside}");
    assert!(
        inside["audit"]["decided_by"]
            .as_str()
            .unwrap()
            .contains("autoAllowBashIfSandboxed"),
        "{inside}"
    );
    assert_eq!(result("t_out")["audit"]["decision"], "deny");
    let leave = result("t_leave");
    assert_eq!(
        leave["audit"]["decision"], "deny",
        "an allow rule does not let it out: {leave}"
    );
    assert!(
        leave.to_string().contains("dangerouslyDisableSandbox"),
        "{leave}"
    );
}

/// A command tool declared in settings runs in the sandbox as Bash's
/// commands do: an allow rule lets the call run, and the kernel still
/// stops a write outside the writable roots; the audit names the profile.
#[tokio::test]
async fn a_declared_command_tool_runs_in_the_sandbox() {
    let w = World::new(vec![Step::text("unused")]).await;
    // Outside the writable roots, and not tack's state directory (a
    // protected path, refused before the sandbox is reached).
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("outside.txt");
    let inside = w.cwd.path().join("inside.txt");
    std::fs::create_dir_all(w.cwd.path().join(".tack")).unwrap();
    super::git_init(w.cwd.path());
    std::fs::write(
        w.cwd.path().join(".tack/settings.local.json"),
        json!({
            "tools": {"touch_file": {
                "description": "Creates an empty file.",
                "command": ["touch", "--", "{path}"],
                "inputSchema": {"type": "object", "required": ["path"],
                                "properties": {"path": {"type": "string"}}},
                "idempotent": true
            }},
            "permissions": {"allow": ["touch_file"]}
        })
        .to_string(),
    )
    .unwrap();
    let call = |path: &Path| {
        let mut cmd = w.tack();
        cmd.args(["tools", "call", "--json", "touch_file"])
            .arg(json!({ "path": path }).to_string());
        cmd
    };
    let mut blocked = call(&outside);
    let blocked = tokio::task::spawn_blocking(move || blocked.output().unwrap())
        .await
        .unwrap();
    assert!(!outside.exists(), "the sandbox let the write through");
    assert_eq!(blocked.status.code(), Some(9), "{}", stdout(&blocked));
    let report: Value = serde_json::from_str(&stdout(&blocked)).unwrap();
    assert_eq!(report["outcome"], "failed", "{report}");
    let said = report["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        said.contains("Permission denied") || said.contains("Read-only file system"),
        "{said}"
    );
    let mut allowed = call(&inside);
    let allowed = tokio::task::spawn_blocking(move || allowed.output().unwrap())
        .await
        .unwrap();
    assert!(allowed.status.success(), "{}", super::stderr(&allowed));
    assert!(inside.exists());
    let audits: Vec<Value> = std::fs::read_dir(w.sessions_dir())
        .unwrap()
        .flat_map(|e| super::read_lines(&e.unwrap().path()))
        .filter(|e| e["type"] == "tool_result")
        .collect();
    assert_eq!(audits.len(), 2);
    for audit in &audits {
        let profile = audit["audit"]["sandbox"].as_str().unwrap_or_default();
        assert!(profile.starts_with("landlock v"), "{audit}");
        assert_eq!(audit["audit"]["argv"][1], "--", "{audit}");
    }
    // `tack log` says what ran.
    let session = audits[0]["session_id"].as_str().map(str::to_owned);
    let mut log = w.tack();
    log.arg("log");
    if let Some(id) = session {
        log.arg(id);
    }
    let log = tokio::task::spawn_blocking(move || log.output().unwrap())
        .await
        .unwrap();
    let text = stdout(&log);
    assert!(
        text.contains("ran: ") && text.contains("/touch -- "),
        "{text}"
    );
}
