//! `tack_mcp::server` serving a session's skills: the skills extension
//! (`skills/list`, `skills/get`, files through `resources/read`) and MCP
//! prompts, driven by raw JSON-RPC over the stdio framing and by tack's own
//! (rmcp) client over streamable HTTP, on real skill folders.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use serde_json::{Value, json};
use sha2::Digest as _;
use tack_mcp::client::{ConfigSource, ManagerOptions, McpConfig, McpManager, ServerConfig};
use tack_mcp::server::{
    HttpAuth, HttpOptions, HttpServer, RegistryHost, ServedSkills, ServerInfo, serve_io,
};
use tack_skills::{Places, SkillSet, Source, TrustAll};
use tack_tool::{Tool, ToolHost, ToolRegistry};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const WAIT: Duration = Duration::from_secs(10);
const SKILL_MD: &str = "---\nname: code-review\ndescription: Reviews a change for bugs.\nallowed-tools: Bash(git diff:*) Read\nmetadata:\n  version: \"2\"\n---\n# Code review\n\nRun scripts/check.sh, then review $ARGUMENTS.\n";

/// A user skills folder with `code-review` (a script, a binary asset, a
/// hidden file, a link out of the folder) and `private` (a person may not
/// invoke it), and the set a session would find there.
struct Skills {
    dir: tempfile::TempDir,
    set: Arc<SkillSet>,
}

impl Skills {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let skills = root.join("skills");
        let write = |rel: &str, bytes: &[u8]| {
            let path = skills.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        };
        write("code-review/SKILL.md", SKILL_MD.as_bytes());
        write("code-review/scripts/check.sh", b"#!/bin/sh\necho checked\n");
        write("code-review/assets/logo.bin", &[0, 159, 146, 150, 255]);
        write("code-review/.env", b"TOKEN=secret\n");
        std::fs::write(root.join("outside.txt"), "outside the skill\n").unwrap();
        std::os::unix::fs::symlink(
            root.join("outside.txt"),
            skills.join("code-review/outside.txt"),
        )
        .unwrap();
        write(
            "private/SKILL.md",
            b"---\nname: private\ndescription: Only for the model.\nuser-invocable: false\n---\nQuietly.\n",
        );
        let discovery = tack_skills::discover(&Places {
            user: vec![skills],
            ..Places::default()
        });
        let set = Arc::new(SkillSet::new(discovery, 4000, &|_| "user".into()));
        Self { dir, set }
    }

    fn skill_dir(&self) -> PathBuf {
        self.dir
            .path()
            .canonicalize()
            .unwrap()
            .join("skills/code-review")
    }

    fn served(&self) -> ServedSkills {
        let tool = self
            .set
            .tool(Arc::new(TrustAll), "mcp-test")
            .map(|t| Arc::new(t.without_dedupe()) as Arc<dyn Tool>);
        ServedSkills::new(Arc::clone(&self.set), tool, Arc::new(TrustAll), "mcp-test")
    }
}

fn host() -> Arc<dyn ToolHost> {
    Arc::new(RegistryHost::new(ToolRegistry::new()))
}

/// A client speaking raw JSON-RPC lines to a server run by `serve_io`.
struct Client {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    next_id: u64,
}

impl Client {
    async fn start(info: ServerInfo) -> (Self, Value) {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(theirs);
        tokio::spawn(serve_io(host(), info, read, write));
        let (read, write) = tokio::io::split(ours);
        let mut client = Self {
            write,
            lines: BufReader::new(read).lines(),
            next_id: 0,
        };
        let init = client
            .request(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "1"}}),
            )
            .await;
        client
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        (client, init)
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.write.write_all(line.as_bytes()).await.unwrap();
    }

    /// The response to a request (its `result` or `error` object whole).
    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let line = tokio::time::timeout(WAIT, self.lines.next_line())
                .await
                .expect("the server answers in time")
                .unwrap()
                .expect("the server keeps the stream open");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    async fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params).await;
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    /// A file's bytes as `resources/read` gives them.
    async fn read(&mut self, uri: &str) -> Vec<u8> {
        let result = self.result("resources/read", json!({"uri": uri})).await;
        let contents = &result["contents"][0];
        assert_eq!(contents["uri"], uri, "{result}");
        match contents.get("text") {
            Some(text) => text.as_str().unwrap().as_bytes().to_vec(),
            None => base64::engine::general_purpose::STANDARD
                .decode(contents["blob"].as_str().unwrap())
                .unwrap(),
        }
    }
}

