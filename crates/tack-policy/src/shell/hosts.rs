//! Hosts a command reaches over the network, for the `WebFetch(domain:…)`
//! deny and ask rules: a user who denies a domain to WebFetch does not mean
//! `curl` to reach it either (Claude Code's sandbox takes the same rules as
//! its network's allow and deny lists; tack holds commands to them with or
//! without the sandbox).
//!
//! Two readings, both conservative (a host that is no host only ever meets
//! a rule written for it):
//! - any word of any command that holds `scheme://host` (`git clone
//!   https://…`, `python3 -c "urlopen('https://…')"`, `--url=https://…`);
//! - the operands of programs whose operands are hosts or URLs without a
//!   scheme (`curl evil.com`, `ssh user@host`, `scp f host:dir`, `nc host
//!   80`, `dig x.host`, `socat - TCP:host:443`, `git push git@host:x.git`).
//!   Such an operand computed at run time (`curl "$URL"`) is uncertain:
//!   asked when a domain deny or ask rule exists.
//!
//! Code the command does not show (a script file, what a program reads
//! from its input or a file of URLs, redirects) is for the OS sandbox's
//! network allowlist to hold.

use super::options::{self, Spec};
use super::{Analyzer, Item, UncertainKind, WordVal};

/// Programs whose operands (not their options) are a host or a URL, and
/// how many leading operands may be one when computed at run time
/// (`usize::MAX`: all; every literal operand is read).
const HOST_OPERANDS: &[(&str, usize)] = &[
    ("ping", usize::MAX),
    ("ping6", usize::MAX),
    ("dig", usize::MAX),
    ("nslookup", 1),
    ("host", 1),
    ("whois", usize::MAX),
    ("telnet", 1),
    ("ftp", 1),
    ("lftp", 1),
    ("mosh", 1),
    ("aria2c", usize::MAX),
    ("lynx", usize::MAX),
    ("links", usize::MAX),
    ("elinks", usize::MAX),
    ("w3m", usize::MAX),
    ("traceroute", 1),
    ("tracepath", 1),
    ("mtr", 1),
    ("tftp", 1),
    ("nmap", usize::MAX),
    ("ssh-keyscan", usize::MAX),
    ("fping", usize::MAX),
    ("arping", 1),
    ("hping3", 1),
    ("smbclient", 1),
    ("mongosh", 1),
    ("mongo", 1),
    ("cqlsh", 1),
];

/// The PostgreSQL clients: `-h HOST`, and `host=`/`hostaddr=` in a
/// connection string given anywhere.
pub(super) const POSTGRES: &[&str] = &[
    "psql",
    "pg_dump",
    "pg_dumpall",
    "pg_restore",
    "pg_isready",
    "pg_basebackup",
    "pg_receivewal",
    "pg_recvlogical",
    "pgbench",
    "createdb",
    "dropdb",
    "createuser",
    "dropuser",
    "vacuumdb",
    "reindexdb",
    "clusterdb",
];

/// The MySQL and MariaDB clients.
pub(super) const MYSQL: &[&str] = &[
    "mysql",
    "mysqldump",
    "mysqladmin",
    "mysqlimport",
    "mysqlshow",
    "mysqlcheck",
    "mysqlpump",
    "mysqlsh",
    "mariadb",
    "mariadb-dump",
    "mariadb-admin",
    "mariadb-import",
    "mariadb-check",
];

/// Options whose value is a host, `host:port` or a URL the program
/// connects to (a server, a proxy, a registry): the programs, and their
/// options. Written `--opt VALUE`, `--opt=VALUE`, and for a one-letter
/// option `-oVALUE` too.
const HOST_OPTIONS: &[(&[&str], &[&str])] = &[
    (&["nc", "netcat"], &["-x"]),
    (&["ncat"], &["--proxy"]),
    (
        &["docker", "podman", "docker-compose", "podman-compose"],
        &["-H", "--host", "--url"],
    ),
    (&["kubectl", "oc"], &["-s", "--server"]),
    (&["helm"], &["--kube-apiserver"]),
    (POSTGRES, &["-h", "--host"]),
    (MYSQL, &["-h", "--host"]),
    (&["redis-cli", "valkey-cli", "keydb-cli"], &["-h", "-u"]),
    (
        &[
            "mongosh",
            "mongo",
            "mongodump",
            "mongorestore",
            "mongoexport",
            "mongoimport",
        ],
        &["--host", "--uri"],
    ),
    (&["clickhouse-client", "clickhouse"], &["-h", "--host"]),
    (&["smbclient"], &["-L", "--list", "-I", "--ip-address"]),
    (&["gh"], &["--hostname"]),
    (
        &["aria2c"],
        &[
            "--all-proxy",
            "--http-proxy",
            "--https-proxy",
            "--ftp-proxy",
        ],
    ),
    (&["pip", "pip3", "uv", "poetry", "pipx"], &["--proxy"]),
    (
        &["npm", "pnpm", "yarn", "npx", "bun"],
        &["--proxy", "--https-proxy", "--registry"],
    ),
    (
        &[
            "ldapsearch",
            "ldapmodify",
            "ldapadd",
            "ldapdelete",
            "ldapwhoami",
        ],
        &["-h", "-H"],
    ),
    (&["sqlcmd"], &["-S"]),
    (&["etcdctl"], &["--endpoints"]),
    (&["vault", "consul", "nomad"], &["-address", "--address"]),
    (&["nmap"], &["--proxies", "--proxy"]),
];

