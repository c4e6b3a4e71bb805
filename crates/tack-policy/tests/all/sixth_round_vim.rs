//! Sixth red-team round, vim and apt/dpkg.
//!
//! - Cause 6: vim reads one-letter options clustered in one word (`-es` is
//!   `-e -s`, `-sc CMD` is `-s -c CMD`, `-c!cmd` is `-c '!cmd'`); a `c` or
//!   `S` ending a cluster takes the next word as an Ex command or a script,
//!   as the separate option does.
//! - Cause 7: apt and dpkg run shell commands given in their options
//!   (`-o APT::Update::Pre-Invoke::=CMD`, `-o DPkg::Post-Invoke::=CMD`,
//!   `dpkg --pre-invoke=CMD`): each is a command line tack analyses; a
//!   configuration file (`apt-get -c FILE`) may hold such hooks.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run};

const B: &str = "Bash";
const RM: &[&str] = &["allow Bash", "deny Bash(rm *)"];

const VIM_CLUSTERS: &[Case] = &[
    // The separate options, as before.
    case(RM, B, "ex -c '!rm x' a.txt", Ask),
    case(RM, B, "vim -S x.vim a.txt", Ask),
    // In a cluster.
    case(RM, B, "ex -sc '!rm victimD' -cq a.txt", Ask),
    case(RM, B, "vim -Nc '!rm x' a.txt", Ask),
    case(RM, B, "vim -esc '!rm x' a.txt", Ask),
    case(RM, B, "vi -sc '!rm x' a.txt", Ask),
    case(RM, B, "ex -Rc '!rm x' a.txt", Ask),
    case(RM, B, "vim -nc '!rm x' a.txt", Ask),
    case(RM, B, "vim -Ec '!rm x' -cq a.txt", Ask),
    case(RM, B, "view -sc '!rm x' a.txt", Ask),
    case(RM, B, "view -Rc '!rm x' a.txt", Ask),
    case(RM, B, "vi -ec '!rm x' a.txt", Ask),
    case(RM, B, "nvim -Nc '!rm x' a.txt", Ask),
    case(RM, B, "evim -nc '!rm x' a.txt", Ask),
    case(RM, B, "rvim -Nc '!rm x' a.txt", Ask),
    case(RM, B, "gvim -fc '!rm x' a.txt", Ask),
    case(RM, B, "vim -esS x.vim a.txt", Ask),
    case(RM, B, "vim -NS x.vim a.txt", Ask),
    // `-c` with its command in the same word.
    case(RM, B, "vim '-c!rm x' a.txt", Ask),
    case(RM, B, "vim -Nc'!rm x' a.txt", Ask),
    // `-r` takes no value: the `-c` after it is read.
    case(RM, B, "vim -r -c '!rm x' a.txt", Ask),
    // Plain clusters stay plain.
    case(RM, B, "ex -sc wq a.txt", Allow),
    case(RM, B, "vim -Nc 'set nu' a.txt", Allow),
    case(RM, B, "vim -esc '%s/a/b/g' -cwq a.txt", Allow),
    case(RM, B, "vim -nR a.txt", Allow),
    case(RM, B, "vim -o2 a.txt b.txt", Allow),
];

#[test]
fn vims_c_and_s_end_a_cluster_of_one_letter_options() {
    run(VIM_CLUSTERS);
}

const APT_HOOKS: &[Case] = &[
    case(
        RM,
        B,
        "apt-get -o APT::Update::Pre-Invoke::='rm victimA' update",
        Deny,
    ),
    case(
        RM,
        B,
        "apt -o APT::Update::Pre-Invoke::='rm x' update",
        Deny,
    ),
    case(
        RM,
        B,
        "apt-get -oAPT::Update::Post-Invoke::='rm x' update",
        Deny,
    ),
    case(
        RM,
        B,
        "apt-get --option=APT::Update::Pre-Invoke::='rm x' update",
        Deny,
    ),
    case(
        RM,
        B,
        "apt-get --option APT::Update::Pre-Invoke::='rm x' update",
        Deny,
    ),
    case(
        RM,
        B,
        "apt-get -qq -o APT::Update::Pre-Invoke::='rm x' update",
        Deny,
    ),
    case(
        RM,
        B,
        "apt-get -qqo APT::Update::Pre-Invoke::='rm x' update",
        Deny,
    ),
    case(
        RM,
        B,
        "apt-get -o APT::Update::Post-Invoke-Success::='rm x' update",
        Deny,
    ),
    case(
        RM,
        B,
        "apt-get -o Dpkg::Pre-Invoke::='rm x' install -y hello",
        Deny,
    ),
    case(
        RM,
        B,
        "apt-get -o Dpkg::Pre-Install-Pkgs::='rm x' install -y hello",
        Deny,
    ),
    case(
        RM,
        B,
        "apt-get -o Acquire::Retries=3 -o DPkg::Post-Invoke::='rm x' install x",
        Deny,
    ),
    case(
        RM,
        B,
        "aptitude -o DPkg::Post-Invoke::='rm x' install x",
        Deny,
    ),
    case(
        RM,
        B,
        "apt-cache -o APT::Update::Pre-Invoke::='rm x' policy",
        Deny,
    ),
    case(
        RM,
        B,
        "apt-get -o DPkg::Options::=--pre-invoke='rm x' install x",
        Deny,
    ),
    case(
        RM,
        B,
        "apt-get -o Dir::Bin::dpkg=/usr/bin/rm install x",
        Deny,
    ),
    case(RM, B, "apt-get -c ./apt.conf update", Ask),
    case(RM, B, "apt-get --config-file=./apt.conf update", Ask),
    case(RM, B, "apt-get -o Dir::Etc::Parts=./conf.d update", Ask),
    case(RM, B, "apt-get -o \"$ITEM\" update", Ask),
    case(RM, B, "dpkg --pre-invoke='rm victimC' --configure -a", Deny),
    case(RM, B, "dpkg --post-invoke='rm x' -r hello", Deny),
    case(RM, B, "dpkg --status-logger='rm x' --configure -a", Deny),
    case(RM, B, "dpkg --pre-invoke 'rm x' --configure -a", Deny),
    // Plain calls stay plain.
    case(RM, B, "apt-get update", Allow),
    case(
        RM,
        B,
        "apt-get -y -o Dpkg::Options::=--force-confold install hello",
        Allow,
    ),
    case(RM, B, "apt-get -o Acquire::Retries=3 update", Allow),
    case(RM, B, "apt-cache policy hello", Allow),
    case(RM, B, "dpkg -l hello", Allow),
    case(RM, B, "dpkg --pre-invoke='echo hi' --configure -a", Allow),
];

#[test]
fn apt_and_dpkg_hooks_are_command_lines() {
    run(APT_HOOKS);
}
