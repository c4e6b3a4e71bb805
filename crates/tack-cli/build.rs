//! How the release `tack` binary is laid out when it is linked, for start-up
//! (BENCHMARKS.md, "Start-up: code layout and relocations"):
//!
//! - `--symbol-ordering-file=symbol-order.txt`: the functions start-up and a
//!   short run execute (written by `scripts/symbol-order`) go together at the
//!   front of the code, so the kernel maps a few windows of the binary, not
//!   ~230 spread over 36 MB. Names the linker does not find are skipped.
//! - `-z pack-relative-relocs`: the loader reads 25 KB of relocations, not 2 MB.
//!
//! Both only where a probe shows they work: a release build for Linux with
//! glibc, a linker that takes the flags (lld, rustc's default on x86-64 Linux
//! since 1.90, or mold), and, for the second, a glibc that runs the result
//! (2.36 or newer). Anything else links as before. `TACK_LINK_LAYOUT=off`
//! turns both off.

// A build script runs rustc and its probe at build time, before tack-process
// exists to start them.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const ORDER: &str = "symbol-order.txt";

fn main() {
    println!("cargo:rerun-if-changed={ORDER}");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=TACK_LINK_LAYOUT");
    if env::var_os("TACK_LINK_LAYOUT").is_some_and(|v| v == "off") {
        return;
    }
    let var = |name: &str| env::var(name).unwrap_or_default();
    // Symbol names differ between profiles; the file is for release builds.
    if var("PROFILE") != "release" || !var("TARGET").ends_with("-linux-gnu") {
        return;
    }
    let order = Path::new(&var("CARGO_MANIFEST_DIR")).join(ORDER);
    let Some(order) = order.to_str().filter(|p| !p.contains(',')) else {
        return;
    };
    if !Path::new(order).is_file() {
        return;
    }
    let ordering = vec![
        format!("-Wl,--symbol-ordering-file={order}"),
        "-Wl,--no-warn-symbol-ordering".to_owned(),
    ];
    let relr = "-Wl,-z,pack-relative-relocs".to_owned();

    let out = PathBuf::from(var("OUT_DIR"));
    // The result must run here to show glibc takes packed relocations, so
    // those only when building for this machine.
    let native = var("HOST") == var("TARGET");
    let chosen = [
        native.then(|| [ordering.clone(), vec![relr]].concat()),
        Some(ordering),
    ]
    .into_iter()
    .flatten()
    .find(|args| links(&out, args, native));
    for arg in chosen.unwrap_or_default() {
        println!("cargo:rustc-link-arg-bin=tack={arg}");
    }
}

/// Whether an empty program links with `args` (and, when `run`, runs), built
/// as the crate will be: the same rustc, target, flags and linker.
fn links(out: &Path, args: &[String], run: bool) -> bool {
    let source = out.join("layout_probe.rs");
    let binary = out.join("layout_probe");
    if fs::write(&source, "fn main() {}\n").is_err() {
        return false;
    }
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| OsString::from("rustc"));
    let mut cmd = Command::new(rustc);
    cmd.arg("--edition=2021")
        .arg("--crate-type=bin")
        .arg("--target")
        .arg(env::var("TARGET").unwrap_or_default())
        .arg("-o")
        .arg(&binary)
        .arg(&source);
    if let Ok(flags) = env::var("CARGO_ENCODED_RUSTFLAGS") {
        cmd.args(flags.split('\x1f').filter(|f| !f.is_empty()));
    }
    if let Some(linker) = env::var_os("RUSTC_LINKER") {
        let mut arg = OsString::from("linker=");
        arg.push(linker);
        cmd.arg("-C").arg(arg);
    }
    for arg in args {
        cmd.arg("-C").arg(format!("link-arg={arg}"));
    }
    let ok = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
        && (!run
            || Command::new(&binary)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success()));
    let _ = fs::remove_file(&binary);
    ok
}