/// Programs that reach the hosts they are given as operands or options:
/// more operands given at run time (`… | xargs curl`) name hosts known only
/// then.
const NETWORK_PROGRAMS: &[&str] = &[
    "curl", "wget", "nc", "ncat", "netcat", "socat", "ssh", "scp", "sftp", "rsync", "http",
    "https", "xh", "xhs", "openssl", "gh", "docker", "podman",
];

/// Whether `base` is a program whose operands are hosts (the generic table).
pub(super) fn takes_host_operands(base: &str) -> bool {
    HOST_OPERANDS.iter().any(|(name, _)| *name == base)
}

/// The hosts a value of an option in [`HOST_OPTIONS`] or of an environment
/// variable names: a list (`a,b`, `"a b"`) names each.
fn value_parts(value: &str) -> impl Iterator<Item = &str> {
    value
        .split([',', ' ', '\t', '\n'])
        .filter(|part| !part.is_empty())
}

/// Whether an environment variable's value is a host or a URL the program
/// it is given to connects to: a proxy (`http_proxy`, `HTTPS_PROXY`,
/// `ALL_PROXY`, `GOPROXY`, any case; not `no_proxy`), and the names that
/// say URL, host, endpoint, registry or index (`PIP_INDEX_URL`,
/// `npm_config_registry`, `DOCKER_HOST`, `GH_HOST`, `PGHOST`,
/// `AWS_ENDPOINT_URL`, `VAULT_ADDR`). A server's own address to listen on
/// (`HOST=0.0.0.0 npm run dev`, `BIND_ADDR`, `LISTEN_HOST`) is none.
fn names_a_host(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    if matches!(name.as_str(), "host" | "hostname" | "hosttype")
        || name.contains("bind")
        || name.contains("listen")
        || name.starts_with("no_")
        || name == "noproxy"
    {
        return false;
    }
    name.contains("proxy") && !name.ends_with("_command") && !name.ends_with("_cmd")
        || [
            "url",
            "uri",
            "urls",
            "host",
            "hostaddr",
            "hosts",
            "endpoint",
            "endpoints",
            "registry",
            "index",
            "addr",
            "address",
            "server",
            "mirror",
        ]
        .iter()
        .any(|end| name.ends_with(end))
}

impl Analyzer {
    /// A variable given a value (`VAR=value cmd`, `env VAR=value cmd`,
    /// `export VAR=value`): a URL in it is reached, and so is the host a
    /// variable named for a proxy, a server or a registry holds
    /// (`HTTPS_PROXY=evil.com:3128 npm …`, `DOCKER_HOST=tcp://h:2375`);
    /// such a value computed at run time names a host known only then.
    pub(super) fn assigned_value(&mut self, name: &str, value: &WordVal) {
        let host_variable = names_a_host(name);
        let Some(text) = value.literal.as_deref() else {
            if host_variable {
                self.reaches_host(&format!("{name}={}", value.raw), None);
            } else if value.raw.contains("://") {
                self.reaches(value);
            }
            return;
        };
        let written = format!("{name}={text}");
        for part in value_parts(text) {
            let host = if part.contains("://") {
                urls_in(part).into_iter().find_map(|(_, host)| host)
            } else if host_variable {
                host_of_operand(part)
            } else {
                None
            };
            if let Some(host) = host {
                self.reaches_host(&written, Some(host));
            }
        }
    }

    /// The hosts given through the options of [`HOST_OPTIONS`] (`docker -H
    /// h:2375`, `psql -h h`, `nc -x proxy:1080`), and the forms some
    /// programs take a host in: a connection string's `host=` (psql),
    /// `//host/share` (smbclient), `HOST/OWNER/REPO` (gh), `host:port` after
    /// `openssl s_client`.
    pub(super) fn host_options(&mut self, base: &str, argv: &[WordVal]) {
        let args = argv.get(1..).unwrap_or_default();
        let options = HOST_OPTIONS
            .iter()
            .filter(|(programs, _)| programs.contains(&base))
            .flat_map(|(_, options)| options.iter());
        let mut values: Vec<WordVal> = Vec::new();
        for option in options {
            for (i, w) in args.iter().enumerate() {
                let Some(l) = w.literal.as_deref() else {
                    continue;
                };
                if l == *option {
                    values.extend(args.get(i + 1).cloned());
                } else if let Some(v) = l.strip_prefix(option).and_then(|rest| {
                    rest.strip_prefix('=')
                        .or_else(|| (option.len() == 2 && !rest.is_empty()).then_some(rest))
                }) {
                    values.push(WordVal::literal(v));
                }
            }
        }
        for v in &values {
            match v.literal.as_deref() {
                Some(l) => {
                    for part in value_parts(l) {
                        if !part.contains("://")
                            && let Some(host) = host_of_operand(part)
                        {
                            self.reaches_host(l, Some(host));
                        }
                    }
                }
                None => self.reaches(v),
            }
        }
        let literals = args.iter().filter_map(|w| w.literal.as_deref());
        if POSTGRES.contains(&base) {
            // `psql "host=h dbname=x"`, `-d 'hostaddr=…'`.
            for l in literals {
                for token in l.split_whitespace() {
                    let token = token.strip_prefix("--dbname=").unwrap_or(token);
                    if let Some(value) = token
                        .strip_prefix("host=")
                        .or_else(|| token.strip_prefix("hostaddr="))
                    {
                        for part in value_parts(value.trim_matches(['\'', '"'])) {
                            if let Some(host) = host_of_operand(part) {
                                self.reaches_host(l, Some(host));
                            }
                        }
                    }
                }
            }
        } else if base == "gh" {
            // `gh repo clone HOST/OWNER/REPO`, `-R HOST/OWNER/REPO`.
            for l in literals {
                let parts: Vec<&str> = l.split('/').collect();
                if parts.len() == 3
                    && !l.contains(':')
                    && parts.iter().all(|p| !p.is_empty())
                    && let Some(host) = host_of_operand(parts[0])
                {
                    self.reaches_host(l, Some(host));
                }
            }
        }
    }

