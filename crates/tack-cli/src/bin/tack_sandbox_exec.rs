//! `tack-sandbox-exec`: the OS sandbox's helper. tack starts every tool
//! command as `tack-sandbox-exec PLAN program args…`; it applies the plan to
//! itself and execs the program (see `tack_sandbox::helper`).

fn main() {
    tack_sandbox::helper::main()
}
