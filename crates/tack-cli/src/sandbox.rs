//! `tack sandbox check`: what this machine can enforce and what the
//! sandbox settings here would.

use crate::cli::{SandboxArgs, SandboxCommand};
use crate::out::outln;
use crate::{Failure, exit};

pub async fn run(args: SandboxArgs) -> Result<u8, Failure> {
    let ctx = crate::project(args.cwd.as_deref(), &Default::default())?;
    match args.command {
        SandboxCommand::Check => {
            let Some(shell) = ctx.sandbox() else {
                outln!(
                    "the OS sandbox is off here: commands run without it (sandbox.enabled is false{})",
                    if cfg!(target_os = "linux") {
                        " in the settings"
                    } else {
                        "; it is not supported on this OS yet"
                    }
                );
                return Ok(exit::OK);
            };
            let (report, enforceable) = shell.sandbox.check().await;
            outln!("{}", report.trim_end());
            if !shell.fail_closed {
                outln!(
                    "sandbox.failIfUnavailable is false: where it cannot be enforced, commands run without it"
                );
            }
            Ok(if enforceable {
                exit::OK
            } else {
                exit::INTERNAL
            })
        }
    }
}
