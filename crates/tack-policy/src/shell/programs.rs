//! What known programs do besides running: the files their options and
//! operands write, and the commands their options run.
//!
//! A program whose job is something else and that writes a file as a side
//! effect of an option or a mode (`sed -i`, `sort -o`, `tar -x`, `curl -o`,
//! `gzip`) writes like a redirection: the file is an edit and must be
//! allowed as one ([`Item::Edit`]); files whose names only the run knows
//! are edits of everything inside the directory they land in
//! ([`Item::EditInside`]). (File-management commands — `rm mv cp touch
//! mkdir ln chmod …` — are judged in `commands.rs`: their operands are
//! checked against Edit deny and ask rules.) An option that runs a command
//! (`rsync -e`, `ssh -o ProxyCommand=`, `tar --to-command`, `sed e`) has the
//! command analysed like `bash -c` when it is written out, and is uncertain
//! otherwise. An option a writer's table does not know is uncertain: it may
//! change what is written.
//!
//! Each program's table says which options take a value ([`Spec`]), then a
//! small function says what the options and operands write or run.

use std::path::Path;

use super::commands::WRITE_COMMANDS;
use super::options::{self, Parsed, Spec};
use super::{Analyzer, Cwds, Item, UncertainKind, WordVal, read_only};

/// Compressors: program, whether it decompresses by default, its suffix.
const COMPRESSORS: &[(&str, bool, &str)] = &[
    ("gzip", false, ".gz"),
    ("gunzip", true, ".gz"),
    ("pigz", false, ".gz"),
    ("unpigz", true, ".gz"),
    ("bzip2", false, ".bz2"),
    ("bunzip2", true, ".bz2"),
    ("pbzip2", false, ".bz2"),
    ("xz", false, ".xz"),
    ("unxz", true, ".xz"),
    ("lzma", false, ".lzma"),
    ("unlzma", true, ".lzma"),
    ("zstd", false, ".zst"),
    ("unzstd", true, ".zst"),
    ("lz4", false, ".lz4"),
    ("unlz4", true, ".lz4"),
    ("lzip", false, ".lz"),
    ("compress", false, ".Z"),
    ("uncompress", true, ".Z"),
    ("brotli", false, ".br"),
];

const SED: Spec = Spec {
    flags: "nrEsuzb",
    with_arg: "efl",
    optional_arg: "i",
    long_flags: &[
        "--quiet",
        "--silent",
        "--regexp-extended",
        "--separate",
        "--unbuffered",
        "--null-data",
        "--zero-terminated",
        "--posix",
        "--sandbox",
        "--debug",
        "--follow-symlinks",
        "--binary",
        "--help",
        "--version",
    ],
    long_with_arg: &["--expression", "--file", "--line-length"],
    long_optional: &["--in-place"],
    posix: false,
    abbreviations: false,
};

const TAR: Spec = Spec {
    flags: "AcdrtuxazjJZvkmOpPsSUWhiGMnwlBoR",
    with_arg: "bCfFgHIKLNTVX",
    optional_arg: "",
    long_flags: &[
        "--append",
        "--concatenate",
        "--catenate",
        "--create",
        "--diff",
        "--compare",
        "--delete",
        "--extract",
        "--get",
        "--list",
        "--update",
        "--test-label",
        "--verbose",
        "--gzip",
        "--gunzip",
        "--ungzip",
        "--bzip2",
        "--xz",
        "--lzma",
        "--lzip",
        "--lzop",
        "--zstd",
        "--compress",
        "--uncompress",
        "--auto-compress",
        "--no-auto-compress",
        "--keep-old-files",
        "--skip-old-files",
        "--overwrite",
        "--overwrite-dir",
        "--no-overwrite-dir",
        "--keep-newer-files",
        "--keep-directory-symlink",
        "--unlink-first",
        "--recursive-unlink",
        "--remove-files",
        "--to-stdout",
        "--absolute-names",
        "--preserve-permissions",
        "--same-permissions",
        "--no-same-permissions",
        "--same-owner",
        "--no-same-owner",
        "--numeric-owner",
        "--preserve-order",
        "--same-order",
        "--sparse",
        "--touch",
        "--dereference",
        "--hard-dereference",
        "--one-file-system",
        "--ignore-zeros",
        "--ignore-failed-read",
        "--wildcards",
        "--no-wildcards",
        "--wildcards-match-slash",
        "--no-wildcards-match-slash",
        "--anchored",
        "--no-anchored",
        "--ignore-case",
        "--no-ignore-case",
        "--recursion",
        "--no-recursion",
        "--null",
        "--no-null",
        "--unquote",
        "--no-unquote",
        "--verbatim-files-from",
        "--no-verbatim-files-from",
        "--exclude-vcs",
        "--exclude-vcs-ignores",
        "--exclude-backups",
        "--exclude-caches",
        "--exclude-caches-all",
        "--exclude-caches-under",
        "--totals",
        "--check-links",
        "--show-defaults",
        "--show-omitted-dirs",
        "--show-transformed-names",
        "--show-stored-names",
        "--utc",
        "--full-time",
        "--interactive",
        "--confirmation",
        "--seek",
        "--no-seek",
        "--multi-volume",
        "--force-local",
        "--delay-directory-restore",
        "--no-delay-directory-restore",
        "--help",
        "--version",
        "--usage",
        "--restrict",
        "--xattrs",
        "--no-xattrs",
        "--acls",
        "--no-acls",
        "--selinux",
        "--no-selinux",
        "--posix",
        "--ignore-command-error",
        "--no-ignore-command-error",
        "--clamp-mtime",
        "--preserve",
        "--incremental",
        "--no-check-device",
        "--check-device",
        "--block-number",
    ],
    long_with_arg: &[
        "--file",
        "--directory",
        "--exclude",
        "--exclude-from",
        "--files-from",
        "--exclude-tag",
        "--exclude-tag-all",
        "--exclude-tag-under",
        "--transform",
        "--xform",
        "--strip-components",
        "--owner",
        "--group",
        "--mode",
        "--mtime",
        "--newer",
        "--after-date",
        "--newer-mtime",
        "--format",
        "--label",
        "--blocking-factor",
        "--record-size",
        "--listed-incremental",
        "--level",
        "--tape-length",
        "--volno-file",
        "--use-compress-program",
        "--to-command",
        "--checkpoint-action",
        "--info-script",
        "--new-volume-script",
        "--rsh-command",
        "--rmt-command",
        "--index-file",
        "--suffix",
        "--quoting-style",
        "--quote-chars",
        "--no-quote-chars",
        "--warning",
        "--sort",
        "--xattrs-include",
        "--xattrs-exclude",
        "--pax-option",
        "--hole-detection",
        "--owner-map",
        "--group-map",
        "--starting-file",
    ],
    long_optional: &[
        "--checkpoint",
        "--backup",
        "--one-top-level",
        "--occurrence",
        "--atime-preserve",
    ],
    posix: false,
    abbreviations: false,
};

/// Options of tar that run a command.
const TAR_RUNS: &[&str] = &[
    "--to-command",
    "--use-compress-program",
    "-I",
    "--info-script",
    "-F",
    "--new-volume-script",
    "--rsh-command",
    "--rmt-command",
];

const CURL: Spec = Spec {
    flags: "0123456aBfgGhiIjJklLMnNOpqRsSvVZ#:",
    with_arg: "AbcCdDeEFHKmoPQrtTuUwxXyYz",
    optional_arg: "",
    long_flags: &[
        "--remote-name",
        "--remote-name-all",
        "--remote-header-name",
        "--create-dirs",
        "--silent",
        "--show-error",
        "--location",
        "--location-trusted",
        "--fail",
        "--fail-with-body",
        "--fail-early",
        "--insecure",
        "--include",
        "--head",
        "--verbose",
        "--compressed",
        "--compressed-ssh",
        "--get",
        "--globoff",
        "--http1.0",
        "--http1.1",
        "--http2",
        "--http2-prior-knowledge",
        "--http3",
        "--http3-only",
        "--ipv4",
        "--ipv6",
        "--no-buffer",
        "--no-keepalive",
        "--no-progress-meter",
        "--no-sessionid",
        "--progress-bar",
        "--raw",
        "--remote-time",
        "--tcp-nodelay",
        "--tr-encoding",
        "--ssl",
        "--ssl-reqd",
        "--tlsv1",
        "--tlsv1.0",
        "--tlsv1.1",
        "--tlsv1.2",
        "--tlsv1.3",
        "--list-only",
        "--append",
        "--basic",
        "--digest",
        "--ntlm",
        "--negotiate",
        "--anyauth",
        "--netrc",
        "--netrc-optional",
        "--junk-session-cookies",
        "--path-as-is",
        "--post301",
        "--post302",
        "--post303",
        "--proxytunnel",
        "--suppress-connect-headers",
        "--styled-output",
        "--no-styled-output",
        "--parallel",
        "--parallel-immediate",
        "--disable",
        "--disallow-username-in-url",
        "--manual",
        "--help",
        "--version",
        "--ignore-content-length",
        "--crlf",
        "--use-ascii",
        "--disable-eprt",
        "--disable-epsv",
        "--ftp-pasv",
        "--ftp-create-dirs",
        "--ssl-allow-beast",
        "--ssl-no-revoke",
        "--cert-status",
        "--false-start",
        "--xattr",
        "--clobber",
        "--no-clobber",
        "--retry-all-errors",
        "--retry-connrefused",
        "--trace-time",
        "--keepalive",
        "--no-keepalive",
        "--tcp-fastopen",
        "--proxy-insecure",
        "--ssl-revoke-best-effort",
        "--no-alpn",
        "--sasl-ir",
        "--http0.9",
        "--ca-native",
        "--skip-existing",
        "--remove-on-error",
    ],
    long_with_arg: &[
        "--output",
        "--output-dir",
        "--dump-header",
        "--cookie-jar",
        "--trace",
        "--trace-ascii",
        "--stderr",
        "--libcurl",
        "--etag-save",
        "--etag-compare",
        "--hsts",
        "--alt-svc",
        "--config",
        "--user-agent",
        "--cookie",
        "--continue-at",
        "--data",
        "--data-raw",
        "--data-binary",
        "--data-ascii",
        "--data-urlencode",
        "--json",
        "--referer",
        "--cert",
        "--cert-type",
        "--key",
        "--key-type",
        "--cacert",
        "--capath",
        "--form",
        "--form-string",
        "--header",
        "--proxy-header",
        "--max-time",
        "--connect-timeout",
        "--retry",
        "--retry-delay",
        "--retry-max-time",
        "--max-redirs",
        "--max-filesize",
        "--range",
        "--upload-file",
        "--user",
        "--proxy-user",
        "--write-out",
        "--proxy",
        "--noproxy",
        "--request",
        "--time-cond",
        "--limit-rate",
        "--speed-limit",
        "--speed-time",
        "--resolve",
        "--connect-to",
        "--interface",
        "--dns-servers",
        "--ciphers",
        "--tls-max",
        "--oauth2-bearer",
        "--url",
        "--url-query",
        "--variable",
        "--expand-url",
        "--aws-sigv4",
        "--pinnedpubkey",
        "--unix-socket",
        "--abstract-unix-socket",
        "--local-port",
        "--keepalive-time",
        "--happy-eyeballs-timeout-ms",
        "--expect100-timeout",
        "--quote",
        "--mail-from",
        "--mail-rcpt",
        "--socks4",
        "--socks4a",
        "--socks5",
        "--socks5-hostname",
        "--preproxy",
        "--proto",
        "--proto-redir",
        "--proto-default",
        "--sasl-authzid",
        "--login-options",
        "--service-name",
        "--ftp-port",
        "--ftp-method",
        "--ftp-account",
        "--delegation",
        "--krb",
        "--engine",
        "--pass",
        "--rate",
        "--parallel-max",
        "--create-file-mode",
        "--doh-url",
        "--tls13-ciphers",
        "--proxy-cacert",
        "--proxy-cert",
        "--proxy-key",
    ],
    long_optional: &[],
    posix: false,
    abbreviations: false,
};

/// curl options whose value is a file it writes.
const CURL_WRITES: &[&str] = &[
    "-o",
    "--output",
    "-D",
    "--dump-header",
    "-c",
    "--cookie-jar",
    "--trace",
    "--trace-ascii",
    "--stderr",
    "--libcurl",
    "--etag-save",
    "--hsts",
    "--alt-svc",
];

const WGET: Spec = Spec {
    flags: "VhbdqvFcNSrkKmpHLExc46",
    with_arg: "oaOPiBtTwQeUlARDIXn",
    optional_arg: "",
    long_flags: &[
        "--version",
        "--help",
        "--background",
        "--debug",
        "--quiet",
        "--verbose",
        "--no-verbose",
        "--force-html",
        "--continue",
        "--timestamping",
        "--no-clobber",
        "--server-response",
        "--spider",
        "--recursive",
        "--convert-links",
        "--backup-converted",
        "--mirror",
        "--page-requisites",
        "--span-hosts",
        "--relative",
        "--no-parent",
        "--adjust-extension",
        "--force-directories",
        "--no-directories",
        "--no-host-directories",
        "--no-check-certificate",
        "--inet4-only",
        "--inet6-only",
        "--content-disposition",
        "--trust-server-names",
        "--no-cookies",
        "--keep-session-cookies",
        "--ignore-case",
        "--no-proxy",
        "--no-cache",
        "--no-dns-cache",
        "--show-progress",
        "--no-if-modified-since",
        "--auth-no-challenge",
        "--https-only",
        "--ignore-length",
        "--delete-after",
        "--protocol-directories",
        "--retry-connrefused",
        "--content-on-error",
        "--no-glob",
        "--no-hsts",
    ],
    long_with_arg: &[
        "--output-document",
        "--output-file",
        "--append-output",
        "--directory-prefix",
        "--input-file",
        "--base",
        "--tries",
        "--timeout",
        "--wait",
        "--quota",
        "--execute",
        "--config",
        "--user-agent",
        "--level",
        "--accept",
        "--reject",
        "--domains",
        "--include-directories",
        "--exclude-directories",
        "--header",
        "--user",
        "--password",
        "--http-user",
        "--http-password",
        "--post-data",
        "--post-file",
        "--method",
        "--body-data",
        "--body-file",
        "--referer",
        "--load-cookies",
        "--save-cookies",
        "--save-headers",
        "--limit-rate",
        "--ca-certificate",
        "--certificate",
        "--private-key",
        "--warc-file",
        "--cut-dirs",
        "--dns-timeout",
        "--connect-timeout",
        "--read-timeout",
        "--waitretry",
        "--bind-address",
        "--restrict-file-names",
        "--local-encoding",
        "--remote-encoding",
        "--progress",
        "--secure-protocol",
        "--max-redirect",
        "--default-page",
    ],
    long_optional: &[],
    posix: false,
    abbreviations: false,
};

const SPLIT: Spec = Spec {
    flags: "dxeu",
    with_arg: "abClnt",
    optional_arg: "",
    long_flags: &[
        "--elide-empty-files",
        "--unbuffered",
        "--verbose",
        "--help",
        "--version",
    ],
    long_with_arg: &[
        "--suffix-length",
        "--additional-suffix",
        "--bytes",
        "--line-bytes",
        "--lines",
        "--number",
        "--separator",
        "--filter",
    ],
    long_optional: &["--numeric-suffixes", "--hex-suffixes"],
    posix: false,
    abbreviations: false,
};

const CSPLIT: Spec = Spec {
    flags: "ksz",
    with_arg: "bfn",
    optional_arg: "",
    long_flags: &[
        "--keep-files",
        "--suppress-matched",
        "--quiet",
        "--silent",
        "--elide-empty-files",
        "--help",
        "--version",
    ],
    long_with_arg: &["--suffix-format", "--prefix", "--digits"],
    long_optional: &[],
    posix: false,
    abbreviations: false,
};

const COMPRESS: Spec = Spec {
    flags: "cdfhklLnNqrtvV0123456789zeFH",
    with_arg: "SToM",
    optional_arg: "",
    long_flags: &[
        "--stdout",
        "--to-stdout",
        "--decompress",
        "--uncompress",
        "--compress",
        "--force",
        "--keep",
        "--list",
        "--no-name",
        "--name",
        "--quiet",
        "--recursive",
        "--test",
        "--verbose",
        "--fast",
        "--best",
        "--rsyncable",
        "--synchronous",
        "--rm",
        "--extreme",
        "--ultra",
        "--help",
        "--version",
        "--no-progress",
        "--progress",
        "--sparse",
        "--no-sparse",
    ],
    long_with_arg: &["--suffix", "--threads", "--format", "--check", "--memlimit"],
    long_optional: &["--long"],
    posix: false,
    abbreviations: false,
};

const UNZIP: Spec = Spec {
    flags: "cflptTuvzabBCDejJKLMnoqsUVWXYZ12",
    with_arg: "dPIO",
    optional_arg: "",
    long_flags: &[],
    long_with_arg: &[],
    long_optional: &[],
    posix: false,
    abbreviations: false,
};

/// rsync's options that take a value.
pub(super) const RSYNC: Spec = Spec {
    with_arg: "eBfMT@",
    long_with_arg: &[
        "--rsh",
        "--rsync-path",
        "--log-file",
        "--write-batch",
        "--only-write-batch",
        "--filter",
        "--exclude",
        "--include",
        "--exclude-from",
        "--include-from",
        "--files-from",
        "--backup-dir",
        "--suffix",
        "--temp-dir",
        "--partial-dir",
        "--compare-dest",
        "--copy-dest",
        "--link-dest",
        "--chmod",
        "--chown",
        "--usermap",
        "--groupmap",
        "--password-file",
        "--port",
        "--timeout",
        "--contimeout",
        "--bwlimit",
        "--max-size",
        "--min-size",
        "--block-size",
        "--compress-choice",
        "--checksum-choice",
        "--info",
        "--debug",
        "--out-format",
        "--log-file-format",
        "--remote-option",
        "--modify-window",
    ],
    flags: "",
    optional_arg: "",
    long_flags: &[],
    long_optional: &[],
    posix: false,
    abbreviations: false,
};

/// Programs that run code from a file they are given (an interpreter's
/// script, a makefile, a debugger's commands).
fn reads_code_from(base: &str) -> bool {
    super::interpreters::is_python(base)
        || super::interpreters::is_other_interpreter(base)
        || matches!(
            base,
            "perl"
                | "make"
                | "gmake"
                | "just"
                | "awk"
                | "gawk"
                | "mawk"
                | "nawk"
                | "gdb"
                | "Rscript"
        )
}

