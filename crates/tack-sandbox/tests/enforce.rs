//! What the Linux sandbox enforces, tried for real: this test binary is also
//! the helper (run with `--probe` or a plan as its first argument it calls
//! `tack_sandbox::helper::main`), and each test starts `sh -c SCRIPT` through
//! it with `tack_process::spawn`, in temporary directories.
//!
//! `cargo test -p tack-sandbox --test enforce [NAME_PART]`: a line per test,
//! exit 1 if any failed.

#![allow(clippy::disallowed_types, clippy::disallowed_methods)]
#![expect(
    clippy::unwrap_used,
    reason = "test setup panics on failure, which is what a test wants"
)]

use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tack_process::{Hold, Spec};
use tack_sandbox::{NetPlan, Plan};

type Outcome = Result<(), String>;
type Test = (&'static str, fn() -> Outcome);

/// The tests by name, in order.
macro_rules! tests {
    ($($name:ident),* $(,)?) => {
        &[$((stringify!($name), $name as fn() -> Outcome)),*]
    };
}

/// The bridge's port in the sandbox's network namespace (`plan::PROXY_PORT`).
const BRIDGE_PORT: u16 = 3128;
/// The first words of the helper's message when it cannot set up the sandbox.
const SETUP_FAILED: &str = "tack sandbox: could not set up the sandbox:";

fn main() {
    if let Some(first) = std::env::args_os().nth(1)
        && (first == "--probe" || first.as_bytes().starts_with(b"{"))
    {
        tack_sandbox::helper::main()
    }
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let tests: &[Test] = tests![
        writes_inside_the_root_work,
        a_redirect_outside_fails,
        sed_in_place_outside_fails,
        tar_into_outside_fails,
        find_delete_outside_fails,
        truncate_outside_fails,
        a_symlink_in_the_root_to_outside_fails,
        a_hard_link_into_the_root_fails,
        writes_outside_fail_without_namespaces,
        protected_paths_are_read_only,
        hidden_paths_read_empty,
        a_nested_root_cannot_be_swapped_for_a_link,
        the_way_to_protected_and_hidden_paths_cannot_be_moved,
        a_plan_path_that_leads_elsewhere_is_refused,
        descriptors_left_open_do_not_reach_the_command,
        metadata_outside_the_roots_cannot_change,
        the_machines_terminals_are_out_of_reach,
        shared_memory_is_the_commands_own,
        network_off_refuses_tcp,
        network_off_refuses_tcp_without_namespaces,
        network_on_allows_tcp,
        proxy_reaches_only_the_bridge,
        an_own_loopback_reaches_its_own_server_only,
        unix_sockets_refused_unless_allowed,
        seccomp_refuses_io_uring_clone3_and_new_user_namespaces,
        no_new_privs_and_no_capabilities,
        a_pid_namespace_of_its_own,
        exit_codes_pass_through,
        deaths_by_signal_pass_through,
        sigpipe_is_default_in_the_command,
        a_background_job_lives_until_the_group_is_killed,
        nothing_is_left_in_the_group_once_the_helper_ended,
        a_bad_plan_exits_125_with_the_message,
        a_missing_program_exits_127,
        probe_reports_this_machine,
    ];
    let mut failed = 0;
    let mut ran = 0;
    for (name, test) in tests {
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        ran += 1;
        match std::panic::catch_unwind(test) {
            Ok(Ok(())) => println!("test {name} ... ok"),
            Ok(Err(why)) => {
                failed += 1;
                println!(
                    "test {name} ... FAILED\n    {}",
                    why.replace('\n', "\n    ")
                );
            }
            Err(_) => {
                failed += 1;
                println!("test {name} ... FAILED (panicked)");
            }
        }
    }
    println!("{ran} tests, {failed} failed");
    std::process::exit(i32::from(failed > 0))
}

// ---------------------------------------------------------------------------
// Setup: a writable root and a directory outside it, a plan, a run.

/// A writable root and a directory outside it, both temporary.
struct Dirs {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn dirs() -> Dirs {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let root = base.join("root");
    let outside = base.join("outside");
    std::fs::create_dir(&root).unwrap();
    std::fs::create_dir(&outside).unwrap();
    Dirs {
        _tmp: tmp,
        root,
        outside,
    }
}

const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/pts",
];

/// Write only beneath `root`; the network on; namespaces on.
fn plan(root: &Path) -> Plan {
    let mut writable = vec![root.to_path_buf()];
    writable.extend(DEVICES.iter().map(PathBuf::from).filter(|p| p.exists()));
    Plan {
        writable,
        read_only: Vec::new(),
        hidden: Vec::new(),
        network: NetPlan::On,
        unix_sockets: true,
        namespaces: true,
        landlock_abi: 1,
    }
}

/// How a sandboxed script ended.
struct Ran {
    code: Option<i32>,
    signal: Option<i32>,
    out: String,
    group: tack_process::Group,
}

impl Ran {
    fn expect_code(&self, code: i32) -> Outcome {
        if self.code == Some(code) {
            Ok(())
        } else {
            Err(format!(
                "expected exit code {code}, got {:?} (signal {:?}); output:\n{}",
                self.code, self.signal, self.out
            ))
        }
    }

    fn expect_failure(&self) -> Outcome {
        match self.code {
            Some(0) | None => Err(format!(
                "expected the script to fail, it ended with {:?} (signal {:?}); output:\n{}",
                self.code, self.signal, self.out
            )),
            Some(_) => Ok(()),
        }
    }

    /// A write refused outside the roots: by Landlock (EACCES), or by the
    /// read-only mount of everything outside them (EROFS), whichever the
    /// kernel checks first.
    fn expect_write_refused(&self) -> Outcome {
        self.expect_output("Permission denied")
            .or_else(|_| self.expect_output("Read-only file system"))
    }

    fn expect_output(&self, part: &str) -> Outcome {
        if self.out.contains(part) {
            Ok(())
        } else {
            Err(format!("expected {part:?} in the output:\n{}", self.out))
        }
    }
}

fn helper() -> PathBuf {
    std::env::current_exe().unwrap()
}

/// `sh -c script` in `cwd` through the helper with `plan`.
fn run(plan: &Plan, cwd: &Path, script: &str) -> Ran {
    run_raw(&serde_json::to_string(plan).unwrap(), cwd, "sh", script)
}

fn run_raw(plan_json: &str, cwd: &Path, shell: &str, script: &str) -> Ran {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let spec = Spec::new(shell)
            .args(["-c", script])
            .cwd(cwd)
            .wrapped(helper(), [plan_json]);
        let process = tack_process::spawn(spec).unwrap();
        let ending = process.wait(Some(Duration::from_secs(30)), None).await;
        process.output_closed(Duration::from_secs(5)).await;
        let exit = ending.exit();
        Ran {
            code: exit.and_then(|e| e.code()),
            signal: exit.and_then(|e| e.signal()),
            out: process.stdout().take(Hold::Nothing).head,
            group: process.group(),
        }
    })
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| format!("<{e}>"))
}

