//! Programs that run their arguments as a command: a table of how each
//! finds the command (its options, which of them take a value, the
//! operands before the command), and a few that need more (`script -c`,
//! `sg`, `parallel`). An option not in a wrapper's table makes the command
//! uncertain: it might take the next word as its value and move the
//! command, so which command runs cannot be told.
//!
//! Older wrappers with their own handling (`env`, `timeout`, `nice`,
//! `xargs`, `sudo`, `flock`, `watch`, …) stay in the parent module;
//! `perf` runs the command after a subcommand and its options; developer
//! tools that run commands given as strings (`hyperfine`, `nodemon`) or
//! after a mode (`cmake -E`) are in [`super::dev_tools`].

use super::skip_options;
use crate::shell::options::{Found, Spec};
use crate::shell::words::quote;
use crate::shell::{Analyzer, Cwds, Family, UncertainKind, WordVal};

/// How a wrapper's options are written, when not as getopt reads them.
#[derive(Default, Clone, Copy)]
enum Syntax {
    #[default]
    Getopt,
    /// Each option a word of its own, followed by a fixed number of values
    /// (bwrap's `--bind SRC DEST`); the first non-option word is the
    /// command.
    Words(&'static [(&'static str, usize)]),
    /// Options recognised by how the word starts, each with what separates
    /// its value (proot): `' '` the next word (or the rest of the word
    /// after a space), `'='` the rest after `=`, `'\0'` no value. No
    /// clusters, no `--`.
    Separated(&'static [(&'static str, char)]),
}

/// The command words joined by spaces are a script its shell runs
/// (`watchexec`), unless an option says to run them directly.
#[derive(Clone, Copy)]
struct ShellRun {
    /// Options whose value is the shell, a command line run with `-c` and
    /// the script (`none`: no shell).
    option: &'static [&'static str],
    /// Options that run the command directly.
    direct: &'static [&'static str],
}

/// How one wrapper finds its command.
#[derive(Default)]
struct Wrapper {
    opts: Spec,
    /// How its options are written (as getopt reads them unless said).
    syntax: Syntax,
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
    /// Options whose value is a program and its arguments separated by
    /// spaces (`proot -q 'qemu-arm -cpu max'`).
    program_lines: &'static [&'static str],
    /// Options whose value is a command line run by a shell (`perf stat
    /// --pre`).
    scripts: &'static [&'static str],
    /// Options whose value is optional yet may be the next word (clap's
    /// `-c [MODE]`): a word right after one may be its value or the
    /// command.
    maybe_value: &'static [&'static str],
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
    /// Options that change the root or namespace paths are seen in (the
    /// directory the command runs in is unknown then, whatever `chdir`).
    moves: &'static [&'static str],
    /// The command runs in a new root directory.
    new_root: bool,
    /// Without a command it starts an interactive shell.
    shell_alone: bool,
    /// It runs the command with other privileges: that must be allowed too.
    privileged: bool,
    /// The command is a script a shell runs.
    shell: Option<ShellRun>,
    /// A first argument `@file` stands for the arguments the file holds.
    arg_file: bool,
}

