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
];

/// Whether `base` is a program whose operands are hosts (the generic table).
pub(super) fn takes_host_operands(base: &str) -> bool {
    HOST_OPERANDS.iter().any(|(name, _)| *name == base)
}

impl Analyzer {
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
            Some(host) => self.push(Item::Host {
                written: super::snippet(written),
                host,
            }),
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
                Some(l) if l.starts_with('-') && l.len() > 1 => after_option = true,
                Some(l) => {
                    after_option = false;
                    // `dig @8.8.8.8 name`: the server is reached too.
                    let l = l.strip_prefix('@').unwrap_or(l);
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
    pub(super) fn git_remote_hosts(&mut self, args: &[WordVal]) {
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
        if let Some(w) = remote
            && w.literal.is_none()
        {
            self.reaches(w);
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
        for url in &urls {
            self.reaches(url);
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
            // `library/ubuntu` or `ubuntu:22.04` name Docker Hub's.
            if (sub == "login" || sub == "logout" || l.contains('/'))
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

/// netcat's options, for its host operand.
pub(super) const NETCAT: Spec = Spec {
    flags: "46bCDdhklNnrStuUvz",
    with_arg: "ecpswiIOqTVxXKgGMmP",
    optional_arg: "",
    long_flags: &[],
    long_with_arg: &["--exec", "--sh-exec", "--lua-exec"],
    long_optional: &[],
    posix: false,
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

/// The host a value names: a URL's (`https://host/x`), or the value
/// itself when it looks like a host (`evil.com`, `user@evil.com:22`).
pub(crate) fn url_or_host(text: &str) -> Option<String> {
    if text.contains("://") {
        urls_in(text.trim()).into_iter().find_map(|(_, host)| host)
    } else {
        host_of_operand(text)
    }
}

/// The host an operand names, when it looks like one: `evil.com`,
/// `evil.com:8080/x`, `user@evil.com`, `10.0.0.1`, `[::1]`. A word without
/// a dot (a file name, `localhost`, an option's value) is none.
pub(super) fn host_of_operand(word: &str) -> Option<String> {
    let word = word.trim();
    let word = word.rsplit_once('@').map_or(word, |(_, h)| h);
    let head = if word.starts_with('[') {
        word.split_inclusive(']').next().unwrap_or_default()
    } else {
        word.split(['/', ':', '?', '#']).next().unwrap_or_default()
    };
    let looks_like_host = head.starts_with('[')
        || (head.contains('.')
            && !head.starts_with('.')
            && head
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
            && head
                .chars()
                .any(|c| c.is_ascii_alphabetic() || c.is_ascii_digit()));
    if !looks_like_host {
        return None;
    }
    crate::rule::url_host(&format!("https://{head}/")).ok()
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
            ("localhost", None),
            ("./x.txt", None),
            ("-v", None),
            ("a=b.c", None),
        ] {
            assert_eq!(host_of_operand(word).as_deref(), host, "{word}");
        }
    }
}