fn expect_unchanged(path: &Path, content: &str, ran: &Ran) -> Outcome {
    let now = read(path);
    if now == content {
        Ok(())
    } else {
        Err(format!(
            "{} changed from {content:?} to {now:?}; output:\n{}",
            path.display(),
            ran.out
        ))
    }
}

fn q(path: &Path) -> String {
    format!("'{}'", path.display())
}

// ---------------------------------------------------------------------------
// Files

fn writes_inside_the_root_work() -> Outcome {
    let d = dirs();
    let ran = run(
        &plan(&d.root),
        &d.root,
        "echo made > f && mkdir -p a/b && mv f a/b/g && cat a/b/g > /dev/null",
    );
    ran.expect_code(0)?;
    let content = read(&d.root.join("a/b/g"));
    if content != "made\n" {
        return Err(format!("a/b/g holds {content:?}; output:\n{}", ran.out));
    }
    Ok(())
}

fn a_redirect_outside_fails() -> Outcome {
    let d = dirs();
    let target = d.outside.join("f");
    let ran = run(&plan(&d.root), &d.root, &format!("echo x > {}", q(&target)));
    ran.expect_failure()?;
    ran.expect_write_refused()?;
    if target.exists() {
        return Err(format!("{} was created", target.display()));
    }
    Ok(())
}

fn sed_in_place_outside_fails() -> Outcome {
    let d = dirs();
    let target = d.outside.join("f");
    std::fs::write(&target, "a\n").unwrap();
    let ran = run(
        &plan(&d.root),
        &d.root,
        &format!("sed -i s/a/b/ {}", q(&target)),
    );
    ran.expect_failure()?;
    expect_unchanged(&target, "a\n", &ran)
}

fn tar_into_outside_fails() -> Outcome {
    let d = dirs();
    std::fs::write(d.root.join("payload"), "p").unwrap();
    let ran = run(
        &plan(&d.root),
        &d.root,
        &format!(
            "tar -cf t.tar payload && tar -C {} -xf t.tar",
            q(&d.outside)
        ),
    );
    ran.expect_failure()?;
    if d.outside.join("payload").exists() {
        return Err(format!(
            "tar extracted outside the root; output:\n{}",
            ran.out
        ));
    }
    Ok(())
}