    /// More operands given at run time (`xargs PROG`, `find -exec PROG {}
    /// +`) to a program that reaches the hosts it is given: those hosts are
    /// known only at run time.
    pub(super) fn hosts_at_run_time(&mut self, base: &str, argv: &[WordVal]) {
        let network = NETWORK_PROGRAMS.contains(&base)
            || takes_host_operands(base)
            || HOST_OPTIONS.iter().any(|(programs, _)| {
                programs.contains(&base)
                    && !matches!(base, "pip" | "pip3" | "uv" | "poetry" | "pipx")
                    && !matches!(base, "npm" | "pnpm" | "yarn" | "npx" | "bun")
            });
        if network {
            let text = format!("{} …", super::programs::short_text(argv));
            self.reaches_host(&text, None);
        }
    }

    /// Every `scheme://host` written in the words of a command. A host
    /// computed at run time counts only where the program is known to reach
    /// what it is given (`curl "https://$H/"`, see [`Analyzer::reaches`]),
    /// not in any word (`echo "see https://$HOST"`).
    pub(super) fn urls_in_words(&mut self, argv: &[WordVal]) {
        for w in argv.iter().skip(1) {
            let text = w.literal.as_deref().unwrap_or(&w.raw);
            if !text.contains("://") {
                continue;
            }
            for (written, host) in urls_in(text) {
                if host.is_some() {
                    self.reaches_host(written, host);
                }
            }
        }
    }

    /// The host of a word that is a host or a URL (`evil.com`,
    /// `user@host:path`, `https://host/x`); uncertain when the word is
    /// computed at run time.
    pub(super) fn reaches(&mut self, w: &WordVal) {
        match w.literal.as_deref() {
            // `://` words were read by `urls_in_words`.
            Some(l) if l.contains("://") => {}
            Some(l) => {
                if let Some(host) = host_of_operand(l) {
                    self.reaches_host(l, Some(host));
                }
            }
            None => {
                // `"https://host/?q=$(…)"` names its host; `"$U"`,
                // `"${U:-https://…}"` or `"https://$H/"` do not.
                let raw = w.raw.trim_start_matches(['"', '\'']);
                let literal_host = urls_in(raw)
                    .first()
                    .is_some_and(|(written, host)| host.is_some() && raw.starts_with(written));
                if !literal_host {
                    self.reaches_host(&w.raw, None);
                }
            }
        }
    }

    /// bash's own network paths in a redirection: `> /dev/tcp/HOST/PORT`,
    /// `< /dev/udp/HOST/PORT`.
    pub(super) fn bash_network_path(&mut self, v: &WordVal) {
        let text = v.literal.as_deref().unwrap_or(&v.raw);
        let text = text.trim_start_matches(['"', '\'']);
        let Some(rest) = text
            .strip_prefix("/dev/tcp/")
            .or_else(|| text.strip_prefix("/dev/udp/"))
        else {
            return;
        };
        let host = rest.split('/').next().unwrap_or_default();
        if v.literal.is_none() && host.contains(['$', '`']) {
            return self.reaches_host(text, None);
        }
        let host = crate::rule::url_host(&format!("https://{host}/")).ok();
        if let Some(host) = host {
            self.reaches_host(text, Some(host));
        }
    }

    /// `host` (None: known only at run time) reached through `written`.
    fn reaches_host(&mut self, written: &str, host: Option<String>) {
        if self.is_full() {
            return;
        }
        match host {
            Some(host) => {
                for host in reached_as(host) {
                    self.push(Item::Host {
                        written: super::snippet(written),
                        host,
                    });
                }
            }
            None => self.uncertain(
                UncertainKind::Host,
                written,
                "the host it reaches is known only at run time",
            ),
        }
    }

    /// The operands of a program in [`HOST_OPERANDS`]: every literal word
    /// that is no option is read as a host (a value of an option that looks
    /// like one only meets rules written for it: `host -t MX evil.com` has
    /// `MX` before its host); a word computed at run time is uncertain where
    /// a host operand may stand (not just after an option: `ping -c "$N"`).
    pub(super) fn host_operands(&mut self, base: &str, argv: &[WordVal]) {
        let Some(&(_, count)) = HOST_OPERANDS.iter().find(|(name, _)| *name == base) else {
            return;
        };
        let mut seen = 0;
        let mut after_option = false;
        for w in argv.iter().skip(1) {
            match w.literal.as_deref() {
                // `-c` (a value may follow); `-c1`, `--count=1` hold theirs.
                Some(l) if l.starts_with('-') && l.len() > 1 => {
                    after_option = l.len() == 2 || (l.starts_with("--") && !l.contains('='))
                }
                // `ping -c 3 h`, `ping -W 0 h`: a count or a time, not the
                // host `0.0.0.3` or `0`.
                Some(l)
                    if after_option && l.len() <= 3 && l.bytes().all(|b| b.is_ascii_digit()) =>
                {
                    after_option = false
                }
                Some(l) => {
                    after_option = false;
                    // `dig @8.8.8.8 name`: the server is reached too;
                    // `smbclient //host/share` reaches host.
                    let l = l.strip_prefix('@').unwrap_or(l);
                    let l = l
                        .strip_prefix("//")
                        .or_else(|| l.strip_prefix("\\\\"))
                        .unwrap_or(l);
                    self.reaches(&WordVal::literal(l));
                    seen += 1;
                }
                None if after_option => after_option = false,
                None => {
                    if seen < count {
                        self.reaches(w);
                    }
                    seen += 1;
                }
            }
        }
    }

