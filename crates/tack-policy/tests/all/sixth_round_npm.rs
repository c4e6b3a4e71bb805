//! Sixth red-team round: kubectl's and npm's global options that take a
//! value, npm's command abbreviations and aliases, and the command lines
//! npm runs (`explore PKG -- CMD`, `--call`/`-c` before the subcommand,
//! `--editor`, `--shell`).

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run};

const B: &str = "Bash";
const KUBECTL: &[&str] = &["allow Bash", "deny Bash(kubectl delete *)"];
const PUBLISH: &[&str] = &["allow Bash", "deny Bash(npm publish *)"];
const INSTALL: &[&str] = &["allow Bash", "deny Bash(npm install *)"];
const RUN: &[&str] = &["allow Bash", "deny Bash(npm run deploy *)"];
const RM: &[&str] = &["allow Bash", "deny Bash(rm *)"];

const KUBECTL_GLOBALS: &[Case] = &[
    case(KUBECTL, B, "kubectl --cache-dir /tmp delete pod x", Deny),
    case(
        KUBECTL,
        B,
        "kubectl --server http://127.0.0.1:18443 --cache-dir /tmp/c delete pod x",
        Deny,
    ),
    case(KUBECTL, B, "kubectl --vmodule x=1 delete pod x", Deny),
    case(KUBECTL, B, "kubectl --tls-server-name x delete pod x", Deny),
    case(
        KUBECTL,
        B,
        "kubectl --certificate-authority ca delete pod x",
        Deny,
    ),
    case(
        KUBECTL,
        B,
        "kubectl --client-certificate c delete pod x",
        Deny,
    ),
    case(KUBECTL, B, "kubectl --client-key k delete pod x", Deny),
    case(KUBECTL, B, "kubectl --username u delete pod x", Deny),
    case(KUBECTL, B, "kubectl --password p delete pod x", Deny),
    case(KUBECTL, B, "kubectl --as-uid u delete pod x", Deny),
    case(KUBECTL, B, "kubectl --profile none delete pod x", Deny),
    case(KUBECTL, B, "kubectl --profile-output f delete pod x", Deny),
    case(
        KUBECTL,
        B,
        "kubectl --log-flush-frequency 5s delete pod x",
        Deny,
    ),
    case(KUBECTL, B, "kubectl --log-file f delete pod x", Deny),
    case(KUBECTL, B, "kubectl --stderrthreshold 2 delete pod x", Deny),
    case(KUBECTL, B, "kubectl -n ns delete pod x", Deny),
    // An option tack does not know, then a word: maybe its value.
    case(KUBECTL, B, "kubectl --some-new-flag v delete pod x", Ask),
    // Not delete.
    case(KUBECTL, B, "kubectl --cache-dir /tmp get pods", Allow),
    case(KUBECTL, B, "kubectl --some-new-flag v get pods", Allow),
];

#[test]
fn kubectl_global_options_take_their_value() {
    run(KUBECTL_GLOBALS);
}