fn find_delete_outside_fails() -> Outcome {
    let d = dirs();
    let sub = d.outside.join("d");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("x"), "x").unwrap();
    let ran = run(
        &plan(&d.root),
        &d.root,
        &format!("find {} -delete", q(&sub)),
    );
    ran.expect_failure()?;
    expect_unchanged(&sub.join("x"), "x", &ran)
}

fn truncate_outside_fails() -> Outcome {
    let d = dirs();
    let target = d.outside.join("f");
    std::fs::write(&target, "keep").unwrap();
    let ran = run(
        &plan(&d.root),
        &d.root,
        &format!("truncate -s 0 {}", q(&target)),
    );
    ran.expect_failure()?;
    expect_unchanged(&target, "keep", &ran)
}

fn a_symlink_in_the_root_to_outside_fails() -> Outcome {
    let d = dirs();
    let target = d.outside.join("f");
    std::fs::write(&target, "keep").unwrap();
    let ran = run(
        &plan(&d.root),
        &d.root,
        &format!("ln -s {} link && echo x > link", q(&target)),
    );
    ran.expect_failure()?;
    ran.expect_write_refused()?;
    expect_unchanged(&target, "keep", &ran)
}

fn a_hard_link_into_the_root_fails() -> Outcome {
    let d = dirs();
    let target = d.outside.join("f");
    std::fs::write(&target, "keep").unwrap();
    let ran = run(
        &plan(&d.root),
        &d.root,
        &format!("ln {} hard; echo x >> hard", q(&target)),
    );
    // The link is refused (cross-directory links need Landlock's Refer
    // right outside the root); the append makes a new file in the root.
    expect_unchanged(&target, "keep", &ran)?;
    let linked = std::fs::metadata(d.root.join("hard")).is_ok_and(|m| {
        use std::os::unix::fs::MetadataExt as _;
        m.nlink() > 1
    });
    if linked {
        return Err(format!("the hard link was made; output:\n{}", ran.out));
    }
    Ok(())
}

fn writes_outside_fail_without_namespaces() -> Outcome {
    let d = dirs();
    let target = d.outside.join("f");
    std::fs::write(&target, "keep").unwrap();
    let mut plan = plan(&d.root);
    plan.namespaces = false;
    let ran = run(
        &plan,
        &d.root,
        &format!("echo ok > inside && echo x > {}", q(&target)),
    );
    ran.expect_failure()?;
    expect_unchanged(&target, "keep", &ran)?;
    expect_unchanged(&d.root.join("inside"), "ok\n", &ran)
}

fn protected_paths_are_read_only() -> Outcome {
    let d = dirs();
    let hooks = d.root.join(".git/hooks");
    let tack = d.root.join(".tack");
    std::fs::create_dir_all(&hooks).unwrap();
    std::fs::create_dir_all(&tack).unwrap();
    std::fs::write(hooks.join("x"), "hook").unwrap();
    std::fs::write(tack.join("settings.json"), "{}").unwrap();
    let file = d.root.join("CLAUDE.md");
    std::fs::write(&file, "rules").unwrap();
    let mut plan = plan(&d.root);
    plan.read_only = vec![d.root.join(".git"), tack.clone(), file.clone()];
    let ran = run(
        &plan,
        &d.root,
        "echo evil > .git/hooks/x; echo '{\"x\":1}' > .tack/settings.json; \
         rm -f .tack/settings.json; mv .git gone; echo evil >> CLAUDE.md; \
         sed -i s/rules/evil/ CLAUDE.md; echo fine > other && cat other",
    );
    ran.expect_code(0)?;
    ran.expect_output("Read-only file system")?;
    ran.expect_output("fine")?;
    expect_unchanged(&hooks.join("x"), "hook", &ran)?;
    expect_unchanged(&tack.join("settings.json"), "{}", &ran)?;
    expect_unchanged(&file, "rules", &ran)?;
    if !d.root.join(".git").is_dir() {
        return Err(format!(".git was moved; output:\n{}", ran.out));
    }
    Ok(())
}

fn hidden_paths_read_empty() -> Outcome {
    let d = dirs();
    let secret = d.outside.join("secret");
    let secrets = d.outside.join("secrets");
    std::fs::write(&secret, "s3cret-file").unwrap();
    std::fs::create_dir(&secrets).unwrap();
    std::fs::write(secrets.join("key"), "s3cret-dir").unwrap();
    let mut plan = plan(&d.root);
    plan.hidden = vec![secret.clone(), secrets.clone()];
    let ran = run(
        &plan,
        &d.root,
        &format!(
            "echo \"file=[$(cat {})]\"; echo \"dir=[$(ls -A {})]\"",
            q(&secret),
            q(&secrets)
        ),
    );
    ran.expect_code(0)?;
    ran.expect_output("file=[]")?;
    ran.expect_output("dir=[]")?;
    if ran.out.contains("s3cret") {
        return Err(format!("a hidden path was read:\n{}", ran.out));
    }
    Ok(())
}

