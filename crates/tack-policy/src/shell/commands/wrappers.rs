//! Programs that run their arguments as a command: a table of how each
//! finds the command (its options, which of them take a value, the
//! operands before the command), and a few that need more (`script -c`,
//! `sg`, `parallel`). An option not in a wrapper's table makes the command
//! uncertain: it might take the next word as its value and move the
//! command, so which command runs cannot be told.
//!
//! Older wrappers with their own handling (`env`, `timeout`, `nice`,
//! `xargs`, `sudo`, `flock`, `watch`, …) stay in the parent module.

use super::{Opts, skip_options};
use crate::shell::words::quote;
use crate::shell::{Analyzer, Cwds, UncertainKind, WordVal};

/// How one wrapper finds its command.
#[derive(Default)]
struct Wrapper {
    opts: Opts,
    /// A word before the options that is not the command (setarch's
    /// architecture), when it does not start with `-`.
    lead: bool,
    /// Operands between the options and the command (chroot's new root).
    operands: usize,
    /// The operands are there only when they are numbers (chrt's priority).
    numeric_operands: bool,
    /// Options after which no command runs (`--pid`, `--list`, `--help`).
    no_command: &'static [&'static str],
    /// Options after which it starts an interactive shell instead.
    starts_shell: &'static [&'static str],
    /// Options whose value is a program it runs.
    programs: &'static [&'static str],
    /// Options whose value is a library it loads into the command.
    libraries: &'static [&'static str],
    /// Options whose value is a file it writes; with `pipes`, a value
    /// starting with `|` or `!` is a command the output is piped to.
    writes: &'static [&'static str],
    pipes: bool,
    /// Options whose value is `NAME[=VALUE]` set (or unset) for the command.
    env: &'static [&'static str],
    /// Options whose value is the directory the command runs in.
    chdir: &'static [&'static str],
    /// Options that change the root or namespace paths are seen in.
    moves: &'static [&'static str],
    /// The command runs in a new root directory.
    new_root: bool,
    /// Without a command it starts an interactive shell.
    shell_alone: bool,
    /// It runs the command with other privileges: that must be allowed too.
    privileged: bool,
}

