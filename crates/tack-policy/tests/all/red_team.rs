//! The classes of holes a red team found, one section per class: each row
//! is a variant of the class, not only the reported example.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run};

const B: &str = "Bash";

// F3: a function named like a program. Only a bare call reaches the
// function; a wrapper or `command`/`exec`/`builtin` runs the program,
// and when definitions may have changed, every call is the program.

const LS: &[&str] = &[
    "allow Bash(ls *)",
    "allow Bash(echo *)",
    "allow Bash(unset *)",
    "allow Bash(trap *)",
    "allow Bash(source *)",
    "allow Bash(find *)",
    "deny Bash(rm *)",
];

const FUNCTIONS: &[Case] = &[
    case(LS, B, "touch(){ ls; }; touch x", Allow),
    case(LS, B, "touch(){ ls; }; \\touch x", Allow),
    case(LS, B, "touch(){ ls; }; time touch x", Allow),
    case(LS, B, "touch(){ ls; }; ! touch x && touch y", Allow),
    case(LS, B, "command(){ ls; }; command touch x", Allow),
    case(LS, B, "touch(){ ls; }; command touch x", Ask),
    case(LS, B, "touch(){ ls; }; command -p touch x", Ask),
    case(LS, B, "touch(){ ls; }; exec touch x", Ask),
    case(LS, B, "touch(){ ls; }; exec -a t touch x", Ask),
    case(LS, B, "touch(){ ls; }; builtin touch x", Ask),
    case(LS, B, "touch(){ ls; }; env touch x", Ask),
    case(LS, B, "touch(){ ls; }; env -i A=1 touch x", Ask),
    case(LS, B, "touch(){ ls; }; nice -n 5 touch x", Ask),
    case(LS, B, "touch(){ ls; }; timeout 5 touch x", Ask),
    case(LS, B, "touch(){ ls; }; nohup touch x", Ask),
    case(LS, B, "touch(){ ls; }; stdbuf -o0 touch x", Ask),
    case(LS, B, "touch(){ ls; }; echo a | xargs touch", Ask),
    case(LS, B, "touch(){ ls; }; find . -exec touch {} +", Ask),
    case(LS, B, "touch(){ ls; }; sudo touch x", Ask),
    case(LS, B, "touch(){ ls; }; /usr/bin/touch x", Ask),
    case(LS, B, "rm(){ ls; }; command rm x", Deny),
    case(LS, B, "rm(){ ls; }; env rm x", Deny),
    case(&["allow Bash"], B, "touch(){ ls; }; command touch x", Allow),
    // Defined after the call, or where it is not visible afterwards.
    case(LS, B, "touch x; touch(){ ls; }", Ask),
    case(LS, B, "(touch(){ ls; }); touch x", Ask),
    case(LS, B, "if true; then touch(){ ls; }; fi; touch x", Ask),
    case(LS, B, "touch(){ ls; } | ls; touch x", Ask),
    case(LS, B, "f(){ touch(){ ls; }; }; f; touch x", Ask),
    // Removed again, where order alone does not tell.
    case(LS, B, "touch(){ ls; }; unset -f touch; touch x", Ask),
    case(LS, B, "touch(){ ls; }; unset touch; touch x", Ask),
    case(
        LS,
        B,
        "touch(){ ls; }; for i in 1 2; do touch x; unset -f touch; done",
        Ask,
    ),
    case(
        LS,
        B,
        "touch(){ ls; }; while true; do touch x; unset -f touch; done",
        Ask,
    ),
    case(LS, B, "touch(){ ls; }; eval 'unset -f touch'; touch x", Ask),
    case(
        LS,
        B,
        "f(){ unset -f touch; }; touch(){ ls; }; f; touch x",
        Ask,
    ),
    case(
        LS,
        B,
        "touch(){ ls; }; trap 'unset -f touch' DEBUG; touch x",
        Ask,
    ),
    case(LS, B, "touch(){ ls; }; source ./lib.sh; touch x", Ask),
    case(LS, B, "touch(){ ls; }; . ./lib.sh; touch x", Ask),
    // POSIX mode finds special builtins before functions.
    case(LS, B, "exec(){ ls; }; exec touch x", Ask),
    case(LS, B, "eval(){ ls; }; eval touch x", Ask),
    case(LS, B, "trap(){ ls; }; trap 'touch x' EXIT", Ask),
];

#[test]
fn functions_named_like_programs() {
    run(FUNCTIONS);
}

/// The number of table rows in this module.
pub const COUNT: usize = FUNCTIONS.len();