/// A word naming a pipe rather than a file (the command's input, a
/// descriptor, a process substitution): `-` is left to each program, which
/// reads it as its input or not.
fn is_a_pipe(w: &WordVal) -> bool {
    let text = w.literal.as_deref().unwrap_or(&w.raw);
    let text = text
        .split_once('=')
        .map_or(text, |(o, v)| if o.starts_with('-') { v } else { text });
    let text = text
        .strip_prefix("-f")
        .filter(|v| v.starts_with('/'))
        .unwrap_or(text);
    let fd = |rest: &str| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit());
    text == "/dev/stdin"
        || text.strip_prefix("/dev/fd/").is_some_and(fd)
        || text.strip_prefix("/proc/self/fd/").is_some_and(fd)
        || text.strip_prefix("/proc/thread-self/fd/").is_some_and(fd)
        || (w.literal.is_none() && (w.raw.starts_with("<(") || w.raw.contains("=<(")))
}

/// HTTPie's (and xh's) options that take a value: read by the files it
/// reads and writes ([`Analyzer::httpie`]) and by the request items after
/// its URL (`hosts::httpie_items`).
pub(super) const HTTPIE_WITH_VALUE: &[&str] = &[
    "-a",
    "--auth",
    "-A",
    "--auth-type",
    "-o",
    "--output",
    "--session",
    "--session-read-only",
    "--verify",
    "--cert",
    "--cert-key",
    "--cert-key-pass",
    "--proxy",
    "--timeout",
    "-p",
    "--print",
    "-P",
    "--history-print",
    "-s",
    "--style",
    "--pretty",
    "--format-options",
    "--max-redirects",
    "--boundary",
    "--response-charset",
    "--response-mime",
    "--ssl",
    "--ciphers",
    "--default-scheme",
    "--max-headers",
    "--resolve",
    "--interface",
    "--local-port",
    "--unix-socket",
    "--bearer",
];

impl Analyzer {
    /// A program with no rule of its own: emitted, then what its options
    /// and operands write or run.
    pub(super) fn program(&mut self, base: &str, argv: &[WordVal]) {
        // xargs or `find -exec … +` gives it more operands at run time.
        let more = self.open_tail;
        self.emit(argv);
        self.may_change_protected(base, argv);
        // Running a file reads it: the shell runs one with no `#!` itself,
        // and its errors print each line (`./.env: line 1: TOKEN: command
        // not found`), so `./.env` meets `deny Read(./.env)` as `bash .env`
        // does.
        if self.touches
            && let Some(program) = argv.first()
            && program.literal.as_deref().is_some_and(|l| l.contains('/'))
        {
            self.touch(super::Family::Read, program);
        }
        // Before a wrapper script of the project is read (`./gradlew`,
        // `./mvnw`): the program it runs reads these files.
        self.config_hosts(base, argv);
        if self.run_script_file(argv) {
            return;
        }
        self.host_options(base, argv);
        if more {
            self.hosts_at_run_time(base, argv);
        }
        if more && self.touches && WRITE_COMMANDS.contains(&base) {
            self.writes_unknown(
                argv,
                "xargs or find give it more files to change at run time",
            );
        } else if more && self.touches && !super::reads::leaves_alone(base) {
            // `git ls-files | xargs prettier --write`: files named at run
            // time, given to a program that may change them.
            self.uncertain(
                UncertainKind::Touch(super::Family::MaybeEdit),
                &short_text(argv),
                "xargs or find give it files at run time, and it may change them",
            );
        }
        let args = &argv[1..];
        if self.touches && matches!(base, "rm" | "chmod" | "chown" | "chgrp" | "shred") {
            self.recursive_operands(base, args);
        }
        if self.touches && packs_working_directory(base, args) {
            // `npm publish`, `cargo package`: every file of the package,
            // the working directory, goes into an archive or a registry.
            self.touch_inside(&WordVal::literal("."));
        }
        if self.touches && formats_working_directory(base, args) {
            // `cargo fmt`, `ruff check --fix`, `terraform fmt`: the files
            // of the working directory, none of them named.
            self.changes_inside(&WordVal::literal("."));
        }
        if reads_code_from(base) && argv[1..].iter().any(is_a_pipe) {
            // `python3 /dev/stdin`, `perl <(…)`, `make -f /dev/fd/3`: the
            // code comes through a pipe, from text of this command or of
            // the program feeding it, as `python3 -` reads it.
            return self.code_acts(argv, &format!("{base}, reading code from a pipe,"));
        }
        match base {
            "sed" | "gsed" => self.sed(argv, more),
            "sort" => self.sort(argv),
            "tar" | "gtar" | "bsdtar" => self.tar(argv),
            "curl" => self.curl(argv),
            "wget" => self.wget(argv),
            "uniq" => {
                let p = self.read_options(argv, &read_only::UNIQ.spec, true);
                if let Some(out) = p.operands.get(1) {
                    self.writes(out);
                }
            }
            "split" | "csplit" => self.split(argv, base),
            "unzip" => self.unzip(argv),
            "7z" | "7za" | "7zr" | "7zz" => {
                // `7z x|e ARCHIVE [-oDIR]`: files named inside the archive,
                // written in DIR (the working directory without -o).
                // `7z a|u|d|rn ARCHIVE …`: the archive is written.
                if matches!(
                    args.first().and_then(|w| w.literal.as_deref()),
                    Some("a" | "u" | "d" | "rn")
                ) && let Some(archive) = args[1..]
                    .iter()
                    .find(|w| !w.literal.as_deref().is_some_and(|l| l.starts_with('-')))
                {
                    self.writes(&archive.clone());
                }
                // `7z a OUT -i!secrets/key` (`-ir!`, recursive): what the
                // include switch names is read into the archive.
                for w in args {
                    if let Some(l) = w.literal.as_deref()
                        && let Some(path) = l
                            .strip_prefix("-i!")
                            .or_else(|| l.strip_prefix("-ir!"))
                            .or_else(|| l.strip_prefix("-ir0!"))
                            .or_else(|| l.strip_prefix("-ir-!"))
                    {
                        self.touch(super::Family::Read, &WordVal::literal(path));
                    }
                }
                if matches!(
                    args.first().and_then(|w| w.literal.as_deref()),
                    Some("x" | "e")
                ) {
                    let dir = args
                        .iter()
                        .find_map(|w| w.literal.as_deref().and_then(|l| l.strip_prefix("-o")))
                        .unwrap_or(".");
                    self.writes_inside(&WordVal::literal(dir));
                }
            }
            // `jar xf A` / `jar --extract`: the members, in the working
            // directory (or `-C DIR`).
            "jar"
                if args
                    .first()
                    .and_then(|w| w.literal.as_deref())
                    .is_some_and(|op| {
                        op == "--extract"
                            || (!op.starts_with("--") && op.trim_start_matches('-').contains('x'))
                    }) =>
            {
                self.writes_inside(&WordVal::literal(
                    directory_option(args, &["-C"]).unwrap_or("."),
                ));
            }
            // `pax -r` extracts (`-rw` copies, read elsewhere).
            "pax"
                if args.iter().filter_map(|w| w.literal.as_deref()).any(|l| {
                    l.starts_with('-')
                        && !l.starts_with("--")
                        && l.contains('r')
                        && !l.contains('w')
                }) =>
            {
                self.writes_inside(&WordVal::literal("."));
            }
            // Extractors whose every run writes the members: the working
            // directory, or `-o DIR`.
            "unar" | "aunpack" => {
                self.writes_inside(&WordVal::literal(
                    directory_option(args, &["-o", "-X"]).unwrap_or("."),
                ));
            }
            "lha" | "lhasa" | "atool"
                if args
                    .first()
                    .and_then(|w| w.literal.as_deref())
                    .is_some_and(|op| {
                        op.trim_start_matches('-').starts_with(['x', 'e']) || op == "--extract"
                    }) =>
            {
                self.writes_inside(&WordVal::literal("."));
            }
            // `ar x` writes the members it reads in the working directory.
            "ar" if args
                .first()
                .and_then(|w| w.literal.as_deref())
                .is_some_and(|op| op.trim_start_matches('-').starts_with('x')) =>
            {
                self.writes_inside(&WordVal::literal("."));
            }
            "awk" | "gawk" | "mawk" | "nawk" => self.awk(argv, more),
            // The compiler driver runs each of its programs (cc1, as,
            // collect2) as `PROG,ARG…` of `-wrapper` would have it.
            "gcc" | "cc" | "g++" | "c++" | "clang" | "clang++" | "gfortran" => {
                let wrappers: Vec<WordVal> = args
                    .windows(2)
                    .filter(|p| p[0].literal.as_deref() == Some("-wrapper"))
                    .map(|p| match &p[1].literal {
                        Some(l) => WordVal::literal(&l.replace(',', " ")),
                        None => p[1].clone(),
                    })
                    .collect();
                for w in &wrappers {
                    self.runs(argv, Some(w), "the compiler's -wrapper");
                }
            }
            // npm runs a package's scripts as `SHELL -c SCRIPT`.
            "npm" | "pnpm" | "yarn" => {
                let shells: Vec<Option<WordVal>> = args
                    .iter()
                    .enumerate()
                    .filter_map(|(k, w)| match w.literal.as_deref() {
                        Some("--script-shell") => Some(args.get(k + 1).cloned()),
                        Some(l) => l
                            .strip_prefix("--script-shell=")
                            .map(|v| Some(WordVal::literal(v))),
                        None => None,
                    })
                    .collect();
                for s in &shells {
                    self.runs(argv, s.as_ref(), "npm's --script-shell");
                }
                if base == "npm" {
                    self.npm_runs(argv);
                }
            }
            "perl" => self.perl(argv, more),
            "yq" => {
                // `yq -i EXPR FILE…` rewrites its files.
                let inplace = args.iter().any(|w| {
                    w.literal.as_deref().is_some_and(|l| {
                        l == "--inplace"
                            || l.starts_with("--inplace=")
                            || (l.starts_with('-')
                                && !l.starts_with("--")
                                && l[1..].chars().all(|c| "iPCMNenr0".contains(c))
                                && l.contains('i'))
                    })
                });
                if inplace {
                    let p = options::parse(
                        args,
                        &Spec {
                            with_arg: "opIs",
                            long_with_arg: &[
                                "--output-format",
                                "--input-format",
                                "--indent",
                                "--split-exp",
                                "--expression",
                                "--from-file",
                            ],
                            ..Spec::default()
                        },
                    );
                    let files = p.operands.get(1..).unwrap_or(&[]).to_vec();
                    self.writes_all(argv, &files, more);
                }
            }
            "expect" => self.expect(argv),
            b if super::interpreters::is_python(b) => self.python(argv),
            "make" | "gmake" => self.make(argv),
            b if super::interpreters::is_other_interpreter(b) => self.other_interpreter(b, argv),
            "sponge" | "dos2unix" | "unix2dos" | "mac2unix" | "unix2mac" => {
                let p = options::parse(args, &Spec::default());
                self.writes_all(argv, &p.operands, more);
            }
            "iconv" | "gpg" | "gpg2" | "pandoc" => {
                let p = options::parse(
                    args,
                    &Spec {
                        with_arg: "o",
                        long_with_arg: &["--output"],
                        ..Spec::default()
                    },
                );
                for v in p.values(&["-o", "--output"]).collect::<Vec<_>>() {
                    self.writes_value(argv, v);
                }
                if matches!(base, "gpg" | "gpg2") && !p.has(&["-o", "--output"]) {
                    self.gpg_files(argv, &p);
                }
            }
            "openssl" => {
                self.openssl_hosts(argv);
                for (k, w) in args.iter().enumerate() {
                    if matches!(w.literal.as_deref(), Some("-out" | "-keyout")) {
                        self.writes_value(argv, args.get(k + 1));
                    }
                }
            }
            "xxd" => {
                let operands: Vec<&WordVal> = args
                    .iter()
                    .enumerate()
                    .filter(|(k, w)| {
                        let after_value = *k > 0
                            && matches!(
                                args[k - 1].literal.as_deref(),
                                Some("-c" | "-g" | "-l" | "-o" | "-s" | "-n" | "-cols" | "-len")
                            );
                        !after_value && !w.literal.as_deref().is_some_and(|l| l.starts_with('-'))
                    })
                    .map(|(_, w)| w)
                    .collect();
                if let Some(out) = operands.get(1) {
                    self.writes(out);
                }
            }
            "strace" | "ltrace" | "tcpdump" => self.output_option(argv, base),
            "script" => self.script_command(argv),
            "zip" => self.zip(argv),
            "cpio" => self.cpio(argv),
            b if super::database_clients::is_client(b) => self.database_client(b, argv),
            // `pax -w` with no file named archives those its input names.
            "pax" => {
                let p = options::parse(
                    args,
                    &Spec {
                        with_arg: "fsxbopT",
                        ..Spec::default()
                    },
                );
                if p.has(&["-w"]) && p.operands.is_empty() {
                    self.reads_listed_files(argv, "pax -w");
                }
                if p.has(&["-r"]) && p.has(&["-w"]) && p.has(&["-l"]) {
                    self.pax_links(argv, &p.operands);
                }
                for v in p.values(&["-f"]).collect::<Vec<_>>() {
                    if p.has(&["-w"]) {
                        self.writes_value(argv, v);
                    }
                }
            }
            "scp" => self.scp(argv),
            "rsync" => self.rsync(argv),
            "ssh" | "sftp" => self.ssh(argv, base),
            // `autossh [-M PORT] [-f] SSH-ARGS`: ssh, run again and again.
            "autossh" => {
                let mut words = vec![WordVal::literal("ssh")];
                let mut rest = args.iter();
                while let Some(w) = rest.next() {
                    match w.literal.as_deref() {
                        Some("-M") => {
                            rest.next();
                        }
                        Some(l) if l.starts_with("-M") || l == "-f" || l == "-V" => {}
                        _ => words.push(w.clone()),
                    }
                }
                self.ssh(&words, "ssh");
            }
            "ssh-copy-id" => self.ssh_copy_id(argv),
            "mosh" => self.mosh(argv),
            b if super::hosts::takes_host_operands(b) => {
                self.host_operands(b, argv);
                self.host_client_commands(b, argv);
            }
            "less" => self.less(argv),
            "rg" => self.ripgrep(argv),
            "man" => {
                let p = options::parse(
                    args,
                    &Spec {
                        with_arg: "PCMSemLp",
                        optional_arg: "H",
                        long_with_arg: &["--pager", "--config-file", "--manpath"],
                        long_optional: &["--html"],
                        ..Spec::default()
                    },
                );
                for (name, v) in [("-P", "--pager"), ("-H", "--html")] {
                    for value in p.values(&[name, v]).collect::<Vec<_>>() {
                        if value.is_some() || name == "-P" {
                            self.runs(argv, value, "man's pager or browser");
                        }
                    }
                }
                if p.has(&["-C", "--config-file"]) {
                    self.runs_unwritten(
                        argv,
                        "man reads a configuration file that names programs to run",
                    );
                }
                if p.dynamic {
                    self.may_run(
                        argv,
                        "an option computed at run time may be -P or -H, which run a program",
                    );
                }
            }
            "vi" | "vim" | "nvim" | "view" | "ex" | "vimdiff" | "gvim" | "rvim" | "nvi"
            | "vimx" | "gview" | "rview" | "evim" => self.vim(base, argv),
            "apt" | "apt-get" | "apt-cache" | "apt-mark" | "apt-config" | "aptitude" => {
                self.apt(argv);
            }
            "dpkg" => self.dpkg(argv),
            // Readers that write where an option says.
            "shuf" | "sdiff" | "tree" | "info" => {
                let (with_arg, long_with_arg): (&str, &[&str]) = match base {
                    "shuf" => (
                        "nio",
                        &[
                            "--head-count",
                            "--input-range",
                            "--output",
                            "--random-source",
                        ],
                    ),
                    "sdiff" => (
                        "wo",
                        &["--width", "--output", "--diff-program", "--tabsize"],
                    ),
                    "tree" => (
                        "LPIo",
                        &[
                            "--filelimit",
                            "--timefmt",
                            "--charset",
                            "--sort",
                            "--hintro",
                            "--houtro",
                        ],
                    ),
                    _ => (
                        "dfnoO",
                        &[
                            "--directory",
                            "--file",
                            "--node",
                            "--output",
                            "--dribble",
                            "--restore",
                        ],
                    ),
                };
                let p = options::parse(
                    args,
                    &Spec {
                        with_arg,
                        long_with_arg,
                        ..Spec::default()
                    },
                );
                // info's `--dribble FILE` records the keys typed in FILE;
                // `--restore FILE` replays them.
                let written: &[&str] = if base == "info" {
                    &["-o", "--output", "--dribble"]
                } else {
                    &["-o", "--output"]
                };
                for v in p.values(written).collect::<Vec<_>>() {
                    self.writes_value(argv, v);
                }
                if base == "info" && self.touches {
                    for v in p
                        .values(&["--restore", "-f", "--file", "-d", "--directory"])
                        .flatten()
                        .collect::<Vec<_>>()
                    {
                        self.touch(super::Family::Read, v);
                    }
                }
                if base == "sdiff" {
                    for v in p.values(&["--diff-program"]).collect::<Vec<_>>() {
                        self.runs(argv, v, "sdiff --diff-program");
                    }
                }
                if base == "shuf" {
                    for v in p.values(&["--random-source"]).flatten().collect::<Vec<_>>() {
                        self.touch(super::Family::Read, v);
                    }
                }
            }
            "docker" | "podman" | "docker-compose" | "podman-compose" | "buildah" => {
                self.registry_hosts(args);
                self.container_tool(base, args)
            }
            "socat" => self.socat(argv),
            "fd" | "fdfind" => self.fd_exec(argv),
            // `gh api -F key=@FILE`, `--input FILE`; `vault kv put p @FILE`,
            // `key=@FILE`: what the file holds is sent.
            "gh" if lits_have(args, "api") => {
                let p = options::parse(
                    args,
                    &Spec {
                        with_arg: "FfHXpqt",
                        long_with_arg: &[
                            "--field",
                            "--raw-field",
                            "--header",
                            "--method",
                            "--preview",
                            "--jq",
                            "--template",
                            "--input",
                            "--hostname",
                            "--cache",
                        ],
                        ..Spec::default()
                    },
                );
                let fields = p.values(&["-F", "--field"]).flatten();
                let fields = fields.filter_map(|v| {
                    let (_, f) = v.literal.as_deref()?.split_once("=@")?;
                    Some(WordVal::literal(f))
                });
                let inputs = p.values(&["--input"]).flatten().cloned();
                let files: Vec<WordVal> = fields.chain(inputs).collect();
                for f in files
                    .iter()
                    .filter(|f| !matches!(f.literal.as_deref(), Some("" | "-")))
                {
                    self.touch(super::Family::Read, f);
                }
            }
            "vault" => {
                for w in args {
                    let Some(l) = w.literal.as_deref() else {
                        continue;
                    };
                    let file = l
                        .strip_prefix('@')
                        .or_else(|| l.split_once("=@").map(|(_, f)| f));
                    if let Some(f) = file.filter(|f| !f.is_empty() && *f != "-") {
                        self.touch(super::Family::Read, &WordVal::literal(f));
                    }
                }
            }
            "http" | "https" | "xh" | "xhs" => self.httpie(argv),
            "nc" | "ncat" | "netcat" => {
                let p = options::parse(args, &super::hosts::NETCAT);
                if let Some(host) = p.operands.first() {
                    self.reaches(host);
                }
                for v in p
                    .values(&["-e", "-c", "--exec", "--sh-exec", "--lua-exec"])
                    .collect::<Vec<_>>()
                {
                    self.runs(argv, v, "netcat's -e or -c");
                }
            }
            "patch" => self.patch(argv),
            b => {
                if let Some(&(_, decompress, suffix)) =
                    COMPRESSORS.iter().find(|(name, ..)| *name == b)
                {
                    self.compressor(argv, decompress, suffix, more);
                } else if !super::reads::leaves_alone(b) && !WRITE_COMMANDS.contains(&b) {
                    self.guess_runs(argv);
                }
            }
        }
    }