/// The table.
fn wrapper(name: &str) -> Option<Wrapper> {
    let w = match name {
        "taskset" => Wrapper {
            opts: Opts {
                flags: "acphV",
                long_flags: &["--all-tasks", "--pid", "--cpu-list", "--help", "--version"],
                ..Opts::default()
            },
            operands: 1,
            no_command: &["-p", "--pid", "-h", "--help", "-V", "--version"],
            ..Wrapper::default()
        },
        "chrt" => Wrapper {
            opts: Opts {
                flags: "abdefioRrmpvhV",
                with_arg: "TPD",
                long_flags: &[
                    "--all-tasks",
                    "--batch",
                    "--deadline",
                    "--ext",
                    "--fifo",
                    "--idle",
                    "--other",
                    "--rr",
                    "--reset-on-fork",
                    "--max",
                    "--pid",
                    "--verbose",
                    "--help",
                    "--version",
                ],
                long_with_arg: &["--sched-runtime", "--sched-period", "--sched-deadline"],
                ..Opts::default()
            },
            operands: 1,
            numeric_operands: true,
            no_command: &[
                "-p",
                "--pid",
                "-m",
                "--max",
                "-h",
                "--help",
                "-V",
                "--version",
            ],
            ..Wrapper::default()
        },
        "prlimit" => Wrapper {
            opts: Opts {
                flags: "hV",
                with_arg: "po",
                optional_arg: "cdefilmnqrstuvxy",
                long_flags: &[
                    "--noheadings",
                    "--raw",
                    "--verbose",
                    "--help",
                    "--version",
                    "--core",
                    "--data",
                    "--nice",
                    "--fsize",
                    "--sigpending",
                    "--memlock",
                    "--rss",
                    "--nofile",
                    "--msgqueue",
                    "--rtprio",
                    "--stack",
                    "--cpu",
                    "--nproc",
                    "--as",
                    "--locks",
                    "--rttime",
                ],
                long_with_arg: &["--pid", "--output"],
            },
            no_command: &["-p", "--pid", "-h", "--help", "-V", "--version"],
            ..Wrapper::default()
        },
        "setpriv" => Wrapper {
            opts: Opts {
                flags: "dhV",
                long_flags: &[
                    "--dump",
                    "--nnp",
                    "--no-new-privs",
                    "--clear-groups",
                    "--keep-groups",
                    "--init-groups",
                    "--reset-env",
                    "--help",
                    "--version",
                ],
                long_with_arg: &[
                    "--ambient-caps",
                    "--inh-caps",
                    "--bounding-set",
                    "--ruid",
                    "--euid",
                    "--rgid",
                    "--egid",
                    "--reuid",
                    "--regid",
                    "--groups",
                    "--securebits",
                    "--pdeathsig",
                    "--selinux-label",
                    "--apparmor-profile",
                    "--landlock-access",
                    "--landlock-rule",
                ],
                ..Opts::default()
            },
            no_command: &["-d", "--dump", "-h", "--help", "-V", "--version"],
            ..Wrapper::default()
        },
        "chroot" => Wrapper {
            opts: Opts {
                long_flags: &["--skip-chdir", "--help", "--version"],
                long_with_arg: &["--groups", "--userspec"],
                ..Opts::default()
            },
            operands: 1,
            no_command: &["--help", "--version"],
            new_root: true,
            shell_alone: true,
            privileged: true,
            ..Wrapper::default()
        },
        "unshare" => Wrapper {
            opts: Opts {
                flags: "muinpUCTfrchV",
                with_arg: "RwSGl",
                long_flags: &[
                    "--mount",
                    "--uts",
                    "--ipc",
                    "--net",
                    "--pid",
                    "--user",
                    "--cgroup",
                    "--time",
                    "--fork",
                    "--map-root-user",
                    "--map-current-user",
                    "--map-auto",
                    "--kill-child",
                    "--mount-proc",
                    "--keep-caps",
                    "--help",
                    "--version",
                ],
                long_with_arg: &[
                    "--map-user",
                    "--map-group",
                    "--map-users",
                    "--map-groups",
                    "--propagation",
                    "--setgroups",
                    "--root",
                    "--wd",
                    "--setuid",
                    "--setgid",
                    "--monotonic",
                    "--boottime",
                    "--load-interp",
                ],
                ..Opts::default()
            },
            no_command: &["-h", "--help", "-V", "--version"],
            moves: &["-R", "--root", "-w", "--wd"],
            shell_alone: true,
            ..Wrapper::default()
        },
        "nsenter" => Wrapper {
            opts: Opts {
                flags: "aFZecfhV",
                with_arg: "tSGW",
                optional_arg: "muinpCUTrw",
                long_flags: &[
                    "--all",
                    "--mount",
                    "--uts",
                    "--ipc",
                    "--net",
                    "--pid",
                    "--cgroup",
                    "--user",
                    "--time",
                    "--root",
                    "--wd",
                    "--no-fork",
                    "--follow-context",
                    "--preserve-credentials",
                    "--env",
                    "--join-cgroup",
                    "--keep-caps",
                    "--help",
                    "--version",
                ],
                long_with_arg: &["--target", "--setuid", "--setgid", "--wdns"],
            },
            no_command: &["-h", "--help", "-V", "--version"],
            moves: &[
                "-t", "--target", "-m", "--mount", "-r", "--root", "-w", "--wd", "-W", "--wdns",
                "-a", "--all",
            ],
            shell_alone: true,
            privileged: true,
            ..Wrapper::default()
        },
        "strace" => Wrapper {
            opts: Opts {
                flags: "AcCdDfFhiknNqrtTvVwxyzZ",
                with_arg: "abeEIoOpPsSuUX",
                long_flags: &[
                    "--follow-forks",
                    "--output-separately",
                    "--summary-only",
                    "--summary",
                    "--summary-wall-clock",
                    "--debug",
                    "--daemonize",
                    "--help",
                    "--version",
                    "--instruction-pointer",
                    "--stack-trace",
                    "--stack-traces",
                    "--no-abbrev",
                    "--quiet",
                    "--silent",
                    "--relative-timestamps",
                    "--absolute-timestamps",
                    "--timestamps",
                    "--syscall-times",
                    "--decode-fds",
                    "--decode-pids",
                    "--secontext",
                    "--seccomp-bpf",
                    "--kill-on-exit",
                    "--tips",
                ],
                long_with_arg: &[
                    "--columns",
                    "--trace",
                    "--signal",
                    "--status",
                    "--abbrev",
                    "--verbose",
                    "--raw",
                    "--read",
                    "--write",
                    "--inject",
                    "--fault",
                    "--const-print-style",
                    "--output",
                    "--env",
                    "--attach",
                    "--user",
                    "--string-limit",
                    "--summary-sort-by",
                    "--summary-columns",
                    "--summary-syscall-overhead",
                    "--trace-path",
                    "--trace-fds",
                    "--detach-on",
                    "--interruptible",
                    "--argv0",
                ],
                ..Opts::default()
            },
            no_command: &["-h", "--help", "-V", "--version"],
            writes: &["-o", "--output"],
            pipes: true,
            env: &["-E", "--env"],
            ..Wrapper::default()
        },
        "ltrace" => Wrapper {
            opts: Opts {
                flags: "bcCfhiLrStTV",
                with_arg: "aAeDFlnopsuwx",
                long_flags: &["--demangle", "--help", "--version", "--no-signals"],
                long_with_arg: &[
                    "--align",
                    "--indent",
                    "--output",
                    "--library",
                    "--config",
                    "--where",
                ],
                ..Opts::default()
            },
            no_command: &["-h", "--help", "-V", "--version"],
            writes: &["-o", "--output"],
            ..Wrapper::default()
        },
        "dbus-launch" => Wrapper {
            opts: Opts {
                long_flags: &[
                    "--sh-syntax",
                    "--csh-syntax",
                    "--auto-syntax",
                    "--binary-syntax",
                    "--close-stderr",
                    "--exit-with-session",
                    "--exit-with-x11",
                    "--help",
                    "--version",
                ],
                long_with_arg: &["--autolaunch", "--config-file"],
                ..Opts::default()
            },
            no_command: &["--help", "--version"],
            ..Wrapper::default()
        },
        "dbus-run-session" => Wrapper {
            opts: Opts {
                long_flags: &["--help", "--version"],
                long_with_arg: &["--config-file", "--dbus-daemon"],
                ..Opts::default()
            },
            no_command: &["--help", "--version"],
            programs: &["--dbus-daemon"],
            ..Wrapper::default()
        },
        "fakeroot" => Wrapper {
            opts: Opts {
                flags: "uhv",
                with_arg: "lsib",
                long_flags: &["--unknown-is-real", "--help", "--version"],
                long_with_arg: &["--lib", "--faked"],
                ..Opts::default()
            },
            no_command: &["-h", "--help", "-v", "--version"],
            programs: &["--faked"],
            libraries: &["-l", "--lib"],
            writes: &["-s"],
            shell_alone: true,
            ..Wrapper::default()
        },
        "xvfb-run" => Wrapper {
            opts: Opts {
                flags: "adhl",
                with_arg: "efnpsw",
                long_flags: &[
                    "--auto-servernum",
                    "--auto-display",
                    "--help",
                    "--listen-tcp",
                ],
                long_with_arg: &[
                    "--error-file",
                    "--auth-file",
                    "--server-num",
                    "--xauth-protocol",
                    "--server-args",
                    "--wait",
                ],
                ..Opts::default()
            },
            no_command: &["-h", "--help"],
            writes: &["-e", "--error-file", "-f", "--auth-file"],
            ..Wrapper::default()
        },
        "setarch" | "linux32" | "linux64" | "i386" | "i686" | "x86_64" | "uname26" => Wrapper {
            opts: Opts {
                flags: "3BFILRSTXZvhV",
                long_flags: &[
                    "--3gb",
                    "--4gb",
                    "--32bit",
                    "--fdpic-funcptrs",
                    "--short-inode",
                    "--addr-compat-layout",
                    "--addr-no-randomize",
                    "--whole-seconds",
                    "--sticky-timeouts",
                    "--read-implies-exec",
                    "--mmap-page-zero",
                    "--uname-2.6",
                    "--verbose",
                    "--list",
                    "--help",
                    "--version",
                ],
                ..Opts::default()
            },
            lead: name == "setarch",
            no_command: &["--list", "-h", "--help", "-V", "--version"],
            shell_alone: true,
            ..Wrapper::default()
        },
        "numactl" => Wrapper {
            opts: Opts {
                flags: "ablsHuTdDV",
                with_arg: "iwpPCNmoLMISf",
                long_flags: &[
                    "--all",
                    "--balancing",
                    "--localalloc",
                    "--show",
                    "--hardware",
                    "--huge",
                    "--touch",
                    "--dump",
                    "--dump-nodes",
                    "--strict",
                    "--version",
                ],
                long_with_arg: &[
                    "--interleave",
                    "--weighted-interleave",
                    "--preferred",
                    "--preferred-many",
                    "--physcpubind",
                    "--cpunodebind",
                    "--membind",
                    "--offset",
                    "--length",
                    "--shmmode",
                    "--shmid",
                    "--shm",
                    "--file",
                ],
                ..Opts::default()
            },
            no_command: &["-s", "--show", "-H", "--hardware", "-V", "--version"],
            ..Wrapper::default()
        },
        "cpulimit" => Wrapper {
            opts: Opts {
                flags: "zibqkrmfvh",
                with_arg: "lpePsc",
                long_flags: &[
                    "--lazy",
                    "--include-children",
                    "--background",
                    "--quiet",
                    "--kill",
                    "--restore",
                    "--monitor-forks",
                    "--foreground",
                    "--verbose",
                    "--help",
                ],
                long_with_arg: &["--limit", "--pid", "--exe", "--path", "--signal", "--cpu"],
                ..Opts::default()
            },
            no_command: &["-p", "--pid", "-e", "--exe", "-P", "--path", "-h", "--help"],
            ..Wrapper::default()
        },
        "eatmydata" | "catchsegv" | "tsocks" => Wrapper {
            opts: Opts {
                long_flags: &["--help", "--version"],
                ..Opts::default()
            },
            no_command: &["--help", "--version"],
            ..Wrapper::default()
        },
        "nocache" => Wrapper {
            opts: Opts {
                with_arg: "n",
                ..Opts::default()
            },
            ..Wrapper::default()
        },
        "proxychains" | "proxychains4" => Wrapper {
            opts: Opts {
                flags: "q",
                with_arg: "f",
                ..Opts::default()
            },
            ..Wrapper::default()
        },
        "torsocks" | "torify" => Wrapper {
            opts: Opts {
                flags: "idqhV",
                with_arg: "uapP",
                long_flags: &[
                    "--isolate",
                    "--debug",
                    "--quiet",
                    "--help",
                    "--version",
                    "--on",
                    "--off",
                    "--shell",
                ],
                long_with_arg: &["--user", "--pass", "--address", "--port"],
                ..Opts::default()
            },
            no_command: &["--on", "--off", "-h", "--help", "-V", "--version"],
            starts_shell: &["--shell"],
            ..Wrapper::default()
        },
        "systemd-run" => Wrapper {
            opts: Opts {
                flags: "rtPqGSdh",
                with_arg: "upEMH",
                long_flags: &[
                    "--user",
                    "--system",
                    "--scope",
                    "--remain-after-exit",
                    "--send-sighup",
                    "--pty",
                    "--pipe",
                    "--quiet",
                    "--collect",
                    "--shell",
                    "--no-block",
                    "--wait",
                    "--no-ask-password",
                    "--same-dir",
                    "--slice-inherit",
                    "--on-clock-change",
                    "--on-timezone-change",
                    "--help",
                    "--version",
                ],
                long_with_arg: &[
                    "--unit",
                    "--property",
                    "--description",
                    "--slice",
                    "--setenv",
                    "--machine",
                    "--host",
                    "--uid",
                    "--gid",
                    "--nice",
                    "--working-directory",
                    "--on-active",
                    "--on-boot",
                    "--on-startup",
                    "--on-unit-active",
                    "--on-unit-inactive",
                    "--on-calendar",
                    "--timer-property",
                    "--path-property",
                    "--socket-property",
                    "--service-type",
                    "--expand-environment",
                ],
                ..Opts::default()
            },
            no_command: &["-h", "--help", "--version"],
            starts_shell: &["-S", "--shell"],
            env: &["-E", "--setenv"],
            chdir: &["--working-directory"],
            privileged: true,
            ..Wrapper::default()
        },
        "run0" => Wrapper {
            opts: Opts {
                flags: "h",
                with_arg: "ugD",
                long_flags: &[
                    "--no-ask-password",
                    "--slice-inherit",
                    "--help",
                    "--version",
                ],
                long_with_arg: &[
                    "--user",
                    "--group",
                    "--nice",
                    "--chdir",
                    "--setenv",
                    "--property",
                    "--description",
                    "--slice",
                    "--unit",
                    "--machine",
                    "--background",
                    "--shell-prompt-prefix",
                ],
                ..Opts::default()
            },
            no_command: &["-h", "--help", "--version"],
            env: &["--setenv"],
            chdir: &["-D", "--chdir"],
            shell_alone: true,
            privileged: true,
            ..Wrapper::default()
        },
        "caffeinate" => Wrapper {
            opts: Opts {
                flags: "disum",
                with_arg: "tw",
                ..Opts::default()
            },
            ..Wrapper::default()
        },
        "cgexec" => Wrapper {
            opts: Opts {
                with_arg: "g",
                long_flags: &["--sticky"],
                ..Opts::default()
            },
            privileged: true,
            ..Wrapper::default()
        },
        "systemd-inhibit" => Wrapper {
            opts: Opts {
                long_flags: &["--list", "--no-pager", "--no-legend", "--help", "--version"],
                long_with_arg: &["--what", "--who", "--why", "--mode"],
                ..Opts::default()
            },
            no_command: &["--list", "--help", "--version"],
            ..Wrapper::default()
        },
        "chronic" => Wrapper {
            opts: Opts {
                flags: "ve",
                ..Opts::default()
            },
            ..Wrapper::default()
        },
        "ifne" => Wrapper {
            opts: Opts {
                flags: "n",
                ..Opts::default()
            },
            ..Wrapper::default()
        },
        "entr" => Wrapper {
            opts: Opts {
                flags: "acdnprz",
                ..Opts::default()
            },
            ..Wrapper::default()
        },
        _ => return None,
    };
    Some(w)
}