fn sha256(bytes: &[u8]) -> String {
    let hash = sha2::Sha256::digest(bytes);
    format!(
        "sha256:{}",
        hash.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

#[tokio::test]
async fn the_skills_extension_lists_each_skill_with_digests_and_sizes_that_match_its_files() {
    let skills = Skills::new();
    let info = ServerInfo::new("tack-test", "1").with_skills(skills.served());
    let (mut client, init) = Client::start(info).await;
    let capabilities = &init["result"]["capabilities"];
    assert!(
        capabilities["extensions"]["io.modelcontextprotocol/skills"].is_object(),
        "{init}"
    );
    assert!(capabilities["resources"].is_object(), "{init}");
    assert!(capabilities["prompts"].is_object(), "{init}");

    let listed = client.result("skills/list", json!({})).await;
    let all = listed["skills"].as_array().unwrap();
    let uris: Vec<&str> = all.iter().map(|s| s["uri"].as_str().unwrap()).collect();
    assert_eq!(
        uris,
        ["skill://code-review/SKILL.md", "skill://private/SKILL.md"]
    );
    let skill = &all[0];
    // The frontmatter as written.
    assert_eq!(
        skill["frontmatter"],
        json!({"name": "code-review", "description": "Reviews a change for bugs.",
               "allowed-tools": "Bash(git diff:*) Read", "metadata": {"version": "2"}})
    );
    let files: Vec<&str> = skill["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["uri"].as_str().unwrap())
        .collect();
    // No hidden file, no link out of the folder.
    assert_eq!(
        files,
        [
            "skill://code-review/SKILL.md",
            "skill://code-review/assets/logo.bin",
            "skill://code-review/scripts/check.sh"
        ]
    );
    // Every digest and size is that of the file on disk, and of what
    // resources/read serves.
    for file in skill["resources"].as_array().unwrap() {
        let uri = file["uri"].as_str().unwrap();
        let rel = uri.strip_prefix("skill://code-review/").unwrap();
        let on_disk = std::fs::read(skills.skill_dir().join(rel)).unwrap();
        assert_eq!(file["digest"], sha256(&on_disk), "{uri}");
        assert_eq!(file["size"], on_disk.len(), "{uri}");
        assert_eq!(client.read(uri).await, on_disk, "{uri}");
    }
    // rmcp's own check of the listing passes.
    let entry: rmcp::model::Skill = serde_json::from_value(skill.clone()).unwrap();
    entry.validate().unwrap();
    for file in match &entry.resources {
        rmcp::model::SkillResources::Files(files) => files.clone(),
        _ => panic!("a manifest"),
    } {
        let bytes = client.read(&file.uri).await;
        file.verify(&bytes).unwrap();
    }

    let got = client
        .result("skills/get", json!({"uri": "skill://code-review/SKILL.md"}))
        .await;
    assert_eq!(got["skill"], *skill);
    let unknown = client
        .request("skills/get", json!({"uri": "skill://nope/SKILL.md"}))
        .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    let resources = client.result("resources/list", json!({})).await;
    let listed: Vec<&str> = resources["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert!(
        listed.contains(&"skill://code-review/scripts/check.sh"),
        "{resources}"
    );
}

#[tokio::test]
async fn nothing_outside_a_skills_manifest_is_served() {
    let skills = Skills::new();
    let info = ServerInfo::new("tack-test", "1").with_skills(skills.served());
    let (mut client, _) = Client::start(info).await;
    for uri in [
        "skill://code-review/.env",
        "skill://code-review/outside.txt",
        "skill://code-review/../../outside.txt",
        "skill://code-review/scripts/../../private/SKILL.md/../../../outside.txt",
        "skill://code-review/%2e%2e/%2e%2e/outside.txt",
        "file:///etc/passwd",
    ] {
        let answer = client.request("resources/read", json!({"uri": uri})).await;
        assert!(answer.get("error").is_some(), "{uri} was served: {answer}");
        assert!(
            !answer.to_string().contains("outside the skill")
                && !answer.to_string().contains("secret"),
            "{answer}"
        );
    }
}

#[tokio::test]
async fn prompts_give_what_the_skill_tool_gives_as_a_user_message() {
    let skills = Skills::new();
    let info = ServerInfo::new("tack-test", "1").with_skills(skills.served());
    let (mut client, _) = Client::start(info).await;
    let prompts = client.result("prompts/list", json!({})).await;
    // `private` is user-invocable: false, so no prompt.
    assert_eq!(
        prompts["prompts"],
        json!([{
            "name": "code-review",
            "description": "Reviews a change for bugs.",
            "arguments": [{"name": "args", "required": false,
                "description": "Optional arguments for the skill, e.g. a file name or a short request"}]
        }])
    );
    let got = client
        .result(
            "prompts/get",
            json!({"name": "code-review", "arguments": {"args": "src/main.rs"}}),
        )
        .await;
    assert_eq!(got["messages"].as_array().unwrap().len(), 1, "{got}");
    let message = &got["messages"][0];
    assert_eq!(message["role"], "user");
    let text = message["content"]["text"].as_str().unwrap();
    for expected in [
        "<skill_content name=\"code-review\">",
        "Run scripts/check.sh, then review src/main.rs.",
        &format!("Skill directory: {}", skills.skill_dir().display()),
        "<file>scripts/check.sh</file>",
        "allowed-tools",
    ] {
        assert!(text.contains(expected), "{expected:?} missing: {text}");
    }
    // The same text the Skill tool gives the model.
    let tool = skills.set.tool(Arc::new(TrustAll), "mcp-test").unwrap();
    let output = tool
        .call(
            json!({"skill": "code-review", "args": "src/main.rs"}),
            tack_tool::ToolContext::new("/", "mcp-test", "t1", Default::default()),
        )
        .await
        .unwrap();
    let tool_text = match &output.content[0] {
        tack_protocol::ContentBlock::Text(t) => t.text.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(text, tool_text);

    let unknown = client
        .request("prompts/get", json!({"name": "private"}))
        .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the prompts are: code-review"),
        "{unknown}"
    );
}

#[tokio::test]
async fn a_server_with_no_skill_to_serve_declares_neither_resources_nor_prompts() {
    let empty = Arc::new(SkillSet::default());
    for info in [
        ServerInfo::new("tack-test", "1"),
        ServerInfo::new("tack-test", "1").with_skills(ServedSkills::new(
            empty,
            None,
            Arc::new(TrustAll),
            "s",
        )),
    ] {
        let (mut client, init) = Client::start(info).await;
        let capabilities = &init["result"]["capabilities"];
        assert!(capabilities.get("resources").is_none(), "{init}");
        assert!(capabilities.get("prompts").is_none(), "{init}");
        assert!(capabilities.get("extensions").is_none(), "{init}");
        let answer = client.request("skills/list", json!({})).await;
        assert_eq!(answer["error"]["code"], -32601, "{answer}");
        let answer = client.request("prompts/list", json!({})).await;
        assert_eq!(answer["error"]["code"], -32601, "{answer}");
    }
}

/// tack's client, on rmcp, against tack's server over streamable HTTP: the
/// skills join its catalog as `server:name` and a load verifies every file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tacks_client_loads_a_skill_served_by_tack_over_http() {
    let skills = Skills::new();
    let server = HttpServer::bind(
        host(),
        ServerInfo::new("tack-test", "1").with_skills(skills.served()),
        "127.0.0.1:0".parse().unwrap(),
        HttpOptions {
            auth: HttpAuth::None,
            ..HttpOptions::default()
        },
    )
    .await
    .unwrap();
    let url = format!("http://{}/mcp", server.local_addr());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(server.run_until(async {
        let _ = stopped.await;
    }));

    let home = tempfile::tempdir().unwrap();
    let mut config = McpConfig::new();
    config.insert(ServerConfig::http(
        "served",
        ConfigSource::UserSettings,
        &url,
        &[],
    ));
    let state = home.path().join("state");
    let mut options = ManagerOptions::new(
        state.clone(),
        home.path().join("cache"),
        home.path().join("logs"),
        home.path().to_path_buf(),
    );
    options.lazy = false;
    let manager = McpManager::new(config, options).unwrap();
    manager.start().await;
    let (found, notes) = manager.skills();
    assert!(notes.is_empty(), "{notes:?}");
    let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["served:code-review", "served:private"]);
    let Source::Remote { fetch, .. } = &found[0].source else {
        panic!("remote")
    };
    let fetched = fetch.fetch().await.unwrap();
    let dir = fetched.dir.unwrap();
    assert!(
        dir.starts_with(state.join("skills/mcp/served")),
        "{}",
        dir.display()
    );
    assert_eq!(fetched.files, ["assets/logo.bin", "scripts/check.sh"]);
    for rel in ["SKILL.md", "assets/logo.bin", "scripts/check.sh"] {
        assert_eq!(
            std::fs::read(dir.join(rel)).unwrap(),
            std::fs::read(skills.skill_dir().join(rel)).unwrap(),
            "{rel}"
        );
    }
    manager.shutdown().await;
    let _ = stop.send(());
}

/// Trusts no project skill, as a session whose user never trusted them.
struct TrustNone;

#[async_trait::async_trait]
impl tack_skills::Trust for TrustNone {
    async fn check(&self, skill: &tack_skills::Skill, _digest: &str) -> Result<(), String> {
        Err(format!(
            "the project skill {} needs the user's trust",
            skill.name
        ))
    }
}

/// A project whose `.claude/skills/proj` is a link to the project itself
/// (a root `SKILL.md`), with a secret in `secrets/prod.key`.
fn linked_project_skill() -> (tempfile::TempDir, PathBuf, Arc<SkillSet>) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("proj");
    std::fs::create_dir_all(root.join("secrets")).unwrap();
    std::fs::create_dir_all(root.join(".claude/skills")).unwrap();
    std::fs::write(
        root.join("SKILL.md"),
        "---\nname: proj\ndescription: Project helper skill.\n---\nBuild with make.\n",
    )
    .unwrap();
    std::fs::write(root.join("secrets/prod.key"), "SECRETMARK_4419\n").unwrap();
    std::fs::write(root.join("README.txt"), "hello\n").unwrap();
    std::os::unix::fs::symlink("../..", root.join(".claude/skills/proj")).unwrap();
    let discovery = tack_skills::discover(&Places {
        project: Some((root.clone(), root.clone())),
        ..Places::default()
    });
    let set = Arc::new(SkillSet::new(discovery, 4000, &|_| "project".into()));
    assert!(set.get("proj").is_some(), "the linked skill is found");
    (dir, root, set)
}

