//! `tack` on a real pseudo-terminal: the interactive session driven by
//! keys, its screen read by a terminal emulator (vt100), against the mock
//! API. Each test reads what a person would see.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tack_testkit::Step;

use super::World;
use crate::pty::{CommandBuilder, Pty, keys};

const WAIT: Duration = Duration::from_secs(30);

/// `tack ARGS` on a pty of `rows`×`cols`, with the world's environment.
fn open(w: &World, args: &[&str], rows: u16, cols: u16) -> Pty {
    let std_cmd = w.tack();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tack"));
    for (k, v) in std_cmd.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        }
    }
    cmd.env("HOME", w.state.path().join("home"));
    cmd.args(args);
    cmd.cwd(w.cwd.path());
    let pty = Pty::spawn(cmd, rows, cols);
    pty.wait_for("shift+tab", WAIT);
    pty
}

/// Waits until no work runs (no spinner, no "esc interrupts").
fn idle(pty: &Pty) -> String {
    pty.wait_until(
        |screen| !screen.contains("esc interrupts") && screen.contains("shift+tab"),
        WAIT,
        "the session idle",
    )
}

/// Runs `steps` (which block on the terminal) off the runtime the mock
/// serves on; the world comes back for the checks.
async fn drive(w: World, steps: impl FnOnce(&World) + Send + 'static) -> World {
    tokio::task::spawn_blocking(move || {
        steps(&w);
        w
    })
    .await
    .unwrap()
}

/// Answers the question on screen with `key`. A question ignores keys for
/// its first 400 ms (what was typed for the prompt is not its answer), so
/// the answer waits that long, as a person's would.
fn answer(pty: &Pty, key: &[u8]) {
    std::thread::sleep(Duration::from_millis(450));
    pty.send(key);
}

/// Types `text` and Enter.
fn say(pty: &Pty, text: &str) {
    pty.send_str(text);
    pty.send(keys::ENTER);
}

/// Ctrl-D on the empty input: the session ends, exit 0, and says how to resume.
fn exit(mut pty: Pty) -> String {
    pty.send(keys::CTRL_D);
    assert_eq!(pty.wait_exit(WAIT), Some(0), "{}", pty.history());
    let history = pty.history();
    assert!(
        history.contains("Resume this session with: tack --resume"),
        "{history}"
    );
    history
}

/// The user messages' texts the mock received, in order.
fn prompts(w: &World) -> Vec<String> {
    w.mock
        .requests()
        .iter()
        .filter_map(|r| r.body["messages"].as_array().cloned())
        .filter_map(|m| m.last().cloned())
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].to_string())
        .collect()
}

fn last_request(w: &World) -> Value {
    w.mock.requests().last().map(|r| r.body.clone()).unwrap()
}