impl Analyzer {
    /// Handle `base` when it is a wrapper of this module; false otherwise.
    pub(super) fn table_wrapper(&mut self, base: &str, argv: &[WordVal]) -> bool {
        match base {
            "script" => self.wrapper_script(argv),
            "sg" => self.wrapper_sg(argv),
            "newgrp" => {
                self.emit(argv);
                self.interactive_shell(argv);
            }
            "parallel" | "sem" => self.wrapper_parallel(argv),
            "valgrind" | "firejail" => self.wrapper_valgrind(argv),
            "pee" => {
                // moreutils `pee 'cmd1' 'cmd2'`: each argument is run by a shell.
                for w in &argv[1..] {
                    match w.literal.as_deref() {
                        Some(l) if l.starts_with("--") => {}
                        Some(l) => {
                            let l = l.to_string();
                            self.nested_script(argv, &l);
                        }
                        None => self.uncertain(
                            UncertainKind::Command,
                            &self.text(argv),
                            "pee runs a command computed at run time",
                        ),
                    }
                }
            }
            "runuser" if runs_without_shell(argv) => self.run_wrapper(
                argv,
                &Wrapper {
                    opts: Opts {
                        flags: "flmpPh",
                        with_arg: "gGsuw",
                        long_flags: &[
                            "--fast",
                            "--login",
                            "--preserve-environment",
                            "--pty",
                            "--help",
                        ],
                        long_with_arg: &[
                            "--group",
                            "--supp-group",
                            "--shell",
                            "--user",
                            "--whitelist-environment",
                        ],
                        ..Opts::default()
                    },
                    no_command: &["-h", "--help"],
                    shell_alone: true,
                    privileged: true,
                    ..Wrapper::default()
                },
            ),
            "entr"
                if argv[1..]
                    .iter()
                    .take_while(|w| w.literal.as_deref().is_some_and(|l| l.starts_with('-')))
                    .any(|w| w.literal.as_deref().is_some_and(|l| l.contains('s'))) =>
            {
                // `entr -s 'cmd'`: the command is run by a shell.
                self.joined_script(argv, 1, "entr -s");
            }
            _ => match wrapper(base) {
                Some(w) => self.run_wrapper(argv, &w),
                None => return false,
            },
        }
        true
    }