const NPM_SPELLINGS: &[Case] = &[
    // Unique prefixes and aliases.
    case(PUBLISH, B, "npm publish", Deny),
    case(PUBLISH, B, "npm pub", Deny),
    case(PUBLISH, B, "npm pu", Deny),
    case(PUBLISH, B, "npm publ", Deny),
    case(PUBLISH, B, "npm publi", Deny),
    case(PUBLISH, B, "npm pub --dry-run", Deny),
    case(INSTALL, B, "npm i x", Deny),
    case(INSTALL, B, "npm add x", Deny),
    case(INSTALL, B, "npm isntall x", Deny),
    case(RUN, B, "npm run-script deploy", Deny),
    case(RUN, B, "npm rum deploy", Deny),
    case(RUN, B, "npm urn deploy", Deny),
    case(RUN, B, "npm run-s deploy", Deny),
    case(RUN, B, "npm run build", Allow),
    case(PUBLISH, B, "npm pack", Allow),
    case(PUBLISH, B, "npm ping", Allow),
    case(PUBLISH, B, "npm unpublish x", Allow),
    // Global options that take a value.
    case(PUBLISH, B, "npm --loglevel silly publish", Deny),
    case(PUBLISH, B, "npm -C . publish", Deny),
    case(PUBLISH, B, "npm --prefix . pub", Deny),
    case(PUBLISH, B, "npm --registry http://r publish", Deny),
    case(PUBLISH, B, "npm --userconfig x publish", Deny),
    case(PUBLISH, B, "npm --globalconfig x publish", Deny),
    case(PUBLISH, B, "npm --cache /tmp/c publish", Deny),
    case(PUBLISH, B, "npm --location project publish", Deny),
    case(PUBLISH, B, "npm --omit dev publish", Deny),
    case(PUBLISH, B, "npm --color false publish", Deny),
    case(PUBLISH, B, "npm --auth-type web publish", Deny),
    case(PUBLISH, B, "npm --before 2020 publish", Deny),
    case(PUBLISH, B, "npm --fetch-retries 1 publish", Deny),
    case(PUBLISH, B, "npm --proxy http://p publish", Deny),
    case(PUBLISH, B, "npm --https-proxy http://p publish", Deny),
    case(PUBLISH, B, "npm --scope @x publish", Deny),
    case(PUBLISH, B, "npm --node-options x publish", Deny),
    case(PUBLISH, B, "npm --init-module x publish", Deny),
    case(PUBLISH, B, "npm -w a publish", Deny),
    case(PUBLISH, B, "npm --workspace a publish", Deny),
    case(INSTALL, B, "npm --loglevel silly install x", Deny),
    case(INSTALL, B, "npm -C . i x", Deny),
    // Which word is the command npm cannot say either: asked.
    case(PUBLISH, B, "npm --@x:registry r publish", Ask),
    case(PUBLISH, B, "npm --frobnicate v publish", Ask),
    case(PUBLISH, B, "npm --frobnicate v pack", Allow),
];

#[test]
fn npm_commands_by_any_name_after_any_global_option() {
    run(NPM_SPELLINGS);
}

const NPM_RUNS: &[Case] = &[
    case(RM, B, "npm explore x -- rm ../../victim1", Deny),
    case(
        &["allow Bash", "deny Bash(git push *)"],
        B,
        "npm explore x -- git push r main",
        Deny,
    ),
    case(
        &["allow Bash", "deny Bash(docker *)"],
        B,
        "npm explore x -- docker run alpine",
        Deny,
    ),
    case(
        &["allow Bash", "deny Bash(sudo *)"],
        B,
        "npm explore x -- sudo ls",
        Deny,
    ),
    case(RM, B, "npm explore x -- ls", Allow),
    case(RM, B, "npm --call 'rm victim2' exec", Deny),
    case(RM, B, "npm --call='rm victim2' exec", Deny),
    case(
        &["allow Bash", "deny Bash(curl *)"],
        B,
        "npm --call 'curl example.com' exec",
        Deny,
    ),
    case(RM, B, "npm -c 'rm victim2' exec", Deny),
    case(RM, B, "npm -c 'rm victim2' x", Deny),
    case(RM, B, "npm -c 'ls' x", Allow),
    case(RM, B, "npm --editor 'rm -rf' edit y", Deny),
    case(RM, B, "npm --editor=rm edit y", Deny),
    case(RM, B, "npm --shell rm explore x", Deny),
    case(RM, B, "npm --browser rm docs x", Deny),
    case(RM, B, "npm --editor \"$E\" edit y", Ask),
    case(RM, B, "npm explore x -- $CMD", Ask),
    case(RM, B, "npm_config_call='rm x' npm exec", Ask),
    case(RM, B, "npm_config_editor=rm npm edit y", Ask),
];

#[test]
fn npm_runs_the_command_lines_it_is_given() {
    run(NPM_RUNS);
}