/// A writable root inside another (the project in an `--add-dir` of its
/// monorepo, a `writableRoots` entry inside the project): one command must
/// not turn it, or a directory above it, into a link to `/` for the next
/// command's Landlock rule to follow.
fn a_nested_root_cannot_be_swapped_for_a_link() -> Outcome {
    let d = dirs();
    let nested = d.root.join("a/b/out");
    std::fs::create_dir_all(&nested).unwrap();
    let mut plan = plan(&d.root);
    plan.writable.insert(0, nested.clone());
    let swap = format!(
        "rm -rf a/b/out; mv a/b/out a/b/real; mv a a2; mv a/b a/b2; \
         ln -sfn {outside} a/b/out; echo x > a/b/out/f; ls -ld a/b/out",
        outside = q(&d.outside)
    );
    let ran = run(&plan, &d.root, &swap);
    ran.expect_output("busy")?;
    if !nested.is_dir() || nested.is_symlink() {
        return Err(format!(
            "the nested root was replaced; output:\n{}",
            ran.out
        ));
    }
    let next = run(
        &plan,
        &nested,
        "echo inside > f; echo x > ../../../f2; true",
    );
    next.expect_code(0)?;
    if d.outside.join("f").exists() {
        return Err(format!("a write landed outside; output:\n{}", next.out));
    }
    expect_unchanged(&nested.join("f"), "inside\n", &next)
}

/// A protected or hidden path's parent directories: moving one away and
/// putting a decoy in its place would change what the path names for the
/// next command (`mv config config.orig && mkdir config`), and the file
/// moved out from under its mount could be read or written under its new
/// name.
fn the_way_to_protected_and_hidden_paths_cannot_be_moved() -> Outcome {
    let d = dirs();
    let config = d.root.join("deploy/config");
    let keys = d.root.join("conf/keys");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::create_dir_all(&keys).unwrap();
    let prod = config.join("prod.yaml");
    std::fs::write(&prod, "db: real").unwrap();
    std::fs::write(keys.join("id"), "s3cret-key").unwrap();
    let mut plan = plan(&d.root);
    plan.read_only = vec![prod.clone()];
    plan.hidden = vec![keys.clone()];
    let ran = run(
        &plan,
        &d.root,
        "mv deploy deploy2; mv deploy/config deploy/c2; mkdir -p deploy/config; \
         echo 'db: evil' > deploy/config/prod.yaml; mv conf conf2; mv conf/keys conf/k2; \
         cat conf2/keys/id conf/k2/id conf/keys/id; rm -rf conf; true",
    );
    ran.expect_code(0)?;
    ran.expect_output("busy")?;
    expect_unchanged(&prod, "db: real", &ran)?;
    if ran.out.contains("s3cret") {
        return Err(format!("a hidden file was read:\n{}", ran.out));
    }
    let next = run(
        &plan,
        &d.root,
        "cat conf/keys/id; echo 'db: evil' > deploy/config/prod.yaml; true",
    );
    expect_unchanged(&prod, "db: real", &next)?;
    if next.out.contains("s3cret") {
        return Err(format!("a hidden file was read:\n{}", next.out));
    }
    Ok(())
}

/// A path of the plan that resolves elsewhere than when the plan was made
/// (what a swap would leave) stops the command: no rule or mount is made
/// through it.
fn a_plan_path_that_leads_elsewhere_is_refused() -> Outcome {
    let d = dirs();
    let link = d.root.join("out");
    std::os::unix::fs::symlink(&d.outside, &link).unwrap();
    for namespaces in [true, false] {
        let mut plan = plan(&d.root);
        plan.namespaces = namespaces;
        plan.writable.insert(0, link.clone());
        let ran = run(&plan, &d.root, "echo x > out/f");
        ran.expect_code(125)?;
        ran.expect_output("now leads to")?;
        if d.outside.join("f").exists() {
            return Err(format!("a write landed outside; output:\n{}", ran.out));
        }
    }
    Ok(())
}

/// A descriptor the parent left open without close-on-exec (an IDE, a CI
/// runner, a wrapper script may): Landlock judges a file when it is opened,
/// so a file outside the roots already open for appending would be written.
fn descriptors_left_open_do_not_reach_the_command() -> Outcome {
    use std::os::fd::AsRawFd as _;
    let d = dirs();
    let log = d.outside.join("log");
    std::fs::write(&log, "").unwrap();
    let file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    // std opens with O_CLOEXEC: take it off, as a careless parent would.
    let fd = file.as_raw_fd();
    nix::fcntl::fcntl(
        &file,
        nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::empty()),
    )
    .unwrap();
    let ran = run(
        &plan(&d.root),
        &d.root,
        &format!("echo leaked >&{fd}; echo done"),
    );
    ran.expect_output("done")?;
    expect_unchanged(&log, "", &ran)
}