    fn run_wrapper(&mut self, argv: &[WordVal], w: &Wrapper) {
        let mut from = 1;
        if w.lead
            && argv
                .get(1)
                .and_then(|x| x.literal.as_deref())
                .is_some_and(|l| !l.starts_with('-'))
        {
            from = 2;
        }
        let (mut start, found) = match skip_options(argv, from, &w.opts) {
            Ok(x) => x,
            Err(opt) => return self.unknown_option(argv, &opt),
        };
        let has = |list: &[&str]| found.iter().any(|f| list.contains(&f.opt.as_str()));
        if has(w.no_command) {
            return self.emit(argv);
        }
        let mut chdir: Option<Option<WordVal>> = None;
        for f in &found {
            let opt = f.opt.as_str();
            if w.programs.contains(&opt) {
                match &f.value {
                    Some(v) => {
                        self.outer.push(self.text(argv));
                        self.argv(vec![v.clone()]);
                        self.outer.pop();
                    }
                    None => self.unknown_option(argv, opt),
                }
            }
            if w.libraries.contains(&opt) {
                self.uncertain(
                    UncertainKind::Command,
                    &self.text(argv),
                    format!(
                        "`{opt}` loads a library into the command, whose code is not written here"
                    ),
                );
            }
            if w.writes.contains(&opt) {
                self.wrapper_output(argv, f.value.as_ref(), w.pipes);
            }
            if w.env.contains(&opt) {
                match f.value.as_ref().and_then(|v| v.literal.as_deref()) {
                    Some(l) => {
                        let name = l.split_once('=').map_or(l, |(n, _)| n).to_string();
                        self.assigned_name(&name);
                    }
                    None => self.uncertain(
                        UncertainKind::Command,
                        &self.text(argv),
                        "the variable set is computed at run time",
                    ),
                }
            }
            if w.chdir.contains(&opt) {
                chdir = Some(f.value.clone());
            }
            if w.moves.contains(&opt) {
                chdir = Some(None);
            }
        }
        if has(w.starts_shell) {
            self.emit(argv);
            return self.interactive_shell(argv);
        }
        for _ in 0..w.operands {
            let Some(v) = argv.get(start) else { break };
            if w.numeric_operands {
                match v.literal.as_deref() {
                    Some(l) if !l.is_empty() && l.chars().all(|c| c.is_ascii_digit()) => {}
                    Some(_) => break,
                    None => {
                        return self.uncertain(
                            UncertainKind::Command,
                            &self.text(argv),
                            "cannot tell whether a word computed at run time is an operand or the command",
                        );
                    }
                }
            }
            start += 1;
        }
        if w.operands > 0 && argv.get(start).and_then(|v| v.literal.as_deref()) == Some("--") {
            // Not an option any more, so it would be the command; taking
            // the rest as the command is the stricter reading.
            start += 1;
        }
        if start >= argv.len() {
            self.emit(argv);
            if w.shell_alone {
                self.interactive_shell(argv);
            }
            return;
        }
        if w.privileged {
            self.privileged.push(self.text(argv));
        }
        let saved = self.cwds.clone();
        if w.new_root {
            self.cwds = Cwds::Unknown;
        }
        match chdir {
            Some(Some(dir)) => self.cwds = self.cwds_after_cd(dir.literal.as_deref(), dir.tilde),
            Some(None) => self.cwds = Cwds::Unknown,
            None => {}
        }
        self.unwrap(argv, start);
        self.cwds = saved;
        if w.privileged {
            self.privileged.pop();
        }
    }

