//! Hosts named in the configuration files a program finds by itself, for
//! the `WebFetch(domain:…)` deny and ask rules (see [`super::hosts`] for
//! the hosts a command names in its words).
//!
//! A program that reaches the network reads a proxy, a registry or the host
//! itself from files it looks for on its own: curl's `.curlrc` in
//! `$CURL_HOME`, `$XDG_CONFIG_HOME` or `$HOME`, npm's `.npmrc` in the
//! project and its parents, git's configuration, ssh's. Two cases:
//!
//! - A variable or an option moves where it looks (`CURL_HOME=. curl`,
//!   `HOME=. wget`, `PIP_CONFIG_FILE=f pip`, `GIT_CONFIG_GLOBAL=f git`,
//!   `git -c include.path=f`, `ssh -F f`, `npm --userconfig f`): the file
//!   may be anything, one written a moment before in the same command too
//!   (`echo proxy=h > .curlrc; HOME=. curl …`), so the host it reaches is
//!   known only at run time ([`FAMILIES`] lists, per program, what moves
//!   its configuration). A variable applies to the program of the command
//!   it prefixes, and after `export` (or a plain assignment, which changes
//!   an exported `HOME`) to every later one.
//! - A file of the project (or of the user) that the program reads where
//!   it runs ([`PROJECT_FILES`]): npm, pnpm, yarn and bun read `.npmrc`,
//!   `.yarnrc`, `.yarnrc.yml`, `bunfig.toml` in the working directory and
//!   every one above it; cargo `.cargo/config.toml` there; uv, hg, maven,
//!   gradle (its wrapper's `distributionUrl`), bundler, composer and deno
//!   theirs; pip the `pip.conf` of the virtual environment it belongs to,
//!   and the requirements files (`-r`) and project directories (`pip
//!   install -e .`) it is given; git its repository's `http.proxy` and
//!   `remote.*.proxy` (its remotes' URLs are read in [`super::git`]).
//!   These are read when the command is analysed (once per file for the
//!   analysis, and only for those programs) and the hosts they name meet
//!   the rules: every URL in them, and a registry's or a proxy's value
//!   (`proxy=h:3128`). One that cannot be read, one an earlier part of the
//!   same command may write, or a value taken from a variable
//!   (`registry=${REG}`) is a host known only at run time.
//!
//! A command that writes a host into such a file for later (`npm config
//! set registry H`, `pip config set global.index-url U`, `go env -w
//! GOPROXY=U`) names that host.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::options::{self, Spec};
use super::{Analyzer, Cwds, Item, UncertainKind, WordVal};

/// What moves where a family of programs finds its configuration.
struct Family {
    programs: &'static [&'static str],
    /// Variables that name its configuration file or a directory holding
    /// one (`HOME`); a name ending in `*` stands for every name it starts.
    variables: &'static [&'static str],
    /// Options that name one: `--opt FILE`, `--opt=FILE`.
    options: &'static [&'static str],
    /// It runs git (a dependency from a git repository), so what moves
    /// git's configuration moves its own.
    runs_git: bool,
}

/// git's configuration, wherever git runs.
const GIT_VARIABLES: &[&str] = &[
    "HOME",
    "XDG_CONFIG_HOME",
    "GIT_CONFIG*",
    "GIT_DIR",
    "GIT_COMMON_DIR",
    // A program run to connect, which may connect anywhere.
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_PROXY_COMMAND",
];

/// The npm family's programs.
const NPM: &[&str] = &[
    "npm", "npx", "pnpm", "pnpx", "yarn", "yarnpkg", "bun", "bunx", "corepack", "deno",
];

/// Programs that reach the network and read a configuration of their own.
const FAMILIES: &[Family] = &[
    Family {
        programs: &["curl"],
        // `-K`/`--config` are read in `hosts.rs`.
        variables: &["CURL_HOME", "XDG_CONFIG_HOME", "HOME"],
        options: &[],
        runs_git: false,
    },
    Family {
        programs: &["wget", "wget2"],
        // `--config` is read in `hosts.rs`.
        variables: &["WGETRC", "SYSTEM_WGETRC", "HOME", "XDG_CONFIG_HOME"],
        options: &[],
        runs_git: false,
    },
    Family {
        programs: NPM,
        variables: &[
            "NPM_CONFIG_USERCONFIG",
            "NPM_CONFIG_GLOBALCONFIG",
            "NPM_CONFIG_PREFIX",
            "PREFIX",
            "HOME",
            "XDG_CONFIG_HOME",
            "YARN_RC_FILENAME",
            "PNPM_HOME",
            "BUN_INSTALL",
        ],
        options: &["--userconfig", "--globalconfig", "--use-yarnrc"],
        runs_git: true,
    },
    Family {
        programs: &["bun"],
        variables: &[],
        options: &["--config", "-c"],
        runs_git: false,
    },
    Family {
        programs: &["pip", "pip3", "pipx", "pipenv"],
        variables: &[
            "PIP_CONFIG_FILE",
            // `-r`, `-c`, `-e` given through pip's variables.
            "PIP_REQUIREMENT*",
            "PIP_CONSTRAINT*",
            "PIP_EDITABLE",
            "HOME",
            "XDG_CONFIG_HOME",
            "XDG_CONFIG_DIRS",
            "VIRTUAL_ENV",
        ],
        options: &[],
        runs_git: true,
    },
    Family {
        programs: &["uv", "uvx"],
        variables: &[
            "UV_CONFIG_FILE",
            "HOME",
            "XDG_CONFIG_HOME",
            "XDG_CONFIG_DIRS",
        ],
        options: &["--config-file"],
        runs_git: true,
    },
    Family {
        programs: &["poetry", "pdm", "hatch"],
        variables: &[
            "POETRY_CONFIG_DIR",
            "PDM_CONFIG_FILE",
            "HATCH_CONFIG",
            "PIP_CONFIG_FILE",
            "HOME",
            "XDG_CONFIG_HOME",
        ],
        options: &["--config"],
        runs_git: true,
    },
    Family {
        programs: &["conda", "mamba", "micromamba"],
        variables: &["CONDARC", "MAMBARC", "HOME", "XDG_CONFIG_HOME"],
        options: &["--rc-file"],
        runs_git: false,
    },
    Family {
        programs: &["git"],
        // `-c include.path=`, `--config-env`, `--git-dir`: see `git_options`.
        variables: GIT_VARIABLES,
        options: &[],
        runs_git: false,
    },
    Family {
        programs: &["gh"],
        variables: &["GH_CONFIG_DIR", "XDG_CONFIG_HOME", "HOME"],
        options: &[],
        runs_git: true,
    },
    Family {
        programs: &["ssh", "scp", "sftp", "ssh-copy-id", "sshfs", "autossh"],
        // ssh reads `~/.ssh/config` from the user's entry in the password
        // database, not from `$HOME`.
        variables: &[],
        options: &["-F"],
        runs_git: false,
    },
    Family {
        // The ssh command mosh runs (`--ssh='ssh -F FILE'`).
        programs: &["mosh"],
        variables: &[],
        options: &["--ssh"],
        runs_git: false,
    },
    Family {
        programs: &["rsync"],
        variables: &["RSYNC_RSH", "RSYNC_CONNECT_PROG"],
        options: &[],
        runs_git: false,
    },
    Family {
        programs: &["cargo"],
        // `--config FILE` (a file, not `KEY=VALUE`): see
        // `cargo_config_file`.
        variables: &["CARGO_HOME", "HOME"],
        options: &[],
        runs_git: true,
    },
    Family {
        programs: &["go"],
        variables: &["GOENV", "HOME", "XDG_CONFIG_HOME"],
        options: &[],
        runs_git: true,
    },
    Family {
        programs: super::hosts::POSTGRES,
        variables: &["PGSERVICEFILE", "PGSERVICE", "PGSYSCONFDIR", "HOME"],
        options: &[],
        runs_git: false,
    },
    Family {
        programs: super::hosts::MYSQL,
        variables: &["MYSQL_HOME", "MYSQL_TEST_LOGIN_FILE", "HOME"],
        options: &["--defaults-file", "--defaults-extra-file"],
        runs_git: false,
    },
    Family {
        programs: &[
            "docker",
            "podman",
            "nerdctl",
            "docker-compose",
            "podman-compose",
            "buildah",
            "skopeo",
        ],
        variables: &[
            "DOCKER_CONFIG",
            "DOCKER_CONTEXT",
            "CONTAINERS_CONF",
            "CONTAINERS_REGISTRIES_CONF",
            "REGISTRIES_CONFIG_PATH",
            "CONTAINER_CONNECTION",
            "HOME",
            "XDG_CONFIG_HOME",
        ],
        options: &["--config", "--context", "--connection", "--registries-conf"],
        runs_git: false,
    },
    Family {
        programs: &["kubectl", "oc", "helm", "k9s", "kubectx", "kubens"],
        variables: &["KUBECONFIG", "HOME"],
        options: &["--kubeconfig"],
        runs_git: false,
    },
    Family {
        programs: &["aws", "sam"],
        variables: &["AWS_CONFIG_FILE", "HOME"],
        options: &[],
        runs_git: false,
    },
    Family {
        programs: &["gcloud", "gsutil", "bq"],
        variables: &["CLOUDSDK_CONFIG", "HOME"],
        options: &[],
        runs_git: false,
    },
    Family {
        programs: &["http", "https", "httpie", "xh", "xhs"],
        variables: &[
            "HTTPIE_CONFIG_DIR",
            "XH_CONFIG_DIR",
            "XDG_CONFIG_HOME",
            "HOME",
        ],
        options: &[],
        runs_git: false,
    },
    Family {
        programs: &["aria2c"],
        variables: &["HOME", "XDG_CONFIG_HOME"],
        options: &["--conf-path"],
        runs_git: false,
    },
    Family {
        programs: &["lftp"],
        variables: &["LFTP_HOME", "HOME", "XDG_CONFIG_HOME"],
        options: &[],
        runs_git: false,
    },
    Family {
        programs: &["svn"],
        variables: &["HOME"],
        options: &["--config-dir", "--config-option"],
        runs_git: false,
    },
    Family {
        programs: &["gem", "bundle", "bundler"],
        variables: &[
            "GEMRC",
            "BUNDLE_APP_CONFIG",
            "BUNDLE_USER_CONFIG",
            "BUNDLE_USER_HOME",
            "HOME",
        ],
        options: &["--config-file"],
        runs_git: true,
    },
    Family {
        programs: &["composer"],
        variables: &["COMPOSER_HOME", "COMPOSER", "HOME", "XDG_CONFIG_HOME"],
        options: &[],
        runs_git: true,
    },
    Family {
        programs: &["mvn", "mvnw"],
        // The JVM's options hold its proxy (`-Dhttps.proxyHost=h`).
        variables: &[
            "M2_HOME",
            "MAVEN_HOME",
            "MAVEN_OPTS",
            "MAVEN_ARGS",
            "JAVA_TOOL_OPTIONS",
            "_JAVA_OPTIONS",
            "JDK_JAVA_OPTIONS",
            "HOME",
        ],
        options: &["-s", "--settings", "-gs", "--global-settings"],
        runs_git: false,
    },
    Family {
        programs: &["gradle", "gradlew"],
        variables: &[
            "GRADLE_USER_HOME",
            "GRADLE_OPTS",
            "JAVA_OPTS",
            "JAVA_TOOL_OPTIONS",
            "_JAVA_OPTIONS",
            "JDK_JAVA_OPTIONS",
            "HOME",
        ],
        options: &["-g", "--gradle-user-home"],
        runs_git: false,
    },
    Family {
        programs: &["hg"],
        variables: &["HGRCPATH", "HOME", "XDG_CONFIG_HOME"],
        options: &[],
        runs_git: false,
    },
    Family {
        programs: &["terraform", "tofu"],
        variables: &["TF_CLI_CONFIG_FILE", "TERRAFORM_CONFIG", "HOME"],
        options: &[],
        runs_git: true,
    },
    Family {
        programs: &["az"],
        variables: &["AZURE_CONFIG_DIR", "HOME"],
        options: &[],
        runs_git: false,
    },
    Family {
        programs: &["glab"],
        variables: &["GLAB_CONFIG_DIR", "XDG_CONFIG_HOME", "HOME"],
        options: &[],
        runs_git: true,
    },
    Family {
        programs: &["clickhouse-client", "clickhouse"],
        variables: &["HOME"],
        options: &["--config-file", "-C"],
        runs_git: false,
    },
    Family {
        programs: &[
            "ldapsearch",
            "ldapmodify",
            "ldapadd",
            "ldapdelete",
            "ldapwhoami",
        ],
        variables: &["LDAPCONF", "LDAPRC", "HOME"],
        options: &[],
        runs_git: false,
    },
    Family {
        programs: &["lynx", "elinks", "links", "w3m"],
        variables: &[
            "LYNX_CFG",
            "LYNX_CFG_PATH",
            "WWW_HOME",
            "ELINKS_CONFDIR",
            "W3M_DIR",
            "HOME",
        ],
        options: &["-cfg"],
        runs_git: false,
    },
    Family {
        programs: &["twine"],
        variables: &["HOME"],
        options: &["--config-file"],
        runs_git: false,
    },
    Family {
        programs: &["apt", "apt-get", "apt-cache", "aptitude"],
        variables: &["APT_CONFIG"],
        options: &["-c", "--config-file"],
        runs_git: false,
    },
    Family {
        programs: &["gpg", "gpg2"],
        variables: &["GNUPGHOME", "HOME"],
        options: &["--homedir", "--options"],
        runs_git: false,
    },
];

