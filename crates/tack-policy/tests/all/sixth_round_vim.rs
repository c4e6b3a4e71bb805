//! Sixth red-team round, vim and apt/dpkg.
//!
//! - Cause 6: vim reads one-letter options clustered in one word (`-es` is
//!   `-e -s`, `-sc CMD` is `-s -c CMD`, `-c!cmd` is `-c '!cmd'`); a `c` or
//!   `S` ending a cluster takes the next word as an Ex command or a script,
//!   as the separate option does.

use tack_policy::Verdict::{Allow, Ask};

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
