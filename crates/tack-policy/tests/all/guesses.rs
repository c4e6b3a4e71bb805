//! S31: a program tack does not know that runs the command it is given.
//! `devbox run touch x`, `tsp touch x`, `xonsh -c 'touch x'`, `julia -e
//! 'run(`touch x`)'`, `cvs -e 'touch x' commit`, `lxc exec c -- touch x`,
//! `cmd /c touch x`, … were allowed beside `allow Bash(devbox run *)` (or
//! the like) and `deny Bash(touch *)`: tack reads the runners it knows
//! (`mise exec`, `docker exec`, `nice`, …) and no others. Now a program it
//! does not know has its words guessed as commands; a deny or ask rule that
//! matches one is asked (refused in dontAsk).

use tack_protocol::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run};

const B: &str = "Bash";

macro_rules! runs {
    ($rule:literal, $cmd:literal) => {
        case(&[$rule, "deny Bash(touch *)"], B, $cmd, Ask)
    };
}

const ROWS: &[Case] = &[
    runs!("allow Bash(devbox run *)", "devbox run touch x"),
    runs!("allow Bash(devbox run *)", "devbox run bash -c 'touch x'"),
    runs!("allow Bash(toybox *)", "toybox touch x"),
    runs!(
        "allow Bash(ansible *)",
        "ansible localhost -m shell -a 'touch x'"
    ),
    runs!("allow Bash(julia *)", "julia -e 'run(`touch x`)'"),
    runs!("allow Bash(xonsh *)", "xonsh -c 'touch x'"),
    runs!("allow Bash(nu *)", "nu -c 'touch x'"),
    runs!("allow Bash(tcsh *)", "tcsh -c 'touch x'"),
    runs!("allow Bash(cvs *)", "cvs -e 'touch x' commit"),
    runs!("allow Bash(svn *)", "svn --editor-cmd 'touch x' commit"),
    runs!("allow Bash(lxc *)", "lxc exec c -- touch x"),
    runs!("allow Bash(ssh-agent *)", "ssh-agent touch x"),
    runs!("allow Bash(tsp *)", "tsp touch x"),
    runs!("allow Bash(pueue *)", "pueue add touch x"),
    runs!("allow Bash(faketime *)", "faketime '2020-01-01' touch x"),
    runs!("allow Bash(chpst *)", "chpst -u u touch x"),
    runs!("allow Bash(capsh *)", "capsh -- -c 'touch x'"),
    runs!("allow Bash(cmd *)", "cmd /c touch x"),
    runs!("allow Bash(mytool *)", "mytool --exec='touch x'"),
    case(
        &["mode dontAsk", "allow Bash(tsp *)", "deny Bash(touch *)"],
        B,
        "tsp touch x",
        Deny,
    ),
    case(
        &["allow Bash(tsp *)", "ask Bash(git push *)"],
        B,
        "tsp git push origin main",
        Ask,
    ),
    // No rule matches a guess: the program's own rule decides.
    case(
        &["allow Bash(tsp *)", "deny Bash(touch *)"],
        B,
        "tsp make",
        Allow,
    ),
    case(
        &["allow Bash", "deny Bash(touch *)"],
        B,
        "make build",
        Allow,
    ),
    case(
        &["allow Bash", "deny Bash(touch *)"],
        B,
        "gh issue create --title \"touch up docs\"",
        Allow,
    ),
    case(
        &["allow Bash", "deny Bash(touch *)"],
        B,
        "curl -d 'touch x' http://localhost:1",
        Allow,
    ),
    case(&["deny Bash(touch *)"], B, "tsp touch x", Ask),
];

#[test]
fn s31_words_a_program_tack_does_not_know_may_run_meet_deny_and_ask_rules() {
    run(ROWS);
}
