//! The analysis against the real bash: whatever the policy allows must,
//! when bash runs it, start only programs the rules allow. Programs are
//! stubs on a PATH of their own that log their names; shells and
//! wrappers are the real ones, so they find the stubs.
#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "starts the real bash, the thing the analysis models"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tack_policy::{PolicyBuilder, Request, evaluate};

/// Programs the stubs stand for.
const STUBS: &[&str] = &["ls", "touch", "rm", "cat", "mkdir", "cp"];

/// Real programs linked into the stub PATH (when installed).
const REAL: &[&str] = &[
    "bash", "sh", "env", "nice", "nohup", "timeout", "stdbuf", "xargs", "find", "taskset",
    "setpriv", "script", "chrt", "prlimit", "setsid", "flock",
];

/// Commands built to slip a program past the rules (and some that are
/// fine). `touch` is never allowed; `./evil/ls` and the rc file log
/// something no rule allows.
const CANDIDATES: &[&str] = &[
    // F3
    "touch(){ ls; }; touch x",
    "touch(){ ls; }; command touch x",
    "touch(){ ls; }; exec touch x",
    "touch(){ ls; }; env touch x",
    "touch(){ ls; }; nice touch x",
    "touch(){ ls; }; nohup touch x",
    "touch(){ ls; }; timeout 5 touch x",
    "touch(){ ls; }; echo a | xargs touch",
    "touch(){ ls; }; find . -maxdepth 0 -exec touch {} +",
    "touch(){ ls; }; for i in 1 2; do touch x; unset -f touch; done",
    "touch(){ ls; }; eval 'unset -f touch'; touch x",
    "f(){ unset -f touch; }; touch(){ ls; }; f; touch x",
    "touch(){ ls; }; trap 'unset -f touch' DEBUG; touch x",
    // F4
    "bash -c ls",
    "bash --rcfile ./rc -ic ls",
    "bash --init-file ./rc -i -c ls",
    "BASH_ENV=./rc bash -c ls",
    "bash ./rc",
    "source ./rc",
    // F8
    "trap -- 'touch x' EXIT",
    "eval -- 'touch x'",
    "mapfile -C 'touch x' -c 1 a <<< a",
    "compgen -W '$(touch x)' a",
    "taskset -c 0 touch x",
    "script -qc 'touch x' /dev/null",
    "setpriv --no-new-privs touch x",
    "chrt -o 0 touch x",
    "prlimit --nofile=100 touch x",
    "setsid -w touch x",
    "flock ./lock touch x",
    "env -- PATH=./evil ls",
    // F11
    "for PATH in ./evil; do ls; done",
    "printf -v PATH ./evil; ls",
    "read PATH <<< ./evil; ls",
    "mapfile -t PATH <<< ./evil; ls",
    "echo ${PATH:=x} >/dev/null; ls",
    "f(){ local PATH; cd evil && ls; }; f",
    "unset PATH; cd evil && ls",
];

struct Sandbox {
    _dir: tempfile::TempDir,
    root: PathBuf,
    stubs: PathBuf,
    log: PathBuf,
}

fn find_program(name: &str) -> Option<PathBuf> {
    ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.exists())
}

impl Sandbox {
    fn new() -> Sandbox {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let stubs = root.join("stubs");
        let log = root.join("log");
        std::fs::create_dir_all(&stubs).unwrap();
        std::fs::create_dir_all(root.join("work/evil")).unwrap();
        let stub = |path: &Path, name: &str| {
            std::fs::write(path, format!("#!/bin/sh\necho {name} >> \"$STUB_LOG\"\n")).unwrap();
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        for name in STUBS {
            stub(&stubs.join(name), name);
        }
        stub(&root.join("work/evil/ls"), "evil-ls");
        std::fs::write(root.join("work/rc"), "touch from-rc\n").unwrap();
        for name in REAL {
            if let Some(real) = find_program(name) {
                std::os::unix::fs::symlink(real, stubs.join(name)).unwrap();
            }
        }
        Sandbox {
            _dir: dir,
            root,
            stubs,
            log,
        }
    }

    /// Run `command` with bash in the work directory; the programs started.
    fn run(&self, command: &str) -> Vec<String> {
        let _ = std::fs::remove_file(&self.log);
        let mut child = Command::new(find_program("bash").unwrap())
            .arg("-c")
            .arg(command)
            .current_dir(self.root.join("work"))
            .env_clear()
            .env("PATH", &self.stubs)
            .env("HOME", &self.root)
            .env("SHELL", self.stubs.join("bash"))
            .env("STUB_LOG", &self.log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// Under each rule set, every command the policy allows runs only the
/// programs in `ok`; and the harness does catch what it should (some of
/// the refused commands really would run something else).
#[test]
fn what_is_allowed_runs_only_allowed_programs() {
    if find_program("bash").is_none() {
        eprintln!("no bash: skipped");
        return;
    }
    let sandbox = Sandbox::new();
    let work = sandbox.root.join("work");
    let rule_sets: &[(&[&str], &[&str])] = &[
        (
            &[
                "allow Bash(ls *)",
                "allow Bash(echo *)",
                "allow Bash(printf *)",
                "allow Bash(read *)",
                "allow Bash(mapfile *)",
                "allow Bash(unset *)",
                "allow Bash(trap *)",
                "allow Bash(cd *)",
            ],
            &["ls"],
        ),
        (
            &["allow Bash", "deny Bash(touch *)", "deny Bash(./evil/ls *)"],
            &["ls", "rm", "cat", "mkdir", "cp"],
        ),
        (
            &["mode bypassPermissions", "deny Bash(touch *)"],
            &["ls", "rm", "cat", "mkdir", "cp"],
        ),
    ];
    let mut failures = Vec::new();
    let mut caught = 0;
    for (rules, ok) in rule_sets {
        let mut b = PolicyBuilder::new(&work).home(Some(sandbox.root.clone()));
        for line in *rules {
            let (kind, rule) = line.split_once(' ').unwrap();
            b = match kind {
                "allow" => b.allow(rule),
                "deny" => b.deny(rule),
                "mode" => b.mode(rule.parse().unwrap()),
                _ => unreachable!(),
            };
        }
        let policy = b.build().unwrap();
        for command in CANDIDATES {
            let input = serde_json::json!({ "command": command });
            let decision = evaluate(&Request::resolve("Bash", &input, &work, &policy), &policy);
            let ran = sandbox.run(command);
            let bad: Vec<&String> = ran.iter().filter(|p| !ok.contains(&p.as_str())).collect();
            if decision.is_allow() && !bad.is_empty() {
                failures.push(format!(
                    "{command} under {rules:?}: allowed, but ran {bad:?}"
                ));
            }
            if !decision.is_allow() && !bad.is_empty() {
                caught += 1;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{caught} refusals were needed");
    assert!(caught >= 30, "only {caught} refusals were really needed");
}
