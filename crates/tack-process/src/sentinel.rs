//! The sentinel: one small process per tack that outlives it just long
//! enough to kill everything tack started.
//!
//! Started with the first process, it waits for end-of-file on a pipe whose
//! only write end is tack's (close-on-exec, so no child holds it). Tack
//! ending in any way — a normal exit, a panic, `kill -9` — closes it; the
//! sentinel then kills every live process that carries one of this tack's
//! tags (`TACK_PROCESS_TAG=<owner>.<n>`, see `group.rs`), in rounds until
//! none is left, and exits. So nothing tack started outlives it, even what
//! left its process group and tack's session.

use std::process::ChildStdin;
use std::sync::OnceLock;

use crate::group::{TAG_VAR, owner};

/// `$1` is the owner. Reads until tack is gone; then, up to 50 rounds: list
/// the processes whose environment holds a tag of the owner (`grep -z`
/// matches whole NUL-separated variables), stop them, kill them.
const SCRIPT: &str = r#"trap '' HUP INT TERM
while read -r _; do :; done
i=0
while [ "$i" -lt 50 ]; do
  pids=$(grep -lzx "TAG_VAR=$1\.[0-9]*" /proc/[0-9]*/environ 2>/dev/null \
    | sed -n 's#^/proc/\([0-9]*\)/environ$#\1#p')
  [ -z "$pids" ] && exit 0
  kill -STOP $pids 2>/dev/null
  kill -KILL $pids 2>/dev/null
  i=$((i + 1))
  sleep 0.05
done
"#;

/// The sentinel's pid and the write end of its pipe, once started.
static SENTINEL: OnceLock<Option<(u32, ChildStdin)>> = OnceLock::new();

/// Starts the sentinel once per tack; later calls do nothing. A sentinel that
/// cannot start (no `/bin/sh`) leaves tack working, without the guarantee.
pub(crate) fn ensure() {
    SENTINEL.get_or_init(|| {
        let script = SCRIPT.replace("TAG_VAR", TAG_VAR);
        let mut child = crate::command::sentinel(&script, owner()).ok()?;
        // The child is never waited for: it exits after tack does.
        Some((child.id(), child.stdin.take()?))
    });
    crate::adopted::on_first_process();
}

/// Whether tack has started a process through this crate (the sentinel
/// starts with the first one, or was tried).
pub(crate) fn started() -> bool {
    SENTINEL.get().is_some()
}

/// The sentinel's pid, once it runs: the one child of tack that
/// [`kill_adopted`](crate::kill_adopted) leaves alone.
pub(crate) fn pid() -> Option<i32> {
    let (pid, _) = SENTINEL.get()?.as_ref()?;
    i32::try_from(*pid).ok()
}
