//! `tack settings review|approve`: what a project settings file asks for
//! that would run without asking, and the user's approval of it.

use tack_session::UntrustedSettings;

use crate::cli::{SettingsArgs, SettingsCommand};
use crate::out::outln;
use crate::{Failure, exit};

pub fn run(args: SettingsArgs) -> Result<u8, Failure> {
    let mut ctx = crate::project(args.cwd.as_deref(), &Default::default())?;
    let unapproved = ctx.settings.unapproved.clone();
    match args.command {
        SettingsCommand::Review => {
            if args.json {
                outln!("{}", json(&unapproved)?);
            } else if unapproved.is_empty() {
                outln!("nothing in the project settings needs approval (or it is approved)");
            } else {
                for untrusted in &unapproved {
                    outln!(
                        "not approved{}: {}",
                        if untrusted.changed {
                            " (changed since you approved it)"
                        } else {
                            ""
                        },
                        untrusted.to_string().trim_end()
                    );
                }
                outln!("`tack settings approve` applies it from the next run on");
            }
        }
        SettingsCommand::Approve => {
            for untrusted in &unapproved {
                ctx.approve_project_settings(untrusted)?;
            }
            if args.json {
                outln!("{}", json(&unapproved)?);
            } else if unapproved.is_empty() {
                outln!("nothing in the project settings needs approval (or it is approved)");
            } else {
                for untrusted in &unapproved {
                    outln!("approved: {}", untrusted.to_string().trim_end());
                }
            }
        }
    }
    Ok(exit::OK)
}

fn json(unapproved: &[UntrustedSettings]) -> Result<String, Failure> {
    serde_json::to_string(unapproved).map_err(Failure::internal)
}