    /// `socat`'s addresses that connect: `TCP:host:port`, `OPENSSL:host:port`,
    /// `UDP4:host:port`, `PROXY:proxy:host:port` ….
    pub(super) fn socat_hosts(&mut self, operands: &[WordVal]) {
        const CONNECT: &[&str] = &[
            "tcp",
            "tcp4",
            "tcp6",
            "tcp-connect",
            "tcp4-connect",
            "tcp6-connect",
            "udp",
            "udp4",
            "udp6",
            "udp-connect",
            "udp4-connect",
            "udp6-connect",
            "udp-sendto",
            "udp4-sendto",
            "udp6-sendto",
            "openssl",
            "openssl-connect",
            "ssl",
            "sctp-connect",
            "dccp-connect",
            "proxy",
            "proxy-connect",
            "socks",
            "socks4",
            "socks4a",
            "socks5",
            "socks5-connect",
        ];
        for w in operands {
            let Some(l) = w.literal.as_deref() else {
                if w.raw.contains(':') {
                    self.reaches_host(&w.raw, None);
                }
                continue;
            };
            let mut fields = l.split(',').next().unwrap_or_default().split(':');
            let kind = fields.next().unwrap_or_default().to_ascii_lowercase();
            if !CONNECT.contains(&kind.as_str()) {
                continue;
            }
            // Every field may be a host (a proxy's and the target's).
            for field in fields {
                if let Some(host) = host_of_operand(field) {
                    self.reaches_host(l, Some(host));
                }
            }
        }
    }

    /// `git`'s operands in scp form (`git@host:owner/repo.git`).
    ///
    /// The remote a command that talks to one is given computed at run time
    /// (`git push "$R" main`, `git clone "$URL"`, `git remote add o "$U"`)
    /// is uncertain: its host is known only then.
    ///
    /// A remote there in scp form without a user (`evil.com:x`, `intranet:r`:
    /// git reads `host:path` so when no slash comes before the colon) names
    /// its host, and so do the URL and proxy settings given with `-c`
    /// (`-c http.proxy=h:3128`, `-c remote.o.url=h:x`) or `git config`. With
    /// more operands given at run time (`… | xargs git clone`), the
    /// commands that talk to a remote reach hosts known only then.
    pub(super) fn git_remote_hosts(&mut self, argv: &[WordVal], more: bool) {
        let args = &argv[1..];
        // The subcommand: the first word that is no option (nor the value
        // of `-C` or `-c`).
        let mut at = 0;
        while let Some(l) = args.get(at).and_then(|w| w.literal.as_deref()) {
            if !l.starts_with('-') {
                break;
            }
            at += if matches!(l, "-C" | "-c") { 2 } else { 1 };
        }
        let sub = args.get(at).and_then(|w| w.literal.as_deref());
        let operands: Vec<&WordVal> = args
            .iter()
            .skip(at + 1)
            .filter(|w| !w.literal.as_deref().is_some_and(|l| l.starts_with('-')))
            .collect();
        let remote = match sub {
            Some("push" | "pull" | "fetch" | "clone" | "ls-remote" | "archive") => operands.first(),
            Some("remote") => match operands.first().and_then(|w| w.literal.as_deref()) {
                Some("add" | "set-url") => operands.get(2),
                _ => None,
            },
            Some("submodule") => match operands.first().and_then(|w| w.literal.as_deref()) {
                Some("add") => operands.get(1),
                _ => None,
            },
            _ => None,
        };
        if let Some(w) = remote {
            match w.literal.as_deref() {
                None => self.reaches(w),
                Some(l) => {
                    if let Some(host) = git_scp_host(l) {
                        self.reaches_host(l, Some(host));
                    }
                }
            }
        }
        // A remote by its name, or the default one: its URLs (and what
        // `insteadOf` makes of them) in the repository's configuration.
        if let Some(sub) =
            sub.filter(|s| matches!(*s, "push" | "pull" | "fetch" | "ls-remote" | "remote"))
        {
            let (_, urls) = self.remote_urls(argv, sub, &args[at + 1..]);
            for url in urls {
                if crate::git_config::local_path(&url).is_some() {
                    continue;
                }
                let host = if url.contains("://") {
                    crate::rule::url_host(&url).ok()
                } else {
                    git_scp_host(&url)
                };
                if let Some(host) = host {
                    self.reaches_host(&url, Some(host));
                }
            }
        }
        // `git archive --remote=h:x`, `git ls-remote --upload-pack=… h:x`.
        for w in args.iter().skip(at + 1) {
            if let Some(l) = w.literal.as_deref()
                && let Some(remote) = l.strip_prefix("--remote=")
                && let Some(host) = git_scp_host(remote)
            {
                self.reaches_host(l, Some(host));
            }
        }
        let talks = matches!(
            sub,
            Some(
                "push"
                    | "pull"
                    | "fetch"
                    | "clone"
                    | "ls-remote"
                    | "archive"
                    | "remote"
                    | "submodule"
            )
        );
        if more && talks {
            self.reaches_host(&format!("git {} …", sub.unwrap_or_default()), None);
        }
        // `-c key=value` before the subcommand; `git config key value`.
        let mut settings: Vec<(String, WordVal)> = Vec::new();
        for pair in args[..at.min(args.len())].windows(2) {
            if pair[0].literal.as_deref() == Some("-c")
                && let Some((key, value)) =
                    pair[1].literal.as_deref().and_then(|l| l.split_once('='))
            {
                settings.push((key.to_string(), WordVal::literal(value)));
            }
        }
        if sub == Some("config") && operands.len() >= 2 {
            let key = operands
                .iter()
                .find_map(|w| w.literal.as_deref().filter(|l| l.contains('.')));
            if let (Some(key), Some(value)) = (key, operands.last())
                && value.literal.as_deref() != Some(key)
            {
                settings.push((key.to_string(), (*value).clone()));
            }
        }
        for (key, value) in settings {
            let key = key.to_ascii_lowercase();
            let remote_url = key.ends_with(".url") || key.ends_with(".pushurl");
            if !(remote_url || key.ends_with(".proxy")) {
                continue;
            }
            match value.literal.as_deref() {
                None => self.reaches(&value),
                Some(l) if l.contains("://") => {
                    for (_, host) in urls_in(l) {
                        if host.is_some() {
                            self.reaches_host(l, host);
                        }
                    }
                }
                Some(l) => {
                    let host = if remote_url {
                        git_scp_host(l)
                    } else {
                        host_of_operand(l)
                    };
                    if let Some(host) = host {
                        self.reaches_host(l, Some(host));
                    }
                }
            }
        }
        for w in args {
            if let Some(l) = w.literal.as_deref()
                && !l.contains("://")
                && !l.starts_with('-')
                && let Some((before, _)) = l.split_once(':')
                && before.contains('@')
                && let Some(host) = host_of_operand(before)
            {
                self.reaches_host(l, Some(host));
            }
        }
    }