/// Landlock has no right for a file's mode, owner, times or extended
/// attributes: a command changed them outside the roots (a setuid bit on a
/// binary, the mode of a private key) until everything outside the roots
/// was mounted read-only. Inside the root they still change.
fn metadata_outside_the_roots_cannot_change() -> Outcome {
    use std::os::unix::fs::PermissionsExt as _;
    let d = dirs();
    let victim = d.outside.join("key");
    std::fs::write(&victim, "k").unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).unwrap();
    let before = std::fs::metadata(&victim).unwrap().modified().unwrap();
    std::fs::write(d.root.join("script"), "x").unwrap();
    let ran = run(
        &plan(&d.root),
        &d.root,
        &format!(
            "chmod 4755 {v}; touch -d 2000-01-01 {v}; chmod +x script && echo inside-ok",
            v = q(&victim)
        ),
    );
    ran.expect_output("inside-ok")?;
    let meta = std::fs::metadata(&victim).unwrap();
    if meta.permissions().mode() & 0o7777 != 0o600 || meta.modified().unwrap() != before {
        return Err(format!("the file outside changed; output:\n{}", ran.out));
    }
    Ok(())
}

/// A pseudo-terminal of the machine (the test's own, standing for tack's
/// terminal or the user's other windows): its master, and its path.
fn host_pty() -> (nix::pty::PtyMaster, PathBuf) {
    use nix::fcntl::OFlag;
    let master = nix::pty::posix_openpt(OFlag::O_RDWR | OFlag::O_NOCTTY).unwrap();
    nix::pty::grantpt(&master).unwrap();
    nix::pty::unlockpt(&master).unwrap();
    let name = nix::pty::ptsname_r(&master).unwrap();
    (master, PathBuf::from(name))
}

/// The machine's terminals are not in the command's `/dev/pts`: it cannot
/// read the keystrokes typed in one or write onto its screen. A pty the
/// command opens itself still works (`script`, test suites that need a tty).
fn the_machines_terminals_are_out_of_reach() -> Outcome {
    let d = dirs();
    let (master, slave) = host_pty();
    let mut plan = plan(&d.root);
    plan.writable.push(PathBuf::from("/dev/ptmx"));
    let ran = run(
        &plan,
        &d.root,
        &format!(
            "echo \"pts=[$(ls /dev/pts | tr '\\n' ' ')]\"; \
             echo injected > {slave} && echo wrote-the-terminal; \
             cat {slave} </dev/null & sleep 0.2; kill $! 2>/dev/null; \
             script -qec 'echo own-pty-works' /dev/null; true",
            slave = q(&slave)
        ),
    );
    ran.expect_code(0)?;
    ran.expect_output("own-pty-works")?;
    if ran.out.contains("wrote-the-terminal") {
        return Err(format!(
            "the machine's terminal was written; output:\n{}",
            ran.out
        ));
    }
    let number = slave.file_name().unwrap().to_string_lossy().into_owned();
    let listed = ran
        .out
        .lines()
        .find_map(|l| l.strip_prefix("pts=["))
        .unwrap_or_default();
    if listed.split_whitespace().any(|n| n == number) {
        return Err(format!(
            "/dev/pts lists the machine's pty {number}:\n{}",
            ran.out
        ));
    }
    drop(master);
    Ok(())
}

/// `/dev/shm` is a tmpfs of the command's own: what it leaves there is gone
/// with it, and the machine's segments are neither seen nor changed.
fn shared_memory_is_the_commands_own() -> Outcome {
    let d = dirs();
    let unique = d.root.file_name().unwrap_or_default().len() + std::process::id() as usize;
    let host = PathBuf::from(format!("/dev/shm/tack-enforce-host-{unique}"));
    let left = PathBuf::from(format!("/dev/shm/tack-enforce-left-{unique}"));
    std::fs::write(&host, "host-segment").unwrap();
    let mut plan = plan(&d.root);
    plan.writable.push(PathBuf::from("/dev/shm"));
    let ran = run(
        &plan,
        &d.root,
        &format!(
            "cat {host}; echo evil > {host}; echo x > {left} && echo shm-ok; true",
            host = q(&host),
            left = q(&left)
        ),
    );
    let host_now = read(&host);
    let _ = std::fs::remove_file(&host);
    let left_behind = left.exists();
    let _ = std::fs::remove_file(&left);
    ran.expect_code(0)?;
    ran.expect_output("shm-ok")?;
    if ran.out.contains("host-segment") || host_now != "host-segment" {
        return Err(format!(
            "the machine's /dev/shm was reached (now {host_now:?}); output:\n{}",
            ran.out
        ));
    }
    if left_behind {
        return Err(format!(
            "a file was left in the machine's /dev/shm:\n{}",
            ran.out
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Network and sockets

/// A listener on 127.0.0.1 that answers each connection with a line.
fn tcp_listener() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            use std::io::Write as _;
            let _ = stream.write_all(b"hello from the test\n");
        }
    });
    port
}

