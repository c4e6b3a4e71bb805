//! Read, Write and Edit on real files in temp dirs, called through the
//! registry (schema check, validate, call) as the agent calls them.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use serde_json::{Value, json};
use tack_protocol::ContentBlock;
use tack_tool::{ToolContext, ToolError, ToolOutput, ToolRegistry};
use tokio_util::sync::CancellationToken;

/// A temp dir (the session's cwd) and the file and search tools.
pub struct Env {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub registry: ToolRegistry,
}

impl Env {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let mut registry = ToolRegistry::new();
        for tool in tack_tools::files::file_tools()
            .into_iter()
            .chain(tack_tools::search::search_tools())
        {
            registry.register(tool).unwrap();
        }
        Self {
            _dir: dir,
            root,
            registry,
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Writes a file directly (not through the tools), creating directories.
    pub fn put(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }

    pub fn ctx(&self) -> ToolContext {
        ToolContext::new(
            self.root.clone(),
            "test",
            "toolu_test",
            CancellationToken::new(),
        )
    }

    /// Calls a tool as the pipeline does: schema check, validate, call.
    pub async fn call(&self, tool: &str, input: Value) -> Result<ToolOutput, ToolError> {
        let registered = self.registry.get(tool).unwrap();
        registered.check_input(&input)?;
        let ctx = self.ctx();
        registered.tool.validate(&input, &ctx)?;
        registered.tool.call(input, ctx).await
    }

    /// The text of a successful call.
    pub async fn ok(&self, tool: &str, input: Value) -> String {
        match self.call(tool, input.clone()).await {
            Ok(out) => text(&out),
            Err(e) => panic!("{tool} {input} failed: {e}"),
        }
    }

    /// The error of a failing call.
    pub async fn err(&self, tool: &str, input: Value) -> ToolError {
        match self.call(tool, input.clone()).await {
            Ok(out) => panic!("{tool} {input} succeeded: {}", text(&out)),
            Err(e) => e,
        }
    }

    pub async fn read(&self, path: &Path) -> String {
        self.ok("Read", json!({"file_path": path})).await
    }
}

pub fn text(out: &ToolOutput) -> String {
    out.content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn message(e: &ToolError) -> String {
    e.to_string()
}

fn numbered(lines: &[(usize, &str)]) -> String {
    lines
        .iter()
        .map(|(n, l)| format!("{n:>6}\t{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// Moves a file's mtime, so a change within the same clock tick still shows.
fn touch_later(path: &Path) {
    let later = SystemTime::now() + Duration::from_secs(5);
    filetime::set_file_mtime(path, filetime::FileTime::from_system_time(later)).unwrap();
}

// ---------------------------------------------------------------- Read

#[tokio::test]
async fn read_numbers_lines_like_cat_n() {
    let env = Env::new();
    let path = env.put("a.txt", "one\n\ttwo\nthree\n");
    let out = env.read(&path).await;
    assert_eq!(out, numbered(&[(1, "one"), (2, "\ttwo"), (3, "three")]));
}

#[tokio::test]
async fn read_offset_and_limit_window_with_a_note_to_read_on() {
    let env = Env::new();
    let path = env.put("a.txt", "l1\nl2\nl3\nl4\nl5");
    let out = env
        .ok("Read", json!({"file_path": path, "offset": 2, "limit": 2}))
        .await;
    assert_eq!(
        out,
        format!(
            "{}\n(The file has 5 lines; this shows lines 2-3. To read on, call Read with offset=4.)",
            numbered(&[(2, "l2"), (3, "l3")])
        )
    );
    // The last window has no note; offset 0 means the start.
    let tail = env
        .ok("Read", json!({"file_path": path, "offset": 4}))
        .await;
    assert_eq!(tail, numbered(&[(4, "l4"), (5, "l5")]));
    let zero = env
        .ok("Read", json!({"file_path": path, "offset": 0, "limit": 1}))
        .await;
    assert!(zero.starts_with(&numbered(&[(1, "l1")])), "{zero}");
}

/// Sizes either side of the first read (8 KiB) and of the largest file Read
/// reads on the caller's thread (64 KiB): every line, the last one too.
#[tokio::test]
async fn read_shows_every_line_either_side_of_its_read_sizes() {
    let env = Env::new();
    for size in [1, 8191, 8192, 8193, 65_535, 65_536, 65_537, 70_000] {
        let full = size / 100;
        let mut content = "x".repeat(99).add_line().repeat(full);
        content.push_str(&"y".repeat(size - full * 100));
        let path = env.put(&format!("s{size}.txt"), &content);
        let out = env.read(&path).await;
        let lines: Vec<(usize, &str)> = content
            .split_terminator('\n')
            .enumerate()
            .map(|(i, l)| (i + 1, l))
            .collect();
        assert_eq!(out, numbered(&lines), "{size} bytes");
        // And it counts as read: Edit takes it.
        env.ok(
            "Edit",
            json!({"file_path": path, "old_string": content.lines().last().unwrap(), "new_string": "end", "replace_all": true}),
        )
        .await;
    }
}

trait AddLine {
    fn add_line(self) -> String;
}

impl AddLine for String {
    fn add_line(mut self) -> String {
        self.push('\n');
        self
    }
}

/// Files in /proc say they are empty and are not: Read reads to their end.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn read_of_a_proc_file_reads_to_its_end() {
    let env = Env::new();
    assert_eq!(std::fs::metadata("/proc/self/status").unwrap().len(), 0);
    let out = env.read(Path::new("/proc/self/status")).await;
    assert!(out.contains("\tName:\t"), "{out}");
    assert!(out.contains("\tVmRSS:"), "{out}");
}

/// The file is known by its real path, through a linked directory too: an
/// Edit by either path follows the Read.
#[tokio::test]
async fn read_through_a_linked_directory_counts_for_the_real_path() {
    let env = Env::new();
    let real = env.put("real/dir/notes.md", "alpha\n");
    let linked = env.path("linked");
    std::os::unix::fs::symlink(env.path("real/dir"), &linked).unwrap();
    env.read(&linked.join("notes.md")).await;
    env.ok(
        "Edit",
        json!({"file_path": real, "old_string": "alpha", "new_string": "beta"}),
    )
    .await;
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "beta\n");
}

/// A Read the permission check judged to be of `checked`.
async fn read_checked(
    env: &Env,
    path: &Path,
    checked: &[PathBuf],
) -> Result<ToolOutput, ToolError> {
    let registered = env.registry.get("Read").unwrap();
    let mut ctx = env.ctx();
    ctx.checked_files = checked.to_vec();
    registered.tool.call(json!({"file_path": path}), ctx).await
}

#[tokio::test]
async fn read_opens_only_the_file_the_permission_check_judged() {
    let env = Env::new();
    let public = env.put("pub.txt", "public\n");
    let secret = env.put("secrets/key.txt", "SECRET\n");
    let link = env.path("link.txt");
    std::os::unix::fs::symlink(&public, &link).unwrap();
    // As judged: the file itself, or the file a link leads to.
    assert!(
        text(
            &read_checked(&env, &public, std::slice::from_ref(&public))
                .await
                .unwrap()
        )
        .contains("public")
    );
    assert!(
        text(
            &read_checked(&env, &link, std::slice::from_ref(&public))
                .await
                .unwrap()
        )
        .contains("public")
    );
    // A link put in its place after the check: not read.
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(&secret, &link).unwrap();
    let err = read_checked(&env, &link, std::slice::from_ref(&public))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Denied(_)), "{err}");
    assert!(message(&err).contains("changed between the permission check and the read"));
    assert!(!message(&err).contains("SECRET"));
    // The file judged replaced by a link (to the secret): not read either.
    let moved = env.path("moved.txt");
    std::fs::rename(&public, &moved).unwrap();
    std::os::unix::fs::symlink(&secret, &public).unwrap();
    assert!(
        read_checked(&env, &public, std::slice::from_ref(&public))
            .await
            .is_err()
    );
    // Nothing judged (outside a pipeline): read as before.
    assert!(text(&read_checked(&env, &public, &[]).await.unwrap()).contains("SECRET"));
}

#[tokio::test]
async fn write_and_edit_change_only_the_file_the_permission_check_judged() {
    let env = Env::new();
    let public = env.put("pub.txt", "public\n");
    let locked = env.put("locked/keep", "keep\n");
    let call = |tool: &'static str, input: Value, checked: Vec<PathBuf>| {
        let registered = env.registry.get(tool).unwrap();
        let mut ctx = env.ctx();
        ctx.checked_files = checked;
        registered.tool.call(input, ctx)
    };
    env.read(&public).await;
    // As judged: written.
    call(
        "Edit",
        json!({"file_path": public, "old_string": "public", "new_string": "edited"}),
        vec![public.clone()],
    )
    .await
    .unwrap();
    assert_eq!(std::fs::read_to_string(&public).unwrap(), "edited\n");
    // A link put in the file's place after the check leads to another file:
    // neither Write nor Edit touches it.
    std::fs::remove_file(&public).unwrap();
    std::os::unix::fs::symlink(&locked, &public).unwrap();
    env.read(&public).await;
    for (tool, input) in [
        (
            "Write",
            json!({"file_path": public, "content": "overwritten"}),
        ),
        (
            "Edit",
            json!({"file_path": public, "old_string": "keep", "new_string": "overwritten"}),
        ),
    ] {
        let err = call(tool, input, vec![public.clone()]).await.unwrap_err();
        assert!(matches!(err, ToolError::Denied(_)), "{tool}: {err}");
        assert!(message(&err).contains("changed between the permission check and the write"));
    }
    assert_eq!(std::fs::read_to_string(&locked).unwrap(), "keep\n");
}