/// The screen with what changes from run to run (session ids, paths,
/// timings) masked, for snapshots.
fn masked(screen: &str, cwd: &Path) -> String {
    let mut text = screen.replace(&cwd.display().to_string(), "[CWD]");
    if let Ok(real) = cwd.canonicalize() {
        text = text.replace(&real.display().to_string(), "[CWD]");
    }
    let mut out = String::new();
    for line in text.lines() {
        let mut line = line.to_owned();
        // The status line's figures depend on the request's size, and how
        // many fit on the line on the figures: its model and mode are kept.
        if line.contains("(shift+tab)") {
            let parts: Vec<&str> = line.split(" · ").collect();
            let mode = parts
                .iter()
                .position(|p| p.contains("(shift+tab)"))
                .unwrap_or(0);
            line = format!("{} · [figures] · {}", parts[0], parts[mode..].join(" · "));
        }
        if let Some(i) = line.find("session ") {
            line.replace_range(i + 8.., "[ID]");
        }
        // Seconds of a spinner or a result; a session id the width wrapped.
        let words: Vec<String> = line
            .split(' ')
            .map(|w| {
                let uuid =
                    w.len() == 36 && [8, 13, 18, 23].iter().all(|&i| w.as_bytes()[i] == b'-');
                if uuid {
                    return "[ID]".to_owned();
                }
                let trimmed = w.trim_end_matches([',', ')']);
                if trimmed.ends_with('s')
                    && trimmed[..trimmed.len() - 1].parse::<f64>().is_ok()
                    && trimmed.contains('.')
                {
                    w.replace(trimmed, "[T]")
                } else {
                    w.to_owned()
                }
            })
            .collect();
        let mut line = words.join(" ");
        // The spinner's frame.
        line = line
            .chars()
            .map(|c| {
                if ('\u{2800}'..='\u{28ff}').contains(&c) {
                    '*'
                } else {
                    c
                }
            })
            .collect();
        // How long ago a saved session was used (`/resume`'s list).
        if let Some(i) = line.find(" ago ") {
            let start = line[..i].rfind(' ').map_or(0, |j| j + 1);
            line.replace_range(start..i, "[T]");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn a_conversation_streams_markdown_and_each_turn_goes_to_the_scrollback() {
    let w = World::new(vec![
        Step::text("# Plan\n\nFirst **read** the code, then:\n\n- test it\n- ship it\n"),
        Step::text("The second answer."),
    ])
    .await;
    let w = drive(w, |w| {
        let pty = open(w, &[], 24, 80);
        say(&pty, "make a plan");
        pty.wait_for("ship it", WAIT);
        let screen = idle(&pty);
        assert!(screen.contains("• test it"), "{screen}");
        assert!(screen.contains("› make a plan"), "{screen}");
        insta::assert_snapshot!("a_finished_turn", masked(&screen, w.cwd.path()));
        say(&pty, "and then?");
        pty.wait_for("The second answer.", WAIT);
        let history = exit(pty);
        // Both turns are in the terminal's scrollback, in order.
        let first = history.find("make a plan").unwrap();
        let second = history.find("The second answer.").unwrap();
        assert!(first < second, "{history}");
    })
    .await;
    let prompts = prompts(&w);
    assert_eq!(prompts.len(), 2, "{prompts:?}");
    assert!(prompts[1].contains("and then?"), "{prompts:?}");
    // One session, two turns, saved.
    let (_, events) = w.transcript();
    let users = events
        .iter()
        .filter(|e| e["type"] == "message" && e["message"]["role"] == "user")
        .count();
    assert_eq!(users, 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_approval_is_answered_once_always_edited_and_denied_with_a_reason_by_one_key() {
    let w = World::new(vec![
        Step::tool_use("t1", "Bash", json!({"command": "touch once.txt"})),
        Step::tool_use("t2", "Bash", json!({"command": "touch always.txt"})),
        Step::tool_use("t3", "Bash", json!({"command": "mkdir edited-dir"})),
        Step::tool_use("t4", "Bash", json!({"command": "cp once.txt denied.txt"})),
        Step::text("all done"),
    ])
    .await;
    let w = drive(w, |w| {
        let pty = open(w, &[], 30, 100);
        say(&pty, "make the files");
        let screen = pty.wait_for("Allow Bash(touch once.txt)", WAIT);
        assert!(screen.contains("why it asks:"), "{screen}");
        insta::assert_snapshot!("an_approval", masked(&screen, w.cwd.path()));
        answer(&pty, b"y");
        pty.wait_for("Allow Bash(touch always.txt)", WAIT);
        answer(&pty, b"a");
        pty.wait_for("Allow Bash(mkdir edited-dir)", WAIT);
        answer(&pty, b"e");
        pty.wait_for("rule to save", WAIT);
        pty.send(b"\x15"); // Ctrl-U: the offered rule is replaced
        say(&pty, "Bash(mkdir edited*)");
        pty.wait_for("Allow Bash(cp once.txt denied.txt)", WAIT);
        answer(&pty, b"n");
        pty.wait_for("reason for the model", WAIT);
        say(&pty, "not in this repo");
        pty.wait_for("all done", WAIT);
        exit(pty);
    })
    .await;
    let cwd = w.cwd.path();
    assert!(cwd.join("once.txt").exists());
    assert!(cwd.join("always.txt").exists());
    assert!(cwd.join("edited-dir").is_dir());
    assert!(!cwd.join("denied.txt").exists());
    let local = std::fs::read_to_string(cwd.join(".tack/settings.local.json")).unwrap();
    assert!(local.contains("Bash(touch *)"), "{local}");
    assert!(local.contains("Bash(mkdir edited*)"), "{local}");
    let denied = last_request(&w).to_string();
    assert!(
        denied.contains("the user denied this call: not in this repo"),
        "{denied}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn esc_stops_a_long_bash_call_and_the_session_goes_on() {
    let w = World::new(vec![
        Step::tool_use("t1", "Bash", json!({"command": "sleep 60"})),
        Step::text("after the stop"),
    ])
    .await;
    std::fs::create_dir_all(w.cwd.path().join(".tack")).unwrap();
    std::fs::write(
        w.cwd.path().join(".tack/settings.local.json"),
        r#"{"permissions":{"allow":["Bash(sleep *)"]}}"#,
    )
    .unwrap();
    let w = drive(w, |w| {
        let pty = open(w, &[], 24, 80);
        say(&pty, "wait a minute");
        let running = pty.wait_for("Bash(sleep 60)", WAIT);
        insta::assert_snapshot!("a_tool_running", masked(&running, w.cwd.path()));
        // Typing while the tool runs is not blocked.
        pty.send_str("typed while");
        pty.wait_for("typed while", WAIT);
        let started = std::time::Instant::now();
        pty.send(keys::ESC);
        pty.wait_for("interrupted", WAIT);
        assert!(started.elapsed() < Duration::from_secs(10));
        pty.send(b"\x15");
        say(&pty, "go on");
        pty.wait_for("after the stop", WAIT);
        exit(pty);
    })
    .await;
    // The call was answered, as interrupted, before the next prompt.
    let body = last_request(&w).to_string();
    assert!(body.contains("interrupted"), "{body}");
    assert!(body.contains("go on"), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn compact_resume_and_the_report_commands() {
    let w = World::new(vec![
        Step::text("first answer"),
        Step::text("second answer"),
        // The summary request of /compact.
        Step::text("Summary: the user asked twice."),
        Step::text("answer after the resume"),
    ])
    .await;
    let w = drive(w, |w| {
        let pty = open(w, &[], 30, 100);
        say(&pty, "the first question");
        pty.wait_for("first answer", WAIT);
        say(&pty, "the second question");
        pty.wait_for("second answer", WAIT);
        say(&pty, "/compact keep the questions");
        pty.wait_for("compacted (manual)", WAIT);
        say(&pty, "/tools");
        pty.wait_for_scrollback("tokens per request", WAIT);
        say(&pty, "/cost");
        pty.wait_for_scrollback("cache reads", WAIT);
        say(&pty, "/permissions explain Bash(rm -rf /)");
        pty.wait_for_scrollback("decision: ask", WAIT);
        say(&pty, "/permissions deny Bash(rm *)");
        pty.wait_for_scrollback("deny rule `Bash(rm *)` added to", WAIT);
        say(&pty, "/permissions explain Bash(rm -rf build)");
        pty.wait_for_scrollback("decision: deny", WAIT);
        say(&pty, "/permissions remove Bash(rm *)");
        pty.wait_for_scrollback("`Bash(rm *)` removed from deny", WAIT);
        say(&pty, "/compcat");
        pty.wait_for_scrollback("did you mean /compact?", WAIT);
        say(&pty, "/clear");
        pty.wait_for_scrollback("new session", WAIT);
        say(&pty, "/resume");
        let list = pty.wait_for("Resume which session?", WAIT);
        assert!(list.contains("the first question"), "{list}");
        let picker: String = list
            .lines()
            .skip_while(|l| !l.contains("Resume which session?"))
            .take_while(|l| !l.starts_with('─'))
            .map(|l| {
                // The id's first 8 characters.
                match l.strip_prefix("› ") {
                    Some(rest) if rest.len() > 8 => format!("› [ID]{}", &rest[8..]),
                    _ => l.to_owned(),
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        insta::assert_snapshot!("the_resume_list", masked(&picker, w.cwd.path()));
        pty.send(keys::ENTER);
        pty.wait_for("resumed:", WAIT);
        say(&pty, "still there?");
        pty.wait_for("answer after the resume", WAIT);
        exit(pty);
    })
    .await;
    // The resumed conversation went to the model: compacted, then the new prompt.
    let body = last_request(&w).to_string();
    assert!(body.contains("Summary: the user asked twice."), "{body}");
    assert!(body.contains("still there?"), "{body}");
    // The summary request carried the focus.
    let summary_request = w.mock.requests()[2].body.to_string();
    assert!(
        summary_request.contains("keep the questions"),
        "{summary_request}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_resize_redraws_at_the_new_width_and_a_1000_line_paste_is_sent_whole() {
    let w = World::new(vec![Step::text("got it")]).await;
    let w = drive(w, |w| {
        let pty = open(w, &[], 24, 100);
        pty.resize(30, 60);
        // tack's own redraw, not the emulator cutting the old frame: a
        // narrower terminal is cleared and the viewport drawn at the top.
        pty.wait_until(
            |screen| {
                screen.lines().next() == Some("─".repeat(60).as_str())
                    && screen.contains("shift+tab")
                    && screen.lines().all(|l| l.chars().count() <= 60)
            },
            WAIT,
            "the viewport drawn again at 60 columns",
        );
        let text: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
        pty.send(&keys::paste(text.trim_end()));
        pty.send(keys::ENTER);
        pty.wait_for("1000 lines", WAIT);
        pty.wait_for("got it", WAIT);
        exit(pty);
    })
    .await;
    let body = last_request(&w).to_string();
    assert!(
        body.contains("line 1\\n") && body.contains("line 1000"),
        "{body}"
    );
}

/// Whether `text` holds an SGR sequence that sets a style or colour
/// (`ESC[…m` with a parameter other than 0).
fn styled(text: &str) -> bool {
    let mut rest = text;
    while let Some(i) = rest.find("\x1b[") {
        rest = &rest[i + 2..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(rest.len());
        if rest[end..].starts_with('m') && rest[..end].split(';').any(|p| !p.is_empty() && p != "0")
        {
            return true;
        }
    }
    false
}

#[tokio::test(flavor = "multi_thread")]
async fn no_color_means_no_colour_and_colour_is_there_without_it() {
    let w = World::new(vec![Step::text("plain **bold**")]).await;
    drive(w, |w| {
        let sgr_colour = |raw: &[u8]| styled(&String::from_utf8_lossy(raw));
        let pty = open(w, &[], 24, 80);
        say(&pty, "hi");
        pty.wait_for("plain bold", WAIT);
        assert!(
            !sgr_colour(&pty.raw()),
            "{:?}",
            String::from_utf8_lossy(&pty.raw())
        );
        exit(pty);

        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tack"));
        for (k, v) in w.tack().get_envs() {
            match v {
                Some(v) if k != "NO_COLOR" => cmd.env(k, v),
                _ => cmd.env_remove(k),
            }
        }
        cmd.arg("--mock");
        cmd.cwd(w.cwd.path());
        let pty = Pty::spawn(cmd, 24, 80);
        pty.wait_for("shift+tab", WAIT);
        assert!(sgr_colour(&pty.raw()));
        exit(pty);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn shift_tab_changes_the_mode_and_bang_and_at_go_through_the_rules() {
    let w = World::new(Vec::new()).await;
    let target = w.cwd.path().join("written.txt");
    w.mock.push_all([
        Step::tool_use("t1", "Write", json!({"file_path": target, "content": "x"})),
        Step::text("wrote it"),
        Step::text("read it"),
    ]);
    std::fs::write(w.cwd.path().join("notes.txt"), "the notes say hello\n").unwrap();
    std::fs::write(w.cwd.path().join("secret.txt"), "password\n").unwrap();
    std::fs::create_dir_all(w.cwd.path().join(".tack")).unwrap();
    std::fs::write(
        w.cwd.path().join(".tack/settings.local.json"),
        r#"{"permissions":{"deny":["Read(./secret.txt)"]}}"#,
    )
    .unwrap();
    let w = drive(w, |w| {
        let pty = open(w, &[], 30, 100);
        pty.send(keys::SHIFT_TAB);
        pty.wait_for("acceptEdits (shift+tab)", WAIT);
        // acceptEdits: the Write runs without asking.
        say(&pty, "write it");
        pty.wait_for("wrote it", WAIT);
        assert!(!pty.history().contains("Allow Write"));
        // ! asks like the model's Bash would; allowed once.
        say(&pty, "!expr from-the-shell");
        pty.wait_for("Allow Bash(expr from-the-shell)", WAIT);
        answer(&pty, b"y");
        pty.wait_for("⎿ from-the-shell", WAIT);
        // Ctrl-O expands the last result into the scrollback.
        pty.send(b"\x0f");
        pty.wait_for("┌ Bash(expr from-the-shell)", WAIT);
        // @path attaches through Read; a denied file is not attached.
        say(&pty, "summarise @notes.txt and @secret.txt");
        pty.wait_for("read it", WAIT);
        exit(pty);
    })
    .await;
    assert_eq!(
        std::fs::read_to_string(w.cwd.path().join("written.txt")).unwrap(),
        "x"
    );
    let body = last_request(&w).to_string();
    assert!(body.contains("the notes say hello"), "{body}");
    assert!(!body.contains("password"), "{body}");
    assert!(
        body.contains("<bash-input>expr from-the-shell</bash-input>"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn history_crosses_sessions_with_up_and_ctrl_r_and_ctrl_c_twice_exits() {
    let w = World::new(vec![Step::text("first reply"), Step::text("second reply")]).await;
    let w = drive(w, |w| {
        let pty = open(w, &[], 24, 80);
        say(&pty, "remember the unicorn");
        pty.wait_for("first reply", WAIT);
        exit(pty);

        let mut pty = open(w, &[], 24, 80);
        pty.send(keys::UP);
        pty.wait_for("› remember the unicorn", WAIT);
        pty.send(b"\x15");
        pty.send(keys::CTRL_R);
        pty.send_str("unic");
        pty.wait_for("(reverse-i-search)`unic': remember the unicorn", WAIT);
        pty.send(keys::ENTER);
        pty.send(keys::ENTER);
        pty.wait_for("second reply", WAIT);
        idle(&pty);
        pty.send(keys::CTRL_C);
        pty.wait_for("press Ctrl-C again to exit", WAIT);
        pty.send(keys::CTRL_C);
        assert_eq!(pty.wait_exit(WAIT), Some(0), "{}", pty.history());
    })
    .await;
    let prompts = prompts(&w);
    assert!(prompts[1].contains("remember the unicorn"), "{prompts:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn skills_model_log_help_and_ctrl_c_at_a_question() {
    let w = World::new(vec![
        Step::text("deploying now"),
        Step::text("hi from haiku"),
        Step::tool_use("t1", "Bash", json!({"command": "rm -rf build"})),
    ])
    .await;
    let dir = w.cwd.path().join(".claude/skills/deploy");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: deploy\ndescription: Deploy the service to staging.\n---\nDEPLOY-STEPS: build, push, verify.\n",
    )
    .unwrap();
    let w = drive(w, |w| {
        let pty = open(w, &[], 30, 100);
        // Tab completes a command.
        pty.send_str("/he");
        pty.send(keys::TAB);
        pty.wait_for("› /help", WAIT);
        pty.send(keys::ENTER);
        pty.wait_for_scrollback("Shift-Tab cycles the permission mode", WAIT);
        say(&pty, "/skills");
        pty.wait_for_scrollback("/command", WAIT);
        // A project skill is a command once trusted (asked with one key).
        say(&pty, "/deploy to staging");
        let question = pty.wait_for("Use the skill `deploy`?", WAIT);
        let question: String = question
            .lines()
            .skip_while(|l| !l.contains("Use the skill"))
            .collect::<Vec<_>>()
            .join("\n");
        insta::assert_snapshot!("a_yes_no_question", masked(&question, w.cwd.path()));
        answer(&pty, b"y");
        pty.wait_for("deploying now", WAIT);
        idle(&pty);
        say(&pty, "/model claude-haiku-4-5");
        pty.wait_for_scrollback("model: claude-haiku-4-5 from the next request", WAIT);
        say(&pty, "hello");
        pty.wait_for("hi from haiku", WAIT);
        pty.wait_for("claude-haiku-4-5 ·", WAIT);
        say(&pty, "/mcp");
        pty.wait_for_scrollback("no MCP servers", WAIT);
        say(&pty, "/log");
        pty.wait_for_scrollback("Skill", WAIT);
        // Ctrl-C at a question denies the call and stops the turn.
        say(&pty, "clean up");
        pty.wait_for("Allow Bash(rm -rf build)", WAIT);
        pty.send(keys::CTRL_C);
        pty.wait_for("interrupted", WAIT);
        idle(&pty);
        exit(pty);
    })
    .await;
    let requests = w.mock.requests();
    let skill_turn = requests[0].body.to_string();
    assert!(skill_turn.contains("DEPLOY-STEPS"), "{skill_turn}");
    assert!(skill_turn.contains("to staging"), "{skill_turn}");
    assert_eq!(requests[1].body["model"], "claude-haiku-4-5");
    // The transcript answers the call as denied by Ctrl-C.
    let (_, events) = w.transcript();
    let denied = events
        .iter()
        .find(|e| e["type"] == "tool_result" && e["tool_use_id"] == "t1")
        .unwrap();
    assert!(denied.to_string().contains("Ctrl-C"), "{denied}");
}

#[tokio::test(flavor = "multi_thread")]
async fn inside_tmux_a_turn_is_drawn_and_ctrl_d_exits() {
    let w = World::new(vec![Step::text("answered inside tmux")]).await;
    let w = drive(w, |w| {
        let socket = w.state.path().join("tmux.sock");
        let tmux = |args: &[&str]| {
            let out = std::process::Command::new("tmux")
                .arg("-S")
                .arg(&socket)
                .args(args)
                .output()
                .expect("tmux is installed (scripts/test installs it)");
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        // tack's environment, as a shell line for tmux's command.
        let cmd = w.tack();
        let mut line = String::from("env");
        for (k, v) in cmd.get_envs() {
            if let Some(v) = v {
                line.push_str(&format!(
                    " '{}={}'",
                    k.to_string_lossy(),
                    v.to_string_lossy()
                ));
            }
        }
        line.push_str(&format!(
            " 'HOME={}' '{}'; sleep 30",
            w.state.path().join("home").display(),
            env!("CARGO_BIN_EXE_tack")
        ));
        let cwd = w.cwd.path().to_str().unwrap().to_owned();
        tmux(&[
            "new-session",
            "-d",
            "-x",
            "100",
            "-y",
            "30",
            "-c",
            &cwd,
            &line,
        ]);
        let capture = || tmux(&["capture-pane", "-p", "-S", "-100"]);
        let wait = |needle: &str| {
            let deadline = std::time::Instant::now() + WAIT;
            loop {
                let screen = capture();
                if screen.contains(needle) {
                    return screen;
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "tmux: no {needle:?} on\n{screen}"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        };
        wait("shift+tab");
        tmux(&["send-keys", "hello tmux", "Enter"]);
        wait("answered inside tmux");
        tmux(&["send-keys", "C-d"]);
        wait("Resume this session with: tack --resume");
        tmux(&["kill-server"]);
    })
    .await;
    assert!(prompts(&w)[0].contains("hello tmux"));
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_terminal_a_prompt_is_a_usage_error_that_says_what_to_run() {
    let w = World::new(Vec::new()).await;
    let out = w.tack().arg("fix the tests").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("tack -p \"fix the tests\""), "{err}");
    assert!(err.contains("interactive session"), "{err}");
    let out = w.tack().arg("chat").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs a terminal"), "{err}");
    assert!(w.mock.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_resume_of_an_unknown_session_says_so_and_keeps_the_current_one() {
    let w = World::new(vec![Step::text("still the same session")]).await;
    let w = drive(w, |w| {
        let pty = open(w, &[], 24, 100);
        say(&pty, "/resume no-such-session");
        pty.wait_for("could not start", WAIT);
        idle(&pty);
        say(&pty, "are you there?");
        pty.wait_for("still the same session", WAIT);
        exit(pty);
    })
    .await;
    // One transcript: the session was not ended and replaced.
    assert_eq!(std::fs::read_dir(w.sessions_dir()).unwrap().count(), 1);
}