    /// `valgrind [--opt=value…] prog args` (and `firejail`): their options
    /// never take the next word, so the command is the first word not
    /// starting with `-`.
    fn wrapper_valgrind(&mut self, argv: &[WordVal]) {
        let firejail = argv
            .first()
            .and_then(|w| w.literal.as_deref())
            .is_some_and(|l| l.ends_with("firejail"));
        let mut start = 1;
        while let Some(w) = argv.get(start) {
            let Some(lit) = w.literal.as_deref() else {
                return self.uncertain(
                    UncertainKind::Command,
                    &self.text(argv),
                    "a word computed at run time may be an option of valgrind",
                );
            };
            if !lit.starts_with('-') {
                break;
            }
            if let Some(file) = lit
                .strip_prefix("--log-file=")
                .or_else(|| lit.strip_prefix("--xml-file="))
            {
                self.edit_target(&WordVal::literal(file));
            }
            if lit.starts_with("--db-command")
                || (firejail
                    && (lit.starts_with("--join")
                        || lit.starts_with("--shell")
                        || !lit.starts_with("--")))
            {
                return self.unknown_option(argv, lit);
            }
            start += 1;
        }
        if start >= argv.len() {
            self.emit(argv);
            if firejail {
                self.interactive_shell(argv);
            }
            return;
        }
        self.unwrap(argv, start);
    }