#[tokio::test]
async fn read_of_a_100k_line_file_shows_2000_lines_and_how_to_go_on() {
    let env = Env::new();
    let content: String = (1..=100_000).map(|i| format!("line {i}\n")).collect();
    let path = env.put("big.txt", content);
    let out = env.read(&path).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2001, "2000 lines and the note");
    assert_eq!(lines[0], "     1\tline 1");
    assert_eq!(lines[1999], "  2000\tline 2000");
    assert_eq!(
        lines[2000],
        "(The file has 100000 lines; this shows lines 1-2000. To read on, call Read with offset=2001.)"
    );
    let next = env
        .ok("Read", json!({"file_path": path, "offset": 99_999}))
        .await;
    assert_eq!(
        next,
        numbered(&[(99_999, "line 99999"), (100_000, "line 100000")])
    );
}

#[tokio::test]
async fn read_output_is_capped_at_a_line_boundary() {
    let env = Env::new();
    // 2000 lines of 1000 characters: 2 MB, well over the 256 KB a call returns.
    let line = "x".repeat(1000);
    let content: String = (0..2000).map(|_| format!("{line}\n")).collect();
    let path = env.put("wide.txt", content);
    let out = env.read(&path).await;
    assert!(out.len() <= 256 * 1024 + 300, "{}", out.len());
    let shown = out.lines().filter(|l| l.ends_with(&line)).count();
    assert!(shown > 200 && shown < 2000, "{shown}");
    assert!(
        out.ends_with(&format!(
            "this shows lines 1-{shown} (output is limited to 256 KB per call). To read on, call Read with offset={}.)",
            shown + 1
        )),
        "{}",
        &out[out.len() - 200..]
    );
    // Hooks learn it as Claude Code tells them: a first page, flagged.
    let full = env.call("Read", json!({"file_path": path})).await.unwrap();
    let file = &full.response.unwrap()["file"];
    assert_eq!(file["numLines"], shown);
    assert_eq!(file["totalLines"], 2000);
    assert_eq!(file["truncatedByTokenCap"], true);
    assert_eq!(file["content"].as_str().unwrap().lines().count(), shown);
}