    /// What curl reaches: its URLs (operands and `--url`) and its proxy;
    /// URLs read from a config file are uncertain.
    pub(super) fn curl_hosts(&mut self, p: &options::Parsed) {
        let urls: Vec<WordVal> = p
            .operands
            .iter()
            .chain(
                p.values(&[
                    "--url",
                    "-x",
                    "--proxy",
                    "--preproxy",
                    "--socks4",
                    "--socks4a",
                    "--socks5",
                    "--socks5-hostname",
                ])
                .flatten(),
            )
            .cloned()
            .collect();
        // curl expands `{a,b}` and `[1-3]` in its URLs unless told not to.
        let globbing = !p.has(&["-g", "--globoff"]);
        for url in &urls {
            match url.literal.as_deref() {
                Some(l) if globbing && l.contains(['{', '[']) => match curl_glob_hosts(l) {
                    Some(hosts) => {
                        for host in hosts {
                            self.reaches_host(l, Some(host));
                        }
                    }
                    None => self.reaches_host(l, None),
                },
                _ => self.reaches(url),
            }
        }
        // `--resolve HOST:PORT:ADDR[,ADDR]`, `--connect-to H1:P1:H2:P2`:
        // the addresses and the host connected to instead.
        let redirected: Vec<WordVal> = p
            .values(&["--resolve", "--connect-to"])
            .flatten()
            .cloned()
            .collect();
        for v in &redirected {
            let Some(l) = v.literal.as_deref() else {
                self.reaches_host(&v.raw, None);
                continue;
            };
            let l = l.trim_start_matches('+');
            let target = l.splitn(3, ':').nth(2).unwrap_or_default();
            for part in target.split(',') {
                let host = part.split(':').next().unwrap_or_default();
                let host = host.trim_start_matches('[').trim_end_matches(']');
                if let Ok(host) = crate::rule::url_host(&format!("https://{host}/")) {
                    self.reaches_host(l, Some(host));
                }
            }
        }
        if p.has(&["-K", "--config"]) {
            self.reaches_host("curl -K", None);
        }
    }

    /// What wget reaches: its URLs; those of `-i FILE` are uncertain.
    pub(super) fn wget_hosts(&mut self, p: &options::Parsed) {
        for url in p.operands.clone() {
            self.reaches(&url);
        }
        if p.has(&["-i", "--input-file", "-e", "--execute", "--config"]) {
            self.reaches_host("wget -i", None);
        }
    }

    /// ssh's, sftp's and mosh's host: the first operand (`[user@]host`,
    /// `ssh://…`), `-J` jump hosts and the hosts `-o ProxyJump=…` and `-o
    /// HostName=…` name.
    pub(super) fn ssh_hosts(&mut self, p: &options::Parsed) {
        if let Some(host) = p.operands.first().cloned() {
            self.reaches(&host);
        }
        let mut jumps: Vec<WordVal> = p.values(&["-J"]).flatten().cloned().collect();
        for o in p.values(&["-o"]).flatten().cloned().collect::<Vec<_>>() {
            let Some(l) = o.literal.as_deref() else {
                continue;
            };
            let (key, value) = match l.split_once(['=', ' ']) {
                Some((k, v)) => (k.trim(), v.trim().trim_start_matches('=').trim()),
                None => continue,
            };
            if key.eq_ignore_ascii_case("proxyjump") || key.eq_ignore_ascii_case("hostname") {
                jumps.push(WordVal::literal(value));
            }
        }
        for jump in jumps {
            match jump.literal.as_deref() {
                Some(l) => {
                    for hop in l.split(',') {
                        self.reaches(&WordVal::literal(hop));
                    }
                }
                None => self.reaches(&jump),
            }
        }
    }