#[tokio::test]
async fn an_untrusted_project_skills_files_are_not_served() {
    let (_dir, _root, set) = linked_project_skill();
    let served = ServedSkills::new(set, None, Arc::new(TrustNone), "mcp-test");
    let info = ServerInfo::new("tack-test", "1").with_skills(served);
    let (mut client, _) = Client::start(info).await;
    let listed = client.request("resources/list", json!({})).await;
    assert!(!listed.to_string().contains("skill://proj/"), "{listed}");
    let listed = client.request("skills/list", json!({})).await;
    assert!(!listed.to_string().contains("skill://proj/"), "{listed}");
    for uri in ["skill://proj/secrets/prod.key", "skill://proj/SKILL.md"] {
        let answer = client.request("resources/read", json!({"uri": uri})).await;
        assert!(
            answer["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("needs the user's trust")),
            "{uri}: {answer}"
        );
        assert!(!answer.to_string().contains("SECRETMARK"), "{answer}");
    }
}

#[tokio::test]
async fn a_skill_file_a_read_rule_refuses_is_not_served() {
    let (_dir, root, set) = linked_project_skill();
    let secrets = root.join("secrets");
    let check: tack_mcp::server::ReadCheck = Arc::new(move |path: &std::path::Path| {
        if path.starts_with(&secrets) {
            Err(format!(
                "deny rule `Read(./secrets/**)` names {}",
                path.display()
            ))
        } else {
            Ok(())
        }
    });
    let served =
        ServedSkills::new(set, None, Arc::new(TrustAll), "mcp-test").with_read_check(check);
    let info = ServerInfo::new("tack-test", "1").with_skills(served);
    let (mut client, _) = Client::start(info).await;
    let listed = client.result("resources/list", json!({})).await;
    assert!(
        listed.to_string().contains("skill://proj/README.txt"),
        "{listed}"
    );
    assert!(!listed.to_string().contains("prod.key"), "{listed}");
    let listed = client.result("skills/list", json!({})).await;
    assert!(!listed.to_string().contains("prod.key"), "{listed}");
    let answer = client
        .request(
            "resources/read",
            json!({"uri": "skill://proj/secrets/prod.key"}),
        )
        .await;
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("deny rule `Read(./secrets/**)`")),
        "{answer}"
    );
    assert!(!answer.to_string().contains("SECRETMARK"), "{answer}");
    assert_eq!(client.read("skill://proj/README.txt").await, b"hello\n");
}
