//! Hosts a command reaches over the network, for the `WebFetch(domain:…)`
//! deny and ask rules: a user who denies a domain to WebFetch does not mean
//! `curl` to reach it either (Claude Code's sandbox takes the same rules as
//! its network's allow and deny lists; tack holds commands to them with or
//! without the sandbox).
//!
//! Two readings, both conservative (a host that is no host only ever meets
//! a rule written for it):
//! - any word of any command that holds a URL (`git clone https://…`,
//!   `python3 -c "urlopen('https://…')"`, `--url=https://…`,
//!   `sparse+http:///h`, `http:\\h`), its host read as each kind of client
//!   reads it: curl's (the slashes skipped, the text after the last `@`)
//!   and the WHATWG parser's (see [`url_hosts`]);
//! - the operands and options of programs whose operands are hosts or URLs
//!   without a scheme (`curl evil.com`, `ssh user@host`, `scp f host:dir`,
//!   `nc host 80`, `dig x.host`, `socat - TCP:host:443`, `git push
//!   git@host:x.git`, `npm --reg h`, `psql 'host = h'`, `ssh -o
//!   HostName=h`), the way each program reads them. Such an operand
//!   computed at run time (`curl "$URL"`), or a host in a file the program
//!   reads (`psql service=x`), is uncertain: asked when a domain deny or
//!   ask rule exists.
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
    ("grpcurl", 1),
    ("ghz", 1),
    ("websocat", 2),
    // DNS clients (`kdig @server name`, `drill name @server`).
    ("kdig", usize::MAX),
    ("drill", usize::MAX),
    ("delv", usize::MAX),
    ("gnutls-cli", 1),
    ("snmpget", 1),
    ("snmpgetnext", 1),
    ("snmpwalk", 1),
    ("snmpbulkwalk", 1),
    ("snmpbulkget", 1),
    ("snmpset", 1),
    ("snmptable", 1),
    ("snmptrap", 1),
    ("ntpdate", usize::MAX),
    ("ntpdig", usize::MAX),
    ("sntp", usize::MAX),
    ("ntpq", usize::MAX),
    ("rpcclient", 1),
    ("siege", usize::MAX),
    ("httping", usize::MAX),
    ("httpstat", 1),
    ("bombardier", 1),
    ("tcptraceroute", 1),
    ("nping", usize::MAX),
    ("masscan", usize::MAX),
    ("mysqlsh", 1),
    ("vncviewer", 1),
    // Python's network modules run with `python3 -m` (see
    // `Analyzer::python_module`).
    ("telnetlib", 1),
    ("ftplib", 1),
    ("poplib", 1),
    ("imaplib", 1),
];

/// Variables whose options every JVM (or the launcher of a JVM program)
/// takes as if given on its command line (`JDK_JAVA_OPTIONS="-Dhttp.proxyHost=h"`).
const JVM_OPTION_VARIABLES: &[&str] = &[
    "JDK_JAVA_OPTIONS",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JAVA_OPTS",
    "MAVEN_OPTS",
    "GRADLE_OPTS",
    "SBT_OPTS",
];

/// The JDK's launchers that read `@argfiles`.
const JVM_LAUNCHERS: &[&str] = &["java", "javac", "jshell", "jar", "javadoc", "jlink"];

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

/// The strings a cargo configuration table sets under a key that names a
/// server (`proxy`, `index`, `registry`, `git`), at any depth.
pub(super) fn cargo_servers(table: &toml::Table, out: &mut Vec<String>) {
    for (key, value) in table {
        match value {
            toml::Value::Table(inner) => cargo_servers(inner, out),
            toml::Value::String(s)
                if matches!(
                    key.to_ascii_lowercase().as_str(),
                    "proxy" | "index" | "registry" | "git"
                ) =>
            {
                out.push(s.clone());
            }
            _ => {}
        }
    }
}

/// What a libpq connection string names: its hosts, and whether it names
/// a service, whose hosts are in a service file read at run time.
#[derive(Default)]
struct Conninfo {
    hosts: Vec<String>,
    service: bool,
}

impl Conninfo {
    /// A connection parameter: `host` and `hostaddr` hold a comma list of
    /// hosts (a path is a Unix socket's directory), `service` a service.
    fn read(&mut self, key: &str, value: &str) {
        if key.eq_ignore_ascii_case("host") || key.eq_ignore_ascii_case("hostaddr") {
            self.hosts.extend(value.split(',').filter_map(host_name));
        } else if key.eq_ignore_ascii_case("service") {
            self.service = true;
        }
    }
}

/// A libpq connection string as libpq reads it: a `postgres://` or
/// `postgresql://` URI (see [`libpq_uri`]) or keyword/value pairs
/// (`host=h port=5432`, `host = h`, `host='h'`). None for a word that is
/// neither, or that libpq would refuse.
fn libpq_conninfo(text: &str) -> Option<Conninfo> {
    let text = text.trim();
    let starts = |prefix: &str| {
        text.get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
    };
    if starts("postgres://") || starts("postgresql://") {
        return Some(libpq_uri(text));
    }
    if !text.contains('=') {
        return None;
    }
    let mut found = Conninfo::default();
    for (key, value) in conninfo_pairs(text)? {
        found.read(&key, &value);
    }
    Some(found)
}

/// The hosts a libpq connection string names (see [`libpq_conninfo`]);
/// None for text libpq would not read as one.
pub(crate) fn conninfo_hosts(text: &str) -> Option<Vec<String>> {
    libpq_conninfo(text).map(|c| c.hosts)
}

/// A `postgres(ql)://` URI's hosts as libpq reads them: each host of the
/// comma list in the authority (`postgresql://h1:5432,h2/db`, percent
/// decoded), and the `host` and `hostaddr` query parameters (percent
/// decoded, comma lists: `postgresql:///db?host=h`); `service` too.
fn libpq_uri(uri: &str) -> Conninfo {
    let mut found = Conninfo::default();
    let Some((_, rest)) = uri.split_once("://") else {
        return found;
    };
    let (location, query) = rest.split_once('?').unwrap_or((rest, ""));
    let authority = location.split('/').next().unwrap_or_default();
    let hosts = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    found.hosts.extend(hosts.split(',').filter_map(host_name));
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8_lossy()
                .into_owned()
        };
        found.read(&decode(key), &decode(value));
    }
    found
}

/// The pairs of a libpq keyword/value string: whitespace between pairs and
/// around `=`, a value in single quotes or up to the next whitespace, `\`
/// escaping the next character in either. None where libpq reports a
/// syntax error (a keyword without `=`, an unterminated quote).
fn conninfo_pairs(text: &str) -> Option<Vec<(String, String)>> {
    let mut pairs = Vec::new();
    let mut chars = text.chars().peekable();
    let skip_spaces = |chars: &mut std::iter::Peekable<std::str::Chars>| {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
    };
    loop {
        skip_spaces(&mut chars);
        if chars.peek().is_none() {
            return Some(pairs);
        }
        let mut key = String::new();
        while let Some(c) = chars.next_if(|c| *c != '=' && !c.is_whitespace()) {
            key.push(c);
        }
        skip_spaces(&mut chars);
        chars.next_if_eq(&'=')?;
        skip_spaces(&mut chars);
        let mut value = String::new();
        if chars.next_if_eq(&'\'').is_some() {
            loop {
                match chars.next()? {
                    '\\' => value.push(chars.next()?),
                    '\'' => break,
                    c => value.push(c),
                }
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                match c {
                    '\\' => value.extend(chars.next()),
                    c => value.push(c),
                }
            }
        }
        pairs.push((key, value));
    }
}

/// npm and the package managers that read its options and configuration
/// keys.
const NPM: &[&str] = &["npm", "pnpm", "yarn", "npx", "bun"];

/// Whether an npm option or configuration key (without its dashes) names a
/// server npm reaches: `registry`, `proxy`, `https-proxy`, or a prefix
/// npm's option parser (nopt) takes for one (any unambiguous one among
/// npm's keys: `reg`, `prox`, `ht`), a scope's registry
/// (`@scope:registry`), and yarn's `npmRegistryServer`, `httpProxy`,
/// `httpsProxy`. Read with `_` as `-` and in any case, which only reads
/// more.
fn npm_server_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase().replace('_', "-");
    let abbreviates = |full: &str, shortest: usize| key.len() >= shortest && full.starts_with(&key);
    abbreviates("registry", 3)
        || abbreviates("proxy", 4)
        || abbreviates("https-proxy", 2)
        || (key.starts_with('@') && key.ends_with(":registry"))
        || key.ends_with("registryserver")
        || (key.ends_with("proxy") && !key.starts_with("no"))
}

/// The host a per-registry npm key is for (`//evil.com/:_authToken`,
/// `//evil.com:8080/path/:username`): npm sends it to that registry.
fn npm_key_host(key: &str) -> Option<String> {
    let rest = key.strip_prefix("//")?;
    host_of_operand(rest.split('/').next().unwrap_or_default())
}

/// The settings `npm config set` writes (`npm set`, `npm c set`, `pnpm
/// config set`, `yarn config set`): `KEY VALUE` or `KEY=VALUE` pairs, as
/// npm reads them, after the first `set` among the first words that are
/// no option.
fn npm_config_set(args: &[WordVal]) -> Vec<(String, WordVal)> {
    let words: Vec<&WordVal> = args
        .iter()
        .filter(|w| !w.literal.as_deref().is_some_and(|l| l.starts_with('-')))
        .collect();
    let Some(set) = words
        .iter()
        .take(3)
        .position(|w| w.literal.as_deref() == Some("set"))
    else {
        return Vec::new();
    };
    let mut pairs = Vec::new();
    let mut rest = words[set + 1..].iter();
    while let Some(w) = rest.next() {
        let Some(l) = w.literal.as_deref() else {
            continue;
        };
        match l.split_once('=') {
            Some((key, value)) => {
                pairs.push((key.trim().to_string(), WordVal::literal(value.trim())))
            }
            None => {
                if let Some(value) = rest.next() {
                    pairs.push((l.trim().to_string(), (*value).clone()));
                }
            }
        }
    }
    pairs
}

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
    (&["nntplib"], &["-s"]),
    (&["nc", "netcat"], &["-x"]),
    (&["ncat"], &["--proxy"]),
    (
        &["docker", "podman", "docker-compose", "podman-compose"],
        &["-H", "--host", "--url"],
    ),
    (&["kubectl", "oc"], &["-s", "--server"]),
    (&["helm"], &["--kube-apiserver"]),
    (POSTGRES, &["-h", "--host"]),
    // MySQL's option parser takes any unambiguous prefix of a long
    // option (`--ho`, `--hos`), and `--loose-` before any.
    (
        MYSQL,
        &[
            "-h",
            "--host",
            "--hos",
            "--ho",
            "--loose-host",
            "--loose-hos",
            "--loose-ho",
        ],
    ),
    (&["mysqlsh"], &["--uri"]),
    (
        &[
            "redis-cli",
            "valkey-cli",
            "keydb-cli",
            "redis-benchmark",
            "valkey-benchmark",
        ],
        &["-h", "-u"],
    ),
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
    (&["consul"], &["-http-addr", "--http-addr"]),
    (&["kcat", "kafkacat"], &["-b"]),
    (
        &[
            "kafka-console-producer",
            "kafka-console-consumer",
            "kafka-topics",
            "kafka-consumer-groups",
            "kafka-configs",
            "kafka-console-producer.sh",
            "kafka-console-consumer.sh",
            "kafka-topics.sh",
            "kafka-consumer-groups.sh",
            "kafka-configs.sh",
        ],
        &["--bootstrap-server", "--broker-list"],
    ),
    (
        &["mosquitto_pub", "mosquitto_sub", "mosquitto_rr"],
        &["-h", "--host", "--proxy"],
    ),
    (&["iperf3", "iperf"], &["-c", "--client"]),
    (&["swaks"], &["-s", "--server"]),
    (&["msmtp"], &["--host"]),
    (
        &[
            "amqp-consume",
            "amqp-publish",
            "amqp-get",
            "amqp-declare-queue",
            "amqp-delete-queue",
        ],
        &["-s", "--server"],
    ),
    (&["nats"], &["-s", "--server"]),
    (&["s3cmd"], &["--host", "--host-bucket"]),
    (&["glab"], &["--hostname"]),
    (&["rabbitmqadmin"], &["-H", "--host"]),
    (&["influx"], &["-host", "--host"]),
    (&["ipmitool"], &["-H"]),
    (&["chronyc"], &["-h"]),
    (&["httping"], &["-g", "--url", "-h", "--hostname"]),
    (&["bcp"], &["-S"]),
    (&["nmap"], &["--proxies", "--proxy"]),
    (&["wscat"], &["-c", "--connect", "-x", "--proxy"]),
    (&["evans"], &["--host"]),
    (&["hurl"], &["-x", "--proxy"]),
];