    // ---- what the checks emit ----

    /// A program not known to leave the files it is given alone may write
    /// any of them (`objcopy … .git/config`, `gcc -o .git/hooks/pre-commit`,
    /// `pip install --target .git`): a protected one among its operands,
    /// its `--opt=PATH` values and its attached short values (`-o.git/x`)
    /// meets the protected paths as a write would, whatever the rules.
    /// With path rules the operands and `--opt=` values are already
    /// checked as maybe changed (the safeguard sees those too); only names
    /// protected wherever they are count here, which keeps a program with
    /// many operands from filling the command's items.
    pub(super) fn may_change_protected(&mut self, base: &str, argv: &[WordVal]) {
        if super::commands::WRITE_COMMANDS.contains(&base)
            || super::reads::leaves_alone(base)
            || super::reads::is_editor(base)
        {
            return;
        }
        let mut options_done = false;
        let mut candidates: Vec<String> = Vec::new();
        for w in argv.iter().skip(1) {
            let Some(lit) = w.literal.as_deref() else {
                continue;
            };
            if !options_done && lit == "--" {
                options_done = true;
                continue;
            }
            let (value, attached) = if !options_done && lit.starts_with('-') && lit.len() > 1 {
                if let Some((_, v)) = lit.split_once('=') {
                    // `--out=F` (seen by the Edit rules too), `-o=F` (Go).
                    (v, !lit.starts_with("--"))
                } else if lit.starts_with("--") {
                    continue;
                } else {
                    // `-o.git/x`: a value only when it looks like a path.
                    let Some(v) = lit.get(2..) else {
                        continue;
                    };
                    if !(v.contains('/') || v.starts_with('.')) {
                        continue;
                    }
                    (v, true)
                }
            } else {
                (lit, false)
            };
            if (attached || !self.touches)
                && !value.is_empty()
                && !value.contains("://")
                && !super::is_exempt_device(value)
            {
                candidates.push(value.to_owned());
            }
        }
        for c in candidates {
            let Ok(paths) = self.resolve_word_path(&c, c.starts_with('~'), false) else {
                continue;
            };
            for path in paths {
                let named = crate::safeguard::protected(&path.lexical)
                    .or_else(|| crate::safeguard::protected(&path.canonical));
                if named.is_some() {
                    self.push(Item::Written {
                        written: c.clone(),
                        path,
                    });
                }
            }
        }
    }

    /// A file written: an edit (must be allowed).
    pub(super) fn writes(&mut self, w: &WordVal) {
        if w.literal.as_deref() == Some("-") {
            return; // standard output
        }
        self.edit_target(w);
    }

    /// The value of an option that names a file written.
    pub(super) fn writes_value(&mut self, argv: &[WordVal], v: Option<&WordVal>) {
        match v {
            Some(w) => self.writes(w),
            None => {
                self.writes_unknown(argv, "an option that names the file it writes has no value")
            }
        }
    }

    /// Each file operand written, and the ones still to come.
    fn writes_all(&mut self, argv: &[WordVal], files: &[WordVal], more: bool) {
        for f in files {
            self.writes(f);
        }
        if more {
            self.writes_unknown(
                argv,
                "it also writes the files xargs or find give it at run time",
            );
        }
    }

    /// Files of names known only at run time written inside `dir`.
    pub(super) fn writes_inside(&mut self, dir: &WordVal) {
        self.inside(dir, false);
    }

    /// Files inside `dir` changed by a command whose Bash rule speaks for
    /// them (`rm -r`, `git checkout`): only Edit deny and ask rules count.
    pub(super) fn changes_inside(&mut self, dir: &WordVal) {
        self.inside(dir, true);
    }

    fn inside(&mut self, dir: &WordVal, restrict_only: bool) {
        if self.is_full() {
            return;
        }
        let Some(lit) = &dir.literal else {
            let raw = dir.raw.clone();
            return self.uncertain(
                UncertainKind::Edit,
                &raw,
                "the directory it writes into is computed at run time",
            );
        };
        match self.resolve_word_path(lit, dir.tilde, dir.glob) {
            Ok(paths) => {
                for path in paths {
                    if self.is_relinked(&path) {
                        self.uncertain(
                            UncertainKind::Edit,
                            lit,
                            "an earlier command may have replaced part of this path by a link",
                        );
                    } else {
                        self.push(Item::EditInside {
                            written: lit.clone(),
                            path,
                            restrict_only,
                        });
                    }
                }
            }
            Err(reason) => self.uncertain(UncertainKind::Edit, lit, reason),
        }
    }

    /// Files written where the current directory is.
    fn writes_here(&mut self) {
        self.writes_inside(&WordVal::literal("."));
    }

    pub(super) fn writes_unknown(&mut self, argv: &[WordVal], reason: &str) {
        self.uncertain(UncertainKind::Edit, &short_text(argv), reason);
    }

    /// A program's code reads files it names only at run time: Read deny
    /// and ask rules cannot be checked against them.
    fn reads_unknown(&mut self, argv: &[WordVal], reason: &str) {
        self.uncertain(
            UncertainKind::Touch(super::Family::Read),
            &short_text(argv),
            reason,
        );
    }

    /// A command run by an option: analysed when written out (with the
    /// arguments the program adds), uncertain otherwise.
    fn runs(&mut self, argv: &[WordVal], value: Option<&WordVal>, what: &str) {
        match value.and_then(|v| v.literal.clone()) {
            Some(script) if !script.trim().is_empty() => {
                self.option_script(argv, &format!("{script} \"$@\""));
            }
            _ => self.may_run(
                argv,
                &format!("{what} runs a command that is not written here"),
            ),
        }
    }