#[tokio::test]
async fn read_past_the_end_is_invalid_input() {
    let env = Env::new();
    let path = env.put("a.txt", "a\nb\n");
    let err = env
        .err("Read", json!({"file_path": path, "offset": 10}))
        .await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    assert!(message(&err).contains("which has 2 lines"), "{err}");
    let err = env
        .err("Read", json!({"file_path": path, "limit": 0}))
        .await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
}

#[tokio::test]
async fn read_cuts_long_lines_with_a_marker() {
    let env = Env::new();
    let path = env.put("long.txt", format!("short\n{}\n", "y".repeat(5000)));
    let out = env.read(&path).await;
    let second = out.lines().nth(1).unwrap();
    assert_eq!(
        second,
        format!("     2\t{}… [line cut: 5000 characters]", "y".repeat(2000))
    );
    assert!(
        out.ends_with("(1 line longer than 2000 characters cut.)"),
        "{out}"
    );
}

#[tokio::test]
async fn read_shows_crlf_lines_without_the_cr() {
    let env = Env::new();
    let path = env.put("crlf.txt", "alpha\r\nbeta\r\n");
    assert_eq!(
        env.read(&path).await,
        numbered(&[(1, "alpha"), (2, "beta")])
    );
}

#[tokio::test]
async fn read_decodes_non_utf8_lossily_with_a_note() {
    let env = Env::new();
    let path = env.put("latin1.txt", b"caf\xe9\nplain\n");
    let out = env.read(&path).await;
    assert!(
        out.starts_with(&numbered(&[(1, "caf\u{FFFD}"), (2, "plain")])),
        "{out}"
    );
    assert!(out.contains("not valid UTF-8"), "{out}");
}

#[tokio::test]
async fn read_decodes_utf16_with_bom() {
    let env = Env::new();
    let mut bytes = vec![0xFF, 0xFE];
    for unit in "héllo\nwörld\n".encode_utf16() {
        bytes.extend_from_slice(&unit.to_le_bytes());
    }
    let path = env.put("utf16.txt", bytes);
    let out = env.read(&path).await;
    assert_eq!(
        out,
        format!(
            "{}\n(Decoded from UTF-16LE.)",
            numbered(&[(1, "héllo"), (2, "wörld")])
        )
    );
}

#[tokio::test]
async fn read_strips_a_utf8_bom_from_the_first_line() {
    let env = Env::new();
    let path = env.put("bom.txt", "\u{FEFF}first\nsecond\n");
    assert_eq!(
        env.read(&path).await,
        numbered(&[(1, "first"), (2, "second")])
    );
}

/// The smallest valid PNG: a 1×1 transparent pixel.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];

fn image_source(out: &ToolOutput) -> (String, Vec<u8>) {
    let Some(ContentBlock::Image(image)) = out.content.first() else {
        panic!("no image block: {:?}", out.content);
    };
    assert_eq!(image.source["type"], "base64");
    let data = base64::engine::general_purpose::STANDARD
        .decode(image.source["data"].as_str().unwrap())
        .unwrap();
    (
        image.source["media_type"].as_str().unwrap().to_owned(),
        data,
    )
}