/// Variables every program that reaches the network reads through the
/// resolver: a file of names for hosts (`HOSTALIASES`), and the domains a
/// name without a dot is looked up in (`LOCALDOMAIN=evil.com` makes `curl
/// http://www/` reach `www.evil.com`).
const RESOLVER_VARIABLES: &[&str] = &["HOSTALIASES", "LOCALDOMAIN"];

/// Other programs that reach the network (and so the resolver).
const RESOLVING: &[&str] = &[
    "nc", "ncat", "netcat", "socat", "openssl", "telnet", "ftp", "rsync", "ssh", "http",
];

/// A configuration file larger than this is not read (its hosts are known
/// only at run time).
const MAX_FILE: u64 = 256 * 1024;

/// Files included by files (`-r` in a requirements file) followed this
/// deep.
const MAX_INCLUDES: usize = 4;

/// A file a program may read: where, the directory of the program's own it
/// is in (`.cargo`), looked for first, and how it is written.
struct Candidate {
    file: PathBuf,
    gate: Option<PathBuf>,
    syntax: Syntax,
}

impl Candidate {
    fn new(file: PathBuf, syntax: Syntax) -> Candidate {
        Candidate {
            file,
            gate: None,
            syntax,
        }
    }

    /// A file of its own syntax (by its name).
    fn of(file: PathBuf) -> Candidate {
        let syntax = syntax_of(&file);
        Candidate::new(file, syntax)
    }
}

/// Files a program reads by itself where it runs: the programs, the
/// files (relative to the working directory and to every directory above
/// it, as npm, yarn and cargo look for theirs), the options that name the
/// project's directory instead (`npm --prefix d`, `pnpm -C d`, `yarn --cwd
/// d`), and the files under the user's home directory.
struct ProjectFiles {
    programs: &'static [&'static str],
    files: &'static [&'static str],
    dir_options: &'static [&'static str],
    home: &'static [&'static str],
}

const PROJECT_FILES: &[ProjectFiles] = &[
    // curl's and wget's own files are the user's alone.
    ProjectFiles {
        programs: &["curl"],
        files: &[],
        dir_options: &[],
        home: &[".curlrc", ".config/.curlrc", ".config/curlrc"],
    },
    ProjectFiles {
        programs: &["wget", "wget2"],
        files: &[],
        dir_options: &[],
        home: &[".wgetrc", ".wget2rc", ".config/wget/wgetrc"],
    },
    ProjectFiles {
        programs: NPM,
        files: &[
            ".npmrc",
            ".yarnrc",
            ".yarnrc.yml",
            ".yarnrc.yaml",
            "bunfig.toml",
            "pnpm-workspace.yaml",
        ],
        dir_options: &["--prefix", "-C", "--dir", "--cwd"],
        home: &[
            ".npmrc",
            ".yarnrc",
            ".yarnrc.yml",
            ".bunfig.toml",
            ".config/pnpm/rc",
        ],
    },
    // deno's imports may be URLs.
    ProjectFiles {
        programs: &["deno"],
        files: &["deno.json", "deno.jsonc", "import_map.json"],
        dir_options: &[],
        home: &[],
    },
    ProjectFiles {
        programs: &["cargo"],
        files: &[".cargo/config.toml", ".cargo/config", "Cargo.toml"],
        dir_options: &["-C"],
        home: &[".cargo/config.toml", ".cargo/config"],
    },
    ProjectFiles {
        programs: &["uv", "uvx", "poetry", "pdm", "hatch"],
        files: &["uv.toml", "pyproject.toml"],
        dir_options: &["--directory", "--project", "-C"],
        home: &[".config/uv/uv.toml"],
    },
    ProjectFiles {
        programs: &["hg"],
        files: &[".hg/hgrc"],
        dir_options: &["-R", "--repository", "--cwd"],
        home: &[".hgrc", ".config/hg/hgrc"],
    },
    ProjectFiles {
        programs: &["bundle", "bundler"],
        files: &[".bundle/config"],
        dir_options: &[],
        home: &[".bundle/config"],
    },
    ProjectFiles {
        programs: &["composer"],
        files: &["composer.json"],
        dir_options: &["-d", "--working-dir"],
        home: &[".config/composer/config.json", ".composer/config.json"],
    },
    ProjectFiles {
        programs: &["mvn", "mvnw"],
        files: &["pom.xml", ".mvn/maven.config", ".mvn/jvm.config"],
        dir_options: &["-f", "--file"],
        home: &[".m2/settings.xml"],
    },
    ProjectFiles {
        programs: &["gradle", "gradlew"],
        files: &[
            "gradle.properties",
            "gradle/wrapper/gradle-wrapper.properties",
        ],
        dir_options: &["-p", "--project-dir"],
        home: &[".gradle/gradle.properties"],
    },
];

/// What the analysis keeps of the configuration files and variables seen
/// so far.
#[derive(Default)]
pub(super) struct ConfigState {
    /// Variables assigned so far that move a program's configuration (see
    /// [`FAMILIES`]).
    moved: Vec<String>,
    /// Files read, with the hosts they name.
    files: Vec<(PathBuf, Arc<[Named]>)>,
    /// Directories looked for (`.cargo`), and whether they are there.
    dirs: Vec<(PathBuf, bool)>,
    /// The proxies in the configuration of the repository the last git
    /// command that talks to a remote runs in (see
    /// [`Analyzer::remote_urls`]).
    pub(super) git_proxies: std::cell::RefCell<Vec<String>>,
}