    /// The command lines npm runs besides its scripts: `--call`/`-c`
    /// written before the subcommand (`npm -c 'CMD' exec`), the programs
    /// `--editor`, `--shell` and `--browser` name, and `npm explore PKG --
    /// CMD…`, run through a shell in the package's directory.
    fn npm_runs(&mut self, argv: &[WordVal]) {
        let args = &argv[1..];
        let mut k = 0;
        let mut command = None;
        while let Some(w) = args.get(k) {
            let Some(l) = w.literal.as_deref() else {
                k += 1;
                continue;
            };
            if l == "--" {
                break;
            }
            if !(l.starts_with('-') && l.len() > 1) {
                if command.is_none() {
                    command = Some(k);
                }
                k += 1;
                continue;
            }
            let (name, attached) = match l.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v)),
                _ => (l, None),
            };
            let value = attached
                .map(WordVal::literal)
                .or_else(|| args.get(k + 1).cloned());
            match name {
                "-c" | "--call" => match value.as_ref().and_then(|v| v.literal.clone()) {
                    Some(script) => self.nested_script(argv, &script),
                    None => self.may_run(argv, "npm's --call runs a command not written here"),
                },
                "--editor" | "--shell" | "--browser" => {
                    self.runs(argv, value.as_ref(), &format!("npm's {name}"));
                }
                _ => {}
            }
            let takes = attached.is_none() && crate::spelling::npm_option_takes_value(name);
            k += if takes { 2 } else { 1 };
        }
        let Some(at) = command else { return };
        let sub = args[at].literal.as_deref();
        if matches!(sub, Some("pkg" | "set-script")) {
            return self.npm_scripts_set(argv, &args[at..]);
        }
        let explore = sub.and_then(crate::spelling::npm_command) == Some("explore");
        if !explore {
            return;
        }
        // The package, then the command line (after a `--`, if any).
        let Some(package) = args[at + 1..].iter().position(|w| {
            !w.literal
                .as_deref()
                .is_some_and(|l| l.starts_with('-') && l.len() > 1)
        }) else {
            return self.may_run(argv, "npm explore runs a shell");
        };
        let mut rest = &args[at + 1 + package + 1..];
        if rest.first().and_then(|w| w.literal.as_deref()) == Some("--") {
            rest = &rest[1..];
        }
        if rest.is_empty() {
            return self.may_run(argv, "npm explore runs an interactive shell");
        }
        let words: Option<Vec<String>> = rest.iter().map(|w| w.literal.clone()).collect();
        match words {
            Some(words) => self.nested_script(argv, &words.join(" ")),
            None => self.may_run(argv, "npm explore runs a command line computed at run time"),
        }
    }

    /// `npm pkg set scripts.x='CMD'`, `npm set-script x CMD`: a script
    /// written into package.json, which `npm run x` (or the lifecycle it is
    /// named for) runs, as a git alias is read where it is set. `words`
    /// start at the subcommand.
    fn npm_scripts_set(&mut self, argv: &[WordVal], words: &[WordVal]) {
        let operands: Vec<&WordVal> = words[1..]
            .iter()
            .filter(|w| !w.literal.as_deref().is_some_and(|l| l.starts_with('-')))
            .collect();
        let scripts: Vec<Option<String>> = if words[0].literal.as_deref() == Some("set-script") {
            operands
                .get(1)
                .map(|w| w.literal.clone())
                .into_iter()
                .collect()
        } else if operands.first().and_then(|w| w.literal.as_deref()) == Some("set") {
            operands[1..]
                .iter()
                .filter_map(|w| match w.literal.as_deref() {
                    None => Some(None),
                    Some(l) => {
                        let (key, value) = l.split_once('=')?;
                        key.starts_with("scripts").then(|| Some(value.to_owned()))
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        for script in scripts {
            match script {
                Some(s) => self.nested_script(argv, &s),
                None => self.may_run(argv, "npm writes a script computed at run time"),
            }
        }
    }

    /// `socat [options] ADDRESS ADDRESS`: an `EXEC:` or `SYSTEM:` address
    /// runs its command (checked as a command line); `OPEN:`, `GOPEN:`,
    /// `CREATE:`, `PIPE:`, `UNIX-…:` or a bare path read and write a file.
    fn socat(&mut self, argv: &[WordVal]) {
        let addresses: Vec<WordVal> = argv[1..]
            .iter()
            .filter(|w| {
                !w.literal
                    .as_deref()
                    .is_some_and(|l| l.starts_with('-') && l.len() > 1)
            })
            .cloned()
            .collect();
        self.socat_hosts(&addresses);
        let mut addresses = 0;
        for w in &argv[1..] {
            let Some(l) = w.literal.as_deref() else {
                if addresses < 2 {
                    self.may_run(argv, "an address computed at run time may run a program");
                    self.uncertain(
                        UncertainKind::Touch(super::Family::Read),
                        &w.raw,
                        "an address computed at run time may name a file",
                    );
                }
                addresses += 1;
                continue;
            };
            if l.starts_with('-') && l.len() > 1 && addresses == 0 {
                continue;
            }
            addresses += 1;
            let (kind, rest) = match l.split_once([':', ',']) {
                Some((k, r)) if l.as_bytes()[k.len()] == b':' => (k.to_ascii_uppercase(), r),
                _ => (String::new(), l),
            };
            match kind.as_str() {
                "EXEC" | "SYSTEM" => {
                    let command = WordVal::literal(rest);
                    self.runs(argv, Some(&command), "socat's EXEC or SYSTEM address");
                }
                "OPEN" | "GOPEN" | "CREATE" | "CREAT" | "PIPE" | "UNIX-CONNECT" | "UNIX-LISTEN"
                | "UNIX-SENDTO" | "UNIX-RECV" | "UNIX-RECVFROM" | "UNIX-CLIENT" | "UNIX" => {
                    self.socat_file(rest)
                }
                // `socat - ./file`: a path is GOPEN.
                "" if l.contains('/') => self.socat_file(l),
                _ => {}
            }
        }
    }

    /// HTTPie and xh: `http [METHOD] URL [ITEM…]`. An item whose separator
    /// ends in `@` (`field@file` uploads it, `field=@file` and
    /// `field:=@file` send what it holds, `Header:@file`, `@file` the body)
    /// reads a file; `-o FILE` writes one; `--session FILE` reads and
    /// writes one; the certificate options read theirs.
    fn httpie(&mut self, argv: &[WordVal]) {
        const WITH_VALUE: &[&str] = HTTPIE_WITH_VALUE;
        let args = &argv[1..];
        let mut i = 0;
        let mut operands = 0;
        while let Some(w) = args.get(i) {
            i += 1;
            let Some(l) = w.literal.as_deref() else {
                operands += 1;
                if operands == 1 {
                    // The URL (or a method), known only at run time.
                    self.reaches(w);
                }
                continue;
            };
            if l.starts_with('-') && l.len() > 1 {
                let (name, attached) = match l.split_once('=') {
                    Some((n, v)) if n.starts_with("--") => (n, Some(WordVal::literal(v))),
                    _ => (l, None),
                };
                if !WITH_VALUE.contains(&name) {
                    continue;
                }
                let value = attached.or_else(|| {
                    i += 1;
                    args.get(i - 1).cloned()
                });
                let Some(value) = value else { continue };
                match name {
                    "-o" | "--output" => self.writes(&value),
                    // A session's name, or its file's path.
                    "--session"
                        if value
                            .literal
                            .as_deref()
                            .is_some_and(|v| v.contains('/') || v.contains('.')) =>
                    {
                        self.touch(super::Family::Read, &value);
                        self.touch(super::Family::MaybeEdit, &value);
                    }
                    "--session-read-only" | "--cert" | "--cert-key" => {
                        self.touch(super::Family::Read, &value)
                    }
                    _ => {}
                }
                continue;
            }
            operands += 1;
            // A method (`POST`), then the URL, then the items.
            let is_method =
                operands == 1 && !l.is_empty() && l.chars().all(|c| c.is_ascii_uppercase());
            if is_method {
                operands = 0;
                continue;
            }
            if operands == 1 {
                self.reaches(w);
                continue;
            }
            if let Some(file) = httpie_item_file(l) {
                self.touch(super::Family::Read, &WordVal::literal(file));
            }
        }
    }

    /// `docker build [DIR]` sends everything under DIR (the build's
    /// context) to the daemon, where a `COPY` can put it in an image;
    /// `docker compose` reads `.env` of its project directory (or its
    /// `--env-file`s) into the services' configuration, which `docker
    /// compose config` prints, and its compose files, which say what runs
    /// and what is mounted (code not written here).
    fn container_tool(&mut self, base: &str, args: &[WordVal]) {
        let lits: Vec<Option<&str>> = args.iter().map(|w| w.literal.as_deref()).collect();
        let compose = base.ends_with("-compose") || lits.first() == Some(&Some("compose"));
        let build = !compose
            && (matches!(lits.first(), Some(Some("build" | "bud")))
                || (lits.first() == Some(&Some("buildx"))
                    && matches!(lits.get(1), Some(Some("build" | "b")))));
        if compose {
            let from = usize::from(!base.ends_with("-compose"));
            let p = options::parse(
                &args[from..],
                &Spec {
                    with_arg: "fp",
                    long_with_arg: &[
                        "--file",
                        "--project-name",
                        "--project-directory",
                        "--env-file",
                        "--profile",
                        "--ansi",
                        "--parallel",
                        "--progress",
                    ],
                    posix: true,
                    abbreviations: false,
                    ..Spec::default()
                },
            );
            let sub = p.operands.first().and_then(|w| w.literal.as_deref());
            // Listing what runs prints nothing of the configuration.
            if matches!(
                sub,
                Some("ps" | "ls" | "version" | "images" | "top" | "port" | "logs")
            ) {
                return;
            }
            let env_files: Vec<WordVal> = p.values(&["--env-file"]).flatten().cloned().collect();
            if env_files.is_empty() {
                let dir = p
                    .values(&["--project-directory"])
                    .flatten()
                    .last()
                    .and_then(|d| d.literal.clone())
                    .unwrap_or_else(|| ".".into());
                self.touch(
                    super::Family::Read,
                    &WordVal::literal(&format!("{dir}/.env")),
                );
            }
            for f in env_files
                .iter()
                .chain(p.values(&["-f", "--file"]).flatten())
            {
                self.touch(super::Family::Read, f);
            }
            // What starts services runs what the compose file says, with
            // its mounts; what pulls, builds (in the daemon, as `docker
            // build`), stops or removes them does not.
            if !matches!(
                sub,
                Some(
                    "config"
                        | "pull"
                        | "push"
                        | "build"
                        | "stop"
                        | "down"
                        | "rm"
                        | "kill"
                        | "pause"
                        | "unpause"
                        | "events"
                        | "wait"
                )
            ) {
                let text = short_text(args);
                self.uncertain(
                    UncertainKind::Opaque,
                    &text,
                    "docker compose runs the services its compose file defines, with what it mounts",
                );
            }
        } else if build {
            let from = if lits.first() == Some(&Some("buildx")) {
                2
            } else {
                1
            };
            let p = options::parse(
                &args[from..],
                &Spec {
                    with_arg: "ft",
                    long_with_arg: &[
                        "--file",
                        "--tag",
                        "--build-arg",
                        "--target",
                        "--platform",
                        "--label",
                        "--network",
                        "--secret",
                        "--ssh",
                        "--cache-from",
                        "--cache-to",
                        "--output",
                        "--progress",
                        "--iidfile",
                        "--build-context",
                        "--add-host",
                        "--shm-size",
                        "--ulimit",
                        "--memory",
                        "--cgroup-parent",
                        "--isolation",
                        "--builder",
                        "--attest",
                        "--annotation",
                        "--metadata-file",
                    ],
                    ..Spec::default()
                },
            );
            for f in p.values(&["-f", "--file"]).flatten().collect::<Vec<_>>() {
                self.touch(super::Family::Read, f);
            }
            for secret in p.values(&["--secret"]).flatten().collect::<Vec<_>>() {
                // `--secret id=x,src=FILE`
                if let Some(l) = secret.literal.as_deref() {
                    for field in l.split(',') {
                        if let Some(("src" | "source", f)) = field.split_once('=') {
                            self.touch(super::Family::Read, &WordVal::literal(f));
                        }
                    }
                }
            }
            if let Some(dir) = p.operands.first()
                && !dir
                    .literal
                    .as_deref()
                    .is_some_and(|d| d == "-" || d.contains("://"))
            {
                self.touch_inside(dir);
            }
        }
    }

    /// `fd [OPTIONS] [PATTERN] [PATH…] -x|-X CMD…`: the command runs with
    /// the files found under the paths (`.` when none), as `find -exec`.
    fn fd_exec(&mut self, argv: &[WordVal]) {
        const WITH_VALUE: &[&str] = &[
            "-e",
            "--extension",
            "-t",
            "--type",
            "-d",
            "--max-depth",
            "--min-depth",
            "--exact-depth",
            "-E",
            "--exclude",
            "-S",
            "--size",
            "--changed-within",
            "--changed-before",
            "--change-newer-than",
            "--change-older-than",
            "--newer",
            "--older",
            "-o",
            "--owner",
            "-j",
            "--threads",
            "--max-results",
            "-c",
            "--color",
            "--base-directory",
            "--search-path",
            "--path-separator",
            "--ignore-file",
            "--format",
            "--batch-size",
            "--max-buffer-time",
            "--hyperlink",
        ];
        let args = &argv[1..];
        let Some(k) = args.iter().position(|w| {
            matches!(
                w.literal.as_deref(),
                Some("-x" | "--exec" | "-X" | "--exec-batch")
            )
        }) else {
            return;
        };
        let mut positionals = Vec::new();
        let mut roots = Vec::new();
        let mut i = 0;
        while i < k {
            let w = &args[i];
            i += 1;
            match w.literal.as_deref() {
                Some(l) if l.starts_with('-') && l.len() > 1 => {
                    let (name, attached) = match l.split_once('=') {
                        Some((n, v)) if n.starts_with("--") => (n, Some(v)),
                        _ => (l, None),
                    };
                    if WITH_VALUE.contains(&name) {
                        let value = match attached {
                            Some(v) => Some(WordVal::literal(v)),
                            None => {
                                i += 1;
                                args.get(i - 1).cloned()
                            }
                        };
                        if matches!(name, "--search-path" | "--base-directory") {
                            roots.extend(value);
                        }
                    }
                }
                _ => positionals.push(w.clone()),
            }
        }
        roots.extend(positionals.into_iter().skip(1));
        if roots.is_empty() {
            roots.push(WordVal::literal("."));
        }
        let end = args[k + 1..]
            .iter()
            .position(|w| w.literal.as_deref() == Some(";"))
            .map_or(args.len(), |e| k + 1 + e);
        let mut inner: Vec<WordVal> = args[k + 1..end].to_vec();
        if inner.is_empty() {
            return;
        }
        let mut placeholder = false;
        for w in &mut inner {
            if w.raw.contains('{') && w.raw.contains('}') {
                w.literal = None;
                placeholder = true;
            }
        }
        if !placeholder {
            // fd puts the path last.
            inner.push(WordVal {
                raw: "{}".into(),
                literal: None,
                ..WordVal::literal("{}")
            });
        }
        let saved_roots = self.find_roots.replace(roots);
        self.outer.push(self.text(argv));
        self.argv(inner);
        self.outer.pop();
        self.find_roots = saved_roots;
    }

    fn socat_file(&mut self, param: &str) {
        let path = param.split(',').next().unwrap_or_default();
        if path.is_empty() {
            return;
        }
        let w = WordVal::literal(path);
        self.touch(super::Family::Read, &w);
        self.touch(super::Family::MaybeEdit, &w);
    }

    pub(super) fn may_run(&mut self, argv: &[WordVal], reason: &str) {
        self.uncertain(UncertainKind::Command, &short_text(argv), reason);
    }

    /// Code not written here (see [`UncertainKind::Opaque`]).
    pub(super) fn runs_unwritten(&mut self, argv: &[WordVal], reason: &str) {
        self.uncertain(UncertainKind::Opaque, &short_text(argv), reason);
    }

    /// Read the options of a writer; options it does not know may change
    /// what it writes.
    fn read_options(&mut self, argv: &[WordVal], spec: &Spec, writes: bool) -> Parsed {
        let p = options::parse(&argv[1..], spec);
        if writes && let Some(opt) = p.unknown.first() {
            let name = argv.first().map(|w| w.raw.clone()).unwrap_or_default();
            self.writes_unknown(
                argv,
                &format!("unknown option `{opt}` of `{name}`: cannot tell what it writes"),
            );
        } else if writes && p.dynamic {
            self.writes_unknown(
                argv,
                "an option computed at run time may change what it writes",
            );
        }
        p
    }

    /// `rm -r dir`, `chmod -R … dir`: everything inside each directory
    /// operand is changed.
    fn recursive_operands(&mut self, base: &str, args: &[WordVal]) {
        let recursive = args.iter().any(|w| {
            w.literal.as_deref().is_some_and(|l| {
                l == "--recursive"
                    || (l.starts_with('-')
                        && !l.starts_with("--")
                        && (l.contains('R') || (base == "rm" && l.contains('r'))))
            })
        });
        if !recursive {
            return;
        }
        let mut mode_given = matches!(base, "rm" | "shred");
        let mut options_done = false;
        for w in args {
            match w.literal.as_deref() {
                Some("--") if !options_done => options_done = true,
                Some(l) if !options_done && l.starts_with('-') && l.len() > 1 => {
                    mode_given |= l.starts_with("--reference");
                }
                Some(_) if !mode_given => mode_given = true, // chmod's mode, chown's owner
                Some(_) => {
                    let w = w.clone();
                    self.changes_inside(&w);
                }
                None => {}
            }
        }
    }

    // ---- the programs ----

    /// apt and its kin: `-o NAME=VALUE` (`-oNAME=VALUE`, `--option`) sets a
    /// configuration item, and some items are commands apt hands to `sh
    /// -c` (`APT::Update::Pre-Invoke`, `DPkg::Pre-Invoke`,
    /// `DPkg::Post-Invoke`, `DPkg::Pre-Install-Pkgs`, …: analysed as
    /// command lines), programs it runs (`Dir::Bin::dpkg`,
    /// `Acquire::http::Proxy-Auto-Detect`), options it gives dpkg
    /// (`DPkg::Options::=--pre-invoke=CMD`) or where it reads more
    /// configuration (`Dir::Etc…`, `Dir`). `-c FILE` reads a configuration
    /// file, which may hold such hooks: code not written here.
    fn apt(&mut self, argv: &[WordVal]) {
        let mut i = 1;
        while let Some(w) = argv.get(i) {
            i += 1;
            let Some(l) = w.literal.as_deref() else {
                if super::options::could_be_option(&w.raw) {
                    self.may_run(
                        argv,
                        "an option computed at run time may set a hook apt runs",
                    );
                }
                continue;
            };
            let next = |i: &mut usize| {
                let v = argv.get(*i).cloned();
                *i += 1;
                v
            };
            let (name, value) = match l {
                "--" => break,
                "--option" | "--config-file" => (l.to_owned(), next(&mut i)),
                _ if l.starts_with("--option=") || l.starts_with("--config-file=") => {
                    let (n, v) = l.split_once('=').unwrap_or((l, ""));
                    (n.to_owned(), Some(WordVal::literal(v)))
                }
                _ if l.starts_with('-') && !l.starts_with("--") && l.len() > 1 => {
                    // A cluster: `-yo NAME=VALUE`, `-qqoNAME=VALUE`.
                    let letters = &l[1..];
                    let Some(at) = letters.find(['o', 'c', 't', 'a']) else {
                        continue;
                    };
                    let rest = &letters[at + 1..];
                    let value = if rest.is_empty() {
                        next(&mut i)
                    } else {
                        Some(WordVal::literal(rest))
                    };
                    (format!("-{}", &letters[at..=at]), value)
                }
                _ => continue,
            };
            match name.as_str() {
                "-c" | "--config-file" => self.runs_unwritten(
                    argv,
                    "apt reads a configuration file, which may name commands to run",
                ),
                "-o" | "--option" => self.apt_item(argv, value.as_ref()),
                _ => {}
            }
        }
    }

    /// One `NAME=VALUE` given to apt's `-o`.
    fn apt_item(&mut self, argv: &[WordVal], item: Option<&WordVal>) {
        let Some(item) = item.and_then(|w| w.literal.clone()) else {
            self.may_run(
                argv,
                "a configuration item computed at run time may be a hook apt runs",
            );
            return;
        };
        let (name, value) = item.split_once('=').unwrap_or((&item, ""));
        let name = name.trim().trim_end_matches(':').to_ascii_lowercase();
        let last = name.rsplit("::").next().unwrap_or(&name);
        if last.contains("invoke") || last == "pre-install-pkgs" {
            if !value.trim().is_empty() {
                self.nested_script(argv, value);
            }
        } else if name.starts_with("dir::bin")
            || last == "proxy-auto-detect"
            || last.ends_with("command")
        {
            self.runs(
                argv,
                Some(&WordVal::literal(value)),
                "a program apt is told to use",
            );
        } else if name == "dir" || name.starts_with("dir::etc") || last == "rootdir" {
            self.runs_unwritten(
                argv,
                "apt reads its configuration from another place, which may name commands to run",
            );
        } else if last == "options" && name.contains("dpkg") {
            self.dpkg_option(argv, value, None);
        }
    }

    /// dpkg: `--pre-invoke=CMD`, `--post-invoke=CMD` and
    /// `--status-logger=CMD` are command lines dpkg hands to `sh -c`.
    fn dpkg(&mut self, argv: &[WordVal]) {
        let mut i = 1;
        while let Some(w) = argv.get(i) {
            i += 1;
            let Some(l) = w.literal.as_deref() else {
                if super::options::could_be_option(&w.raw) {
                    self.may_run(
                        argv,
                        "an option computed at run time may set a hook dpkg runs",
                    );
                }
                continue;
            };
            if l == "--" {
                break;
            }
            if self.dpkg_option(argv, l, argv.get(i)) {
                i += 1;
            }
        }
    }

    /// One of dpkg's options (`option`, and `next`, the word after it): a
    /// hook analysed as a command line. `true` when `next` was its value.
    fn dpkg_option(&mut self, argv: &[WordVal], option: &str, next: Option<&WordVal>) -> bool {
        const HOOKS: &[&str] = &["--pre-invoke", "--post-invoke", "--status-logger"];
        let (name, attached) = match option.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (option, None),
        };
        if !HOOKS.contains(&name) {
            return false;
        }
        match attached {
            Some(v) => {
                if !v.trim().is_empty() {
                    self.nested_script(argv, v);
                }
                false
            }
            None => {
                match next.and_then(|w| w.literal.clone()) {
                    Some(v) if !v.trim().is_empty() => self.nested_script(argv, &v),
                    Some(_) => {}
                    None => self.may_run(argv, "dpkg runs a hook that is not written here"),
                }
                true
            }
        }
    }

    /// vi and its kin: the Ex commands given on the command line (`-c`,
    /// `--cmd`, `+CMD`) and the files its options source or write. `+N`,
    /// `+/pattern`, `set …`, `s/…/…/`, the quits and the writes of the
    /// buffer (the files given, already judged as edited) are plain; `w FILE`,
    /// `saveas FILE` write FILE, `r FILE`, `e FILE` read it (and a later
    /// `w` may write it). Anything else (`!cmd`, `source`, `g/…/cmd`,
    /// `normal`, a name vim expands) can run commands, read and write any
    /// file: the code acts, as `python3 -c` code does.
    fn vim(&mut self, base: &str, argv: &[WordVal]) {
        let mut ex_mode = base == "ex";
        let mut text_from_input = false;
        let mut i = 1;
        let mut acts = false;
        let mut commands: Vec<String> = Vec::new();
        while let Some(w) = argv.get(i) {
            i += 1;
            let Some(l) = w.literal.as_deref() else {
                acts |= super::options::could_be_option(&w.raw);
                continue;
            };
            let value = |k: usize| argv.get(k).and_then(|w| w.literal.clone());
            match l {
                "--" => break,
                "--cmd" => {
                    match value(i) {
                        Some(c) => commands.push(c),
                        None => acts = true,
                    }
                    i += 1;
                }
                "--startuptime" | "--log" => {
                    match argv.get(i) {
                        Some(f) => {
                            let f = f.clone();
                            self.writes(&f);
                        }
                        None => acts = true,
                    }
                    i += 1;
                }
                "--servername" | "--listen" => i += 1,
                "-" => text_from_input = true,
                _ if l.starts_with("--remote") => acts = true,
                _ if l.starts_with('+') => commands.push(l[1..].to_owned()),
                _ if l.starts_with('-') && !l.starts_with("--") && l.len() > 1 => {
                    // One-letter options clustered in one word, read as vim
                    // reads them: `-es` is `-e -s`, `-Nc CMD` is `-N -c
                    // CMD`, `-c!cmd` is `-c '!cmd'`. A letter that takes a
                    // value takes the next word when it ends the word.
                    let letters = &l[1..];
                    for (at, letter) in letters.char_indices() {
                        let rest = &letters[at + letter.len_utf8()..];
                        match letter {
                            'e' | 'E' => ex_mode = true,
                            // Silent in Ex mode; else keys read from a file.
                            's' if ex_mode => {}
                            'c' if !rest.is_empty() => {
                                commands.push(rest.to_owned());
                                break;
                            }
                            'c' => {
                                match value(i) {
                                    Some(c) => commands.push(c),
                                    None => acts = true,
                                }
                                i += 1;
                            }
                            // A script of Ex commands, keys read from a
                            // file, or (nvim) a Lua script.
                            'S' | 's' => acts = true,
                            'l' if base == "nvim" => acts = true,
                            'u' | 'U' | 'i' => {
                                match value(i).as_deref() {
                                    Some("NONE" | "NORC" | "DEFAULTS") => {}
                                    Some(f) if letter == 'i' => {
                                        self.writes(&WordVal::literal(f));
                                    }
                                    _ => acts = true,
                                }
                                i += 1;
                            }
                            // `-w5`: the window's height.
                            'w' if rest.starts_with(|c: char| c.is_ascii_digit()) => break,
                            'w' | 'W' => {
                                match argv.get(i) {
                                    Some(f) => {
                                        let f = f.clone();
                                        self.writes(&f);
                                    }
                                    None => acts = true,
                                }
                                i += 1;
                            }
                            // `-t TAG`, `-q FILE` (or attached), `-T TERM`.
                            't' | 'q' | 'T' => {
                                if rest.is_empty() {
                                    i += 1;
                                }
                                break;
                            }
                            'V' => {
                                // `-V9file`: verbose messages written to the file.
                                let file = rest.trim_start_matches(|c: char| c.is_ascii_digit());
                                if !file.is_empty() {
                                    self.writes(&WordVal::literal(file));
                                }
                                break;
                            }
                            _ => {}
                        }
                        // Past a letter that took the next word the rest is
                        // an error to vim; tack reads on, which only adds.
                    }
                }
                _ => {}
            }
        }
        for command in &commands {
            for piece in command.split('|') {
                if !self.ex_command(piece) {
                    acts = true;
                    self.protected_words(piece);
                }
            }
        }
        if acts {
            self.may_run(
                argv,
                "the editor runs the commands it is given, and they can run shell commands and write files",
            );
            self.code_acts(argv, "the editor's commands");
        } else if !text_from_input || ex_mode {
            // Ex mode reads Ex commands from the input, and vi reads its
            // keys from it when it is no terminal (`vim f <<< ':!rm x'`);
            // `vim -` reads the text to edit instead (`ex -` is `ex -s`).
            self.commands_from_input(argv, base);
        }
    }

    /// Code tack does not read (an Ex command that acts: `exe "w
    /// .git/config"`, `call writefile([], ".git/config")`, `redir >
    /// .git/config`): each word in it that names a protected path is taken
    /// as written, so the safeguard holds whatever the rules.
    pub(super) fn protected_words(&mut self, code: &str) {
        let words = code
            .split(|c: char| c.is_whitespace() || "\"'(),[]{}<>=|;`".contains(c))
            .filter(|w| !w.is_empty())
            .map(|w| w.trim_start_matches('!').to_owned())
            .collect::<Vec<_>>();
        for w in words {
            let tilde = w.starts_with('~');
            let Ok(paths) = self.resolve_word_path(&w, tilde, false) else {
                continue;
            };
            for path in paths {
                if crate::safeguard::protected(&path.lexical).is_some() {
                    self.push(Item::Written {
                        written: w.clone(),
                        path,
                    });
                }
            }
        }
    }

    /// One Ex command given on vi's command line: its files judged, `true`
    /// when nothing else in it can act.
    fn ex_command(&mut self, piece: &str) -> bool {
        let mut c = piece.trim().trim_start_matches(':').trim_start();
        // Modifiers that change how a command runs, not what it does.
        const MODIFIERS: &[&str] = &[
            "silent!",
            "silent",
            "sil!",
            "sil",
            "keepalt",
            "keepjumps",
            "keepj",
            "lockmarks",
            "noautocmd",
            "noa",
            "confirm",
            "conf",
            "vertical",
            "vert",
            "topleft",
            "botright",
            "aboveleft",
            "belowright",
            "tab",
        ];
        while let Some(m) = MODIFIERS.iter().find(|m| {
            c.strip_prefix(**m)
                .is_some_and(|r| r.starts_with(char::is_whitespace))
        }) {
            c = c[m.len()..].trim_start();
        }
        if c.is_empty() || c == "$" || c.chars().all(|ch| ch.is_ascii_digit()) {
            return true; // a line number
        }
        if c.starts_with('/') || c.starts_with('?') {
            return true; // a search
        }
        if c.starts_with('!') {
            return false; // a shell command
        }
        // A range (`%`, `1,$`, `.,+3`) before the command.
        let body = c.trim_start_matches(|ch: char| {
            ch.is_ascii_digit() || matches!(ch, '%' | '$' | '.' | ',' | '+' | '-' | ';')
        });
        let name_len = body
            .find(|ch: char| !ch.is_ascii_alphabetic())
            .unwrap_or(body.len());
        let (name, rest) = body.split_at(name_len);
        let rest = rest.trim();
        match name {
            "q" | "quit" | "qa" | "qall" | "quitall" | "cq" | "cquit" | "wq" | "x" | "xit"
            | "exi" | "exit" | "xa" | "xall" | "wa" | "wall" | "wqa" | "wqall" | "w" | "write"
            | "up" | "update"
                if rest.is_empty() || rest == "!" =>
            {
                true // the buffers of the files given, judged as edited
            }
            "w" | "write" | "wq" | "x" | "xit" | "up" | "update" | "sav" | "saveas" => {
                let file = rest.strip_prefix('!').unwrap_or(rest).trim_start();
                if file.starts_with('!') {
                    return false; // `w !cmd`: the buffer given to a shell command
                }
                self.ex_file(file.trim_start_matches(">>").trim(), true)
            }
            "r" | "read" | "e" | "edit" | "sp" | "split" | "vs" | "vsplit" | "new" | "vnew"
            | "tabe" | "tabedit" | "tabnew" | "view" | "sv" | "sview" | "badd" | "ar" | "args"
            | "n" | "next" => {
                // A later `w` writes the buffer read: it may be written too.
                if rest.starts_with('!') && matches!(name, "r" | "read") {
                    return false; // `r !cmd`: a shell command's output
                }
                let file = rest.strip_prefix('!').unwrap_or(rest).trim();
                self.ex_file(file, name != "r" && name != "read")
            }
            "set" | "se" | "setl" | "setlocal" | "setg" | "setglobal" => plain_vim_set(rest),
            "s" | "substitute" | "d" | "delete" | "y" | "yank" | "j" | "join" | "le" | "left"
            | "ri" | "right" | "ce" | "center" | "ret" | "retab" | "sor" | "sort" | "noh"
            | "nohlsearch" | "syntax" | "sy" | "filetype" | "filet" => !rest.contains("\\="),
            _ => false,
        }
    }

    /// A file named in an Ex command: read (and `written` too when the
    /// command may write it). A name vim expands (`%`, `#`, `$VAR`, a
    /// pattern, `` `cmd` ``) is not known: `false`.
    fn ex_file(&mut self, file: &str, written: bool) -> bool {
        if file.is_empty() {
            return true;
        }
        if file.contains(['%', '#', '$', '`', '<', '*', '?', '[', '{', ' ', '\\']) {
            return false;
        }
        let word = WordVal {
            raw: file.to_owned(),
            literal: Some(file.to_owned()),
            tilde: file.starts_with('~'),
            glob: false,
        };
        self.touch(super::Family::Read, &word);
        if written {
            self.writes(&word);
        }
        true
    }

    fn sed(&mut self, argv: &[WordVal], more: bool) {
        let p = self.read_options(argv, &SED, true);
        let sandbox = p.has(&["--sandbox"]);
        let mut scripts: Vec<Option<WordVal>> = p
            .values(&["-e", "--expression"])
            .map(|v| v.cloned())
            .collect();
        let mut files: &[WordVal] = &p.operands;
        if p.has(&["-f", "--file"]) {
            self.runs_unwritten(argv, "the sed script is read from a file");
            self.writes_unknown(argv, "a sed script read from a file can write files (`w`)");
        } else if scripts.is_empty() {
            scripts.push(p.operands.first().cloned());
            files = p.operands.get(1..).unwrap_or(&[]);
        }
        if !sandbox {
            for script in scripts {
                match script.and_then(|s| s.literal) {
                    Some(text) => self.sed_script(argv, &text),
                    None => {
                        self.may_run(argv, "the sed script is computed at run time");
                        self.writes_unknown(argv, "the sed script is computed at run time");
                    }
                }
            }
        }
        let in_place: Vec<Option<WordVal>> = p
            .values(&["-i", "--in-place"])
            .map(|v| v.cloned())
            .collect();
        if in_place.is_empty() {
            return;
        }
        self.writes_all(argv, files, more);
        let suffix = in_place.last().cloned().flatten().and_then(|v| v.literal);
        if let Some(suffix) = suffix.filter(|s| !s.is_empty()) {
            for f in files {
                match (&f.literal, suffix.contains('/')) {
                    (Some(file), false) => {
                        let backup = if suffix.contains('*') {
                            let (dir, name) = match file.rsplit_once('/') {
                                Some((d, n)) => (format!("{d}/"), n),
                                None => (String::new(), file.as_str()),
                            };
                            format!("{dir}{}", suffix.replace('*', name))
                        } else {
                            format!("{file}{suffix}")
                        };
                        self.writes(&WordVal {
                            literal: Some(backup.clone()),
                            raw: backup,
                            ..f.clone()
                        });
                    }
                    _ => self.writes_unknown(argv, "where sed puts the backup copy is not known"),
                }
            }
        }
    }

    /// What a sed script writes, reads and runs (`w`, `r`, `e`, `s///w`,
    /// `s///e`).
    fn sed_script(&mut self, argv: &[WordVal], script: &str) {
        let Some(effects) = sed_effects(script) else {
            self.may_run(argv, "cannot read the sed script");
            return self.writes_unknown(argv, "cannot read the sed script");
        };
        for e in effects {
            match e {
                SedEffect::Write(file) => self.writes(&WordVal::literal(&file)),
                SedEffect::Read(file) => {
                    self.touch(super::Family::Read, &WordVal::literal(&file));
                }
                SedEffect::Run(Some(command)) => self.runs(argv, Some(&WordVal::literal(&command)), "sed"),
                SedEffect::Run(None) => self.may_run(
                    argv,
                    "sed runs the text it edits as a command (`e`), which is not known before it runs",
                ),
            }
        }
    }

    fn sort(&mut self, argv: &[WordVal]) {
        let p = self.read_options(argv, &read_only::SORT.spec, true);
        for v in p.values(&["-o", "--output"]).collect::<Vec<_>>() {
            self.writes_value(argv, v);
        }
        for v in p.values(&["--compress-program"]).collect::<Vec<_>>() {
            self.runs(argv, v, "sort --compress-program");
        }
        for v in p.values(&["--files0-from"]).flatten().collect::<Vec<_>>() {
            self.touch(super::Family::Read, v);
        }
    }

    fn tar(&mut self, argv: &[WordVal]) {
        // `tar xzf a.tar -C dir`: the first word is a cluster of letters
        // whose values follow in order.
        let mut words: Vec<WordVal> = Vec::with_capacity(argv.len());
        words.push(argv[0].clone());
        let mut rest = &argv[1..];
        if let Some(first) = rest.first()
            && let Some(l) = &first.literal
            && !l.starts_with('-')
            && !l.is_empty()
            && l.chars()
                .all(|c| TAR.flags.contains(c) || TAR.with_arg.contains(c))
        {
            let mut values = rest[1..].iter();
            for c in l.chars() {
                words.push(WordVal::literal(&format!("-{c}")));
                if TAR.with_arg.contains(c) {
                    words.extend(values.next().cloned());
                }
            }
            rest = values.as_slice();
        }
        words.extend(rest.iter().cloned());
        let p = self.read_options(&words, &TAR, true);
        // `tar cf out.tar *` with a file named `--checkpoint-action=exec=sh
        // x.sh` here: a pattern that may match a name starting with `-`
        // may be an option, and some of tar's run commands.
        if words[1..].iter().any(|w| {
            w.glob
                && w.literal
                    .as_deref()
                    .is_some_and(|l| l.starts_with(['*', '?', '[']))
        }) {
            self.may_run(
                argv,
                "a pattern here may match a file named like an option, and some of tar's options run commands",
            );
        }
        let mode = |short: &str, long: &[&str]| p.has(&[short]) || p.has(long);
        let extract = mode("-x", &["--extract", "--get"]);
        let archive_written = mode("-c", &["--create"])
            || mode("-r", &["--append"])
            || mode("-u", &["--update"])
            || mode("-A", &["--concatenate", "--catenate"])
            || p.has(&["--delete"]);
        if archive_written && p.has(&["-T", "--files-from"]) {
            self.reads_listed_files(argv, "tar -T");
        }
        if archive_written {
            for v in p.values(&["-f", "--file"]).collect::<Vec<_>>() {
                self.writes_value(argv, v);
            }
            if p.has(&["--remove-files"]) {
                self.writes_all(argv, &p.operands, false);
            }
        }
        if extract && !p.has(&["-O", "--to-stdout", "--to-command"]) {
            if p.has(&["-P", "--absolute-names"]) {
                self.writes_unknown(
                    argv,
                    "tar -P extracts to the paths the archive names, anywhere",
                );
            }
            // Each `-C` is relative to the one before.
            let mut dirs: Vec<WordVal> = Vec::new();
            for v in p.values(&["-C", "--directory"]) {
                let Some(v) = v else { continue };
                let joined = match (dirs.last().and_then(|d| d.literal.clone()), &v.literal) {
                    (Some(prev), Some(next)) if !next.starts_with('/') && !v.tilde => {
                        let j = format!("{prev}/{next}");
                        WordVal {
                            raw: j.clone(),
                            literal: Some(j),
                            ..v.clone()
                        }
                    }
                    _ => v.clone(),
                };
                dirs.push(joined);
            }
            if dirs.is_empty() {
                self.writes_here();
            }
            for d in &dirs {
                self.writes_inside(d);
            }
            // `--one-top-level=DIR` is relative to where it extracts.
            for v in p.values(&["--one-top-level"]).collect::<Vec<_>>() {
                let Some(v) = v else { continue };
                match (&v.literal, dirs.last().and_then(|d| d.literal.clone())) {
                    (Some(top), Some(base)) if !top.starts_with('/') => {
                        self.writes_inside(&WordVal::literal(&format!("{base}/{top}")));
                    }
                    _ => self.writes_inside(v),
                }
            }
        }
        for v in p
            .values(&["-g", "--listed-incremental", "--index-file", "--volno-file"])
            .collect::<Vec<_>>()
        {
            self.writes_value(argv, v);
        }
        for v in p.values(TAR_RUNS).collect::<Vec<_>>() {
            self.runs(argv, v, "tar");
        }
        for v in p.values(&["--checkpoint-action"]).collect::<Vec<_>>() {
            let action = v.and_then(|v| v.literal.clone());
            match action.as_deref().and_then(|a| a.strip_prefix("exec=")) {
                Some(cmd) => self.runs(
                    argv,
                    Some(&WordVal::literal(cmd)),
                    "tar --checkpoint-action",
                ),
                None if action.is_none() => {
                    self.may_run(argv, "tar --checkpoint-action is computed at run time");
                }
                None => {}
            }
        }
    }

    fn curl(&mut self, argv: &[WordVal]) {
        let p = self.read_options(argv, &CURL, true);
        self.curl_hosts(&p);
        if self.touches {
            self.curl_reads(&p);
        }
        for v in p.values(CURL_WRITES).collect::<Vec<_>>() {
            self.writes_value(argv, v);
        }
        if p.has(&["-K", "--config"]) {
            self.writes_unknown(argv, "a curl config file can name files it writes");
        }
        let dir = p
            .values(&["--output-dir"])
            .last()
            .flatten()
            .cloned()
            .unwrap_or_else(|| WordVal::literal("."));
        let remote_names = p.values(&["-O", "--remote-name"]).count();
        let all = p.has(&["--remote-name-all"]);
        let urls: Vec<&WordVal> = p.operands.iter().collect();
        let named = if all { urls.len() } else { remote_names };
        if p.has(&["-J", "--remote-header-name"]) && named > 0 {
            return self.writes_inside(&dir);
        }
        for url in urls.iter().take(named) {
            match url.literal.as_deref().and_then(url_file_name) {
                Some(name) => {
                    let path = match &dir.literal {
                        Some(d) => format!("{d}/{name}"),
                        None => {
                            self.writes_inside(&dir);
                            continue;
                        }
                    };
                    self.writes(&WordVal {
                        literal: Some(path.clone()),
                        raw: path,
                        tilde: dir.tilde,
                        glob: false,
                    });
                }
                None => self.writes_inside(&dir),
            }
        }
        if named > urls.len() {
            self.writes_inside(&dir);
        }
    }

    /// Files curl reads and sends: `file://` URLs, `-d @FILE` (and the
    /// other data options), `-F name=@FILE` or `<FILE`, `-T FILE`, `-H
    /// @FILE`, `-K FILE`, a cookie file.
    fn curl_reads(&mut self, p: &Parsed) {
        let read = |a: &mut Analyzer, file: &str| {
            if !file.is_empty() && file != "-" {
                a.touch(super::Family::Read, &WordVal::literal(file));
            }
        };
        let urls = p.operands.iter().chain(p.values(&["--url"]).flatten());
        for url in urls.collect::<Vec<_>>() {
            let Some(u) = url.literal.as_deref() else {
                continue;
            };
            if !u.get(..5).is_some_and(|s| s.eq_ignore_ascii_case("file:")) {
                continue;
            }
            // curl's globbing (`file:///{a,b}`) names files only it knows.
            if u.contains(['{', '[']) {
                self.uncertain(
                    UncertainKind::Touch(super::Family::Read),
                    u,
                    "curl expands the pattern in this file URL to files only the run knows",
                );
                continue;
            }
            match url::Url::parse(u).ok().and_then(|u| u.to_file_path().ok()) {
                // `curl -T f file:///x` uploads into the file: a write.
                Some(path) if p.has(&["-T", "--upload-file"]) => {
                    self.writes(&WordVal::literal(&path.to_string_lossy()));
                }
                Some(path) => read(self, &path.to_string_lossy()),
                None => self.uncertain(
                    UncertainKind::Touch(super::Family::Read),
                    u,
                    "a file URL curl reads",
                ),
            }
        }
        let data = [
            "-d",
            "--data",
            "--data-ascii",
            "--data-binary",
            "--json",
            "-H",
            "--header",
        ];
        for v in p.values(&data).flatten().collect::<Vec<_>>() {
            if let Some(file) = v.literal.as_deref().and_then(|l| l.strip_prefix('@')) {
                read(self, file);
            }
        }
        for v in p
            .values(&["--data-urlencode"])
            .flatten()
            .collect::<Vec<_>>()
        {
            // `@FILE` or `name@FILE`.
            if let Some((name, file)) = v.literal.as_deref().and_then(|l| l.split_once('@'))
                && !name.contains('=')
            {
                read(self, file);
            }
        }
        for v in p.values(&["-F", "--form"]).flatten().collect::<Vec<_>>() {
            let Some(l) = v.literal.as_deref() else {
                continue;
            };
            if let Some((_, value)) = l.split_once('=')
                && let Some(file) = value.strip_prefix('@').or_else(|| value.strip_prefix('<'))
            {
                read(self, file.split(';').next().unwrap_or(file));
            }
        }
        for v in p
            .values(&["-T", "--upload-file", "-K", "--config"])
            .flatten()
            .collect::<Vec<_>>()
        {
            if let Some(l) = v.literal.as_deref() {
                read(self, l);
            }
        }
        for v in p.values(&["-b", "--cookie"]).flatten().collect::<Vec<_>>() {
            if let Some(l) = v.literal.as_deref()
                && !l.contains('=')
            {
                read(self, l);
            }
        }
    }

    fn wget(&mut self, argv: &[WordVal]) {
        let p = self.read_options(argv, &WGET, true);
        self.wget_hosts(&p);
        for v in p
            .values(&[
                "-o",
                "--output-file",
                "-a",
                "--append-output",
                "--save-cookies",
                "--warc-file",
            ])
            .collect::<Vec<_>>()
        {
            self.writes_value(argv, v);
        }
        if p.has(&["-e", "--execute", "--config"]) {
            self.writes_unknown(
                argv,
                "wget commands (-e, --config) can name files it writes",
            );
        }
        let document: Vec<Option<WordVal>> = p
            .values(&["-O", "--output-document"])
            .map(|v| v.cloned())
            .collect();
        if !document.is_empty() {
            for v in &document {
                self.writes_value(argv, v.as_ref());
            }
        } else if !p.has(&["--spider"]) {
            let dir = p
                .values(&["-P", "--directory-prefix"])
                .last()
                .flatten()
                .cloned()
                .unwrap_or_else(|| WordVal::literal("."));
            self.writes_inside(&dir);
        }
    }

    fn split(&mut self, argv: &[WordVal], base: &str) {
        let spec = if base == "split" { &SPLIT } else { &CSPLIT };
        let p = self.read_options(argv, spec, true);
        let prefix = if base == "split" {
            p.operands.get(1).cloned()
        } else {
            p.values(&["-f", "--prefix"]).last().flatten().cloned()
        };
        for v in p.values(&["--filter"]).collect::<Vec<_>>() {
            self.runs(argv, v, "split --filter");
        }
        match prefix {
            Some(w) => match &w.literal {
                Some(l) => match l.rsplit_once('/') {
                    Some((dir, _)) => {
                        let dir = if dir.is_empty() { "/" } else { dir };
                        self.writes_inside(&WordVal {
                            raw: dir.to_string(),
                            literal: Some(dir.to_string()),
                            ..w.clone()
                        });
                    }
                    None => self.writes_here(),
                },
                None => self.writes_inside(&w),
            },
            None => self.writes_here(),
        }
    }

    fn unzip(&mut self, argv: &[WordVal]) {
        // `-x` takes every following word up to the next option.
        let mut words: Vec<WordVal> = Vec::new();
        let mut excluding = false;
        for w in argv {
            match w.literal.as_deref() {
                Some("-x") => excluding = true,
                Some(l) if l.starts_with('-') => {
                    excluding = false;
                    words.push(w.clone());
                }
                _ if excluding => {}
                _ => words.push(w.clone()),
            }
        }
        let p = self.read_options(&words, &UNZIP, true);
        if p.has(&["-l", "-t", "-v", "-p", "-c", "-Z", "-z"]) {
            return;
        }
        match p.values(&["-d"]).last().flatten().cloned() {
            Some(dir) => self.writes_inside(&dir),
            None => self.writes_here(),
        }
    }

    /// The files gpg writes beside those it is given when no `-o` says
    /// where: `X.gpg`, `X.asc`, `X.sig` when it encrypts or signs X, and X
    /// when it decrypts `X.gpg` (`--decrypt-files`, or with no command at
    /// all, which decrypts or verifies by what the file holds). `-d` alone
    /// prints, and the key and listing commands write no file of theirs.
    fn gpg_files(&mut self, argv: &[WordVal], p: &Parsed) {
        let given =
            |names: &[&str]| p.has(names) || p.unknown.iter().any(|o| names.contains(&o.as_str()));
        let prints = given(&[
            "-d",
            "--decrypt",
            "--verify",
            "--list-packets",
            "--print-md",
            "--dearmor",
            "--enarmor",
            "--import",
            "--export",
            "--export-secret-keys",
            "--recv-keys",
            "--search-keys",
            "--fingerprint",
            "--list-keys",
            "--list-secret-keys",
            "--list-sigs",
            "--check-sigs",
            "-k",
            "-K",
            "--edit-key",
            "--sign-key",
            "--delete-keys",
            "--gen-key",
            "--full-generate-key",
            "--quick-generate-key",
            "--card-status",
            "--version",
            "--help",
        ]) && !given(&["--decrypt-files", "--multifile"]);
        if prints || p.operands.is_empty() {
            return;
        }
        for w in p.operands.clone() {
            let Some(l) = w.literal.as_deref() else {
                self.writes_unknown(argv, "gpg writes beside a file named at run time");
                continue;
            };
            let mut names: Vec<String> = [".gpg", ".asc", ".sig"]
                .iter()
                .map(|ext| format!("{l}{ext}"))
                .collect();
            if let Some(stem) = [".gpg", ".asc", ".sig", ".pgp"]
                .iter()
                .find_map(|ext| l.strip_suffix(ext))
            {
                names.push(stem.to_string());
            }
            for name in names {
                let target = WordVal {
                    raw: name.clone(),
                    literal: Some(name),
                    ..w.clone()
                };
                self.writes(&target);
            }
        }
    }

    /// A list of the files to read, taken at run time (`tar -T list`,
    /// `find . | zip -@ o.zip`, `cpio -o`, `pax -w` with no file named):
    /// which files it reads is known only then.
    fn reads_listed_files(&mut self, argv: &[WordVal], how: &str) {
        self.uncertain(
            UncertainKind::Touch(super::Family::Read),
            &short_text(argv),
            format!("{how} reads the files a list names at run time"),
        );
    }

    fn zip(&mut self, argv: &[WordVal]) {
        let p = options::parse(
            &argv[1..],
            &Spec {
                with_arg: "bdnOiptxPsZ",
                long_with_arg: &[
                    "--unzip-command",
                    "--output-file",
                    "--temp-path",
                    "--password",
                    "--split-size",
                    "--exclude",
                    "--include",
                    "--suffixes",
                    "--compression-method",
                ],
                ..Spec::default()
            },
        );
        for v in p.values(&["--unzip-command"]).collect::<Vec<_>>() {
            self.runs(argv, v, "zip --unzip-command");
        }
        // `-TT cmd` is two letters.
        for (k, w) in argv.iter().enumerate() {
            if w.literal.as_deref() == Some("-TT") {
                self.runs(argv, argv.get(k + 1), "zip -TT");
            }
        }
        for v in p.values(&["-O", "--output-file"]).collect::<Vec<_>>() {
            self.writes_value(argv, v);
        }
        if argv[1..].iter().any(|w| {
            w.literal.as_deref().is_some_and(|l| {
                l == "--names-stdin"
                    || (l.starts_with('-') && !l.starts_with("--") && l.contains('@'))
            })
        }) {
            self.reads_listed_files(argv, "zip -@");
        }
        if let Some(archive) = p.operands.first() {
            self.writes(archive);
        }
        if argv[1..].iter().any(|w| {
            w.literal.as_deref().is_some_and(|l| {
                l == "--move" || (l.starts_with('-') && !l.starts_with("--") && l.contains('m'))
            })
        }) {
            self.writes_all(argv, p.operands.get(1..).unwrap_or(&[]), false);
        }
    }

    /// `pax -rwl SRC… DIR`: the copies are the sources' files (a write
    /// through them changes those); with no source named, they are the
    /// files its input names.
    fn pax_links(&mut self, argv: &[WordVal], operands: &[WordVal]) {
        let Some((_, sources)) = operands.split_last().filter(|(_, s)| !s.is_empty()) else {
            return self.writes_unknown(argv, "pax -rwl links the files its input names");
        };
        for source in sources {
            let Some(lit) = source.literal.as_deref() else {
                self.writes_unknown(argv, "pax -rwl links files named only at run time");
                continue;
            };
            if let Ok(paths) = self.resolve_word_path(lit, source.tilde, source.glob) {
                for p in paths {
                    self.linked_out(&p, lit);
                }
            }
        }
    }

    fn cpio(&mut self, argv: &[WordVal]) {
        let p = options::parse(
            &argv[1..],
            &Spec {
                // Without its flags, `-i` (in `-idm` too) was read as an
                // unknown option and the extraction was missed.
                flags: "iopdmtuvabcfknrlBLV0",
                with_arg: "DEFHIMORs",
                long_flags: &[
                    "--extract",
                    "--create",
                    "--pass-through",
                    "--list",
                    "--link",
                ],
                long_with_arg: &[
                    "--directory",
                    "--file",
                    "--format",
                    "--owner",
                    "--pattern-file",
                ],
                ..Spec::default()
            },
        );
        for v in p.values(&["-O", "-F", "--file"]).collect::<Vec<_>>() {
            if p.has(&["-o", "--create"]) || p.has(&["-O"]) {
                self.writes_value(argv, v);
            }
        }
        // Copying out or through reads the files named on its input.
        if p.has(&["-o", "--create", "-p", "--pass-through"]) {
            self.reads_listed_files(argv, "cpio");
        }
        if p.has(&["-i", "--extract"]) && !p.has(&["-t", "--list"]) {
            match p.values(&["-D", "--directory"]).last().flatten().cloned() {
                Some(dir) => self.writes_inside(&dir),
                None => self.writes_here(),
            }
        }
        if p.has(&["-p", "--pass-through"]) {
            match p.operands.first() {
                Some(dir) => {
                    let dir = dir.clone();
                    self.writes_inside(&dir);
                }
                None => self.writes_unknown(argv, "cpio -p has no destination"),
            }
            if p.has(&["-l", "--link"]) {
                // The copies are the files its input names: a write
                // through them changes those.
                self.writes_unknown(
                    argv,
                    "cpio -pl links the files its input names, and a write through a link changes them",
                );
            }
        }
    }

    fn awk(&mut self, argv: &[WordVal], more: bool) {
        let p = options::parse(
            &argv[1..],
            &Spec {
                with_arg: "FvfeiElW",
                optional_arg: "dDLopM",
                long_with_arg: &[
                    "--field-separator",
                    "--assign",
                    "--file",
                    "--source",
                    "--include",
                    "--exec",
                    "--load",
                ],
                long_optional: &[
                    "--dump-variables",
                    "--debug",
                    "--lint",
                    "--pretty-print",
                    "--profile",
                ],
                posix: true,
                abbreviations: false,
                ..Spec::default()
            },
        );
        if p.has(&["-S", "--sandbox"]) {
            return;
        }
        self.awk_network_files(argv);
        let in_place = p
            .values(&["-i", "--include"])
            .any(|v| v.and_then(|v| v.literal.as_deref()) == Some("inplace"));
        // `-i lib.awk` includes awk code from a file, `-l ext` loads a
        // shared library: code that is not written here.
        if p.values(&["-i", "--include"])
            .any(|v| v.and_then(|v| v.literal.as_deref()) != Some("inplace"))
            || p.has(&["-l", "--load"])
        {
            self.runs_unwritten(argv, "awk loads code from a file (-i or -l)");
        }
        let mut programs: Vec<Option<WordVal>> =
            p.values(&["-e", "--source"]).map(|v| v.cloned()).collect();
        let mut files: &[WordVal] = &p.operands;
        if p.has(&["-f", "--file", "-E", "--exec"]) {
            self.runs_unwritten(argv, "the awk program is read from a file");
            self.writes_unknown(argv, "an awk program read from a file can write files");
            self.reads_unknown(argv, "an awk program read from a file can read any file");
        } else if programs.is_empty() {
            programs.push(p.operands.first().cloned());
            files = p.operands.get(1..).unwrap_or(&[]);
        }
        for v in p
            .values(&[
                "-o",
                "--pretty-print",
                "-p",
                "--profile",
                "-d",
                "--dump-variables",
            ])
            .flatten()
            .collect::<Vec<_>>()
        {
            self.writes(v);
        }
        for program in programs {
            match program.and_then(|w| w.literal) {
                Some(text) => {
                    let (runs, writes) = awk_effects(&text);
                    if runs {
                        self.may_run(argv, "the awk program runs commands (`system`, `|`)");
                    }
                    if writes {
                        self.writes_unknown(
                            argv,
                            "the awk program writes to files it names (`print > file`)",
                        );
                    }
                    let (named, unknown) = awk_reads(&text);
                    for file in named {
                        self.touch(super::Family::Read, &WordVal::literal(&file));
                    }
                    if unknown {
                        self.reads_unknown(
                            argv,
                            "the awk program reads files it computes (`getline < f`, `ARGV[1] = …`)",
                        );
                    }
                }
                None => {
                    self.may_run(argv, "the awk program is computed at run time");
                    self.writes_unknown(argv, "the awk program is computed at run time");
                    self.reads_unknown(argv, "the awk program is computed at run time");
                }
            }
        }
        if in_place {
            let files: Vec<WordVal> = files
                .iter()
                .filter(|w| !w.literal.as_deref().is_some_and(|l| l.contains('=')))
                .cloned()
                .collect();
            self.writes_all(argv, &files, more);
        }
    }

    /// `perl -i[ext]` edits its file operands in place.
    fn perl(&mut self, argv: &[WordVal], more: bool) {
        let mut in_place: Option<String> = None;
        let mut script_given = false;
        let mut debugger = false;
        let mut files: Vec<WordVal> = Vec::new();
        let mut i = 1;
        let mut options_done = false;
        while let Some(w) = argv.get(i) {
            i += 1;
            let Some(l) = w.literal.as_deref() else {
                files.push(w.clone());
                continue;
            };
            if options_done || !l.starts_with('-') || l == "-" {
                options_done = true;
                if !script_given && l == "-" {
                    // `perl - ARGS`: the program is the input.
                    return self.code_acts(argv, "perl, reading code from its input,");
                }
                if script_given {
                    files.push(w.clone());
                } else {
                    script_given = true;
                }
                continue;
            }
            if l == "--" {
                options_done = true;
                continue;
            }
            let cluster = &l[1..];
            for (k, c) in cluster.char_indices() {
                let rest = &cluster[k + c.len_utf8()..];
                match c {
                    'e' | 'E' => {
                        script_given = true;
                        let code = if rest.is_empty() {
                            i += 1;
                            argv.get(i - 1).and_then(|w| w.literal.as_deref())
                        } else {
                            Some(rest)
                        };
                        if code.is_none_or(super::interpreters::perl_may_act) {
                            self.code_acts(argv, "the Perl code");
                        }
                        break;
                    }
                    'v' | 'h' => script_given = true,
                    'i' => {
                        in_place = Some(rest.to_string());
                        break;
                    }
                    // `-MFOO` is the source line `use FOO;` (`-M'strict;
                    // system "rm x"'` is code), `-MMod=f` imports `f`
                    // (`File::Path=remove_tree`); `-I` makes a module a
                    // file of the directory named; `-d:Mod` loads `Mod`.
                    'M' | 'm' => {
                        let module = if rest.is_empty() {
                            i += 1;
                            argv.get(i - 1).and_then(|w| w.literal.as_deref())
                        } else {
                            Some(rest)
                        };
                        if !module.is_some_and(super::interpreters::perl_module_is_inert) {
                            self.code_acts(argv, "a Perl module loaded on the command line");
                        }
                        break;
                    }
                    'I' => {
                        if rest.is_empty() {
                            i += 1;
                        }
                        self.code_acts(
                            argv,
                            "perl -I, which loads modules from a directory named here,",
                        );
                        break;
                    }
                    'd' if rest.starts_with(':') || rest.starts_with("t:") => {
                        self.code_acts(argv, "perl -d:MODULE, which runs a module,");
                        break;
                    }
                    // The debugger reads its commands from the input.
                    'd' => {
                        debugger = true;
                        break;
                    }
                    'D' | 'C' | 'F' | 'x' | 'l' | '0' | 'V' => break,
                    _ => {}
                }
            }
        }
        if !script_given {
            self.code_acts(argv, "perl, reading code from its input,");
        } else if debugger {
            self.commands_from_input(argv, "perl's debugger");
        }
        let Some(ext) = in_place else { return };
        self.writes_all(argv, &files, more);
        if !ext.is_empty() {
            for f in &files {
                if let Some(file) = &f.literal {
                    let backup = if ext.contains('*') {
                        ext.replace('*', file)
                    } else {
                        format!("{file}{ext}")
                    };
                    self.writes(&WordVal::literal(&backup));
                }
            }
        }
    }

    fn output_option(&mut self, argv: &[WordVal], base: &str) {
        let (with_arg, writes, runs): (&'static str, &[&str], &[&str]) = match base {
            "tcpdump" => ("cCEFGiMmrsTwWyzZBj", &["-w"], &["-z"]),
            _ => ("abeEoOpPsSuUXI", &["-o"], &[]),
        };
        let p = options::parse(
            &argv[1..],
            &Spec {
                with_arg,
                long_with_arg: &["--output"],
                posix: base != "tcpdump",
                ..Spec::default()
            },
        );
        for v in p.values(writes).collect::<Vec<_>>() {
            self.writes_value(argv, v);
        }
        for v in p.values(&["--output"]).collect::<Vec<_>>() {
            self.writes_value(argv, v);
        }
        for v in p.values(runs).collect::<Vec<_>>() {
            self.runs(argv, v, "tcpdump -z");
        }
    }

    /// `script [-c cmd] [file]`: runs the command, writes the file.
    fn script_command(&mut self, argv: &[WordVal]) {
        let p = options::parse(
            &argv[1..],
            &Spec {
                flags: "aeEfqhV",
                with_arg: "cBIOmT",
                optional_arg: "t",
                long_with_arg: &[
                    "--command",
                    "--log-io",
                    "--log-in",
                    "--log-out",
                    "--log-timing",
                    "--logging-format",
                    "--echo",
                    "--output-limit",
                ],
                long_optional: &["--timing"],
                ..Spec::default()
            },
        );
        for v in p.values(&["-c", "--command"]).collect::<Vec<_>>() {
            self.runs(argv, v, "script -c");
        }
        for v in p
            .values(&[
                "-B",
                "-I",
                "-O",
                "-T",
                "--log-io",
                "--log-in",
                "--log-out",
                "--log-timing",
                "-t",
                "--timing",
            ])
            .flatten()
            .collect::<Vec<_>>()
        {
            self.writes(v);
        }
        match p.operands.first() {
            Some(file) => {
                let file = file.clone();
                self.writes(&file);
            }
            None => self.writes(&WordVal::literal("typescript")),
        }
    }
}

/// ssh's words as ssh reads them (`spec` in POSIX order): options up to
/// the destination, then, unless `--` came before it, options again up to
/// the first word of the remote command (`ssh h -o HostName=x uptime` is
/// `ssh -o HostName=x h uptime`; in `ssh h ls -o x` the `-o` is `ls`'s).
/// With a `spec` that reads options anywhere (sftp's), its reading.
fn ssh_words(words: &[WordVal], spec: &Spec) -> Parsed {
    let mut p = options::parse(words, spec);
    let Some(&host_at) = p.operand_at.first().filter(|_| spec.posix) else {
        return p;
    };
    if host_at > 0 && words[host_at - 1].literal.as_deref() == Some("--") {
        return p;
    }
    let shift = host_at + 1;
    let after = options::parse(&words[shift..], spec);
    p.found.extend(after.found.into_iter().map(|mut f| {
        f.at += shift;
        f
    }));
    p.operands.truncate(1);
    p.operand_at.truncate(1);
    p.operands.extend(after.operands);
    p.operand_at
        .extend(after.operand_at.into_iter().map(|at| at + shift));
    p.unknown.extend(after.unknown);
    p.dynamic |= after.dynamic;
    p
}

impl Analyzer {
    fn scp(&mut self, argv: &[WordVal]) {
        let p = options::parse(
            &argv[1..],
            &Spec {
                // Without its flags, `-r` was read as unknown and a
                // recursive copy as a copy of one file.
                flags: "346ABCOpqRrTv",
                with_arg: "cDFiJlPoSX",
                ..Spec::default()
            },
        );
        // The first remote operand's host, as written, is what `%h` stands
        // for.
        let destination = p.operands.iter().find_map(|w| {
            let l = w.literal.as_deref()?;
            if l.contains("://") {
                super::hosts::ssh_destination(w)
            } else {
                let host = super::hosts::remote_path_host(l)?;
                let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
                Some(
                    host.trim_start_matches('[')
                        .trim_end_matches(']')
                        .to_string(),
                )
            }
        });
        self.ssh_options(argv, &p, destination.as_deref());
        self.remote_path_hosts(&p.operands);
        self.openssh_hosts(&p, destination.as_deref());
        for v in p.values(&["-S"]).collect::<Vec<_>>() {
            self.runs(argv, v, "scp -S");
        }
        let Some((dest, sources)) = p.operands.split_last() else {
            return;
        };
        let remote = |w: &WordVal| {
            w.literal
                .as_deref()
                .is_none_or(|l| l.split('/').next().is_some_and(|head| head.contains(':')))
        };
        if sources.is_empty() || remote(dest) {
            return;
        }
        let is_dir = dest
            .literal
            .as_deref()
            .is_some_and(|l| l.ends_with('/') || l == "." || l == ".." || self.is_directory(l));
        if is_dir || sources.len() > 1 || p.has(&["-r"]) {
            self.writes_inside(dest);
        } else {
            self.writes(dest);
        }
    }

    /// ssh-copy-id runs ssh (or sftp) to its `[user@]host` with the `-o`,
    /// `-p` and `-F` it is given.
    fn ssh_copy_id(&mut self, argv: &[WordVal]) {
        let p = options::parse(
            &argv[1..],
            &Spec {
                flags: "fnsxh",
                with_arg: "ioptFJ",
                ..Spec::default()
            },
        );
        let destination = p.operands.first().and_then(super::hosts::ssh_destination);
        self.ssh_options(argv, &p, destination.as_deref());
        for host in p.operands.clone() {
            self.reaches(&host);
        }
        self.openssh_hosts(&p, destination.as_deref());
    }

    fn rsync(&mut self, argv: &[WordVal]) {
        let p = options::parse(&argv[1..], &RSYNC);
        self.remote_path_hosts(&p.operands);
        for v in p.values(&["-e", "--rsh"]).collect::<Vec<_>>() {
            self.runs(argv, v, "rsync -e");
        }
        for v in p
            .values(&["--log-file", "--write-batch", "--only-write-batch"])
            .collect::<Vec<_>>()
        {
            self.writes_value(argv, v);
        }
    }

    fn ssh(&mut self, argv: &[WordVal], base: &str) {
        // sftp reads its options anywhere (getopt); ssh reads them before
        // its destination and again after it (see [`ssh_words`]).
        let with_arg = if base == "ssh" {
            "BbcDEeFIiJLlmOoPpQRSWw"
        } else {
            "BbcDFiJloPRsS"
        };
        let spec = Spec {
            with_arg,
            posix: base == "ssh",
            ..Spec::default()
        };
        let p = ssh_words(&argv[1..], &spec);
        let destination = p.operands.first().and_then(super::hosts::ssh_destination);
        self.ssh_options(argv, &p, destination.as_deref());
        if let Some(host) = p.operands.first().cloned() {
            self.reaches(&host);
        }
        self.openssh_hosts(&p, destination.as_deref());
        // `"$@"`: the arguments the program that runs ssh gives it (`rsync
        // -e ssh`), not options written here.
        let written: Vec<WordVal> = argv[1..]
            .iter()
            .filter(|w| w.raw != "\"$@\"")
            .cloned()
            .collect();
        if ssh_words(&written, &spec).dynamic {
            // `X='-oProxyCommand=…'; ssh $X host`
            self.may_run(
                argv,
                "an option computed at run time may be -o ProxyCommand or another that runs a command",
            );
            // … or `-o HostName=…`, `-J …`: another host.
            self.reaches_host(&short_text(argv), None);
        }
        if base == "sftp" {
            for v in p.values(&["-S", "-D"]).collect::<Vec<_>>() {
                self.runs(argv, v, "sftp -S or -D");
            }
            return;
        }
        self.ssh_command(argv, &p);
    }

    /// `mosh [options] [--] HOST [--] [COMMAND…]`: ssh to the host, where
    /// the command runs as `ssh HOST COMMAND` runs it; `--ssh` and
    /// `--client` name programs run here.
    fn mosh(&mut self, argv: &[WordVal]) {
        let mut ssh = vec![WordVal::literal("ssh")];
        let mut k = 1;
        while let Some(w) = argv.get(k) {
            k += 1;
            let Some(l) = w.literal.as_deref() else {
                ssh.push(w.clone());
                break;
            };
            match l.split_once('=') {
                Some(("--ssh" | "--client", v)) => {
                    self.runs(argv, Some(&WordVal::literal(v)), "mosh's --ssh or --client");
                }
                _ if l == "-p" => k += 1,
                _ if l == "--" => {}
                _ if l.starts_with('-') => {}
                _ => {
                    ssh.push(w.clone());
                    break;
                }
            }
        }
        if argv.get(k).and_then(|w| w.literal.as_deref()) == Some("--") {
            k += 1;
        }
        ssh.extend(argv.get(k..).unwrap_or(&[]).iter().cloned());
        self.ssh(&ssh, "ssh");
    }

    /// Clients that run local commands their command language names
    /// (`lftp -c '!rm x'`, `smbclient //h/s -c '!rm x'`, ftp's `!cmd`
    /// read from its input): their words are guessed as commands, as an
    /// unknown program's are (the guesser splits `-c` values at `!` and
    /// `;`), and what the command line feeds to their input acts as inline
    /// code does, unless they are given their commands otherwise.
    fn host_client_commands(&mut self, base: &str, argv: &[WordVal]) {
        const COMMAND_LANGUAGE: &[&str] = &[
            "lftp",
            "ftp",
            "tftp",
            "smbclient",
            "rpcclient",
            "telnet",
            "mysqlsh",
        ];
        if !COMMAND_LANGUAGE.contains(&base) {
            return;
        }
        let given = argv[1..].iter().any(|w| {
            w.literal.as_deref().is_some_and(|l| {
                matches!(l, "-c" | "-e" | "--command" | "--execute" | "-f" | "--file")
                    || l.starts_with("--command=")
                    || l.starts_with("--execute=")
            })
        });
        for w in &argv[1..] {
            if let Some(l) = w.literal.as_deref() {
                self.protected_words(l);
            }
        }
        self.guess_runs(argv);
        if !given {
            self.commands_from_input(argv, base);
        }
    }

    /// The command ssh has the other host's shell run: its words joined by
    /// spaces, as ssh sends them. The other host may be this one
    /// (`localhost`), so it meets the deny and ask rules; the ssh command's
    /// own allow covers it, as a package runner's covers what it runs.
    fn ssh_command(&mut self, argv: &[WordVal], p: &Parsed) {
        // No command: forwarding only (-N), a version, a configuration or
        // a query printed, a control request, a subsystem.
        if p.dynamic
            || p.has(&["-O", "-Q"])
            || p.unknown
                .iter()
                .any(|o| matches!(o.as_str(), "-N" | "-V" | "-G" | "-s"))
        {
            return;
        }
        let Some(words) = p.operands.get(1..).filter(|w| !w.is_empty()) else {
            if !p.operands.is_empty() {
                self.runs_unwritten(
                    argv,
                    "ssh starts a shell on the other host, which runs the commands it reads from its input",
                );
            }
            return;
        };
        let script: Option<Vec<&str>> = words.iter().map(|w| w.literal.as_deref()).collect();
        match script {
            Some(script) => {
                self.runner_depth += 1;
                self.nested_script(argv, &script.join(" "));
                self.runner_depth -= 1;
            }
            None => self.runs_unwritten(
                argv,
                "the command ssh has the other host run is computed at run time",
            ),
        }
    }

    /// `-o ProxyCommand=…` and friends, `-F config`. The commands are read
    /// with OpenSSH's tokens replaced (`nc %h %p` connects to the host
    /// `HostName` or the `destination` names).
    fn ssh_options(&mut self, argv: &[WordVal], p: &Parsed, destination: Option<&str>) {
        let settings: Vec<Option<(String, String)>> = p
            .values(&["-o"])
            .map(|v| {
                v.and_then(|v| v.literal.as_deref()).map(|text| {
                    super::hosts::ssh_option(text)
                        .unwrap_or((text.to_ascii_lowercase(), String::new()))
                })
            })
            .collect();
        // The first `HostName` wins, as in ssh's configuration.
        let host_name = settings
            .iter()
            .flatten()
            .find(|(key, _)| key == "hostname")
            .map(|(_, value)| {
                super::hosts::ssh_tokens(value, destination.unwrap_or("%h"), destination)
            });
        let host = host_name.as_deref().or(destination).unwrap_or("%h");
        for setting in settings {
            let Some((key, value)) = setting else {
                self.may_run(argv, "an ssh option computed at run time can run a command");
                continue;
            };
            match key.as_str() {
                "proxycommand" | "localcommand" | "knownhostscommand" => {
                    if value.eq_ignore_ascii_case("none") {
                        continue;
                    }
                    let command = super::hosts::ssh_tokens(&value, host, destination);
                    self.runs(
                        argv,
                        Some(&WordVal::literal(&command)),
                        &format!("ssh's {key}"),
                    );
                }
                "pkcs11provider" | "securitykeyprovider" | "permitlocalcommand" | "include" => {
                    self.may_run(
                        argv,
                        &format!("ssh's {key} can run code that is not written here"),
                    );
                }
                _ => {}
            }
        }
        if p.has(&["-F"]) {
            self.runs_unwritten(
                argv,
                "ssh reads a configuration file, which can name commands to run",
            );
        }
    }

    fn less(&mut self, argv: &[WordVal]) {
        // `+cmd` runs less commands at start: `!` and `|` run shell
        // commands, `v` an editor, `s` saves to a file; a search
        // (`+/pattern`) does none of these.
        let runs = argv[1..].iter().any(|w| {
            w.literal.as_deref().is_some_and(|l| {
                let cmd = l.trim_start_matches('+');
                l.starts_with('+')
                    && !cmd.starts_with(['/', '?'])
                    && (cmd.contains(['!', '|']) || cmd.starts_with(['v', 's']))
            })
        });
        if runs {
            self.may_run(
                argv,
                "less runs the commands given with `+`, which can run shell commands",
            );
        }
        let p = options::parse(
            &argv[1..],
            &Spec {
                with_arg: "bhjkoOpPtTxyz#",
                long_with_arg: &[
                    "--log-file",
                    "--LOG-FILE",
                    "--lesskey-file",
                    "--lesskey-src",
                    "--lesskey-content",
                    "--tag",
                    "--prompt",
                ],
                ..Spec::default()
            },
        );
        for v in p
            .values(&["-o", "-O", "--log-file", "--LOG-FILE"])
            .collect::<Vec<_>>()
        {
            self.writes_value(argv, v);
        }
        // A lesskey file's `#env` section sets `LESSOPEN=|cmd`, which less
        // runs on the file it opens, terminal or not (`-k FILE`,
        // `--lesskey-file`, `--lesskey-src`, `--lesskey-content`, and
        // their abbreviations).
        let lesskey = p.has(&["-k"])
            || argv[1..].iter().any(|w| {
                w.literal
                    .as_deref()
                    .is_some_and(|l| l.starts_with("--lessk"))
            });
        if lesskey {
            self.may_run(
                argv,
                "a lesskey file can set LESSOPEN, which less runs as a command",
            );
        }
        if p.dynamic {
            self.may_run(
                argv,
                "an option computed at run time may be a `+` command, which can run shell commands",
            );
        }
    }

    /// ripgrep runs `--pre CMD` as `CMD FILE` on every file it searches,
    /// and `--hostname-bin CMD` once. A word computed at run time may be
    /// either (`rg $OPTS x`), unless it is the value of an option.
    fn ripgrep(&mut self, argv: &[WordVal]) {
        /// Options whose value is the next word when not attached.
        const WITH_VALUE: &[&str] = &[
            "-A",
            "-B",
            "-C",
            "-E",
            "-M",
            "-T",
            "-d",
            "-e",
            "-f",
            "-g",
            "-j",
            "-m",
            "-r",
            "-t",
            "--after-context",
            "--before-context",
            "--color",
            "--colors",
            "--context",
            "--context-separator",
            "--dfa-size-limit",
            "--encoding",
            "--engine",
            "--field-context-separator",
            "--field-match-separator",
            "--file",
            "--glob",
            "--hyperlink-format",
            "--iglob",
            "--ignore-file",
            "--max-columns",
            "--max-count",
            "--max-depth",
            "--max-filesize",
            "--path-separator",
            "--pre-glob",
            "--regex-size-limit",
            "--regexp",
            "--replace",
            "--sort",
            "--sortr",
            "--threads",
            "--type",
            "--type-add",
            "--type-clear",
            "--type-not",
        ];
        let args = &argv[1..];
        let mut k = 0;
        while let Some(w) = args.get(k) {
            let Some(l) = w.literal.as_deref() else {
                self.may_run(
                    argv,
                    "an option of ripgrep computed at run time may be --pre, which runs a command on every file",
                );
                return;
            };
            if l == "--" {
                break;
            }
            for name in ["--pre", "--hostname-bin"] {
                if l == name {
                    self.runs(argv, args.get(k + 1), &format!("ripgrep's {name}"));
                } else if let Some(value) = l.strip_prefix(name).and_then(|v| v.strip_prefix('=')) {
                    self.runs(
                        argv,
                        Some(&WordVal::literal(value)),
                        &format!("ripgrep's {name}"),
                    );
                }
            }
            k += if WITH_VALUE.contains(&l) || matches!(l, "--pre" | "--hostname-bin") {
                2
            } else {
                1
            };
        }
    }

    /// `patch`: its file operand (or the files its input names) is written.
    fn patch(&mut self, argv: &[WordVal]) {
        let p = options::parse(
            &argv[1..],
            &Spec {
                with_arg: "BdDFgiopqrVYz",
                long_with_arg: &[
                    "--prefix",
                    "--directory",
                    "--ifdef",
                    "--fuzz",
                    "--get",
                    "--input",
                    "--output",
                    "--strip",
                    "--reject-file",
                    "--version-control",
                    "--basename-prefix",
                    "--suffix",
                    "--quoting-style",
                    "--reject-format",
                ],
                ..Spec::default()
            },
        );
        for v in p
            .values(&["-o", "--output", "-r", "--reject-file"])
            .collect::<Vec<_>>()
        {
            self.writes_value(argv, v);
        }
        if p.has(&["--dry-run", "-C", "--check"]) {
            return;
        }
        if p.operands.is_empty() && !p.has(&["-o", "--output"]) {
            // The files are named inside the patch; like its operands, they
            // meet Edit deny and ask rules.
            let dir = p
                .values(&["-d", "--directory"])
                .last()
                .flatten()
                .cloned()
                .unwrap_or_else(|| WordVal::literal("."));
            self.changes_inside(&dir);
        }
    }

    fn compressor(&mut self, argv: &[WordVal], decompress: bool, suffix: &str, more: bool) {
        let p = self.read_options(argv, &COMPRESS, true);
        if p.has(&[
            "-c",
            "--stdout",
            "--to-stdout",
            "-t",
            "--test",
            "-l",
            "--list",
        ]) {
            return;
        }
        for v in p.values(&["-o"]).collect::<Vec<_>>() {
            self.writes_value(argv, v);
        }
        let decompress = decompress || p.has(&["-d", "--decompress", "--uncompress"]);
        let suffix = p
            .values(&["-S", "--suffix"])
            .last()
            .flatten()
            .and_then(|v| v.literal.clone())
            .unwrap_or_else(|| suffix.to_string());
        let recursive = p.has(&["-r", "--recursive"]);
        for f in &p.operands {
            if recursive {
                self.writes_inside(f);
                continue;
            }
            self.writes(f);
            if let Some(name) = &f.literal {
                let other = if decompress {
                    name.strip_suffix(suffix.as_str()).map(str::to_string)
                } else {
                    Some(format!("{name}{suffix}"))
                };
                if let Some(other) = other {
                    self.writes(&WordVal {
                        raw: other.clone(),
                        literal: Some(other),
                        ..f.clone()
                    });
                }
            }
        }
        if more {
            self.writes_unknown(
                argv,
                "it also writes the files xargs or find give it at run time",
            );
        }
    }

    /// Whether `written` (resolved to `path`) names a directory: `.`, `..`,
    /// a trailing `/`, or a directory now (only when paths are resolved
    /// through the file system).
    pub(super) fn names_directory(&self, written: &str, path: &crate::paths::ResolvedPath) -> bool {
        written == "."
            || written == ".."
            || written.ends_with('/')
            || (self.resolver.uses_file_system() && path.canonical.is_dir())
    }

    /// Whether a literal path is a directory now (only when paths are
    /// resolved through the file system).
    fn is_directory(&self, lit: &str) -> bool {
        if !self.resolver.uses_file_system() {
            return false;
        }
        let p = Path::new(lit);
        match &self.cwds {
            Cwds::Known(dirs) => dirs.iter().any(|d| d.join(p).is_dir()),
            Cwds::Unknown => p.is_absolute() && p.is_dir(),
        }
    }
}

/// The file an HTTPie request item reads, if its separator (the first in
/// it, the longest where several start there) ends in `@`.
fn httpie_item_file(item: &str) -> Option<&str> {
    const SEPARATORS: &[&str] = &[":=@", "=@", ":@", "==", ":=", "=", ":", "@"];
    let mut chars = item.char_indices();
    while let Some((k, c)) = chars.next() {
        if c == '\\' {
            // An escaped separator is part of the name.
            chars.next();
            continue;
        }
        if let Some(sep) = SEPARATORS.iter().find(|s| item[k..].starts_with(**s)) {
            let rest = &item[k + sep.len()..];
            return (sep.ends_with('@') && !rest.is_empty()).then_some(rest);
        }
    }
    None
}

/// Whether `word` is among the literal words of `args`.
/// `set nu`, `set ts=4 sw=4 noet`, `set ft=python`: options of plain
/// words and values. An option that names a program, a shell, an
/// expression, a function, a file or directory, or a format that
/// evaluates `%{…}` acts (`set makeprg=…`, `set foldexpr=system(…)`), and
/// so does a value with anything but letters, digits, `.`, `-`, `_`, `,`.
fn plain_vim_set(args: &str) -> bool {
    const ACTS: &[&str] = &[
        "shell", "prg", "expr", "func", "dir", "file", "path", "exrc", "secure", "modeline",
        "line", "string", "format", "convert", "viminfo", "shada", "rtp", "pp", "py", "term",
        "cmd", "key", "spell",
    ];
    args.split_whitespace().all(|a| {
        let (name, value) = a
            .split_once(['=', ':'])
            .or_else(|| a.split_once("+="))
            .unwrap_or((a, ""));
        let name = name.trim_end_matches(['+', '-', '^', '?', '&', '!']);
        !a.contains('!')
            && name.chars().all(|c| c.is_ascii_lowercase())
            && !ACTS.iter().any(|x| name.contains(x))
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ','))
    })
}