#[tokio::test]
async fn read_returns_images_by_magic_bytes_not_extension() {
    let env = Env::new();
    let png = env.put("pixel.txt", PNG);
    let out = env.call("Read", json!({"file_path": png})).await.unwrap();
    assert_eq!(image_source(&out), ("image/png".to_owned(), PNG.to_vec()));

    let mut gif = b"GIF89a".to_vec();
    gif.extend_from_slice(&[1, 0, 1, 0, 0, 0, 0, b';']);
    let out = env
        .call("Read", json!({"file_path": env.put("a.bin", &gif)}))
        .await
        .unwrap();
    assert_eq!(image_source(&out).0, "image/gif");

    let jpeg = env.put(
        "photo",
        [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, b'J', b'F', b'I', b'F'],
    );
    let out = env.call("Read", json!({"file_path": jpeg})).await.unwrap();
    assert_eq!(image_source(&out).0, "image/jpeg");

    let mut webp = b"RIFF\x10\0\0\0WEBPVP8 ".to_vec();
    webp.extend_from_slice(&[0; 8]);
    let out = env
        .call("Read", json!({"file_path": env.put("w", &webp)}))
        .await
        .unwrap();
    assert_eq!(image_source(&out).0, "image/webp");

    // A text file named .png is text.
    let fake = env.put("fake.png", "not an image\n");
    assert_eq!(env.read(&fake).await, numbered(&[(1, "not an image")]));
}

#[tokio::test]
async fn read_refuses_images_over_the_size_cap() {
    let env = Env::new();
    let mut big = PNG.to_vec();
    big.resize(4 * 1024 * 1024, 0);
    let path = env.put("huge.png", big);
    let err = env.err("Read", json!({"file_path": path})).await;
    assert!(matches!(err, ToolError::Unavailable(_)), "{err}");
    assert!(message(&err).contains("4.0 MB"), "{err}");
    assert!(message(&err).contains("5 MB once encoded"), "{err}");
}

#[tokio::test]
async fn read_refuses_binary_files() {
    let env = Env::new();
    let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
    elf.extend_from_slice(&[0; 64]);
    let path = env.put("prog", elf);
    let err = env.err("Read", json!({"file_path": path})).await;
    assert!(matches!(err, ToolError::Unavailable(_)), "{err}");
    assert!(
        message(&err).contains("binary file (an ELF executable, 71 bytes)"),
        "{err}"
    );

    let nul = env.put("data.txt", b"text\0more text\n");
    let err = env.err("Read", json!({"file_path": nul})).await;
    assert!(
        message(&err).contains("binary file (contains NUL bytes"),
        "{err}"
    );
}

#[tokio::test]
async fn read_of_an_empty_file_says_so_and_counts_as_read() {
    let env = Env::new();
    let path = env.put("empty.txt", "");
    let out = env.read(&path).await;
    assert_eq!(
        out,
        format!("The file {} exists but is empty.", path.display())
    );
    let out = env
        .ok("Write", json!({"file_path": path, "content": "filled\n"}))
        .await;
    assert!(out.starts_with("Updated"), "{out}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "filled\n");
}

#[tokio::test]
async fn read_of_a_directory_points_to_glob_and_ls() {
    let env = Env::new();
    std::fs::create_dir(env.path("src")).unwrap();
    let err = env.err("Read", json!({"file_path": env.path("src")})).await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    let msg = message(&err);
    assert!(
        msg.contains("is a directory") && msg.contains("Glob") && msg.contains("ls"),
        "{msg}"
    );
}

#[tokio::test]
async fn read_of_a_missing_file_suggests_similar_names() {
    let env = Env::new();
    let real = env.put("src/main.rs", "fn main() {}\n");
    let err = env
        .err("Read", json!({"file_path": env.path("src/mian.rs")}))
        .await;
    assert!(matches!(err, ToolError::Unavailable(_)), "{err}");
    let msg = message(&err);
    assert!(
        msg.contains(&env.path("src/mian.rs").display().to_string()),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("Did you mean {}?", real.display())),
        "{msg}"
    );

    let other_ext = env
        .err("Read", json!({"file_path": env.path("src/main.py")}))
        .await;
    assert!(message(&other_ext).contains("Did you mean"), "{other_ext}");

    let nothing_close = env
        .err("Read", json!({"file_path": env.path("src/zzzzzzzz.md")}))
        .await;
    assert!(
        !message(&nothing_close).contains("Did you mean"),
        "{nothing_close}"
    );

    let no_dir = env
        .err("Read", json!({"file_path": env.path("nodir/x.rs")}))
        .await;
    assert!(
        message(&no_dir).contains("Its directory does not exist either"),
        "{no_dir}"
    );
}