/// Options naming a file of URLs a program fetches (`aria2c -i list.txt`,
/// `yt-dlp -a urls.txt`): the hosts are known only at run time.
const URL_FILE_OPTIONS: &[(&[&str], &[&str])] = &[
    (
        &["aria2c"],
        &[
            "-i",
            "--input-file",
            "-T",
            "--torrent-file",
            "-M",
            "--metalink-file",
        ],
    ),
    (&["siege"], &["-f", "--file"]),
    // A file of lftp commands (`open HOST`).
    (&["lftp"], &["-f"]),
    (&["nmap", "masscan"], &["-iL", "--includefile"]),
    (&["yt-dlp", "youtube-dl"], &["-a", "--batch-file"]),
];

/// Programs that reach the hosts they are given as operands or options:
/// more operands given at run time (`… | xargs curl`) name hosts known only
/// then.
const NETWORK_PROGRAMS: &[&str] = &[
    "curl",
    "wget",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "ssh",
    "scp",
    "sftp",
    "ssh-copy-id",
    "rsync",
    "http",
    "https",
    "xh",
    "xhs",
    "openssl",
    "gh",
    "docker",
    "podman",
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
    // Go's module settings: a host (`GOPROXY=h`, `GOSUMDB=h` are
    // `https://h`) or the module paths whose hosts Go asks directly
    // (`GOPRIVATE=h/x`, `GONOSUMDB`, `GOINSECURE`).
    if matches!(
        name.as_str(),
        "gosumdb" | "goprivate" | "gonosumdb" | "goinsecure"
    ) {
        return true;
    }
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

/// Whether an environment variable makes libpq read the host from a
/// service file: `PGSERVICE` (the service), `PGSERVICEFILE`, `PGSYSCONFDIR`
/// (where the file is).
fn names_a_service(name: &str) -> bool {
    ["PGSERVICE", "PGSERVICEFILE", "PGSYSCONFDIR"]
        .iter()
        .any(|n| name.eq_ignore_ascii_case(n))
}

impl Analyzer {
    /// A variable given a value (`VAR=value cmd`, `env VAR=value cmd`,
    /// `export VAR=value`): a URL in it is reached, and so is the host a
    /// variable named for a proxy, a server or a registry holds
    /// (`HTTPS_PROXY=evil.com:3128 npm …`, `DOCKER_HOST=tcp://h:2375`);
    /// such a value computed at run time names a host known only then.
    pub(super) fn assigned_value(&mut self, name: &str, value: &WordVal) {
        if let Some(text) = value.literal.as_deref() {
            let forms = super::equivalents::assignment(name, text);
            if !forms.is_empty() {
                self.emit_equivalents(&[WordVal::literal(&format!("{name}={text}"))], forms);
            }
        }
        if JVM_OPTION_VARIABLES.contains(&name) {
            match value.literal.as_deref() {
                Some(text) => {
                    for word in text.split_whitespace() {
                        self.jvm_property_hosts(word.trim_matches(['"', '\'']));
                    }
                }
                None => self.reaches_host(&format!("{name}={}", value.raw), None),
            }
        }
        let host_variable = names_a_host(name);
        if names_a_service(name) {
            // The host is in libpq's service file, read at run time.
            self.reaches_host(&format!("{name}={}", value.raw), None);
        }
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
            let mut hosts = if has_url(part) {
                url_word_hosts(part)
            } else {
                Vec::new()
            };
            // `ftp:3128` is the host `ftp` to a proxy variable.
            if host_variable && !part.contains("://") {
                hosts.extend(host_of_operand(part));
            }
            for host in hosts {
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
            self.option_value_hosts(v);
        }
        let url_file = URL_FILE_OPTIONS
            .iter()
            .filter(|(programs, _)| programs.contains(&base))
            .flat_map(|(_, options)| options.iter())
            .find(|o| {
                args.iter().filter_map(|w| w.literal.as_deref()).any(|l| {
                    l == **o
                        || l.strip_prefix(**o).is_some_and(|rest| {
                            rest.starts_with('=') || (o.len() == 2 && !rest.is_empty())
                        })
                })
            });
        if let Some(o) = url_file {
            self.reaches_host(&format!("{base} {o}"), None);
        }
        if NPM.contains(&base) {
            self.npm_hosts(args);
        } else if base == "cargo" {
            self.cargo_config_hosts(args);
        }
        match base {
            "lftp" => self.lftp_hosts(args),
            "getent" | "resolvectl" => self.resolved_names(base, args),
            "rclone" => self.rclone_hosts(args),
            "tar" | "gtar" | "cpio" | "mt" => self.remote_archive_hosts(base, args),
            "go" => self.go_module_hosts(args),
            // `terraform login HOST` asks HOST for its login service.
            "terraform" | "tofu" => {
                let words: Vec<&WordVal> = args
                    .iter()
                    .filter(|w| !w.literal.as_deref().is_some_and(|l| l.starts_with('-')))
                    .collect();
                if matches!(
                    words.first().and_then(|w| w.literal.as_deref()),
                    Some("login" | "logout")
                ) && let Some(w) = words.get(1)
                {
                    self.reaches(w);
                }
            }
            _ => {}
        }
        // `-Dhttps.proxyHost=h` (java, mvn, gradle, sbt): the JVM's proxy.
        for w in args {
            if let Some(l) = w.literal.as_deref()
                && l.starts_with("-D")
            {
                self.jvm_property_hosts(l);
            }
        }
        if JVM_LAUNCHERS.contains(&base) {
            self.jvm_argument_files(args);
        }
        let literals = args.iter().filter_map(|w| w.literal.as_deref());
        if POSTGRES.contains(&base) {
            // `psql "host=h dbname=x"`, `-d 'hostaddr=…'`,
            // `postgresql:///x?host=h`.
            for l in literals {
                self.libpq_hosts(l);
            }
            self.computed_conninfo(base, args);
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

    /// The names a resolver client looks up, whose DNS queries name them:
    /// `getent hosts|ahosts|ahostsv4|ahostsv6 NAME…`, `resolvectl query
    /// NAME…` (and its `service`, `openpgp`, `tlsa` lookups).
    fn resolved_names(&mut self, base: &str, args: &[WordVal]) {
        let operands: Vec<&WordVal> = args
            .iter()
            .filter(|w| !w.literal.as_deref().is_some_and(|l| l.starts_with('-')))
            .collect();
        let looks_up = match (base, operands.first().and_then(|w| w.literal.as_deref())) {
            ("getent", Some(db)) => matches!(db, "hosts" | "ahosts" | "ahostsv4" | "ahostsv6"),
            ("resolvectl", Some(verb)) => {
                matches!(verb, "query" | "service" | "openpgp" | "tlsa")
            }
            _ => false,
        };
        if looks_up {
            for w in operands.iter().skip(1) {
                self.reaches(w);
            }
        }
    }

    /// The JDK's argument files (`java @opts F.java`): their options are
    /// read as if written here, for the proxy properties they set
    /// (`-Dhttp.proxyHost=h`); one that cannot be read now (named at run
    /// time, too large, absent) sets a proxy known only at run time.
    fn jvm_argument_files(&mut self, args: &[WordVal]) {
        /// A larger argument file is not read.
        const MAX_ARGFILE: u64 = 64 * 1024;
        for w in args {
            let raw = w.literal.as_deref().unwrap_or(&w.raw);
            let Some(name) = raw.trim_start_matches(['"', '\'']).strip_prefix('@') else {
                continue;
            };
            // `@@x` is the argument `@x`.
            if name.starts_with('@') {
                continue;
            }
            let paths = match w.literal.as_deref() {
                Some(_) => self.resolve_word_path(name, false, false).ok(),
                None => None,
            };
            let texts: Option<Vec<String>> = paths.and_then(|paths| {
                paths
                    .iter()
                    .map(|p| {
                        std::fs::metadata(&p.canonical)
                            .ok()
                            .filter(|m| m.is_file() && m.len() <= MAX_ARGFILE)
                            .and_then(|_| std::fs::read_to_string(&p.canonical).ok())
                    })
                    .collect()
            });
            let Some(texts) = texts else {
                self.reaches_host(raw, None);
                continue;
            };
            for text in texts {
                for word in text.split_whitespace() {
                    self.jvm_property_hosts(word.trim_matches(['"', '\'']));
                }
            }
        }
    }

    /// A JVM system property naming a proxy (`-Dhttp.proxyHost=h`,
    /// `-Dhttps.proxyHost=h`, `-DsocksProxyHost=h`, `-Dftp.proxyHost=h`):
    /// the JVM connects through it.
    pub(super) fn jvm_property_hosts(&mut self, word: &str) {
        let Some((key, value)) = word.strip_prefix("-D").and_then(|p| p.split_once('=')) else {
            return;
        };
        if key.to_ascii_lowercase().ends_with("proxyhost")
            && let Some(host) = host_of_operand(value)
        {
            self.reaches_host(word, Some(host));
        }
    }

    /// lftp's commands given with `-c` or `-e` (`open [-u U,P] [-p P]
    /// HOST`, `connect …`, `lftp -c 'open h; ls'`): the hosts they open.
    /// A command line computed at run time opens a host known only then.
    fn lftp_hosts(&mut self, args: &[WordVal]) {
        for (k, w) in args.iter().enumerate() {
            if !matches!(w.literal.as_deref(), Some("-c" | "-e")) {
                continue;
            }
            let Some(v) = args.get(k + 1) else { continue };
            let Some(text) = v.literal.as_deref() else {
                self.reaches_host(&v.raw, None);
                continue;
            };
            for command in text.split([';', '\n', '&', '|']) {
                let mut words = command.split_whitespace();
                if !matches!(words.next(), Some("open" | "connect" | "o")) {
                    continue;
                }
                let mut after_option = false;
                for word in words {
                    if word.starts_with('-') {
                        // `-u USER,PASS`, `-p PORT`, `-s SLOT`, `-e CMD`.
                        after_option = word.len() == 2 && !matches!(word, "-d" | "-B");
                        continue;
                    }
                    if std::mem::take(&mut after_option) {
                        continue;
                    }
                    self.reaches(&WordVal::literal(word));
                    break;
                }
            }
        }
    }

    /// rclone's remotes given on the command line (`:sftp,host=h:path`,
    /// `remote,endpoint=h:`): the values of the parameters that name a
    /// server (`host`, `endpoint`, `url`, any key ending so).
    /// GNU tar's (and cpio's, mt's) archive `[user@]host:file`: the
    /// program runs its remote shell to `host` (`rsh host /usr/sbin/rmt`),
    /// unless `--force-local`. The archive is `-f X`, `--file=X`, a cluster
    /// ending in `f` (`-tvf X`), the old form's `tvf X`, cpio's `-F`/`-O`/`-I`.
    fn remote_archive_hosts(&mut self, base: &str, args: &[WordVal]) {
        let literal = |w: &WordVal| w.literal.clone();
        if args
            .iter()
            .any(|w| w.literal.as_deref() == Some("--force-local"))
        {
            return;
        }
        let letters: &[char] = if base == "cpio" {
            &['F', 'O', 'I']
        } else {
            &['f']
        };
        let mut archives: Vec<String> = Vec::new();
        for (i, w) in args.iter().enumerate() {
            let Some(l) = literal(w) else { continue };
            if let Some(v) = l.strip_prefix("--file=") {
                archives.push(v.to_owned());
                continue;
            }
            let takes_next = l == "--file"
                || (l.starts_with('-')
                    && !l.starts_with("--")
                    && l.len() > 1
                    && l.ends_with(letters))
                || (i == 0
                    && base == "tar"
                    && !l.starts_with('-')
                    && l.chars().all(|c| c.is_ascii_alphabetic())
                    && l.contains('f'));
            if takes_next && let Some(v) = args.get(i + 1).and_then(literal) {
                archives.push(v);
            }
        }
        for archive in archives {
            let Some((before, _)) = archive.split_once(':') else {
                continue;
            };
            if before.is_empty() || before.contains('/') {
                continue;
            }
            let host = before.rsplit('@').next().unwrap_or(before);
            if !host.is_empty() {
                self.reaches_host(&archive, Some(host.to_owned()));
            }
        }
    }

    fn rclone_hosts(&mut self, args: &[WordVal]) {
        for w in args {
            let Some(l) = w.literal.as_deref() else {
                continue;
            };
            if l.starts_with('-') || !l.contains(',') {
                continue;
            }
            let spec = l.strip_prefix(':').unwrap_or(l);
            for param in spec.split(',').skip(1) {
                let Some((key, value)) = param.split_once('=') else {
                    continue;
                };
                let key = key.to_ascii_lowercase().replace('-', "_");
                if !(key.ends_with("host") || key.ends_with("endpoint") || key.ends_with("url")) {
                    continue;
                }
                let value = value.trim_matches(['"', '\'']);
                let hosts = if has_url(value) {
                    url_word_hosts(value)
                } else {
                    host_of_operand(value).into_iter().collect()
                };
                for host in hosts {
                    self.reaches_host(l, Some(host));
                }
            }
        }
    }

    /// The modules `go get`, `go install`, `go run PKG@V`, `go mod
    /// download`, `go list -m` fetch (`evil.com/x@v1`): a module path's
    /// first element, when it has a dot, is the host Go asks for it
    /// (`https://evil.com/x?go-get=1`). Read whatever `GOPROXY` says: the
    /// default list ends in `direct`, which Go falls back to when the proxy
    /// does not know the module (a private host's), `GOPRIVATE`,
    /// `GONOPROXY` or a `go env -w` made earlier send it there directly,
    /// and through a proxy the code still comes from that host. `go mod
    /// edit -require=M@V` and `-replace=A=M@V` write one to fetch later.
    fn go_module_hosts(&mut self, args: &[WordVal]) {
        // Go's build flags that take the next word as their value.
        const WITH_VALUE: &[&str] = &[
            "C",
            "o",
            "p",
            "tags",
            "ldflags",
            "gcflags",
            "asmflags",
            "gccgoflags",
            "mod",
            "modfile",
            "overlay",
            "pkgdir",
            "toolexec",
            "exec",
            "buildmode",
            "compiler",
            "installsuffix",
            "pgo",
            "coverpkg",
            "covermode",
            "f",
            "reuse",
            "json",
        ];
        let mut operands: Vec<&str> = Vec::new();
        let mut edits: Vec<&str> = Vec::new();
        let mut words = args.iter();
        while let Some(w) = words.next() {
            let Some(l) = w.literal.as_deref() else {
                continue;
            };
            let Some(flag) = l.strip_prefix("--").or_else(|| l.strip_prefix('-')) else {
                operands.push(l);
                continue;
            };
            match flag.split_once('=') {
                Some(("require" | "replace" | "dropreplace" | "exclude" | "retract", v)) => {
                    edits.push(v)
                }
                Some(_) => {}
                None if WITH_VALUE.contains(&flag) => {
                    words.next();
                }
                None => {}
            }
        }
        let modules: Vec<&str> = match operands.as_slice() {
            ["get" | "install", rest @ ..] | ["mod", "download", rest @ ..] => rest.to_vec(),
            ["list", rest @ ..] => rest.to_vec(),
            ["run", first, ..] if first.contains('@') => vec![*first],
            ["mod", "edit", ..] => edits.iter().flat_map(|e| e.split('=')).collect(),
            _ => return,
        };
        for module in modules {
            let path = module.split('@').next().unwrap_or_default();
            let first = path.split('/').next().unwrap_or_default();
            if first.contains('.')
                && !first.starts_with('.')
                && !path.ends_with(".go")
                && let Some(host) = host_of_operand(first)
            {
                self.reaches_host(module, Some(host));
            }
        }
    }

    /// gawk's network special files in an awk program or an assignment
    /// given to it (`print |& "/inet/tcp/0/HOST/PORT"`, `getline <
    /// "/inet4/udp/0/h/53"`, `-v s=/inet/tcp/0/h/80`): the host each
    /// names; one whose host is put together at run time (`"/inet/tcp/0/"
    /// h "/80"`) reaches a host known only then, and so does a coprocess
    /// (`|&`) whose name is not written out.
    pub(super) fn awk_network_files(&mut self, argv: &[WordVal]) {
        let mut read_inet = false;
        for w in &argv[1..] {
            let text = w.literal.as_deref().unwrap_or(&w.raw);
            if w.literal.is_none() && text.contains("/inet") {
                self.reaches_host(text, None);
                continue;
            }
            for (at, _) in text.match_indices("/inet") {
                let rest = &text[at + 5..];
                let rest = rest.strip_prefix(['4', '6']).unwrap_or(rest);
                let Some(rest) = rest
                    .strip_prefix("/tcp/")
                    .or_else(|| rest.strip_prefix("/udp/"))
                else {
                    continue;
                };
                // LPORT/HOST/RPORT, all three written in the string.
                let mut parts = rest.splitn(3, '/');
                let written = |p: &&str| !p.is_empty() && !p.contains(['"', '\'', ' ', ')', '$']);
                let host = match (parts.next(), parts.next(), parts.next()) {
                    (Some(lport), Some(host), Some(_)) if written(&lport) && written(&host) => {
                        host_name(host)
                    }
                    _ => None,
                };
                read_inet = true;
                self.reaches_host(text, host);
            }
            // `print |& s`, `s |& getline`: a coprocess named by a
            // variable may be a network file (one of those read above, if
            // any).
            for (at, _) in text.match_indices("|&").filter(|_| !read_inet) {
                let after = text[at + 2..].trim_start();
                let before = text[..at].trim_end();
                let named = if after.starts_with("getline") {
                    before.ends_with('"')
                } else {
                    after.starts_with('"')
                };
                if !named {
                    self.reaches_host(text, None);
                }
            }
        }
    }

    /// The hosts the value of an option that names a server names: each of
    /// a list (`a,b`), a URL's read with the words' URLs; known only at run
    /// time when the value is computed then.
    fn option_value_hosts(&mut self, v: &WordVal) {
        match v.literal.as_deref() {
            Some(l) => {
                for part in value_parts(l) {
                    // s3cmd's `--host-bucket=%(bucket)s.h`.
                    let part = match part.strip_prefix("%(") {
                        Some(rest) => rest
                            .split_once(')')
                            .and_then(|(_, h)| h.split_once('.'))
                            .map_or(part, |(_, h)| h),
                        None => part,
                    };
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

    /// The servers npm (and the clients that read its options: pnpm, yarn,
    /// npx, bun) is told to reach: an option naming one, however npm's
    /// option parser takes it (see [`npm_server_key`]: `--reg URL`,
    /// `-registry=URL`, `--@scope:registry=URL`), the host of a
    /// per-registry key (`--//evil.com/:_authToken=…`), and the same keys
    /// set by `npm config set KEY VALUE` (or `KEY=VALUE`, `npm set …`).
    pub(super) fn npm_hosts(&mut self, args: &[WordVal]) {
        let mut values: Vec<WordVal> = Vec::new();
        for (k, w) in args.iter().enumerate() {
            let Some(l) = w.literal.as_deref() else {
                continue;
            };
            let Some(option) = l.strip_prefix('-').map(|o| o.trim_start_matches('-')) else {
                continue;
            };
            let (key, attached) = match option.split_once('=') {
                Some((key, value)) => (key, Some(value)),
                None => (option, None),
            };
            if let Some(host) = npm_key_host(key) {
                self.reaches_host(l, Some(host));
            }
            if npm_server_key(key) {
                values.extend(
                    attached
                        .map(WordVal::literal)
                        .or_else(|| args.get(k + 1).cloned()),
                );
            }
        }
        for (key, value) in npm_config_set(args) {
            if let Some(host) = npm_key_host(&key) {
                self.reaches_host(&key, Some(host));
            }
            if npm_server_key(&key) {
                values.push(value);
            }
        }
        for v in &values {
            self.option_value_hosts(v);
        }
    }

    /// The servers cargo's `--config KEY=VALUE` (TOML, as cargo reads it)
    /// sets, as the `CARGO_HTTP_PROXY`, `CARGO_REGISTRIES_NAME_INDEX`
    /// variables would: `http.proxy`, `registry.index`,
    /// `registries.NAME.index`, `source.NAME.registry`, a source's or a
    /// patch's `git`.
    fn cargo_config_hosts(&mut self, args: &[WordVal]) {
        for (k, w) in args.iter().enumerate() {
            let value = match w.literal.as_deref() {
                Some("--config") => match args.get(k + 1) {
                    Some(v) => v.clone(),
                    None => continue,
                },
                Some(l) => match l.strip_prefix("--config=") {
                    Some(v) => WordVal::literal(v),
                    None => continue,
                },
                None => continue,
            };
            let Some(text) = value.literal.as_deref() else {
                // A setting or a file named at run time.
                self.reaches_host(&value.raw, None);
                continue;
            };
            // Not TOML: the path of a configuration file, not read here.
            let Ok(table) = text.parse::<toml::Table>() else {
                continue;
            };
            let mut servers = Vec::new();
            cargo_servers(&table, &mut servers);
            for server in servers {
                for host in url_word_hosts(&server) {
                    self.reaches_host(text, Some(host));
                }
            }
        }
    }

    /// The hosts a word given to a libpq client names as a connection
    /// string (whole, or the value of `--dbname=`, `-d`): those of a URI or
    /// of `host`/`hostaddr` pairs; a service's are known only at run time.
    /// A string libpq cannot read is searched for `host=` words.
    fn libpq_hosts(&mut self, word: &str) {
        let text = if let Some(long) = word.strip_prefix("--") {
            long.split_once('=').map_or(word, |(_, value)| value)
        } else {
            word.strip_prefix("-d").unwrap_or(word)
        };
        match libpq_conninfo(text) {
            Some(found) => {
                for host in found.hosts {
                    self.reaches_host(word, Some(host));
                }
                if found.service {
                    self.reaches_host(word, None);
                }
            }
            None if text.contains('=') => {
                for token in text.split_whitespace() {
                    if let Some(value) = token
                        .strip_prefix("host=")
                        .or_else(|| token.strip_prefix("hostaddr="))
                    {
                        for part in value_parts(value.trim_matches(['\'', '"'])) {
                            if let Some(host) = host_of_operand(part) {
                                self.reaches_host(word, Some(host));
                            }
                        }
                    }
                }
            }
            None => {}
        }
    }

    /// A libpq client's word computed at run time where a connection string
    /// may stand (`psql "$DATABASE_URL"`, `pg_dump -d "$DB"`,
    /// `--dbname="$URL"`): the host it reaches is known only then. The
    /// values of the options that name no server (a query, a file, a user,
    /// a port, a table) are not.
    fn computed_conninfo(&mut self, base: &str, args: &[WordVal]) {
        let psql = base == "psql";
        let no_server = |o: &str| {
            let short = if psql { "cfvoLFRPTUp" } else { "fUptTnNjFZES" };
            let long = [
                "--command",
                "--file",
                "--set",
                "--variable",
                "--output",
                "--log-file",
                "--field-separator",
                "--record-separator",
                "--pset",
                "--table-attr",
                "--username",
                "--port",
                "--table",
                "--exclude-table",
                "--schema",
                "--exclude-schema",
                "--jobs",
                "--format",
                "--compress",
                "--encoding",
                "--superuser",
                "--role",
            ];
            match o.strip_prefix("--") {
                Some(_) => long.contains(&o),
                None => o.len() == 2 && short.contains(&o[1..]),
            }
        };
        let mut after: Option<&str> = None;
        for w in args {
            match w.literal.as_deref() {
                Some(l) if l.starts_with('-') && l.len() > 1 => {
                    after =
                        (l.len() == 2 || (l.starts_with("--") && !l.contains('='))).then_some(l);
                }
                Some(_) => after = None,
                None => {
                    // `--username="$U"`: the option is written, its value not.
                    let attached = w
                        .raw
                        .split_once('=')
                        .map(|(o, _)| o)
                        .filter(|o| o.starts_with("--"));
                    if !after.or(attached).is_some_and(no_server) {
                        self.reaches_host(&w.raw, None);
                    }
                    after = None;
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
            });
        if network {
            let text = format!("{} …", super::programs::short_text(argv));
            self.reaches_host(&text, None);
        }
    }

    /// Every URL written in the words of a command (`scheme://host`,
    /// `http:\\host`; see [`urls_in`]). A host computed at run time counts
    /// only where the program is known to reach what it is given (`curl
    /// "https://$H/"`, see [`Analyzer::reaches`]), not in any word (`echo
    /// "see https://$HOST"`).
    pub(super) fn urls_in_words(&mut self, argv: &[WordVal]) {
        let text_only = text_words(argv, self.output_read);
        let program = argv
            .first()
            .and_then(|w| w.literal.as_deref())
            .unwrap_or_default();
        let program = program.rsplit('/').next().unwrap_or(program);
        for (i, w) in argv.iter().enumerate().skip(1) {
            if text_only.get(i).copied().unwrap_or(false) {
                continue;
            }
            // Most words hold no colon: no URL to look for.
            if !w.literal.as_deref().unwrap_or(&w.raw).contains(':') {
                continue;
            }
            // `http://127.0.0.{2,3}/`: each word bash makes of it.
            let texts = match (&w.literal, expanded_words(w)) {
                (Some(l), _) => vec![l.clone()],
                (None, Expanded::Words(words)) => words,
                (None, Expanded::Unknown) => {
                    self.reaches_host(&w.raw, None);
                    continue;
                }
                (None, Expanded::Unexpanded) => vec![w.raw.clone()],
            };
            let previous = argv[i - 1].literal.as_deref().unwrap_or_default();
            for text in &texts {
                self.url_word(program, w, text, previous);
            }
        }
    }

    /// The URLs and the `host:port` of one word (or one word of its brace
    /// expansion) of a command of `program`; `previous` is the word before
    /// it.
    fn url_word(&mut self, program: &str, w: &WordVal, text: &str, previous: &str) {
        // `curl http://127.0.0.?:8099/`: the host is a file name bash
        // finds when it runs.
        if w.glob && globbed_host(text) && (has_url(text) || globbed_host_and_port(text)) {
            return self.reaches_host(text, None);
        }
        for (written, host) in urls_in(text) {
            if host.is_some() {
                self.reaches_host(written, host);
            }
        }
        // `grpcurl evil.com:443 list`, `--server=10.0.0.5:6443`: a
        // host and a port say where a client connects, whatever the
        // program.
        // An address a server listens on (`gunicorn --bind
        // 127.0.0.1:8000`, `--listen=…`) is no host it reaches (`-b` is
        // as often a broker: `kcat -b h:9092`).
        let (option, value) = match text.rsplit_once('=') {
            Some((o, v)) => (o, v),
            None => (previous, text),
        };
        let listens = (option.starts_with("--")
            && (option.contains("bind") || option.contains("listen")))
            || (option == "-S" && program == "php");
        if !listens && let Some(host) = host_and_port(value) {
            self.reaches_host(value, Some(host));
        }
    }

    /// The host of a word that is a host or a URL (`evil.com`,
    /// `user@host:path`, `https://host/x`); uncertain when the word is
    /// computed at run time.
    pub(super) fn reaches(&mut self, w: &WordVal) {
        if w.glob && w.literal.as_deref().is_some_and(globbed_host) {
            return self.reaches_host(&w.raw, None);
        }
        match w.literal.as_deref() {
            // `://` words were read by `urls_in_words`.
            Some(l) if l.contains("://") => {}
            Some(l) => {
                if let Some(host) = host_of_operand(l) {
                    self.reaches_host(l, Some(host));
                }
            }
            None if !matches!(expanded_words(w), Expanded::Unexpanded) => match expanded_words(w) {
                Expanded::Words(words) => {
                    for word in words {
                        self.reaches(&WordVal::literal(&word));
                    }
                }
                _ => self.reaches_host(&w.raw, None),
            },
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
    pub(super) fn reaches_host(&mut self, written: &str, host: Option<String>) {
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
                    let l = match l.strip_prefix("\\\\") {
                        // `smbclient '\\host\share'`.
                        Some(unc) => unc.replace('\\', "/"),
                        None => l.strip_prefix("//").unwrap_or(l).to_string(),
                    };
                    self.reaches(&WordVal::literal(&l));
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
            "socks4-connect",
            "socks4a-connect",
            "udp-datagram",
            "udp4-datagram",
            "udp6-datagram",
            "ip-sendto",
            "ip4-sendto",
            "ip6-sendto",
            "ip-datagram",
            "ip4-datagram",
            "ip6-datagram",
            "sctp",
            "sctp4",
            "sctp6",
            "sctp4-connect",
            "sctp6-connect",
            "dccp",
            "dccp4",
            "dccp6",
            "dccp4-connect",
            "dccp6-connect",
            "openssl-dtls-client",
            "dtls",
            "dtls-client",
            "vsock-connect",
        ];
        for w in operands {
            let Some(l) = w.literal.as_deref() else {
                if w.raw.contains(':') {
                    self.reaches_host(&w.raw, None);
                }
                continue;
            };
            // `TCP:[::1]:80`: a colon in brackets parts no field.
            let mut fields = bracketed_fields(l.split(',').next().unwrap_or_default()).into_iter();
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
    /// The submodules' URLs in `.gitmodules` of the working trees where the
    /// command may run (a relative URL is the superproject's remote's).
    fn submodule_urls(&self) -> Vec<String> {
        let dirs = self
            .resolve_word_path(".", false, false)
            .map(|dirs| dirs.into_iter().map(|d| d.canonical).collect::<Vec<_>>())
            .unwrap_or_default();
        let mut urls = Vec::new();
        for dir in dirs {
            let Some(worktree) = crate::git_index::worktree_of(&dir) else {
                continue;
            };
            // `submodule.NAME.url` in the repository's configuration, which
            // git uses over `.gitmodules` once the submodule is initialised.
            let config = crate::git_config::GitConfig::of_worktree(worktree, self.home.as_deref());
            for url in config.submodule_urls() {
                if !url.starts_with("./") && !url.starts_with("../") && !urls.contains(&url) {
                    urls.push(url);
                }
            }
            let Ok(text) = std::fs::read_to_string(worktree.join(".gitmodules")) else {
                continue;
            };
            for line in text.lines() {
                if let Some((key, value)) = line.split_once('=')
                    && key.trim().eq_ignore_ascii_case("url")
                {
                    let url = value.trim().trim_matches('"');
                    for url in config.rewrite(url) {
                        if !url.starts_with("./") && !url.starts_with("../") && !urls.contains(&url)
                        {
                            urls.push(url);
                        }
                    }
                }
            }
        }
        urls
    }

    /// A git remote written as a command's operand: the host of its scp
    /// form (`h:r`, `[::1]:r`; a URL's is read with the words' URLs), or
    /// the command the `ext::` transport runs (see [`ext_command`]).
    fn git_remote_word(&mut self, argv: &[WordVal], remote: &str) {
        if let Some(command) = remote.strip_prefix("ext::") {
            // The command is read as a command line (for the Bash rules and
            // the hosts it names); what it connects to, with what git
            // gives it, is known only at run time.
            let script = ext_command(command);
            if !script.is_empty() {
                self.nested_script(argv, &script);
            }
            return self.reaches_host(remote, None);
        }
        if let Some(host) = git_scp_host(remote) {
            self.reaches_host(remote, Some(host));
        }
    }

    /// The hosts a git remote's URL reaches (`https://h/r`, `git@h:r`).
    fn reaches_remote_url(&mut self, url: &str) {
        if url.starts_with("ext::") {
            return self.reaches_host(url, None);
        }
        let hosts = if url.contains("://") {
            url_word_hosts(url)
        } else {
            git_scp_host(url).into_iter().collect()
        };
        for host in hosts {
            self.reaches_host(url, Some(host));
        }
    }

    pub(super) fn git_remote_hosts(&mut self, argv: &[WordVal], more: bool) {
        let args = &argv[1..];
        // The subcommand: the first word that is no option (nor the value
        // of a global option that takes one: `-C DIR`, `-c K=V`,
        // `--git-dir DIR`).
        let mut at = 0;
        while let Some(l) = args.get(at).and_then(|w| w.literal.as_deref()) {
            if !l.starts_with('-') {
                break;
            }
            at += if super::git::GLOBAL_WITH_VALUE.contains(&l) {
                2
            } else {
                1
            };
        }
        // `git -C` with its value missing steps past the end.
        let at = at.min(args.len());
        let sub = args.get(at).and_then(|w| w.literal.as_deref());
        let operands = git_operands(
            sub.unwrap_or_default(),
            args.get(at + 1..).unwrap_or_default(),
        );
        let mut remotes: Vec<&WordVal> = match sub {
            Some(
                "push" | "pull" | "fetch" | "clone" | "ls-remote" | "archive" | "fetch-pack"
                | "send-pack",
            ) => operands.first().copied().into_iter().collect(),
            Some("remote") => match operands.first().and_then(|w| w.literal.as_deref()) {
                Some("add" | "set-url") => operands.get(2).copied().into_iter().collect(),
                _ => Vec::new(),
            },
            Some("submodule") => match operands.first().and_then(|w| w.literal.as_deref()) {
                Some("add") => operands.get(1).copied().into_iter().collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        // `git fetch --multiple a b`: every operand is a remote.
        if sub == Some("fetch")
            && args
                .iter()
                .any(|w| w.literal.as_deref() == Some("--multiple"))
        {
            remotes.extend(operands.iter().skip(1));
        }
        for w in remotes {
            match w.literal.as_deref() {
                None => self.reaches(w),
                Some(l) if w.glob && globbed_host(l) => self.reaches_host(l, None),
                Some(l) => self.git_remote_word(argv, l),
            }
        }
        // A remote by its name, or the default one: its URLs (and what
        // `insteadOf` makes of them) in the repository's configuration.
        if let Some(sub) = sub.filter(|s| {
            matches!(
                *s,
                "push" | "pull" | "fetch" | "ls-remote" | "remote" | "clone" | "archive"
            )
        }) {
            let (_, urls) = self.remote_urls(argv, sub, &args[at + 1..]);
            for url in urls {
                if crate::git_config::local_path(&url).is_some() {
                    continue;
                }
                self.reaches_remote_url(&url);
            }
        }
        // `git submodule update`, `git pull --recurse-submodules`: the URLs
        // `.gitmodules` holds (the working tree's, where git runs).
        // `-c submodule.recurse=true` makes `pull`, `checkout`, `switch`
        // and `reset` update them.
        let recurse_set = args[..at].iter().any(|w| {
            w.literal.as_deref().is_some_and(|l| {
                l.to_ascii_lowercase().starts_with("submodule.recurse") && !l.ends_with("=false")
            })
        });
        let updates_submodules = match sub {
            Some("submodule") => operands
                .first()
                .is_some_and(|w| w.literal.as_deref() == Some("update")),
            Some("pull" | "fetch" | "checkout" | "switch" | "reset" | "clone") => {
                recurse_set
                    || args.iter().any(|w| {
                        w.literal.as_deref().is_some_and(|l| {
                            (l.starts_with("--recurse-submodules") || l == "--recursive")
                                && !l.ends_with("=no")
                        })
                    })
            }
            _ => false,
        };
        if updates_submodules {
            for url in self.submodule_urls() {
                self.reaches_remote_url(&url);
            }
        }
        // `git archive --remote=h:x`, `git push --repo h:x`.
        let rest = args.get(at + 1..).unwrap_or_default();
        for (k, w) in rest.iter().enumerate() {
            let Some(l) = w.literal.as_deref() else {
                continue;
            };
            let remote = match l {
                "--remote" | "--repo" => rest.get(k + 1).and_then(|v| v.literal.clone()),
                _ => l
                    .strip_prefix("--remote=")
                    .or_else(|| l.strip_prefix("--repo="))
                    .map(str::to_string),
            };
            if let Some(remote) = remote {
                self.git_remote_word(argv, &remote);
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

    /// The hosts OpenSSH's options name, for each of its front ends (ssh,
    /// scp, sftp, ssh-copy-id): `-J` jump hosts, and the `-o` settings
    /// `ProxyJump`, `HostName` (its `%h` is the destination's name) and
    /// `CanonicalDomains` (the destination's name in each domain).
    /// `destination` is the host the command names, when known.
    pub(super) fn openssh_hosts(&mut self, p: &options::Parsed, destination: Option<&str>) {
        let mut hops: Vec<WordVal> = p.values(&["-J"]).flatten().cloned().collect();
        for o in p.values(&["-o"]).flatten().cloned().collect::<Vec<_>>() {
            let Some((key, value)) = o.literal.as_deref().and_then(ssh_option) else {
                continue;
            };
            match key.as_str() {
                "proxyjump" => hops.push(WordVal::literal(&value)),
                "hostname" => {
                    let host = ssh_tokens(&value, destination.unwrap_or("%h"), destination);
                    self.reaches(&WordVal::literal(&host));
                }
                "canonicaldomains" => {
                    for domain in value.split([' ', '\t', ',']).filter(|d| !d.is_empty()) {
                        let name = format!("{}.{domain}", destination.unwrap_or_default());
                        if let Some(host) = host_of_operand(&name) {
                            self.reaches_host(&value, Some(host));
                        }
                    }
                }
                _ => {}
            }
        }
        for hop in hops {
            match hop.literal.as_deref() {
                Some("none") => {}
                Some(l) => {
                    for hop in l.split(',') {
                        self.reaches(&WordVal::literal(hop));
                    }
                }
                None => self.reaches(&hop),
            }
        }
    }

    /// `openssl s_client -connect HOST:PORT`, and `-proxy`, `-host`
    /// (`ocsp`), `-server` (`cmp`), as OpenSSL 3 takes them too:
    /// `-connect=HOST:PORT`, `--connect HOST:PORT`.
    pub(super) fn openssl_hosts(&mut self, argv: &[WordVal]) {
        let args = &argv[1..];
        // OpenSSL 3 takes the host as an operand too (`s_client h:443`):
        // every word that is no option is read (an option's value that
        // reads as a host, `-servername h`, only meets rules written for
        // it).
        if args
            .first()
            .and_then(|w| w.literal.as_deref())
            .is_some_and(|sub| matches!(sub, "s_client" | "s_time"))
        {
            // The values of the options that take one and name no host
            // connected to (`-servername h` is the name sent in TLS to the
            // host `-connect` names).
            const WITH_VALUE: &[&str] = &[
                "servername",
                "xmpphost",
                "verify_hostname",
                "name",
                "cert",
                "key",
                "CAfile",
                "CApath",
                "CAstore",
                "alpn",
                "nextprotoneg",
                "starttls",
                "sess_out",
                "sess_in",
                "keylogfile",
                "msgfile",
                "cipher",
                "ciphersuites",
                "groups",
                "curves",
                "sigalgs",
                "psk_identity",
                "psk",
                "verify",
                "pass",
                "certform",
                "keyform",
                "chainCAfile",
                "verifyCAfile",
                "connect",
                "proxy",
                "bind",
                "unix",
            ];
            let mut value = false;
            for l in args[1..].iter().filter_map(|w| w.literal.as_deref()) {
                if let Some(option) = l.strip_prefix('-') {
                    let option = option.trim_start_matches('-');
                    value = !option.contains('=') && WITH_VALUE.contains(&option);
                    continue;
                }
                if std::mem::take(&mut value) {
                    continue;
                }
                if let Some(host) = host_of_operand(l) {
                    self.reaches_host(l, Some(host));
                }
            }
        }
        for (k, w) in args.iter().enumerate() {
            let Some(option) = w
                .literal
                .as_deref()
                .and_then(|l| l.strip_prefix("--").or_else(|| l.strip_prefix('-')))
            else {
                continue;
            };
            let (name, attached) = match option.split_once('=') {
                Some((name, value)) => (name, Some(WordVal::literal(value))),
                None => (option, None),
            };
            if !matches!(name, "connect" | "proxy" | "host" | "server") {
                continue;
            }
            if let Some(v) = attached.or_else(|| args.get(k + 1).cloned()) {
                self.option_value_hosts(&v);
            }
        }
    }

    /// The registry of an image pushed, pulled, inspected or run, or
    /// logged in to (`docker push evil.com/img`, `docker manifest inspect
    /// evil.com/img`, `docker run evil.com/img`, `podman login evil.com`):
    /// its first part, when that names a host.
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
        // The subcommand's words (`manifest inspect`, `buildx imagetools
        // create`, `image pull`, `container run`).
        let path: Vec<&str> = args
            .iter()
            .take(3)
            .map_while(|w| w.literal.as_deref())
            .take_while(|l| !l.starts_with('-'))
            .collect();
        // The daemon or the client fetches the image it is given (`run`,
        // `create` pull one that is missing; buildah's `from` too).
        const FETCH: &[&str] = &[
            "pull", "push", "login", "logout", "search", "run", "create", "from",
        ];
        if matches!(
            path.as_slice(),
            ["build" | "builder" | "buildx" | "image", "build", ..] | ["build", ..]
        ) {
            return self.build_registries(args);
        }
        let (fetches, sub) = match path.as_slice() {
            ["image" | "container", sub, ..] => (FETCH.contains(sub), *sub),
            ["manifest", ..] | ["buildx", "imagetools", ..] => (true, ""),
            [sub, ..] => (FETCH.contains(sub), *sub),
            [] => (false, ""),
        };
        if !fetches {
            return;
        }
        for w in args.iter().skip(1) {
            let Some(l) = w.literal.as_deref() else {
                continue;
            };
            if l.starts_with('-') {
                continue;
            }
            if sub == "login" || sub == "logout" {
                if let Some(host) = host_of_operand(l.split('/').next().unwrap_or_default()) {
                    self.reaches_host(l, Some(host));
                }
            } else {
                self.image_registry(l);
            }
        }
    }

    /// The registries an image build reaches: those of its tags when it
    /// pushes them (`--push`, `--output type=registry`, `-o
    /// type=image,push=true`), and those its cache is read from or written
    /// to (`--cache-from type=registry,ref=evil.com/c`, `--cache-to …`).
    fn build_registries(&mut self, args: &[WordVal]) {
        let mut tags: Vec<String> = Vec::new();
        let mut push = false;
        let mut words = args.iter().filter_map(|w| w.literal.as_deref());
        while let Some(l) = words.next() {
            let (option, attached) = match l.split_once('=') {
                Some((o, v)) if o.starts_with("--") => (o, Some(v.to_string())),
                _ => (l, None),
            };
            let takes = matches!(
                option,
                "-t" | "--tag" | "-o" | "--output" | "--cache-from" | "--cache-to"
            );
            let value = match attached {
                Some(v) => Some(v),
                None if takes => words.next().map(str::to_string),
                None => l
                    .strip_prefix("-t")
                    .or_else(|| l.strip_prefix("-o"))
                    .filter(|v| !v.is_empty() && !l.starts_with("--"))
                    .map(str::to_string),
            };
            let short = if option.starts_with("--") {
                ""
            } else {
                option.get(..2).unwrap_or_default()
            };
            match (option, short) {
                ("--push", _) => push = true,
                ("-t" | "--tag", _) | (_, "-t") => tags.extend(value),
                ("-o" | "--output", _) | (_, "-o") => {
                    let v = value.unwrap_or_default();
                    push |= v
                        .split(',')
                        .any(|kv| matches!(kv, "type=registry" | "push=true" | "push"));
                    for kv in v.split(',') {
                        if let Some(name) = kv.strip_prefix("name=") {
                            tags.extend(name.split(['+', ';']).map(str::to_string));
                        }
                    }
                }
                ("--cache-from" | "--cache-to", _) => {
                    let v = value.unwrap_or_default();
                    for kv in v.split(',') {
                        let image = kv.strip_prefix("ref=").unwrap_or(if kv.contains('=') {
                            ""
                        } else {
                            kv
                        });
                        self.image_registry(image);
                    }
                }
                _ => {}
            }
        }
        if push {
            for tag in tags {
                self.image_registry(&tag);
            }
        }
    }

    /// The registry an image reference names (`evil.com/img:tag`,
    /// `localhost:5000/img`): `library/ubuntu` or `ubuntu:22.04` name
    /// Docker Hub's; the first part is a registry when it has a dot or a
    /// port, or is `localhost` (as docker reads it).
    pub(super) fn image_registry(&mut self, image: &str) {
        let Some((first, _)) = image.split_once('/') else {
            return;
        };
        if (first.contains(['.', ':']) || first == "localhost")
            && let Some(host) = host_of_operand(first)
        {
            self.reaches_host(image, Some(host));
        }
    }

    /// scp's and rsync's remote operands (`host:path`, `user@host:path`,
    /// `[host]:path`, `user@[host]:path`).
    pub(super) fn remote_path_hosts(&mut self, operands: &[WordVal]) {
        for w in operands {
            if let Some(l) = w.literal.as_deref()
                && !l.contains("://")
                && let Some(host) = remote_path_host(l).and_then(host_of_operand)
            {
                self.reaches_host(l, Some(host));
            }
        }
    }
}

/// The host of an scp or rsync operand, as scp reads one: the text before
/// the first colon outside brackets when no `/` comes before it (a leading
/// colon is a file name's), after the last `@` (`u@[evil.com]:x` is
/// `[evil.com]`, `[::1]:x` is `[::1]`). None for a local path (`./a:b`,
/// `/x`, `file`).
pub(super) fn remote_path_host(word: &str) -> Option<&str> {
    if word.starts_with(':') {
        return None;
    }
    let mut bracket = word.starts_with('[');
    let mut colon = None;
    for (i, c) in word.char_indices() {
        let next = word[i + c.len_utf8()..].chars().next();
        if c == '@' && next == Some('[') {
            bracket = true;
        }
        if c == ']' && next == Some(':') && bracket {
            colon = Some(i + 1);
            break;
        }
        if c == ':' && !bracket {
            colon = Some(i);
            break;
        }
        if c == '/' {
            return None;
        }
    }
    let user_host = &word[..colon?];
    // The brackets stay: [`host_of_operand`] reads `[::1]` and
    // `[evil.com]`.
    let host = user_host.rsplit_once('@').map_or(user_host, |(_, h)| h);
    (!host.is_empty()).then_some(host)
}

/// The `:`-separated fields of a word, a colon inside `[…]` (an IPv6
/// address) parting none (`TCP:[::1]:80` is `TCP`, `[::1]`, `80`).
fn bracketed_fields(word: &str) -> Vec<&str> {
    let mut fields = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in word.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            ':' if depth == 0 => {
                fields.push(&word[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    fields.push(&word[start..]);
    fields
}

/// An OpenSSH `-o` setting as ssh reads one: the keyword (lowercased),
/// then whitespace or one `=` (`HostName=h`, `HostName h`, `hostname = h`),
/// then the value, without the quotes around it (`HostName "h"`). None
/// without a value.
pub(super) fn ssh_option(text: &str) -> Option<(String, String)> {
    let text = text.trim_start();
    let at = text.find(['=', ' ', '\t'])?;
    let key = text[..at].to_ascii_lowercase();
    let value = text[at..].trim_start_matches([' ', '\t']);
    let value = value.strip_prefix('=').unwrap_or(value).trim();
    let unquoted = ['"', '\'']
        .iter()
        .find_map(|q| value.strip_prefix(*q)?.strip_suffix(*q))
        .unwrap_or(value);
    Some((key, unquoted.to_string()))
}

/// An OpenSSH setting with its tokens replaced: `%h` by `host` (the name
/// connected to), `%n` by the name the command gave, `%p` by port 22, `%r`
/// by a user and `%%` by `%`; others stay.
pub(super) fn ssh_tokens(text: &str, host: &str, given: Option<&str>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('h') => out.push_str(host),
            Some('n') => out.push_str(given.unwrap_or("%n")),
            Some('p') => out.push_str("22"),
            Some('r') => out.push_str("user"),
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out
}

/// The host name an OpenSSH destination is written with (`[user@]host`,
/// `ssh://[user@]host[:port]`), when written: the text ssh puts for `%h`
/// and `%n` in `HostName` and the commands it runs (`-o
/// Hostname=127.0.0.%h 2` is `127.0.0.2`), read as a host only after that.
pub(super) fn ssh_destination(word: &WordVal) -> Option<String> {
    let l = word.literal.as_deref()?;
    let name = match l.split_once("://") {
        Some((_, rest)) => {
            let authority = rest.split('/').next().unwrap_or_default();
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            match host.strip_prefix('[') {
                Some(inside) => inside.split(']').next().unwrap_or_default(),
                None => host.split(':').next().unwrap_or_default(),
            }
        }
        None => l.rsplit_once('@').map_or(l, |(_, h)| h),
    };
    (!name.is_empty()).then(|| name.to_string())
}

/// Programs whose words are patterns they search files for (`grep -rn
/// 'https://h' .`): what they print is what the files hold, not their
/// words, and they fetch nothing.
const SEARCHERS: &[&str] = &[
    "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "ack-grep", "ugrep", "pt", "sift",
];

/// Programs that print text made of their words and fetch nothing (`echo
/// "see https://h"`, `jq '.url = "https://h"'`, `sed 's|a|https://h|'`):
/// a URL in them is reached only by what reads their output.
const PRINTERS: &[&str] = &[
    "echo", "printf", "jq", "gojq", "jaq", "yq", "sed", "gsed", "cowsay", "figlet", "toilet",
    "banner",
];

/// Programs that pass text on (filter, count, page or copy it) without
/// running or fetching what it says: a printer's output read by them alone
/// is still only text.
const TEXT_FILTERS: &[&str] = &[
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "sort",
    "uniq",
    "head",
    "tail",
    "wc",
    "cut",
    "tr",
    "cat",
    "tac",
    "column",
    "fmt",
    "fold",
    "nl",
    "rev",
    "paste",
    "less",
    "more",
    "jq",
    "yq",
    "tee",
    "diff",
    "cmp",
    "md5sum",
    "sha1sum",
    "sha256sum",
];

/// Whether a pipeline's command only passes text on (see [`TEXT_FILTERS`]).
pub(super) fn filters_text(cmd: &brush_parser::ast::Command) -> bool {
    match cmd {
        brush_parser::ast::Command::Simple(sc) => match sc.word_or_name.as_ref() {
            Some(w) if TEXT_FILTERS.contains(&w.value.as_str()) => true,
            // `sed 's/a/b/'`: a sed whose scripts run nothing (no `e`).
            Some(w) if w.value == "sed" => sc.suffix.as_ref().is_some_and(|suffix| {
                suffix.0.iter().all(|item| match item {
                    brush_parser::ast::CommandPrefixOrSuffixItem::Word(w) => {
                        let word = w.value.trim_matches(['\'', '"']);
                        word.starts_with('-')
                            || super::programs::sed_effects(word).is_some_and(|effects| {
                                !effects
                                    .iter()
                                    .any(|e| matches!(e, super::programs::SedEffect::Run(_)))
                            })
                    }
                    _ => false,
                })
            }),
            _ => false,
        },
        _ => false,
    }
}

/// The words of a command that are text it searches for, prints, records
/// or sends as data, not a place it reaches (true at their index; empty
/// when none is): every word of a search (`grep`, `rg`, `git grep`); of a
/// printer whose output no program that may run or fetch it reads
/// (`output_read`: `echo https://h | sh`, `$(echo …)`); the messages and
/// search terms of git (`commit -m`, `tag -m`, `log -S`, `--grep`), the
/// titles and bodies gh and glab send to their forge, and the data curl
/// and wget post to the URL they reach (`curl -d 'url=https://h' …`).
/// Any other program's words (one tack does not know, an interpreter's
/// code) are all read.
fn text_words(argv: &[WordVal], output_read: bool) -> Vec<bool> {
    let Some(program) = argv.first().and_then(|w| w.literal.as_deref()) else {
        return Vec::new();
    };
    let base = program.rsplit('/').next().unwrap_or(program);
    let n = argv.len();
    if SEARCHERS.contains(&base) || (!output_read && PRINTERS.contains(&base)) {
        return vec![true; n];
    }
    match base {
        "git" => {
            let mut at = 1;
            while let Some(l) = argv.get(at).and_then(|w| w.literal.as_deref()) {
                if !l.starts_with('-') {
                    break;
                }
                at += if super::git::GLOBAL_WITH_VALUE.contains(&l) {
                    2
                } else {
                    1
                };
            }
            let (short, long): (&str, &[&str]) =
                match argv.get(at).and_then(|w| w.literal.as_deref()) {
                    Some("grep") => {
                        let mut all = vec![false; n];
                        all[at..].fill(true);
                        return all;
                    }
                    Some(
                        "commit" | "tag" | "notes" | "merge" | "stash" | "revert" | "commit-tree"
                        | "cherry-pick",
                    ) => ("m", &["--message", "--trailer"]),
                    Some("log" | "show" | "rev-list" | "whatchanged" | "shortlog" | "reflog") => (
                        "SG",
                        &["--grep", "--author", "--committer", "--format", "--pretty"],
                    ),
                    _ => return Vec::new(),
                };
            option_values(argv, at + 1, short, long)
        }
        "gh" | "glab" => option_values(
            argv,
            1,
            "tbnmdfF",
            &[
                "--title",
                "--body",
                "--notes",
                "--message",
                "--description",
                "--raw-field",
                "--field",
            ],
        ),
        "curl" => option_values(
            argv,
            1,
            "dFeHA",
            &[
                "--header",
                "--proxy-header",
                "--user-agent",
                "--data",
                "--data-ascii",
                "--data-binary",
                "--data-raw",
                "--data-urlencode",
                "--json",
                "--form",
                "--form-string",
                "--referer",
            ],
        ),
        "wget" => option_values(
            argv,
            1,
            "U",
            &[
                "--post-data",
                "--body-data",
                "--referer",
                "--header",
                "--user-agent",
            ],
        ),
        "http" | "https" | "xh" | "xhs" => httpie_items(argv),
        _ if output_read => Vec::new(),
        // Inline code that cannot act (see `perl_may_act`,
        // `python_is_inert`, an awk program that runs nothing): a URL in it
        // is text it matches or rewrites (`perl -pe 's{http://a}{…}'`).
        "perl" => inert_code(argv, "eE", "MmIdx", super::interpreters::perl_may_act),
        _ if base.starts_with("python") => inert_code(argv, "c", "m", |code| {
            !super::interpreters::python_is_inert(code)
        }),
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => {
            // An option's value read as code too (`--source=PROG`): one
            // that may hold a call or a pipe acts.
            let acts = argv.iter().skip(1).any(|w| match w.literal.as_deref() {
                Some(l) if l.starts_with('-') => l.contains(['(', '|']),
                Some(l) => l.contains("/inet") || super::programs::awk_effects(l).0,
                None => true,
            });
            if acts { Vec::new() } else { vec![true; n] }
        }
        _ => Vec::new(),
    }
}

/// The code words given with the options `letters` (`perl -e CODE`,
/// `python3 -c CODE`), true at their index when none of them `acts` and no
/// option among `loads` (a module loaded, `perl -MLWP::Simple`) comes
/// before them; empty otherwise.
fn inert_code(argv: &[WordVal], letters: &str, loads: &str, acts: fn(&str) -> bool) -> Vec<bool> {
    let marks = option_values(argv, 1, letters, &[]);
    let first = marks.iter().position(|m| *m).unwrap_or(argv.len());
    let loaded = argv[1..first].iter().any(|w| match w.literal.as_deref() {
        Some(l) => l.strip_prefix('-').is_some_and(|cluster| {
            cluster
                .chars()
                .take_while(|c| !letters.contains(*c))
                .any(|c| loads.contains(c))
        }),
        None => true,
    });
    if loaded {
        return Vec::new();
    }
    let inert = marks.iter().zip(argv).filter(|(m, _)| **m).all(|(_, w)| {
        let code = w.literal.as_deref();
        // `-eCODE` attached: the code after the letter.
        let code = code.map(|c| match c.strip_prefix('-') {
            Some(cluster) => cluster
                .find(|ch| letters.contains(ch))
                .map_or(c, |k| &cluster[k + 1..]),
            None => c,
        });
        code.is_some_and(|c| !acts(c))
    });
    if inert && marks.contains(&true) {
        marks
    } else {
        Vec::new()
    }
}

/// HTTPie's (and xh's) request items after the URL (`Origin:https://h`,
/// `url=https://h`, `q==x`, `data:=json`): headers and data sent to the
/// URL's host, not hosts reached. The URL is the first operand, or the
/// second after a method (`http POST URL …`).
fn httpie_items(argv: &[WordVal]) -> Vec<bool> {
    const WITH_VALUE: &[&str] = super::programs::HTTPIE_WITH_VALUE;
    let mut marks = vec![false; argv.len()];
    let mut operands = 0;
    let mut i = 1;
    while let Some(w) = argv.get(i) {
        i += 1;
        let Some(l) = w.literal.as_deref() else {
            operands += 1;
            continue;
        };
        if l.starts_with('-') && l.len() > 1 {
            if WITH_VALUE.contains(&l) {
                i += 1;
            }
            continue;
        }
        operands += 1;
        let method = operands == 1 && l.chars().all(|c| c.is_ascii_uppercase());
        if !method {
            marks[i..].fill(true);
            return marks;
        }
    }
    marks
}

/// The values of the options `short` (letters) and `long` among the words
/// of `argv` from `from` (true at their index): `--opt VALUE`,
/// `--opt=VALUE`, `-o VALUE`, `-oVALUE`, a cluster `-so VALUE`.
fn option_values(argv: &[WordVal], from: usize, short: &str, long: &[&str]) -> Vec<bool> {
    let mut marks = vec![false; argv.len()];
    let mut i = from;
    while let Some(w) = argv.get(i) {
        let Some(l) = w.literal.as_deref() else {
            i += 1;
            continue;
        };
        if l == "--" {
            break;
        }
        if let Some(name) = l.strip_prefix("--") {
            let (name, attached) = name
                .split_once('=')
                .map_or((name, false), |(n, _)| (n, true));
            if long.iter().any(|o| o[2..] == *name) {
                if attached {
                    marks[i] = true;
                } else if let Some(m) = marks.get_mut(i + 1) {
                    *m = true;
                    i += 1;
                }
            }
        } else if let Some(cluster) = l.strip_prefix('-')
            && let Some((k, c)) = cluster.char_indices().find(|(_, c)| short.contains(*c))
            && cluster[..k].chars().all(|c| c.is_ascii_alphabetic())
        {
            if k + c.len_utf8() < cluster.len() {
                marks[i] = true;
            } else if let Some(m) = marks.get_mut(i + 1) {
                *m = true;
                i += 1;
            }
        }
        i += 1;
    }
    marks
}

/// The options that take a value in the next word of git's commands that
/// name a remote (git 2.47): their letters and their long names. A value
/// (`-b main`, `--depth 1`, `--sort version:refname`) is no operand.
pub(super) fn git_value_options(sub: &str) -> (&'static str, &'static [&'static str]) {
    const FETCH: &[&str] = &[
        "--server-option",
        "--upload-pack",
        "--depth",
        "--deepen",
        "--shallow-since",
        "--shallow-exclude",
        "--jobs",
        "--negotiation-tip",
        "--refmap",
        "--filter",
        "--recurse-submodules-default",
        "--submodule-prefix",
        "--strategy",
        "--strategy-option",
        "--cleanup",
    ];
    match sub {
        "clone" => (
            "obucj",
            &[
                "--origin",
                "--branch",
                "--upload-pack",
                "--reference",
                "--reference-if-able",
                "--separate-git-dir",
                "--depth",
                "--shallow-since",
                "--shallow-exclude",
                "--config",
                "--jobs",
                "--template",
                "--filter",
                "--server-option",
                "--bundle-uri",
                "--ref-format",
                "--revision",
            ],
        ),
        "ls-remote" => (
            "o",
            &["--sort", "--server-option", "--upload-pack", "--exec"],
        ),
        "fetch" => ("oj", FETCH),
        "pull" => ("ojsX", FETCH),
        "push" => (
            "o",
            &[
                "--push-option",
                "--receive-pack",
                "--exec",
                "--repo",
                "--recurse-submodules",
            ],
        ),
        "send-pack" => ("o", &["--receive-pack", "--exec", "--push-option"]),
        "submodule" => (
            "b",
            &[
                "--branch",
                "--name",
                "--reference",
                "--depth",
                "--ref-format",
            ],
        ),
        "remote" => ("tm", &[]),
        "archive" => (
            "o",
            &[
                "--format",
                "--prefix",
                "--output",
                "--remote",
                "--exec",
                "--add-file",
                "--add-virtual-file",
                "--mtime",
            ],
        ),
        _ => ("", &[]),
    }
}

/// The operands of git's command `sub` among its words `args`, as its
/// option parser reads them: not an option, nor the value of one that
/// takes the next word (`-b main`, a cluster ending in such a letter:
/// `-qb main`); every word after `--`. A word computed at run time is
/// taken as an operand.
fn git_operands<'a>(sub: &str, args: &'a [WordVal]) -> Vec<&'a WordVal> {
    let (letters, long) = git_value_options(sub);
    let mut out = Vec::new();
    let mut words = args.iter();
    while let Some(w) = words.next() {
        let Some(l) = w.literal.as_deref() else {
            out.push(w);
            continue;
        };
        if l == "--" {
            out.extend(words.by_ref());
            break;
        }
        if !l.starts_with('-') || l == "-" {
            out.push(w);
            continue;
        }
        let takes_next = if l.starts_with("--") {
            long.contains(&l)
        } else {
            // `-b`, `-qb`: the value is the next word; `-bmain` holds it.
            l[1..]
                .char_indices()
                .find(|(_, c)| letters.contains(*c))
                .is_some_and(|(i, c)| i + c.len_utf8() == l.len() - 1)
        };
        if takes_next {
            words.next();
        }
    }
    out
}

/// The command line git's `ext::` transport runs (`ext::nc h 80`): its
/// arguments parted by spaces, `% ` a space in one, `%%` a `%`, `%s` and
/// `%S` the service (`upload-pack`, `git-upload-pack`); `%G…` and `%V…`
/// arguments are git's own, left out. Each argument quoted for the shell.
fn ext_command(text: &str) -> String {
    let mut args: Vec<String> = Vec::new();
    let mut arg = String::new();
    let mut special = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' => {
                if !arg.is_empty() && !special {
                    args.push(std::mem::take(&mut arg));
                }
                arg.clear();
                special = false;
            }
            '%' => match chars.next() {
                Some(' ') => arg.push(' '),
                Some('%') => arg.push('%'),
                Some('s') => arg.push_str("upload-pack"),
                Some('S') => arg.push_str("git-upload-pack"),
                Some('G' | 'V') if arg.is_empty() => special = true,
                Some(other) => {
                    arg.push('%');
                    arg.push(other);
                }
                None => arg.push('%'),
            },
            c => arg.push(c),
        }
    }
    if !arg.is_empty() && !special {
        args.push(arg);
    }
    args.iter()
        .map(|a| super::words::quote(a))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The host of a git remote in scp form (`[user@]host:path`: a colon with
/// no slash before it), as git reads it; None for a URL (read with the
/// words' URLs), a path or a remote's name.
fn git_scp_host(remote: &str) -> Option<String> {
    if remote.contains("://") || remote.starts_with('-') {
        return None;
    }
    // git reads `[host]:path` and `user@[host]:path` as scp does (an IPv6
    // address in the brackets).
    host_of_operand(remote_path_host(remote)?)
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

/// The schemes the WHATWG URL parser (npm, pip, browsers, WebFetch) calls
/// special: after one, any number of `/` or `\`, none included, leads to
/// the host (`http:\\h`, `http:///h`, `http:h` all name `h`), and a `\`
/// ends the host as a `/` does.
const SPECIAL_SCHEMES: &[&str] = &["http", "https", "ws", "wss", "ftp"];

/// Whether `c` may be part of a URL scheme.
fn is_scheme_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')
}

/// The scheme that says how a URL is fetched: the last part of a prefixed
/// one (`sparse+http` is cargo's `http`, `git+https` pip's `https`).
fn fetched_scheme(scheme: &str) -> &str {
    scheme.rsplit('+').next().unwrap_or(scheme)
}

/// Whether the URL parser reads a host after `scheme:` whatever follows.
fn is_special(scheme: &str) -> bool {
    let scheme = fetched_scheme(scheme);
    SPECIAL_SCHEMES
        .iter()
        .any(|s| scheme.eq_ignore_ascii_case(s))
}

/// The next URL in `text` from byte `from`: where it starts, where its
/// scheme's colon is, and where it ends. A URL is `scheme://…` for any
/// scheme, and any `scheme:…` for a special one; `file:` and `unix:` name
/// no host.
fn next_url(text: &str, from: usize) -> Option<(usize, usize, usize)> {
    let mut from = from;
    while let Some(colon) = text.get(from..)?.find(':').map(|i| i + from) {
        from = colon + 1;
        let run_start = text[..colon]
            .char_indices()
            .rev()
            .find(|(_, c)| !is_scheme_char(*c))
            .map_or(0, |(i, c)| i + c.len_utf8());
        // A scheme starts with a letter (`:-https://` is `https`).
        let Some(start) = text[run_start..colon]
            .find(|c: char| c.is_ascii_alphabetic())
            .map(|i| i + run_start)
        else {
            continue;
        };
        let scheme = &text[start..colon];
        let fetched = fetched_scheme(scheme);
        if fetched.eq_ignore_ascii_case("file") || fetched.eq_ignore_ascii_case("unix") {
            continue;
        }
        if !(text[from..].starts_with("//") || is_special(scheme)) {
            continue;
        }
        let end = text[from..]
            .find(|c: char| {
                c.is_whitespace()
                    || matches!(c, '"' | '\'' | '<' | '>' | '`' | ')' | '(' | '{' | '}')
            })
            .map_or(text.len(), |i| i + from);
        return Some((start, colon, end));
    }
    None
}

/// Whether `text` holds a URL [`urls_in`] reads.
fn has_url(text: &str) -> bool {
    text.contains(':') && next_url(text, 0).is_some()
}

/// The URLs in `text` (`scheme://host…`, and `http:\\host`, `http:/host`
/// for the special schemes): each as written (up to the end of the URL)
/// with each host it names (see [`url_hosts`]), or once with None when its
/// host is computed at run time. A URL inside a `scheme://` URL's path or
/// query is not read: the client reaches the first.
fn urls_in(text: &str) -> Vec<(&str, Option<String>)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some((start, colon, end)) = next_url(text, from) {
        let written = &text[start..end];
        from = if text[colon + 1..].starts_with("//") {
            end.max(colon + 1)
        } else {
            colon + 1
        };
        match url_hosts(written) {
            Some(hosts) => out.extend(hosts.into_iter().map(|h| (written, Some(h)))),
            None => out.push((written, None)),
        }
    }
    out
}

/// The hosts a URL (`scheme:…`) names, as each kind of client reads it, or
/// None when its host is computed at run time (`https://$H/`). A rule on
/// any of them applies:
/// - curl's reading (and git's, which hands the URL to libcurl, ssh's,
///   libpq's): past the slashes after the colon, up to the first `/`, `?`
///   or `#`, the text after the last `@` (a `\` is no separator:
///   `http://a\@evil/` reaches `evil`), each host of a comma list
///   (`postgresql://h1,h2/`, `mongodb://h1,h2/`);
/// - the WHATWG parser's, for a special scheme (`http:\\evil`,
///   `http:evil`, `http://evil\@ok/` is `evil`);
/// - libpq's `host` and `hostaddr` query parameters of a `postgres://` or
///   `postgresql://` URI.
fn url_hosts(url: &str) -> Option<Vec<String>> {
    let (scheme, after) = url.split_once(':')?;
    let past = after.trim_start_matches(['/', '\\']);
    let authority = &past[..past.find(['/', '?', '#']).unwrap_or(past.len())];
    if authority.contains(['$', '`']) {
        return None;
    }
    let mut hosts = Vec::new();
    if past.len() < after.len() {
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        hosts.extend(host_port.split(',').filter_map(host_name));
    }
    if is_special(scheme) {
        let whatwg = format!("{}:{after}", fetched_scheme(scheme));
        hosts.extend(crate::rule::url_host(&whatwg).ok());
    }
    if scheme.eq_ignore_ascii_case("postgres") || scheme.eq_ignore_ascii_case("postgresql") {
        hosts.extend(libpq_uri(url).hosts);
    }
    let mut once = Vec::with_capacity(hosts.len());
    for host in hosts {
        if !once.contains(&host) {
            once.push(host);
        }
    }
    Some(once)
}

/// A host as written in a host's place, with or without a port
/// (`evil.com`, `evil.com:22`, `[::1]:22`, `::1`): as rules match it.
fn host_name(text: &str) -> Option<String> {
    let text = text.trim();
    // A path or `@name`: a Unix socket (libpq's `host=/var/run`).
    if text.is_empty() || text.starts_with(['/', '@']) {
        return None;
    }
    // `[::1]:22`; `[evil.com]`, which libpq and rsync read as `evil.com`.
    if let Some((inside, _)) = text.strip_prefix('[').and_then(|t| t.split_once(']')) {
        return crate::rule::url_host(&format!("https://[{inside}]/"))
            .ok()
            .or_else(|| host_name(inside));
    }
    // An IPv6 address written bare (libpq's `host=::1`).
    if !text.starts_with('[') && text.matches(':').count() > 1 {
        return ipv6_host(text);
    }
    crate::rule::url_host(&format!("https://{text}/")).ok()
}

/// An IPv6 address written without brackets, as the clients that take
/// one read it (`::1`, `fe80::1%eth0`, `::ffff:127.0.0.2`, the mapped
/// form being that IPv4 address), as rules match it; a `:PORT` after an
/// address that reads as none without it is its port
/// (`::ffff:10.0.0.1:443`, as OpenSSL reads `-connect`). None for a word
/// that is no IPv6 address (`std::io`, `a:b`).
pub(super) fn ipv6_host(text: &str) -> Option<String> {
    let read = |t: &str| {
        let address = t.split_once('%').map_or(t, |(a, _)| a);
        address
            .parse::<std::net::Ipv6Addr>()
            .ok()
            .and_then(|a| crate::rule::url_host(&format!("https://[{a}]/")).ok())
    };
    if text.matches(':').count() < 2 {
        return None;
    }
    read(text).or_else(|| {
        let (address, port) = text.rsplit_once(':')?;
        (!port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit()))
            .then(|| read(address))
            .flatten()
    })
}

/// The hosts a value names: a URL's (`https://host/x`, `http:/host`, each
/// host a curl-style glob in it expands to), or the value itself when it
/// reads as a host (`evil.com`, `user@evil.com:22`, `localhost`), with the
/// names of the machine itself for `0.0.0.0` (see [`reached_as`]).
pub(crate) fn url_or_host(text: &str) -> Vec<String> {
    let text = text.trim();
    let mut hosts = url_word_hosts(text);
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
    // `::ffff:10.0.0.1`, `fe80::1%eth0`: ssh, nc, libpq, the MySQL and
    // Redis clients take an IPv6 address without brackets.
    if let Some(host) = ipv6_host(word) {
        return Some(host);
    }
    let head = if word.starts_with('[') {
        word.split_inclusive(']').next().unwrap_or_default()
    } else {
        word.split(['/', ':', '?', '#']).next().unwrap_or_default()
    };
    if let Some(inside) = head.strip_prefix('[') {
        // `[::1]`; and `[evil.com]`, `[10.0.0.1]`, which scp and rsync
        // read without their brackets.
        return crate::rule::url_host(&format!("https://{head}/"))
            .ok()
            .or_else(|| host_of_operand(inside.strip_suffix(']')?));
    }
    let looks_like_host = !head.starts_with(['.', '-'])
        && head
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '_' | '%') || !c.is_ascii())
        && head.chars().any(char::is_alphanumeric);
    if !looks_like_host {
        return None;
    }
    crate::rule::url_host(&format!("https://{head}/")).ok()
}

/// The host of a word that is a host and a port and nothing else
/// (`evil.com:443`, `user@10.0.0.5:5432`, `[::1]:8080`, `localhost:3000`):
/// a name of two labels or more whose last is letters (`main.rs:42` too,
/// which names no host a rule is written for), an IPv4 address, or
/// `localhost`. Not a path (`src/a.rs:3`), a port mapping (`8080:80`,
/// `127.0.0.1:8080:80`) or a reference (`HEAD:README.md`).
fn host_and_port(word: &str) -> Option<String> {
    let word = word.rsplit_once('@').map_or(word, |(_, w)| w);
    let (host, port) = word.rsplit_once(':')?;
    if port.is_empty() || port.len() > 5 || !port.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if let Some(inside) = host.strip_prefix('[') {
        return inside
            .ends_with(']')
            .then(|| crate::rule::url_host(&format!("https://{host}/")).ok())
            .flatten();
    }
    let labels: Vec<&str> = host.split('.').collect();
    let label_ok = |l: &&str| {
        !l.is_empty()
            && !l.starts_with('-')
            && l.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    if !labels.iter().all(label_ok) {
        return None;
    }
    let last = labels.last().copied().unwrap_or_default();
    let named =
        labels.len() >= 2 && last.len() >= 2 && last.chars().all(|c| c.is_ascii_alphabetic());
    let ipv4 = labels.len() == 4 && labels.iter().all(|l| l.bytes().all(|b| b.is_ascii_digit()));
    // `0.0.0.0:8000` is an address to listen on.
    if !(named || (ipv4 && host != "0.0.0.0") || host.eq_ignore_ascii_case("localhost")) {
        return None;
    }
    host_of_operand(host)
}

/// The host of a word that starts with a URL whose scheme is followed by
/// a slash (`http:/evil.com`, `http:\\evil.com`, `ssh://evil.com`), as
/// [`url_hosts`] reads it first. None for a word without one
/// (`evil.com:8080/x`, `host:path`, `ftp:21`: curl's host `ftp`).
fn scheme_host(word: &str) -> Option<String> {
    let (start, colon, end) = next_url(word, 0)?;
    if start != 0 || !word[colon + 1..].starts_with(['/', '\\']) {
        return None;
    }
    url_hosts(&word[..end])?.into_iter().next()
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
    // The authority starts past the scheme (globbed too: `{http,ftp}:`) and
    // the slashes after it (`http:///h`).
    let start = word
        .find(':')
        .filter(|&colon| {
            let scheme = &word[..colon];
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| is_scheme_char(c) || matches!(c, '{' | '}' | ',' | '[' | ']'))
                && word[colon + 1..].starts_with(['/', '\\'])
        })
        .map_or(0, |colon| {
            let rest = &word[colon + 1..];
            word.len() - rest.trim_start_matches(['/', '\\']).len()
        });
    // The end of the authority: the first `/`, `?` or `#` outside a glob.
    let mut depth = 0usize;
    let mut end = word.len();
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
    }
    let head = &word[..end];
    if !head.contains(['{', '[']) {
        return Some(url_word_hosts(head));
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
    Some(words.iter().flat_map(|w| url_word_hosts(w)).collect())
}

/// What bash's brace expansion makes of a word whose value is not fixed.
pub(super) enum Expanded {
    /// The word has no brace expansion.
    Unexpanded,
    /// The words it expands to (`http://127.0.0.{2,3}/`).
    Words(Vec<String>),
    /// It has one tack does not expand (quotes or expansions in it, or
    /// more than [`MAX_GLOB_HOSTS`] words).
    Unknown,
}

/// The words bash's brace expansion makes of `w` (`{a,b}`, `{1..3}`,
/// `{a..c}`, nested), for the hosts they name.
pub(super) fn expanded_words(w: &WordVal) -> Expanded {
    if w.literal.is_some() || !super::words::has_brace_expansion(&w.raw) {
        return Expanded::Unexpanded;
    }
    if w.raw.contains(['\'', '"', '\\', '$', '`']) {
        return Expanded::Unknown;
    }
    let mut out = Vec::new();
    match brace_expand(&w.raw, &mut out) {
        Some(()) => Expanded::Words(out),
        None => Expanded::Unknown,
    }
}

/// bash's brace expansion of `text` (no quotes nor expansions in it),
/// appended to `out`; None past [`MAX_GLOB_HOSTS`] words.
fn brace_expand(text: &str, out: &mut Vec<String>) -> Option<()> {
    let bytes = text.as_bytes();
    for (open, _) in text.match_indices('{') {
        if open > 0 && bytes[open - 1] == b'$' {
            continue;
        }
        // The matching brace and the commas at its depth.
        let mut depth = 0usize;
        let mut commas = Vec::new();
        let mut close = None;
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(i),
                _ => {}
            }
        }
        let Some(close) = close else { continue };
        let inside = &text[open + 1..close];
        let choices: Vec<String> = if commas.is_empty() {
            match brace_sequence(inside) {
                Some(seq) => seq?,
                None => continue,
            }
        } else {
            let mut from = open + 1;
            let mut parts = Vec::new();
            for &c in commas.iter().chain(std::iter::once(&close)) {
                parts.push(text[from..c].to_string());
                from = c + 1;
            }
            parts
        };
        let (head, tail) = (&text[..open], &text[close + 1..]);
        for choice in choices {
            brace_expand(&format!("{head}{choice}{tail}"), out)?;
        }
        return Some(());
    }
    if out.len() >= MAX_GLOB_HOSTS {
        return None;
    }
    out.push(text.to_string());
    Some(())
}

/// A brace sequence's words (`1..3`, `01..10`, `a..c`, `1..9..2`): None
/// when `inside` is no sequence, Some(None) when it makes more than
/// [`MAX_GLOB_HOSTS`] words.
fn brace_sequence(inside: &str) -> Option<Option<Vec<String>>> {
    let mut parts = inside.split("..");
    let (from, to, step) = (parts.next()?, parts.next()?, parts.next());
    if parts.next().is_some() {
        return None;
    }
    let step = match step {
        Some(s) => s.parse::<i64>().ok()?.unsigned_abs().max(1),
        None => 1,
    };
    let range = |a: i64, b: i64| {
        let count = a.abs_diff(b) / step + 1;
        (count <= MAX_GLOB_HOSTS as u64).then(|| {
            let up = a <= b;
            (0..count).map(move |k| {
                let k = i64::try_from(k * step).unwrap_or(i64::MAX);
                if up { a + k } else { a - k }
            })
        })
    };
    if let (Ok(a), Ok(b)) = (from.parse::<i64>(), to.parse::<i64>()) {
        let width = [from, to]
            .iter()
            .filter(|t| t.trim_start_matches('-').starts_with('0') && t.len() > 1)
            .map(|t| t.len())
            .max()
            .unwrap_or(0);
        return Some(range(a, b).map(|r| r.map(|n| format!("{n:0width$}")).collect()));
    }
    let (mut a, mut b) = (from.chars(), to.chars());
    match (a.next(), a.next(), b.next(), b.next()) {
        (Some(a), None, Some(b), None) if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => {
            Some(
                range(i64::from(u32::from(a)), i64::from(u32::from(b))).map(|r| {
                    r.filter_map(|n| u32::try_from(n).ok().and_then(char::from_u32))
                        .map(String::from)
                        .collect()
                }),
            )
        }
        _ => None,
    }
}

/// Whether the host part of a word bash globs holds a pattern
/// (`http://127.0.0.?:8099/`, `127.0.0.?:r`, `h*`): the host is a file
/// name found when the command runs. A path after the host
/// (`h:*.txt`, `https://h/a*`) names no other host.
fn globbed_host(text: &str) -> bool {
    let rest = text.split_once("://").map_or(text, |(_, r)| r);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, h)| h);
    let host = if rest.starts_with('[') {
        rest.split_inclusive(']').next().unwrap_or_default()
    } else {
        rest.split(['/', ':']).next().unwrap_or_default()
    };
    host.contains(['*', '?']) || (!host.starts_with('[') && host.contains('['))
}

/// Whether a globbed word reads as a host and a port once bash has found
/// the file its pattern matches (`127.0.0.?:8099`).
fn globbed_host_and_port(text: &str) -> bool {
    ["0", "a"]
        .iter()
        .any(|c| host_and_port(&text.replace(['*', '?', '[', ']'], c)).is_some())
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

/// The hosts of a word curl takes as a URL: each a URL in it names (see
/// [`url_hosts`]), or the word itself as a host.
fn url_word_hosts(word: &str) -> Vec<String> {
    let word = word.trim();
    if has_url(word) {
        urls_in(word)
            .into_iter()
            .filter_map(|(_, host)| host)
            .collect()
    } else {
        host_of_operand(word).into_iter().collect()
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
    fn a_url_names_the_hosts_curl_and_the_whatwg_parser_read() {
        let hosts = |text: &str| -> Vec<String> {
            urls_in(text).into_iter().filter_map(|(_, h)| h).collect()
        };
        for (text, want) in [
            ("http:///evil.com:8099/", &["evil.com"][..]),
            ("HTTPS:\\\\evil.com/x", &["evil.com"]),
            ("http:/\\evil.com", &["evil.com"]),
            ("http:evil.com", &["evil.com"]),
            // curl: the text after the last `@`; WHATWG: `\` ends the host.
            ("http://good.org\\@evil.com/", &["evil.com", "good.org"]),
            ("sparse+http:///evil.com/", &["evil.com"]),
            ("GIT+HTTPS:///evil.com/r", &["evil.com"]),
            ("url.http:///evil.com/.insteadOf=x", &["evil.com"]),
            ("ssh:///evil.com/r", &["evil.com"]),
            ("mongodb://a.org,evil.com:27017/db", &["a.org", "evil.com"]),
            // libpq's query hosts (`db` is curl's reading of `///db`: a
            // host that is none only meets a rule written for it).
            (
                "postgresql:///db?host=evil.com,%2Ftmp&port=1",
                &["db", "evil.com"],
            ),
            ("postgres://?hostaddr=%31%30.0.0.1", &["10.0.0.1"]),
            ("--index=sparse+https://ok.org/", &["ok.org"]),
            // A scheme starts after any other character, however wide.
            ("ౘhttp://evil.com", &["evil.com"]),
        ] {
            let mut got = hosts(text);
            got.sort();
            assert_eq!(got, want, "{text}");
        }
        // No URL: a path, a host and port, a drive, a socket.
        for text in [
            "/usr/bin:/bin",
            "evil.ws:8080",
            "git@evil.com:o/r",
            "HEAD:README.md",
            "unix:///var/run/docker.sock",
            "data:/data",
            "ౘ:1",
        ] {
            assert!(hosts(text).is_empty(), "{text}");
        }
        assert_eq!(urls_in("http://$H\\@x/"), [("http://$H\\@x/", None)]);
    }

    #[test]
    fn libpq_strings_are_read_as_libpq_reads_them() {
        let read = |text: &str| libpq_conninfo(text).map(|c| (c.hosts, c.service));
        assert_eq!(
            read("dbname=x host = evil.com port=1"),
            Some((vec!["evil.com".into()], false))
        );
        assert_eq!(
            read("host='a.org,evil.com' sslmode=disable"),
            Some((vec!["a.org".into(), "evil.com".into()], false))
        );
        assert_eq!(
            read(r"host=ev\il.com"),
            Some((vec!["evil.com".into()], false))
        );
        assert_eq!(
            read("host=/var/run/pg hostaddr=::1"),
            Some((vec!["[::1]".into()], false))
        );
        assert_eq!(read("service=x"), Some((vec![], true)));
        assert_eq!(
            read("postgresql://u@h1:1,[::ffff:10.0.0.1]:2/x?service=s"),
            Some((vec!["h1".into(), "10.0.0.1".into()], true))
        );
        // libpq refuses these: no reading.
        assert_eq!(read("select 1 where host = 'x'"), None);
        assert_eq!(read("host='evil.com"), None);
        assert_eq!(read("mydb"), None);
    }

    #[test]
    fn scp_remote_operands() {
        for (word, host) in [
            ("h:/tmp", Some("h")),
            ("u@h:x", Some("h")),
            ("u@[10.0.0.1]:/tmp", Some("[10.0.0.1]")),
            ("[::1]:x", Some("[::1]")),
            ("a@b@h:x", Some("h")),
            ("./a:b", None),
            ("/x:y", None),
            (":x", None),
            ("file", None),
        ] {
            assert_eq!(remote_path_host(word), host, "{word}");
        }
        assert_eq!(host_of_operand("[10.0.0.1]").as_deref(), Some("10.0.0.1"));
        assert_eq!(host_of_operand("[evil.com]").as_deref(), Some("evil.com"));
    }

    #[test]
    fn npm_keys_as_nopt_reads_them() {
        for key in [
            "registry",
            "reg",
            "regis",
            "prox",
            "proxy",
            "ht",
            "https-prox",
            "https_proxy",
            "@scope:registry",
            "npmRegistryServer",
            "httpsProxy",
        ] {
            assert!(npm_server_key(key), "{key}");
        }
        for key in [
            "re", "r", "pro", "h", "noproxy", "no-proxy", "save", "@scope:x",
        ] {
            assert!(!npm_server_key(key), "{key}");
        }
        assert_eq!(
            npm_key_host("//evil.com:8080/path/:_authToken").as_deref(),
            Some("evil.com")
        );
    }

    #[test]
    fn openssh_settings_and_tokens() {
        assert_eq!(
            ssh_option("HostName=evil.com"),
            Some(("hostname".into(), "evil.com".into()))
        );
        assert_eq!(
            ssh_option(" hostname \t= \"evil.com\""),
            Some(("hostname".into(), "evil.com".into()))
        );
        assert_eq!(ssh_option("BatchMode"), None);
        assert_eq!(ssh_tokens("nc %h.x %p %%h", "h", Some("h")), "nc h.x 22 %h");
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