/// The table.
fn wrapper(name: &str) -> Option<Wrapper> {
    let w = match name {
        "taskset" => Wrapper {
            opts: Spec {
                flags: "acphV",
                long_flags: &["--all-tasks", "--pid", "--cpu-list", "--help", "--version"],
                ..Spec::default()
            },
            operands: 1,
            no_command: &["-p", "--pid", "-h", "--help", "-V", "--version"],
            ..Wrapper::default()
        },
        "chrt" => Wrapper {
            opts: Spec {
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
                ..Spec::default()
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
            opts: Spec {
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
                ..Spec::NONE
            },
            no_command: &["-p", "--pid", "-h", "--help", "-V", "--version"],
            ..Wrapper::default()
        },
        "setpriv" => Wrapper {
            opts: Spec {
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
                ..Spec::default()
            },
            no_command: &["-d", "--dump", "-h", "--help", "-V", "--version"],
            ..Wrapper::default()
        },
        "chroot" => Wrapper {
            opts: Spec {
                long_flags: &["--skip-chdir", "--help", "--version"],
                long_with_arg: &["--groups", "--userspec"],
                ..Spec::default()
            },
            operands: 1,
            no_command: &["--help", "--version"],
            new_root: true,
            shell_alone: true,
            privileged: true,
            ..Wrapper::default()
        },
        "unshare" => Wrapper {
            opts: Spec {
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
                ..Spec::default()
            },
            no_command: &["-h", "--help", "-V", "--version"],
            moves: &["-R", "--root", "-w", "--wd"],
            shell_alone: true,
            ..Wrapper::default()
        },
        "nsenter" => Wrapper {
            opts: Spec {
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
                ..Spec::NONE
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
            opts: Spec {
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
                ..Spec::default()
            },
            no_command: &["-h", "--help", "-V", "--version"],
            writes: &["-o", "--output"],
            pipes: true,
            env: &["-E", "--env"],
            ..Wrapper::default()
        },
        "ltrace" => Wrapper {
            opts: Spec {
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
                ..Spec::default()
            },
            no_command: &["-h", "--help", "-V", "--version"],
            writes: &["-o", "--output"],
            ..Wrapper::default()
        },
        "dbus-launch" => Wrapper {
            opts: Spec {
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
                ..Spec::default()
            },
            no_command: &["--help", "--version"],
            ..Wrapper::default()
        },
        "dbus-run-session" => Wrapper {
            opts: Spec {
                long_flags: &["--help", "--version"],
                long_with_arg: &["--config-file", "--dbus-daemon"],
                ..Spec::default()
            },
            no_command: &["--help", "--version"],
            programs: &["--dbus-daemon"],
            ..Wrapper::default()
        },
        "fakeroot" => Wrapper {
            opts: Spec {
                flags: "uhv",
                with_arg: "lsib",
                long_flags: &["--unknown-is-real", "--help", "--version"],
                long_with_arg: &["--lib", "--faked"],
                ..Spec::default()
            },
            no_command: &["-h", "--help", "-v", "--version"],
            programs: &["--faked"],
            libraries: &["-l", "--lib"],
            writes: &["-s"],
            shell_alone: true,
            ..Wrapper::default()
        },
        "xvfb-run" => Wrapper {
            opts: Spec {
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
                ..Spec::default()
            },
            no_command: &["-h", "--help"],
            writes: &["-e", "--error-file", "-f", "--auth-file"],
            ..Wrapper::default()
        },
        "setarch" | "linux32" | "linux64" | "i386" | "i686" | "x86_64" | "uname26" => Wrapper {
            opts: Spec {
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
                ..Spec::default()
            },
            lead: name == "setarch",
            no_command: &["--list", "-h", "--help", "-V", "--version"],
            shell_alone: true,
            ..Wrapper::default()
        },
        "numactl" => Wrapper {
            opts: Spec {
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
                ..Spec::default()
            },
            no_command: &["-s", "--show", "-H", "--hardware", "-V", "--version"],
            ..Wrapper::default()
        },
        "cpulimit" => Wrapper {
            opts: Spec {
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
                ..Spec::default()
            },
            no_command: &["-p", "--pid", "-e", "--exe", "-P", "--path", "-h", "--help"],
            ..Wrapper::default()
        },
        "eatmydata" | "catchsegv" | "tsocks" => Wrapper {
            opts: Spec {
                long_flags: &["--help", "--version"],
                ..Spec::default()
            },
            no_command: &["--help", "--version"],
            ..Wrapper::default()
        },
        "nocache" => Wrapper {
            opts: Spec {
                with_arg: "n",
                ..Spec::default()
            },
            ..Wrapper::default()
        },
        "proxychains" | "proxychains4" => Wrapper {
            opts: Spec {
                flags: "q",
                with_arg: "f",
                ..Spec::default()
            },
            ..Wrapper::default()
        },
        "torsocks" | "torify" => Wrapper {
            opts: Spec {
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
                ..Spec::default()
            },
            no_command: &["--on", "--off", "-h", "--help", "-V", "--version"],
            starts_shell: &["--shell"],
            ..Wrapper::default()
        },
        "systemd-run" => Wrapper {
            opts: Spec {
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
                ..Spec::default()
            },
            no_command: &["-h", "--help", "--version"],
            starts_shell: &["-S", "--shell"],
            env: &["-E", "--setenv"],
            chdir: &["--working-directory"],
            privileged: true,
            ..Wrapper::default()
        },
        "run0" => Wrapper {
            opts: Spec {
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
                ..Spec::default()
            },
            no_command: &["-h", "--help", "--version"],
            env: &["--setenv"],
            chdir: &["-D", "--chdir"],
            shell_alone: true,
            privileged: true,
            ..Wrapper::default()
        },
        "caffeinate" => Wrapper {
            opts: Spec {
                flags: "disum",
                with_arg: "tw",
                ..Spec::default()
            },
            ..Wrapper::default()
        },
        "cgexec" => Wrapper {
            opts: Spec {
                with_arg: "g",
                long_flags: &["--sticky"],
                ..Spec::default()
            },
            privileged: true,
            ..Wrapper::default()
        },
        "systemd-inhibit" => Wrapper {
            opts: Spec {
                long_flags: &["--list", "--no-pager", "--no-legend", "--help", "--version"],
                long_with_arg: &["--what", "--who", "--why", "--mode"],
                ..Spec::default()
            },
            no_command: &["--list", "--help", "--version"],
            ..Wrapper::default()
        },
        "chronic" => Wrapper {
            opts: Spec {
                flags: "ve",
                ..Spec::default()
            },
            ..Wrapper::default()
        },
        "ifne" => Wrapper {
            opts: Spec {
                flags: "n",
                ..Spec::default()
            },
            ..Wrapper::default()
        },
        "entr" => Wrapper {
            opts: Spec {
                flags: "acdnprz",
                ..Spec::default()
            },
            ..Wrapper::default()
        },
        // `sshpass -p PASS ssh h`: runs its command with a password typed.
        "sshpass" => Wrapper {
            opts: Spec {
                flags: "hVve",
                with_arg: "pfdP",
                ..Spec::default()
            },
            no_command: &["-h", "-V"],
            ..Wrapper::default()
        },
        "trickle" => Wrapper {
            // Its own BSD getopt: options stop at the command.
            opts: Spec {
                flags: "hvVs",
                with_arg: "wnudtlL",
                ..Spec::default()
            },
            no_command: &["-h", "-V"],
            ..Wrapper::default()
        },
        "bwrap" => Wrapper {
            // Each option a word, with 0 to 3 values; `--args FD` reads
            // more arguments from a file descriptor, so it is left
            // unknown.
            syntax: Syntax::Words(&[
                ("--help", 0),
                ("--version", 0),
                ("--level-prefix", 0),
                ("--unshare-all", 0),
                ("--unshare-user", 0),
                ("--unshare-user-try", 0),
                ("--unshare-ipc", 0),
                ("--unshare-pid", 0),
                ("--unshare-net", 0),
                ("--unshare-uts", 0),
                ("--unshare-cgroup", 0),
                ("--unshare-cgroup-try", 0),
                ("--share-net", 0),
                ("--disable-userns", 0),
                ("--assert-userns-disabled", 0),
                ("--clearenv", 0),
                ("--new-session", 0),
                ("--die-with-parent", 0),
                ("--as-pid-1", 0),
                ("--argv0", 1),
                ("--chdir", 1),
                ("--remount-ro", 1),
                ("--overlay-src", 1),
                ("--tmp-overlay", 1),
                ("--ro-overlay", 1),
                ("--proc", 1),
                ("--exec-label", 1),
                ("--file-label", 1),
                ("--dev", 1),
                ("--tmpfs", 1),
                ("--mqueue", 1),
                ("--dir", 1),
                ("--lock-file", 1),
                ("--sync-fd", 1),
                ("--block-fd", 1),
                ("--userns-block-fd", 1),
                ("--info-fd", 1),
                ("--json-status-fd", 1),
                ("--seccomp", 1),
                ("--add-seccomp-fd", 1),
                ("--userns", 1),
                ("--userns2", 1),
                ("--pidns", 1),
                ("--unsetenv", 1),
                ("--uid", 1),
                ("--gid", 1),
                ("--hostname", 1),
                ("--cap-add", 1),
                ("--cap-drop", 1),
                ("--perms", 1),
                ("--size", 1),
                ("--bind", 2),
                ("--bind-try", 2),
                ("--ro-bind", 2),
                ("--ro-bind-try", 2),
                ("--dev-bind", 2),
                ("--dev-bind-try", 2),
                ("--bind-fd", 2),
                ("--ro-bind-fd", 2),
                ("--file", 2),
                ("--bind-data", 2),
                ("--ro-bind-data", 2),
                ("--symlink", 2),
                ("--setenv", 2),
                ("--chmod", 2),
                ("--overlay", 3),
            ]),
            no_command: &["--help", "--version"],
            env: &["--setenv", "--unsetenv"],
            // Paths in the sandbox are what its mounts make them.
            moves: &["--chdir"],
            new_root: true,
            ..Wrapper::default()
        },
        "proot" => Wrapper {
            syntax: Syntax::Separated(&[
                ("-r", ' '),
                ("--rootfs", '='),
                ("-b", ' '),
                ("--bind", '='),
                ("-m", ' '),
                ("--mount", '='),
                ("-q", ' '),
                ("--qemu", '='),
                ("--mixed-mode", ' '),
                ("-w", ' '),
                ("--pwd", '='),
                ("--cwd", '='),
                ("--kill-on-exit", '\0'),
                ("-v", ' '),
                ("--verbose", '='),
                ("-V", '\0'),
                ("--version", '\0'),
                ("--about", '\0'),
                ("-h", '\0'),
                ("--help", '\0'),
                ("--usage", '\0'),
                ("-k", ' '),
                ("--kernel-release", '='),
                ("-0", '\0'),
                ("--root-id", '\0'),
                ("-i", ' '),
                ("--change-id", '='),
                ("-p", ' '),
                ("--port", '='),
                ("-n", '\0'),
                ("--netcoop", '\0'),
                ("-l", '\0'),
                ("--link2symlink", '\0'),
                ("-R", ' '),
                ("-S", ' '),
            ]),
            no_command: &["-V", "--version", "--about", "-h", "--help", "--usage"],
            // QEMU runs each guest program.
            program_lines: &["-q", "--qemu"],
            chdir: &["-w", "--pwd", "--cwd"],
            // A guest root, bindings or QEMU's guest view: paths are not
            // the host's.
            moves: &[
                "-r", "--rootfs", "-R", "-S", "-b", "--bind", "-m", "--mount", "-q", "--qemu",
            ],
            // Without a command it starts /bin/sh.
            shell_alone: true,
            ..Wrapper::default()
        },
        "watchexec" => Wrapper {
            // clap: options before the command, which takes every word
            // after its first; the command is run by `$SHELL -c` (or the
            // `--shell`) with its words joined by spaces.
            opts: Spec {
                flags: "1nrIpvqhV",
                with_arg: "EosdwWFefji",
                optional_arg: "cN",
                long_flags: &[
                    "--manual",
                    "--only-emit-events",
                    "--no-environment",
                    "--no-process-group",
                    "--restart",
                    "--stdin-quit",
                    "--interactive",
                    "--exit-on-error",
                    "--postpone",
                    "--poll",
                    "--force-poll",
                    "--no-vcs-ignore",
                    "--no-project-ignore",
                    "--no-global-ignore",
                    "--no-default-ignore",
                    "--no-discover-ignore",
                    "--ignore-nothing",
                    "--no-meta",
                    "--no-follow-symlinks",
                    "--verbose",
                    "--print-events",
                    "--clear",
                    "--notify",
                    "--timings",
                    "--quiet",
                    "--bell",
                    "--help",
                    "--version",
                ],
                long_with_arg: &[
                    "--completions",
                    "--shell",
                    "--env",
                    "--wrap-process",
                    "--stop-signal",
                    "--stop-timeout",
                    "--timeout",
                    "--delay-run",
                    "--workdir",
                    "--socket",
                    "--on-busy-update",
                    "--signal",
                    "--map-signal",
                    "--debounce",
                    "--emit-events-to",
                    "--watch",
                    "--watch-non-recursive",
                    "--watch-file",
                    "--exts",
                    "--filter",
                    "--filter-file",
                    "--project-origin",
                    "--filter-prog",
                    "--ignore",
                    "--ignore-file",
                    "--fs-events",
                    "--color",
                    "--colour",
                ],
                ..Spec::NONE
            },
            no_command: &[
                "--manual",
                "--completions",
                "--only-emit-events",
                "-h",
                "--help",
                "-V",
                "--version",
            ],
            maybe_value: &["-c", "--clear", "-N", "--notify", "--poll", "--force-poll"],
            env: &["-E", "--env"],
            chdir: &["--workdir"],
            shell: Some(ShellRun {
                option: &["--shell"],
                direct: &["-n"],
            }),
            arg_file: true,
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
            "perf" => self.wrapper_perf(argv),
            "hyperfine" => self.wrapper_hyperfine(argv),
            "nodemon" => self.wrapper_nodemon(argv),
            "cmake" => return self.wrapper_cmake(argv),
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
                    opts: Spec {
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
                        ..Spec::default()
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
        if w.arg_file
            && argv
                .get(from)
                .and_then(|x| x.literal.as_deref())
                .is_some_and(|l| l.starts_with('@'))
        {
            return self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                "`@file` stands for arguments read from the file, which are not written here",
            );
        }
        let (mut start, found) = match wrapper_options(argv, from, w.syntax, &w.opts) {
            Ok(x) => x,
            Err(opt) => return self.unknown_option(argv, &opt),
        };
        let has = |list: &[&str]| found.iter().any(|f| list.contains(&f.name));
        if has(w.no_command) {
            return self.emit(argv);
        }
        // clap's `-c [MODE] cmd`: the word after may be the value.
        if start < argv.len()
            && found
                .last()
                .is_some_and(|f| f.value.is_none() && w.maybe_value.contains(&f.name))
            && argv[start - 1].literal.as_deref() != Some("--")
        {
            return self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                format!(
                    "`{}` may take the next word as its value, so which word is the command is not known",
                    argv[start - 1].raw
                ),
            );
        }
        let chdir = self.wrapper_effects(argv, &found, w);
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
        match w.shell {
            Some(shell) => self.shell_run(argv, start, &found, shell),
            None => self.unwrap(argv, start),
        }
        self.cwds = saved;
        if w.privileged {
            self.privileged.pop();
        }
    }

    /// What the options of a wrapper do besides finding the command: the
    /// programs and scripts they run, libraries loaded, files written,
    /// variables set. Returns the directory the command runs in when an
    /// option changes it (`Some(None)`: one that cannot be known).
    fn wrapper_effects(
        &mut self,
        argv: &[WordVal],
        found: &[Found],
        w: &Wrapper,
    ) -> Option<Option<WordVal>> {
        let mut chdir: Option<Option<WordVal>> = None;
        let mut moved = false;
        for f in found {
            let opt = f.name;
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
            if w.program_lines.contains(&opt) {
                match f.value.as_ref().and_then(|v| v.literal.as_deref()) {
                    Some(line) => {
                        let words: Vec<WordVal> =
                            line.split_whitespace().map(WordVal::literal).collect();
                        if !words.is_empty() {
                            self.outer.push(self.text(argv));
                            self.argv(words);
                            self.outer.pop();
                        }
                    }
                    None => self.uncertain(
                        UncertainKind::Command,
                        &self.text(argv),
                        format!("`{opt}` runs a program computed at run time"),
                    ),
                }
            }
            if w.scripts.contains(&opt) {
                match f.value.as_ref().and_then(|v| v.literal.clone()) {
                    Some(script) => self.nested_script(argv, &script),
                    None => self.uncertain(
                        UncertainKind::Command,
                        &self.text(argv),
                        format!("`{opt}` runs a command computed at run time"),
                    ),
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
                    Some(l) => match l.split_once('=') {
                        Some((name, value)) => {
                            let (name, value) = (name.to_string(), WordVal::literal(value));
                            self.variable_set(&name, Some(&value));
                        }
                        None => {
                            let name = l.to_string();
                            self.assigned_name(&name);
                        }
                    },
                    None => self.unknown_variable_set(&self.text(argv)),
                }
            }
            if w.chdir.contains(&opt) {
                chdir = Some(f.value.clone());
            }
            // A root or namespace changed stays changed, whatever
            // directory is chosen in it.
            moved |= w.moves.contains(&opt);
        }
        if moved { Some(None) } else { chdir }
    }

    /// The command words from `start`, joined by spaces, run by the shell
    /// the options choose (`$SHELL` or `sh` when none), or run directly
    /// when they say so.
    fn shell_run(&mut self, argv: &[WordVal], start: usize, found: &[Found], shell: ShellRun) {
        let line = found
            .iter()
            .rev()
            .find(|f| shell.option.contains(&f.name))
            .map(|f| f.value.as_ref().map(|v| v.literal.as_deref()));
        let direct = found.iter().any(|f| shell.direct.contains(&f.name))
            || line == Some(Some(Some("none")));
        if direct {
            return self.unwrap(argv, start);
        }
        if self.words_may_split(argv, start) {
            return;
        }
        let words: Option<Vec<&str>> = argv[start..].iter().map(|w| w.literal.as_deref()).collect();
        let Some(words) = words else {
            return self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                "its shell runs text computed at run time",
            );
        };
        let script = words.join(" ");
        match line {
            None => self.nested_script(argv, &script),
            Some(Some(Some(line))) => {
                let line = line.to_string();
                self.shell_line(argv, &line, &script);
            }
            Some(_) => self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                "the shell that runs the command is computed at run time",
            ),
        }
    }

    /// `script` run by the shell command line `line` with `-c` (`bash
    /// --norc -c script`): the shell is a command like any other, and
    /// reads the script if it is one.
    pub(super) fn shell_line(&mut self, argv: &[WordVal], line: &str, script: &str) {
        let mut words: Vec<WordVal> = line.split_whitespace().map(WordVal::literal).collect();
        if words.is_empty() {
            return self.nested_script(argv, script);
        }
        words.push(WordVal::literal("-c"));
        words.push(WordVal::literal(script));
        self.outer.push(self.text(argv));
        self.argv(words);
        self.outer.pop();
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
    pub(super) fn wrapper_output(
        &mut self,
        argv: &[WordVal],
        value: Option<&WordVal>,
        pipes: bool,
    ) {
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
            &Spec {
                flags: "acdnprzs",
                ..Spec::default()
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
        let spec = Spec {
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
            ..Spec::NONE
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
            .any(|f| matches!(f.name, "-h" | "--help" | "-V" | "--version"))
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
            match f.name {
                "-c" | "--command" => command = Some(f.value.clone()),
                "-I" | "--log-in" | "-O" | "--log-out" | "-B" | "--log-io" | "-T"
                | "--log-timing" => {
                    logs |= !matches!(f.name, "-T" | "--log-timing" | "-I" | "--log-in");
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
        if super::super::equivalents::is_ast_grep(&argv[1..]) {
            // ast-grep, which reads and (with `--update-all`) rewrites
            // files: a program like any other.
            return self.emit(argv);
        }
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
        let spec = Spec {
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
            ..Spec::NONE
        };
        let (start, found) = match skip_options(argv, 1, &spec) {
            Ok(x) => x,
            Err(opt) => return self.unknown_option(argv, &opt),
        };
        if found
            .iter()
            .any(|f| matches!(f.name, "-h" | "--help" | "--version"))
        {
            return self.emit(argv);
        }
        let mut replace: Option<String> = None;
        let mut quote_words = false;
        let mut from_file = false;
        let saved = self.cwds.clone();
        for f in &found {
            match f.name {
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
                "-a" | "--arg-file" => {
                    from_file = true;
                    if let Some(v) = &f.value {
                        self.touch(Family::Read, v);
                    }
                }
                _ => {}
            }
        }
        // `parallel cmd :::: FILE…`: what the files hold becomes arguments.
        let mut files = false;
        for w in &argv[start..] {
            match w.literal.as_deref() {
                Some(":::" | ":::+") => files = false,
                Some("::::" | "::::+") => files = true,
                _ if files => self.touch(Family::Read, w),
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

/// `perf stat` options (perf's parse-options: clusters, `--opt=value`;
/// options with an optional value take it only attached).
const PERF_STAT: Spec = Spec {
    flags: "TiavnSdBAjh",
    with_arg: "eptbrCxGoIDM",
    optional_arg: "",
    long_flags: &[
        "--transaction",
        "--no-inherit",
        "--bpf-counters",
        "--all-cpus",
        "--scale",
        "--no-scale",
        "--verbose",
        "--table",
        "--null",
        "--detailed",
        "--sync",
        "--big-num",
        "--no-big-num",
        "--no-aggr",
        "--no-merge",
        "--hybrid-merge",
        "--json-output",
        "--append",
        "--interval-clear",
        "--per-socket",
        "--per-die",
        "--per-cluster",
        "--per-cache",
        "--per-core",
        "--per-thread",
        "--per-node",
        "--metric-only",
        "--metric-no-group",
        "--metric-no-merge",
        "--metric-no-threshold",
        "--topdown",
        "--record-tpebs",
        "--smi-cost",
        "--all-kernel",
        "--all-user",
        "--percore-show-thread",
        "--summary",
        "--no-csv-summary",
        "--quiet",
        "--iostat",
        "--help",
    ],
    long_with_arg: &[
        "--event",
        "--filter",
        "--pid",
        "--tid",
        "--bpf-prog",
        "--bpf-attr-map",
        "--repeat",
        "--cpu",
        "--field-separator",
        "--cgroup",
        "--for-each-cgroup",
        "--output",
        "--log-fd",
        "--pre",
        "--post",
        "--interval-print",
        "--interval-count",
        "--timeout",
        "--delay",
        "--tpebs-mode",
        "--td-level",
        "--metrics",
        "--cputype",
        "--pfm-events",
        "--control",
    ],
    ..Spec::NONE
};

/// `perf record` options.
const PERF_RECORD: Spec = Spec {
    flags: "aRigvqsdTPnNBbWh",
    with_arg: "eptrCcoFmGDujk",
    optional_arg: "ISz",
    long_flags: &[
        "--latency",
        "--exclude-perf",
        "--no-buffering",
        "--raw-samples",
        "--all-cpus",
        "--no-inherit",
        "--tail-synthesize",
        "--overwrite",
        "--no-bpf-event",
        "--strict-freq",
        "--verbose",
        "--quiet",
        "--stat",
        "--data",
        "--phys-data",
        "--data-page-size",
        "--code-page-size",
        "--sample-mem-info",
        "--sample-cpu",
        "--sample-identifier",
        "--timestamp",
        "--period",
        "--no-samples",
        "--no-buildid-cache",
        "--no-buildid",
        "--kcore",
        "--branch-any",
        "--weight",
        "--transaction",
        "--per-thread",
        "--intr-regs",
        "--user-regs",
        "--running-time",
        "--snapshot",
        "--aux-sample",
        "--namespaces",
        "--all-cgroups",
        "--switch-events",
        "--all-kernel",
        "--all-user",
        "--kernel-callchains",
        "--user-callchains",
        "--buildid-all",
        "--buildid-mmap",
        "--timestamp-filename",
        "--timestamp-boundary",
        "--switch-output",
        "--dry-run",
        "--aio",
        "--compression-level",
        "--debuginfod",
        "--threads",
        "--off-cpu",
        "--help",
    ],
    long_with_arg: &[
        "--event",
        "--filter",
        "--pid",
        "--tid",
        "--realtime",
        "--cpu",
        "--count",
        "--output",
        "--freq",
        "--mmap-pages",
        "--mmap-flush",
        "--call-graph",
        "--cgroup",
        "--delay",
        "--uid",
        "--branch-filter",
        "--clockid",
        "--proc-map-timeout",
        "--vmlinux",
        "--switch-output-event",
        "--switch-max-files",
        "--affinity",
        "--max-size",
        "--num-thread-synthesize",
        "--pfm-events",
        "--control",
        "--synth",
        "--setup-filter",
        "--off-cpu-thresh",
    ],
    ..Spec::NONE
};

/// `perf trace` options.
const PERF_TRACE: Spec = Spec {
    flags: "avTsSfh",
    with_arg: "eoiptCmuGD",
    optional_arg: "F",
    long_flags: &[
        "--comm",
        "--tool_stats",
        "--all-cpus",
        "--no-inherit",
        "--sched",
        "--verbose",
        "--time",
        "--failure",
        "--summary",
        "--with-summary",
        "--errno-summary",
        "--pf",
        "--syscalls",
        "--force",
        "--libtraceevent_print",
        "--kernel-syscall-graph",
        "--sort-events",
        "--print-sample",
        "--show-on-off-events",
        "--help",
    ],
    long_with_arg: &[
        "--event",
        "--filter",
        "--expr",
        "--output",
        "--input",
        "--pid",
        "--tid",
        "--filter-pids",
        "--cpu",
        "--mmap-pages",
        "--uid",
        "--duration",
        "--map-dump",
        "--call-graph",
        "--max-events",
        "--min-stack",
        "--max-stack",
        "--proc-map-timeout",
        "--cgroup",
        "--delay",
        "--switch-on",
        "--switch-off",
    ],
    ..Spec::NONE
};

/// Whether `word` names perf's `record` subcommand the way `perf stat` and
/// the tools with a `record` mode read it: a prefix of three letters or
/// more.
fn perf_record_word(word: &str) -> bool {
    word.len() > 2 && "record".starts_with(word)
}

impl Analyzer {
    /// `perf [options] COMMAND …`: `stat`, `record` and `trace` run the
    /// command after their options (with `-p PID` or `-a` too, for as long
    /// as it runs); the other tools with a `record` mode, `ftrace` and
    /// `iostat` run one with options not read here, so they are uncertain;
    /// the rest run no command they are given.
    fn wrapper_perf(&mut self, argv: &[WordVal]) {
        let mut i = 1;
        let sub = loop {
            let Some(w) = argv.get(i) else {
                return self.emit(argv);
            };
            let Some(l) = w.literal.as_deref() else {
                return self.uncertain(
                    UncertainKind::Command,
                    &self.text(argv),
                    "a word computed at run time may be perf's command or one of its options",
                );
            };
            match l {
                "-p" | "--paginate" | "--no-pager" => i += 1,
                "--buildid-dir" => i += 2,
                "-h" | "--help" | "-v" | "--version" | "--list-cmds" | "--list-opts"
                | "--html-path" => return self.emit(argv),
                _ if l.starts_with('-') => return self.unknown_option(argv, l),
                _ => break l,
            }
        };
        match sub {
            "stat" => self.perf_stat(argv, i + 1),
            "record" => self.perf_record(argv, i + 1),
            "trace" => self.perf_trace(argv, i + 1),
            "ftrace" | "iostat" => self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                format!("perf {sub} runs a command after options that are not read here"),
            ),
            "c2c" | "mem" | "sched" | "lock" | "kmem" | "kwork" | "timechart" | "kvm"
            | "script"
                if argv[i + 1..]
                    .iter()
                    .any(|w| w.literal.as_deref().is_none_or(perf_record_word)) =>
            {
                self.uncertain(
                    UncertainKind::Command,
                    &self.text(argv),
                    format!(
                        "perf {sub} record runs a command after options that are not read here"
                    ),
                );
            }
            _ => self.emit(argv),
        }
    }

    /// `perf stat [options] [record [options]] [command]`; `--pre` and
    /// `--post` are run by a shell; `perf stat report` reads.
    fn perf_stat(&mut self, argv: &[WordVal], from: usize) {
        let (mut start, mut found) = match skip_options(argv, from, &PERF_STAT) {
            Ok(x) => x,
            Err(opt) => return self.unknown_option(argv, &opt),
        };
        let next = argv.get(start).and_then(|w| w.literal.as_deref());
        if next.is_some_and(|l| l.len() > 2 && "report".starts_with(l)) {
            return self.emit(argv);
        }
        let recording = next.is_some_and(perf_record_word);
        if recording {
            match skip_options(argv, start + 1, &PERF_STAT) {
                Ok((s, more)) => {
                    start = s;
                    found.extend(more);
                }
                Err(opt) => return self.unknown_option(argv, &opt),
            }
        }
        self.perf_command(argv, start, &found, recording);
    }

    /// `perf record [options] [command]`.
    fn perf_record(&mut self, argv: &[WordVal], from: usize) {
        match skip_options(argv, from, &PERF_RECORD) {
            Ok((start, found)) => self.perf_command(argv, start, &found, true),
            Err(opt) => self.unknown_option(argv, &opt),
        }
    }

    /// `perf trace [options] [command]`, `perf trace record [record
    /// options] [command]`; with `-i FILE` it replays a recording.
    fn perf_trace(&mut self, argv: &[WordVal], from: usize) {
        let (start, found) = match skip_options(argv, from, &PERF_TRACE) {
            Ok(x) => x,
            Err(opt) => return self.unknown_option(argv, &opt),
        };
        if argv.get(start).and_then(|w| w.literal.as_deref()) == Some("record") {
            return self.perf_record(argv, start + 1);
        }
        if found.iter().any(|f| f.name == "-i" || f.name == "--input") {
            return self.emit(argv);
        }
        self.perf_command(argv, start, &found, false);
    }

    /// What `perf stat`, `record` or `trace` does with its options, then
    /// the command at `start` if any. A recording is written to `-o FILE`
    /// (`perf.data` by default), an older one moved to `FILE.old`.
    fn perf_command(&mut self, argv: &[WordVal], start: usize, found: &[Found], recording: bool) {
        if found.iter().any(|f| f.name == "-h" || f.name == "--help") {
            return self.emit(argv);
        }
        self.wrapper_effects(
            argv,
            found,
            &Wrapper {
                scripts: &["--pre", "--post"],
                ..Wrapper::default()
            },
        );
        let output = found
            .iter()
            .rev()
            .find(|f| f.name == "-o" || f.name == "--output")
            .map(|f| f.value.clone());
        let output = match output {
            Some(v) => v,
            None if recording => Some(WordVal::literal("perf.data")),
            None => None,
        };
        match output {
            Some(v) if v.literal.as_deref() == Some("-") => {}
            Some(v) => {
                self.edit_target(&v);
                if recording && let Some(l) = &v.literal {
                    self.edit_target(&WordVal::literal(&format!("{l}.old")));
                }
            }
            None if found.iter().any(|f| f.name == "-o" || f.name == "--output") => {
                self.wrapper_output(argv, None, false);
            }
            None => {}
        }
        if recording
            && found.iter().any(|f| {
                matches!(
                    f.name,
                    "--switch-output" | "--timestamp-filename" | "--threads" | "--kcore"
                )
            })
        {
            self.uncertain(
                UncertainKind::Edit,
                &self.text(argv),
                "perf record writes files whose names are made at run time",
            );
        }
        if start >= argv.len() {
            return self.emit(argv);
        }
        self.unwrap(argv, start);
    }
}

/// Read a wrapper's options from `from` as its [`Syntax`] says: the index
/// of the command and the options seen, or an option it does not know.
fn wrapper_options(
    words: &[WordVal],
    from: usize,
    syntax: Syntax,
    opts: &Spec,
) -> Result<(usize, Vec<Found>), String> {
    match syntax {
        Syntax::Getopt => skip_options(words, from, opts),
        Syntax::Words(table) => word_options(words, from, table),
        Syntax::Separated(table) => separated_options(words, from, table),
    }
}

/// Options each a word of its own with a fixed number of values in the
/// next words (bwrap).
fn word_options(
    words: &[WordVal],
    from: usize,
    table: &'static [(&'static str, usize)],
) -> Result<(usize, Vec<Found>), String> {
    let mut i = from;
    let mut found = Vec::new();
    while let Some(w) = words.get(i) {
        let Some(lit) = &w.literal else { break };
        if lit == "--" {
            i += 1;
            break;
        }
        if !lit.starts_with('-') {
            break;
        }
        let Some(&(name, values)) = table.iter().find(|(name, _)| name == lit) else {
            return Err(lit.clone());
        };
        found.push(Found {
            name,
            value: if values > 0 {
                words.get(i + 1).cloned()
            } else {
                None
            },
            at: i + usize::from(values > 0),
        });
        i += 1 + values;
    }
    Ok((i.min(words.len()), found))
}

/// Options recognised by how the word starts, each with what separates
/// its value (proot; see [`Syntax::Separated`]).
fn separated_options(
    words: &[WordVal],
    from: usize,
    table: &'static [(&'static str, char)],
) -> Result<(usize, Vec<Found>), String> {
    let mut i = from;
    let mut found = Vec::new();
    while let Some(w) = words.get(i) {
        let Some(lit) = &w.literal else { break };
        if !lit.starts_with('-') {
            break;
        }
        // The first option the word starts with decides, as in proot.
        let Some(&(name, separator)) = table.iter().find(|(name, _)| lit.starts_with(name)) else {
            return Err(lit.clone());
        };
        let rest = &lit[name.len()..];
        let at = i;
        let value = match rest.chars().next() {
            None if separator == '\0' => None,
            None if separator == ' ' => {
                i += 1;
                words.get(i).cloned()
            }
            Some(c) if c == separator && separator != '\0' => Some(WordVal::literal(&rest[1..])),
            _ => return Err(lit.clone()),
        };
        found.push(Found {
            name,
            value,
            at: if separator == ' ' { i } else { at },
        });
        i += 1;
    }
    Ok((i.min(words.len()), found))
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
            | "perf"
            | "hyperfine"
            | "nodemon"
            | "cmake"
    ) || super::SHELLS.contains(&base)
        || wrapper(base).is_some()
}