#[tokio::test]
async fn relative_paths_are_refused_with_the_absolute_suggestion() {
    let env = Env::new();
    env.put("src/lib.rs", "x\n");
    for tool in ["Read", "Write", "Edit"] {
        let input = match tool {
            "Read" => json!({"file_path": "src/lib.rs"}),
            "Write" => json!({"file_path": "src/lib.rs", "content": "y"}),
            _ => json!({"file_path": "src/lib.rs", "old_string": "x", "new_string": "y"}),
        };
        let err = env.err(tool, input).await;
        assert!(matches!(err, ToolError::InvalidInput(_)), "{tool}: {err}");
        let msg = message(&err);
        assert!(msg.contains("must be an absolute path"), "{msg}");
        assert!(
            msg.contains(&format!(
                "{:?}",
                env.path("src/lib.rs").display().to_string()
            )),
            "{msg}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(env.path("src/lib.rs")).unwrap(),
        "x\n"
    );
}

#[tokio::test]
async fn unicode_paths_and_content_round_trip() {
    let env = Env::new();
    let path = env.put(
        "données/日本語 ファイル.txt",
        "héllo wörld 🌍\nzweite Zeile\n",
    );
    assert_eq!(
        env.read(&path).await,
        numbered(&[(1, "héllo wörld 🌍"), (2, "zweite Zeile")])
    );
    let out = env
        .ok(
            "Edit",
            json!({"file_path": path, "old_string": "wörld 🌍", "new_string": "мир 🌏"}),
        )
        .await;
    assert!(out.contains("     1\théllo мир 🌏"), "{out}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "héllo мир 🌏\nzweite Zeile\n"
    );
    let new = env.path("données/新しい.md");
    env.ok("Write", json!({"file_path": new, "content": "ünïcödé"}))
        .await;
    assert_eq!(std::fs::read_to_string(&new).unwrap(), "ünïcödé");
}

#[tokio::test]
async fn read_through_a_symlink_counts_for_the_target() {
    let env = Env::new();
    let target = env.put("real/config.toml", "key = 1\n");
    let link = env.path("link.toml");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    env.read(&link).await;
    // Edit through the target's own path: the same file was read.
    env.ok(
        "Edit",
        json!({"file_path": target, "old_string": "1", "new_string": "2"}),
    )
    .await;
    // Edit through the link: the link stays a link, the target changes.
    env.ok(
        "Edit",
        json!({"file_path": link, "old_string": "key", "new_string": "name"}),
    )
    .await;
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "name = 2\n");
}

#[tokio::test]
async fn only_read_is_concurrency_safe() {
    let env = Env::new();
    let safe = |name: &str, input: Value| {
        env.registry
            .get(name)
            .unwrap()
            .tool
            .is_concurrency_safe(&input)
    };
    assert!(safe("Read", json!({"file_path": "/x"})));
    assert!(!safe("Write", json!({"file_path": "/x", "content": ""})));
    assert!(!safe(
        "Edit",
        json!({"file_path": "/x", "old_string": "a", "new_string": "b"})
    ));
    assert!(safe("Glob", json!({"pattern": "*"})));
    assert!(safe("Grep", json!({"pattern": "x"})));
}

// ---------------------------------------------------------------- Write

#[tokio::test]
async fn write_creates_files_and_parent_directories() {
    let env = Env::new();
    let path = env.path("a/b/c/new.txt");
    let out = env
        .ok("Write", json!({"file_path": path, "content": "one\ntwo\n"}))
        .await;
    assert_eq!(
        out,
        format!("Created {} (2 lines, 8 bytes).", path.display())
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
    // Nothing but the file is left in the directory (no temp files).
    let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("new.txt")]);
}

/// `..` after a symlink goes up from where the link leads, as the kernel
/// goes (and as the permission policy resolves the path): Write creates
/// the file there, never where dropping `link/..` by hand would put it.
#[tokio::test]
async fn write_takes_dotdot_after_a_symlink_where_the_kernel_does() {
    let env = Env::new();
    std::fs::create_dir_all(env.path("proj/a/b/c")).unwrap();
    std::fs::create_dir_all(env.path("outside")).unwrap();
    std::os::unix::fs::symlink(env.path("proj/a/b/c"), env.path("proj/link")).unwrap();
    let written = env.path("proj/link/../../outside/pwned");
    env.ok("Write", json!({"file_path": written, "content": "x"}))
        .await;
    assert!(!env.path("outside/pwned").exists());
    assert_eq!(
        std::fs::read_to_string(env.path("proj/a/outside/pwned")).unwrap(),
        "x"
    );

    // A link after the `..` is followed from where the `..` landed.
    let locked = env.put("proj/locked/keep", "keep\n");
    std::os::unix::fs::symlink(env.path("proj/a/b"), env.path("proj/link2")).unwrap();
    std::os::unix::fs::symlink("locked", env.path("proj/x")).unwrap();
    let written = env.path("proj/link2/../x/keep");
    env.ok("Write", json!({"file_path": written, "content": "new"}))
        .await;
    assert_eq!(std::fs::read_to_string(&locked).unwrap(), "keep\n");
    assert_eq!(
        std::fs::read_to_string(env.path("proj/a/x/keep")).unwrap(),
        "new"
    );

    // A missing directory and `..` back out of it: the link after them is
    // still followed, so an existing file there needs a Read first.
    let written = env.path("proj/missing/../x/keep");
    let err = env
        .err("Write", json!({"file_path": written, "content": "gone"}))
        .await;
    assert!(
        message(&err).contains("has not been read in this session"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&locked).unwrap(), "keep\n");
}