    /// `openssl s_client -connect HOST:PORT` (and `-proxy`, `-host`).
    pub(super) fn openssl_hosts(&mut self, argv: &[WordVal]) {
        let args = &argv[1..];
        if !args
            .first()
            .and_then(|w| w.literal.as_deref())
            .is_some_and(|sub| matches!(sub, "s_client" | "s_time"))
        {
            return;
        }
        // OpenSSL 3 takes the host as an operand too (`s_client h:443`):
        // every word that is no option is read (an option's value that
        // reads as a host, `-servername h`, only meets rules written for
        // it).
        for l in args[1..].iter().filter_map(|w| w.literal.as_deref()) {
            if !l.starts_with('-')
                && let Some(host) = host_of_operand(l)
            {
                self.reaches_host(l, Some(host));
            }
        }
        for pair in args.windows(2) {
            if matches!(
                pair[0].literal.as_deref(),
                Some("-connect" | "-proxy" | "-host")
            ) {
                match pair[1].literal.as_deref() {
                    Some(l) => {
                        if let Some(host) = host_of_operand(l) {
                            self.reaches_host(l, Some(host));
                        }
                    }
                    None => self.reaches_host(&pair[1].raw, None),
                }
            }
        }
    }

    /// The registry of an image pushed or pulled, or logged in to
    /// (`docker push evil.com/img`, `podman login evil.com`): its first
    /// part, when that names a host.
    pub(super) fn registry_hosts(&mut self, args: &[WordVal]) {
        // The global options before the subcommand (`docker --config DIR
        // push …`, `podman --remote …`).
        const GLOBAL_WITH_VALUE: &[&str] = &[
            "--config",
            "-c",
            "--context",
            "-H",
            "--host",
            "-l",
            "--log-level",
            "--tlscacert",
            "--tlscert",
            "--tlskey",
            "--url",
            "--connection",
            "--root",
            "--runroot",
            "--storage-driver",
        ];
        let mut at = 0;
        while let Some(l) = args.get(at).and_then(|w| w.literal.as_deref()) {
            if !l.starts_with('-') {
                break;
            }
            at += if GLOBAL_WITH_VALUE.contains(&l) { 2 } else { 1 };
        }
        let args = args.get(at..).unwrap_or_default();
        let Some(sub) = args.first().and_then(|w| w.literal.as_deref()) else {
            return;
        };
        let subs: &[&str] = &["pull", "push", "login", "logout", "search"];
        let sub = if sub == "image" {
            args.get(1)
                .and_then(|w| w.literal.as_deref())
                .unwrap_or_default()
        } else {
            sub
        };
        if !subs.contains(&sub) {
            return;
        }
        for w in args.iter().skip(1) {
            let Some(l) = w.literal.as_deref() else {
                continue;
            };
            if l.starts_with('-') {
                continue;
            }
            let first = l.split('/').next().unwrap_or_default();
            // `library/ubuntu` or `ubuntu:22.04` name Docker Hub's: the
            // first part is a registry when it has a dot or a port, or is
            // `localhost` (as docker reads it).
            let registry = first.contains(['.', ':']) || first == "localhost";
            if (sub == "login" || sub == "logout" || (l.contains('/') && registry))
                && let Some(host) = host_of_operand(first)
            {
                self.reaches_host(l, Some(host));
            }
        }
    }

    /// scp's and rsync's remote operands (`host:path`, `user@host:path`).
    pub(super) fn remote_path_hosts(&mut self, operands: &[WordVal]) {
        for w in operands {
            match w.literal.as_deref() {
                Some(l) if !l.contains("://") => {
                    let head = l.split('/').next().unwrap_or_default();
                    if let Some((host, _)) = head.split_once(':')
                        && let Some(host) = host_of_operand(host)
                    {
                        self.reaches_host(l, Some(host));
                    }
                }
                _ => {}
            }
        }
    }
}

/// The host of a git remote in scp form (`[user@]host:path`: a colon with
/// no slash before it), as git reads it; None for a URL (read with the
/// words' URLs), a path or a remote's name.
fn git_scp_host(remote: &str) -> Option<String> {
    if remote.contains("://") || remote.starts_with('-') {
        return None;
    }
    let (before, _) = remote.split_once(':')?;
    if before.is_empty() || before.contains('/') {
        return None;
    }
    host_of_operand(before)
}

/// netcat's options, for its host operand.
pub(super) const NETCAT: Spec = Spec {
    flags: "46bCDdhklNnrStuUvz",
    with_arg: "ecpswiIOqTVxXKgGMmP",
    optional_arg: "",
    long_flags: &[],
    long_with_arg: &["--exec", "--sh-exec", "--lua-exec"],
    long_optional: &[],
    posix: false,
    abbreviations: false,
};

/// `scheme://host…` in `text`: each as written (up to the end of the URL)
/// and its host (None when the host is computed at run time).
fn urls_in(text: &str) -> Vec<(&str, Option<String>)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("://").map(|i| i + from) {
        let run_start = text[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |i| i + 1);
        // A scheme starts with a letter (`:-https://` is `https`).
        let start = text[run_start..at]
            .find(|c: char| c.is_ascii_alphabetic())
            .map_or(at, |i| i + run_start);
        let scheme = &text[start..at];
        let rest_start = at + 3;
        let end = text[rest_start..]
            .find(|c: char| {
                c.is_whitespace()
                    || matches!(c, '"' | '\'' | '<' | '>' | '`' | ')' | '(' | '{' | '}')
            })
            .map_or(text.len(), |i| i + rest_start);
        from = end.max(rest_start);
        if scheme.is_empty() || scheme.eq_ignore_ascii_case("file") {
            continue;
        }
        let written = &text[start..end];
        let authority_end = text[rest_start..end]
            .find(['/', '?', '#'])
            .map_or(end, |i| i + rest_start);
        let authority = &text[rest_start..authority_end];
        if authority.contains(['$', '`']) {
            out.push((written, None));
            continue;
        }
        if let Ok(host) = crate::rule::url_host(&format!("https://{authority}/")) {
            out.push((written, Some(host)));
        }
    }
    out
}