fn lits_have(args: &[WordVal], word: &str) -> bool {
    args.iter().any(|w| w.literal.as_deref() == Some(word))
}

/// Whether a package is packed or published from the working directory:
/// `npm`/`pnpm`/`yarn`/`bun` `pack` or `publish`, `cargo package` or
/// `publish`, `poetry`/`uv`/`hatch`/`flit`/`pdm` `build` or `publish`, `gem
/// build`. Each reads the project's files (all not excluded by its own
/// ignore rules, which the policy does not read).
fn packs_working_directory(base: &str, args: &[WordVal]) -> bool {
    let sub = args
        .iter()
        .find_map(|w| w.literal.as_deref().filter(|l| !l.starts_with('-')));
    match base {
        "npm" | "pnpm" | "yarn" | "bun" => matches!(sub, Some("pack" | "publish")),
        "cargo" => matches!(sub, Some("package" | "publish")),
        "poetry" | "uv" | "hatch" | "flit" | "pdm" => matches!(sub, Some("build" | "publish")),
        "gem" => sub == Some("build"),
        _ => false,
    }
}

/// Whether a formatter or fixer is asked to rewrite the files of the
/// working directory without naming any: `cargo fmt`, `cargo fix`, `cargo
/// clippy --fix`, `go fmt`, `go fix`, `go generate`, `terraform fmt`,
/// `ruff format`, `ruff check --fix`, `dprint fmt`, `deno fmt`, `deno lint
/// --fix`, `eslint --fix` (each without a check-only option such as
/// `--check`). With paths named, those paths are what it is given (checked
/// as such); a path-taking formatter's subcommand itself is no path.
fn formats_working_directory(base: &str, args: &[WordVal]) -> bool {
    let lits: Vec<&str> = args.iter().filter_map(|w| w.literal.as_deref()).collect();
    let has = |names: &[&str]| {
        lits.iter().any(|l| {
            names
                .iter()
                .any(|n| l == n || l.starts_with(&format!("{n}=")))
        })
    };
    let positional: Vec<&str> = lits
        .iter()
        .copied()
        .filter(|l| !l.starts_with('-'))
        .collect();
    let sub = positional.first().copied();
    // Operands after the subcommand (values of options counted too: a
    // named path, or a value taken for one, means not the whole directory).
    let named = positional.len() > 1;
    let check_only = has(&[
        "--check",
        "-check",
        "--diff",
        "-diff",
        "--dry-run",
        "-l",
        "-list",
    ]);
    match base {
        "cargo" => match sub {
            Some("fmt") => !check_only,
            Some("fix") => true,
            Some("clippy") => has(&["--fix"]),
            _ => false,
        },
        "go" => matches!(sub, Some("fmt" | "fix" | "generate")),
        "terraform" | "tofu" => sub == Some("fmt") && !check_only && !named,
        "ruff" => match sub {
            Some("format") => !check_only && !named,
            Some("check") => has(&["--fix", "--unsafe-fixes"]) && !named,
            _ => false,
        },
        "dprint" => sub == Some("fmt") && !named,
        "deno" => match sub {
            Some("fmt") => !check_only && !named,
            Some("lint") => has(&["--fix"]) && !named,
            _ => false,
        },
        "eslint" => has(&["--fix"]) && positional.is_empty(),
        _ => false,
    }
}