/// What a configuration file names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Named {
    /// A host: where it is named (the file and the key, never the value,
    /// which may hold a secret), and the host.
    Host { written: String, host: String },
    /// A host known only at run time, and why.
    Unknown { written: String, reason: String },
    /// Another file read with it (`-r more.txt` in a requirements file).
    Include(PathBuf),
}

/// How a file's lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Syntax {
    /// `key = value` (`.npmrc`, `pip.conf`, TOML).
    Ini,
    /// `key value` (yarn 1's `.yarnrc`).
    Yarnrc,
    /// curl's `.curlrc`: `key = value`, `key: value`, `key value`, `-x
    /// value`, `--proxy value`.
    Curlrc,
    /// `key: value` (`.yarnrc.yml`).
    Yaml,
    /// pip's requirements: options and requirements, `-r FILE` and `-c
    /// FILE` reading more.
    Requirements,
    /// npm's manifest (`package.json`): the dependencies' specs (see
    /// [`package_json_hosts`]) and `publishConfig.registry`.
    PackageJson,
    /// cargo's manifest (`Cargo.toml`): the `git`, `registry-index` (and
    /// `registry`, `index`, `proxy`) strings of its tables, not its
    /// `homepage` or `repository`.
    CargoManifest,
    /// A lock file (`package-lock.json`, `yarn.lock`, `pnpm-lock.yaml`):
    /// every URL in it is one the install fetches.
    Lock,
    /// HTTP requests to send (hurl's `.hurl`, the `.http` files of REST
    /// clients, a Postman collection): `METHOD TARGET` lines; a target
    /// that is not a whole URL (`GET {{base}}/users`, `GET /x` with a
    /// `Host:` header) names a host known only at run time.
    Requests,
}

fn syntax_of(file: &Path) -> Syntax {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    if name == "package.json" {
        Syntax::PackageJson
    } else if name == "Cargo.toml" {
        Syntax::CargoManifest
    } else if LOCK_FILES.contains(&name.as_ref()) {
        Syntax::Lock
    } else if name.ends_with(".yml") || name.ends_with(".yaml") {
        Syntax::Yaml
    } else if name == ".yarnrc" {
        Syntax::Yarnrc
    } else if name.ends_with("curlrc") {
        Syntax::Curlrc
    } else {
        Syntax::Ini
    }
}

/// Whether an npm word names the option `option` as npm's parser (nopt)
/// takes it: with one dash or two, in any case, `_` for `-`, and
/// abbreviated to any prefix no other key of npm's shares (`--userc`,
/// `-userconfig`, `--globalc=f`): the shortest such prefix of each option
/// that names a configuration file is kept here.
fn nopt_abbreviates(word: &str, option: &str) -> bool {
    const SHORTEST: &[(&str, &str)] = &[
        ("--userconfig", "userc"),
        ("--globalconfig", "globalc"),
        ("--use-yarnrc", "use-y"),
    ];
    let Some(shortest) = SHORTEST.iter().find(|(o, _)| *o == option).map(|(_, s)| *s) else {
        return false;
    };
    let Some(name) = word.strip_prefix('-') else {
        return false;
    };
    let name = name.strip_prefix('-').unwrap_or(name);
    let name = name.split_once('=').map_or(name, |(n, _)| n);
    let name = name.to_ascii_lowercase().replace('_', "-");
    name.starts_with(shortest) && option[2..].starts_with(&name)
}

/// Whether `name` is a variable of `list` (npm's variables in any case, as
/// npm reads them: `npm_config_userconfig`).
fn listed(list: &[&str], name: &str) -> bool {
    let upper;
    let name = if name
        .get(..11)
        .is_some_and(|p| p.eq_ignore_ascii_case("npm_config_"))
    {
        upper = name.to_ascii_uppercase();
        upper.as_str()
    } else {
        name
    };
    list.iter().any(|v| match v.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => *v == name,
    })
}

/// Whether assigning `name` can move some program's configuration.
fn moves_configuration(name: &str) -> bool {
    super::credentials::moves_credentials(name)
        || RESOLVER_VARIABLES.contains(&name)
        || listed(GIT_VARIABLES, name)
        || FAMILIES.iter().any(|f| listed(f.variables, name))
}

/// Whether a host key: the last part of a configuration key (after `:` or
/// `.`, without case, `-` or `_`) that names a registry, an index, a proxy
/// or a server.
fn host_key(key: &str) -> bool {
    let last = key
        .rsplit([':', '.'])
        .next()
        .unwrap_or(key)
        .trim_matches(['"', '\'', ' ']);
    let norm: String = last
        .chars()
        .filter(|c| !matches!(c, '-' | '_'))
        .map(|c| c.to_ascii_lowercase())
        .collect();
    matches!(
        norm.as_str(),
        "registry"
            | "registryserver"
            | "npmregistryserver"
            | "npmpublishregistry"
            | "proxy"
            | "httpproxy"
            | "httpsproxy"
            | "allproxy"
            | "index"
            | "indexurl"
            | "extraindexurl"
            | "findlinks"
            | "url"
            | "git"
            | "server"
            | "host"
            | "mirror"
            | "channelalias"
            | "defaultchannels"
            | "channels"
            | "goproxy"
            | "gosumdb"
            | "gonosumdb"
            | "goprivate"
            | "gonoproxy"
            | "goinsecure"
            | "proxyhost"
    )
}

/// Whether a curl option (as a `.curlrc` writes it, with or without its
/// dashes) names a proxy: `proxy`, `-x`, `preproxy`, the `socks*` ones.
fn curl_host_option(key: &str) -> bool {
    let key = key.trim_start_matches('-');
    matches!(key, "x" | "proxy" | "preproxy") || key.starts_with("socks")
}

/// A line's key (without quotes) and value, when it has one.
fn key_and_value(line: &str, syntax: Syntax) -> Option<(&str, &str)> {
    let (key, rest) = match line.chars().next() {
        Some(q @ ('"' | '\'')) => {
            let body = &line[1..];
            let end = body.find(q)?;
            (&body[..end], &body[end + 1..])
        }
        _ => {
            let end = match syntax {
                Syntax::Yarnrc | Syntax::Requirements => line.find(char::is_whitespace)?,
                Syntax::Yaml | Syntax::Requests => {
                    let at = line.find(':')?;
                    let after = &line[at + 1..];
                    if !(after.is_empty() || after.starts_with([' ', '\t']))
                        || line.starts_with('-')
                    {
                        return None;
                    }
                    at
                }
                Syntax::Ini => line.find('=')?,
                Syntax::PackageJson | Syntax::CargoManifest | Syntax::Lock => return None,
                Syntax::Curlrc => line.find([' ', '\t', '=', ':'])?,
            };
            (&line[..end], &line[end..])
        }
    };
    let value = rest
        .trim_start()
        .strip_prefix([':', '='])
        .unwrap_or(rest)
        .trim();
    Some((key.trim(), value))
}

/// The hosts a configuration file's text names: every URL in it (a URL is
/// read whatever its key: `init-author-url` names no host npm reaches, but
/// a host so named only meets rules written for it), and the value of a
/// key naming a registry or a proxy read as a host (`proxy=h:3128`). A
/// comment line is skipped. A value taken from a variable
/// (`registry=${REG}`) is a host known only at run time.
fn hosts_in(text: &str, file: &Path, syntax: Syntax) -> Vec<Named> {
    if syntax == Syntax::PackageJson {
        return package_json_hosts(text, file);
    }
    if syntax == Syntax::CargoManifest {
        return cargo_manifest_hosts(text, file);
    }
    let shown = file.display();
    let mut out = Vec::new();
    let mut seen = |named: Named| {
        if !out.contains(&named) {
            out.push(named);
        }
    };
    // A Java properties file escapes `:` and `=` (`https\://h/`).
    let properties = file.extension().is_some_and(|e| e == "properties");
    let dir = file.parent().unwrap_or(Path::new("/"));
    for line in text.trim_start_matches('\u{feff}').lines() {
        let unescaped;
        let line = if properties && line.contains('\\') {
            unescaped = line.replace("\\:", ":").replace("\\=", "=");
            unescaped.trim()
        } else {
            line.trim()
        };
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        if syntax == Syntax::Requirements
            && let Some(more) = requirements_include(line)
        {
            let more = more.trim_start_matches(['=', ' ', '\t']).trim();
            let more = file_url_path(more).unwrap_or(more);
            if more.contains('$') {
                seen(Named::Unknown {
                    written: shown.to_string(),
                    reason: "a file it reads is named by a variable".into(),
                });
            } else if !more.is_empty() && !more.contains("://") {
                seen(Named::Include(dir.join(more)));
                continue;
            }
        }
        if syntax == Syntax::Requests
            && let Some((method, rest)) = line.split_once([' ', '\t'])
            && HTTP_METHODS.contains(&method)
        {
            let target = rest.split_whitespace().next().unwrap_or_default();
            if url_start(target).is_none_or(|u| !target.starts_with(u)) {
                seen(Named::Unknown {
                    written: format!("{shown}: {method} {target}"),
                    reason: "the host of a request is known only at run time".into(),
                });
            }
        }
        let kv = key_and_value(line, syntax);
        let key = kv.map(|(k, _)| k).unwrap_or_default();
        let written = if key.is_empty() {
            shown.to_string()
        } else {
            format!("{shown}: {key}")
        };
        let is_host_key = kv
            .is_some_and(|(k, _)| host_key(k) || (syntax == Syntax::Curlrc && curl_host_option(k)));
        // curl's `resolve = h:443:ADDR[,ADDR]`, `connect-to =
        // h:443:OTHER:443`: the addresses connected to.
        if syntax == Syntax::Curlrc
            && let Some((key, value)) = kv
            && matches!(key.trim_start_matches('-'), "resolve" | "connect-to")
        {
            let value = value.trim_matches(['"', '\'']).trim_start_matches('+');
            let target = value.splitn(3, ':').nth(2).unwrap_or_default();
            let addresses: Vec<&str> = if key.ends_with("resolve") {
                target.split(',').collect()
            } else {
                target
                    .rsplit_once(':')
                    .map(|(h, _)| h)
                    .into_iter()
                    .collect()
            };
            for address in addresses {
                let address = address.trim_start_matches('[').trim_end_matches(']');
                if let Some(host) = super::hosts::host_of_operand(address)
                    .or_else(|| super::hosts::ipv6_host(address))
                {
                    seen(Named::Host {
                        written: written.clone(),
                        host,
                    });
                }
            }
        }
        for token in line.split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '"' | '\'' | ',' | '{' | '}' | '(' | ')' | ';' | '<' | '>' | '='
                )
        }) {
            let Some(url) = url_start(token) else {
                continue;
            };
            if url.contains('$') || url.contains("{{") {
                seen(Named::Unknown {
                    written: written.clone(),
                    reason: "its URL is taken from a variable".into(),
                });
                continue;
            }
            if let Some(host) = super::hosts::host_of_operand(url) {
                seen(Named::Host {
                    written: written.clone(),
                    host,
                });
            }
        }
        let Some((_, value)) = kv.filter(|_| is_host_key) else {
            continue;
        };
        if value.contains('$') {
            seen(Named::Unknown {
                written: written.clone(),
                reason: "its value is taken from a variable".into(),
            });
            continue;
        }
        if value.starts_with(['{', '[']) {
            // A table or a list: its URLs were read above.
            continue;
        }
        for part in value.split([',', ' ', '\t']) {
            let part = part.trim_matches(['"', '\'']);
            if part.is_empty()
                || part.contains("://")
                || matches!(
                    part.to_ascii_lowercase().as_str(),
                    "true" | "false" | "null" | "none" | "~"
                )
            {
                continue;
            }
            if let Some(host) = super::hosts::host_of_operand(part) {
                seen(Named::Host {
                    written: written.clone(),
                    host,
                });
            }
        }
    }
    out
}

