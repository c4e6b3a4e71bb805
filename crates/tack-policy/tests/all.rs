//! The one integration-test binary of tack-policy; modules live in `all/`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

#[path = "all/support.rs"]
mod support;

#[path = "all/bash_bypasses.rs"]
mod bash_bypasses;
#[path = "all/bounds.rs"]
mod bounds;
#[path = "all/command_options.rs"]
mod command_options;
#[path = "all/command_tools.rs"]
mod command_tools;
#[path = "all/compose_red_team.rs"]
mod compose_red_team;
#[path = "all/differential.rs"]
mod differential;
#[path = "all/eleventh_round.rs"]
mod eleventh_round;
#[path = "all/explain.rs"]
mod explain;
#[path = "all/fifth_round.rs"]
mod fifth_round;
#[path = "all/file_holes.rs"]
mod file_holes;
#[path = "all/fourth_round.rs"]
mod fourth_round;
#[path = "all/fuzz.rs"]
mod fuzz;
#[path = "all/git_content.rs"]
mod git_content;
#[path = "all/guesses.rs"]
mod guesses;
#[path = "all/hidden_runs.rs"]
mod hidden_runs;
#[path = "all/managed.rs"]
mod managed;
#[path = "all/modes_and_tools.rs"]
mod modes_and_tools;
#[path = "all/more_wrappers.rs"]
mod more_wrappers;
#[path = "all/net_red_team.rs"]
mod net_red_team;
#[path = "all/ninth_round.rs"]
mod ninth_round;
#[path = "all/ninth_round_deny.rs"]
mod ninth_round_deny;
#[path = "all/ninth_round_git.rs"]
mod ninth_round_git;
#[path = "all/ninth_round_mcp.rs"]
mod ninth_round_mcp;
#[path = "all/ninth_round_net.rs"]
mod ninth_round_net;
#[path = "all/notebook_and_search.rs"]
mod notebook_and_search;
#[path = "all/paths.rs"]
mod paths;
#[path = "all/read_only.rs"]
mod read_only;
#[path = "all/read_only_options.rs"]
mod read_only_options;
#[path = "all/red_team.rs"]
mod red_team;
#[path = "all/runs_later.rs"]
mod runs_later;
#[path = "all/safeguards.rs"]
mod safeguards;
#[path = "all/sandbox.rs"]
mod sandbox;
#[path = "all/settings.rs"]
mod settings;
#[path = "all/seventh_round_config.rs"]
mod seventh_round_config;
#[path = "all/seventh_round_deny.rs"]
mod seventh_round_deny;
#[path = "all/seventh_round_mcp.rs"]
mod seventh_round_mcp;
#[path = "all/seventh_round_net.rs"]
mod seventh_round_net;
#[path = "all/shell_red_team.rs"]
mod shell_red_team;
#[path = "all/sixth_round.rs"]
mod sixth_round;
#[path = "all/sixth_round_npm.rs"]
mod sixth_round_npm;
#[path = "all/sixth_round_vim.rs"]
mod sixth_round_vim;
#[path = "all/tenth_round.rs"]
mod tenth_round;
#[path = "all/tenth_round_eq.rs"]
mod tenth_round_eq;
#[path = "all/tenth_round_file.rs"]
mod tenth_round_file;
#[path = "all/tenth_round_mcp.rs"]
mod tenth_round_mcp;
#[path = "all/tenth_round_net.rs"]
mod tenth_round_net;
#[path = "all/tenth_round_trust.rs"]
mod tenth_round_trust;
#[path = "all/tenth_round_var.rs"]
mod tenth_round_var;
#[path = "all/third_round.rs"]
mod third_round;
#[path = "all/twelfth_round.rs"]
mod twelfth_round;
#[path = "all/write_options.rs"]
mod write_options;