/// The start of a command line, for a message (the whole of a long one
/// would be built again for every message about it).
pub(super) fn short_text(argv: &[WordVal]) -> String {
    let mut out = String::new();
    for w in argv {
        if out.len() > 160 {
            out.push_str(" …");
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        match &w.literal {
            Some(l) => out.push_str(&super::words::quote(l)),
            None => out.push_str(&w.raw),
        }
    }
    out
}

/// The file name `curl -O` gives a URL: its path's last segment.
fn url_file_name(url: &str) -> Option<String> {
    let without_query = url.split(['?', '#']).next()?;
    let after_scheme = without_query
        .split_once("://")
        .map_or(without_query, |(_, r)| r);
    let (_, path) = after_scheme.split_once('/')?;
    let name = path.rsplit('/').next()?;
    (!name.is_empty() && name != "." && name != "..").then(|| name.to_string())
}

/// What a sed command does besides editing its stream.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum SedEffect {
    Write(String),
    Read(String),
    /// `e command`, or the pattern space run as a command (None).
    Run(Option<String>),
}

/// Read a sed script (GNU syntax) for what it writes, reads and runs.
/// None when it cannot be read.
pub(super) fn sed_effects(script: &str) -> Option<Vec<SedEffect>> {
    let s: Vec<char> = script.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    let to_eol = |i: &mut usize| -> String {
        let start = *i;
        while *i < s.len() && s[*i] != '\n' {
            *i += 1;
        }
        s[start..*i].iter().collect::<String>()
    };
    let skip_blanks = |i: &mut usize| {
        while *i < s.len() && (s[*i] == ' ' || s[*i] == '\t') {
            *i += 1;
        }
    };
    // Text up to an unescaped `delim`; None if it never comes. In a regular
    // expression (`regex`), a bracket expression may hold the delimiter:
    // `s/[/]/x/` is the expression `[/]`.
    let delimited = |i: &mut usize, delim: char, regex: bool| -> Option<()> {
        while *i < s.len() {
            match s[*i] {
                '\\' => *i += 2,
                '[' if regex => {
                    *i += 1;
                    if s.get(*i) == Some(&'^') {
                        *i += 1;
                    }
                    if s.get(*i) == Some(&']') {
                        *i += 1;
                    }
                    loop {
                        match *s.get(*i)? {
                            ']' => break,
                            '\n' => return None,
                            '[' if matches!(s.get(*i + 1), Some(':' | '.' | '=')) => {
                                // `[:alpha:]`, `[.x.]`, `[=e=]`: to its close.
                                let kind = s[*i + 1];
                                *i += 2;
                                while !(s.get(*i)? == &kind && s.get(*i + 1)? == &']') {
                                    *i += 1;
                                }
                                *i += 2;
                            }
                            _ => *i += 1,
                        }
                    }
                    *i += 1;
                }
                c if c == delim => {
                    *i += 1;
                    return Some(());
                }
                '\n' if delim != '\n' => return None,
                _ => *i += 1,
            }
        }
        None
    };
    loop {
        while i < s.len() && matches!(s[i], ' ' | '\t' | '\n' | ';') {
            i += 1;
        }
        if i >= s.len() {
            break;
        }
        if s[i] == '#' {
            to_eol(&mut i);
            continue;
        }
        // Addresses: `N`, `$`, `/re/`, `\cREc`, `first~step`, `addr1,addr2`,
        // `addr,+N`, `addr,~N`, each with `I`/`M` after a regex; then `!`.
        for n in 0..2 {
            if n == 1 {
                if s.get(i) != Some(&',') {
                    break;
                }
                i += 1;
                skip_blanks(&mut i);
            }
            match s.get(i) {
                Some('/') => {
                    i += 1;
                    delimited(&mut i, '/', true)?;
                    while matches!(s.get(i), Some('I' | 'M')) {
                        i += 1;
                    }
                }
                Some('\\') => {
                    let d = *s.get(i + 1)?;
                    i += 2;
                    delimited(&mut i, d, true)?;
                    while matches!(s.get(i), Some('I' | 'M')) {
                        i += 1;
                    }
                }
                Some('$') => i += 1,
                Some(c) if c.is_ascii_digit() || matches!(c, '+' | '~') => {
                    i += 1;
                    while i < s.len() && (s[i].is_ascii_digit() || s[i] == '~') {
                        i += 1;
                    }
                }
                _ => {}
            }
        }
        skip_blanks(&mut i);
        while s.get(i) == Some(&'!') {
            i += 1;
            skip_blanks(&mut i);
        }
        let c = *s.get(i)?;
        i += 1;
        match c {
            // A block's first command may follow at once.
            '{' => continue,
            '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z'
            | 'F' => {}
            'l' | 'L' | 'q' | 'Q' => {
                skip_blanks(&mut i);
                while i < s.len() && s[i].is_ascii_digit() {
                    i += 1;
                }
            }
            ':' | 'b' | 't' | 'T' | 'v' => {
                skip_blanks(&mut i);
                while i < s.len() && !matches!(s[i], '\n' | ';') && !(c != ':' && s[i] == '}') {
                    i += 1;
                }
            }
            'a' | 'i' | 'c' => {
                // Text to the end of the line; `\` at its end continues it.
                loop {
                    let line = to_eol(&mut i);
                    if line.ends_with('\\') && i < s.len() {
                        i += 1;
                        continue;
                    }
                    break;
                }
            }
            'r' | 'R' | 'w' | 'W' => {
                skip_blanks(&mut i);
                let file = to_eol(&mut i);
                if file.is_empty() {
                    return None;
                }
                out.push(if matches!(c, 'w' | 'W') {
                    SedEffect::Write(file)
                } else {
                    SedEffect::Read(file)
                });
            }
            'e' => {
                skip_blanks(&mut i);
                let command = to_eol(&mut i);
                out.push(SedEffect::Run(
                    (!command.trim().is_empty()).then_some(command),
                ));
            }
            's' | 'y' => {
                let d = *s.get(i)?;
                if d == '\n' || d == '\\' {
                    return None;
                }
                i += 1;
                delimited(&mut i, d, c == 's')?;
                // The replacement may span lines (`\` + newline).
                while i < s.len() && s[i] != d {
                    i += if s[i] == '\\' { 2 } else { 1 };
                }
                if i >= s.len() {
                    return None;
                }
                i += 1;
                if c == 's' {
                    while let Some(&f) = s.get(i) {
                        match f {
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' => i += 1,
                            '0'..='9' => i += 1,
                            'e' => {
                                out.push(SedEffect::Run(None));
                                i += 1;
                            }
                            'w' => {
                                i += 1;
                                skip_blanks(&mut i);
                                let file = to_eol(&mut i);
                                if file.is_empty() {
                                    return None;
                                }
                                out.push(SedEffect::Write(file));
                            }
                            _ => break,
                        }
                    }
                }
            }
            _ => return None,
        }
        skip_blanks(&mut i);
        match s.get(i) {
            None | Some(';' | '\n' | '}' | '#') => {}
            Some(_) => return None,
        }
    }
    Some(out)
}