/// Whether `word` is the long option `long` as Python's optparse takes
/// it: whole or any prefix of at least `shortest` characters (`--requirem`,
/// `--constr`; optparse takes a unique prefix, and refuses an ambiguous one,
/// which then reads nothing), with its value attached (`Some(Some(v))`:
/// `--requirem=f`) or in the next word (`Some(None)`).
fn optparse_long<'a>(word: &'a str, long: &str, shortest: usize) -> Option<Option<&'a str>> {
    let (name, value) = match word.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (word, None),
    };
    (name.starts_with("--") && name.len() >= shortest && long.starts_with(name)).then_some(value)
}

/// The file a requirements file's line includes (`-r more.txt`, `-c
/// c.txt`, `--requirement=f`, `--requirem f`, `-rf`): the text after the
/// option.
fn requirements_include(line: &str) -> Option<&str> {
    let (option, rest) = match line.find([' ', '\t', '=']) {
        Some(at) => (&line[..at], &line[at..]),
        None => (line, ""),
    };
    if ["--requirement", "--constraint"]
        .iter()
        .any(|long| optparse_long(option, long, 3).is_some())
    {
        return Some(rest);
    }
    ["-r", "-c"].iter().find_map(|o| line.strip_prefix(o))
}

/// The path a `file:` URL names (`file:///p/r.txt`, `file:/p`,
/// `file://localhost/p`), as pip reads one.
fn file_url_path(text: &str) -> Option<&str> {
    let rest = text
        .get(..5)
        .filter(|s| s.eq_ignore_ascii_case("file:"))
        .map(|_| &text[5..])?;
    let rest = match rest.strip_prefix("//") {
        Some(r) => r.strip_prefix("localhost").unwrap_or(r),
        None => rest,
    };
    rest.starts_with('/').then_some(rest)
}

/// npm's lock files and those of the package managers that read its
/// manifest: every URL in them is fetched by an install.
const LOCK_FILES: &[&str] = &[
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
];

/// The files npm's installs read in the project: its manifest and lock
/// files (looked for where `.npmrc` is).
const NPM_MANIFESTS: &[ProjectFiles] = &[ProjectFiles {
    programs: NPM,
    files: &[
        "package.json",
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
    ],
    dir_options: &["--prefix", "-C", "--dir", "--cwd"],
    home: &[],
}];

/// The keys of `package.json` whose values are dependency specs.
const DEPENDENCY_KEYS: &[&str] = &[
    "dependencies",
    "devDependencies",
    "optionalDependencies",
    "peerDependencies",
    "bundleDependencies",
    "overrides",
    "resolutions",
    "pnpm",
];

/// The hosts `package.json` names for an install or a publish: each
/// dependency spec (in the dependency maps, `overrides`, `resolutions`,
/// at any depth) that is a URL (`http://h/x.tgz`, `git+ssh://git@h/r`), a
/// git remote in scp form (`git@h:r`), or a hosted repository
/// (`github:u/r` and `u/r` are github.com's, `gitlab:`, `bitbucket:`), and
/// `publishConfig.registry`. A manifest that is no JSON names hosts known
/// only at run time.
fn package_json_hosts(text: &str, file: &Path) -> Vec<Named> {
    let shown = file.display();
    let Ok(serde_json::Value::Object(manifest)) =
        serde_json::from_str::<serde_json::Value>(text.trim_start_matches('\u{feff}'))
    else {
        return vec![Named::Unknown {
            written: shown.to_string(),
            reason: "it cannot be read as JSON".into(),
        }];
    };
    let mut specs: Vec<(String, String)> = Vec::new();
    fn strings(key: &str, value: &serde_json::Value, out: &mut Vec<(String, String)>) {
        match value {
            serde_json::Value::String(s) => out.push((key.to_string(), s.clone())),
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    strings(k, v, out);
                }
            }
            serde_json::Value::Array(list) => {
                for v in list {
                    strings(key, v, out);
                }
            }
            _ => {}
        }
    }
    for key in DEPENDENCY_KEYS {
        if let Some(value) = manifest.get(*key) {
            strings(key, value, &mut specs);
        }
    }
    let mut out = Vec::new();
    if let Some(registry) = manifest
        .get("publishConfig")
        .and_then(|p| p.get("registry"))
        .and_then(serde_json::Value::as_str)
    {
        specs.push(("publishConfig.registry".into(), registry.to_string()));
    }
    for (key, spec) in specs {
        let spec = spec.trim();
        let spec = spec.strip_prefix("npm:").unwrap_or(spec);
        let host = if let Some(url) = url_start(spec).filter(|u| spec.starts_with(*u)) {
            super::hosts::host_of_operand(url)
        } else if let Some((forge, _)) = spec.split_once(':')
            && let Some(host) = match forge {
                "github" => Some("github.com"),
                "gitlab" => Some("gitlab.com"),
                "bitbucket" => Some("bitbucket.org"),
                "gist" => Some("gist.github.com"),
                _ => None,
            }
        {
            Some(host.to_string())
        } else if let Some((user_host, _)) = spec.split_once(':')
            && let Some((_, host)) = user_host.split_once('@')
            && !user_host.contains('/')
        {
            // `git@h:r`.
            super::hosts::host_of_operand(host)
        } else if spec.contains('/')
            && !spec.starts_with(['.', '/', '~', '@'])
            && !spec.contains(':')
            && !spec.contains(' ')
        {
            // `user/repo[#ref]`: a GitHub repository.
            Some("github.com".to_string())
        } else {
            None
        };
        if let Some(host) = host {
            let named = Named::Host {
                written: format!("{shown}: {key}"),
                host,
            };
            if !out.contains(&named) {
                out.push(named);
            }
        }
    }
    out
}

/// The hosts `Cargo.toml` names for a build that fetches its dependencies:
/// a dependency's `git` (in any table: `dependencies`, `patch.*`,
/// `target.*.dependencies`, `workspace.dependencies`) and
/// `registry-index`. A manifest that is no TOML names hosts known only at
/// run time.
fn cargo_manifest_hosts(text: &str, file: &Path) -> Vec<Named> {
    let shown = file.display();
    let Ok(table) = text.parse::<toml::Table>() else {
        return vec![Named::Unknown {
            written: shown.to_string(),
            reason: "it cannot be read as TOML".into(),
        }];
    };
    fn index(table: &toml::Table, out: &mut Vec<String>) {
        for (key, value) in table {
            match value {
                toml::Value::Table(inner) => index(inner, out),
                toml::Value::String(s) if key == "registry-index" => out.push(s.clone()),
                _ => {}
            }
        }
    }
    let mut servers = Vec::new();
    let deps: toml::Table = table
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "package" | "lib" | "bin" | "badges"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    super::hosts::cargo_servers(&deps, &mut servers);
    index(&deps, &mut servers);
    let mut out = Vec::new();
    for server in servers {
        let host = match url_start(&server).filter(|u| server.starts_with(*u)) {
            Some(url) => super::hosts::host_of_operand(url),
            // A registry named, whose index is in cargo's configuration.
            None => None,
        };
        if let Some(host) = host {
            let named = Named::Host {
                written: format!("{shown}: git"),
                host,
            };
            if !out.contains(&named) {
                out.push(named);
            }
        }
    }
    out
}