    /// Without a command: an interactive shell, whose startup files and
    /// input are not written here.
    fn interactive_shell(&mut self, argv: &[WordVal]) {
        self.opaque(
            argv,
            "it starts an interactive shell, whose startup files and commands are not written here",
        );
    }

    /// A file an option writes (`strace -o`); `|cmd` or `!cmd` pipes into
    /// a command instead.
    fn wrapper_output(&mut self, argv: &[WordVal], value: Option<&WordVal>, pipes: bool) {
        let Some(v) = value else {
            return self.uncertain(UncertainKind::Edit, &self.text(argv), "missing file");
        };
        if pipes {
            match v.literal.as_deref() {
                Some(l) if l.starts_with('|') || l.starts_with('!') => {
                    let script = l[1..].to_string();
                    return self.nested_script(argv, &script);
                }
                Some(_) => {}
                None => {
                    return self.uncertain(
                        UncertainKind::Command,
                        &self.text(argv),
                        "the output may be piped to a command computed at run time",
                    );
                }
            }
        }
        self.edit_target(v);
    }

    /// The words from `from` joined by spaces are a script run by a shell
    /// (`sg group cmd`, `entr -s`).
    fn joined_script(&mut self, argv: &[WordVal], from: usize, what: &str) {
        let (start, _) = match skip_options(
            argv,
            from,
            &Opts {
                flags: "acdnprzs",
                ..Opts::default()
            },
        ) {
            Ok(x) => x,
            Err(opt) => return self.unknown_option(argv, &opt),
        };
        let all: Option<Vec<&str>> = argv[start..].iter().map(|w| w.literal.as_deref()).collect();
        match all {
            Some(parts) if parts.is_empty() => self.emit(argv),
            Some(parts) => self.nested_script(argv, &parts.join(" ")),
            None => self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                format!("{what} runs text computed at run time"),
            ),
        }
    }

    /// `script [options] [file]`: `-c cmd` runs `$SHELL -c cmd` (else an
    /// interactive shell) and the session is written to `file`
    /// (`typescript` by default). Options may follow the file.
    fn wrapper_script(&mut self, argv: &[WordVal]) {
        let spec = Opts {
            flags: "aefqhV",
            with_arg: "IOBTmEoc",
            optional_arg: "t",
            long_flags: &[
                "--append",
                "--return",
                "--flush",
                "--force",
                "--quiet",
                "--help",
                "--version",
                "--timing",
            ],
            long_with_arg: &[
                "--log-in",
                "--log-out",
                "--log-io",
                "--log-timing",
                "--logging-format",
                "--command",
                "--echo",
                "--output-limit",
            ],
        };
        let mut found = Vec::new();
        let mut operands: Vec<&WordVal> = Vec::new();
        let mut i = 1;
        while i < argv.len() {
            let (next, more) = match skip_options(argv, i, &spec) {
                Ok(x) => x,
                Err(opt) => return self.unknown_option(argv, &opt),
            };
            found.extend(more);
            if next > i && argv[next - 1].literal.as_deref() == Some("--") {
                operands.extend(&argv[next..]);
                break;
            }
            if let Some(w) = argv.get(next) {
                operands.push(w);
            }
            i = next + 1;
        }
        if found
            .iter()
            .any(|f| matches!(f.opt.as_str(), "-h" | "--help" | "-V" | "--version"))
        {
            return self.emit(argv);
        }
        if operands.iter().any(|w| w.literal.is_none()) {
            return self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                "a word computed at run time may be an option of script",
            );
        }
        let mut logs = false;
        let mut command: Option<Option<WordVal>> = None;
        for f in &found {
            match f.opt.as_str() {
                "-c" | "--command" => command = Some(f.value.clone()),
                "-I" | "--log-in" | "-O" | "--log-out" | "-B" | "--log-io" | "-T"
                | "--log-timing" => {
                    logs |= !matches!(f.opt.as_str(), "-T" | "--log-timing" | "-I" | "--log-in");
                    self.wrapper_output(argv, f.value.as_ref(), false);
                }
                "-t" | "--timing" => {
                    if let Some(v) = &f.value {
                        self.edit_target(v);
                    }
                }
                _ => {}
            }
        }
        match operands.first() {
            Some(file) => {
                let file = (*file).clone();
                self.edit_target(&file);
            }
            None if !logs => self.edit_target(&WordVal::literal("typescript")),
            None => {}
        }
        match command {
            Some(Some(WordVal {
                literal: Some(script),
                ..
            })) => self.nested_script(argv, &script),
            Some(_) => self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                "script -c runs text computed at run time",
            ),
            None => {
                self.emit(argv);
                self.interactive_shell(argv);
            }
        }
    }

    /// `sg [-] group [-c] command`: the command is run by `/bin/sh -c`
    /// with another group; without one, an interactive shell.
    fn wrapper_sg(&mut self, argv: &[WordVal]) {
        let mut i = 1;
        if argv.get(i).and_then(|w| w.literal.as_deref()) == Some("-") {
            i += 1;
        }
        i += 1; // the group
        if argv.get(i).and_then(|w| w.literal.as_deref()) == Some("-c") {
            i += 1;
        }
        if i >= argv.len() {
            self.emit(argv);
            return self.interactive_shell(argv);
        }
        self.privileged.push(self.text(argv));
        self.joined_script(argv, i, "sg");
        self.privileged.pop();
    }

    /// GNU `parallel [options] [command] (::: args | :::: files)`: the
    /// command words joined are a template run by a shell, with the
    /// arguments in place of `{}` (or appended); without a command, the
    /// arguments (or input lines) are the commands.
    fn wrapper_parallel(&mut self, argv: &[WordVal]) {
        let spec = Opts {
            flags: "0kuvtXmqrph",
            with_arg: "jnNLsaIdCSEP",
            optional_arg: "il",
            long_flags: &[
                "--null",
                "--keep-order",
                "--ungroup",
                "--group",
                "--line-buffer",
                "--lb",
                "--verbose",
                "--tag",
                "--xargs",
                "--quote",
                "--no-run-if-empty",
                "--interactive",
                "--will-cite",
                "--dry-run",
                "--bar",
                "--eta",
                "--progress",
                "--pipe",
                "--fg",
                "--bg",
                "--semaphore",
                "--wait",
                "--replace",
                "--help",
                "--version",
            ],
            long_with_arg: &[
                "--jobs",
                "--max-procs",
                "--max-args",
                "--max-lines",
                "--max-chars",
                "--arg-file",
                "--delimiter",
                "--colsep",
                "--timeout",
                "--retries",
                "--joblog",
                "--tmpdir",
                "--tagstring",
                "--tag-string",
                "--halt",
                "--delay",
                "--block",
                "--block-size",
                "--recstart",
                "--recend",
                "--memfree",
                "--load",
                "--nice",
                "--workdir",
                "--wd",
                "--header",
                "--termseq",
                "--id",
                "--results",
                "--res",
                "--eof",
            ],
        };
        let (start, found) = match skip_options(argv, 1, &spec) {
            Ok(x) => x,
            Err(opt) => return self.unknown_option(argv, &opt),
        };
        if found
            .iter()
            .any(|f| matches!(f.opt.as_str(), "-h" | "--help" | "--version"))
        {
            return self.emit(argv);
        }
        let mut replace: Option<String> = None;
        let mut quote_words = false;
        let mut from_file = false;
        let saved = self.cwds.clone();
        for f in &found {
            match f.opt.as_str() {
                "--joblog" => self.wrapper_output(argv, f.value.as_ref(), false),
                "--results" | "--res" => self.uncertain(
                    UncertainKind::Edit,
                    &self.text(argv),
                    "parallel --results writes files under a directory",
                ),
                "--workdir" | "--wd" => self.cwds = Cwds::Unknown,
                "-I" => replace = f.value.as_ref().and_then(|v| v.literal.clone()),
                "-i" | "--replace" => {
                    replace = Some(
                        f.value
                            .as_ref()
                            .and_then(|v| v.literal.clone())
                            .unwrap_or_else(|| "{}".into()),
                    );
                }
                "-q" | "--quote" => quote_words = true,
                "-a" | "--arg-file" => from_file = true,
                _ => {}
            }
        }
        let is_separator = |w: &WordVal| {
            matches!(
                w.literal.as_deref(),
                Some(":::" | "::::" | ":::+" | "::::+")
            )
        };
        let end = argv[start..]
            .iter()
            .position(is_separator)
            .map_or(argv.len(), |p| start + p);
        let template = &argv[start..end];
        if template.is_empty() {
            self.parallel_commands(argv, end, from_file);
        } else {
            self.parallel_template(argv, template, replace.as_deref(), quote_words);
        }
        self.cwds = saved;
    }

    /// `parallel ::: 'cmd 1' 'cmd 2'`: each argument is a command.
    fn parallel_commands(&mut self, argv: &[WordVal], end: usize, from_file: bool) {
        let rest = &argv[end..];
        let groups = rest.iter().filter(|w| {
            matches!(
                w.literal.as_deref(),
                Some(":::" | "::::" | ":::+" | "::::+")
            )
        });
        let only_args = groups.clone().count() == 1
            && rest.first().and_then(|w| w.literal.as_deref()) == Some(":::");
        if rest.is_empty()
            || from_file
            || groups.clone().any(|w| w.literal.as_deref() != Some(":::"))
        {
            // Commands from the input or a file.
            self.emit(argv);
            return self.opaque(
                argv,
                "parallel runs commands read from its input or a file, which are not written here",
            );
        }
        if !only_args {
            return self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                "parallel combines arguments of several groups into commands",
            );
        }
        for w in &rest[1..] {
            match &w.literal {
                Some(script) => {
                    let script = script.clone();
                    self.nested_script(argv, &script);
                }
                None => {
                    return self.uncertain(
                        UncertainKind::Command,
                        &self.text(argv),
                        "parallel runs a command computed at run time",
                    );
                }
            }
        }
    }

    /// `parallel cmd {} ::: args`: the template with the arguments in it.
    fn parallel_template(
        &mut self,
        argv: &[WordVal],
        template: &[WordVal],
        replace: Option<&str>,
        quote_words: bool,
    ) {
        let words: Option<Vec<String>> = template
            .iter()
            .map(|w| {
                w.literal
                    .as_deref()
                    .map(|l| if quote_words { quote(l) } else { l.to_string() })
            })
            .collect();
        let Some(words) = words else {
            return self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                "parallel runs a command computed at run time",
            );
        };
        let text = words.join(" ");
        if text.contains("{=") {
            return self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                "a {= … =} replacement runs Perl code",
            );
        }
        let (mut script, replaced) = replace_placeholders(&text, replace);
        if !replaced {
            script.push_str(" \"$@\"");
        }
        self.nested_script(argv, &script);
    }
}

