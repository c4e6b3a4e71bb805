//! tack's credentials stay out of the processes it starts, unless a spec
//! passes one on by name.

use std::time::Duration;

use tack_process::{Hold, Spec, WITHHELD_ENV};

use super::support::{sh, start};

/// What `script` prints, run through tack-process.
async fn output_of(spec: Spec) -> String {
    let p = start(spec);
    p.wait(Some(Duration::from_secs(20)), None).await;
    assert!(p.output_closed(Duration::from_secs(5)).await);
    p.stdout().take(Hold::Nothing).head
}

/// Run only as a child of `credentials_set_in_tack_are_withheld`, whose
/// environment holds every credential: prints what a process started with
/// default and with explicit environments sees.
#[tokio::test]
#[ignore = "a probe run by another test, with credentials in its environment"]
async fn probe_what_children_see() {
    let report = "for v in ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN OPENAI_API_KEY TACK_MCP_TOKEN; do \
                  eval \"echo $v=\\${$v:-unset}\"; done";
    let by_default = output_of(sh(report)).await;
    let passed_on = output_of(sh(report).env("OPENAI_API_KEY", "explicit")).await;
    let mut tokio_cmd = tack_process::tokio_command("sh");
    let tokio_default = tokio_cmd.args(["-c", report]).output().await.unwrap();
    println!(
        "default:\n{by_default}explicit:\n{passed_on}tokio:\n{}",
        String::from_utf8_lossy(&tokio_default.stdout)
    );
}

#[tokio::test]
async fn credentials_set_in_tack_are_withheld() {
    let mut probe = Spec::new(std::env::current_exe().unwrap()).args([
        "--ignored",
        "--exact",
        "suite::env::probe_what_children_see",
        "--nocapture",
    ]);
    for key in WITHHELD_ENV {
        probe = probe.env(*key, "secret");
    }

    let out = output_of(probe).await;

    let section = |name: &str| {
        let start = out
            .find(&format!("{name}:\n"))
            .unwrap_or_else(|| panic!("{out}"));
        out[start..]
            .lines()
            .skip(1)
            .take(4)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let all_unset = "ANTHROPIC_API_KEY=unset ANTHROPIC_AUTH_TOKEN=unset \
                     OPENAI_API_KEY=unset TACK_MCP_TOKEN=unset";
    assert_eq!(section("default"), all_unset, "{out}");
    assert_eq!(section("tokio"), all_unset, "{out}");
    assert_eq!(
        section("explicit"),
        "ANTHROPIC_API_KEY=unset ANTHROPIC_AUTH_TOKEN=unset \
         OPENAI_API_KEY=explicit TACK_MCP_TOKEN=unset",
        "{out}"
    );
}
