//! Try the policy from a shell:
//!
//! ```sh
//! cargo run -p tack-policy --example explain -- \
//!     --allow 'Bash(cd *)' --deny 'Bash(rm *)' 'Bash(cd x && rm -rf y)'
//! ```
//! Flags: `--allow R`, `--ask R`, `--deny R`, `--mode M`, `--json`; the last
//! argument is the call. Settings files of the current directory are loaded too.

use tack_policy::{CliPermissions, Mode, RuleEntry, RuleKind, Settings, Source, explain};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    args.retain(|a| a != "--json");
    let Some(spec) = args.pop() else {
        eprintln!(
            "usage: explain [--allow R] [--ask R] [--deny R] [--mode M] [--json] 'Tool(arg)'"
        );
        std::process::exit(2);
    };
    let cwd = std::env::current_dir()?;
    let mut cli = CliPermissions::default();
    let mut extra = Vec::new();
    let mut it = args.into_iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or("flag without value")?;
        match flag.as_str() {
            "--allow" => cli.allowed_tools.push(value),
            "--deny" => cli.disallowed_tools.push(value),
            "--ask" => extra.push(RuleEntry::new(value, RuleKind::Ask, Source::command_line())),
            "--mode" => cli.mode = Some(value.parse::<Mode>()?),
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    let settings = Settings::load(&cwd, Settings::default_user_config_dir().as_deref(), &cli)?;
    let policy = if extra.is_empty() {
        settings.policy().clone()
    } else {
        let mut b = tack_policy::PolicyBuilder::new(&cwd).mode(settings.policy().mode());
        for r in settings.rules().iter().cloned().chain(extra) {
            b = b.rule(r);
        }
        b.build()?
    };
    let e = explain(&spec, &policy, &cwd)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&e)?);
    } else {
        print!("{e}");
    }
    Ok(())
}