/// The hosts a value names: a URL's (`https://host/x`, `http:/host`, each
/// host a curl-style glob in it expands to), or the value itself when it
/// reads as a host (`evil.com`, `user@evil.com:22`, `localhost`), with the
/// names of the machine itself for `0.0.0.0` (see [`reached_as`]).
pub(crate) fn url_or_host(text: &str) -> Vec<String> {
    let text = text.trim();
    let mut hosts: Vec<String> = host_of_url_word(text).into_iter().collect();
    if text.contains(['{', '[']) {
        hosts.extend(curl_glob_hosts(text).unwrap_or_default());
    }
    hosts.into_iter().flat_map(reached_as).collect()
}

/// The host an operand in a host's place names, read the way the WHATWG
/// parser WebFetch uses reads a URL's host (the way curl, with IDNA, reads
/// one too): `evil.com`, `evil.com:8080/x`, `user@evil.com`, `10.0.0.1`,
/// `[::1]`, and the words without a dot a program there takes as a host
/// just as well: `localhost`, `intranet`, the numeric IPv4 forms
/// (`2130706433`, `0x7f000001`, `017700000001` are `127.0.0.1`; `0` is
/// `0.0.0.0`), full-width letters, `。` dots and `%2e` (`evil%2ecom` is
/// `evil.com`). A word a program could not take as a host (a path from `.`
/// or `/`, an option, `a=b`) is none.
pub(super) fn host_of_operand(word: &str) -> Option<String> {
    let word = word.trim();
    if let Some(host) = scheme_host(word) {
        return Some(host);
    }
    let word = word.rsplit_once('@').map_or(word, |(_, h)| h);
    let head = if word.starts_with('[') {
        word.split_inclusive(']').next().unwrap_or_default()
    } else {
        word.split(['/', ':', '?', '#']).next().unwrap_or_default()
    };
    let looks_like_host = head.starts_with('[')
        || (!head.starts_with(['.', '-'])
            && head.chars().all(|c| {
                c.is_alphanumeric() || matches!(c, '.' | '-' | '_' | '%') || !c.is_ascii()
            })
            && head.chars().any(char::is_alphanumeric));
    if !looks_like_host {
        return None;
    }
    crate::rule::url_host(&format!("https://{head}/")).ok()
}

/// The host of `scheme:/host…` (one slash, which curl and the WHATWG
/// parser both take as `scheme://host…`: `http:/evil.com`), or of a whole
/// URL: the parser's own reading of it. None for a word without a scheme
/// followed by a slash (`evil.com:8080/x`, `host:path`).
fn scheme_host(word: &str) -> Option<String> {
    let (scheme, rest) = word.split_once(':')?;
    let is_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !is_scheme || !rest.starts_with(['/', '\\']) || scheme.eq_ignore_ascii_case("file") {
        return None;
    }
    crate::rule::url_host(word).ok()
}

/// The hosts a connection to `host` reaches under the names rules are
/// written with: the host, and for the unspecified address (`0`,
/// `0.0.0.0`, `[::]`), which connects to the machine itself, the
/// loopback's names too.
pub(crate) fn reached_as(host: String) -> Vec<String> {
    if matches!(host.as_str(), "0.0.0.0" | "[::]") {
        let mut all = vec![host];
        all.extend(["127.0.0.1", "localhost", "[::1]"].map(String::from));
        all
    } else {
        vec![host]
    }
}

/// curl's URL globbing (`{a,b}` sets and `[1-3]`, `[a-c]` ranges, unless
/// `-g`): the hosts the word expands to, each read as curl reads a URL;
/// None when the host part is globbed into more than [`MAX_GLOB_HOSTS`]
/// words or the glob cannot be read (the host is then known only at run
/// time). Only the part up to the end of the host is expanded: a range in
/// the path (`/page[1-1000].html`) names no other host.
fn curl_glob_hosts(word: &str) -> Option<Vec<String>> {
    let start = word.find("://").map_or(0, |i| i + 3);
    // The end of the authority: the first `/`, `?` or `#` outside a glob.
    let mut depth = 0usize;
    let mut end = word.len();
    let mut brackets = false;
    for (i, c) in word.char_indices().skip_while(|(i, _)| *i < start) {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth = depth.saturating_sub(1),
            '/' | '?' | '#' if depth == 0 => {
                end = i;
                break;
            }
            _ => {}
        }
        brackets |= c == '{' || c == '[';
    }
    let head = &word[..end];
    if !brackets {
        return Some(host_of_url_word(head).into_iter().collect());
    }
    let mut words = vec![String::new()];
    let mut rest = head;
    while !rest.is_empty() {
        let (choices, after): (Vec<String>, &str) = if let Some(r) = rest.strip_prefix('{') {
            let (set, after) = r.split_once('}')?;
            (set.split(',').map(String::from).collect(), after)
        } else if let Some(r) = rest.strip_prefix('[') {
            let (range, after) = r.split_once(']')?;
            if range.contains(':') && !range.contains('-') || range.contains("::") {
                // `[::1]`: an IPv6 address, not a range.
                (vec![format!("[{range}]")], after)
            } else {
                (glob_range(range)?, after)
            }
        } else {
            let at = rest.find(['{', '[']).unwrap_or(rest.len());
            (vec![rest[..at].to_string()], &rest[at..])
        };
        if words.len() * choices.len() > MAX_GLOB_HOSTS {
            return None;
        }
        words = words
            .iter()
            .flat_map(|w| choices.iter().map(move |c| format!("{w}{c}")))
            .collect();
        rest = after;
    }
    Some(words.iter().filter_map(|w| host_of_url_word(w)).collect())
}