fn connect_script(port: u16) -> String {
    format!("exec 3<>/dev/tcp/127.0.0.1/{port} && head -n1 <&3")
}

fn network_off_refuses_tcp() -> Outcome {
    let d = dirs();
    let port = tcp_listener();
    let mut plan = plan(&d.root);
    plan.network = NetPlan::Off;
    let json = serde_json::to_string(&plan).unwrap();
    let ran = run_raw(&json, &d.root, "bash", &connect_script(port));
    ran.expect_failure()?;
    if ran.out.contains("hello") {
        return Err(format!("connected with the network off:\n{}", ran.out));
    }
    Ok(())
}

fn network_off_refuses_tcp_without_namespaces() -> Outcome {
    let d = dirs();
    let port = tcp_listener();
    let mut plan = plan(&d.root);
    plan.network = NetPlan::Off;
    plan.namespaces = false;
    let json = serde_json::to_string(&plan).unwrap();
    let ran = run_raw(&json, &d.root, "bash", &connect_script(port));
    ran.expect_failure()?;
    if ran.out.contains("hello") {
        return Err(format!("connected with the network off:\n{}", ran.out));
    }
    Ok(())
}

fn network_on_allows_tcp() -> Outcome {
    let d = dirs();
    let port = tcp_listener();
    let json = serde_json::to_string(&plan(&d.root)).unwrap();
    let ran = run_raw(&json, &d.root, "bash", &connect_script(port));
    ran.expect_code(0)?;
    ran.expect_output("hello from the test")
}

fn an_own_loopback_reaches_its_own_server_only() -> Outcome {
    let d = dirs();
    let host_port = tcp_listener();
    let mut plan = plan(&d.root);
    plan.network = NetPlan::Loopback;
    let json = serde_json::to_string(&plan).unwrap();
    let script = format!(
        "python3 -c \"import socket,sys
s=socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1); print(s.getsockname()[1]); sys.stdout.flush()
c,_=s.accept(); c.sendall(b'hello from inside\\n')\" > port & \
         for i in $(seq 100); do [ -s port ] && break; sleep 0.1; done; {}; if {}; then echo reached-the-host; fi",
        "exec 3<>/dev/tcp/127.0.0.1/$(cat port) && head -n1 <&3",
        connect_script(host_port)
    );
    let ran = run_raw(&json, &d.root, "bash", &script);
    ran.expect_output("hello from inside")?;
    if ran.out.contains("hello from the test") || ran.out.contains("reached-the-host") {
        return Err(format!("a listener of the host was reached:\n{}", ran.out));
    }
    Ok(())
}

fn proxy_reaches_only_the_bridge() -> Outcome {
    let d = dirs();
    let socket = d.outside.join("proxy.sock");
    let unix = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    std::thread::spawn(move || {
        for mut stream in unix.incoming().flatten() {
            use std::io::Write as _;
            let _ = stream.write_all(b"hello from the proxy\n");
        }
    });
    let port = tcp_listener();
    let mut plan = plan(&d.root);
    plan.network = NetPlan::Proxy {
        socket,
        port: BRIDGE_PORT,
    };
    let json = serde_json::to_string(&plan).unwrap();
    let bridge = BRIDGE_PORT;
    let ran = run_raw(
        &json,
        &d.root,
        "bash",
        &format!(
            "{}; if {}; then echo reached-the-host; fi",
            connect_script(bridge),
            connect_script(port)
        ),
    );
    ran.expect_code(0)?;
    ran.expect_output("hello from the proxy")?;
    if ran.out.contains("hello from the test") || ran.out.contains("reached-the-host") {
        return Err(format!("a listener of the host was reached:\n{}", ran.out));
    }
    Ok(())
}

