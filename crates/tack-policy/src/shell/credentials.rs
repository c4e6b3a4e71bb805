//! Programs that print a credential file they find by themselves: `git
//! credential fill` prints what `~/.git-credentials` holds, `kubectl config
//! view --raw` the token of `~/.kube/config`, `aws configure get
//! aws_secret_access_key` a line of `~/.aws/credentials`. The command names
//! no file, yet it is a read of that file: each is checked as one, so
//! `deny Read(~/.aws/**)` refuses `aws configure get …` as it refuses `cat
//! ~/.aws/credentials`, whatever allows the command. [`PRINTERS`] is the
//! one table of them.
//!
//! A file is written `~/…` (the home directory), or `${VAR:-default}/…`:
//! the default, and also where the variable puts it when tack's environment
//! sets it (a list split at `:` for `$KUBECONFIG`). A variable of the entry
//! set by the command itself (`KUBECONFIG=x kubectl config view --raw`,
//! `HOME=. aws configure get …`) makes the file known only at run time.

use super::{Analyzer, Family, UncertainKind, WordVal};

/// A program (with a subcommand and options) that prints a file it finds.
struct Printer {
    /// Its names; one ending in `*` stands for every name it starts.
    programs: &'static [&'static str],
    /// Words that follow it, in this order, among its words (options and
    /// their values may stand between): its subcommand.
    words: &'static [&'static str],
    /// Options of which one must be given (none: any form prints).
    given: &'static [&'static str],
    /// The files it prints (a directory: what is under it).
    files: &'static [&'static str],
    /// Options that name the file instead (`--kubeconfig F`, `ssh -F F`):
    /// given, the value is the file read and the others are not.
    instead: &'static [&'static str],
    /// Variables that move the files (see the module's documentation).
    variables: &'static [&'static str],
}