#[tokio::test]
async fn write_refuses_an_existing_file_that_was_never_read() {
    let env = Env::new();
    let path = env.put("keep.txt", "precious\n");
    let err = env
        .err("Write", json!({"file_path": path, "content": "gone"}))
        .await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    assert!(
        message(&err).contains("has not been read in this session"),
        "{err}"
    );
    assert!(message(&err).contains("Read it first"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "precious\n");
}

#[tokio::test]
async fn write_after_read_updates_and_a_following_edit_needs_no_read() {
    let env = Env::new();
    let path = env.put("f.txt", "old\n");
    env.read(&path).await;
    let out = env
        .ok(
            "Write",
            json!({"file_path": path, "content": "new content\n"}),
        )
        .await;
    assert_eq!(
        out,
        format!("Updated {} (1 line, 12 bytes).", path.display())
    );
    env.ok(
        "Edit",
        json!({"file_path": path, "old_string": "new", "new_string": "newer"}),
    )
    .await;
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "newer content\n");
    // A file Write created can be edited without a Read too.
    let created = env.path("created.txt");
    env.ok("Write", json!({"file_path": created, "content": "a"}))
        .await;
    env.ok(
        "Edit",
        json!({"file_path": created, "old_string": "a", "new_string": "b"}),
    )
    .await;
    assert_eq!(std::fs::read_to_string(&created).unwrap(), "b");
}