/// Put `"$@"` (a dynamic word) where parallel puts an argument: `{}`,
/// `{.}`, `{/}`, `{//}`, `{/.}`, `{#}`, `{%}`, `{1}`, `{+/}`… or the `-I`
/// string. Returns whether any was found.
fn replace_placeholders(text: &str, custom: Option<&str>) -> (String, bool) {
    const ARG: &str = "\"$@\"";
    let mut out = String::with_capacity(text.len());
    let mut found = false;
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(c) = custom.filter(|c| !c.is_empty())
            && let Some(after) = rest.strip_prefix(c)
        {
            out.push_str(ARG);
            found = true;
            rest = after;
            continue;
        }
        if rest.starts_with('{')
            && let Some(close) = rest.find('}')
            && rest[1..close]
                .chars()
                .all(|c| c.is_ascii_digit() || "./+#%".contains(c))
        {
            out.push_str(ARG);
            found = true;
            rest = &rest[close + 1..];
            continue;
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    (out, found)
}

/// `runuser -u user [--] cmd…` runs the command itself, not a shell.
fn runs_without_shell(argv: &[WordVal]) -> bool {
    let words: Vec<&str> = argv[1..]
        .iter()
        .map_while(|w| w.literal.as_deref())
        .collect();
    let user = words
        .iter()
        .any(|l| *l == "-u" || *l == "--user" || l.starts_with("--user="));
    let shell = words.iter().any(|l| {
        matches!(
            *l,
            "-c" | "--command" | "--session-command" | "-" | "-l" | "--login"
        )
    });
    user && !shell
}

/// The GNU name of a tool installed with a `g` prefix (`gtimeout`,
/// `gxargs`, `gfind` on macOS).
pub(super) fn gnu_name(base: &str) -> &str {
    match base.strip_prefix('g') {
        Some(
            rest @ ("timeout" | "stdbuf" | "nohup" | "nice" | "env" | "xargs" | "find" | "time"
            | "chroot"),
        ) => rest,
        _ => base,
    }
}

/// Whether a program written as a path is in a system directory, where
/// the wrapper it is named like is the real one.
pub(super) fn in_system_dir(name: &str) -> bool {
    const DIRS: &[&str] = &[
        "/bin",
        "/sbin",
        "/usr/bin",
        "/usr/sbin",
        "/usr/local/bin",
        "/usr/local/sbin",
        "/opt/homebrew/bin",
    ];
    let dir = name.rsplit_once('/').map_or("", |(d, _)| d);
    DIRS.contains(&dir)
}

/// Whether the analysis sees through `base` to a command it runs (so the
/// command line of `base` itself is not emitted as the command).
pub(super) fn runs_a_command(base: &str) -> bool {
    matches!(
        base,
        "command"
            | "builtin"
            | "exec"
            | "eval"
            | "nohup"
            | "busybox"
            | "time"
            | "nice"
            | "timeout"
            | "stdbuf"
            | "env"
            | "setsid"
            | "ionice"
            | "unbuffer"
            | "flock"
            | "pkexec"
            | "xargs"
            | "sudo"
            | "doas"
            | "watch"
            | "su"
            | "runuser"
            | "script"
            | "sg"
            | "parallel"
            | "sem"
            | "valgrind"
            | "firejail"
            | "pee"
            | "entr"
    ) || super::SHELLS.contains(&base)
        || wrapper(base).is_some()
}