/// Whether an awk program runs commands (`system(…)`, `print | "cmd"`,
/// `"cmd" | getline`, `|&`) and whether it writes files (`print > file`).
/// String literals are left out first, so `"a|b"` is text.
pub(super) fn awk_effects(program: &str) -> (bool, bool) {
    // Read twice: strings left out, and strings, regular expressions and
    // comments left out. A `"` inside `/"/` or after `#` throws the first
    // reading out of step, and a `/` read as the start of an expression
    // where it divides throws the second: code hidden from one is seen by
    // the other.
    let (a_runs, a_writes) = awk_code_effects(&awk_code(program, false));
    let (b_runs, b_writes) = awk_code_effects(&awk_code(program, true));
    (a_runs || b_runs, a_writes || b_writes)
}

/// The files an awk program reads besides its operands: the string after
/// `getline [var] <` (`getline l < ".env"`), and whether it reads a file
/// it computes (`getline < f`, `getline < ARGV[1]`) or changes the list of
/// files it reads (`ARGV[1] = ".env"`, `ARGC = 2`).
fn awk_reads(program: &str) -> (Vec<String>, bool) {
    let mut named = Vec::new();
    let mut unknown = false;
    // What follows a `getline` or an `ARGV` is looked at this far: a file
    // name longer than that is not read, and a long program is read in
    // linear time.
    const WINDOW: usize = 512;
    let window = |s: &str| -> usize {
        let mut end = s.len().min(WINDOW);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        end
    };
    for (k, _) in program.match_indices("getline") {
        let rest = &program[k + "getline".len()..];
        let rest = rest[..window(rest)].trim_start();
        // The variable read into, if any: a name, `$n` or `a[i]`.
        let var_end = rest
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '$' | '[' | ']')))
            .unwrap_or(rest.len());
        let rest = rest[var_end..].trim_start();
        let Some(target) = rest.strip_prefix('<') else {
            continue;
        };
        let target = target.trim_start();
        let literal = target.strip_prefix('"').and_then(|t| {
            let end = t.find(['"', '\\'])?;
            let after = t[end..].strip_prefix('"')?.trim_start();
            (after.is_empty() || after.starts_with([')', ';', '}', '\n', '>', '|', '&']))
                .then(|| t[..end].to_owned())
        });
        match literal {
            Some(file) if file == "-" || file == "/dev/stdin" => {}
            Some(file) => named.push(file),
            None => unknown = true,
        }
    }
    let code = awk_code(program, false);
    let assigned = |name: &str| {
        code.match_indices(name).any(|(k, _)| {
            let rest = &code[k + name.len()..];
            let mut rest = &rest[..window(rest)];
            if name == "ARGV" {
                let Some(close) = rest
                    .trim_start()
                    .strip_prefix('[')
                    .and_then(|r| r.find(']'))
                else {
                    return false;
                };
                rest = &rest.trim_start()[close + 2..];
            }
            let rest = rest.trim_start();
            (rest.starts_with('=') && !rest.starts_with("=="))
                || ["+=", "-=", "++", "--"]
                    .iter()
                    .any(|op| rest.starts_with(op))
        })
    };
    unknown |= assigned("ARGV") || assigned("ARGC");
    (named, unknown)
}

