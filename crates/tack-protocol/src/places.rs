//! The folders tack loads skills and agents from, named once: the loaders
//! (tack-skills' discovery, tack-session's agent definitions) read them from
//! here, and tack-policy's protected-path safeguard guards each of them, so
//! a folder added to a loader cannot be left writable without a person.

/// A project's skills folders in one directory, strongest first.
pub const PROJECT_SKILL_FOLDERS: &[&str] = &[".tack/skills", ".claude/skills", ".agents/skills"];

/// The user's skills folders directly under the home directory (besides
/// `skills` in tack's and Claude Code's configuration directories).
pub const HOME_SKILL_FOLDERS: &[&str] = &[".agents/skills"];

/// A project's agent definition folders, strongest first.
pub const PROJECT_AGENT_FOLDERS: &[&str] = &[".tack/agents", ".claude/agents"];

/// The skills folder in tack's and Claude Code's user configuration
/// directories (`~/.config/tack/skills`, `~/.claude/skills`) and beside the
/// managed settings file (`/etc/tack/skills`).
pub const CONFIG_SKILL_FOLDER: &str = "skills";

/// The agents folder in tack's and Claude Code's user configuration
/// directories (`~/.config/tack/agents`, `~/.claude/agents`).
pub const CONFIG_AGENT_FOLDER: &str = "agents";

/// Every folder a project or the home directory holds that tack loads
/// skills or agents from.
pub fn loaded_folders() -> impl Iterator<Item = &'static str> {
    PROJECT_SKILL_FOLDERS
        .iter()
        .chain(HOME_SKILL_FOLDERS)
        .chain(PROJECT_AGENT_FOLDERS)
        .copied()
}
