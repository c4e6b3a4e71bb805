//! What this machine can enforce, found by asking the helper to try.

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// What the kernel lets the helper do, found by running it with `--probe`
/// (each mechanism is tried for real, in a throwaway child).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Support {
    /// `std::env::consts::OS` of the helper.
    pub os: String,
    /// The Landlock ABI version (0: none, or disabled at boot).
    pub landlock_abi: u8,
    /// Why user, mount and PID namespaces are not usable, if they are not
    /// (for example `kernel.apparmor_restrict_unprivileged_userns=1`).
    pub namespaces: Option<String>,
    /// Why a network namespace of its own is not usable, if it is not.
    pub network_namespace: Option<String>,
    /// Whether a seccomp filter can be installed.
    pub seccomp: bool,
}

impl Support {
    /// Runs `helper --probe` and reads its answer.
    pub async fn probe(helper: &Path) -> Result<Support, String> {
        let spec = tack_process::Spec::new(helper)
            .arg("--probe")
            .streams(tack_process::Streams::Separate);
        let process = tack_process::spawn(spec)
            .map_err(|e| format!("could not start {}: {}", helper.display(), e.io_error()))?;
        let ending = process.wait(Some(Duration::from_secs(10)), None).await;
        process.output_closed(Duration::from_secs(1)).await;
        let out = process.stdout().take(tack_process::Hold::Nothing).head;
        let err = process
            .stderr()
            .map(|e| e.take(tack_process::Hold::Nothing).head)
            .unwrap_or_default();
        if !ending.exit().is_some_and(|e| e.success()) {
            return Err(format!(
                "{} --probe failed: {}",
                helper.display(),
                err.trim()
            ));
        }
        serde_json::from_str(&out).map_err(|e| {
            format!(
                "{} --probe answered what tack cannot read ({e}): {out}",
                helper.display()
            )
        })
    }

    /// What nothing can be enforced with (no helper, another OS).
    pub fn nothing(os: &str) -> Support {
        Support {
            os: os.to_owned(),
            landlock_abi: 0,
            namespaces: Some(format!("not supported on {os}")),
            network_namespace: Some(format!("not supported on {os}")),
            seccomp: false,
        }
    }
}