fn unix_sockets_refused_unless_allowed() -> Outcome {
    let d = dirs();
    let script = "python3 -c 'import socket; socket.socketpair(); print(\"pair ok\"); \
                  socket.socket(socket.AF_UNIX); print(\"unix ok\")'";
    let mut plan = plan(&d.root);
    plan.unix_sockets = false;
    let refused = run(&plan, &d.root, script);
    refused.expect_failure()?;
    refused.expect_output("pair ok")?;
    refused.expect_output("PermissionError")?;
    plan.unix_sockets = true;
    let allowed = run(&plan, &d.root, script);
    allowed.expect_code(0)?;
    allowed.expect_output("unix ok")
}

fn seccomp_refuses_io_uring_clone3_and_new_user_namespaces() -> Outcome {
    let d = dirs();
    // x86_64 numbers; aarch64 shares them for io_uring_setup and clone3.
    let script = "python3 -c '
import ctypes, os, threading
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
r = libc.syscall(425, 4, params)
print(\"io_uring\", r, os.strerror(ctypes.get_errno()))
r = libc.syscall(435, None, 0)
print(\"clone3\", r, os.strerror(ctypes.get_errno()))
t = threading.Thread(target=print, args=(\"a thread ran\",))
t.start(); t.join()
'; unshare -U true || echo unshare-refused";
    let ran = run(&plan(&d.root), &d.root, script);
    ran.expect_code(0)?;
    ran.expect_output("io_uring -1 Operation not permitted")?;
    ran.expect_output("clone3 -1 Function not implemented")?;
    ran.expect_output("a thread ran")?;
    ran.expect_output("unshare-refused")
}

// ---------------------------------------------------------------------------
// The process

fn no_new_privs_and_no_capabilities() -> Outcome {
    let d = dirs();
    let ran = run(&plan(&d.root), &d.root, "cat /proc/self/status");
    ran.expect_code(0)?;
    ran.expect_output("NoNewPrivs:\t1")?;
    ran.expect_output("CapEff:\t0000000000000000")?;
    ran.expect_output("CapPrm:\t0000000000000000")?;
    ran.expect_output("CapBnd:\t0000000000000000")?;
    ran.expect_output("Seccomp:\t2")
}

fn a_pid_namespace_of_its_own() -> Outcome {
    let d = dirs();
    let ran = run(
        &plan(&d.root),
        &d.root,
        "echo \"pid=$$\"; echo \"ns=$(readlink /proc/self/ns/pid)\"; \
         echo \"visible=$(ls /proc | grep -c '^[0-9]')\"",
    );
    ran.expect_code(0)?;
    let value = |key: &str| {
        ran.out
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(str::trim)
            .ok_or_else(|| format!("no {key} in:\n{}", ran.out))
    };
    let pid: u32 = value("pid=")?.parse().map_err(|e| format!("pid: {e}"))?;
    if pid > 10 {
        return Err(format!("$$ is {pid}: not a fresh PID namespace"));
    }
    let ours = std::fs::read_link("/proc/self/ns/pid").unwrap();
    if value("ns=")? == ours.to_string_lossy() {
        return Err(format!("the same PID namespace as the test's: {ours:?}"));
    }
    // ns-init, sh, ls (and grep): not the machine's processes.
    let visible: u32 = value("visible=")?
        .parse()
        .map_err(|e| format!("visible: {e}"))?;
    if visible > 6 {
        return Err(format!("{visible} processes visible in /proc"));
    }
    Ok(())
}

fn exit_codes_pass_through() -> Outcome {
    let d = dirs();
    run(&plan(&d.root), &d.root, "exit 7").expect_code(7)?;
    let mut plan = plan(&d.root);
    plan.namespaces = false;
    run(&plan, &d.root, "exit 9").expect_code(9)
}

fn deaths_by_signal_pass_through() -> Outcome {
    let d = dirs();
    for signal in [libc::SIGTERM, libc::SIGKILL, libc::SIGSEGV] {
        let ran = run(&plan(&d.root), &d.root, &format!("kill -{signal} $$"));
        if ran.signal != Some(signal) {
            return Err(format!(
                "expected death by signal {signal}, got code {:?} signal {:?}; output:\n{}",
                ran.code, ran.signal, ran.out
            ));
        }
    }
    Ok(())
}

fn sigpipe_is_default_in_the_command() -> Outcome {
    let d = dirs();
    let ran = run(&plan(&d.root), &d.root, "grep SigIgn /proc/self/status");
    ran.expect_code(0)?;
    // SIGPIPE is signal 13: bit 0x1000.
    let ignored = ran
        .out
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
        .ok_or_else(|| format!("no SigIgn in:\n{}", ran.out))?;
    if ignored & (1 << 12) != 0 {
        return Err(format!("SIGPIPE is ignored in the command: {}", ran.out));
    }
    Ok(())
}

/// The live (not zombie) members of process group `pgid`, by command name.
fn members(pgid: i32) -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let fields: Vec<&str> = stat[close + 2..].split_whitespace().collect();
        if fields.get(2) == Some(&pgid.to_string().as_str()) && fields.first() != Some(&"Z") {
            names.push(stat[open + 1..close].to_owned());
        }
    }
    names
}

fn a_background_job_lives_until_the_group_is_killed() -> Outcome {
    let d = dirs();
    let ran = run(
        &plan(&d.root),
        &d.root,
        "sleep 30 >/dev/null 2>&1 & echo started",
    );
    ran.expect_code(0)?;
    let during = members(ran.group.id());
    if !during.iter().any(|n| n == "sleep") {
        return Err(format!("no sleep left in the group: {during:?}"));
    }
    ran.group.kill();
    for _ in 0..100 {
        if members(ran.group.id()).is_empty() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err(format!(
        "still alive after the group was killed: {:?}",
        members(ran.group.id())
    ))
}

/// tack asks right after the helper ends whether the command left
/// processes running: ns-init must be gone (reaped) by then, not a zombie.
fn nothing_is_left_in_the_group_once_the_helper_ended() -> Outcome {
    let d = dirs();
    for _ in 0..20 {
        let ran = run(&plan(&d.root), &d.root, "true");
        ran.expect_code(0)?;
        // Zombies count: kill(-pgid, 0) finds them too.
        let pgid = nix::unistd::Pid::from_raw(ran.group.id());
        if nix::sys::signal::killpg(pgid, None).is_ok() {
            return Err(format!(
                "left in the group after the helper ended: {:?} (and zombies)",
                members(ran.group.id())
            ));
        }
    }
    Ok(())
}

fn a_bad_plan_exits_125_with_the_message() -> Outcome {
    let d = dirs();
    let ran = run_raw("{not a plan", &d.root, "sh", "echo ran");
    ran.expect_code(125)?;
    ran.expect_output(SETUP_FAILED)?;
    ran.expect_output("reading the plan")?;
    if ran.out.contains("ran") && !ran.out.contains("reading the plan") {
        return Err("the command ran".to_owned());
    }
    // Found inside the namespaces, by ns-init.
    let mut gone = plan(&d.root);
    gone.read_only = vec![d.root.join("gone")];
    let ran = run(&gone, &d.root, "echo the-command-ran");
    ran.expect_code(125)?;
    ran.expect_output(&format!(
        "{SETUP_FAILED} making {} read-only",
        d.root.join("gone").display()
    ))?;
    if ran.out.contains("the-command-ran") {
        return Err(format!("the command ran:\n{}", ran.out));
    }
    // Read-only paths without namespaces would be writable: refused.
    let mut flat = plan(&d.root);
    flat.namespaces = false;
    flat.read_only = vec![d.root.clone()];
    let ran = run(&flat, &d.root, "echo the-command-ran");
    ran.expect_code(125)?;
    ran.expect_output("need namespaces")?;
    let mut plan = plan(&d.root);
    plan.landlock_abi = 99;
    let ran = run(&plan, &d.root, "echo the-command-ran");
    ran.expect_code(125)?;
    ran.expect_output("Landlock ABI")?;
    if ran.out.contains("the-command-ran") {
        return Err(format!("the command ran:\n{}", ran.out));
    }
    Ok(())
}

fn a_missing_program_exits_127() -> Outcome {
    let d = dirs();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let json = serde_json::to_string(&plan(&d.root)).unwrap();
    let (code, out) = runtime.block_on(async {
        let spec = Spec::new("no-such-program-anywhere")
            .cwd(&d.root)
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .wrapped(helper(), [json]);
        let process = tack_process::spawn(spec).unwrap();
        let ending = process.wait(Some(Duration::from_secs(30)), None).await;
        process.output_closed(Duration::from_secs(5)).await;
        (
            ending.exit().and_then(|e| e.code()),
            process.stdout().take(Hold::Nothing).head,
        )
    });
    if code != Some(127) || !out.contains("no-such-program-anywhere") {
        return Err(format!(
            "expected 127 naming the program, got {code:?}:\n{out}"
        ));
    }
    Ok(())
}

fn probe_reports_this_machine() -> Outcome {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let support = runtime.block_on(tack_sandbox::Support::probe(&helper()))?;
    if support.landlock_abi < 1 {
        return Err(format!("no Landlock: {support:?}"));
    }
    if let Some(why) = &support.namespaces {
        return Err(format!("namespaces unusable: {why}"));
    }
    if let Some(why) = &support.network_namespace {
        return Err(format!("network namespace unusable: {why}"));
    }
    if !support.seccomp || support.os != "linux" {
        return Err(format!("{support:?}"));
    }
    Ok(())
}