const GIT_CREDENTIALS: &[&str] = &[
    "~/.git-credentials",
    "${XDG_CONFIG_HOME:-~/.config}/git/credentials",
];
const AWS: &[&str] = &[
    "${AWS_SHARED_CREDENTIALS_FILE:-~/.aws/credentials}",
    "${AWS_CONFIG_FILE:-~/.aws/config}",
];
const AWS_VARIABLES: &[&str] = &["AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "HOME"];
const GH: &[&str] = &[
    "${GH_CONFIG_DIR:-~/.config/gh}/hosts.yml",
    "${XDG_CONFIG_HOME:-~/.config}/gh/hosts.yml",
];
const GH_VARIABLES: &[&str] = &["GH_CONFIG_DIR", "XDG_CONFIG_HOME", "HOME"];
const GLAB: &[&str] = &["${GLAB_CONFIG_DIR:-~/.config/glab-cli}/config.yml"];
const GCLOUD: &[&str] = &["${CLOUDSDK_CONFIG:-~/.config/gcloud}"];
const KEYRINGS: &[&str] = &["${XDG_DATA_HOME:-~/.local/share}/keyrings"];
const PASSWORD_STORE: &[&str] = &["${PASSWORD_STORE_DIR:-~/.password-store}"];
const MC: &[&str] = &["${MC_CONFIG_DIR:-~/.mc}/config.json"];

/// Every program known to print a credential file it finds itself.
const PRINTERS: &[Printer] = &[
    Printer {
        programs: &["git"],
        words: &["credential", "fill"],
        given: &[],
        files: GIT_CREDENTIALS,
        instead: &[],
        variables: &["HOME", "XDG_CONFIG_HOME"],
    },
    Printer {
        programs: &["git"],
        words: &["credential-store", "get"],
        given: &[],
        files: GIT_CREDENTIALS,
        instead: &["--file"],
        variables: &["HOME", "XDG_CONFIG_HOME"],
    },
    Printer {
        programs: &["git"],
        words: &["credential-netrc", "get"],
        given: &[],
        files: &["~/.netrc", "~/.netrc.gpg", "~/.authinfo", "~/.authinfo.gpg"],
        instead: &["--file", "-f"],
        variables: &["HOME"],
    },
    Printer {
        programs: &["git"],
        words: &["credential-libsecret", "get"],
        given: &[],
        files: KEYRINGS,
        instead: &[],
        variables: &["HOME", "XDG_DATA_HOME"],
    },
    Printer {
        programs: &["kubectl", "oc"],
        words: &["config", "view"],
        given: &["--raw"],
        files: &["${KUBECONFIG:-~/.kube/config}"],
        instead: &["--kubeconfig"],
        variables: &["KUBECONFIG", "HOME"],
    },
    Printer {
        programs: &["aws"],
        words: &["configure", "get"],
        given: &[],
        files: AWS,
        instead: &[],
        variables: AWS_VARIABLES,
    },
    Printer {
        programs: &["aws"],
        words: &["configure", "export-credentials"],
        given: &[],
        files: AWS,
        instead: &[],
        variables: AWS_VARIABLES,
    },
    Printer {
        programs: &["gh"],
        words: &["auth", "token"],
        given: &[],
        files: GH,
        instead: &[],
        variables: GH_VARIABLES,
    },
    Printer {
        programs: &["gh"],
        words: &["auth", "status"],
        given: &["-t", "--show-token"],
        files: GH,
        instead: &[],
        variables: GH_VARIABLES,
    },
    Printer {
        programs: &["glab"],
        words: &["auth", "status"],
        given: &["-t", "--show-token"],
        files: GLAB,
        instead: &[],
        variables: &["GLAB_CONFIG_DIR", "HOME"],
    },
    Printer {
        programs: &["glab"],
        words: &["config", "get"],
        given: &[],
        files: GLAB,
        instead: &[],
        variables: &["GLAB_CONFIG_DIR", "HOME"],
    },
    // The configuration ssh would use for a host, as read from its files.
    Printer {
        programs: &["ssh"],
        words: &[],
        given: &["-G"],
        files: &["~/.ssh/config", "/etc/ssh/ssh_config"],
        instead: &["-F"],
        variables: &[],
    },
    Printer {
        programs: &["gcloud"],
        words: &["auth", "print-access-token"],
        given: &[],
        files: GCLOUD,
        instead: &[],
        variables: &["CLOUDSDK_CONFIG", "HOME"],
    },
    Printer {
        programs: &["gcloud"],
        words: &["auth", "print-identity-token"],
        given: &[],
        files: GCLOUD,
        instead: &[],
        variables: &["CLOUDSDK_CONFIG", "HOME"],
    },
    Printer {
        programs: &["gcloud"],
        words: &["config", "config-helper"],
        given: &[],
        files: GCLOUD,
        instead: &[],
        variables: &["CLOUDSDK_CONFIG", "HOME"],
    },
    Printer {
        programs: &["az"],
        words: &["account", "get-access-token"],
        given: &[],
        files: &["${AZURE_CONFIG_DIR:-~/.azure}"],
        instead: &[],
        variables: &["AZURE_CONFIG_DIR", "HOME"],
    },
    Printer {
        programs: &["heroku"],
        words: &["auth:token"],
        given: &[],
        files: &["${NETRC:-~/.netrc}"],
        instead: &[],
        variables: &["NETRC", "HOME"],
    },
    Printer {
        programs: &["vault"],
        words: &["print", "token"],
        given: &[],
        files: &["~/.vault-token"],
        instead: &[],
        variables: &["HOME"],
    },
    Printer {
        programs: &["fly", "flyctl"],
        words: &["auth", "token"],
        given: &[],
        files: &["~/.fly/config.yml"],
        instead: &[],
        variables: &["FLY_CONFIG_DIR", "HOME"],
    },
    Printer {
        programs: &["cf"],
        words: &["oauth-token"],
        given: &[],
        files: &["${CF_HOME:-~}/.cf/config.json"],
        instead: &[],
        variables: &["CF_HOME", "HOME"],
    },
    Printer {
        programs: &["npm"],
        words: &["token", "list"],
        given: &[],
        files: &["${NPM_CONFIG_USERCONFIG:-~/.npmrc}"],
        instead: &["--userconfig"],
        variables: &["NPM_CONFIG_USERCONFIG", "HOME"],
    },
    Printer {
        programs: &["rclone"],
        words: &["config", "show"],
        given: &[],
        files: &["${RCLONE_CONFIG:-~/.config/rclone/rclone.conf}"],
        instead: &["--config"],
        variables: &["RCLONE_CONFIG", "XDG_CONFIG_HOME", "HOME"],
    },
    Printer {
        programs: &["rclone"],
        words: &["config", "dump"],
        given: &[],
        files: &["${RCLONE_CONFIG:-~/.config/rclone/rclone.conf}"],
        instead: &["--config"],
        variables: &["RCLONE_CONFIG", "XDG_CONFIG_HOME", "HOME"],
    },
    Printer {
        programs: &["s3cmd"],
        words: &[],
        given: &["--dump-config"],
        files: &["~/.s3cfg"],
        instead: &["-c", "--config"],
        variables: &["HOME"],
    },
    Printer {
        programs: &["mc", "mcli"],
        words: &["alias", "list"],
        given: &[],
        files: MC,
        instead: &["--config-dir", "-C"],
        variables: &["MC_CONFIG_DIR", "HOME"],
    },
    Printer {
        programs: &["mc", "mcli"],
        words: &["alias", "ls"],
        given: &[],
        files: MC,
        instead: &["--config-dir", "-C"],
        variables: &["MC_CONFIG_DIR", "HOME"],
    },
    // Docker's credential helpers print the secret of the server on stdin.
    Printer {
        programs: &["docker-credential-pass"],
        words: &["get"],
        given: &[],
        files: PASSWORD_STORE,
        instead: &[],
        variables: &["PASSWORD_STORE_DIR", "HOME"],
    },
    Printer {
        programs: &["docker-credential-secretservice"],
        words: &["get"],
        given: &[],
        files: KEYRINGS,
        instead: &[],
        variables: &["XDG_DATA_HOME", "HOME"],
    },
    Printer {
        programs: &["docker-credential-osxkeychain", "docker-credential-desktop"],
        words: &["get"],
        given: &[],
        files: &[
            "~/Library/Keychains",
            "${XDG_DATA_HOME:-~/.local/share}/keyrings",
        ],
        instead: &[],
        variables: &["HOME"],
    },
    Printer {
        programs: &["docker-credential-ecr-login"],
        words: &["get"],
        given: &[],
        files: AWS,
        instead: &[],
        variables: AWS_VARIABLES,
    },
    Printer {
        programs: &["docker-credential-gcloud", "docker-credential-gcr"],
        words: &["get"],
        given: &[],
        files: GCLOUD,
        instead: &[],
        variables: &["CLOUDSDK_CONFIG", "HOME"],
    },
    // `pass NAME`, `pass show NAME`: the decrypted entry.
    Printer {
        programs: &["pass", "gopass"],
        words: &[],
        given: &[],
        files: PASSWORD_STORE,
        instead: &[],
        variables: &["PASSWORD_STORE_DIR", "HOME"],
    },
    Printer {
        programs: &["secret-tool"],
        words: &["lookup"],
        given: &[],
        files: KEYRINGS,
        instead: &[],
        variables: &["XDG_DATA_HOME", "HOME"],
    },
    Printer {
        programs: &["security"],
        words: &["find-generic-password"],
        given: &["-w", "-g"],
        files: &["~/Library/Keychains"],
        instead: &[],
        variables: &["HOME"],
    },
    Printer {
        programs: &["security"],
        words: &["find-internet-password"],
        given: &["-w", "-g"],
        files: &["~/Library/Keychains"],
        instead: &[],
        variables: &["HOME"],
    },
    Printer {
        programs: &["gpg", "gpg2"],
        words: &[],
        given: &["--export-secret-keys", "--export-secret-subkeys"],
        files: &["${GNUPGHOME:-~/.gnupg}"],
        instead: &["--homedir"],
        variables: &["GNUPGHOME", "HOME"],
    },
];

/// Whether any entry is for `base` (cheap: most commands are none).
fn printers_of(base: &str) -> impl Iterator<Item = &'static Printer> + '_ {
    PRINTERS.iter().filter(move |p| {
        p.programs.iter().any(|n| match n.strip_suffix('*') {
            Some(prefix) => base.starts_with(prefix),
            None => *n == base,
        })
    })
}

/// Every variable some entry moves its files with (kept when a command
/// sets it, see `config_files`).
pub(super) fn moves_credentials(name: &str) -> bool {
    PRINTERS.iter().any(|p| p.variables.contains(&name))
}

/// Whether `word` is the option `opt`: itself, `--opt=value`, a
/// long-enough prefix of a long one (`--export-secret-key`), or a short one
/// in a cluster of short options (`-vG`).
fn is_option(word: &str, opt: &str) -> bool {
    if word == opt {
        return true;
    }
    if let Some(long) = opt.strip_prefix("--") {
        let Some(written) = word.strip_prefix("--") else {
            return false;
        };
        return match written.split_once('=') {
            Some((name, value)) => name == long && !matches!(value, "false" | "0"),
            None => written.len() >= 6 && long.starts_with(written),
        };
    }
    let Some(letter) = opt.strip_prefix('-').and_then(|l| l.chars().next()) else {
        return false;
    };
    word.starts_with('-')
        && !word.starts_with("--")
        && word.len() > 2
        && word[1..].chars().all(|c| c.is_ascii_alphanumeric())
        && word[1..].contains(letter)
}

impl Analyzer {
    /// A program of [`PRINTERS`]: the files it prints, read.
    pub(super) fn credential_reads(&mut self, base: &str, argv: &[WordVal]) {
        if !self.touches {
            return;
        }
        let mut printers = printers_of(base).peekable();
        if printers.peek().is_none() {
            return;
        }
        let words: Vec<&str> = argv[1..]
            .iter()
            .filter_map(|w| w.literal.as_deref())
            .collect();
        let operands: Vec<&str> = words
            .iter()
            .copied()
            .filter(|w| !w.starts_with('-'))
            .collect();
        for p in printers {
            // The subcommand's words, in order.
            let mut rest = operands.iter();
            if !p.words.iter().all(|w| rest.any(|o| o == w)) {
                continue;
            }
            if !p.given.is_empty()
                && !words
                    .iter()
                    .take_while(|w| **w != "--")
                    .any(|w| p.given.iter().any(|g| is_option(w, g)))
            {
                continue;
            }
            let text = super::programs::short_text(argv);
            if let Some(name) = p.variables.iter().find(|v| self.credential_variable_set(v)) {
                self.uncertain(
                    UncertainKind::Touch(Family::Read),
                    &text,
                    format!(
                        "`{name}` moves the credential file {base} prints, which is known only at run time"
                    ),
                );
                continue;
            }
            // `--kubeconfig F`, `ssh -F F`: that file instead.
            let mut instead: Vec<WordVal> = Vec::new();
            for (k, w) in argv.iter().enumerate().skip(1) {
                let Some(l) = w.literal.as_deref() else {
                    continue;
                };
                for opt in p.instead {
                    if l == *opt {
                        instead.extend(argv.get(k + 1).cloned());
                    } else if let Some(v) = l
                        .strip_prefix(opt)
                        .and_then(|r| r.strip_prefix('=').or((opt.len() == 2).then_some(r)))
                        .filter(|v| !v.is_empty())
                    {
                        instead.push(WordVal {
                            tilde: v.starts_with('~'),
                            ..WordVal::literal(v)
                        });
                    }
                }
            }
            if !instead.is_empty() {
                for f in &instead {
                    self.touch_inside(f);
                }
                continue;
            }
            for file in p.files {
                for path in self.credential_paths(file) {
                    self.touch_inside(&WordVal {
                        tilde: path.starts_with('~'),
                        ..WordVal::literal(&path)
                    });
                }
            }
        }
    }

    /// Whether the command sets `name` (a prefix assignment, `export`).
    fn credential_variable_set(&self, name: &str) -> bool {
        self.config_moved(name)
    }

    /// The paths a file of the table stands for: its default, and where
    /// tack's environment puts it.
    fn credential_paths(&self, file: &str) -> Vec<String> {
        let Some(rest) = file.strip_prefix("${") else {
            return vec![file.to_string()];
        };
        let Some((inner, suffix)) = rest.split_once('}') else {
            return vec![file.to_string()];
        };
        let (var, default) = inner.split_once(":-").unwrap_or((inner, ""));
        let mut out = vec![format!("{default}{suffix}")];
        if let Some(value) = std::env::var_os(var) {
            let value = value.to_string_lossy();
            let parts: Vec<&str> = if var == "KUBECONFIG" {
                value.split(':').collect()
            } else {
                vec![&value]
            };
            for part in parts.into_iter().filter(|p| !p.is_empty()) {
                let path = format!("{part}{suffix}");
                if !out.contains(&path) {
                    out.push(path);
                }
            }
        }
        out
    }
}