/// The methods a request line of a file of requests starts with.
const HTTP_METHODS: &[&str] = &[
    "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT", "QUERY",
];

/// The URL a token holds from its scheme on (`scheme:/…`, `scheme:\\…`,
/// `sparse+https://…`), if it holds one.
fn url_start(token: &str) -> Option<&str> {
    let colon = token
        .match_indices(':')
        .map(|(i, _)| i)
        .find(|&i| token[i + 1..].starts_with(['/', '\\']))?;
    let start = token[..colon]
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
        .map_or(0, |i| i + 1);
    let start = token[start..colon]
        .find(|c: char| c.is_ascii_alphabetic())
        .map(|i| i + start)?;
    Some(&token[start..])
}

/// What reading a configuration file gave.
enum Read {
    Absent,
    Text(String),
    Unreadable(String),
}

/// A lock file larger than this is not read (they grow with the project's
/// dependencies, and an install reads them whole).
const MAX_LOCK_FILE: u64 = 32 * 1024 * 1024;

fn read_file(path: &Path) -> Read {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Read::Absent;
        }
        Err(e) => return Read::Unreadable(format!("it cannot be read ({e})")),
    };
    if !meta.is_file() {
        return Read::Unreadable("it is not a file".into());
    }
    let lock = path
        .file_name()
        .is_some_and(|n| LOCK_FILES.contains(&n.to_string_lossy().as_ref()));
    if meta.len() > if lock { MAX_LOCK_FILE } else { MAX_FILE } {
        return Read::Unreadable("it is too large to read".into());
    }
    match std::fs::read_to_string(path) {
        Ok(text) => Read::Text(text),
        Err(e) => Read::Unreadable(format!("it cannot be read ({e})")),
    }
}

/// The family of options of the ssh programs (which take a value), to read
/// `-F` in a cluster (`-qF FILE`).
fn ssh_spec(base: &str) -> Spec {
    Spec {
        with_arg: match base {
            "scp" => "cDFiJlPoSX",
            "sftp" => "BbcDFiJloPRsS",
            _ => "BbcDEeFIiJLlmOoPpQRSWw",
        },
        posix: base == "ssh",
        ..Spec::default()
    }
}

impl Analyzer {
    /// A variable assigned (`NAME=… cmd`, `export NAME=…`, `env NAME=…`,
    /// `read NAME`): kept when it moves a program's configuration.
    pub(super) fn config_variable(&mut self, name: &str) {
        if moves_configuration(name) && !self.config.moved.iter().any(|m| m == name) {
            self.config.moved.push(name.to_string());
        }
    }

    /// Whether the command sets `name`, a variable that moves a
    /// configuration (or a credential file).
    pub(super) fn config_moved(&self, name: &str) -> bool {
        self.config.moved.iter().any(|m| m == name)
    }

    /// How many variables that move a configuration are set so far (see
    /// [`Analyzer::config_forget`]).
    pub(super) fn config_mark(&self) -> usize {
        self.config.moved.len()
    }

    /// Forget the variables set from `mark` on: a command's prefix
    /// assignments, which hold for that command alone.
    pub(super) fn config_forget(&mut self, from: usize, to: usize) {
        if from < to && to <= self.config.moved.len() {
            self.config.moved.drain(from..to);
        }
    }

    /// A call of a function defined earlier, whose body was read where it
    /// was defined: a variable set now that moves a configuration applies
    /// to whatever the body runs.
    pub(super) fn config_in_function(&mut self, argv: &[WordVal]) {
        if let Some(name) = self.config.moved.first().cloned() {
            let text = super::programs::short_text(argv);
            self.uncertain(
                UncertainKind::Host,
                &text,
                format!(
                    "`{name}` moves where the programs the function runs find their configuration, which can name any host; the host they reach is known only at run time"
                ),
            );
        }
    }

    /// What a program finds in its configuration: a host known only at run
    /// time when a variable or an option moved it, the hosts of the files
    /// of the project it reads by itself, the host a command writes into
    /// it (`npm config set registry H`).
    pub(super) fn config_hosts(&mut self, base: &str, argv: &[WordVal]) {
        if self.is_full() {
            return;
        }
        if super::interpreters::is_python(base) && runs_pip(argv) {
            // `python3 -m pip …` is pip.
            return self.config_hosts("pip", argv);
        }
        self.moved_configuration(base, argv);
        match base {
            "pip" | "pip3" | "pipenv" => {
                self.config_set(base, argv);
                self.pip_files(argv);
            }
            "go" | "conda" | "mamba" | "micromamba" | "poetry" => {
                self.config_set(base, argv);
                self.project_files(base, argv);
            }
            // `uv pip install -r FILE`, pip-tools: pip's inputs.
            "uv" | "pip-sync" | "pip-compile" => {
                self.project_files(base, argv);
                let pip =
                    base != "uv" || argv.get(1).and_then(|w| w.literal.as_deref()) == Some("pip");
                if pip {
                    let text = super::programs::short_text(argv);
                    let mut files = self.pip_inputs(argv, &text);
                    if base != "uv" {
                        // pip-tools' operands are requirements files.
                        for w in argv.iter().skip(1) {
                            if let Some(l) = w.literal.as_deref()
                                && !l.starts_with('-')
                                && let Ok(paths) = self.resolve_word_path(l, w.tilde, false)
                            {
                                files.extend(
                                    paths
                                        .into_iter()
                                        .map(|p| Candidate::new(p.lexical, Syntax::Requirements)),
                                );
                            }
                        }
                    }
                    self.meet_files(base, &text, &files);
                }
            }
            "git" => self.git_config_hosts(argv),
            "hurl" | "httpyac" | "ijhttp" | "newman" => self.request_files(base, argv),
            "cargo" => {
                self.cargo_config_file(argv);
                self.project_files(base, argv);
            }
            b if NPM.contains(&b) => {
                self.config_set(base, argv);
                self.project_files(base, argv);
                if npm_installs(base, argv) {
                    self.project_files_of(base, argv, NPM_MANIFESTS);
                }
            }
            _ => self.project_files(base, argv),
        }
    }

    /// The requests a program that sends a file of them reaches (`hurl
    /// api.hurl`, `httpyac send users.http`, `newman run collection.json`):
    /// the hosts of their URLs. Requests read from the input (`hurl` with
    /// no file), from files named at run time or by a pattern (`--glob`)
    /// reach hosts known only at run time.
    fn request_files(&mut self, base: &str, argv: &[WordVal]) {
        let text = super::programs::short_text(argv);
        let mut files = Vec::new();
        let mut unknown = argv.iter().skip(1).any(|w| {
            w.literal
                .as_deref()
                .is_some_and(|l| l == "--glob" || l.starts_with("--glob="))
        });
        for w in argv.iter().skip(1) {
            let Some(l) = w.literal.as_deref() else {
                unknown |= !w.raw.starts_with('-');
                continue;
            };
            let request_file = [".hurl", ".http", ".rest", ".json"]
                .iter()
                .any(|ext| l.ends_with(ext));
            if l.starts_with('-') || !request_file {
                continue;
            }
            match self.resolve_word_path(l, w.tilde, false) {
                Ok(paths) => files.extend(
                    paths
                        .into_iter()
                        .map(|p| Candidate::new(p.lexical, Syntax::Requests)),
                ),
                Err(_) => unknown = true,
            }
        }
        // hurl reads its requests from the input when given no file.
        if unknown || (base == "hurl" && files.is_empty()) {
            self.uncertain(
                UncertainKind::Host,
                &text,
                format!("{base} sends requests it reads at run time, which can name any host"),
            );
        }
        self.meet_files(base, &text, &files);
    }

    /// A variable or option that moves where `base` finds its configuration.
    fn moved_configuration(&mut self, base: &str, argv: &[WordVal]) {
        let families = || FAMILIES.iter().filter(|f| f.programs.contains(&base));
        let network = families().next().is_some()
            || super::hosts::takes_host_operands(base)
            || RESOLVING.contains(&base);
        if !network {
            return;
        }
        if !self.config.moved.is_empty() {
            let runs_git = families().any(|f| f.runs_git);
            let moved = self.config.moved.iter().find(|name| {
                RESOLVER_VARIABLES.contains(&name.as_str())
                    || families().any(|f| listed(f.variables, name))
                    || (runs_git && listed(GIT_VARIABLES, name))
            });
            if let Some(name) = moved.cloned() {
                let text = super::programs::short_text(argv);
                self.uncertain(
                    UncertainKind::Host,
                    &text,
                    format!(
                        "`{name}` moves {base}'s configuration (or what it runs to connect), which can name any host; the host it reaches is known only at run time"
                    ),
                );
                return;
            }
        }
        let options: Vec<&str> = families().flat_map(|f| f.options.iter().copied()).collect();
        if options.is_empty() {
            return;
        }
        let args = argv.get(1..).unwrap_or_default();
        let found = if options.contains(&"-F") {
            // ssh's one-letter options cluster (`-qF FILE`, `-Fcfg`).
            // `-F none` and `-F /dev/null` read no file.
            let p = options::parse(args, &ssh_spec(base));
            p.values(&["-F"])
                .any(|v| {
                    v.and_then(|v| v.literal.as_deref())
                        .is_none_or(|l| !matches!(l, "none" | "/dev/null"))
                })
                .then_some("-F")
        } else {
            let npm = NPM.contains(&base);
            args.iter()
                .filter_map(|w| w.literal.as_deref())
                .take_while(|l| *l != "--")
                .find_map(|l| {
                    options.iter().copied().find(|o| {
                        l == *o
                            || (o.starts_with("--")
                                && l.strip_prefix(o).is_some_and(|r| r.starts_with('=')))
                            || (npm && nopt_abbreviates(l, o))
                    })
                })
        };
        if let Some(option) = found {
            let text = super::programs::short_text(argv);
            self.uncertain(
                UncertainKind::Host,
                &text,
                format!(
                    "{base} {option} names a configuration file, which can name any host; the host it reaches is known only at run time"
                ),
            );
        }
    }

