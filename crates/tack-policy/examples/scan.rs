//! Finds command shapes whose check grows fast: every pair of tricky
//! tokens (and a third), repeated 8, 16, 64 and 400 times; any that takes
//! over 5 ms is listed, slowest first. A shape listed here needs a bound in
//! `src/shell/limits.rs`.
//!
//! `cargo run --release -p tack-policy --example scan` (all shapes), or
//! `… --example scan -- 'a[$()'` (one unit, at growing sizes).
#![allow(clippy::unwrap_used, reason = "an example fails loudly")]

use serde_json::json;
use std::time::{Duration, Instant};
use tack_policy::{PolicyBuilder, Request, evaluate};
const NASTY: &[&str] = &[
    "${",
    "}",
    "[",
    "]",
    "$(",
    ")",
    "$((",
    "))",
    "\"",
    "'",
    "x",
    ":-",
    "/",
    "#",
    "%",
    "@",
    "!",
    "`",
    "$[",
    "(",
    " ",
    "<<",
    "<<-",
    "''",
    "EOF\n",
    "\n",
    ";",
    "|",
    "&&",
    "{ ",
    "[[ ",
    "]]",
    "if ",
    "then ",
    "case ",
    " in ",
    "esac",
    "-c ",
    "bash ",
    "--upload-pack=",
    "<(",
    ">(",
    "=",
    "a[",
    "\\",
    "${x:-",
    "$'",
    "<<<",
    ">",
    "&",
];
fn main() {
    let policy = PolicyBuilder::new("/w/project")
        .home(Some("/w/home".into()))
        .allow("Bash(ls *)")
        .allow("Bash(echo *)")
        .allow("Bash(git *)")
        .deny("Bash(rm *)")
        .deny("Edit(./secrets/**)")
        .lexical_only()
        .build()
        .unwrap();
    let time = |c: &str| {
        let t = Instant::now();
        let req = Request::lexical(
            "Bash",
            &json!({"command": c}),
            "/w/project".as_ref(),
            &policy,
        );
        let _ = evaluate(&req, &policy);
        t.elapsed()
    };
    if let Some(unit) = std::env::args().nth(1) {
        for n in [8usize, 12, 16, 20, 24, 28, 32, 40, 64] {
            println!("{unit:?} x{n}: {:?}", time(&unit.repeat(n)));
        }
        return;
    }
    let mut worst: Vec<(Duration, String)> = Vec::new();
    for a in NASTY {
        for b in NASTY {
            for c in ["", " ", "x", "<<", ")"] {
                let unit = format!("{a}{b}{c}");
                for n in [8usize, 16, 64, 400] {
                    let d = time(&unit.repeat(n));
                    if d > Duration::from_millis(5) {
                        worst.push((d, format!("{unit:?} x{n}")));
                        break;
                    }
                }
            }
        }
    }
    worst.sort();
    worst.reverse();
    for (d, s) in worst.iter().take(25) {
        println!("{d:?} {s}");
    }
    println!("{} slow shapes", worst.len());
}