#[tokio::test]
async fn write_refuses_a_file_changed_on_disk_since_it_was_read() {
    let env = Env::new();
    let path = env.put("f.txt", "v1\n");
    env.read(&path).await;
    // Changed size.
    std::fs::write(&path, "version 2\n").unwrap();
    let err = env
        .err("Write", json!({"file_path": path, "content": "mine"}))
        .await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    assert!(
        message(&err).contains("has changed on disk since it was last read"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "version 2\n");
    // Same size, other content, later mtime.
    env.read(&path).await;
    std::fs::write(&path, "version 3\n").unwrap();
    touch_later(&path);
    let err = env
        .err("Write", json!({"file_path": path, "content": "mine"}))
        .await;
    assert!(message(&err).contains("same size"), "{err}");
    // Read again: now it may be written.
    env.read(&path).await;
    env.ok("Write", json!({"file_path": path, "content": "mine"}))
        .await;
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine");
}

#[tokio::test]
async fn write_and_edit_keep_permissions() {
    let env = Env::new();
    let path = env.put("run.sh", "#!/bin/sh\necho hi\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o750)).unwrap();
    env.read(&path).await;
    env.ok(
        "Write",
        json!({"file_path": path, "content": "#!/bin/sh\necho hello\n"}),
    )
    .await;
    assert_eq!(mode(&path), 0o750);
    env.ok(
        "Edit",
        json!({"file_path": path, "old_string": "hello", "new_string": "bye"}),
    )
    .await;
    assert_eq!(mode(&path), 0o750);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "#!/bin/sh\necho bye\n"
    );
}

#[tokio::test]
async fn write_refuses_read_only_files_and_directories() {
    let env = Env::new();
    let path = env.put("ro.txt", "locked\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    env.read(&path).await;
    let err = env
        .err("Write", json!({"file_path": path, "content": "x"}))
        .await;
    assert!(matches!(err, ToolError::Unavailable(_)), "{err}");
    assert!(message(&err).contains("read-only"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "locked\n");

    std::fs::create_dir(env.path("dir")).unwrap();
    let err = env
        .err(
            "Write",
            json!({"file_path": env.path("dir"), "content": "x"}),
        )
        .await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    assert!(message(&err).contains("is a directory"), "{err}");
}

// ---------------------------------------------------------------- Edit

#[tokio::test]
async fn edit_replaces_one_occurrence_and_shows_the_lines_around_it() {
    let env = Env::new();
    let content: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    let path = env.put("f.txt", &content);
    env.read(&path).await;
    let out = env
        .ok(
            "Edit",
            json!({"file_path": path, "old_string": "line 5\n", "new_string": "five\nfive and a half\n"}),
        )
        .await;
    assert_eq!(
        out,
        format!(
            "Edited {}. The edited part now reads:\n{}",
            path.display(),
            numbered(&[
                (2, "line 2"),
                (3, "line 3"),
                (4, "line 4"),
                (5, "five"),
                (6, "five and a half"),
                (7, "line 6"),
                (8, "line 7"),
                (9, "line 8"),
            ])
        )
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        content.replace("line 5\n", "five\nfive and a half\n")
    );
}

#[tokio::test]
async fn edit_refuses_a_file_never_read_or_changed_since() {
    let env = Env::new();
    let path = env.put("f.txt", "alpha beta\n");
    let err = env
        .err(
            "Edit",
            json!({"file_path": path, "old_string": "alpha", "new_string": "gamma"}),
        )
        .await;
    assert!(message(&err).contains("has not been read"), "{err}");

    env.read(&path).await;
    // Only the mtime moved: the content is what was read, so the edit goes on.
    touch_later(&path);
    env.ok(
        "Edit",
        json!({"file_path": path, "old_string": "alpha", "new_string": "gamma"}),
    )
    .await;
    // Someone else changes it (same size): refused.
    std::fs::write(&path, "gamma bet4\n").unwrap();
    touch_later(&path);
    let err = env
        .err(
            "Edit",
            json!({"file_path": path, "old_string": "gamma", "new_string": "delta"}),
        )
        .await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    assert!(message(&err).contains("changed on disk"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "gamma bet4\n");
}

#[tokio::test]
async fn edit_with_several_matches_lists_their_lines() {
    let env = Env::new();
    let path = env.put("f.rs", "let x = 1;\nfoo();\nlet x = 1;\n\nlet x = 1;\n");
    env.read(&path).await;
    let err = env
        .err(
            "Edit",
            json!({"file_path": path, "old_string": "let x = 1;", "new_string": "let x = 2;"}),
        )
        .await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    let msg = message(&err);
    assert!(msg.contains("occurs 3 times"), "{msg}");
    assert!(msg.contains("at lines 1, 3, 5"), "{msg}");
    assert!(msg.contains("replace_all"), "{msg}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "let x = 1;\nfoo();\nlet x = 1;\n\nlet x = 1;\n"
    );
}

#[tokio::test]
async fn edit_replace_all_changes_every_occurrence() {
    let env = Env::new();
    let path = env.put(
        "f.rs",
        "old_name(1);\nold_name(2);\nkeep();\nold_name(3);\n",
    );
    env.read(&path).await;
    let out = env
        .ok(
            "Edit",
            json!({"file_path": path, "old_string": "old_name", "new_string": "new_name", "replace_all": true}),
        )
        .await;
    assert!(
        out.starts_with(&format!(
            "Replaced 3 occurrences in {} (lines 1, 2, 4 before the edit).",
            path.display()
        )),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "new_name(1);\nnew_name(2);\nkeep();\nnew_name(3);\n"
    );
}

#[tokio::test]
async fn edit_not_found_shows_the_closest_lines_with_numbers() {
    let env = Env::new();
    let path = env.put(
        "f.py",
        "import os\n\ndef main():\n    value = compute(1)\n    print(value)\n\ndef other():\n    pass\n",
    );
    env.read(&path).await;
    // Wrong indentation: found as a whitespace-only difference.
    let err = env
        .err(
            "Edit",
            json!({"file_path": path, "old_string": "def main():\n  value = compute(1)\n", "new_string": "x"}),
        )
        .await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    let msg = message(&err);
    assert!(msg.contains("old_string was not found"), "{msg}");
    assert!(
        msg.contains("lines 3-4 (differs only in whitespace)"),
        "{msg}"
    );
    assert!(
        msg.contains(&numbered(&[
            (3, "def main():"),
            (4, "    value = compute(1)")
        ])),
        "{msg}"
    );

    // A typo: found as similar.
    let err = env
        .err(
            "Edit",
            json!({"file_path": path, "old_string": "print(valeu)", "new_string": "x"}),
        )
        .await;
    let msg = message(&err);
    assert!(msg.contains("lines 5-5 ("), "{msg}");
    assert!(msg.contains("% similar"), "{msg}");
    assert!(msg.contains("     5\t    print(value)"), "{msg}");

    // Nothing alike.
    let err = env
        .err(
            "Edit",
            json!({"file_path": path, "old_string": "zzqqxxyyww", "new_string": "x"}),
        )
        .await;
    assert!(
        message(&err).contains("No similar lines were found"),
        "{err}"
    );

    // Line-number prefixes copied from Read.
    let err = env
        .err(
            "Edit",
            json!({"file_path": path, "old_string": "     8\t    pass", "new_string": "x"}),
        )
        .await;
    assert!(message(&err).contains("line-number prefixes"), "{err}");
}

#[tokio::test]
async fn edit_rejects_identical_strings() {
    let env = Env::new();
    let path = env.put("f.txt", "same\n");
    env.read(&path).await;
    let err = env
        .err(
            "Edit",
            json!({"file_path": path, "old_string": "same", "new_string": "same"}),
        )
        .await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    assert!(message(&err).contains("are the same"), "{err}");
}

#[tokio::test]
async fn edit_keeps_crlf_line_endings() {
    let env = Env::new();
    let path = env.put("win.txt", "first\r\nsecond\r\nthird\r\n");
    env.read(&path).await;
    let out = env
        .ok(
            "Edit",
            json!({"file_path": path, "old_string": "first\nsecond", "new_string": "1st\n2nd\n2.5th"}),
        )
        .await;
    assert!(
        out.contains(&numbered(&[
            (1, "1st"),
            (2, "2nd"),
            (3, "2.5th"),
            (4, "third")
        ])),
        "{out}"
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"1st\r\n2nd\r\n2.5th\r\nthird\r\n"
    );
}

#[tokio::test]
async fn edit_of_a_non_utf8_file_keeps_its_other_bytes() {
    let env = Env::new();
    let path = env.put("latin1.txt", b"caf\xe9 au lait\nprice: 3\n");
    env.read(&path).await;
    env.ok(
        "Edit",
        json!({"file_path": path, "old_string": "price: 3", "new_string": "price: 4"}),
    )
    .await;
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"caf\xe9 au lait\nprice: 4\n"
    );
}

#[tokio::test]
async fn edit_with_empty_old_string_creates_a_file_but_never_overwrites_one() {
    let env = Env::new();
    let path = env.path("new/file.txt");
    let out = env
        .ok(
            "Edit",
            json!({"file_path": path, "old_string": "", "new_string": "hello\n"}),
        )
        .await;
    assert!(out.starts_with("Created"), "{out}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "hello\n");
    let err = env
        .err(
            "Edit",
            json!({"file_path": path, "old_string": "", "new_string": "bye\n"}),
        )
        .await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    assert!(message(&err).contains("old_string is empty"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "hello\n");
}

#[tokio::test]
async fn edit_of_a_missing_file_suggests_write() {
    let env = Env::new();
    let err = env
        .err(
            "Edit",
            json!({"file_path": env.path("nope.txt"), "old_string": "a", "new_string": "b"}),
        )
        .await;
    assert!(matches!(err, ToolError::Unavailable(_)), "{err}");
    assert!(message(&err).contains("does not exist"), "{err}");
    assert!(message(&err).contains("use Write"), "{err}");
}

#[tokio::test]
async fn edit_of_a_10_mb_file() {
    let env = Env::new();
    let mut content = String::with_capacity(10 * 1024 * 1024 + 100);
    let mut i = 0;
    while content.len() < 10 * 1024 * 1024 {
        content.push_str(&format!("row {i:08} some filler text to make a line\n"));
        i += 1;
    }
    content.push_str("THE END\n");
    let path = env.put("big.txt", &content);
    env.ok("Read", json!({"file_path": path, "limit": 1})).await;
    let started = std::time::Instant::now();
    let out = env
        .ok(
            "Edit",
            json!({"file_path": path, "old_string": "THE END", "new_string": "the very end"}),
        )
        .await;
    let took = started.elapsed();
    assert!(
        out.contains(&format!("{:>6}\tthe very end", i + 1)),
        "{out}"
    );
    let after = std::fs::read_to_string(&path).unwrap();
    assert_eq!(after.len(), content.len() + 5);
    assert!(after.ends_with("the very end\n"));
    assert!(took < Duration::from_secs(5), "took {took:?}");
}

// ---------------------------------------------------------------- Definitions

#[tokio::test]
async fn definitions_use_claude_code_names_and_fields_and_stay_small() {
    let env = Env::new();
    let fields = |name: &str| -> Vec<String> {
        let def = &env.registry.get(name).unwrap().definition;
        let mut keys: Vec<String> = def.input_schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        keys.sort();
        keys
    };
    assert_eq!(fields("Read"), ["file_path", "limit", "offset", "pages"]);
    assert_eq!(
        fields("NotebookEdit"),
        [
            "cell_id",
            "cell_type",
            "edit_mode",
            "new_source",
            "notebook_path"
        ]
    );
    assert_eq!(fields("Write"), ["content", "file_path"]);
    assert_eq!(
        fields("Edit"),
        ["file_path", "new_string", "old_string", "replace_all"]
    );
    assert_eq!(fields("Glob"), ["path", "pattern"]);
    assert_eq!(
        fields("Grep"),
        [
            "-A",
            "-B",
            "-C",
            "-i",
            "-n",
            "glob",
            "head_limit",
            "multiline",
            "offset",
            "output_mode",
            "path",
            "pattern",
            "type"
        ]
    );
    let grep = &env.registry.get("Grep").unwrap().definition.input_schema;
    assert_eq!(
        grep["properties"]["output_mode"]["enum"],
        json!(["content", "files_with_matches", "count", null])
    );
    let mut total = 0;
    for name in ["Read", "Write", "Edit", "Glob", "Grep"] {
        let def = &env.registry.get(name).unwrap().definition;
        let description = def.description.as_deref().unwrap();
        let sentences = description.matches(". ").count() + 1;
        assert!(
            (4..=9).contains(&sentences),
            "{name}: {sentences} sentences"
        );
        total += description.len() + def.input_schema.to_string().len();
        for (field, schema) in def.input_schema["properties"].as_object().unwrap() {
            assert!(
                schema.get("description").is_some(),
                "{name}.{field} has no description"
            );
        }
    }
    assert!(total < 11_000, "definitions take {total} bytes");
}