    /// The files of the project (and the user's) that `base` reads where it
    /// runs (see [`PROJECT_FILES`]).
    fn project_files(&mut self, base: &str, argv: &[WordVal]) {
        self.project_files_of(base, argv, PROJECT_FILES);
    }

    /// The files of `table` that `base` reads where it runs.
    fn project_files_of(&mut self, base: &str, argv: &[WordVal], table: &[ProjectFiles]) {
        let tables: Vec<&ProjectFiles> = table
            .iter()
            .filter(|t| t.programs.contains(&base))
            .collect();
        if tables.is_empty() {
            return;
        }
        let args = argv.get(1..).unwrap_or_default();
        let mut named_dirs: Vec<WordVal> = Vec::new();
        for (i, w) in args.iter().enumerate() {
            let Some(l) = w.literal.as_deref() else {
                continue;
            };
            if l == "--" {
                break;
            }
            for o in tables.iter().flat_map(|t| t.dir_options) {
                if l == *o {
                    named_dirs.extend(args.get(i + 1).cloned());
                } else if let Some(v) = l.strip_prefix(o).and_then(|r| r.strip_prefix('=')) {
                    named_dirs.push(WordVal::literal(v));
                }
            }
        }
        let text = super::programs::short_text(argv);
        let mut dirs: Vec<PathBuf> = match &self.cwds {
            Cwds::Known(dirs) => dirs.clone(),
            // Only the user's files (curl's, wget's).
            Cwds::Unknown if tables.iter().all(|t| t.files.is_empty()) => Vec::new(),
            Cwds::Unknown => {
                return self.uncertain(
                    UncertainKind::Host,
                    &text,
                    format!(
                        "the project whose configuration {base} reads depends on an earlier `cd`, and that configuration can name any host"
                    ),
                );
            }
        };
        for d in &named_dirs {
            let resolved = d
                .literal
                .as_deref()
                .map(|l| self.resolve_word_path(l, d.tilde, false));
            match resolved {
                Some(Ok(paths)) => dirs.extend(paths.into_iter().map(|p| p.lexical)),
                _ => {
                    return self.uncertain(
                        UncertainKind::Host,
                        &text,
                        format!(
                            "the project whose configuration {base} reads is named at run time, and that configuration can name any host"
                        ),
                    );
                }
            }
        }
        // Each file, and the directory it is in when that is one of the
        // program's own (`.cargo`), looked for first.
        let in_dir = |d: &Path, f: &str| Candidate {
            gate: f.split_once('/').map(|(first, _)| d.join(first)),
            ..Candidate::of(d.join(f))
        };
        // cargo's commands that fetch only what the cache lacks (`build`,
        // `test`, …) are frequent: for them the directories of the project
        // (from the one the command starts in down), which the session may
        // write, are looked in; those above it and the user's, outside it,
        // for the commands that exist to reach a registry.
        let whole = base != "cargo" || cargo_reaches_registry(argv);
        let mut files: Vec<Candidate> = Vec::new();
        let mut seen_dirs: Vec<&Path> = Vec::new();
        for dir in &dirs {
            for d in dir.ancestors() {
                if seen_dirs.contains(&d) || !(whole || d.starts_with(&self.start)) {
                    break;
                }
                seen_dirs.push(d);
                for t in &tables {
                    files.extend(t.files.iter().map(|f| in_dir(d, f)));
                }
            }
        }
        if let Some(home) = self.home.as_ref().filter(|_| whole) {
            for t in &tables {
                files.extend(t.home.iter().map(|f| in_dir(home, f)));
            }
        }
        self.meet_files(base, &text, &files);
    }

    /// pip's own files: the `pip.conf` of the virtual environment a pip
    /// written as a path belongs to (`.venv/bin/pip` reads `.venv/pip.conf`)
    /// or of the one this session runs in, and the user's.
    fn pip_files(&mut self, argv: &[WordVal]) {
        let mut files: Vec<PathBuf> = Vec::new();
        match argv.first().and_then(|w| w.literal.as_deref()) {
            Some(program) if program.contains('/') => {
                if let Some((prefix, _)) = program.rsplit_once("/bin/")
                    && let Ok(paths) = self.resolve_word_path(
                        if prefix.is_empty() { "/" } else { prefix },
                        argv[0].tilde,
                        false,
                    )
                {
                    files.extend(paths.into_iter().map(|p| p.lexical.join("pip.conf")));
                }
            }
            _ => {
                if let Some(venv) = std::env::var_os("VIRTUAL_ENV") {
                    files.push(PathBuf::from(venv).join("pip.conf"));
                }
            }
        }
        if let Some(home) = &self.home {
            files.push(home.join(".pip/pip.conf"));
            files.push(home.join(".config/pip/pip.conf"));
        }
        let text = super::programs::short_text(argv);
        let mut files: Vec<Candidate> = files.into_iter().map(Candidate::of).collect();
        files.extend(self.pip_inputs(argv, &text));
        self.meet_files("pip", &text, &files);
    }

    /// The files a pip command is given to read: requirements and
    /// constraints (`-r FILE`, `-c FILE`; `-r` inside them followed), and
    /// the `pyproject.toml` and `setup.cfg` of a project directory it
    /// installs (`pip install .`, `-e ../lib`), whose dependencies may be
    /// URLs. A file named at run time is a host known only then.
    fn pip_inputs(&mut self, argv: &[WordVal], text: &str) -> Vec<Candidate> {
        let mut named: Vec<(WordVal, bool)> = Vec::new();
        let mut words = argv.iter().skip(1);
        while let Some(w) = words.next() {
            let Some(l) = w.literal.as_deref() else {
                continue;
            };
            let mut value = |long: &str, short: &str| -> Option<Option<WordVal>> {
                match optparse_long(l, long, 3) {
                    Some(Some(v)) => return Some(Some(WordVal::literal(v))),
                    Some(None) => return Some(words.next().cloned()),
                    None => {}
                }
                if l == short {
                    Some(words.next().cloned())
                } else {
                    l.strip_prefix(short)
                        .filter(|r| !r.is_empty() && !short.is_empty())
                        .map(|v| Some(WordVal::literal(v)))
                }
            };
            if let Some(v) = value("--requirement", "-r").or_else(|| value("--constraint", "-c")) {
                named.extend(v.map(|v| (v, true)));
            } else if let Some(v) = value("--editable", "-e") {
                // An editable requirement is a path (or a VCS URL).
                named.extend(v.map(|v| (v, false)));
            } else if l == "."
                || l.starts_with("./")
                || l.starts_with("../")
                || l.starts_with('/')
                || file_url_path(l).is_some()
            {
                // A plain operand is a directory when written as a path
                // (or a `file:` URL).
                named.push((w.clone(), false));
            }
        }
        // `pip install "$PWD"`: the working directory.
        for w in argv.iter().skip(1) {
            let raw = w.raw.trim_matches('"');
            if w.literal.is_none() && matches!(raw, "$PWD" | "${PWD}") {
                named.push((WordVal::literal("."), false));
            }
        }
        let mut files = Vec::new();
        for (w, requirements) in named {
            let w = match w.literal.as_deref().and_then(file_url_path) {
                Some(path) => WordVal::literal(path),
                None => w,
            };
            let Some(l) = w.literal.as_deref() else {
                self.uncertain(
                    UncertainKind::Host,
                    text,
                    "pip reads a file named at run time, which can name any host",
                );
                continue;
            };
            if l.contains("://") {
                continue;
            }
            let Ok(paths) = self.resolve_word_path(l, w.tilde, false) else {
                self.uncertain(
                    UncertainKind::Host,
                    text,
                    "pip reads a file whose place is not known, which can name any host",
                );
                continue;
            };
            for p in paths {
                if requirements {
                    files.push(Candidate::new(p.lexical, Syntax::Requirements));
                } else {
                    files.push(Candidate::of(p.lexical.join("pyproject.toml")));
                    files.push(Candidate::of(p.lexical.join("setup.cfg")));
                }
            }
        }
        files
    }

    /// Read `files` (each once for the analysis; one in a directory that is
    /// not there is not looked for) and meet the hosts they name; one
    /// written earlier in the same command, or that cannot be read, names a
    /// host known only at run time.
    fn meet_files(&mut self, base: &str, text: &str, files: &[Candidate]) {
        self.meet_files_at(base, text, files, 0);
    }

    fn meet_files_at(&mut self, base: &str, text: &str, files: &[Candidate], depth: usize) {
        let written = self.written_so_far();
        for c in files {
            if written.iter().any(|w| match w {
                None => true,
                Some(p) => c.file.starts_with(p),
            }) || self.relinked.iter().any(|r| c.file.starts_with(r))
            {
                self.uncertain(
                    UncertainKind::Host,
                    text,
                    format!(
                        "{base} reads `{}`, which an earlier part of the command may write, and which can name any host",
                        c.file.display()
                    ),
                );
                return;
            }
        }
        for c in files {
            if let Some(dir) = &c.gate
                && !self.dir_exists(dir)
            {
                continue;
            }
            let named = self.config_file(&c.file, c.syntax);
            for n in named.iter() {
                match n {
                    Named::Host { written, host } => {
                        for host in super::hosts::reached_as(host.clone()) {
                            self.push(Item::Host {
                                written: super::snippet(written),
                                host,
                            });
                        }
                    }
                    Named::Unknown { written, reason } => self.uncertain(
                        UncertainKind::Host,
                        written,
                        format!("{base} reads this configuration, and {reason}"),
                    ),
                    Named::Include(more) if depth < MAX_INCLUDES => {
                        let more = [Candidate::new(more.clone(), c.syntax)];
                        self.meet_files_at(base, text, &more, depth + 1);
                    }
                    Named::Include(more) => self.uncertain(
                        UncertainKind::Host,
                        &more.display().to_string(),
                        format!("{base} reads files that include others too deeply to follow"),
                    ),
                }
            }
        }
    }