/// How many words a curl glob in a host may expand to before its hosts are
/// taken as known only at run time.
const MAX_GLOB_HOSTS: usize = 256;

/// A curl range: `1-3`, `001-100`, `a-z`, `A-Z`, with an optional `:STEP`.
fn glob_range(range: &str) -> Option<Vec<String>> {
    let (span, step) = match range.split_once(':') {
        Some((span, step)) => (span, step.parse::<u64>().ok().filter(|s| *s > 0)?),
        None => (range, 1),
    };
    let (from, to) = span.split_once('-')?;
    let step = usize::try_from(step).ok()?;
    if let (Ok(a), Ok(b)) = (from.parse::<u64>(), to.parse::<u64>()) {
        if b < a || (b - a) / step as u64 >= MAX_GLOB_HOSTS as u64 {
            return None;
        }
        let width = if from.starts_with('0') { from.len() } else { 0 };
        return Some(
            (a..=b)
                .step_by(step)
                .map(|n| format!("{n:0width$}"))
                .collect(),
        );
    }
    let (mut a, mut b) = (from.chars(), to.chars());
    match (a.next(), a.next(), b.next(), b.next()) {
        (Some(a), None, Some(b), None) if a.is_ascii_alphabetic() && a <= b => {
            Some((a..=b).step_by(step).map(String::from).collect())
        }
        _ => None,
    }
}

/// The host of a word curl takes as a URL: `scheme://host…` or the word
/// itself as a host.
fn host_of_url_word(word: &str) -> Option<String> {
    if word.contains("://") {
        urls_in(word.trim()).into_iter().find_map(|(_, host)| host)
    } else {
        host_of_operand(word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_found_inside_words() {
        let found = urls_in("import urllib; urllib.request.urlopen('https://Evil.COM/x?a=1')");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, "https://Evil.COM/x?a=1");
        assert_eq!(found[0].1.as_deref(), Some("evil.com"));
        let found = urls_in("--url=https://user:pw@api.evil.com:8443/v1");
        assert_eq!(found[0].1.as_deref(), Some("api.evil.com"));
        let found = urls_in("https://$HOST/x and git://plain.org/r");
        assert_eq!(found[0].1, None);
        assert_eq!(found[1].1.as_deref(), Some("plain.org"));
        assert!(urls_in("file:///etc/passwd").is_empty());
        assert!(urls_in("://nothing").is_empty());
    }

    #[test]
    fn operands_that_look_like_hosts() {
        for (word, host) in [
            ("evil.com", Some("evil.com")),
            ("evil.com:8080/path", Some("evil.com")),
            ("git@github.com", Some("github.com")),
            ("10.0.0.1", Some("10.0.0.1")),
            ("0x7f.1", Some("127.0.0.1")),
            ("[::1]:22", Some("[::1]")),
            ("localhost", Some("localhost")),
            ("LOCALHOST:8099", Some("localhost")),
            ("intranet", Some("intranet")),
            ("2130706433:8099", Some("127.0.0.1")),
            ("0x7f000001", Some("127.0.0.1")),
            ("017700000001", Some("127.0.0.1")),
            ("0:8099", Some("0.0.0.0")),
            ("ｅｖｉｌ.com", Some("evil.com")),
            ("evil。com", Some("evil.com")),
            ("evil%2ecom", Some("evil.com")),
            ("http:/evil.com", Some("evil.com")),
            ("./x.txt", None),
            ("/etc/hosts", None),
            ("-v", None),
            ("a=b.c", None),
        ] {
            assert_eq!(host_of_operand(word).as_deref(), host, "{word}");
        }
    }

    #[test]
    fn curl_globs_name_every_host_they_expand_to() {
        let hosts = |w: &str| curl_glob_hosts(w);
        assert_eq!(hosts("http://{evil.com}/"), Some(vec!["evil.com".into()]));
        assert_eq!(hosts("http://ev[i-i]l.com/"), Some(vec!["evil.com".into()]));
        assert_eq!(
            hosts("http://{evil,good}.com/x"),
            Some(vec!["evil.com".into(), "good.com".into()])
        );
        assert_eq!(hosts("ev{il}.com"), Some(vec!["evil.com".into()]));
        assert_eq!(
            hosts("http://127.0.0.[1-1]:8099/"),
            Some(vec!["127.0.0.1".into()])
        );
        // A range in the path names no other host.
        assert_eq!(
            hosts("https://ok.org/page[1-1000].html"),
            Some(vec!["ok.org".into()])
        );
        assert_eq!(hosts("http://[::1]:80/"), Some(vec!["[::1]".into()]));
        // Too many hosts, or a glob curl would refuse: known only at run time.
        assert_eq!(hosts("http://h[0-9999].evil.com/"), None);
        assert_eq!(hosts("http://{a,b/"), None);
    }
}