/// An awk program without its string literals (each left as `""`), and
/// with `lexical`, without its regular expressions (`//`) and comments.
fn awk_code(program: &str, lexical: bool) -> String {
    let mut code = String::with_capacity(program.len());
    let mut chars = program.chars().peekable();
    // The last character of code before this one, blanks aside: after an
    // operand (`a`, `1`, `)`, `]`, `$`) a `/` divides.
    let mut last = ' ';
    while let Some(c) = chars.next() {
        if c == '"' {
            code.push_str("\"\"");
            while let Some(d) = chars.next() {
                match d {
                    '\\' => {
                        chars.next();
                    }
                    '"' => break,
                    _ => {}
                }
            }
            last = '"';
            continue;
        }
        if lexical && c == '#' {
            for d in chars.by_ref() {
                if d == '\n' {
                    code.push('\n');
                    break;
                }
            }
            last = ' ';
            continue;
        }
        if lexical
            && c == '/'
            && !(last.is_alphanumeric() || matches!(last, '_' | ')' | ']' | '$' | '.' | '"'))
        {
            code.push_str("//");
            let mut bracket = false;
            while let Some(d) = chars.next() {
                match d {
                    '\\' => {
                        chars.next();
                    }
                    '[' => bracket = true,
                    ']' => bracket = false,
                    '/' if !bracket => break,
                    '\n' => break,
                    _ => {}
                }
            }
            last = '/';
            continue;
        }
        code.push(c);
        if !c.is_whitespace() {
            last = c;
        }
    }
    code
}

/// What awk code without its strings runs and writes (see [`awk_effects`]).
fn awk_code_effects(code: &str) -> (bool, bool) {
    // `@f(…)`: gawk's indirect call, of any function, `system` too.
    let indirect = code.match_indices('@').any(|(k, _)| {
        code[k + 1..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
    });
    let runs = indirect
        || code.contains("system")
        || code.contains("|&")
        || code.contains("getline") && {
            code.match_indices('|').any(|(k, _)| {
                code[k + 1..].trim_start().starts_with("getline") && !code[..k].ends_with('|')
            })
        };
    let mut pipes = false;
    let mut writes = false;
    for (k, _) in code.match_indices("print") {
        let statement: String = code[k..]
            .chars()
            .take_while(|c| !matches!(c, ';' | '}' | '\n'))
            .collect();
        let without_or = statement.replace("||", "");
        pipes |= without_or.contains('|');
        // `print (a > b)` compares; a `>` outside parentheses redirects.
        let mut depth = 0i32;
        for ch in statement.chars() {
            match ch {
                '(' => depth += 1,
                ')' => depth -= 1,
                '>' if depth <= 0 => writes = true,
                _ => {}
            }
        }
    }
    (runs || pipes, writes)
}

/// The value of the first of `options` in `args` (`-C DIR`, `-CDIR`,
/// `-C=DIR`), if any is written there.
fn directory_option<'a>(args: &'a [WordVal], options: &[&str]) -> Option<&'a str> {
    args.iter().enumerate().find_map(|(k, w)| {
        let l = w.literal.as_deref()?;
        options.iter().find_map(|o| {
            if l == *o {
                args.get(k + 1)?.literal.as_deref()
            } else {
                l.strip_prefix(o)
                    .map(|rest| rest.strip_prefix('=').unwrap_or(rest))
                    .filter(|rest| !rest.is_empty())
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_scripts() {
        use SedEffect::*;
        assert_eq!(sed_effects("s/a/b/g").unwrap(), []);
        assert_eq!(
            sed_effects("s/a/b/w out.txt").unwrap(),
            [Write("out.txt".into())]
        );
        assert_eq!(
            sed_effects("/x/w secrets/k\np").unwrap(),
            [Write("secrets/k".into())]
        );
        assert_eq!(
            sed_effects("1e touch X").unwrap(),
            [Run(Some("touch X".into()))]
        );
        assert_eq!(sed_effects("s/x/touch X/e").unwrap(), [Run(None)]);
        assert_eq!(sed_effects("1,/re/{s|a|b|;p};$d").unwrap(), []);
        assert_eq!(sed_effects("2r in.txt").unwrap(), [Read("in.txt".into())]);
        assert_eq!(sed_effects(":a;N;$!ba;s/\\n/ /g").unwrap(), []);
        assert_eq!(sed_effects("a hello; w x").unwrap(), []);
        assert!(sed_effects("k").is_none());
        assert!(sed_effects("s/a/b").is_none());
    }

    #[test]
    fn awk_programs() {
        assert_eq!(
            awk_reads("BEGIN{while((getline l < \".env\")>0) print l}"),
            (vec![".env".to_owned()], false)
        );
        assert_eq!(awk_reads("{getline < \"a\" \"b\"}"), (vec![], true));
        assert_eq!(awk_reads("{getline l < f}"), (vec![], true));
        assert_eq!(awk_reads("BEGIN{ARGV[1]=\"x\"; ARGC=2}"), (vec![], true));
        assert_eq!(
            awk_reads("{getline; if (ARGC == 2) print}"),
            (vec![], false)
        );
        assert_eq!(awk_reads("{\"date\" | getline d}"), (vec![], false));
        assert_eq!(awk_effects("{print $1}"), (false, false));
        assert_eq!(awk_effects("/a|b/ {print}"), (false, false));
        assert_eq!(awk_effects("$1 > 5 {print \"a|b>c\"}"), (false, false));
        assert_eq!(awk_effects("{system(\"rm x\")}"), (true, false));
        assert_eq!(awk_effects("{print | \"sh\"}"), (true, false));
        assert_eq!(awk_effects("{\"date\" | getline d}"), (true, false));
        assert_eq!(awk_effects("{print > \"out\"}"), (false, true));
        assert_eq!(awk_effects("{print ($1 > 2)}"), (false, false));
        assert_eq!(awk_effects("a || b {print}"), (false, false));
    }

    #[test]
    fn curl_names() {
        assert_eq!(
            url_file_name("https://x.org/a/b.tar.gz?x=1").as_deref(),
            Some("b.tar.gz")
        );
        assert_eq!(url_file_name("https://x.org/"), None);
        assert_eq!(url_file_name("https://x.org"), None);
    }
}