    /// Whether `dir` is a directory, looked for once for the analysis.
    fn dir_exists(&mut self, dir: &Path) -> bool {
        if let Some((_, there)) = self.config.dirs.iter().find(|(d, _)| d == dir) {
            return *there;
        }
        let there = !matches!(
            std::fs::metadata(dir),
            Err(e) if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            )
        );
        self.config.dirs.push((dir.to_path_buf(), there));
        there
    }

    /// The hosts a configuration file names, read once for the analysis.
    fn config_file(&mut self, file: &Path, syntax: Syntax) -> Arc<[Named]> {
        if let Some((_, named)) = self.config.files.iter().find(|(f, _)| f == file) {
            return named.clone();
        }
        let named: Arc<[Named]> = match read_file(file) {
            Read::Absent => Arc::from([]),
            Read::Text(text) => hosts_in(&text, file, syntax).into(),
            Read::Unreadable(reason) => Arc::from([Named::Unknown {
                written: file.display().to_string(),
                reason,
            }]),
        };
        self.config.files.push((file.to_path_buf(), named.clone()));
        named
    }

    /// The paths an earlier part of the command writes (None: one whose
    /// name is known only at run time).
    fn written_so_far(&self) -> Vec<Option<PathBuf>> {
        let mut out = Vec::new();
        for item in &self.items {
            match item {
                Item::Edit { path, .. }
                | Item::EditInside { path, .. }
                | Item::Written { path, .. } => {
                    out.push(Some(path.lexical.clone()));
                    if path.canonical != path.lexical {
                        out.push(Some(path.canonical.clone()));
                    }
                }
                Item::Uncertain {
                    kind: UncertainKind::Edit,
                    ..
                } => out.push(None),
                _ => {}
            }
        }
        out
    }

    /// `npm config set KEY VALUE` (`npm set`, `npm config set KEY=VALUE`,
    /// `pnpm`/`yarn config set`), `pip config set KEY VALUE`, `go env -w
    /// KEY=VALUE`, `conda config --set|--add KEY VALUE`, `poetry config
    /// KEY VALUE`: a value written for a key that names a host, or a URL,
    /// is a host reached later; a key that moves the configuration itself
    /// (`userconfig`), or a key or value computed at run time, one known
    /// only then.
    fn config_set(&mut self, base: &str, argv: &[WordVal]) {
        /// Options of these commands that take a value in the next word.
        const WITH_VALUE: &[&str] = &[
            "--location",
            "-L",
            "--userconfig",
            "--globalconfig",
            "--prefix",
            "-C",
            "--dir",
            "--cwd",
            "-w",
            "--workspace",
            "--file",
            "--env",
            "-n",
            "--name",
            "-p",
        ];
        let mut operands: Vec<&WordVal> = Vec::new();
        let mut options: Vec<&str> = Vec::new();
        let mut words = argv.iter().skip(1);
        while let Some(w) = words.next() {
            match w.literal.as_deref() {
                Some(l) if l.starts_with('-') && l.len() > 1 => {
                    options.push(l);
                    // `go env -w K=V`: go's `-w` (and `-u`) take no value.
                    if WITH_VALUE.contains(&l) && !(base == "go" && matches!(l, "-w" | "-u")) {
                        words.next();
                    }
                }
                _ => operands.push(w),
            }
        }
        let lit = |i: usize| operands.get(i).and_then(|w| w.literal.as_deref());
        let pairs: Vec<&WordVal> = match base {
            b if NPM.contains(&b) => match (lit(0), lit(1)) {
                (Some("config" | "c"), Some("set")) => operands[2..].to_vec(),
                (Some("set"), _) if b == "npm" => operands[1..].to_vec(),
                _ => return,
            },
            "pip" | "pip3" | "pipenv" => match (lit(0), lit(1)) {
                (Some("config"), Some("set")) => operands[2..].to_vec(),
                _ => return,
            },
            "poetry" => match lit(0) {
                Some("config") if !options.contains(&"--unset") => operands[1..].to_vec(),
                _ => return,
            },
            "go" => {
                if lit(0) != Some("env") || !options.contains(&"-w") {
                    return;
                }
                operands[1..].to_vec()
            }
            _ => {
                // conda config --set KEY VALUE, --add KEY VALUE …
                if lit(0) != Some("config") {
                    return;
                }
                let mut out = Vec::new();
                for (i, w) in argv.iter().enumerate() {
                    if matches!(
                        w.literal.as_deref(),
                        Some("--set" | "--add" | "--append" | "--prepend")
                    ) {
                        out.extend(argv.get(i + 1..i + 3).unwrap_or_default());
                    }
                }
                if out.is_empty() {
                    return;
                }
                return self.settings(base, argv, &out);
            }
        };
        self.settings(base, argv, &pairs);
    }

    /// `KEY VALUE` or `KEY=VALUE` settings written into a configuration.
    fn settings(&mut self, base: &str, argv: &[WordVal], words: &[&WordVal]) {
        let text = super::programs::short_text(argv);
        let mut i = 0;
        while let Some(w) = words.get(i) {
            let Some(l) = w.literal.as_deref() else {
                return self.uncertain(
                    UncertainKind::Host,
                    &text,
                    format!(
                        "a setting written into {base}'s configuration is computed at run time, and it can name any host"
                    ),
                );
            };
            let (key, value) = match l.split_once('=') {
                Some((k, v)) if !k.is_empty() => {
                    i += 1;
                    (k.to_string(), WordVal::literal(v))
                }
                _ => {
                    i += 2;
                    match words.get(i - 1) {
                        Some(v) => (l.to_string(), (*v).clone()),
                        None => return,
                    }
                }
            };
            let relocates = {
                let k = key.to_ascii_lowercase();
                matches!(
                    k.as_str(),
                    "userconfig" | "globalconfig" | "prefix" | "goenv"
                ) || listed(GIT_VARIABLES, &key)
            };
            if relocates {
                self.uncertain(
                    UncertainKind::Host,
                    &text,
                    format!(
                        "`{key}` moves where {base} finds its configuration, which can name any host"
                    ),
                );
                continue;
            }
            let Some(v) = value.literal.as_deref() else {
                if host_key(&key) || value.raw.contains("://") {
                    self.uncertain(
                        UncertainKind::Host,
                        &text,
                        format!(
                            "the value of `{key}` written into {base}'s configuration is computed at run time"
                        ),
                    );
                }
                continue;
            };
            let named_host = host_key(&key) || v.contains(":/") || v.contains(":\\");
            if !named_host {
                continue;
            }
            for part in v.split([',', ' ', '|']).filter(|p| !p.is_empty()) {
                if let Some(host) = super::hosts::host_of_operand(part) {
                    let written = format!("{key}={part}");
                    for host in super::hosts::reached_as(host) {
                        self.push(Item::Host {
                            written: super::snippet(&written),
                            host,
                        });
                    }
                }
            }
        }
    }

    /// `cargo --config FILE` (a file of settings, not one `KEY=VALUE`, which
    /// is read as the `CARGO_*` variables are).
    fn cargo_config_file(&mut self, argv: &[WordVal]) {
        let mut words = argv.iter().skip(1);
        while let Some(w) = words.next() {
            let value = match w.literal.as_deref() {
                Some("--") => return,
                Some("--config") => words.next().map(|v| v.literal.as_deref()),
                Some(l) => l.strip_prefix("--config=").map(Some),
                None => None,
            };
            if let Some(value) = value
                && value.is_none_or(|v| !v.contains('='))
            {
                let text = super::programs::short_text(argv);
                return self.uncertain(
                    UncertainKind::Host,
                    &text,
                    "cargo --config names a configuration file, which can name any host; the host it reaches is known only at run time",
                );
            }
        }
    }

    /// git's configuration: `-c include.path=F` (and `includeIf.*.path`),
    /// `--config-env`, `--git-dir` (another repository's configuration),
    /// `git config include.path F`, and the proxies of the repository's
    /// configuration (`http.proxy`, `http.<url>.proxy`,
    /// `remote.<name>.proxy`) for a command that talks to a remote.
    fn git_config_hosts(&mut self, argv: &[WordVal]) {
        let args = argv.get(1..).unwrap_or_default();
        let text = super::programs::short_text(argv);
        let mut at = 0;
        let mut reason: Option<&str> = None;
        while let Some(l) = args.get(at).and_then(|w| w.literal.as_deref()) {
            if !l.starts_with('-') {
                break;
            }
            let takes_next = matches!(
                l,
                "-c" | "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env"
            );
            if l == "-c" {
                let pair = args.get(at + 1).map(|w| w.literal.as_deref());
                let included = match pair {
                    Some(Some(pair)) => pair
                        .split_once('=')
                        .is_some_and(|(key, _)| includes_a_file(key)),
                    // A setting computed at run time may be an include.
                    Some(None) => true,
                    None => false,
                };
                if included {
                    reason = Some("git -c include.path names a configuration file");
                }
            } else if l == "--config-env" || l.starts_with("--config-env=") {
                reason = Some("git --config-env takes a setting from a variable");
            } else if l == "--git-dir" || l.starts_with("--git-dir=") {
                reason = Some("git --git-dir reads another repository's configuration");
            }
            at += if takes_next { 2 } else { 1 };
        }
        let sub = args.get(at).and_then(|w| w.literal.as_deref());
        if sub == Some("config") {
            // `git config [--global|--file F] include.path F2`, `git config
            // set include.path F2`: the first word naming a key.
            let mut words = args[at + 1..].iter();
            let mut key: Option<Option<&str>> = None;
            while let Some(w) = words.next() {
                match w.literal.as_deref() {
                    Some("-f" | "--file" | "--blob" | "--type" | "--default" | "--comment") => {
                        words.next();
                    }
                    Some(l) if l.starts_with('-') || !l.contains('.') => {}
                    other => {
                        key = Some(other);
                        break;
                    }
                }
            }
            if key.is_some_and(|k| k.is_none_or(includes_a_file)) {
                reason = Some("git config writes an include of a configuration file");
            }
        }
        if let Some(reason) = reason {
            self.uncertain(
                UncertainKind::Host,
                &text,
                format!("{reason}, which can name any host; the host it reaches is known only at run time"),
            );
        }
        if matches!(
            sub,
            Some(
                "push"
                    | "pull"
                    | "fetch"
                    | "ls-remote"
                    | "remote"
                    | "clone"
                    | "archive"
                    | "submodule"
            )
        ) {
            let proxies = self.config.git_proxies.borrow().clone();
            for proxy in proxies {
                let host = super::hosts::host_of_operand(&proxy);
                if let Some(host) = host {
                    for host in super::hosts::reached_as(host) {
                        self.push(Item::Host {
                            written: super::snippet(&format!("proxy {proxy}")),
                            host,
                        });
                    }
                }
            }
        }
    }
}

