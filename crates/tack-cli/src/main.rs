//! The `tack` command.

mod out;

mod claude;
mod cli;
mod eval;
mod interactive;
mod markdown;
mod mcp;
mod mcp_login;
mod print;
mod run;
mod sandbox;
mod sessions;
mod settings;
mod skills;
mod sources;
mod tools;

use std::process::ExitCode;

use clap::Parser as _;

use crate::cli::{Cli, Command};
use crate::out::outln;

/// Exit codes, one table for every subcommand (listed in `--help` and the README).
pub use tack_protocol::exit;

/// An error that ends the command, with its exit code.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub error: anyhow::Error,
}

impl Failure {
    pub fn usage(error: impl Into<anyhow::Error>) -> Self {
        Self {
            code: exit::USAGE,
            error: error.into(),
        }
    }
    pub fn internal(error: impl Into<anyhow::Error>) -> Self {
        Self {
            code: exit::INTERNAL,
            error: error.into(),
        }
    }
}

impl From<tack_session::Error> for Failure {
    fn from(error: tack_session::Error) -> Self {
        Self {
            code: error.exit_code(),
            error: error.into(),
        }
    }
}

/// The project of a command, with its permission flags
/// (`--trust-project-settings` included); warnings found while loading go to
/// stderr.
pub fn project(
    cwd: Option<&std::path::Path>,
    permissions: &cli::PermissionArgs,
) -> Result<tack_session::ProjectContext, Failure> {
    let mut ctx = tack_session::ProjectContext::load(cwd, &permissions.to_cli()?)?;
    if permissions.trust_project_settings {
        ctx = ctx.trusting_project_settings()?;
    }
    for warning in &ctx.warnings {
        eprintln!("tack: {warning}");
    }
    Ok(ctx)
}

fn main() -> ExitCode {
    // Flags first: `--version` and `--help` never start a runtime.
    // Claude Code's `tack -p "…"` is `tack run "…"`.
    // `tack` and `tack "prompt"` on a terminal: the interactive session.
    let args = cli::interactive_argv(std::env::args_os().collect(), interactive::on_a_terminal);
    let args = match cli::claude_code_argv(args) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("tack: {message}");
            return ExitCode::from(exit::USAGE);
        }
    };
    let cli = Cli::parse_from(args);
    tack_process::protect_own_process();
    // What tack starts that is orphaned becomes tack's child, so it is
    // killed when tack ends, however it left its group or tag (SIGTERM and
    // SIGHUP included; not `kill -9`).
    tack_process::adopt_orphans();
    tack_process::kill_adopted_on_termination();
    init_logging();
    // `tack mcp serve` answers one small request after another: a single
    // thread avoids a cross-core wake-up on every hop (stdin → dispatch →
    // tool → stdout), which dominates its latency. Blocking work (files,
    // processes, search) still runs on tokio's blocking pool.
    let single_threaded = matches!(
        &cli.command,
        Command::Mcp(cli::McpArgs {
            command: cli::McpCommand::Serve(_),
            ..
        })
    );
    let mut builder = if single_threaded {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("tack: cannot start the async runtime: {e}");
            return ExitCode::from(exit::INTERNAL);
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Run(args) => run::run(*args).await,
            Command::Sessions(args) => sessions::list(&args),
            Command::Log(args) => sessions::log(&args),
            Command::Permissions(args) => permissions(args),
            Command::Mcp(args) => mcp::run(args).await,
            Command::Settings(args) => settings::run(args),
            Command::Sandbox(args) => sandbox::run(args).await,
            Command::Skills(args) => skills::run(args).await,
            Command::Tools(args) => tools::run(args).await,
            Command::MockServer(args) => run::mock_server(args).await,
            Command::Eval(args) => eval::run(args).await,
            Command::Chat(args) => interactive::run(*args).await,
        }
    });
    // Tools stuck past their cancellation must not hold the process open.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    tack_process::kill_adopted();
    match result {
        Ok(code) => ExitCode::from(code),
        Err(failure) => {
            eprintln!("tack: {}", error_text(&failure.error));
            ExitCode::from(failure.code)
        }
    }
}

/// Exits at once (a second Ctrl-C), killing first what tack started and
/// what those left running.
pub fn exit_now(code: u8) -> ! {
    tack_process::kill_adopted();
    std::process::exit(i32::from(code))
}

/// The error and its causes, `: `-joined, leaving out a cause whose text is
/// already said (an error that shows its source in its own message).
fn error_text(error: &anyhow::Error) -> String {
    let mut text = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

/// `tack permissions explain SPEC`.
fn permissions(args: cli::PermissionsArgs) -> Result<u8, Failure> {
    let cli::PermissionsCommand::Explain {
        spec,
        json,
        permissions,
    } = args.command;
    let ctx = project(None, &permissions)?;
    let policy = ctx
        .settings
        .permissions
        .policy_for_cwd(&ctx.cwd)
        .map_err(|e| Failure::usage(anyhow::anyhow!("invalid settings: {e}")))?;
    let explanation = tack_policy::explain(&spec, &policy, &ctx.cwd)
        .map_err(|e| Failure::usage(anyhow::anyhow!("{e}")))?;
    // What the project file asks for without an approval is not in the
    // policy: say so, since it may be why the decision is not what the
    // file says.
    let unapproved = &ctx.settings.unapproved;
    if json {
        let mut value = serde_json::to_value(&explanation).map_err(Failure::internal)?;
        if let Some(obj) = value.as_object_mut()
            && !unapproved.is_empty()
        {
            let ignored = serde_json::to_value(unapproved).map_err(Failure::internal)?;
            obj.insert("unapproved_project_settings".into(), ignored);
        }
        outln!("{value}");
    } else {
        outln!("{explanation}");
        for untrusted in unapproved {
            outln!("not applied: {}", untrusted.notice());
        }
    }
    Ok(exit::OK)
}

/// What reaches the terminal without `TACK_LOG`: tack's warnings, and
/// nothing of rmcp's (its log lines name its internal types, e.g.
/// `WorkerTransport<…>`, and report what tack already reports in its own
/// words, such as an unknown tool a client called). `TACK_LOG=rmcp=debug`
/// brings them back.
const DEFAULT_LOG_FILTER: &str = "warn,rmcp=off";

fn init_logging() {
    // rmcp's own log lines (protocol internals, Rust type names) stay off the
    // terminal: tack reports what failed in words. TACK_LOG=rmcp=debug shows them.
    let filter = tracing_subscriber::EnvFilter::try_from_env("TACK_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_LOG_FILTER));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(print::color_enabled())
        .without_time()
        .with_target(false)
        .try_init();
}

#[cfg(test)]
mod tests {
    /// An error that shows its source in its own message.
    #[derive(Debug)]
    struct Shows(std::io::Error);

    impl std::fmt::Display for Shows {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "invalid settings: {}", self.0)
        }
    }

    impl std::error::Error for Shows {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_cause_already_in_the_message_is_said_once() {
        let inner = std::io::Error::other("rule `x` is invalid");
        let error = anyhow::Error::new(Shows(inner)).context("loading");
        assert_eq!(
            super::error_text(&error),
            "loading: invalid settings: rule `x` is invalid"
        );
        let plain = anyhow::anyhow!("outer").context("top");
        assert_eq!(super::error_text(&plain), "top: outer");
    }
}