/// Whether an npm-family command installs or publishes the project's
/// dependencies (`npm install`, `npm ci`, `npm update`, `yarn`, `pnpm
/// add`, `bun i`, `npm publish`): what its manifest and lock files name is
/// fetched.
fn npm_installs(base: &str, argv: &[WordVal]) -> bool {
    let sub = argv
        .iter()
        .skip(1)
        .filter_map(|w| w.literal.as_deref())
        .find(|l| !l.starts_with('-'));
    match sub {
        // `yarn` alone installs.
        None => matches!(base, "yarn" | "yarnpkg"),
        Some(sub) => matches!(
            sub,
            "install"
                | "i"
                | "in"
                | "ins"
                | "inst"
                | "insta"
                | "instal"
                | "isnt"
                | "isntal"
                | "isntall"
                | "add"
                | "ci"
                | "clean-install"
                | "ic"
                | "install-clean"
                | "isntall-clean"
                | "install-test"
                | "it"
                | "install-ci-test"
                | "cit"
                | "update"
                | "up"
                | "upgrade"
                | "udpate"
                | "dedupe"
                | "ddp"
                | "rebuild"
                | "fetch"
                | "publish"
                | "pack"
                | "exec"
                | "x"
                | "dlx"
        ),
    }
}

/// Whether a cargo command exists to reach a registry (`fetch`, `update`,
/// `install`, `search`, `publish`, `add`, …), rather than building with
/// what the cache holds and fetching only what it lacks.
fn cargo_reaches_registry(argv: &[WordVal]) -> bool {
    const WITH_VALUE: &[&str] = &["-C", "--config", "-Z", "--color"];
    let mut words = argv.iter().skip(1);
    while let Some(w) = words.next() {
        match w.literal.as_deref() {
            Some(l) if WITH_VALUE.contains(&l) => {
                words.next();
            }
            Some(l) if l.starts_with(['-', '+']) => {}
            Some(sub) => {
                return matches!(
                    sub,
                    "fetch"
                        | "update"
                        | "generate-lockfile"
                        | "search"
                        | "install"
                        | "publish"
                        | "add"
                        | "info"
                        | "login"
                        | "logout"
                        | "owner"
                        | "yank"
                        | "vendor"
                        | "package"
                );
            }
            // A subcommand computed at run time may be any of them.
            None => return true,
        }
    }
    false
}

/// Whether a python command line runs pip (`-m pip`, `-mpip`).
fn runs_pip(argv: &[WordVal]) -> bool {
    let mut words = argv.iter().skip(1).filter_map(|w| w.literal.as_deref());
    while let Some(l) = words.next() {
        let module = match l {
            "-m" => words.next(),
            _ => l.strip_prefix("-m").filter(|m| !m.is_empty()),
        };
        if let Some(m) = module {
            return matches!(m, "pip" | "pip3");
        }
        if !l.starts_with('-') {
            return false;
        }
    }
    false
}

/// Whether a git configuration key includes a file (`include.path`,
/// `includeIf.<condition>.path`).
fn includes_a_file(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key == "include.path" || (key.starts_with("includeif.") && key.ends_with(".path"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(text: &str, name: &str) -> Vec<String> {
        let file = Path::new(name);
        let syntax = if name.ends_with(".txt") {
            Syntax::Requirements
        } else {
            syntax_of(file)
        };
        hosts_in(text, file, syntax)
            .into_iter()
            .map(|n| match n {
                Named::Host { host, .. } => host,
                Named::Unknown { .. } => "?".into(),
                Named::Include(f) => format!("+{}", f.display()),
            })
            .collect()
    }

    #[test]
    fn the_hosts_of_npm_and_yarn_files() {
        assert_eq!(
            hosts("registry=http://127.0.0.2:8099/\n", ".npmrc"),
            ["127.0.0.2"]
        );
        assert_eq!(
            hosts("@s:registry = https://r.evil.com/\n", ".npmrc"),
            ["r.evil.com"]
        );
        assert_eq!(hosts("https-proxy=evil.com:3128\n", ".npmrc"), ["evil.com"]);
        assert_eq!(hosts(r"registry=http:\\evil.com/", ".npmrc"), ["evil.com"]);
        // A token's key names a host, its value does not.
        assert!(hosts("//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n", ".npmrc").is_empty());
        assert_eq!(hosts("registry=${REG}\n", ".npmrc"), ["?"]);
        assert!(hosts("# registry=http://evil.com/\nsave-exact=true\n", ".npmrc").is_empty());
        assert_eq!(
            hosts("registry \"http://evil.com/\"\n", ".yarnrc"),
            ["evil.com"]
        );
        assert_eq!(
            hosts(
                "npmScopes:\n  s:\n    npmRegistryServer: \"https://r.evil.com\"\n",
                ".yarnrc.yml"
            ),
            ["r.evil.com"]
        );
        assert_eq!(
            hosts("httpProxy: evil.com:3128\n", ".yarnrc.yml"),
            ["evil.com"]
        );
        assert_eq!(
            hosts(
                "[install]\nregistry = { url = \"https://evil.com/\", token = \"t\" }\n",
                "bunfig.toml"
            ),
            ["evil.com"]
        );
    }

    #[test]
    fn the_hosts_of_cargo_and_pip_files() {
        assert_eq!(
            hosts(
                "[source.m]\nregistry = \"sparse+http://127.0.0.2:8099/\"\n[http]\nproxy = \"evil.com:8099\"\n",
                "config.toml"
            ),
            ["127.0.0.2", "evil.com"]
        );
        assert_eq!(
            hosts(
                "extra-index-url = [\n  \"https://a.evil.com/simple\",\n]\n",
                "uv.toml"
            ),
            ["a.evil.com"]
        );
        assert_eq!(
            hosts("[global]\nindex-url = http://evil.com/simple\n", "pip.conf"),
            ["evil.com"]
        );
        assert!(hosts("[build]\njobs = 2\n", "config.toml").is_empty());
        assert_eq!(
            hosts(
                "--index-url http://evil.com/simple\n-r more.txt\nx @ https://w.evil.com/x.whl\nrequests>=2\n",
                "/p/requirements.txt"
            ),
            ["evil.com", "+/p/more.txt", "w.evil.com"]
        );
        assert_eq!(
            hosts("\u{feff}proxy=evil.com:3128\n", ".npmrc"),
            ["evil.com"]
        );
        assert_eq!(
            hosts(
                "distributionUrl=https\\://evil.com/gradle.zip\nsystemProp.https.proxyHost=p.evil.com\n",
                "gradle-wrapper.properties"
            ),
            ["evil.com", "p.evil.com"]
        );
        assert_eq!(
            hosts(
                "<repository><url>http://evil.com/m2</url></repository>\n",
                "pom.xml"
            ),
            ["evil.com"]
        );
    }

    #[test]
    fn variables_that_move_a_configuration() {
        for name in [
            "CURL_HOME",
            "HOME",
            "WGETRC",
            "PIP_CONFIG_FILE",
            "npm_config_userconfig",
            "NPM_CONFIG_USERCONFIG",
            "GIT_CONFIG_GLOBAL",
            "GIT_CONFIG_KEY_0",
            "CARGO_HOME",
            "KUBECONFIG",
            "HOSTALIASES",
        ] {
            assert!(moves_configuration(name), "{name}");
        }
        for name in [
            "PATH_X",
            "FOO",
            "NODE_ENV",
            "CURL_CA_BUNDLE",
            "SSL_CERT_FILE",
        ] {
            assert!(!moves_configuration(name), "{name}");
        }
    }
}
